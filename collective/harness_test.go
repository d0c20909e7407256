package collective

import (
	"fmt"
	"math/bits"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// A call is one collective over a communicator embedded in a world, built
// for every member with Emit. The checks below hold for every algorithm.
type call struct {
	alg     *Algorithm
	world   int     // world size
	members []int32 // world rank of each comm rank
	specs   []Spec  // per comm rank
	sched   *goal.Schedule

	sends, recvs   []int    // per comm rank
	sent, received []uint64 // bytes per comm rank
	knows          [][]uint64
}

// checkTraffic compares each comm rank's traffic with formula's; prefix
// starts the failure message.
func (c *call) checkTraffic(t testing.TB, formula func(*Spec, int) traffic, prefix string) {
	t.Helper()
	for i := range c.specs {
		want := formula(&c.specs[i], i)
		if got := (traffic{c.sends[i], c.recvs[i], c.sent[i], c.received[i]}); got != want {
			t.Fatalf("%scomm rank %d: traffic %+v, formula says %+v", prefix, i, got, want)
		}
	}
}

// traffic is what one comm rank sends and receives in a call.
type traffic struct {
	sends, recvs   int
	sent, received uint64
}

// buildCall emits the call for every member and assembles the schedule.
func buildCall(t testing.TB, alg *Algorithm, world int, members []int32, spec func(me int) Spec) *call {
	t.Helper()
	c := &call{alg: alg, world: world, members: members}
	index := make(map[int32]int, len(members))
	for i, w := range members {
		index[w] = i
	}
	c.specs = make([]Spec, len(members))
	for i := range members {
		c.specs[i] = spec(i)
		if err := alg.Check(&c.specs[i]); err != nil {
			t.Fatalf("comm rank %d: %v", i, err)
		}
	}
	s := goal.NewSchedule(world)
	var b goal.Builder
	var ends []int32
	for r := 0; r < world; r++ {
		b.Reset(int32(r))
		if i, ok := index[int32(r)]; ok {
			var err error
			if ends, err = alg.Emit(&b, i, &c.specs[i], nil, ends); err != nil {
				t.Fatalf("comm rank %d: %v", i, err)
			}
			if b.NumOps() > 0 && len(ends) == 0 {
				t.Fatalf("comm rank %d has %d ops but no ends", i, b.NumOps())
			}
			for _, id := range ends {
				if id < 0 || id >= b.NumOps() {
					t.Fatalf("comm rank %d: end op %d outside 0..%d", i, id, b.NumOps()-1)
				}
			}
		}
		blk := b.Block()
		if _, berr := blk.Validate(world, nil); berr != nil {
			t.Fatalf("rank %d: invalid block: %s", r, berr.Msg)
		}
		if err := s.AppendRank(blk); err != nil {
			t.Fatal(err)
		}
	}
	c.sched = s
	return c
}

// analyse matches every send with its receive (first unmatched receive in
// definition order with the same source and tag, as the engine does for
// schedules without wildcards), checks their sizes agree, counts traffic
// and computes which comm ranks each comm rank has heard from: the ranks
// from which a chain of local dependencies and messages leads to one of
// its ops.
func (c *call) analyse(t testing.TB) {
	t.Helper()
	s := c.sched
	n := len(c.members)
	words := (n + 63) / 64
	index := make(map[int32]int, n)
	for i, w := range c.members {
		index[w] = i
	}
	c.sends, c.recvs = make([]int, n), make([]int, n)
	c.sent, c.received = make([]uint64, n), make([]uint64, n)
	type key struct {
		src, dst int32
		tag      uint32
	}
	queues := map[key][]int32{} // receives per key, in definition order
	for r := 0; r < c.world; r++ {
		for g := s.RankStart[r]; g < s.RankStart[r+1]; g++ {
			op := s.Ops[g]
			if op.Kind == goal.Recv {
				if op.Peer == goal.AnySource || op.Tag == goal.AnyTag {
					t.Fatalf("rank %d op %d: collective algorithms must not use wildcards", r, g-s.RankStart[r])
				}
				k := key{op.Peer, int32(r), op.Tag}
				queues[k] = append(queues[k], g)
			}
		}
	}
	// Every op gets the comm ranks it has heard from; edges: local deps,
	// and send -> matched recv.
	msgTo := map[int32]int32{}
	for r := 0; r < c.world; r++ {
		for g := s.RankStart[r]; g < s.RankStart[r+1]; g++ {
			op := s.Ops[g]
			if op.Kind != goal.Send {
				continue
			}
			k := key{int32(r), op.Peer, op.Tag}
			q := queues[k]
			if len(q) == 0 {
				t.Fatalf("rank %d op %d: send of %d bytes to %d tag %d has no matching receive", r, g-s.RankStart[r], op.Size, op.Peer, op.Tag)
			}
			if rs := s.Ops[q[0]].Size; rs != op.Size {
				t.Fatalf("rank %d op %d: send of %d bytes to %d matched by a receive of %d bytes", r, g-s.RankStart[r], op.Size, op.Peer, rs)
			}
			msgTo[g] = q[0]
			queues[k] = q[1:]
			i, j := index[int32(r)], index[op.Peer]
			c.sends[i]++
			c.sent[i] += op.Size
			c.recvs[j]++
			c.received[j] += op.Size
		}
	}
	for k, q := range queues {
		if len(q) > 0 {
			t.Fatalf("rank %d: %d receives from %d tag %d never matched", k.dst, len(q), k.src, k.tag)
		}
	}
	// Propagate in a topological order of the combined graph.
	nops := len(s.Ops)
	indeg := make([]int32, nops)
	succs := func(g int32, f func(int32)) {
		r := s.RankOf(g)
		base := s.RankStart[r]
		for e := s.DepStart[g]; e < s.DepStart[g+1]; e++ {
			f(base + s.Deps[e].Succ())
		}
		if to, ok := msgTo[g]; ok {
			f(to)
		}
	}
	for g := int32(0); g < int32(nops); g++ {
		succs(g, func(x int32) { indeg[x]++ })
	}
	heard := make([]uint64, nops*words)
	var queue []int32
	for r := 0; r < c.world; r++ {
		for g := s.RankStart[r]; g < s.RankStart[r+1]; g++ {
			if i, ok := index[int32(r)]; ok {
				heard[int(g)*words+i/64] |= 1 << (i % 64)
			}
			if indeg[g] == 0 {
				queue = append(queue, g)
			}
		}
	}
	done := 0
	for len(queue) > 0 {
		g := queue[0]
		queue = queue[1:]
		done++
		succs(g, func(x int32) {
			for w := 0; w < words; w++ {
				heard[int(x)*words+w] |= heard[int(g)*words+w]
			}
			indeg[x]--
			if indeg[x] == 0 {
				queue = append(queue, x)
			}
		})
	}
	if done != nops {
		t.Fatalf("dependency cycle through messages: %d of %d ops ordered", done, nops)
	}
	c.knows = make([][]uint64, n)
	for i, w := range c.members {
		k := make([]uint64, words)
		k[i/64] |= 1 << (i % 64)
		for g := s.RankStart[w]; g < s.RankStart[w+1]; g++ {
			for x := 0; x < words; x++ {
				k[x] |= heard[int(g)*words+x]
			}
		}
		c.knows[i] = k
	}
}

func (c *call) heard(i, j int) bool { return c.knows[i][j/64]&(1<<(j%64)) != 0 }

// checkSemantics asserts that information flows as the operation requires:
// who must have heard from whom by the end of the call.
func (c *call) checkSemantics(t testing.TB) {
	t.Helper()
	n := len(c.members)
	must := func(i, j int, why string) {
		if !c.heard(i, j) {
			t.Fatalf("comm rank %d ends without having heard from comm rank %d (%s)", i, j, why)
		}
	}
	root := c.specs[0].Root
	for i := 0; i < n; i++ {
		s := &c.specs[i]
		for j := 0; j < n; j++ {
			switch c.alg.Op {
			case Barrier, Allreduce, Allgather, Alltoall, ReduceScatter:
				must(i, j, "everyone needs everyone")
			case Allgatherv:
				if s.Counts[j] > 0 {
					must(i, j, "its block")
				}
			case Alltoallv:
				if s.RecvCounts[j] > 0 {
					must(i, j, "its block for me")
				}
			case Bcast, Scatter:
				if j == root {
					must(i, j, "the root's data")
				}
			case Scatterv:
				if j == root && c.specs[i].Counts[i] > 0 {
					must(i, j, "the root's data")
				}
			case Reduce, Gather:
				if i == root {
					must(i, j, "the root collects everyone")
				}
			case Gatherv:
				if i == root && c.specs[root].Counts[j] > 0 {
					must(i, j, "the root collects everyone")
				}
			case Scan:
				if j <= i {
					must(i, j, "prefix")
				}
			case Exscan:
				if j < i {
					must(i, j, "prefix")
				}
			}
		}
	}
}

// simulate runs the call under LogGOPSim's default parameters and returns
// per comm rank finishing times.
func (c *call) simulate(t testing.TB, p sim.Params) []int64 {
	t.Helper()
	res, err := sim.Run(c.sched, sim.Options{Params: p})
	if err != nil {
		t.Fatalf("simulation: %v", err)
	}
	out := make([]int64, len(c.members))
	for i, w := range c.members {
		out[i] = res.PerRank[w]
	}
	return out
}

// formulas gives, per "op/algorithm", the traffic of comm rank me as the
// algorithm's description says it should be. Every registered algorithm
// needs one (TestFormulasComplete).
var formulas = map[string]func(s *Spec, me int) traffic{}

func algKey(a *Algorithm) string { return a.Op.String() + "/" + a.Name }

// specsFor returns the per-member specs of a test call: sizes and counts
// that vary, v-counts with zeros, alltoallv counts from one consistent matrix.
func specsFor(op Op, p, root int, size uint64, seed uint64) func(me int) Spec {
	x := seed*0x9e3779b97f4a7c15 + uint64(p)
	rnd := func() uint64 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return x
	}
	count := func() uint64 {
		switch rnd() % 5 {
		case 0:
			return 0
		case 1:
			return 1
		default:
			return 1 + rnd()%(2*size+1)
		}
	}
	var counts []uint64
	var matrix [][]uint64
	switch op {
	case Gatherv, Scatterv, Allgatherv:
		counts = make([]uint64, p)
		for i := range counts {
			counts[i] = count()
		}
	case Alltoallv:
		matrix = make([][]uint64, p)
		for i := range matrix {
			matrix[i] = make([]uint64, p)
			for j := range matrix[i] {
				if i != j {
					matrix[i][j] = count()
				}
			}
		}
	}
	return func(me int) Spec {
		s := Spec{Root: root, Size: size, Tag: 7, Counts: counts}
		if matrix != nil {
			s.Counts = matrix[me]
			s.RecvCounts = make([]uint64, p)
			for j := range s.RecvCounts {
				s.RecvCounts[j] = matrix[j][me]
			}
		}
		return s
	}
}

// commSizes are the communicator sizes every algorithm is checked on.
var commSizes = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 16, 17, 24, 31, 32, 33, 64, 65, 100}

// TestAlgorithms checks every registered algorithm on many communicator
// sizes, roots and message sizes, on the world and on a shuffled
// sub-communicator: sends and receives match one to one with equal sizes,
// information flows as the operation requires, the traffic per rank is the
// algorithm's formula, and the schedule simulates to completion.
func TestAlgorithms(t *testing.T) {
	for _, op := range Ops() {
		for _, alg := range Algorithms(op) {
			t.Run(algKey(alg), func(t *testing.T) {
				formula := formulas[algKey(alg)]
				for _, p := range commSizes {
					roots := []int{0}
					if op.Rooted() && p > 2 {
						roots = append(roots, p-1, p/2)
					}
					for _, root := range roots {
						for _, size := range []uint64{1, 1000, 100_000} {
							for _, sub := range []bool{false, true} {
								spec := specsFor(op, p, root, size, uint64(root)+size)
								probe := spec(0)
								probe.Comm = WorldComm(p)
								if alg.Check(&probe) != nil {
									continue // e.g. a power-of-two algorithm on 12 ranks
								}
								name := fmt.Sprintf("P=%d/root=%d/size=%d/sub=%v", p, root, size, sub)
								world, members := p, make([]int32, p)
								for i := range members {
									members[i] = int32(i)
								}
								if sub { // comm rank i is world rank p+1-i; world ranks 0 and p+2... idle
									world = p + 3
									for i := range members {
										members[i] = int32(p + 1 - i)
									}
								}
								comm := NewComm(members)
								c := buildCall(t, alg, world, members, func(me int) Spec {
									s := spec(me)
									s.Comm = comm
									return s
								})
								c.analyse(t)
								c.checkSemantics(t)
								if formula != nil {
									c.checkTraffic(t, formula, name+": ")
								}
								c.simulate(t, sim.DefaultParams())
							}
						}
					}
				}
			})
		}
	}
}

// TestFormulasComplete makes sure no algorithm escapes the traffic check.
func TestFormulasComplete(t *testing.T) {
	for _, a := range registry {
		if formulas[algKey(a)] == nil {
			t.Errorf("%s has no traffic formula in the tests", algKey(a))
		}
	}
}

var _ = bits.Len // used by formulas in other test files
