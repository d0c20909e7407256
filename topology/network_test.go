package topology_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"testing"

	"github.com/gopsim/gopsim/topology"
)

type flowReq struct {
	t        int64
	src, dst int32
	bytes    int64
}

// driveFlow runs the Flow (or None) model standalone: each flow starts at
// its time (reqs sorted by time) and its arrival is parked at once; check
// runs after each batch of starts at one time. It returns every flow's
// drain time.
func driveFlow(t testing.TB, net *topology.Network, reqs []flowReq, check func(active map[int32]int32)) []int64 {
	done := make([]int64, len(reqs))
	for i := range done {
		done[i] = -1
	}
	active := map[int32]int32{} // handle -> flow
	wake := func(limit int64) {
		for {
			id, tw, ok := net.Wake(limit)
			if !ok {
				return
			}
			if done[id] >= 0 || tw > limit {
				t.Fatalf("flow %d woken twice or late (%d > %d)", id, tw, limit)
			}
			done[id] = tw
			for h, f := range active {
				if f == id {
					delete(active, h)
				}
			}
			if check != nil && id%10 == 0 {
				// Also between starts, after drains: flows that drained
				// at tw but have not come out of Wake yet are left out.
				still := map[int32]int32{}
				for h, f := range active {
					if net.Finish(h) > tw {
						still[h] = f
					}
				}
				check(still)
			}
		}
	}
	for i, r := range reqs {
		wake(r.t)
		h := net.Start(r.t, r.src, r.dst, r.bytes, int32(i))
		if at := net.Arrive(h, r.t); at != topology.Never {
			done[i] = at
		} else {
			active[h] = int32(i)
		}
		if check != nil && (i+1 == len(reqs) || reqs[i+1].t != r.t) {
			check(active)
		}
	}
	wake(topology.Never)
	for i, d := range done {
		if d < 0 {
			t.Fatalf("flow %d never drained", i)
		}
	}
	if net.InFlight() != 0 {
		t.Fatalf("%d messages left in flight", net.InFlight())
	}
	return done
}

// driveSimple runs the Simple model as LogGOPSim's engine does: every
// arrival is processed delay ns after its start and retried at the time
// the network gives until it has drained.
func driveSimple(t testing.TB, net *topology.Network, reqs []flowReq, delay int64) []int64 {
	type ev struct {
		t   int64
		seq int
		h   int32
	}
	var q []ev
	for i, r := range reqs {
		q = append(q, ev{r.t + delay, i, net.Start(r.t, r.src, r.dst, r.bytes, int32(i))})
	}
	done := make([]int64, len(reqs))
	for len(q) > 0 {
		sort.Slice(q, func(i, j int) bool { return q[i].t < q[j].t || q[i].t == q[j].t && q[i].seq < q[j].seq })
		e := q[0]
		q = q[1:]
		at := net.Arrive(e.h, e.t)
		if at == e.t {
			done[e.seq] = e.t
			continue
		}
		q = append(q, ev{at, e.seq, e.h})
	}
	return done
}

func twoSwitch(t testing.TB, opt topology.Options) *topology.Network {
	g, err := topology.ReadDotFile(filepath.Join(conformanceDir, "two-switch.dot"))
	if err != nil {
		t.Fatal(err)
	}
	m, _ := topology.Linear(g, 4, 1)
	net, err := topology.NewNetwork(g, m, opt)
	if err != nil {
		t.Fatal(err)
	}
	return net
}

// TestTwoFlowsShareLink: two flows sharing the S0->S1 link each get half
// of its bandwidth, in both models; alone, a flow gets all of it.
func TestTwoFlowsShareLink(t *testing.T) {
	const B = 1_000_000
	for _, tc := range []struct {
		model topology.Model
		reqs  []flowReq
		rate  float64
		want  []int64
	}{
		{topology.Simple, []flowReq{{0, 0, 2, B}}, 1, []int64{B}},
		{topology.Simple, []flowReq{{0, 0, 2, B}, {0, 1, 3, B}}, 0.5, []int64{2 * B, 2 * B}},
		{topology.Flow, []flowReq{{0, 0, 2, B}}, 1, []int64{B}},
		{topology.Flow, []flowReq{{0, 0, 2, B}, {0, 1, 3, B}}, 0.5, []int64{2 * B, 2 * B}},
		// Sharing only the host link H2->... no: 0->2 and 3->2 share S1->H2.
		{topology.Flow, []flowReq{{0, 0, 2, B}, {0, 3, 2, B}}, 0.5, []int64{2 * B, 2 * B}},
		// The short flow leaves at 2B; the long one then runs alone.
		{topology.Flow, []flowReq{{0, 0, 2, B}, {0, 1, 3, 3 * B}}, 0.5, []int64{2 * B, 4 * B}},
		{topology.Simple, []flowReq{{0, 0, 2, B}, {0, 1, 3, 3 * B}}, 0.5, []int64{2 * B, 4 * B}},
		// Disjoint routes do not interfere.
		{topology.Flow, []flowReq{{0, 0, 1, B}, {0, 2, 3, B}}, 1, []int64{B, B}},
	} {
		t.Run(fmt.Sprintf("%s/%d-flows/%v", tc.model, len(tc.reqs), tc.want), func(t *testing.T) {
			net := twoSwitch(t, topology.Options{Model: tc.model})
			var got []int64
			if tc.model == topology.Flow {
				checked := false
				got = driveFlow(t, net, tc.reqs, func(active map[int32]int32) {
					if checked { // the rates while all flows run
						return
					}
					checked = true
					for h := range active {
						if r := net.Rate(h); r != tc.rate {
							t.Errorf("flow %d: rate %v bytes/ns, want %v", active[h], r, tc.rate)
						}
					}
				})
			} else {
				var hs []int32
				for i, r := range tc.reqs {
					hs = append(hs, net.Start(r.t, r.src, r.dst, r.bytes, int32(i)))
				}
				for i, h := range hs {
					if r := net.Rate(h); r != tc.rate {
						t.Errorf("flow %d: rate %v bytes/ns, want %v", i, r, tc.rate)
					}
				}
				net.Reset()
				got = driveSimple(t, net, tc.reqs, 4000)
			}
			for i := range got {
				// LogGOPSim's estimates converge from below: allow the
				// last few ns of its fixed point.
				if d := got[i] - tc.want[i]; d < 0 || d > 2 {
					t.Errorf("flow %d drained at %d ns, want %d", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// bisection returns the time all flows of a bisection pattern (host i to
// host i+H/2 mod H, B bytes each, all starting at 0) take on g.
func bisection(t testing.TB, g *topology.Graph, routing topology.Routing, B int64) int64 {
	H := g.NumHosts()
	m, _ := topology.Linear(g, H, 1)
	net, err := topology.NewNetwork(g, m, topology.Options{Model: topology.Flow, Routing: routing})
	if err != nil {
		t.Fatal(err)
	}
	var reqs []flowReq
	for i := 0; i < H; i++ {
		reqs = append(reqs, flowReq{0, int32(i), int32((i + H/2) % H), B})
	}
	var end int64
	for _, d := range driveFlow(t, net, reqs, nil) {
		end = max(end, d)
	}
	return end
}

// TestBisectionOversubscribed: a bisection pattern on a fat tree whose
// leaves are oversubscribed o:1 takes o times as long as on the full tree
// (which d-mod-k routes without contention).
func TestBisectionOversubscribed(t *testing.T) {
	const B = 1 << 20
	for _, tc := range []struct {
		k, n, o int
		routing topology.Routing
	}{
		{4, 3, 2, topology.Static},
		{8, 3, 2, topology.Static}, // 512 hosts
		{8, 3, 4, topology.Static},
		{8, 3, 2, topology.Adaptive},
		{16, 2, 2, topology.Static},
	} {
		t.Run(fmt.Sprintf("k=%d,n=%d,oversub=%d,%v", tc.k, tc.n, tc.o, tc.routing), func(t *testing.T) {
			full, _ := topology.FatTree(tc.k, tc.n, 1)
			over, _ := topology.FatTree(tc.k, tc.n, tc.o)
			tf, to := bisection(t, full, tc.routing, B), bisection(t, over, tc.routing, B)
			if tf != B {
				t.Errorf("full tree: %d ns, want %d (no contention)", tf, B)
			}
			ratio := float64(to) / float64(tf)
			t.Logf("full %d ns, %d:1 oversubscribed %d ns: %.4fx", tf, tc.o, to, ratio)
			if math.Abs(ratio-float64(tc.o)) > 0.01*float64(tc.o) {
				t.Errorf("oversubscribed/full = %.4f, want %d", ratio, tc.o)
			}
		})
	}
}

// waterFill is an independent max-min fair allocation: repeatedly find
// the smallest fair share among links with unfixed flows and fix every
// flow crossing such a link.
func waterFill(routes [][]int32, capacity func(int32) float64) []float64 {
	idx := map[int32]int{}
	var links []int32
	for _, r := range routes {
		for _, l := range r {
			if _, ok := idx[l]; !ok {
				idx[l] = len(links)
				links = append(links, l)
			}
		}
	}
	rate := make([]float64, len(routes))
	fixed := make([]bool, len(routes))
	left := len(routes)
	for f, r := range routes {
		if len(r) == 0 { // same host: not shared, 1 byte/ns
			rate[f], fixed[f] = 1, true
			left--
		}
	}
	rem := make([]float64, len(links))
	cnt := make([]int, len(links))
	for left > 0 {
		for i, l := range links {
			rem[i], cnt[i] = capacity(l), 0
		}
		for f, r := range routes {
			for _, l := range r {
				if fixed[f] {
					rem[idx[l]] -= rate[f]
				} else {
					cnt[idx[l]]++
				}
			}
		}
		best := math.Inf(1)
		for i := range links {
			if cnt[i] > 0 {
				best = min(best, rem[i]/float64(cnt[i]))
			}
		}
		for f, r := range routes {
			if fixed[f] {
				continue
			}
			for _, l := range r {
				if i := idx[l]; cnt[i] > 0 && rem[i]/float64(cnt[i]) <= best*(1+1e-12) {
					rate[f], fixed[f] = best, true
					left--
					break
				}
			}
		}
	}
	return rate
}

// TestMaxMinFairness checks the Flow model's rates on random flow sets,
// after every batch of starts (flows draining in between): no link over
// capacity, every flow bottlenecked (it crosses a saturated link on which
// no flow gets more), and the rates equal an independent water-filling.
func TestMaxMinFairness(t *testing.T) {
	dot, err := topology.ReadDotFile(filepath.Join(conformanceDir, "two-switch.dot"))
	if err != nil {
		t.Fatal(err)
	}
	graphs := []*topology.Graph{dot,
		mustGenerate(t, "fattree:k=4,n=3,oversub=2"), mustGenerate(t, "torus:4x4"),
		mustGenerate(t, "torus:3x3x2,p=2"), mustGenerate(t, "dragonfly:a=3,p=2,h=1,g=4")}
	for gi, g := range graphs {
		for _, routing := range []topology.Routing{topology.Static, topology.Adaptive} {
			for seed := uint64(1); seed <= 2; seed++ {
				name := fmt.Sprintf("%s/%d/seed=%d", g, routing, seed)
				t.Run(name, func(t *testing.T) {
					rng := rand.New(rand.NewPCG(seed, uint64(gi)))
					P := g.NumHosts()
					m, _ := topology.Random(g, P, 1, seed)
					bw := []float64{1, 0.25, 3}[seed%3]
					net, err := topology.NewNetwork(g, m, topology.Options{Model: topology.Flow, Routing: routing, Bandwidth: bw})
					if err != nil {
						t.Fatal(err)
					}
					var reqs []flowReq
					for i := 0; i < 300; i++ {
						reqs = append(reqs, flowReq{int64(rng.IntN(40)) * 20_000, int32(rng.IntN(P)), int32(rng.IntN(P)), 1 + rng.Int64N(400_000)})
					}
					sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].t < reqs[j].t })
					checks := 0
					done := driveFlow(t, net, reqs, func(active map[int32]int32) {
						var hs []int32
						for h := range active {
							if len(net.Route(h)) > 0 {
								hs = append(hs, h)
							}
						}
						sort.Slice(hs, func(i, j int) bool { return hs[i] < hs[j] })
						var routes [][]int32
						load := map[int32]float64{}
						maxOn := map[int32]float64{}
						for _, h := range hs {
							routes = append(routes, net.Route(h))
							r := net.Rate(h)
							for _, l := range net.Route(h) {
								load[l] += r
								maxOn[l] = max(maxOn[l], r)
							}
						}
						capOf := func(l int32) float64 { return bw * g.Capacity(l) }
						for l, x := range load {
							if x > capOf(l)*(1+1e-9) {
								t.Fatalf("link %s carries %v > %v", g.LinkName(l), x, capOf(l))
							}
						}
						want := waterFill(routes, capOf)
						for i, h := range hs {
							r := net.Rate(h)
							if math.Abs(r-want[i]) > 1e-9*want[i] {
								t.Fatalf("flow %d: rate %v, water-filling %v", active[h], r, want[i])
							}
							bottleneck := false
							for _, l := range net.Route(h) {
								if load[l] >= capOf(l)*(1-1e-9) && r >= maxOn[l]*(1-1e-9) {
									bottleneck = true
								}
							}
							if !bottleneck {
								t.Fatalf("flow %d (rate %v) has no bottleneck link", active[h], r)
							}
						}
						checks++
					})
					for i, r := range reqs {
						if min := r.t + int64(math.Ceil(float64(r.bytes)/bw*(1-1e-12))); done[i] < min {
							t.Fatalf("flow %d drained at %d, before %d (full bandwidth)", i, done[i], min)
						}
					}
					if checks < 10 {
						t.Fatalf("only %d checks", checks)
					}
				})
			}
		}
	}
}

// TestFlowMatchesReference compares drain times with an independent
// continuous-time simulation that recomputes every rate by water-filling
// at every event.
func TestFlowMatchesReference(t *testing.T) {
	g := mustGenerate(t, "fattree:k=4,n=2,oversub=2")
	rng := rand.New(rand.NewPCG(5, 6))
	var reqs []flowReq
	for i := 0; i < 120; i++ {
		reqs = append(reqs, flowReq{int64(rng.IntN(30)) * 10_000, int32(rng.IntN(16)), int32(rng.IntN(16)), 1000 + rng.Int64N(200_000)})
	}
	sort.SliceStable(reqs, func(i, j int) bool { return reqs[i].t < reqs[j].t })
	m, _ := topology.Linear(g, 16, 1)
	net, _ := topology.NewNetwork(g, m, topology.Options{Model: topology.Flow})
	got := driveFlow(t, net, reqs, nil)

	// Reference: continuous time.
	rem := make([]float64, len(reqs))
	fin := make([]float64, len(reqs))
	var act []int
	now, next := 0.0, 0
	for next < len(reqs) || len(act) > 0 {
		var routes [][]int32
		var rates []float64
		for _, f := range act {
			routes = append(routes, g.Route(nil, reqs[f].src, reqs[f].dst))
		}
		rates = waterFill(routes, g.Capacity)
		dt := math.Inf(1)
		for i, f := range act {
			dt = min(dt, rem[f]/rates[i])
		}
		if next < len(reqs) && float64(reqs[next].t)-now <= dt {
			dt = float64(reqs[next].t) - now
		}
		now += dt
		var keep []int
		for i, f := range act {
			rem[f] -= rates[i] * dt
			if rem[f] <= 1e-6 {
				fin[f] = now
			} else {
				keep = append(keep, f)
			}
		}
		act = keep
		for next < len(reqs) && float64(reqs[next].t) <= now {
			rem[next] = float64(reqs[next].bytes)
			act = append(act, next)
			next++
		}
	}
	for i := range reqs {
		if d := math.Abs(float64(got[i]) - fin[i]); d > 1+1e-4*fin[i] {
			t.Errorf("flow %d: %d ns, reference %.1f ns", i, got[i], fin[i])
		}
	}
}

func TestLinkStats(t *testing.T) {
	const B = 1_000_000
	net := twoSwitch(t, topology.Options{Model: topology.Flow})
	driveFlow(t, net, []flowReq{{0, 0, 2, B}, {0, 1, 3, B}, {3 * B, 0, 1, B}}, nil)
	g := net.Graph()
	hot := net.Hottest(3, 5*B)
	got := func(s topology.LinkStat) string {
		return fmt.Sprintf("%s bytes=%d msgs=%d busy=%d peak=%d", g.LinkName(s.Link), s.Bytes, s.Messages, s.BusyNs, s.PeakFlows)
	}
	wantHot := []string{
		"H0->S0 bytes=2000000 msgs=2 busy=3000000 peak=1",
		"S0->S1 bytes=2000000 msgs=2 busy=2000000 peak=2",
		"H1->S0 bytes=1000000 msgs=1 busy=2000000 peak=1", // ties: by link index
	}
	for i := range wantHot {
		if got(hot[i]) != wantHot[i] {
			t.Errorf("hottest %d: %s, want %s", i, got(hot[i]), wantHot[i])
		}
	}
	if all := net.LinkStats(0, nil); len(all) != g.NumLinks() {
		t.Errorf("%d link stats, %d links", len(all), g.NumLinks())
	}
}

func TestNetworkEdgeCases(t *testing.T) {
	for _, model := range []topology.Model{topology.None, topology.Simple, topology.Flow} {
		t.Run(model.String(), func(t *testing.T) {
			g := mustGenerate(t, "torus:4")
			m := topology.Mapping{0, 0, 1, 2}
			net, err := topology.NewNetwork(g, m, topology.Options{Model: model})
			if err != nil {
				t.Fatal(err)
			}
			if h := net.Start(0, 0, 1, 0, 0); h != topology.NoFlow {
				t.Errorf("empty message: handle %d", h)
			}
			if at := net.Arrive(topology.NoFlow, 7); at != 7 {
				t.Errorf("Arrive(NoFlow, 7) = %d", at)
			}
			// Two ranks on one host: no links, full bandwidth.
			h := net.Start(10, 0, 1, 1000, 1)
			if model == topology.None {
				if h != topology.NoFlow {
					t.Errorf("None: handle %d", h)
				}
				return
			}
			if len(net.Route(h)) != 0 {
				t.Errorf("same host: route %v", net.Route(h))
			}
			if model == topology.Flow {
				if at := net.Arrive(h, 500); at != topology.Never {
					t.Fatalf("Arrive before drain = %d", at)
				}
				if id, tw, ok := net.Wake(topology.Never); !ok || id != 1 || tw != 1010 {
					t.Fatalf("Wake = %d, %d, %v; want 1, 1010, true", id, tw, ok)
				}
			} else if at := net.Arrive(h, 500); at != 1010 {
				t.Fatalf("Arrive at 500 = %d, want 1010", at)
			} else if at := net.Arrive(h, 1010); at != 1010 {
				t.Fatalf("Arrive at 1010 = %d", at)
			}
			if net.InFlight() != 0 {
				t.Fatalf("%d in flight", net.InFlight())
			}
		})
	}
	g := mustGenerate(t, "torus:4")
	if _, err := topology.NewNetwork(g, topology.Mapping{0, 4}, topology.Options{}); err == nil {
		t.Error("host 4 of 4 accepted")
	}
	if _, err := topology.NewNetwork(g, topology.Mapping{0}, topology.Options{Model: topology.Flow, Bandwidth: -1}); err == nil {
		t.Error("negative bandwidth accepted")
	}
	if _, err := topology.ParseModel("fast"); err == nil {
		t.Error("network type fast accepted")
	}
}

// TestFlowDeterministic: the same flows give the same drain times after
// Reset, whatever happened before.
func TestFlowDeterministic(t *testing.T) {
	g := mustGenerate(t, "dragonfly:a=4,p=2,h=2,g=9")
	m, _ := topology.Random(g, 72, 1, 3)
	net, _ := topology.NewNetwork(g, m, topology.Options{Model: topology.Flow, Routing: topology.Adaptive})
	rng := rand.New(rand.NewPCG(9, 9))
	var reqs []flowReq
	for i := 0; i < 500; i++ {
		reqs = append(reqs, flowReq{int64(i/50) * 5000, int32(rng.IntN(72)), int32(rng.IntN(72)), 1 + rng.Int64N(1<<16)})
	}
	a := driveFlow(t, net, reqs, nil)
	net.Reset()
	b := driveFlow(t, net, reqs, nil)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("flow %d: %d then %d", i, a[i], b[i])
		}
	}
}

// TestNoAllocsPerMessage: once its tables have grown, the network
// allocates nothing per message, in any model.
func TestNoAllocsPerMessage(t *testing.T) {
	g := mustGenerate(t, "fattree:k=8,n=2")
	m, _ := topology.Linear(g, 64, 1)
	for _, model := range []topology.Model{topology.Simple, topology.Flow} {
		for _, routing := range []topology.Routing{topology.Static, topology.Adaptive} {
			net, _ := topology.NewNetwork(g, m, topology.Options{Model: model, Routing: routing})
			var now int64
			hs := make([]int32, 64)
			round := func() {
				for r := range hs {
					hs[r] = net.Start(now, int32(r), int32((r*5+3)%64), 4096+int64(r), int32(r))
				}
				if model == topology.Flow {
					for _, h := range hs {
						net.Arrive(h, now)
					}
					for {
						_, tw, ok := net.Wake(topology.Never)
						if !ok {
							break
						}
						now = tw
					}
					return
				}
				for _, h := range hs {
					for at := net.Arrive(h, now); at != now; at = net.Arrive(h, now) {
						now = at
					}
				}
			}
			round()
			round()
			if a := testing.AllocsPerRun(20, round); a != 0 {
				t.Errorf("%s/%d: %.1f allocations per round of 64 messages", model, routing, a)
			}
		}
	}
}
