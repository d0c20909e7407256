package collective

import (
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// TestReduceCostTooLong: a reduction cost that makes a combination longer
// than a calc holds (goal.MaxCalc) is an error from Emit naming the
// algorithm, the bytes, the cost and the limit, for every algorithm that
// combines data; it was a calc of 2^63 ns (the float converted out of
// range), which sim refused or misread. Up to the limit, the calcs are
// the rounded products.
func TestReduceCostTooLong(t *testing.T) {
	combining := []Op{Reduce, Allreduce, ReduceScatter, Scan, Exscan}
	for _, tc := range []struct {
		name string
		ops  []Op
		alg  string // "" for every algorithm of the ops
		p    int
		size uint64
		cost float64 // ns/byte
		err  string  // "" for no error
	}{
		{"1e300 ns/byte, every combining algorithm", combining, "", 6, 1024, 1e300,
			"ns/byte is %s ns: more than the 4611686018427387903 ns a calc holds"},
		// P·Size bytes are the most any algorithm combines at once.
		{"within the limit, every combining algorithm", combining, "", 6, 1024, 4.6e18 / (6 * 1024), ""},
		{"recdoub at 4.608e18 ns", []Op{Allreduce}, "recdoub", 2, 1024, 4.5e15, ""},
		{"recdoub at 4.618e18 ns", []Op{Allreduce}, "recdoub", 2, 1024, 4.51e15,
			"allreduce/recdoub: combining 1024 bytes at the reduction cost 4.51e+15 ns/byte is 4.618e+18 ns: more than the 4611686018427387903 ns a calc holds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, op := range tc.ops {
				for _, alg := range Algorithms(op) {
					if tc.alg != "" && alg.Name != tc.alg {
						continue
					}
					checkReduceCost(t, alg, tc.p, tc.size, tc.cost, tc.err)
				}
			}
		})
	}
}

// checkReduceCost emits alg for every rank of a world of p and wants the
// error err (with %s for any time) from at least one, or no error and
// every calc within goal.MaxCalc.
func checkReduceCost(t *testing.T, alg *Algorithm, p int, size uint64, cost float64, want string) {
	t.Helper()
	key := alg.Op.String() + "/" + alg.Name
	var first error
	for me := 0; me < p; me++ {
		s := Spec{Comm: WorldComm(p), Size: size, ReduceNsPerByte: cost}
		if err := alg.Check(&s); err != nil {
			t.Logf("%s: skipped: %v", key, err)
			return
		}
		var b goal.Builder
		b.Reset(int32(me))
		_, err := alg.Emit(&b, me, &s, nil, nil)
		if err != nil {
			first = err
			break
		}
		for _, op := range b.Block().Ops {
			if op.Kind == goal.Calc && op.Size > goal.MaxCalc {
				t.Errorf("%s: comm rank %d: calc %d beyond %d", key, me, op.Size, uint64(goal.MaxCalc))
			}
		}
	}
	if want == "" {
		if first != nil {
			t.Errorf("%s: %v", key, first)
		}
		return
	}
	before, after, _ := strings.Cut(want, "%s")
	if first == nil || !strings.Contains(first.Error(), key+": ") || !strings.Contains(first.Error(), before) ||
		!strings.Contains(first.Error(), after) {
		t.Errorf("%s: %v; want an error naming %s with %q", key, first, key, want)
	}
}

// TestMaxCombined: no algorithm combines more bytes at once than
// MaxCombined says, for any member, communicator size, root, segment,
// element size and fan-out; and for every combining operation some
// algorithm combines that much (the bound is the vector, not more). At 1
// ns/byte a reduction's calc is the bytes it combines.
func TestMaxCombined(t *testing.T) {
	for _, op := range Ops() {
		t.Run(op.String(), func(t *testing.T) {
			var most uint64 // the largest calc of any algorithm
			var bound uint64
			for _, alg := range Algorithms(op) {
				for _, p := range []int{1, 2, 3, 5, 8, 13, 16} {
					for _, size := range []uint64{1, 7, 1000, 65539} {
						for _, v := range []struct {
							root      int
							seg, elem uint64
							radix     int
						}{{0, 0, 0, 0}, {p - 1, 100, 0, 3}, {p / 2, 0, 4, 0}} {
							s := Spec{Comm: WorldComm(p), Root: v.root, Size: size, Segment: v.seg, ElemSize: v.elem, Radix: v.radix, ReduceNsPerByte: 1}
							if op == Alltoallv || op == Gatherv || op == Scatterv || op == Allgatherv {
								s.Counts, s.RecvCounts = make([]uint64, p), make([]uint64, p)
								for i := range s.Counts {
									s.Counts[i], s.RecvCounts[i] = size, size
								}
							}
							if alg.Check(&s) != nil {
								continue
							}
							limit := MaxCombined(op, &s)
							if size == 65539 && p == 16 {
								bound = limit
							}
							for me := 0; me < p; me++ {
								var b goal.Builder
								b.Reset(int32(me))
								if _, err := alg.Emit(&b, me, &s, nil, nil); err != nil {
									t.Fatalf("%s, P %d, %d bytes, %+v, comm rank %d: %v", alg.Name, p, size, v, me, err)
								}
								for _, o := range b.Block().Ops {
									if o.Kind != goal.Calc {
										continue
									}
									if o.Size > limit {
										t.Fatalf("%s, P %d, %d bytes, %+v, comm rank %d: combines %d bytes, MaxCombined %d", alg.Name, p, size, v, me, o.Size, limit)
									}
									if size == 65539 && p == 16 {
										most = max(most, o.Size)
									}
								}
							}
						}
					}
				}
			}
			if most != bound {
				t.Errorf("at P 16 and 65539 bytes the algorithms combine at most %d bytes at once, MaxCombined %d", most, bound)
			}
		})
	}
}
