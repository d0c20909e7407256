// Package bench measures the LogGOPS parameters of a real network and
// fits them, so that gopsim simulates the machine it runs on.
//
// # Method
//
// bench follows Netgauge's LogGP method (Hoefler, Lichei, Rehm,
// "Low-Overhead LogGP Parameter Assessment for Modern Interconnection
// Networks", 2007). A parametrised round trip PRTT(n,d,s) is n messages of
// s bytes sent back to back, d apart, and one reply of s bytes; with
// b = s-1, LogGP gives
//
//	PRTT(1,0,s) = 2(L + 2o + bG)
//	PRTT(n,0,s) = PRTT(1,0,s) + (n-1)(g + bG)
//	PRTT(n,d,s) = PRTT(1,0,s) + (n-1) max(o + d, g + bG)
//
// so that, per size, the half round trip is L + 2o + bG, the gap
// (PRTT(n,0,s)-PRTT(1,0,s))/(n-1) is g + bG and, with d large enough, the
// overhead (PRTT(n,d,s)-PRTT(1,0,s))/(n-1) - d is o + bO. gopsim adds
// PRTT(2,d,s): the last message of PRTT(n,d,s) follows an idle period and
// costs more than one in a tight loop, and with two values of n that extra
// cost cancels (o is the slope over n-1).
//
// Exchanges (gopsim). A ping-pong cannot tell the sender's per-byte cost O
// from G, and the overhead series times the sender's copy, which a ring,
// a halo or an all-to-all step does not pay in full. Where the backend can
// (the mpi backend), Measure also times exchange rounds: both ends send s
// bytes to each other at once (MPI_Sendrecv), X(1,s) and X(n,s) of them
// in a row; one exchange, (X(n,s)-X(1,s))/(n-1), is under the LogGOPS
// rules
//
//	max(2o + bO + bG, 2o + L + bG, g + bG)
//
// (the CPU still sending when the other's message arrives; free when it
// arrives; the NIC's gap), and the fit takes it first with the half round
// trip, so that both a ping-pong and an exchange simulate as measured and
// the overhead series decides only what they leave open.
//
// A protocol change (eager to rendezvous, a packet size, the end of a
// cache) shows as a jump or a kink in the series; Fit splits the size axis
// where one line per side removes most of the residuals, or where a line
// misses a half round trip by more than 2 %, and fits each range on its
// own. A range's L, o, g, G and O are one weighted least-squares fit of
// the three series under the physical constraints L, o, g, O >= 0 and
// G >= O (Lawson and Hanson's non-negative least squares; gonum has
// none), with the half round trips first: they are what every chain of
// dependent messages pays. So the file is always one `gopsim sim` runs;
// fit.ranges[].constraints says which constraints were binding and what
// they cost in residual, and the warnings say in words when a measurement
// cannot be a network (a negative L without the constraint, as TCP over
// loopback gives). S is the end of the range below the jump that adds
// most to the round trip (the rendezvous handshake), so it lies between
// two measured sizes. Finally Fit simulates a ping-pong at every measured
// size with the result (SimulatePingPong, gopsim's engine) and reports it
// against the measured round trip (fit.pingpong), and an exchange at every
// size with exchange rounds (SimulateExchange, fit.exchange).
//
// Each round's repetitions are summarized by their mean (FitOptions.Mean,
// what `gopsim calibrate` fits by default: an application's time is the
// sum of its messages' costs, the slow ones included) or by a quantile
// after Tukey's far-out fences (FitOptions.Quantile, the median when Mean
// is not set): the median is the typical single message; on a shared
// machine where noise only adds time, a low quantile estimates the
// undisturbed cost instead.
//
// # Measuring
//
// Measure runs the rounds through a Prober (a backend). The tcp backend
// is TCPProber, against a server run by Serve (`gopsim calibrate --listen`)
// on the other host; its protocol is specified at the top of tcp.go. Per
// size Measure warms up, then interleaves the rounds' repetitions so that
// drift cancels in their differences, and with Config.Passes it sweeps
// the sizes several times so that a disturbance lasting seconds spoils
// one pass of a size, not all of it. The mpi backend (StartMPI) runs the
// rounds between two MPI ranks, so that the MPI library's own costs are
// measured: its default sizes (DefaultMPISizes, 1 byte to 4 MiB) see each
// protocol the library switches between.
// The raw table (CSV, n,d_ns,s_bytes,prtt_ns,round, one row per
// repetition; ReadTable) is always kept: `gopsim calibrate fit` refits it without a network.
//
// # Example
//
// Calibrate against a server on another host and write the parameter
// file, the raw table and a plot:
//
//	p, err := bench.Dial(ctx, "node2:5000") // node2 runs `gopsim calibrate --listen :5000`
//	if err != nil {
//		return err
//	}
//	tab, err := bench.Measure(ctx, p, bench.Config{}) // 19 sizes from 1 byte to 128 KiB, 200 reps
//	p.Close()
//	if err != nil {
//		return err
//	}
//	if err := bench.WriteTableFile("prtt.csv", tab); err != nil {
//		return err
//	}
//	pf, err := bench.Fit(tab, bench.FitOptions{})
//	if err != nil {
//		return err // e.g. "bench: cannot fit: 1 message sizes with PRTT(1,0,s) rows, want at least 2"
//	}
//	for _, w := range pf.Warnings {
//		log.Print(w) // e.g. "range 0 (0..max bytes): this measurement cannot be a network: fitted freely, L = -1593.1 ± 40.2 ns, ..."
//	}
//	for _, p := range pf.Fit.PingPong {
//		log.Printf("%d bytes: simulated/measured round trip %.3f", p.SizeBytes, p.Ratio)
//	}
//	err = pf.WriteFile("params.json") // then pf.WritePlotFile("prtt.png")
//
// The parameter file's first keys are those of sim.ReadParams (from the
// smallest-size range); "ranges" holds every range's fitted values (they
// cover every message size), "fit" the quantiles, residuals, R², standard
// errors, constraints and the ping-pong comparison, "source" what was
// measured. ParamFile.SimParams is what `gopsim sim --params` reads.
package bench
