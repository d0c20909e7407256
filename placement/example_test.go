package placement_test

import (
	"fmt"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/placement"
)

func ExamplePlace() {
	m, err := placement.Place([]int{3, 2}, placement.RoundRobin, 0)
	if err != nil {
		panic(err)
	}
	for r := range m.NumRanks() {
		fmt.Printf("machine rank %d: job %d rank %d\n", r, m.Job[r], m.JobRank[r])
	}
	// Output:
	// machine rank 0: job 0 rank 0
	// machine rank 1: job 1 rank 0
	// machine rank 2: job 0 rank 1
	// machine rank 3: job 1 rank 1
	// machine rank 4: job 0 rank 2
}

// Two copies of a ping, packed: the second one's peers move with it.
func ExampleMerge() {
	ping, err := goal.ReadText(strings.NewReader("num_ranks 2\nrank 0 {\nl1: send 8b to 1\n}\nrank 1 {\nl1: recv 8b from 0\n}\n"), "ping.goal")
	if err != nil {
		panic(err)
	}
	jobs := []*goal.Schedule{ping, ping}
	m, err := placement.Place([]int{2, 2}, placement.Packed, 0)
	if err != nil {
		panic(err)
	}
	out := goal.NewSchedule(m.NumRanks())
	if err := placement.Merge(jobs, m, out.AppendRank); err != nil {
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
}
