package validation_test

import (
	"fmt"

	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/liballprof"
	"github.com/gopsim/gopsim/validation"
)

// Run converts a trace, simulates it and compares the simulated times
// with the measured ones. This liballprof sample of 5 broadcasts of 4
// ranks was measured at 12 µs; with LogGOPSim's default parameters the
// simulation takes 30 µs (as gopsim sim gives for the schedule gopsim
// convert makes of it), and the difference is all in MPI.
func ExampleRun() {
	l, err := liballprof.Open("../trace/liballprof/testdata/bcast-4", liballprof.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := validation.Run(l, validation.Options{Params: sim.DefaultParams()})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("measured %d ns, simulated %d ns: ratio %.3f\n", res.MeasuredNs, res.SimulatedNs, res.Ratio)
	for r, x := range res.Ranks {
		fmt.Printf("rank %d: measured %d ns, simulated %d ns, computation %+d ns, MPI %+d ns\n",
			r, x.Measured.Measured(), x.Simulated.Finish, x.ComputeDiff(), x.MPIDiff())
	}
	// Output:
	// measured 12000 ns, simulated 30396 ns: ratio 2.533
	// rank 0: measured 12000 ns, simulated 22000 ns, computation +0 ns, MPI +10000 ns
	// rank 1: measured 12000 ns, simulated 26066 ns, computation +0 ns, MPI +14066 ns
	// rank 2: measured 12000 ns, simulated 26330 ns, computation +0 ns, MPI +14330 ns
	// rank 3: measured 12000 ns, simulated 30396 ns, computation +0 ns, MPI +18396 ns
}

// Compare pairs measurements with a simulation that has the per-rank
// breakdown; here both made up.
func ExampleCompare() {
	measured := []trace.RankTimes{
		{InitEnd: 1000, FinalizeStart: 11000, InMPI: 4000},
		{InitEnd: 1200, FinalizeStart: 12200, InMPI: 5000},
	}
	res := &sim.Result{PerRank: []int64{9000, 12100}, Breakdown: []sim.Breakdown{
		{Finish: 9000, Calc: 6000, SendOverhead: 1500, RecvOverhead: 1500},
		{Finish: 12100, Calc: 6000, SendOverhead: 1500, RecvOverhead: 1500, Wait: 3100},
	}}
	c, err := validation.Compare(measured, res)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("slowest: measured %d ns at rank %d, simulated %d ns at rank %d, ratio %.3f\n",
		c.MeasuredNs, c.MeasuredRank, c.SimulatedNs, c.SimulatedRank, c.Ratio)
	for r, x := range c.Ranks {
		fmt.Printf("rank %d: ratio %.3f, computation %+d ns, MPI %+d ns (communication %d ns)\n",
			r, x.Ratio(), x.ComputeDiff(), x.MPIDiff(), x.SimulatedComm())
	}
	// Output:
	// slowest: measured 11000 ns at rank 1, simulated 12100 ns at rank 1, ratio 1.100
	// rank 0: ratio 0.900, computation +0 ns, MPI -1000 ns (communication 3000 ns)
	// rank 1: ratio 1.100, computation +0 ns, MPI +1100 ns (communication 3000 ns)
}
