// Package dumpi reads DUMPI traces, the binary MPI traces of Sandia's
// sst-dumpi (libdumpi) that SST/macro and the DOE trace collections use,
// as a trace.Source for gopsim's converter to GOAL.
//
// A run is PREFIX.meta and one PREFIX-NNNN.bin per rank; Open takes the
// .meta file, any .bin file of the run, or their directory. The binary
// layout is specified at the top of dumpi.go; OpenFile and File.Records
// decode one file record by record for other uses. Communicators are
// resolved across the ranks with trace.ResolveComms, and receives
// without a recorded status with trace.ResolveWildcards.
//
// The package registers the format "dumpi" with trace.RegisterFormat, so
// `gopsim convert` detects and opens DUMPI traces.
//
// Example: convert a trace and simulate it.
//
//	d, err := dumpi.Open("run/app.meta", dumpi.Options{})
//	if err != nil {
//		return err // e.g. "trace: dumpi app-0000.bin: ... MPI_Win_fence x2" (unsupported calls)
//	}
//	s := goal.NewSchedule(d.NumRanks())
//	if _, err := trace.Convert(d, trace.ConvertOptions{}, s.AppendRank); err != nil {
//		return err
//	}
//	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
package dumpi
