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
// overhead (PRTT(n,d,s)-PRTT(1,0,s))/(n-1) - d is o + bO. Fit draws
// weighted least-squares lines through these series over b (gonum's stat
// package): g and G from the gap, o and O from the overhead, L from the
// half round trip's intercept less 2o. gopsim adds PRTT(2,d,s): the last
// message of PRTT(n,d,s) follows an idle period and costs more than one in
// a tight loop, and with two values of n that extra cost cancels (o is the
// slope over n-1). A protocol change (eager to rendezvous, a packet size)
// shows as a jump or a kink in the series; Fit splits the size axis where
// one line per side removes most of the residuals and fits each range on
// its own; the first change with a jump gives S. Numbers that make no
// physical sense (o > g, L < 0, a negative G) are reported as warnings,
// not hidden.
//
// # Measuring
//
// Measure runs the rounds through a Prober (a backend). The tcp backend
// is TCPProber, against a server run by Serve (`gopsim calibrate --listen`)
// on the other host; its protocol is specified at the top of tcp.go. Per
// size Measure warms up, then interleaves the rounds' repetitions so that
// drift cancels in their differences; Fit rejects outliers (Tukey's far-out
// fences) and works on medians, with the spread (IQR, MAD) in the report.
// The raw table (CSV, n,d_ns,s_bytes,prtt_ns, one row per repetition) is
// always kept: `gopsim calibrate fit` refits it without a network.
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
//		log.Print(w) // e.g. "range 0 (0..12288 bytes): o = 5200.0 ns exceeds g = 3100.0 ns: ..."
//	}
//	err = pf.WriteFile("params.json") // then pf.WritePlotFile("prtt.png")
//
// The parameter file's first keys are those of sim.ReadParams (from the
// smallest-size range, rounded to integers); "ranges" holds every range's
// fitted values, "fit" the medians, residuals, R² and standard errors,
// "source" what was measured.
package bench
