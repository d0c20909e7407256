package collective

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// Traffic of the gather, scatter, reduce-scatter and scan algorithms, from
// their descriptions rather than their emit code.

// gsTreeParent is the parent of relative rank q in a binomial tree: q with
// its lowest set bit cleared.
func gsTreeParent(q int) int { return q & (q - 1) }

// gsTreeSize counts the relative ranks below p whose chain of parents passes
// through r (r included).
func gsTreeSize(r, p int) int {
	n := 0
	for q := r; q < p; q++ {
		a := q
		for a > r {
			a = gsTreeParent(a)
		}
		if a == r {
			n++
		}
	}
	return n
}

// gsTreeChildren lists the subtree sizes of relative rank r's children.
func gsTreeChildren(r, p int) []int {
	var out []int
	for q := r + 1; q < p; q++ {
		if gsTreeParent(q) == r {
			out = append(out, gsTreeSize(q, p))
		}
	}
	return out
}

// gsTreeTraffic: toward the root (gather) each non-root sends its subtree's
// blocks once and receives every child's subtree; away from it (scatter)
// the other way round.
func gsTreeTraffic(s *Spec, me int, toRoot bool) traffic {
	p := s.Comm.Size()
	r := rel(me, s.Root, p)
	var up, down traffic // up: the message to the parent; down: from the children
	if r != 0 {
		up = traffic{sends: 1, sent: uint64(gsTreeSize(r, p)) * s.Size}
	}
	for _, c := range gsTreeChildren(r, p) {
		down.recvs++
		down.received += uint64(c) * s.Size
	}
	if toRoot {
		return traffic{up.sends, down.recvs, up.sent, down.received}
	}
	return traffic{down.recvs, up.sends, down.received, up.sent}
}

// gsLinearTraffic: the root exchanges count(j) bytes with every other rank
// whose count is nonzero; the others once with the root.
func gsLinearTraffic(s *Spec, me int, count func(j int) uint64, toRoot bool) traffic {
	var tr traffic
	if me == s.Root {
		for j := 0; j < s.Comm.Size(); j++ {
			if j != me && count(j) > 0 {
				tr.recvs++
				tr.received += count(j)
			}
		}
	} else if count(me) > 0 {
		tr.sends, tr.sent = 1, count(me)
	}
	if !toRoot {
		tr = traffic{tr.recvs, tr.sends, tr.received, tr.sent}
	}
	return tr
}

// gsHalvingBlocks is how many result blocks the new rank i of recursive
// halving answers for: two for the first rem, which absorbed a neighbour.
func gsHalvingBlocks(i, rem int) int {
	if i < rem {
		return 2
	}
	return 1
}

// gsHalvingSteps gives, per step of the halving phase, the bytes new rank nr
// sends and receives: at step m (pof2/2 down to 1) it keeps the blocks of
// the aligned group of m new ranks that contains it and sends those of the
// group that contains nr^m.
func gsHalvingSteps(nr, pof2, rem int, n uint64) (sent, received []uint64) {
	group := func(i, m int) uint64 {
		var w uint64
		for j := i &^ (m - 1); j < i&^(m-1)+m; j++ {
			w += uint64(gsHalvingBlocks(j, rem)) * n
		}
		return w
	}
	for m := pof2 / 2; m >= 1; m /= 2 {
		sent = append(sent, group(nr^m, m))
		received = append(received, group(nr, m))
	}
	return sent, received
}

// gsHalvingRole: folded out (even rank below 2·rem), absorbing (odd below
// 2·rem) or plain, with the new rank of the last two.
func gsHalvingRole(me, p int) (folded, absorbs bool, newrank, pof2, rem int) {
	pof2 = pow2Floor(p)
	rem = p - pof2
	switch {
	case me < 2*rem && me%2 == 0:
		return true, false, -1, pof2, rem
	case me < 2*rem:
		return false, true, me / 2, pof2, rem
	}
	return false, false, me - rem, pof2, rem
}

// gsScanPartners lists the ranks me exchanges with in recursive doubling,
// in order: me^1, me^2, me^4, ... that exist.
func gsScanPartners(me, p int) []int {
	var out []int
	for m := 1; m < p; m *= 2 {
		if me^m < p {
			out = append(out, me^m)
		}
	}
	return out
}

func init() {
	formulas["gather/binomial"] = func(s *Spec, me int) traffic { return gsTreeTraffic(s, me, true) }
	formulas["scatter/binomial"] = func(s *Spec, me int) traffic { return gsTreeTraffic(s, me, false) }
	formulas["gather/linear"] = func(s *Spec, me int) traffic {
		return gsLinearTraffic(s, me, func(int) uint64 { return s.Size }, true)
	}
	formulas["scatter/linear"] = func(s *Spec, me int) traffic {
		return gsLinearTraffic(s, me, func(int) uint64 { return s.Size }, false)
	}
	formulas["gatherv/linear"] = func(s *Spec, me int) traffic {
		return gsLinearTraffic(s, me, func(j int) uint64 { return s.Counts[j] }, true)
	}
	formulas["scatterv/linear"] = func(s *Spec, me int) traffic {
		return gsLinearTraffic(s, me, func(j int) uint64 { return s.Counts[j] }, false)
	}
	formulas["reduce_scatter/recursive_halving"] = func(s *Spec, me int) traffic {
		p, n := s.Comm.Size(), s.Size
		folded, absorbs, nr, pof2, rem := gsHalvingRole(me, p)
		if folded { // whole vector out, own block back
			return traffic{1, 1, uint64(p) * n, n}
		}
		var tr traffic
		if absorbs { // the neighbour's vector in, its block back out
			tr = traffic{1, 1, n, uint64(p) * n}
		}
		sent, received := gsHalvingSteps(nr, pof2, rem, n)
		for i := range sent {
			if sent[i] > 0 {
				tr.sends++
				tr.sent += sent[i]
			}
			if received[i] > 0 {
				tr.recvs++
				tr.received += received[i]
			}
		}
		return tr
	}
	everyOther := func(s *Spec, me int) traffic {
		k := s.Comm.Size() - 1
		return traffic{k, k, uint64(k) * s.Size, uint64(k) * s.Size}
	}
	formulas["reduce_scatter/pairwise"] = everyOther
	formulas["reduce_scatter/ring"] = everyOther
	recdoub := func(s *Spec, me int) traffic {
		k := len(gsScanPartners(me, s.Comm.Size()))
		return traffic{k, k, uint64(k) * s.Size, uint64(k) * s.Size}
	}
	formulas["scan/recdoub"] = recdoub
	formulas["exscan/recdoub"] = recdoub
	formulas["scan/linear"] = func(s *Spec, me int) traffic {
		var tr traffic
		if me > 0 {
			tr.recvs, tr.received = 1, s.Size
		}
		if me < s.Comm.Size()-1 {
			tr.sends, tr.sent = 1, s.Size
		}
		return tr
	}
}

// TestGatherScanHelpers pins the test's own binomial-tree arithmetic on a small
// case worked out by hand: P=6 relative ranks, parents 0<-1, 0<-2<-3,
// 0<-4<-5.
func TestGatherScanHelpers(t *testing.T) {
	sizes := []int{6, 1, 2, 1, 2, 1}
	for r, want := range sizes {
		if got := gsTreeSize(r, 6); got != want {
			t.Errorf("gsTreeSize(%d, 6) = %d, want %d", r, got, want)
		}
	}
	if got := gsTreeChildren(0, 6); !slices.Equal(got, []int{1, 2, 2}) {
		t.Errorf("children of 0: %v", got)
	}
	// Recursive halving, P=6: pof2 4, rem 2, new ranks 0 and 1 hold two
	// blocks each. New rank 0 first sends new ranks 2,3 (2 blocks), keeps
	// 0,1 (4 blocks), then sends new rank 1 (2), keeps its own (2).
	sent, received := gsHalvingSteps(0, 4, 2, 10)
	if !slices.Equal(sent, []uint64{20, 20}) || !slices.Equal(received, []uint64{40, 20}) {
		t.Errorf("halving steps of new rank 0: sent %v received %v", sent, received)
	}
}

// TestClosedFormGatherScan compares contention-free (or hand-traced) cases
// with finishing times worked out from docs/model.md under LogGOPSim's
// defaults: L 2500, o 1500, g 1000, G 6, O 0, S 65535. For a message of s
// bytes let T(s) = 2o + L + (s-1)G: a send started at t on an idle pair
// has the receiver done at t + T(s) (sender CPU o, wire L, receiver CPU
// o + (s-1)G), and the sender's NIC is free again at t + g + (s-1)G.
// Every message below is eager.
func TestClosedFormGatherScan(t *testing.T) {
	p := sim.DefaultParams()
	L, o, g, G := int64(p.L), int64(p.Overhead), int64(p.Gap), int64(p.GapPerByte)
	T := func(s int64) int64 { return 2*o + L + (s-1)*G }
	c := func(bytes int64, nsPerByte float64) int64 { return int64(math.Round(float64(bytes) * nsPerByte)) }
	for _, tc := range []struct {
		name   string
		op     Op
		alg    string
		p      int
		root   int
		size   uint64
		counts []uint64
		k      float64 // ReduceNsPerByte
		want   int64
	}{
		// Binomial gather, one hop: T(s).
		{name: "gather binomial P=2", op: Gather, alg: "binomial", p: 2, size: 1000, want: T(1000)},
		// P=8: relative rank 4 receives 1 block from 5 (done T(s)), then 2
		// from 6 (6 got 7's block at T(s) and sends at once; arrival
		// T(s)+o+L finds 4 idle): done T(s)+T(2s); then 4 sends 4 blocks to
		// the root, which is done with 1 and 2 by then (same chains, one
		// level lower). Every receive finds an idle CPU and NIC, every
		// rank sends once: T(s)+T(2s)+T(4s). The root's rank does not
		// matter, only relative ranks do.
		{name: "gather binomial P=8", op: Gather, alg: "binomial", p: 8, size: 1000, want: T(1000) + T(2000) + T(4000)},
		{name: "gather binomial P=8 root 5", op: Gather, alg: "binomial", p: 8, root: 5, size: 1000, want: T(1000) + T(2000) + T(4000)},
		// Linear gather, P=5: all four messages arrive at o+L; the root
		// takes them one after the other, o+(s-1)G each (the next arrival
		// is put back to the CPU's free time, which is after the receive
		// NIC's since o > g).
		{name: "gather linear P=5", op: Gather, alg: "linear", p: 5, size: 1000, want: o + L + 4*(o+999*G)},
		{name: "gather linear P=5 root 3", op: Gather, alg: "linear", p: 5, root: 3, size: 1000, want: o + L + 4*(o+999*G)},
		// Gatherv: the same with per-rank sizes; the root's own count sends
		// nothing, nor does a zero count.
		{name: "gatherv linear P=3", op: Gatherv, alg: "linear", p: 3, counts: []uint64{0, 1000, 100}, want: o + L + (o + 999*G) + (o + 99*G)},
		{name: "gatherv linear P=3 zero", op: Gatherv, alg: "linear", p: 3, counts: []uint64{5, 0, 100}, want: T(100)},
		// Binomial scatter, P=8: the chain 0 -> 4 (4 blocks) -> 6 (2) -> 7
		// (1) uses each rank's first send; the root's second send (to 2)
		// waits for its NIC, g+(4s-1)G < T(4s), so the chain through 4 is
		// the longest: T(4s)+T(2s)+T(s).
		{name: "scatter binomial P=8", op: Scatter, alg: "binomial", p: 8, size: 1000, want: T(4000) + T(2000) + T(1000)},
		{name: "scatter binomial P=8 root 3", op: Scatter, alg: "binomial", p: 8, root: 3, size: 1000, want: T(4000) + T(2000) + T(1000)},
		// Linear scatter, P=4, 1000 B: the root's sends are NIC-bound
		// (g+(s-1)G > o), so they start at 0, g+(s-1)G, 2(g+(s-1)G); the
		// last receiver is done T(s) after its send started.
		{name: "scatter linear P=4", op: Scatter, alg: "linear", p: 4, size: 1000, want: 2*(g+999*G) + T(1000)},
		// 1 B: CPU-bound (o > g): sends start at 0, o, 2o.
		{name: "scatter linear P=4 1B", op: Scatter, alg: "linear", p: 4, size: 1, want: 2*o + T(1)},
		// Scatterv: 1000 B to rank 1 at 0, 100 B to rank 2 when the NIC
		// is free at g+999G; rank 2 is done last.
		{name: "scatterv linear P=3", op: Scatterv, alg: "linear", p: 3, counts: []uint64{7, 1000, 100}, want: g + 999*G + T(100)},
		{name: "scatterv linear P=3 zero", op: Scatterv, alg: "linear", p: 3, counts: []uint64{7, 0, 100}, want: T(100)},
		// Recursive halving, P=2: one exchange of one block. P=4: two
		// symmetric rounds, 2 blocks then 1, each a send-receive with
		// both partners starting together (as recursive doubling); with a
		// reduction cost each round adds the calc of what it received.
		{name: "reduce_scatter recursive_halving P=2", op: ReduceScatter, alg: "recursive_halving", p: 2, size: 1000, want: T(1000)},
		{name: "reduce_scatter recursive_halving P=4", op: ReduceScatter, alg: "recursive_halving", p: 4, size: 1000, want: T(2000) + T(1000)},
		{name: "reduce_scatter recursive_halving P=4 calc", op: ReduceScatter, alg: "recursive_halving", p: 4, size: 1000, k: 0.5,
			want: T(2000) + c(2000, 0.5) + T(1000) + c(1000, 0.5)},
		// Recursive halving, P=3, s = 1000 (rem 1): rank 0 sends 3s to 1;
		// rank 2 (new rank 1) sends 2s to 1 at once; both arrive at o+L,
		// rank 0's first (lower sequence number). Rank 1 is done with the
		// fold at T1 = o+L+o+(3s-1)G; rank 2's message, put back to T1,
		// occupies its CPU until T2 = T1+o+(2s-1)G, so rank 1's send of s
		// to 2 starts at T2 (whether its receive was posted before the
		// arrival or finds it unexpected, the round ends with that send,
		// at T2+o). The last send, s to rank 0, waits for the NIC until
		// T2+g+(s-1)G (> T2+o) and rank 0 is done at
		// T2+g+(s-1)G+o+L+o+(s-1)G; rank 2 at T2+T(s) is earlier.
		{name: "reduce_scatter recursive_halving P=3", op: ReduceScatter, alg: "recursive_halving", p: 3, size: 1000,
			want: 5*o + 2*L + g + (2999+1999+2*999)*G},
		// Pairwise and ring: P-1 symmetric rounds of one block each way.
		// Ring: the send of step k waits for step k-1's receive (and its
		// reduction); the early-posted receive changes nothing as the
		// message arrives later.
		{name: "reduce_scatter pairwise P=5", op: ReduceScatter, alg: "pairwise", p: 5, size: 1000, want: 4 * T(1000)},
		{name: "reduce_scatter pairwise P=5 calc", op: ReduceScatter, alg: "pairwise", p: 5, size: 1000, k: 0.5, want: 4 * (T(1000) + c(1000, 0.5))},
		{name: "reduce_scatter ring P=4", op: ReduceScatter, alg: "ring", p: 4, size: 1000, want: 3 * T(1000)},
		{name: "reduce_scatter ring P=4 calc", op: ReduceScatter, alg: "ring", p: 4, size: 1000, k: 0.5, want: 3 * (T(1000) + c(1000, 0.5))},
		// Scan, recursive doubling on 2^k ranks: k symmetric exchanges.
		{name: "scan recdoub P=8", op: Scan, alg: "recdoub", p: 8, size: 1000, want: 3 * T(1000)},
		// P=2 with calc C: rank 1 reduces into the partial result and the
		// result (2C), rank 0 only into the partial result.
		{name: "scan recdoub P=2 calc", op: Scan, alg: "recdoub", p: 2, size: 1000, k: 0.5, want: T(1000) + 2*c(1000, 0.5)},
		// P=4 with calc C: round 1 (0-1, 2-3) ends at T+C on 0 and 2, at
		// T+2C on 1 and 3; round 2 pairs 0-2 (start T+C, rank 2 ends at
		// 2T+3C) and 1-3 (start T+2C, rank 3 ends at 2T+4C).
		{name: "scan recdoub P=4 calc", op: Scan, alg: "recdoub", p: 4, size: 1000, k: 0.5, want: 2*T(1000) + 4*c(1000, 0.5)},
		// Linear scan, P=4 with calc C: rank i receives at i·T+(i-1)C,
		// reduces, forwards: rank 3 ends at 3(T+C).
		{name: "scan linear P=4", op: Scan, alg: "linear", p: 4, size: 1000, want: 3 * T(1000)},
		{name: "scan linear P=4 calc", op: Scan, alg: "linear", p: 4, size: 1000, k: 0.5, want: 3 * (T(1000) + c(1000, 0.5))},
		// Exscan P=4 with calc C: round 1 everyone reduces once (the first
		// lower data is only copied), ending at T+C; round 2 rank 3 hears
		// its second lower rank and reduces twice: 2T+3C.
		{name: "exscan recdoub P=2", op: Exscan, alg: "recdoub", p: 2, size: 1000, want: T(1000)},
		{name: "exscan recdoub P=4 calc", op: Exscan, alg: "recdoub", p: 4, size: 1000, k: 0.5, want: 2*T(1000) + 3*c(1000, 0.5)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			alg, err := Lookup(tc.op, tc.alg)
			if err != nil {
				t.Fatal(err)
			}
			members := make([]int32, tc.p)
			for i := range members {
				members[i] = int32(i)
			}
			cl := buildCall(t, alg, tc.p, members, func(me int) Spec {
				return Spec{Comm: WorldComm(tc.p), Root: tc.root, Size: tc.size, Counts: tc.counts, ReduceNsPerByte: tc.k}
			})
			var got int64
			for _, x := range cl.simulate(t, p) {
				got = max(got, x)
			}
			if got != tc.want {
				t.Errorf("finishing time %d ns, closed form %d ns", got, tc.want)
			}
		})
	}
}

// gsCombinedBytes lists, in order, the sizes of the reductions comm rank me
// performs, as the algorithm's description says.
var gsCombinedBytes = map[string]func(p, me int, n uint64) []uint64{
	"reduce_scatter/recursive_halving": func(p, me int, n uint64) []uint64 {
		folded, absorbs, nr, pof2, rem := gsHalvingRole(me, p)
		var out []uint64
		if folded {
			return nil
		}
		if absorbs {
			out = append(out, uint64(p)*n)
		}
		_, received := gsHalvingSteps(nr, pof2, rem, n)
		return append(out, received...)
	},
	"reduce_scatter/pairwise": func(p, me int, n uint64) []uint64 { return slices.Repeat([]uint64{n}, p-1) },
	"reduce_scatter/ring":     func(p, me int, n uint64) []uint64 { return slices.Repeat([]uint64{n}, p-1) },
	"scan/recdoub": func(p, me int, n uint64) []uint64 {
		var out []uint64
		for _, d := range gsScanPartners(me, p) {
			out = append(out, n) // the partial result
			if d < me {
				out = append(out, n) // and the result
			}
		}
		return out
	},
	"exscan/recdoub": func(p, me int, n uint64) []uint64 {
		var out []uint64
		lower := 0
		for _, d := range gsScanPartners(me, p) {
			out = append(out, n)
			if d < me {
				if lower > 0 {
					out = append(out, n)
				}
				lower++
			}
		}
		return out
	},
	"scan/linear": func(p, me int, n uint64) []uint64 {
		if me == 0 {
			return nil
		}
		return []uint64{n}
	},
}

// TestReduceCalcsGatherScan checks that Spec.ReduceNsPerByte turns every
// reduction into one calc op of round(bytes·ReduceNsPerByte) ns, in
// order, that gathers and scatters have none, and that without a cost
// there are no calc ops.
func TestReduceCalcsGatherScan(t *testing.T) {
	for _, op := range []Op{ReduceScatter, Scan, Exscan, Gather, Gatherv, Scatter, Scatterv} {
		for _, alg := range Algorithms(op) {
			key := algKey(alg)
			want := gsCombinedBytes[key]
			if want == nil && (op == ReduceScatter || op == Scan || op == Exscan) {
				t.Errorf("%s: no reduction sizes in the test", key)
				continue
			}
			for _, p := range commSizes {
				for _, n := range []uint64{3, 1000} {
					for _, k := range []float64{0, 0.37} {
						name := fmt.Sprintf("%s/P=%d/n=%d/k=%v", key, p, n, k)
						members := make([]int32, p)
						for i := range members {
							members[i] = int32(i)
						}
						spec := specsFor(op, p, 0, n, n)
						cl := buildCall(t, alg, p, members, func(me int) Spec {
							s := spec(me)
							s.Comm = WorldComm(p)
							s.ReduceNsPerByte = k
							return s
						})
						for me := 0; me < p; me++ {
							var got, exp []uint64
							for _, o := range cl.sched.RankOps(me) {
								if o.Kind == goal.Calc {
									got = append(got, o.Size)
								}
							}
							if want != nil && k > 0 {
								for _, b := range want(p, me, n) {
									exp = append(exp, uint64(math.Round(float64(b)*k)))
								}
							}
							if !slices.Equal(got, exp) {
								t.Fatalf("%s: comm rank %d: calcs %v ns, want %v", name, me, got, exp)
							}
						}
					}
				}
			}
		}
	}
}
