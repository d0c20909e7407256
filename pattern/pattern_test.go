package pattern

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// TestEveryPattern generates every pattern on several rank counts: every
// block is valid, the schedule simulates to completion, and generating it
// again gives the same bytes.
func TestEveryPattern(t *testing.T) {
	for _, pat := range List() {
		t.Run(pat.Name, func(t *testing.T) {
			for _, n := range []int{1, 2, 3, 8, 12, 16, 27} {
				p := Params{Ranks: n, Size: 1000, Segment: 300, NWay: 2, Seed: 5, Compute: 100, Iterations: 2, Root: n / 2}
				g, err := New(pat.Name, p)
				if err != nil {
					if n&(n-1) != 0 && pat.Name == "allreduce_recdoub" || n < 2 && strings.HasPrefix(pat.Name, "random_bisect") {
						continue // rejected on purpose, with a message
					}
					t.Fatalf("%d ranks: %v", n, err)
				}
				s := goal.NewSchedule(g.NumRanks())
				if err := Write(g, func(b *goal.RankBlock) error {
					if _, berr := b.Validate(g.NumRanks(), nil); berr != nil {
						t.Fatalf("%d ranks: rank %d: %s", n, b.Rank, berr.Msg)
					}
					return s.AppendRank(b)
				}); err != nil {
					t.Fatal(err)
				}
				if _, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()}); err != nil {
					t.Fatalf("%d ranks: %v", n, err)
				}
				var a, b bytes.Buffer
				if err := goal.WriteBinary(&a, s); err != nil {
					t.Fatal(err)
				}
				g2, _ := New(pat.Name, p)
				s2 := goal.NewSchedule(g2.NumRanks())
				if err := Write(g2, s2.AppendRank); err != nil {
					t.Fatal(err)
				}
				if err := goal.WriteBinary(&b, s2); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(a.Bytes(), b.Bytes()) {
					t.Fatalf("%d ranks: two generations differ", n)
				}
			}
		})
	}
}

func TestParamErrors(t *testing.T) {
	for _, tc := range []struct {
		name, pattern string
		p             Params
		msg           string
	}{
		{"unknown", "bogus", Params{}, `unknown pattern "bogus"`},
		{"root", "scatter", Params{Ranks: 4, Root: 4}, "root 4 outside 0..3"},
		{"recdoub pow2", "allreduce_recdoub", Params{Ranks: 12}, "needs a power of two"},
		{"a2av zero modulus", "linear_alltoallv", Params{Ranks: 4, Size: 3, A2AVSkew: 4}, "is 0"},
		{"nway", "nwaydissemination", Params{Ranks: 4, NWay: -1}, "--nway -1"},
		{"halo dims", "halo2d", Params{Ranks: 12, Dims: []int{5, 2}}, "has 10 ranks, -s is 12"},
		{"halo stencil", "halo3d", Params{Ranks: 8, Stencil: 9}, "--stencil 9"},
		{"algo", "mpi_allreduce", Params{Ranks: 8, Algo: "nope"}, `no algorithm "nope"`},
		{"bisect", "random_bisect", Params{Ranks: 1}, "at least 2 ranks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.pattern, tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("error %v, want one containing %q", err, tc.msg)
			}
		})
	}
}

func TestDimsCreate(t *testing.T) {
	for _, tc := range []struct {
		n, k int
		want []int
	}{
		{16, 2, []int{4, 4}}, {12, 2, []int{4, 3}}, {24, 3, []int{4, 3, 2}}, {7, 2, []int{7, 1}},
		{64, 3, []int{4, 4, 4}}, {1, 2, []int{1, 1}},
	} {
		if got := DimsCreate(tc.n, tc.k); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("DimsCreate(%d, %d) = %v, want %v", tc.n, tc.k, got, tc.want)
		}
	}
}

// TestHaloCounts: on a non-periodic 4x4 grid a corner has 2 face
// neighbours, an edge rank 3, an inner rank 4; with the 9-point stencil 3,
// 5 and 8. Each neighbour gets one send and one receive per iteration.
func TestHaloCounts(t *testing.T) {
	for _, tc := range []struct {
		stencil int
		want    [16]int
	}{
		{5, [16]int{2, 3, 3, 2, 3, 4, 4, 3, 3, 4, 4, 3, 2, 3, 3, 2}},
		{9, [16]int{3, 5, 5, 3, 5, 8, 8, 5, 5, 8, 8, 5, 3, 5, 5, 3}},
	} {
		s := generate(t, "halo2d", Params{Ranks: 16, Size: 64, Stencil: tc.stencil, Iterations: 3})
		for r := 0; r < 16; r++ {
			var sends, recvs int
			for _, op := range s.RankOps(r) {
				switch op.Kind {
				case goal.Send:
					sends++
				case goal.Recv:
					recvs++
				}
			}
			if sends != 3*tc.want[r] || recvs != 3*tc.want[r] {
				t.Errorf("stencil %d rank %d: %d sends %d receives, want %d each", tc.stencil, r, sends, recvs, 3*tc.want[r])
			}
		}
	}
	// Periodic 3-D 27-point on 3x3x3: everyone has 26 distinct neighbours.
	s := generate(t, "halo3d", Params{Ranks: 27, Size: 8, Stencil: 27, Periodic: true})
	for r := 0; r < 27; r++ {
		if n := len(s.RankOps(r)); n != 52 {
			t.Fatalf("rank %d: %d ops, want 52", r, n)
		}
	}
}

// TestHaloTime: two ranks side by side (dims 2,1), one iteration of C ns
// compute then an exchange of s bytes: each posts its receive and sends at
// C; the send costs o, the message arrives at C+o+L and the receive costs
// o+bG: C + 2o + L + bG with b = s-1.
func TestHaloTime(t *testing.T) {
	s := generate(t, "halo2d", Params{Ranks: 2, Size: 1001, Dims: []int{2, 1}, Compute: 5000})
	p := sim.DefaultParams()
	res, err := sim.Run(s, sim.Options{Params: p})
	if err != nil {
		t.Fatal(err)
	}
	want := int64(5000 + 2*p.Overhead + p.L + 1000*p.GapPerByte)
	if res.MaxTime != want {
		t.Fatalf("%d ns, want %d", res.MaxTime, want)
	}
}

func TestRandomBisect(t *testing.T) {
	one := func(seed uint64) *goal.Schedule {
		return generate(t, "random_bisect", Params{Ranks: 101, Size: 8, Seed: seed})
	}
	s := one(42)
	if s.NumRanks != 100 {
		t.Fatalf("%d ranks, Schedgen drops the odd one: want 100", s.NumRanks)
	}
	partner := map[int32]int32{}
	senders := 0
	for r := 0; r < s.NumRanks; r++ {
		ops := s.RankOps(r)
		if len(ops) != 1 {
			t.Fatalf("rank %d: %d ops", r, len(ops))
		}
		partner[int32(r)] = ops[0].Peer
		if ops[0].Kind == goal.Send {
			senders++
		}
	}
	for r, q := range partner {
		if partner[q] != r || q == r {
			t.Fatalf("rank %d pairs with %d, which pairs with %d", r, q, partner[q])
		}
	}
	if senders != 50 {
		t.Fatalf("%d senders, want 50", senders)
	}
	if !reflect.DeepEqual(one(42).Ops, s.Ops) {
		t.Fatal("same seed, different pairing")
	}
	if reflect.DeepEqual(one(43).Ops, s.Ops) {
		t.Fatal("different seeds, same pairing")
	}
}

// TestLinearAlltoallvSizes: Schedgen's sizes come from glibc's rand() with
// seed 1: row 0, column 1 (root 0 gets -d) is 1804289383 % d + 1.
func TestLinearAlltoallvSizes(t *testing.T) {
	s := generate(t, "linear_alltoallv", Params{Ranks: 4, Size: 1000})
	ops := s.RankOps(0)
	if ops[0].Kind != goal.Send || ops[0].Peer != 1 || ops[0].Size != 1804289383%1000+1 {
		t.Fatalf("rank 0 first op %+v, want a send of %d bytes to 1", ops[0], 1804289383%1000+1)
	}
	// Rank 1 receives -d bytes from nobody but sends -d to the root.
	for _, op := range s.RankOps(1) {
		if op.Kind == goal.Send && op.Peer == 0 && op.Size != 1000 {
			t.Fatalf("send to the root: %d bytes, want 1000", op.Size)
		}
	}
}

// TestReduceCostTooLong: --reduce-cost that makes a reduction longer than
// a calc holds is an error from New, before any rank is written, naming
// the first rank that combines too much, the flag, the algorithm and the
// limit, whichever rank that is; it was a calc of 2^63 ns, then an error
// from Write when rank 0 combined less than a later rank (after the ranks
// before it were written). A cost at which the whole vector would be too
// long but every piece a rank combines fits is taken, and Write writes
// every rank.
func TestReduceCostTooLong(t *testing.T) {
	const limit = "more than the 4611686018427387903 ns a calc holds"
	for _, tc := range []struct {
		name, pattern string
		p             Params
		want          string // New's error; "" for none
	}{
		{"allreduce, rank 0", "mpi_allreduce", Params{Ranks: 4, Size: 1024, ReduceNsPerByte: 1e300},
			"mpi_allreduce: pattern: invalid parameters: rank 0: --reduce-cost 1e+300: collective: invalid collective: allreduce/"},
		{"linear scan, rank 0 combines nothing", "mpi_scan", Params{Ranks: 4, Size: 1024, Algo: "linear", ReduceNsPerByte: 1e300},
			"mpi_scan: pattern: invalid parameters: rank 1: --reduce-cost 1e+300: collective: invalid collective: scan/linear: combining 1024 bytes"},
		{"binomial reduce rooted at 5, rank 0 a leaf", "mpi_reduce", Params{Ranks: 8, Root: 5, Size: 1 << 40, Algo: "binomial", ReduceNsPerByte: 5e6},
			"mpi_reduce: pattern: invalid parameters: rank 1: --reduce-cost 5e+06: collective: invalid collective: reduce/binomial: combining 1099511627776 bytes"},
		{"ring allreduce, every piece fits", "mpi_allreduce", Params{Ranks: 8, Size: 1024, Algo: "ring", ReduceNsPerByte: 9e15}, ""},
		{"within the limit", "mpi_allreduce", Params{Ranks: 2, Size: 1024, Algo: "recdoub", ReduceNsPerByte: 4.5e15}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := New(tc.pattern, tc.p)
			if tc.want != "" {
				if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), limit) {
					t.Fatalf("New: %v; want an error with %q and %q", err, tc.want, limit)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			calcs := 0
			err = Write(g, func(b *goal.RankBlock) error {
				for _, o := range b.Ops {
					if o.Kind == goal.Calc {
						calcs++
					}
				}
				return nil
			})
			if err != nil || calcs == 0 {
				t.Fatalf("Write: %v, %d calcs", err, calcs)
			}
		})
	}
}
