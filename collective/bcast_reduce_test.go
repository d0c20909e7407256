package collective

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// The formulas below restate each algorithm from its description, block
// by block, without MPICH's index bookkeeping that the emitters follow.

// brPiece is the scatter-allgather broadcasts' piece k of n bytes over p
// ranks: ceil(n/p) bytes while the data lasts.
func brPiece(n uint64, p, k int) uint64 {
	c := (n + uint64(p) - 1) / uint64(p)
	switch full := n / max(c, 1); {
	case c == 0:
		return 0
	case uint64(k) < full:
		return c
	case uint64(k) == full:
		return n % c
	}
	return 0
}

// brPieces sums pieces lo..hi-1.
func brPieces(n uint64, p, lo, hi int) uint64 {
	var s uint64
	for k := lo; k < hi && k < p; k++ {
		s += brPiece(n, p, k)
	}
	return s
}

// brLowBit is the subtree size of relative rank r in a binomial tree over
// p ranks: r's lowest set bit (the whole tree for the root).
func brLowBit(r, p int) int {
	if r == 0 {
		return 1 << bits.Len(uint(p-1))
	}
	return r & -r
}

// brScatter is the binomial scatter of the pieces: a rank gets its
// subtree's pieces from its parent, and gives each child the child's
// subtree's pieces; empty messages are left out.
func brScatter(n uint64, p, r int) traffic {
	var tr traffic
	sub := brLowBit(r, p)
	if r != 0 {
		if b := brPieces(n, p, r, r+sub); b > 0 {
			tr.recvs, tr.received = 1, b
		}
	}
	for m := 1; m < sub; m <<= 1 {
		if c := r + m; c < p {
			if b := brPieces(n, p, c, c+m); b > 0 {
				tr.sends++
				tr.sent += b
			}
		}
	}
	return tr
}

func (a traffic) plus(b traffic) traffic {
	return traffic{a.sends + b.sends, a.recvs + b.recvs, a.sent + b.sent, a.received + b.received}
}

// brRabBlock is block i of the Rabenseifner algorithms: n split into pof2
// blocks, the first n mod pof2 one byte longer.
func brRabBlock(n uint64, pof2, i int) uint64 {
	b := n / uint64(pof2)
	if uint64(i) < n%uint64(pof2) {
		b++
	}
	return b
}

// brRabRange is the range of blocks core rank x holds after the first t
// halving steps: step u splits the range in two and bit u of x picks the
// half, so bits 0..t-1 of x, most significant block bit first, give it.
func brRabRange(x, t, pof2 int) (lo, n int) {
	for u := 0; u < t; u++ {
		lo += (x >> u & 1) * (pof2 >> (u + 1))
	}
	return lo, pof2 >> t
}

func brRabBytes(size uint64, pof2, lo, n int) uint64 {
	var s uint64
	for i := lo; i < lo+n; i++ {
		s += brRabBlock(size, pof2, i)
	}
	return s
}

// brRabHalving is the reduce-scatter of core rank x: in step t it keeps
// the half of its range that bit t picks, sends the other half and
// receives (and combines) the kept half.
func brRabHalving(size uint64, pof2, x int) (tr traffic, combined []uint64) {
	k := bits.Len(uint(pof2)) - 1
	for t := 0; t < k; t++ {
		lo, _ := brRabRange(x, t, pof2)
		half := pof2 >> (t + 1)
		keep, other := lo+(x>>t&1)*half, lo+(1-x>>t&1)*half
		got := brRabBytes(size, pof2, keep, half)
		tr = tr.plus(traffic{1, 1, brRabBytes(size, pof2, other, half), got})
		combined = append(combined, got)
	}
	return tr, combined
}

// brRabLevel is the range a core rank x holds before the gather step of
// distance 2^j, when it has merged everything above: bits 0..j of x.
func brRabLevel(size uint64, pof2, x, j int) uint64 {
	lo, n := brRabRange(x, j+1, pof2)
	return brRabBytes(size, pof2, lo, n)
}

// brReduceBinomial is the binomial reduce: a child r+m for every power of
// two m below r's subtree size, then one message to the parent.
func brReduceBinomial(s *Spec, me int) (tr traffic, combined []uint64) {
	p := s.Comm.Size()
	r := rel(me, s.Root, p)
	for m := 1; m < brLowBit(r, p); m <<= 1 {
		if r+m < p {
			tr.recvs++
			tr.received += s.Size
			combined = append(combined, s.Size)
		}
	}
	if r != 0 {
		tr.sends, tr.sent = 1, s.Size
	}
	return tr, combined
}

func brReduceRabenseifner(s *Spec, me int) (tr traffic, combined []uint64) {
	p, n, root := s.Comm.Size(), s.Size, s.Root
	pof2 := pow2Floor(p)
	rem, k := p-pof2, bits.Len(uint(pof2))-1
	core := func(rank int) int { // core rank of a comm rank, -1 if folded out
		switch {
		case rank >= 2*rem:
			return rank - rem
		case rank%2 == 0:
			return rank / 2
		}
		return -1
	}
	x := core(me)
	if me < 2*rem && x < 0 {
		tr.sends, tr.sent = 1, n
	} else if me < 2*rem {
		tr.recvs, tr.received = 1, n
		combined = append(combined, n)
	}
	if x >= 0 {
		h, c := brRabHalving(n, pof2, x)
		tr, combined = tr.plus(h), append(combined, c...)
	}
	newroot := core(root)
	if newroot < 0 { // core rank 0 passes block 0 to the root, which plays it
		newroot = 0
		switch {
		case me == root:
			x = 0
			tr = tr.plus(traffic{0, 1, 0, brRabBlock(n, pof2, 0)})
		case x == 0:
			return tr.plus(traffic{1, 0, brRabBlock(n, pof2, 0), 0}), combined
		}
	}
	if x < 0 {
		return tr, combined
	}
	// Binomial gather to newroot, highest bit first: receive from the
	// partner across each bit where x agrees with the root, send across
	// the first bit where it does not.
	for j := k - 1; j >= 0; j-- {
		if (x^newroot)>>j&1 == 1 {
			return tr.plus(traffic{1, 0, brRabLevel(n, pof2, x, j), 0}), combined
		}
		tr = tr.plus(traffic{0, 1, 0, brRabLevel(n, pof2, x^1<<j, j)})
	}
	return tr, combined
}

func brAllreduceRabenseifner(s *Spec, me int) (tr traffic, combined []uint64) {
	p, n := s.Comm.Size(), s.Size
	pof2 := pow2Floor(p)
	rem, k := p-pof2, bits.Len(uint(pof2))-1
	if me < 2*rem && me%2 == 0 { // folded out: data to me+1, result back
		return traffic{1, 1, n, n}, nil
	}
	x := me - rem
	if me < 2*rem {
		x = me / 2
		tr = traffic{1, 1, n, n} // data from me-1, result to it
		combined = append(combined, n)
	}
	h, c := brRabHalving(n, pof2, x)
	tr, combined = tr.plus(h), append(combined, c...)
	for j := k - 1; j >= 0; j-- { // allgather: swap the level's ranges
		tr = tr.plus(traffic{1, 1, brRabLevel(n, pof2, x, j), brRabLevel(n, pof2, x^1<<j, j)})
	}
	return tr, combined
}

func brAllreduceRing(s *Spec, me int) (tr traffic, combined []uint64) {
	p, n := s.Comm.Size(), s.Size
	seg := s.Segment
	if seg == 0 {
		seg = 32768
	}
	block := func(i int) uint64 { return brPiece(n, p, (i%p+p)%p) }
	// Reduce-scatter: P-1 messages each way, every block but my own goes
	// out, every block but my left neighbour's comes in and is combined.
	tr = traffic{p - 1, p - 1, n - block(me), n - block(me-1)}
	for i := 0; i < p-1; i++ {
		combined = append(combined, block(me-2-i))
	}
	// Allgatherv: every block but my right neighbour's goes out, every
	// block but mine comes in, each non-empty one in ceil(b/seg) pieces.
	for i := 0; i < p; i++ {
		pieces := int((block(i) + seg - 1) / seg)
		if (i-me-1)%p != 0 {
			tr.sends += pieces
			tr.sent += block(i)
		}
		if i != me {
			tr.recvs += pieces
			tr.received += block(i)
		}
	}
	return tr, combined
}

func brAllreduceReduceBcast(s *Spec, me int) (traffic, []uint64) {
	s0 := *s
	s0.Root = 0
	tr, combined := brReduceBinomial(&s0, me)
	return tr.plus(formulas["bcast/binomial"](&s0, me)), combined
}

// brCombined gives, per algorithm, the sizes of the reductions comm rank me
// performs, in order.
var brCombined = map[string]func(s *Spec, me int) (traffic, []uint64){
	"reduce/binomial":        brReduceBinomial,
	"reduce/rabenseifner":    brReduceRabenseifner,
	"allreduce/rabenseifner": brAllreduceRabenseifner,
	"allreduce/ring":         brAllreduceRing,
	"allreduce/reduce_bcast": brAllreduceReduceBcast,
}

func init() {
	formulas["bcast/scatter_ring_allgather"] = func(s *Spec, me int) traffic {
		p, n := s.Comm.Size(), s.Size
		if n == 0 {
			return traffic{}
		}
		r := rel(me, s.Root, p)
		ring := traffic{p - 1, p - 1, n - brPiece(n, p, (r+1)%p), n - brPiece(n, p, r)}
		return brScatter(n, p, r).plus(ring)
	}
	formulas["bcast/scatter_recdoub_allgather"] = func(s *Spec, me int) traffic {
		p, n := s.Comm.Size(), s.Size
		if n == 0 {
			return traffic{}
		}
		r := rel(me, s.Root, p)
		k := bits.Len(uint(p)) - 1
		tr := traffic{k, k, 0, n - brPiece(n, p, r)} // in the end, every other piece
		for i := 0; i < k; i++ {                     // step i: my aligned group of 2^i pieces
			lo := r &^ (1<<i - 1)
			tr.sent += brPieces(n, p, lo, lo+1<<i)
		}
		return brScatter(n, p, r).plus(tr)
	}
	formulas["bcast/pipeline"] = func(s *Spec, me int) traffic {
		p, n := s.Comm.Size(), s.Size
		seg := s.Segment
		if seg == 0 {
			seg = 8192
		}
		pieces := int((n + seg - 1) / seg)
		var tr traffic
		if r := rel(me, s.Root, p); r > 0 {
			tr.recvs, tr.received = pieces, n
		}
		if r := rel(me, s.Root, p); r < p-1 {
			tr.sends, tr.sent = pieces, n
		}
		return tr
	}
	for key, f := range brCombined {
		formulas[key] = func(s *Spec, me int) traffic {
			tr, _ := f(s, me)
			return tr
		}
	}
}

// TestBcastReduceChecks covers the algorithms' own restrictions.
func TestBcastReduceChecks(t *testing.T) {
	for _, tc := range []struct {
		op   Op
		alg  string
		p    int
		size uint64
		ok   bool
	}{
		{Bcast, "scatter_recdoub_allgather", 8, 100, true},
		{Bcast, "scatter_recdoub_allgather", 12, 100, false},
		{Bcast, "scatter_ring_allgather", 12, 100, true},
		{Reduce, "rabenseifner", 12, 8, true},
		{Reduce, "rabenseifner", 12, 7, false},
		{Allreduce, "rabenseifner", 100, 64, true},
		{Allreduce, "rabenseifner", 100, 63, false},
		{Allreduce, "rabenseifner", 1, 1, true},
	} {
		t.Run(fmt.Sprintf("%s/%s/P=%d/n=%d", tc.op, tc.alg, tc.p, tc.size), func(t *testing.T) {
			alg, err := Lookup(tc.op, tc.alg)
			if err != nil {
				t.Fatal(err)
			}
			err = alg.Check(&Spec{Comm: WorldComm(tc.p), Size: tc.size})
			if (err == nil) != tc.ok {
				t.Errorf("Check: %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

// TestBcastReduceSegments runs the segmented algorithms with segment sizes
// that do and do not divide the data, through the property checks of
// TestAlgorithms.
func TestBcastReduceSegments(t *testing.T) {
	for _, tc := range []struct {
		op       Op
		alg      string
		seg      uint64
		sizes    []uint64
		commSize []int
	}{
		{Bcast, "pipeline", 1, []uint64{1, 7}, []int{2, 5}},
		{Bcast, "pipeline", 100, []uint64{99, 100, 101, 1000, 1050}, []int{1, 2, 3, 7, 16}},
		{Allreduce, "ring", 10, []uint64{9, 64, 65, 1000}, []int{1, 2, 3, 7, 16}},
	} {
		alg, err := Lookup(tc.op, tc.alg)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range tc.commSize {
			for _, n := range tc.sizes {
				for _, root := range []int{0, p - 1} {
					t.Run(fmt.Sprintf("%s/seg=%d/P=%d/n=%d/root=%d", algKey(alg), tc.seg, p, n, root), func(t *testing.T) {
						members := make([]int32, p)
						for i := range members {
							members[i] = int32(p - 1 - i)
						}
						comm := NewComm(members)
						c := buildCall(t, alg, p, members, func(me int) Spec {
							return Spec{Comm: comm, Root: root, Size: n, Tag: 3, Segment: tc.seg}
						})
						c.analyse(t)
						c.checkSemantics(t)
						c.checkTraffic(t, formulas[algKey(alg)], "")
						c.simulate(t, sim.DefaultParams())
					})
				}
			}
		}
	}
}

// TestReduceCalcsBcastReduce checks that Spec.ReduceNsPerByte turns every
// combination of received data into one calc op of round(bytes·k) ns, in
// order (none when that rounds to 0), and that without a cost there are
// no calc ops.
func TestReduceCalcsBcastReduce(t *testing.T) {
	for key, f := range brCombined {
		var alg *Algorithm
		for _, a := range registry {
			if algKey(a) == key {
				alg = a
			}
		}
		if alg == nil {
			t.Fatalf("%s is not registered", key)
		}
		for _, p := range commSizes {
			for _, n := range []uint64{100, 1001} {
				for _, k := range []float64{0, 0.37, 2} {
					name := fmt.Sprintf("%s/P=%d/n=%d/k=%v", key, p, n, k)
					root := p / 2
					members := make([]int32, p)
					for i := range members {
						members[i] = int32(i)
					}
					c := buildCall(t, alg, p, members, func(me int) Spec {
						return Spec{Comm: WorldComm(p), Root: root, Size: n, ReduceNsPerByte: k}
					})
					s := c.sched
					for me := 0; me < p; me++ {
						var got []uint64
						for g := s.RankStart[me]; g < s.RankStart[me+1]; g++ {
							if s.Ops[g].Kind == goal.Calc {
								got = append(got, s.Ops[g].Size)
							}
						}
						var want []uint64
						_, combined := f(&c.specs[me], me)
						for _, b := range combined {
							if ns := uint64(math.Round(float64(b) * k)); ns > 0 {
								want = append(want, ns)
							}
						}
						if !slices.Equal(got, want) {
							t.Fatalf("%s: comm rank %d: calc ops %v ns, want %v", name, me, got, want)
						}
					}
				}
			}
		}
	}
}

// TestClosedFormBcastReduce compares cases worked out by hand from the rules
// in docs/model.md with the simulator (L 2500, o 1500, g 1000, G 6, O 0,
// S 65535; a message of s bytes has b = s-1; all messages here are eager).
// A "hop" is one message between idle ranks: the send's o, L, and the
// receive's o + bG: hop(s) = 2o + L + (s-1)G.
func TestClosedFormBcastReduce(t *testing.T) {
	p := sim.DefaultParams()
	L, o, G := int64(p.L), int64(p.Overhead), int64(p.GapPerByte)
	hop := func(s int64) int64 { return 2*o + L + max(s-1, 0)*G }
	for _, tc := range []struct {
		name string
		op   Op
		alg  string
		p    int
		root int
		size uint64
		seg  uint64
		k    float64 // ReduceNsPerByte
		want int64   // finishing time of the whole call
	}{
		// Scatter-allgather broadcasts with 1 byte: piece 0 has the byte and
		// the other pieces are empty, so there is no scatter message and
		// the allgather steps are symmetric rounds of one send and one
		// receive per rank (b = 0 for 1 and 0 bytes): a round is a hop,
		// the NIC gap g is below it. (With a real scatter the root's first
		// allgather message reaches its first child while that child still
		// receives its piece, and the case is no longer contention-free.)
		{"bcast scatter_ring P=2 1B", Bcast, "scatter_ring_allgather", 2, 0, 1, 0, 0, hop(1)},
		{"bcast scatter_ring P=4 root=2 1B", Bcast, "scatter_ring_allgather", 4, 2, 1, 0, 0, 3 * hop(1)},
		{"bcast scatter_recdoub P=8 root=5 1B", Bcast, "scatter_recdoub_allgather", 8, 5, 1, 0, 0, 3 * hop(1)},
		// Pipeline of one piece (1000 B < 8192) on P=4: a chain of 3 hops
		// between idle ranks.
		{"bcast pipeline P=4 root=3 one piece", Bcast, "pipeline", 4, 3, 1000, 0, 0, 3 * hop(1000)},
		// Pipeline P=2, 4 pieces of 1 byte: the root sends one every o (its
		// CPU; g < o); piece k arrives at ko + o + L and the receiver, done
		// with piece k-1 exactly then, spends o on it: 4o + o + L.
		{"bcast pipeline P=2 1B pieces", Bcast, "pipeline", 2, 0, 4, 1, 0, 5*o + L},
		// Pipeline P=2, 20000 B in 8192 B pieces: 3616 (the odd piece goes
		// first), 8192, 8192. The root's NIC lets piece k+1 go g + b_k G
		// after piece k, sooner than the receiver's o + b_k G for piece k, so
		// the receiver works without a break from the first arrival at o+L:
		// o + L + sum(o + b_k G).
		{"bcast pipeline P=2 3 pieces", Bcast, "pipeline", 2, 0, 20000, 0, 0, o + L + 3*o + (3615+8191+8191)*G},
		// Binomial reduce on 8 ranks: 3 levels, each a hop between idle
		// ranks (the parent finished the previous level at the same time
		// the child did), plus the calc of combining: 3(hop + c),
		// c = round(1024·0.5) = 512.
		{"reduce binomial P=8", Reduce, "binomial", 8, 0, 1024, 0, 0, 3 * hop(1024)},
		{"reduce binomial P=8 calc", Reduce, "binomial", 8, 0, 1024, 0, 0.5, 3 * (hop(1024) + 512)},
		// Rabenseifner reduce P=2, 2049 B: blocks 1025 and 1024. Both ranks
		// swap at 0; rank 0 receives block 0 (1025 B) until o+L+o+1024G =
		// 11644, rank 1 block 1 (1024 B) until hop(1024) = 11638 and sends
		// it back at once; it arrives at 15638 at an idle rank 0:
		// 2 hop(1024).
		{"reduce rabenseifner P=2 odd", Reduce, "rabenseifner", 2, 0, 2049, 0, 0, 2 * hop(1024)},
		// Rabenseifner reduce P=4, 4096 B (blocks of 1024): halving swaps
		// 2048 then 1024 B (symmetric rounds, each a hop plus the calc of
		// the kept half); the gather sends 1024 B (ranks 0->2, 1->3 for
		// root 3) then 2048 B, each a hop between ranks idle since the
		// previous round: 2 hop(2048) + 2 hop(1024) + c(2048) + c(1024).
		{"reduce rabenseifner P=4", Reduce, "rabenseifner", 4, 0, 4096, 0, 0, 2*hop(2048) + 2*hop(1024)},
		{"reduce rabenseifner P=4 root=3 calc", Reduce, "rabenseifner", 4, 3, 4096, 0, 0.25, 2*hop(2048) + 2*hop(1024) + 512 + 256},
		// Rabenseifner allreduce P=4: the same halving, then the allgather
		// swaps 1024 then 2048 B, all rounds symmetric.
		{"allreduce rabenseifner P=4", Allreduce, "rabenseifner", 4, 0, 4096, 0, 0, 2*hop(2048) + 2*hop(1024)},
		{"allreduce rabenseifner P=4 calc", Allreduce, "rabenseifner", 4, 0, 4096, 0, 0.25, 2*hop(2048) + 2*hop(1024) + 512 + 256},
		{"allreduce rabenseifner P=2", Allreduce, "rabenseifner", 2, 0, 2048, 0, 0, 2 * hop(1024)},
		// Ring allreduce P=4, 4096 B: blocks of 1024; 3 reduce-scatter and 3
		// allgather rounds, symmetric, each a hop (+ calc in the first 3).
		{"allreduce ring P=4", Allreduce, "ring", 4, 0, 4096, 0, 0, 6 * hop(1024)},
		{"allreduce ring P=4 calc", Allreduce, "ring", 4, 0, 4096, 0, 0.25, 6*hop(1024) + 3*256},
		// Ring allreduce P=2, 100000 B: one reduce-scatter round of 50000 B;
		// the allgather block exceeds 32768 B, so it goes as 32768 + 17232 B
		// in two symmetric rounds (the NIC gap of each send is below its
		// round).
		{"allreduce ring P=2 pieces", Allreduce, "ring", 2, 0, 100000, 0, 0, hop(50000) + hop(32768) + hop(17232)},
		// Reduce to 0 then broadcast, P=4: reduce 3->2->0 (2 hops, 2 calcs on
		// the path), bcast 0->2->3 (2 hops; the root's second send, to 1,
		// waits for its NIC, g + bG, and ends sooner than the chain).
		{"allreduce reduce_bcast P=4", Allreduce, "reduce_bcast", 4, 0, 1024, 0, 0, 4 * hop(1024)},
		{"allreduce reduce_bcast P=4 calc", Allreduce, "reduce_bcast", 4, 0, 1024, 0, 0.5, 4*hop(1024) + 2*512},
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
			c := buildCall(t, alg, tc.p, members, func(me int) Spec {
				return Spec{Comm: WorldComm(tc.p), Root: tc.root, Size: tc.size, Segment: tc.seg, ReduceNsPerByte: tc.k}
			})
			var got int64
			for _, x := range c.simulate(t, p) {
				got = max(got, x)
			}
			if got != tc.want {
				t.Errorf("finishing time %d ns, closed form %d ns", got, tc.want)
			}
		})
	}
}

// TestBcastPipelineShape checks the pipeline's dependencies on a middle
// rank of the chain: every receive is posted at the start, piece k goes on
// when piece k has arrived (requires) and after piece k-1 went (irequires),
// pieces in MPICH's order (the odd piece first).
func TestBcastPipelineShape(t *testing.T) {
	alg, err := Lookup(Bcast, "pipeline")
	if err != nil {
		t.Fatal(err)
	}
	const p, n, seg = 3, 1050, 100 // 11 pieces: 50, then 10 of 100
	members := []int32{0, 1, 2}
	c := buildCall(t, alg, p, members, func(me int) Spec {
		return Spec{Comm: WorldComm(p), Size: n, Segment: seg}
	})
	s := c.sched
	ops := s.RankOps(1)
	type edge struct {
		pred, succ int32
		start      bool
	}
	var edges []edge
	base := s.RankStart[1]
	for g := base; g < s.RankStart[2]; g++ {
		for e := s.DepStart[g]; e < s.DepStart[g+1]; e++ {
			edges = append(edges, edge{g - base, s.Deps[e].Succ(), s.Deps[e].Start()})
		}
	}
	var recvs, sends []int32
	for i, op := range ops {
		switch op.Kind {
		case goal.Recv:
			recvs = append(recvs, int32(i))
		case goal.Send:
			sends = append(sends, int32(i))
		default:
			t.Fatalf("op %d is a %v", i, op.Kind)
		}
	}
	if len(recvs) != 11 || len(sends) != 11 {
		t.Fatalf("%d receives and %d sends, want 11 each", len(recvs), len(sends))
	}
	var want []edge
	for k := range sends {
		size := uint64(seg)
		if k == 0 {
			size = n % seg
		}
		if ops[recvs[k]].Size != size || ops[sends[k]].Size != size {
			t.Errorf("piece %d: receive %d B, send %d B, want %d", k, ops[recvs[k]].Size, ops[sends[k]].Size, size)
		}
		want = append(want, edge{recvs[k], sends[k], false})
		if k > 0 {
			want = append(want, edge{sends[k-1], sends[k], true})
		}
	}
	cmp := func(a, b edge) int {
		if a.succ != b.succ {
			return int(a.succ - b.succ)
		}
		return int(a.pred - b.pred)
	}
	slices.SortFunc(edges, cmp)
	slices.SortFunc(want, cmp)
	if !slices.Equal(edges, want) {
		t.Errorf("dependencies %v, want %v", edges, want)
	}
}
