package collective

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// TestEmitMaxOps checks every algorithm, on a builder that holds ops
// already, with segments and reduction calcs: with Spec.MaxOps one less
// than the ops it ends with, Emit stops with ErrTooManyOps and the builder
// holds MaxOps ops; with MaxOps equal to them it emits what it emits
// without a bound.
func TestEmitMaxOps(t *testing.T) {
	const before = 3 // ops of the rank before the call
	for _, op := range Ops() {
		for _, alg := range Algorithms(op) {
			t.Run(algKey(alg), func(t *testing.T) {
				checked := 0
				for _, p := range []int{2, 7, 8} {
					spec := specsFor(op, p, p-1, 100_000, uint64(p))
					for me := range p {
						s := spec(me)
						s.Comm, s.Segment, s.ReduceNsPerByte = WorldComm(p), 1000, 0.5
						if alg.Check(&s) != nil {
							continue // e.g. a power-of-two algorithm on 7 ranks
						}
						free := emitBounded(t, alg, me, s, before, nil)
						n := int64(len(free.Ops))
						if n == before {
							continue // no ops on this rank
						}
						name := fmt.Sprintf("P=%d/me=%d", p, me)
						s.MaxOps = n
						if tight := emitBounded(t, alg, me, s, before, nil); !reflect.DeepEqual(tight, free) {
							t.Fatalf("%s: at most %d ops, as many as it emits: the block differs from the unbounded one", name, n)
						}
						s.MaxOps = n - 1
						var err error
						cut := emitBounded(t, alg, me, s, before, &err)
						if !errors.Is(err, ErrTooManyOps) || int64(len(cut.Ops)) != n-1 {
							t.Fatalf("%s: at most %d of its %d ops: %v and %d ops, want ErrTooManyOps and %d", name, n-1, n, err, len(cut.Ops), n-1)
						}
						checked++
					}
				}
				if checked == 0 {
					t.Fatal("no case checked")
				}
			})
		}
	}
}

// emitBounded emits the call on a builder holding before calcs and
// returns the block. The error of Emit goes to *err, or fails the test
// when err is nil.
func emitBounded(t *testing.T, alg *Algorithm, me int, s Spec, before int, err *error) *goal.RankBlock {
	t.Helper()
	var b goal.Builder
	b.Reset(int32(me))
	var after []int32
	for i := range before {
		after = append(after[:0], b.Calc(uint64(i+1), 0))
	}
	_, e := alg.Emit(&b, me, &s, after, nil)
	switch {
	case err != nil:
		*err = e
	case e != nil:
		t.Fatalf("me=%d: %v", me, e)
	}
	return b.Block()
}
