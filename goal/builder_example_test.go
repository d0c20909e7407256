package goal_test

import (
	"fmt"

	"github.com/gopsim/gopsim/goal"
)

// Build rank 0 of a ping-pong: send, then receive the reply.
func ExampleBuilder() {
	var b goal.Builder
	b.Reset(0)
	send := b.Send(1024, 1, 0, 0, 0)
	recv := b.Recv(1024, 1, 0, 0, 0)
	b.Requires(recv, send)
	blk := b.Block()
	fmt.Println(len(blk.Ops), "ops; op", send, "has successors", blk.Deps[blk.DepStart[send]:blk.DepStart[send+1]][0].Succ())
	// Output: 2 ops; op 0 has successors 1
}
