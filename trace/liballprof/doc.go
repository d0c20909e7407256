// Package liballprof reads the text MPI traces of liballprof, the PMPI
// tracer of LogGOPSim's Schedgen, as a trace.Source for gopsim's
// converter to GOAL.
//
// A trace is one text file per rank (pmpi-trace-rank-N.txt,
// htor-coll-rank-N.dat, ...), one line per call; Open takes their
// directory or one of them. The format and what the reader assumes are
// specified at the top of liballprof.go. Times are µs, multiplied by
// Options.TimeMult; the MPI library's constants (Options.MPI) tell the
// wildcards and MPI_PROC_NULL apart. Communicators are resolved across the
// ranks with trace.ResolveComms, wildcard receives with
// trace.ResolveWildcards.
//
// The package registers the format "liballprof" with
// trace.RegisterFormat, so `gopsim convert` detects and opens these traces.
//
// Example: convert a trace and simulate it.
//
//	l, err := liballprof.Open("sweep3d-2x2", liballprof.Options{})
//	if err != nil {
//		return err // e.g. "trace: sweep3d-2x2/pmpi-trace-rank-1.txt:12:3: count \"x\""
//	}
//	s := goal.NewSchedule(l.NumRanks())
//	if _, err := trace.Convert(l, trace.ConvertOptions{}, s.AppendRank); err != nil {
//		return err
//	}
//	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
package liballprof
