package chakra_test

import (
	"fmt"
	"io"
	"log"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/chakra"
)

// Read a Chakra execution trace (one .et file per rank), look at a rank's
// calls, then convert it and simulate it.
func ExampleOpen() {
	src, err := chakra.Open("testdata/astrasim-allreduce-16npus-1MB", chakra.Options{})
	if err != nil {
		log.Fatal(err)
	}
	rs, err := src.OpenRank(0)
	if err != nil {
		log.Fatal(err)
	}
	var c trace.Call
	for rs.Next(&c) != io.EOF {
		fmt.Println(c.String())
	}
	rs.Close()

	s := goal.NewSchedule(src.NumRanks())
	if _, err := trace.Convert(src, trace.ConvertOptions{}, s.AppendRank); err != nil {
		log.Fatal(err)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d ranks, %d ops, %d ns\n", src.NumRanks(), len(s.Ops), res.MaxTime)
	// Output:
	// MPI_Iallreduce t=0+0 comm=0 bytes=1048576 type=1/1 req=1
	// MPI_Waitall t=0+0 done=[1:collective]
	// 16 ranks, 256 ops, 11840432 ns
}
