package pattern_test

import (
	"fmt"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/pattern"
	"github.com/gopsim/gopsim/sim"
)

// Generate Schedgen's binomial broadcast on 8 ranks and simulate it.
func ExampleNew() {
	g, err := pattern.New("binomialtreebcast", pattern.Params{Ranks: 8, Size: 1024})
	if err != nil {
		panic(err)
	}
	s := goal.NewSchedule(g.NumRanks())
	if err := pattern.Write(g, s.AppendRank); err != nil {
		panic(err)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(s.Ops), "ops, finishes at", res.MaxTime, "ns")
	// Output: 14 ops, finishes at 34914 ns
}
