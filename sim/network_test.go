package sim_test

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/pattern"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/topology"
)

// Tests of the congestion hook: sim.Options.Network, through the real
// engine.

const networkDir = "testdata/conformance/network"

func readGoalFile(t testing.TB, path string) *goal.Schedule {
	t.Helper()
	s, _, err := goal.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// newNetwork builds a network for ranks placed linearly on g.
func newNetwork(t testing.TB, g *topology.Graph, ranks int, opt topology.Options) *topology.Network {
	t.Helper()
	m, err := topology.Linear(g, ranks, 1)
	if err != nil {
		t.Fatal(err)
	}
	net, err := topology.NewNetwork(g, m, opt)
	if err != nil {
		t.Fatal(err)
	}
	return net
}

func readDot(t testing.TB, path string) *topology.Graph {
	t.Helper()
	g, err := topology.ReadDotFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func joinTimes(ts []int64, sep string) string {
	s := make([]string, len(ts))
	for i, x := range ts {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, sep)
}

var queues = []struct {
	name string
	kind sim.QueueKind
}{{"radix", sim.RadixQueue}, {"heap", sim.HeapQueue}}

// TestNetworkConformance runs every row of
// testdata/conformance/network/expected.csv (LogGOPSim's results with no
// network and with --network-type simple) through sim.Run with both event
// queues: the none rows without a network and with a topology.None
// network, the simple rows under the Simple model and under the Flow
// model, which on these cases gives LogGOPSim's times too (one message
// alone at 1 byte/ns, two sharing a link at half of it; the values of
// topology's TestEngineHookFlow).
func TestNetworkConformance(t *testing.T) {
	f, err := os.Open(filepath.Join(networkDir, "expected.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	if len(rows) < 5 {
		t.Fatalf("%d conformance rows, want 4", len(rows)-1)
	}
	twoSwitch := readDot(t, filepath.Join(networkDir, "two-switch.dot"))
	for _, row := range rows[1:] {
		s := readGoalFile(t, filepath.Join(networkDir, row[col["goal"]]))
		want := row[col["per_rank_times_ns"]]
		type variant struct {
			name  string
			model topology.Model // None: see graph
			graph *topology.Graph
		}
		var vs []variant
		switch typ := row[col["network_type"]]; typ {
		case "none":
			vs = []variant{{"no-network", topology.None, nil}, {"none-network", topology.None, twoSwitch}}
		case "simple":
			g := readDot(t, filepath.Join(networkDir, row[col["network_file"]]))
			vs = []variant{{"simple", topology.Simple, g}, {"flow", topology.Flow, g}}
		default:
			t.Fatalf("%s: network type %q", row[col["case"]], typ)
		}
		for _, v := range vs {
			for _, q := range queues {
				t.Run(row[col["case"]]+"/"+v.name+"/"+q.name, func(t *testing.T) {
					opt := sim.Options{Params: sim.DefaultParams(), Queue: q.kind}
					if v.graph != nil {
						opt.Network = newNetwork(t, v.graph, s.NumRanks, topology.Options{Model: v.model})
					}
					res, err := sim.Run(s, opt)
					if err != nil {
						t.Fatal(err)
					}
					if got := joinTimes(res.PerRank, ";"); got != want {
						t.Errorf("per-rank times %s, LogGOPSim %s", got, want)
					}
					if opt.Network != nil && opt.Network.InFlight() != 0 {
						t.Errorf("%d messages left in the network", opt.Network.InFlight())
					}
				})
			}
		}
	}
}

// TestSimpleAgainstLogGOPSim runs the 96 cases of
// testdata/conformance/network/simple/ (random schedules run on LogGOPSim
// with --network-type simple; see the README there) through the engine
// under the Simple model and demands LogGOPSim's per-rank times. Each file
// is a `network FILE` line, GOAL text, a `----` line and the times.
func TestSimpleAgainstLogGOPSim(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(networkDir, "simple", "*.txt"))
	if len(files) != 96 {
		t.Fatalf("%d cases in %s/simple, want 96", len(files), networkDir)
	}
	graphs := map[string]*topology.Graph{}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			text, want, ok := strings.Cut(string(data), "----\n")
			if !ok {
				t.Fatal("no ---- line")
			}
			var network string
			var goalText strings.Builder
			for _, line := range strings.SplitAfter(text, "\n") {
				switch {
				case strings.HasPrefix(line, "#"):
				case strings.HasPrefix(line, "network "):
					network = filepath.Join(filepath.Dir(file), strings.TrimSpace(strings.TrimPrefix(line, "network ")))
				default:
					goalText.WriteString(line)
				}
			}
			s, err := goal.ReadText(strings.NewReader(goalText.String()), file)
			if err != nil {
				t.Fatal(err)
			}
			g := graphs[network]
			if g == nil {
				g = readDot(t, network)
				graphs[network] = g
			}
			for _, q := range queues {
				net := newNetwork(t, g, s.NumRanks, topology.Options{Model: topology.Simple})
				res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams(), Queue: q.kind, Network: net})
				if err != nil {
					t.Fatal(err)
				}
				if got, w := joinTimes(res.PerRank, " "), strings.TrimSpace(want); got != w {
					t.Errorf("%s queue: per-rank times\n%s\nLogGOPSim\n%s", q.name, got, w)
				}
			}
		})
	}
}

// transferTimes runs s on net with Options.Record and returns, for each
// send op (in global op order), how long its message took from the send's
// start until the receiver could take it (Delivered - Start), and the
// result.
func transferTimes(t *testing.T, s *goal.Schedule, p sim.Params, net *topology.Network) ([]int64, *sim.Result) {
	t.Helper()
	res, err := sim.Run(s, sim.Options{Params: p, Network: net, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	var d []int64
	for _, r := range res.Record {
		if r.Delivered >= 0 {
			d = append(d, r.Delivered-r.Start)
		}
	}
	if net != nil && net.InFlight() != 0 {
		t.Fatalf("%d messages left in the network", net.InFlight())
	}
	return d, res
}

// sendsText returns a schedule in which every pair {src, dst, bytes}
// is one message sent at time 0 and received by a receive posted at 0.
func sendsText(ranks int, pairs [][3]int64) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "num_ranks %d\n", ranks)
	for r := 0; r < ranks; r++ {
		fmt.Fprintf(&sb, "rank %d {\n", r)
		for i, p := range pairs {
			if p[0] == int64(r) {
				fmt.Fprintf(&sb, "send %db to %d tag %d\n", p[2], p[1], i)
			}
			if p[1] == int64(r) {
				fmt.Fprintf(&sb, "recv %db from %d tag %d\n", p[2], p[0], i)
			}
		}
		fmt.Fprintf(&sb, "}\n")
	}
	return sb.String()
}

func readString(t testing.TB, name, text string) *goal.Schedule {
	t.Helper()
	s, err := goal.ReadText(strings.NewReader(text), name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestTwoFlowsShareLinkEngine: on two-switch.dot, two messages that share
// the S0->S1 link each get half of its bandwidth, so each takes twice as
// long as alone (B ns at 1 byte/ns); routes that share nothing do not slow
// each other; under both models, through the engine. A message alone
// takes B ns, not o+L: B is far above o+L = 4000 ns. Simple's fixed point
// may add a few ns.
func TestTwoFlowsShareLinkEngine(t *testing.T) {
	const B = 1 << 20
	g := readDot(t, filepath.Join(networkDir, "two-switch.dot"))
	for _, tc := range []struct {
		name  string
		pairs [][3]int64
		want  []int64 // transfer time of each message
	}{
		{"alone 0->2", [][3]int64{{0, 2, B}}, []int64{B}},
		{"0->2 and 1->3 share S0->S1", [][3]int64{{0, 2, B}, {1, 3, B}}, []int64{2 * B, 2 * B}},
		{"0->2 and 3->2 share S1->H2", [][3]int64{{0, 2, B}, {3, 2, B}}, []int64{2 * B, 2 * B}},
		{"0->1 and 2->3 share nothing", [][3]int64{{0, 1, B}, {2, 3, B}}, []int64{B, B}},
		{"short and long: the long one speeds up", [][3]int64{{0, 2, B}, {1, 3, 3 * B}}, []int64{2 * B, 4 * B}},
	} {
		s := readString(t, tc.name, sendsText(4, tc.pairs))
		for _, model := range []topology.Model{topology.Simple, topology.Flow} {
			t.Run(tc.name+"/"+model.String(), func(t *testing.T) {
				net := newNetwork(t, g, 4, topology.Options{Model: model})
				got, _ := transferTimes(t, s, sim.DefaultParams(), net)
				if len(got) != len(tc.want) {
					t.Fatalf("%d messages delivered, want %d", len(got), len(tc.want))
				}
				for i := range got {
					if d := got[i] - tc.want[i]; d < 0 || d > 2 {
						t.Errorf("message %d took %d ns, want %d", i, got[i], tc.want[i])
					}
				}
			})
		}
	}
	// Without a network each takes o + L.
	s := readString(t, "pair", sendsText(4, [][3]int64{{0, 2, B}, {1, 3, B}}))
	got, _ := transferTimes(t, s, sim.DefaultParams(), nil)
	for i, d := range got {
		if d != 4000 {
			t.Errorf("no network: message %d took %d ns, want o+L = 4000", i, d)
		}
	}
}

// bisectionText: rank i sends bytes to rank i+H/2 mod H and receives from
// i-H/2 mod H, all at time 0.
func bisectionText(H int, bytes int64) string {
	var pairs [][3]int64
	for i := 0; i < H; i++ {
		pairs = append(pairs, [3]int64{int64(i), int64((i + H/2) % H), bytes})
	}
	return sendsText(H, pairs)
}

// TestBisectionOversubscribedEngine: a bisection pattern on a fat tree
// whose leaves have O times fewer up-links than hosts is O times slower
// than on the full tree, which d-mod-k routes without contention. Each
// rank's finishing time is its message's drain time plus the receive
// overhead o + (B-1)·G (the send's o is over long before), so both the
// transfer times and the finishing times minus that overhead must scale
// by O.
func TestBisectionOversubscribedEngine(t *testing.T) {
	const B = 1 << 20
	p := sim.DefaultParams()
	recvCost := int64(p.Overhead + (B-1)*max(p.GapPerByte, p.OverheadPerByte))
	for _, tc := range []struct {
		k, n, o int
		model   topology.Model
		routing topology.Routing
	}{
		{4, 3, 2, topology.Flow, topology.Static},
		{4, 3, 4, topology.Flow, topology.Static},
		{8, 3, 2, topology.Flow, topology.Static}, // 512 hosts
		{8, 3, 4, topology.Flow, topology.Static},
		{8, 3, 2, topology.Flow, topology.Adaptive},
		{4, 3, 2, topology.Simple, topology.Static},
		{4, 3, 4, topology.Simple, topology.Static},
		{8, 3, 2, topology.Simple, topology.Static},
		{8, 3, 4, topology.Simple, topology.Static},
	} {
		name := fmt.Sprintf("k=%d,n=%d,oversub=%d/%s/%v", tc.k, tc.n, tc.o, tc.model, tc.routing)
		t.Run(name, func(t *testing.T) {
			var drain, end [2]int64
			for i, o := range []int{1, tc.o} {
				g, err := topology.FatTree(tc.k, tc.n, o)
				if err != nil {
					t.Fatal(err)
				}
				H := g.NumHosts()
				s := readString(t, "bisection", bisectionText(H, B))
				net, err := topology.NewNetwork(g, mustLinear(t, g, H), topology.Options{Model: tc.model, Routing: tc.routing})
				if err != nil {
					t.Fatal(err)
				}
				d, res := transferTimes(t, s, p, net)
				for _, x := range d {
					drain[i] = max(drain[i], x)
				}
				end[i] = res.MaxTime - recvCost
			}
			if d := drain[0] - B; d < 0 || d > 2 {
				t.Errorf("full tree: longest transfer %d ns, want %d (no contention)", drain[0], B)
			}
			ratio, endRatio := float64(drain[1])/float64(drain[0]), float64(end[1])/float64(end[0])
			t.Logf("full %d ns, %d:1 oversubscribed %d ns: %.4fx (finish minus receive cost: %.4fx)", drain[0], tc.o, drain[1], ratio, endRatio)
			for _, r := range []float64{ratio, endRatio} {
				if math.Abs(r-float64(tc.o)) > 0.01*float64(tc.o) {
					t.Errorf("oversubscribed/full = %.4f, want %d", r, tc.o)
				}
			}
		})
	}
}

func mustLinear(t testing.TB, g *topology.Graph, ranks int) topology.Mapping {
	t.Helper()
	m, err := topology.Linear(g, ranks, 1)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// dotEdge matches an edge line of the dot files written for LogGOPSim:
// FROM -> TO [comment="..."], names optionally quoted.
var dotEdge = regexp.MustCompile(`^\s*"?([^"\s;]+)"?\s*->\s*"?([^"\s;]+)"?\s*\[comment="([^"]*)"\]`)

// commentRoutes is an independent reading of LogGOPSim's routing rule: at
// a node with a single out-edge take it; otherwise take the first
// out-edge, in file order, whose comment lists the destination. It
// returns the node path from src to dst, "" when the walk gets lost.
func commentRoutes(t *testing.T, path string) func(src, dst string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type edge struct {
		to    string
		dests map[string]bool
	}
	out := map[string][]edge{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := dotEdge.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		e := edge{to: m[2], dests: map[string]bool{}}
		for _, d := range strings.FieldsFunc(m[3], func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
			e.dests[d] = true
		}
		out[m[1]] = append(out[m[1]], e)
	}
	return func(src, dst string) string {
		path := []string{src}
		for v := src; v != dst; {
			if len(path) > 100 {
				return ""
			}
			es := out[v]
			next := ""
			if len(es) == 1 {
				next = es[0].to
			} else {
				for _, e := range es {
					if e.dests[dst] {
						next = e.to
						break
					}
				}
			}
			if next == "" {
				return ""
			}
			path = append(path, next)
			v = next
		}
		return strings.Join(path, "->")
	}
}

func routePath(g *topology.Graph, src, dst int32) string {
	names := []string{g.NodeName(g.HostNode(src))}
	for _, l := range g.Route(nil, src, dst) {
		_, to := g.Link(l)
		names = append(names, g.NodeName(to))
	}
	return strings.Join(names, "->")
}

// TestDotRoutesAsCommented loads the LogGOPSim-format networks of the
// tests and checks every host-to-host route against an independent walk
// of the edges' comments; testdata/network/detour.dot routes around a
// direct link, and the engine sees it: the detoured message shares a link
// with another and both slow down, while the same pair of hosts' direct
// neighbours do not.
func TestDotRoutesAsCommented(t *testing.T) {
	files := []string{filepath.Join(networkDir, "two-switch.dot"), "testdata/network/detour.dot"}
	more, _ := filepath.Glob(filepath.Join(networkDir, "simple", "*.dot"))
	for _, file := range append(files, more...) {
		t.Run(filepath.Base(file), func(t *testing.T) {
			g := readDot(t, file)
			walk := commentRoutes(t, file)
			for a := int32(0); a < int32(g.NumHosts()); a++ {
				for b := int32(0); b < int32(g.NumHosts()); b++ {
					want := walk(g.NodeName(g.HostNode(a)), g.NodeName(g.HostNode(b)))
					if got := routePath(g, a, b); got != want {
						t.Errorf("route %d->%d: %s, comments say %s", a, b, got, want)
					}
				}
			}
		})
	}

	g := readDot(t, "testdata/network/detour.dot")
	if g.NumHosts() != 5 || g.NumNodes() != 8 || g.NumLinks() != 16 {
		t.Fatalf("detour.dot: %d hosts, %d nodes, %d links; want 5, 8, 16", g.NumHosts(), g.NumNodes(), g.NumLinks())
	}
	for _, c := range []struct {
		src, dst int32
		want     string
	}{
		{0, 1, "H0->S0->S2->S1->H1"},
		{0, 2, "H0->S0->S1->H2"},
		{3, 2, "H3->S2->S1->H2"},
		{3, 1, "H3->S2->S1->H1"},
		{1, 0, "H1->S1->S0->H0"},
	} {
		if got := routePath(g, c.src, c.dst); got != c.want {
			t.Errorf("detour.dot: route %d->%d is %s, want %s", c.src, c.dst, got, c.want)
		}
	}
	const B = 1 << 20
	for _, tc := range []struct {
		name  string
		pairs [][3]int64
		want  int64
	}{
		{"0->1 detours over S2->S1, which 3->2 uses", [][3]int64{{0, 1, B}, {3, 2, B}}, 2 * B},
		{"0->2 goes direct: no link shared with 3->1", [][3]int64{{0, 2, B}, {3, 1, B}}, B},
	} {
		s := readString(t, tc.name, sendsText(5, tc.pairs))
		for _, model := range []topology.Model{topology.Simple, topology.Flow} {
			t.Run(tc.name+"/"+model.String(), func(t *testing.T) {
				got, _ := transferTimes(t, s, sim.DefaultParams(), newNetwork(t, g, 5, topology.Options{Model: model}))
				for i, d := range got {
					if d-tc.want < 0 || d-tc.want > 2 {
						t.Errorf("message %d took %d ns, want %d", i, d, tc.want)
					}
				}
			})
		}
	}
}

// patternProgram compiles the schedule `gopsim gen -p name -s ranks -d
// size` writes.
func patternProgram(tb testing.TB, name string, ranks int, size uint64) *sim.Program {
	tb.Helper()
	gen, err := pattern.New(name, pattern.Params{Ranks: ranks, Size: size})
	if err != nil {
		tb.Fatal(err)
	}
	s := goal.NewSchedule(gen.NumRanks())
	var x goal.Builder
	for r := 0; r < gen.NumRanks(); r++ {
		x.Reset(int32(r))
		gen.Rank(&x, r)
		if err := s.AppendRank(x.Block()); err != nil {
			tb.Fatal(err)
		}
	}
	p, err := sim.Compile(s)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// BenchmarkNetworkAlltoall: a 1,024-rank alltoall of 64 KiB messages
// (`gopsim gen -p mpi_alltoall -s 1024 -d 65536`: MPICH's pairwise
// exchange, 1,047,552 messages) on a 4,096-host fat tree
// (fattree:k=16,n=3) through the engine, under each congestion model.
// G = 0 makes the network, not the NIC, the bottleneck.
func BenchmarkNetworkAlltoall(b *testing.B) {
	p := patternProgram(b, "mpi_alltoall", 1024, 64<<10)
	for _, tc := range []struct {
		name    string
		model   topology.Model
		spec    string
		mapping string
		G       float64
	}{
		{"plain", topology.None, "", "", 6},
		{"none", topology.None, "fattree:k=16,n=3", "linear", 6},
		{"simple/linear", topology.Simple, "fattree:k=16,n=3", "linear", 6},
		{"flow/linear", topology.Flow, "fattree:k=16,n=3", "linear", 6},
		{"flow/linear/G=0", topology.Flow, "fattree:k=16,n=3", "linear", 0},
		{"flow/random/oversub=4/G=0", topology.Flow, "fattree:k=16,n=3,oversub=4", "random:seed=1", 0},
	} {
		b.Run(tc.name, func(b *testing.B) {
			params := sim.DefaultParams()
			params.GapPerByte = tc.G
			opt := sim.Options{Params: params}
			if tc.spec != "" {
				g, err := topology.Generate(tc.spec)
				if err != nil {
					b.Fatal(err)
				}
				ms, _ := topology.ParseMapping(tc.mapping)
				m, err := ms.Build(g, p.NumRanks)
				if err != nil {
					b.Fatal(err)
				}
				if opt.Network, err = topology.NewNetwork(g, m, topology.Options{Model: tc.model}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportAllocs()
			var res *sim.Result
			for b.Loop() {
				var err error
				if res, err = p.Run(opt); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(res.Events)*float64(b.N)/b.Elapsed().Seconds(), "events/s")
			b.ReportMetric(float64(res.MaxTime)/1e6, "sim-ms")
		})
	}
}

// BenchmarkNoneNetwork: the none model must cost nothing: the same
// schedules without Options.Network and with a topology.None network.
func BenchmarkNoneNetwork(b *testing.B) {
	for _, c := range []struct {
		name  string
		ranks int
		size  uint64
	}{{"dissemination", 65536, 1024}, {"mpi_alltoall", 256, 1024}} {
		p := patternProgram(b, c.name, c.ranks, c.size)
		g, err := topology.Generate("fattree:k=16,n=4") // 65,536 hosts
		if err != nil {
			b.Fatal(err)
		}
		net := newNetwork(b, g, p.NumRanks, topology.Options{Model: topology.None})
		for _, v := range []struct {
			name string
			net  *topology.Network
		}{{"plain", nil}, {"none", net}} {
			b.Run(fmt.Sprintf("%s/P=%d/%s", c.name, c.ranks, v.name), func(b *testing.B) {
				b.ReportAllocs()
				var events uint64
				for b.Loop() {
					res, err := p.Run(sim.Options{Params: sim.DefaultParams(), Network: v.net})
					if err != nil {
						b.Fatal(err)
					}
					events = res.Events
				}
				b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(events), "ns/event")
			})
		}
	}
}

// TestFlowWokenArrivalStartsSend (engine.wake lowers the head it gives
// topology.Network.Wake to each arrival it queues): a parked arrival woken at 1,000,000 ns
// releases a send at 1,001,500 while the next event in the queue is at
// 3,000,000 (rank 9's calc) and another flow drains at 2,000,000 in
// between. With G = 0 and no rendezvous (S above every size), by hand:
//
//	1 -> 0, 1 MB alone on its links: drains at 1,000,000; rank 0 receives
//	    [1,000,000, 1,001,500], then sends 0 -> 5 at 1,001,500;
//	8 -> 12, 2 MB on other links: drains at 2,000,000;
//	0 -> 5, 1 MB alone: drains at 2,001,500; rank 5 receives until 2,003,000.
//
// And on a 256-rank alltoall under Flow no link is busy longer than the
// run and no message crosses faster than its bytes at 1 byte/ns.
func TestFlowWokenArrivalStartsSend(t *testing.T) {
	body := map[int]string{
		0:  "r: recv 1000000b from 1 tag 0\ns: send 1000000b to 5 tag 1\ns requires r\n",
		1:  "send 1000000b to 0 tag 0\n",
		5:  "recv 1000000b from 0 tag 1\n",
		8:  "send 2000000b to 12 tag 2\n",
		12: "recv 2000000b from 8 tag 2\n",
		9:  "c: calc 3000000\ns: send 1b to 10 tag 3\ns requires c\n",
		10: "recv 1b from 9 tag 3\n",
	}
	var sb strings.Builder
	sb.WriteString("num_ranks 16\n")
	for r := 0; r < 16; r++ {
		fmt.Fprintf(&sb, "rank %d {\n%s}\n", r, body[r])
	}
	s := readString(t, "woken.goal", sb.String())
	g, err := topology.Generate("fattree:k=4,n=2")
	if err != nil {
		t.Fatal(err)
	}
	p := sim.DefaultParams()
	p.GapPerByte, p.EagerLimit = 0, 1<<30
	for _, q := range queues {
		res, err := sim.Run(s, sim.Options{Params: p, Queue: q.kind, Network: newNetwork(t, g, 16, topology.Options{Model: topology.Flow})})
		if err != nil {
			t.Fatal(err)
		}
		want := []int64{1003000, 1500, 0, 0, 0, 2003000, 0, 0, 1500, 3001500, 3005500, 0, 2001500, 0, 0, 0}
		if got := joinTimes(res.PerRank, ";"); got != joinTimes(want, ";") {
			t.Errorf("%s queue: per-rank times %s, want %s", q.name, got, joinTimes(want, ";"))
		}
	}

	prog := patternProgram(t, "mpi_alltoall", 256, 64<<10)
	g, err = topology.Generate("fattree:k=16,n=2,oversub=4")
	if err != nil {
		t.Fatal(err)
	}
	m, err := topology.Random(g, 256, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	net, err := topology.NewNetwork(g, m, topology.Options{Model: topology.Flow})
	if err != nil {
		t.Fatal(err)
	}
	res, err := prog.Run(sim.Options{Params: p, Network: net, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range net.LinkStats(res.MaxTime, nil) {
		if l.BusyNs > res.MaxTime {
			t.Fatalf("link %s busy %d ns in a run of %d ns", g.LinkName(l.Link), l.BusyNs, res.MaxTime)
		}
	}
	for i, r := range res.Record {
		if r.Delivered >= 0 && r.Delivered-r.Start < 64<<10 {
			t.Fatalf("op %d: 64 KiB delivered in %d ns", i, r.Delivered-r.Start)
		}
	}
}
