package sim_test

import (
	"fmt"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// ExampleModel simulates one 100,000-byte message (above S) under every
// model of the family: LogGPS's handshake adds 2L + 4o, LogP ignores the
// size, alpha-beta charges alpha + s·beta.
func ExampleModel() {
	s, _, err := goal.Read(strings.NewReader("num_ranks 2\nrank 0 {\nsend 100000b to 1\n}\nrank 1 {\nrecv 100000b from 0\n}\n"), "one.goal")
	if err != nil {
		panic(err)
	}
	for _, m := range sim.Models() {
		res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams(), Model: m})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-9s %d ns\n", m, res.MaxTime)
	}
	// Output:
	// loggops   605494 ns
	// loggp     605494 ns
	// logp      5500 ns
	// alphabeta 605500 ns
	// loggps    616494 ns
	// logfp     605494 ns
	// plogp     605494 ns
	// log3p     605494 ns
}

// ExampleReadParams_models reads the parameters of two models from a
// parameter file and runs LogfP with them.
func ExampleReadParams_models() {
	p, err := sim.ReadParams(strings.NewReader(`{"S_bytes": 16384, "logfp": {"f": 4}, "alphabeta": {"alpha_ns": 2000, "beta_ns_per_byte": 0.5}}`), "models.json", sim.DefaultParams())
	if err != nil {
		panic(err)
	}
	fmt.Println(p.LogfP.F, p.AlphaBeta.Alpha, p.ModelParams(sim.LogfP).AlphaBeta == nil)
	m, err := sim.ParseModel("LogfP")
	fmt.Println(m, err)
	// Output:
	// 4 2000 true
	// logfp <nil>
}
