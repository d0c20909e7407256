// Package tit reads and writes SimGrid's time-independent traces (TIT),
// the input of SimGrid's MPI replay (smpi_replay): lines of "RANK ACTION
// ARGS", with computation in flops instead of times.
//
// Open reads a trace as a trace.Source for gopsim's converter to GOAL: a
// shared file holding every rank's lines, or an index file naming one file
// per rank. Options.HostSpeed turns flops into time. The actions and their
// arguments are listed at the top of tit.go. Write does the reverse: it
// exports a GOAL schedule as one shared TIT file (write.go says what a
// schedule loses on the way).
//
// The package registers the format "tit" with trace.RegisterFormat, so
// `gopsim convert` detects and opens TIT traces.
//
// Example: convert a trace at 2 Gflop/s and simulate it.
//
//	t, err := tit.Open("actions_allreduce.txt", tit.Options{HostSpeed: 2e9})
//	if err != nil {
//		return err // e.g. "trace: actions_allreduce.txt:3:12: count \"x\" is not a number"
//	}
//	s := goal.NewSchedule(t.NumRanks())
//	if _, err := trace.Convert(t, trace.ConvertOptions{}, s.AppendRank); err != nil {
//		return err
//	}
//	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
package tit
