package liballprof_test

import (
	"fmt"
	"log"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/liballprof"
)

// Convert a liballprof trace (the directory of its rank files, or one of
// them) and simulate it.
func ExampleOpen() {
	l, err := liballprof.Open("testdata/vladimir-4", liballprof.Options{})
	if err != nil {
		log.Fatal(err) // e.g. "trace: liballprof ...: unsupported MPI calls (...): MPI_Put x12"
	}
	s := goal.NewSchedule(l.NumRanks())
	st, err := trace.Convert(l, trace.ConvertOptions{}, s.AppendRank)
	if err != nil {
		log.Fatal(err)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d ranks (%s), %d MPI calls, %d allreduces per rank\n", l.NumRanks(), l.MPI, st.Calls, st.PerFunc["MPI_Allreduce"]/4)
	fmt.Printf("simulated: %d ns\n", res.MaxTime)
	// Output:
	// 4 ranks (openmpi), 24 MPI calls, 1 allreduces per rank
	// simulated: 8130102 ns
}
