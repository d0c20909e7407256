package extrapolation_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/gopsim/gopsim/extrapolation"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/pattern"
	"github.com/gopsim/gopsim/trace"
)

// A 2-rank ping becomes 3 copies: rank r + 2j sends to its copy's rank.
func ExampleSchedule() {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 2
rank 0 {
l1: send 8b to 1 tag 0
}
rank 1 {
l1: recv 8b from 0 tag 0
}
`), "ping.goal")
	if err != nil {
		panic(err)
	}
	out := goal.NewSchedule(3 * s.NumRanks)
	if err := extrapolation.Schedule(s, extrapolation.ScheduleOptions{Factor: 3}, out.AppendRank); err != nil {
		panic(err)
	}
	for r := range out.NumRanks {
		op := out.RankOps(r)[0]
		fmt.Println(r, op.Kind, op.Peer)
	}
	// Output:
	// 0 send 1
	// 1 recv 0
	// 2 send 3
	// 3 recv 2
	// 4 send 5
	// 5 recv 4
}

// Extrapolate a trace directory 64 times and convert it.
func ExampleNewSource() {
	d, err := trace.OpenDir("halo-trace") // gopsim trace -o halo-trace -- mpirun -np 16 halo2d
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	x, err := extrapolation.NewSource(d, extrapolation.Options{Factor: 64})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return
	}
	fmt.Println("grid:", x.Grid()) // grid: 4x4 grown to 256x4 (MPI_Cart_create over all ranks, ...)
	s := goal.NewSchedule(x.NumRanks())
	if _, err := trace.Convert(x, trace.ConvertOptions{}, s.AppendRank); err != nil {
		fmt.Fprintln(os.Stderr, err)
	}
}

func ExampleParseDims() {
	dims, err := extrapolation.ParseDims("4x4")
	fmt.Println(dims, err, pattern.DimsCreate(1024, 2))
	// Output: [4 4] <nil> [32 32]
}
