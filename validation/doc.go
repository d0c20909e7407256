// Package validation compares a traced run of an MPI program with the
// simulation of the schedule converted from its trace: per rank, the time
// measured between MPI_Init and MPI_Finalize, the simulated time, their
// ratio, and where the two part (computation, communication, waiting).
//
// The measured time of a rank runs from the end of MPI_Init to the start
// of MPI_Finalize (trace.RankTimes.Measured): that is where the converted
// schedule starts and ends. It splits into the computation, as the
// converter counts it (the time outside MPI calls, and inside failed
// polls and datatype commits: Rank.MeasuredCompute), the time inside the
// other MPI calls (Rank.MeasuredMPI) and the tracer's own flushes. The
// simulated time splits
// into calc, communication (send and receive overheads, o and (s-1)·O)
// and waiting (idle until a message or a dependency arrived), from the
// engine's per-rank breakdown (sim.Options.Breakdown). So
//
//	compute difference = simulated calc - measured computation
//	MPI difference     = simulated (communication + waiting) - measured inside MPI
//
// and the simulated minus the measured time is their sum less the
// tracer's time. A computation difference comes from the conversion
// (scaled compute, calls counted as computation); an MPI difference is
// the model's: its parameters, the collective algorithms, what it leaves
// out.
//
// The run as a whole is compared by its slowest rank in each: Result's
// MeasuredNs is the largest measured time, SimulatedNs the largest
// simulated one, Ratio the second over the first.
//
// Example: validate a trace directory written by gopsim trace.
//
//	d, err := trace.OpenDir("run1")
//	if err != nil {
//		return err
//	}
//	res, err := validation.Run(d, validation.Options{Params: sim.DefaultParams()})
//	if err != nil {
//		return err // e.g. "trace: run1/rank-000001.gpt: rank 1: no MPI_Finalize record ..."
//	}
//	fmt.Printf("simulated/measured %.3f\n", res.Ratio)
//	for r, x := range res.Ranks {
//		fmt.Println(r, x.Measured.Measured(), x.Simulated.Finish, x.ComputeDiff(), x.MPIDiff())
//	}
package validation
