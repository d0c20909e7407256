package tit_test

import (
	"fmt"
	"log"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/tit"
)

// Convert a SimGrid time-independent trace with its compute actions run at
// 2 Gflop/s, and simulate it.
func ExampleOpen() {
	t, err := tit.Open("testdata/simgrid-replay-examples/actions_allreduce.txt", tit.Options{HostSpeed: 2e9})
	if err != nil {
		log.Fatal(err) // e.g. "trace: actions.txt:7:3: tit: unknown action \"frobnicate\""
	}
	s := goal.NewSchedule(t.NumRanks())
	st, err := trace.Convert(t, trace.ConvertOptions{}, s.AppendRank)
	if err != nil {
		log.Fatal(err)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d ranks, %d ns of computation per rank\n", t.NumRanks(), st.ComputeNs/int64(t.NumRanks()))
	fmt.Printf("simulated: %d ns\n", res.MaxTime)
	// Output:
	// 3 ranks, 500000000 ns of computation per rank
	// simulated: 501073470 ns
}
