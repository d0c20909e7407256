package sim_test

import (
	"fmt"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// The critical path of a calc followed by a message: what decided the
// finishing time, and how it splits into compute, overhead, latency and
// bandwidth.
func ExampleCriticalPath() {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 2
rank 0 {
c: calc 100
s: send 10b to 1 tag 0
s requires c
}
rank 1 {
r: recv 10b from 0 tag 0
}
`), "example.goal")
	if err != nil {
		panic(err)
	}
	p, err := sim.Compile(s)
	if err != nil {
		panic(err)
	}
	res, err := p.Run(sim.Options{Params: sim.DefaultParams(), Record: true})
	if err != nil {
		panic(err)
	}
	path, err := sim.CriticalPath(p, res)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d ns: calc %d, overhead %d, latency %d, bandwidth %d\n",
		path.Length, path.Calc, path.Overhead, path.Latency, path.Bandwidth)
	for _, st := range path.Steps {
		fmt.Printf("[%d, %d] %s rank %d %s: %s\n", st.Start, st.End, st.Kind, st.Rank, st.Label, st.What)
	}
	// Output:
	// 5654 ns: calc 100, overhead 3000, latency 2500, bandwidth 54
	// [0, 100] calc rank 0 c: calc 100 ns
	// [100, 4100] message rank 0 s: o + L
	// [4100, 5654] recv rank 1 r: receive overhead o + (s-1)·G
}

// A Program's ops can be read back: their fields, and the dependency
// edges in both directions.
func ExampleProgram_OpInfo() {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 1
rank 0 {
a: calc 100
b: send 8b to 0 tag 3 
c: recv 8b from 0 tag 3
b requires a
c irequires b
}
`), "example.goal")
	if err != nil {
		panic(err)
	}
	p, err := sim.Compile(s)
	if err != nil {
		panic(err)
	}
	lo, hi := p.RankOps(0)
	for g := lo; g < hi; g++ {
		in := p.OpInfo(g)
		fmt.Println(p.Label(g), in.Kind, in.Size, in.Peer, in.Tag, p.Succ(g, nil))
	}
	start, preds := p.Preds(0)
	fmt.Println(start, preds)
	// Output:
	// a calc 100 0 0 [{1 false}]
	// b send 8 0 3 [{2 true}]
	// c recv 8 0 3 []
	// [0 0 1 2] [{0 false} {1 true}]
}

// What a message pays under LogGOPSim's defaults: 1024 bytes is 1023
// bytes beyond the first, at 6 ns per byte on the NICs.
func ExampleNewCosts() {
	c := sim.NewCosts(sim.DefaultParams()).Of(1024)
	fmt.Printf("L %d, o %d, sender CPU %d, receiver CPU %d, NIC %d\n", c.L, c.Overhead, c.SendCPU, c.RecvCPU, c.NIC)
	// Output: L 2500, o 1500, sender CPU 1500, receiver CPU 7638, NIC 7138
}
