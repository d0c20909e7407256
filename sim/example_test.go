package sim_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// The worked example of docs/model.md: one 1024-byte eager message.
func ExampleRun() {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 2
rank 0 {
send 1024b to 1 tag 7
}
rank 1 {
recv 1024b from 0 tag 7
}
`), "example.goal")
	if err != nil {
		panic(err)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.PerRank, res.MaxTime, res.MaxRank)
	// Output: [1500 11638] 11638 1
}

// A receive that no send matches: the error lists the stuck op.
func ExampleDeadlockError() {
	s, _ := goal.ReadText(strings.NewReader("num_ranks 2\nrank 0 {\nr: recv 8b from 1 tag 3\n}\nrank 1 {\n}\n"), "stuck.goal")
	_, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	var d *sim.DeadlockError
	fmt.Println(errors.As(err, &d), d.Total)
	fmt.Println(d.Stuck[0])
	// Output:
	// true 1
	// rank 0 op 0 (r): recv 8 bytes from 1 tag 3: receive posted, no matching message arrived
}

// A large binary schedule is best read straight into a Program, decoded
// on all CPUs; it can then be run with several parameter sets.
func ExampleReadProgram() {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 2
rank 0 {
send 1024b to 1 tag 7
}
rank 1 {
recv 1024b from 0 tag 7
}
`), "example.goal")
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer // a file written by gopsim gen or convert, say
	if err := goal.WriteBinary(&file, s); err != nil {
		panic(err)
	}
	p, err := sim.ReadProgram(&file)
	if err != nil {
		panic(err)
	}
	for _, L := range []float64{2500, 500} {
		params := sim.DefaultParams()
		params.L = L
		res, err := p.Run(sim.Options{Params: params})
		if err != nil {
			panic(err)
		}
		fmt.Println(p.NumRanks, p.NumOps(), res.PerRank)
	}
	// Output:
	// 2 2 [1500 11638]
	// 2 2 [1500 9638]
}

// A text schedule, as LogGOPSim's Schedgen writes it, read straight into
// a program: a large file is parsed on all CPUs.
func ExampleReadTextProgram() {
	text := `num_ranks 2
rank 0 {
l1: send 1024b to 1 tag 7
l2: calc 100
l2 requires l1
}
rank 1 {
l1: recv 1024b from 0 tag 7
}
`
	// An *os.File works the same way: it too reads at offsets.
	p, err := sim.ReadTextProgram(strings.NewReader(text), int64(len(text)), "example.goal")
	if err != nil {
		panic(err)
	}
	res, err := p.Run(sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.NumRanks, p.NumOps(), res.PerRank)

	// Errors are those of goal.ReadText.
	bad := strings.Replace(text, "from 0", "from 2", 1)
	_, err = sim.ReadTextProgram(strings.NewReader(bad), int64(len(bad)), "bad.goal")
	fmt.Println(err)
	// Output:
	// 2 3 [1600 11638]
	// bad.goal:8:21: peer rank 2 outside 0..1 (num_ranks 2)
}

// A schedule larger than memory is streamed: its op records go to a spill
// file and a run loads them as it needs them, giving back the pages of
// finished ops. The results are those of the program held in memory.
func ExampleReadProgramStream() {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 2
rank 0 {
send 1024b to 1 tag 7
calc 100
}
rank 1 {
recv 1024b from 0 tag 7
}
`), "example.goal")
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer
	if err := goal.WriteBinary(&file, s); err != nil {
		panic(err)
	}
	p, err := sim.ReadProgramStream(&file, sim.StreamOptions{}) // spill file in os.TempDir()
	if err != nil {
		panic(err)
	}
	defer p.Close()
	res, err := p.Run(sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		panic(err)
	}
	st, _ := p.Stream()
	fmt.Println(res.PerRank, st.Loads, st.ResidentOps)
	// Output: [1600 11638] 2 0
}

// A text schedule too large for memory streams the same way, read once by
// a goal.TextReader.
func ExampleReadTextProgramStream() {
	text := `num_ranks 2
rank 0 {
l1: send 1024b to 1 tag 7
l2: calc 100 cpu 1
l2 requires l1
}
rank 1 {
l1: recv 1024b from 0 tag 7
}
`
	p, err := sim.ReadTextProgramStream(strings.NewReader(text), "big.goal", sim.StreamOptions{Dir: os.TempDir()})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	res, err := p.Run(sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		panic(err)
	}
	st, _ := p.Stream()
	fmt.Println(p.NumRanks, p.NumCPUs, p.NumOps(), res.PerRank, st.Units)
	// Output:
	// 2 2 3 [1600 11638] 2
}

func ExampleReadParams() {
	p, err := sim.ReadParams(strings.NewReader(`{"L_ns": 1000, "S_bytes": 16384}`), "params.json", sim.DefaultParams())
	fmt.Println(p, err)
	// Output: L=1000 ns, o=1500 ns, g=1000 ns, G=6 ns/byte, O=0 ns/byte, S=16384 bytes <nil>
}
