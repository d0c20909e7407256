// Package timeline writes what a simulated run did, op by op, in formats
// that trace viewers load: the Chrome trace-event format (Perfetto,
// chrome://tracing) and Paraver's .prv/.pcf/.row files.
//
// Both need the per-op record of the run (sim.Options.Record). Each rank
// shown is a process (Chrome) or task (Paraver); each of its CPUs a
// thread, on which the run's CPU work appears as slices or states: calc,
// o_send (a send's CPU overhead o + (s-1)·O), o_recv (a receive overhead
// o + max((s-1)·O, (s-1)·G), on the CPU the send named) and noise (what
// noise and stragglers added to the piece of work just before it). The
// Chrome form adds two tracks per NIC, "send" and "recv", with each NIC
// occupation g + (s-1)·G, and draws every message as a flow arrow from
// its send's o_send slice to the receiver's o_recv slice.
//
// A big run makes a big timeline, so Options bound it: a subset of ranks
// (by default every rank in Paraver's form and the first DefaultRanks in
// Chrome's, which a viewer loads whole) and a time window. Slices that
// overlap the window are written whole; a message is drawn when both its
// ends are shown.
//
//	p, _ := sim.Compile(schedule)
//	res, _ := p.Run(sim.Options{Params: sim.DefaultParams(), Record: true})
//	f, _ := os.Create("run.json")
//	err := timeline.WriteChrome(f, p, res, timeline.Options{Ranks: []int{0, 1, 2, 3}})
//	f.Close()
//	err = timeline.WriteParaver("run", p, res, timeline.Options{}) // run.prv, run.pcf, run.row
//
// Output is deterministic: the same run and options give byte-identical
// files (the Paraver header carries a fixed date, see WritePRV).
package timeline
