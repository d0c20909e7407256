// Package extrapolation turns a P-rank trace or schedule into one of K·P
// ranks, to ask what an application does at a scale it was never run at.
//
// The rule is LogGOPSim Schedgen's: copy j of rank r becomes rank r + P·j,
// point-to-point messages stay inside each copy (peer p of copy j becomes
// p + P·j), and collectives are regenerated over all K·P ranks. Beyond
// Schedgen, a process grid is scaled as a larger grid: when the trace has
// an MPI_Cart_create over all P ranks (or Options.Grid names the grid), the
// copies are stacked along the grid's first (slowest) dimension, which
// grows from d0 to K·d0, and a message that wrapped around that dimension
// in the P-rank run crosses into the neighbouring copy instead, so a
// periodic halo exchange stays one halo exchange over the K·P ranks rather
// than K disjoint ones. docs/extrapolate.md has the rules in full.
//
// Two entry points:
//
//   - NewSource wraps a trace.Source (a trace directory, or any imported
//     format) and presents K·P rank streams: peers, communicators and the
//     per-rank counts of v-collectives are rewritten as each call is read,
//     and trace.Convert then regenerates the collectives over the scaled
//     communicators with package collective.
//   - Schedule replicates the rank blocks of a GOAL schedule with peers
//     remapped. A schedule has no collectives left to recognise, so they
//     stay inside each copy.
//
// Example: a 16-rank halo trace becomes a 1,024-rank schedule.
//
//	d, err := trace.OpenDir("halo-trace")
//	if err != nil {
//		return err
//	}
//	x, err := extrapolation.NewSource(d, extrapolation.Options{Factor: 64})
//	if err != nil {
//		return err // e.g. "extrapolation: grid 5x3 has 15 ranks, the trace 16"
//	}
//	fmt.Println(x.Grid()) // "4x4 grown to 256x4 (detected: ...)"
//	s := goal.NewSchedule(x.NumRanks())
//	_, err = trace.Convert(x, trace.ConvertOptions{}, s.AppendRank)
package extrapolation
