// Package chakra reads MLCommons Chakra execution traces (schema 0.0.4),
// per-rank dependency graphs of computation and communication nodes that
// ASTRA-sim replays, as a trace.Source for gopsim's converter to GOAL.
//
// A trace is one file per rank, PREFIX.RANK.et (or .et.gz); Open takes
// their directory, one of them, or PREFIX. The format is specified in
// proto/chakra_et.proto; how a graph becomes a sequence of calls (order,
// time, overlap) is described at the top of chakra.go.
//
// The package registers the format "chakra" with trace.RegisterFormat, so
// `gopsim convert` detects and opens Chakra traces.
//
// Example: convert a trace and simulate it.
//
//	c, err := chakra.Open("allreduce", chakra.Options{})
//	if err != nil {
//		return err // e.g. "trace: allreduce/all_reduce.3.et: byte 120: ..."
//	}
//	s := goal.NewSchedule(c.NumRanks())
//	if _, err := trace.Convert(c, trace.ConvertOptions{}, s.AppendRank); err != nil {
//		return err
//	}
//	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
package chakra
