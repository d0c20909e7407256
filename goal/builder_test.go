package goal

import (
	"reflect"
	"strings"
	"testing"
)

// TestBuilderMatchesText: a block built op by op equals the same block
// written as GOAL text and read back, edges in the order given.
func TestBuilderMatchesText(t *testing.T) {
	const src = `num_ranks 2
rank 0 {
l1: send 8b to 1 tag 4
l2: recv 8b from 1 tag 4 cpu 1 nic 1
l3: calc 100
l3 requires l2
l3 requires l1
l3 irequires l1
l3 requires l2
l2 requires l1
}
rank 1 {
}
`
	s, err := ReadText(strings.NewReader(src), "b.goal")
	if err != nil {
		t.Fatal(err)
	}
	var want RankBlock
	s.Block(0, &want)
	var b Builder
	for round := 0; round < 2; round++ { // reuse after Reset
		b.Reset(0)
		l1 := b.Send(8, 1, 4, 0, 0)
		l2 := b.Recv(8, 1, 4, 1, 1)
		l3 := b.Calc(100, 0)
		b.Requires(l3, l2)
		b.Requires(l3, l1)
		b.Irequires(l3, l1)
		b.Requires(l3, l2)
		b.Requires(l2, l1)
		got := b.Block()
		if !reflect.DeepEqual(got.Ops, want.Ops) || !reflect.DeepEqual(got.DepStart, want.DepStart) || !reflect.DeepEqual(got.Deps, want.Deps) {
			t.Fatalf("round %d: built %+v\nread  %+v", round, got, want)
		}
		if b.NumEdges() != 5 {
			t.Fatalf("%d edges", b.NumEdges())
		}
		if succ, pred, start := b.Edge(2); succ != l3 || pred != l1 || !start {
			t.Fatalf("edge 2: %d %d %v", succ, pred, start)
		}
	}
}
