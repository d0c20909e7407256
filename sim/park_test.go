package sim

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/topology"
)

// randomSchedule returns a GOAL text of ranks ranks whose ops use two
// CPUs and two NICs, with bursts of sends and calcs ready at time 0 and
// chains of requires and irequires, so that many ops wait for the same
// resources at once and for different ones. Every message has a matching
// receive; dependencies may still leave some ops stuck, which the runs
// must then report alike.
func randomSchedule(seed uint64, ranks, msgs int) string {
	rng := rand.New(rand.NewPCG(seed, 7))
	per := make([][]string, ranks)
	add := func(r int, s string) int {
		per[r] = append(per[r], s)
		return len(per[r]) - 1
	}
	sizes := []int{0, 1, 100, 4000, 70000}
	for i := 0; i < msgs; i++ {
		src := rng.IntN(ranks)
		dst := (src + 1 + rng.IntN(ranks-1)) % ranks
		size := sizes[rng.IntN(len(sizes))]
		tag := rng.IntN(3)
		label := ""
		if rng.IntN(8) == 0 {
			label = "stride512_"
		}
		add(src, fmt.Sprintf("%ssend %db to %d tag %d cpu %d nic %d", label, size, dst, tag, rng.IntN(2), rng.IntN(2)))
		from := fmt.Sprint(src)
		if rng.IntN(10) == 0 {
			from = "-1"
		}
		add(dst, fmt.Sprintf("recv %db from %s tag %d cpu %d nic %d", size, from, tag, rng.IntN(2), rng.IntN(2)))
		if rng.IntN(3) == 0 {
			add(src, fmt.Sprintf("calc %d cpu %d", rng.IntN(3)*rng.IntN(5000), rng.IntN(2)))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "num_ranks %d\n", ranks)
	for r, ops := range per {
		fmt.Fprintf(&b, "rank %d {\n", r)
		for i, s := range ops {
			// A label that ends in the op's index, after a possible
			// stride prefix.
			if rest, ok := strings.CutPrefix(s, "stride512_"); ok {
				fmt.Fprintf(&b, "stride512_%d: %s\n", i, rest)
			} else {
				fmt.Fprintf(&b, "o%d: %s\n", i, s)
			}
		}
		for i := range ops {
			if i == 0 || rng.IntN(3) != 0 {
				continue // most ops are ready at time 0
			}
			dep := "requires"
			if rng.IntN(2) == 0 {
				dep = "irequires"
			}
			fmt.Fprintf(&b, "%s %s %s\n", labelOf(ops, i), dep, labelOf(ops, rng.IntN(i)))
		}
		b.WriteString("}\n")
	}
	return b.String()
}

func labelOf(ops []string, i int) string {
	if strings.HasPrefix(ops[i], "stride512_") {
		return fmt.Sprintf("stride512_%d", i)
	}
	return fmt.Sprintf("o%d", i)
}

// parkCase is a schedule for TestWaitingListsAgree.
type parkCase struct {
	name string
	s    *goal.Schedule
}

func parkCases(t *testing.T) []parkCase {
	var cases []parkCase
	for _, f := range conformanceGoals() {
		cases = append(cases, parkCase{filepath.Base(f), loadText(t, f)})
	}
	for _, c := range []struct {
		name  string
		ranks int
		size  uint64
	}{
		{"linear_alltoall", 24, 1024}, {"linear_alltoall", 9, 100000}, {"mpi_alltoall", 16, 4096},
		{"allreduce_recdoub", 32, 1 << 16}, {"binomialtreebcast", 100, 8}, {"dissemination", 17, 1 << 20},
	} {
		cases = append(cases, parkCase{fmt.Sprintf("%s_%d_%d", c.name, c.ranks, c.size), patternSchedule(t, c.name, c.ranks, c.size)})
	}
	for seed := uint64(1); seed <= 4; seed++ {
		text := randomSchedule(seed, 3+int(seed)*2, 40*int(seed))
		s, err := goal.ReadText(strings.NewReader(text), "random.goal")
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, text)
		}
		cases = append(cases, parkCase{fmt.Sprintf("random%d", seed), s})
	}
	return cases
}

// parkParams are parameter sets for TestWaitingListsAgree: the defaults;
// every message rendezvous, with O; o = g = G = 0, where an op that starts
// leaves its resources free at the same time, so that many ops start at
// one time in key order; and fractional ones (ps), with the models'
// sections.
func parkParams() []Params {
	def := DefaultParams()
	def.LogfP = &LogfPParams{F: 3, OBurst: 700}
	def.Log3P = &Log3PParams{Points: []Log3PPoint{{Size: 4000, Stride: 512, Pack: 900, Unpack: 1300}}}
	return []Params{
		def,
		{L: 0, Overhead: 7, Gap: 100, GapPerByte: 1, OverheadPerByte: 3, EagerLimit: 0},
		{L: 10, Overhead: 0, Gap: 0, GapPerByte: 0, OverheadPerByte: 0, EagerLimit: 100},
		fractionalParams(),
	}
}

// outcome runs p with opt (a fresh noise model and network from mk) and
// returns everything the run gives but Result.QueueOps, formatted: the
// result, its breakdown and record, the error, the critical path, the
// noise each rank absorbed and the network's statistics.
func outcome(t *testing.T, p *Program, mk func() Options) (string, *Result) {
	t.Helper()
	opt := mk()
	res, err := p.Run(opt)
	var b strings.Builder
	fmt.Fprintf(&b, "error: %v\n", err)
	if res == nil {
		return b.String(), nil
	}
	r := *res
	r.QueueOps = 0
	fmt.Fprintf(&b, "%+v\n", r)
	if err == nil && opt.Record && opt.Model == LogGOPS {
		path, err := CriticalPath(p, res)
		fmt.Fprintf(&b, "critical path: %v %+v\n", err, path)
	}
	if n := opt.Noise; n != nil {
		for rk := 0; rk < p.NumRanks; rk++ {
			fmt.Fprintf(&b, "%d ", n.Absorbed(rk))
		}
		b.WriteString("\n")
	}
	if n := opt.Network; n != nil {
		fmt.Fprintf(&b, "network: %d messages, %d recomputes, %+v\n", n.Messages(), n.Recomputes(), n.Hottest(8, res.MaxTime))
	}
	return b.String(), res
}

// TestWaitingListsAgree: the waiting lists give what the rules' put-backs
// give (Options.putBack), event for event: the same finishing times,
// events, breakdown, per-op record, critical path, noise, network
// statistics and errors, on the conformance schedules, put-back-heavy
// patterns (linear all-to-all: every send ready at time 0) and random
// schedules with two CPUs and two NICs per rank, under every model, four
// parameter sets, noise, both congestion models, both queues, counting ns
// or ps, in memory and streamed. Only the queue operations differ: on a
// linear all-to-all there are far fewer.
func TestWaitingListsAgree(t *testing.T) {
	cases := parkCases(t)
	params := parkParams()
	fat, err := topology.FatTree(4, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	for ci, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			mem, err := Compile(c.s)
			if err != nil {
				t.Fatal(err)
			}
			str := streamed(t, binaryOf(t, c.s), 3)
			// The largest schedules (a conformance all-to-all of 64
			// ranks has 8,000 ops and a quarter of a million put-backs)
			// take a share of the variants.
			heavy := mem.NumOps() > 1000
			for pi, par := range params {
				for vi, v := range parkVariants(t, c.s.NumRanks, par, fat, ci+pi) {
					if heavy && vi > 1 && (vi+ci+pi)%5 != 0 {
						continue
					}
					progs := []*Program{mem}
					if v.stream {
						progs = append(progs, str)
					}
					for _, p := range progs {
						mk := func(putBack bool) func() Options {
							return func() Options { o := v.mk(); o.putBack = putBack; return o }
						}
						want, old := outcome(t, p, mk(true))
						got, res := outcome(t, p, mk(false))
						if got != want {
							t.Fatalf("params %d, %s, streamed %v: waiting lists give\n%s\nput-backs give\n%s", pi, v.name, p == str, got, want)
						}
						if strings.HasPrefix(c.name, "linear_alltoall_24") && pi == 0 && vi == 0 && 4*res.QueueOps > old.QueueOps {
							t.Errorf("%d queue operations, %d with put-backs: want at least 4x fewer", res.QueueOps, old.QueueOps)
						}
					}
				}
			}
		})
	}
}

// parkVariant is a way of running a schedule: options made fresh for each
// run, and whether a streamed program can run them.
type parkVariant struct {
	name   string
	mk     func() Options
	stream bool
}

// parkVariants returns the runs TestWaitingListsAgree makes of a schedule
// of ranks ranks under par; which ones rotate with k, to bound the time.
func parkVariants(t *testing.T, ranks int, par Params, fat *topology.Graph, k int) []parkVariant {
	nz := func() *noise.Model {
		n, err := noise.New(noise.Config{Seed: 5, PeriodNs: 9000, PeriodDurNs: 450, Stragglers: []int32{1}, Factor: 1.25}, ranks)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	net := func(m topology.Model) *topology.Network {
		if ranks > fat.NumHosts() {
			return nil
		}
		return newTestNetwork(t, fat, ranks, m)
	}
	vs := []parkVariant{
		{"loggops", func() Options { return Options{Params: par, Breakdown: true, Record: true} }, false},
		{"loggops plain", func() Options { return Options{Params: par} }, true},
		{"loggops noise heap", func() Options { return Options{Params: par, Noise: nz(), Breakdown: true, Queue: HeapQueue} }, true},
		{"loggops ps", func() Options { return Options{Params: par, Record: true, psAlways: true} }, false},
	}
	for _, m := range Models()[1:] {
		m := m
		q := RadixQueue
		if int(m)%2 == 0 {
			q = HeapQueue
		}
		vs = append(vs, parkVariant{m.String(), func() Options {
			o := Options{Params: par, Model: m, Breakdown: true, Record: true, Queue: q}
			if (int(m)+k)%3 == 0 {
				o.Noise = nz()
			}
			return o
		}, false})
		vs = append(vs, parkVariant{m.String() + " streamed", func() Options { return Options{Params: par, Model: m, Queue: q} }, true})
	}
	for _, nm := range []topology.Model{topology.Simple, topology.Flow} {
		if net(nm) == nil {
			continue
		}
		nm := nm
		vs = append(vs, parkVariant{"network " + nm.String(), func() Options {
			return Options{Params: par, Network: net(nm), Record: true, Breakdown: true, Queue: QueueKind(k % 2)}
		}, false})
		vs = append(vs, parkVariant{"network " + nm.String() + " streamed", func() Options {
			return Options{Params: par, Network: net(nm), Noise: nz()}
		}, true})
	}
	return vs
}

// newTestNetwork returns a network of model m over g with ranks mapped
// linearly.
func newTestNetwork(t *testing.T, g *topology.Graph, ranks int, m topology.Model) *topology.Network {
	mp, err := topology.Linear(g, ranks, 1)
	if err != nil {
		t.Fatal(err)
	}
	n, err := topology.NewNetwork(g, mp, topology.Options{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestWaitingListsRandomSchedule: the random schedules of
// TestWaitingListsAgree are what they should be: they parse, use both
// CPUs and NICs, and most of them finish.
func TestWaitingListsRandomSchedule(t *testing.T) {
	text := randomSchedule(3, 9, 120)
	if !strings.Contains(text, "cpu 1 nic 1") || !strings.Contains(text, "irequires") {
		t.Fatalf("the random schedule lacks a second CPU and NIC or irequires:\n%s", text)
	}
	s, err := goal.ReadText(bytes.NewReader([]byte(text)), "random.goal")
	if err != nil {
		t.Fatal(err)
	}
	if s.NumCPUs != 2 || s.NumNICs != 2 {
		t.Fatalf("%d CPUs, %d NICs; want 2 and 2", s.NumCPUs, s.NumNICs)
	}
}

// TestWaitGroupOrder: a group's parked events come out in key order,
// whatever order they park in (ascending, as is usual, descending, or
// any) and however parking and unparking interleave, through the list's
// appends, insertions on either side and slides.
func TestWaitGroupOrder(t *testing.T) {
	for _, c := range []struct {
		name  string
		key   func(rng *rand.Rand, i int) uint64
		pPark int // percent of steps that park
	}{
		{"ascending", func(_ *rand.Rand, i int) uint64 { return uint64(i) << 32 }, 60},
		{"descending", func(_ *rand.Rand, i int) uint64 { return uint64(1<<20-i) << 32 }, 60},
		{"random", func(rng *rand.Rand, i int) uint64 { return uint64(rng.IntN(1<<20))<<32 | uint64(i) }, 55},
		{"mostly ascending", func(rng *rand.Rand, i int) uint64 {
			if rng.IntN(10) == 0 {
				return uint64(rng.IntN(i+1))<<32 | 1
			}
			return uint64(i) << 32
		}, 70},
	} {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(1, 2))
			var x waitGroup
			var ref []uint64 // sorted
			for i := 0; i < 20000; i++ {
				if len(ref) == 0 || rng.IntN(100) < c.pPark {
					k := c.key(rng, i)
					x.park(event{key: k, op: int32(i), rank: 3})
					j, _ := slices.BinarySearch(ref, k)
					ref = slices.Insert(ref, j, k)
					continue
				}
				p := x.unpark()
				if p.key != ref[0] || p.rank != 3 {
					t.Fatalf("step %d: unparked key %#x rank %d, want %#x", i, p.key, p.rank, ref[0])
				}
				ref = ref[1:]
				if got := len(x.parked) - int(x.head); got != len(ref) {
					t.Fatalf("step %d: %d parked, want %d", i, got, len(ref))
				}
			}
		})
	}
}
