package topology_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/gopsim/gopsim/topology"
)

// checkRoute checks that route is a path of links from host src to host
// dst no longer than MaxHops.
func checkRoute(t *testing.T, g *topology.Graph, src, dst int32, route []int32) {
	t.Helper()
	v := g.HostNode(src)
	for i, l := range route {
		from, to := g.Link(l)
		if from != v {
			t.Fatalf("%s: route %d->%d: link %d (%s) leaves node %d, the route is at node %d", g, src, dst, i, g.LinkName(l), from, v)
		}
		v = to
	}
	if v != g.HostNode(dst) {
		t.Fatalf("%s: route %d->%d ends at node %s", g, src, dst, g.NodeName(v))
	}
	if len(route) > g.MaxHops() {
		t.Fatalf("%s: route %d->%d has %d links, MaxHops %d", g, src, dst, len(route), g.MaxHops())
	}
}

func mustGenerate(t testing.TB, spec string) *topology.Graph {
	t.Helper()
	g, err := topology.Generate(spec)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestGeneratorSizes(t *testing.T) {
	for _, tc := range []struct {
		spec                string
		hosts, nodes, links int
		maxHops             int
	}{
		// k^n hosts, n·k^(n-1) switches; links: 2 per host, 2·k per switch
		// pair of adjacent levels.
		{"fattree:k=4,n=3", 64, 64 + 48, 2*64 + 2*2*16*4, 6},
		{"fattree:k=4,n=3,oversub=2", 64, 64 + 16 + 2*8, 2*64 + 2*(16*2+8*4), 6},
		{"fattree:k=16,n=3", 4096, 4096 + 3*256, 2*4096 + 2*2*256*16, 6},
		{"fattree:k=8,n=1", 8, 9, 16, 2},
		{"torus:4x4", 16, 32, 32 + 16*4, 2 + 2 + 2},
		{"torus:8x8x8", 512, 1024, 1024 + 512*6, 2 + 12},
		{"torus:2x3,p=2", 12, 18, 24 + 6*(1+2), 2 + 1 + 1},
		{"torus:5", 5, 10, 10 + 10, 2 + 2},
		{"dragonfly:a=4,p=2,h=2,g=9", 72, 72 + 36, 144 + 36*3 + 9*8, 5},
		{"dragonfly:a=4,p=2,h=2", 72, 72 + 36, 144 + 36*3 + 9*8, 5},
		{"dragonfly:a=2,p=1,h=2,g=3", 6, 12, 12 + 6 + 3*4, 5},
		{"dragonfly:a=3,p=1,h=1,g=1", 3, 6, 6 + 6, 5},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			g := mustGenerate(t, tc.spec)
			if g.NumHosts() != tc.hosts || g.NumNodes() != tc.nodes || g.NumLinks() != tc.links || g.MaxHops() != tc.maxHops {
				t.Errorf("hosts %d nodes %d links %d maxHops %d, want %d %d %d %d",
					g.NumHosts(), g.NumNodes(), g.NumLinks(), g.MaxHops(), tc.hosts, tc.nodes, tc.links, tc.maxHops)
			}
			if g.String() != tc.spec && tc.spec != "dragonfly:a=4,p=2,h=2" {
				t.Errorf("String() = %q", g.String())
			}
			// Every out-link list is consistent with the link table.
			n := 0
			for v := int32(0); v < int32(g.NumNodes()); v++ {
				for _, l := range g.OutLinks(v) {
					if from, _ := g.Link(l); from != v {
						t.Fatalf("link %d listed at node %d leaves %d", l, v, from)
					}
					n++
				}
			}
			if n != g.NumLinks() {
				t.Errorf("%d out-links listed, %d links", n, g.NumLinks())
			}
		})
	}
}

// torusDist is the minimal number of router hops between routers a and b.
func torusDist(dims []int, a, b int) int {
	d := 0
	for _, size := range dims {
		off := (b%size - a%size + size) % size
		d += min(off, size-off)
		a, b = a/size, b/size
	}
	return d
}

// TestRoutes checks every static route, and adaptive routes under random
// loads, on small instances of every generator: valid paths of the
// expected (minimal) length.
func TestRoutes(t *testing.T) {
	for _, tc := range []struct {
		spec string
		want func(src, dst int) int // expected length, -1 to skip
	}{
		{"fattree:4,3", nil},
		{"fattree:k=4,n=3", func(s, d int) int {
			if s == d {
				return 0
			}
			m, k := 0, 4
			for s/k != d/k {
				m++
				k *= 4
			}
			return 2 * (m + 1)
		}},
		{"fattree:k=4,n=3,oversub=4", nil},
		{"fattree:k=6,n=2,oversub=3", nil},
		{"torus:5x4", func(s, d int) int {
			if s == d {
				return 0
			}
			return 2 + torusDist([]int{5, 4}, s, d)
		}},
		{"torus:3x2x4", func(s, d int) int {
			if s == d {
				return 0
			}
			return 2 + torusDist([]int{3, 2, 4}, s, d)
		}},
		{"torus:4x4,p=2", func(s, d int) int {
			if s == d {
				return 0
			}
			return 2 + torusDist([]int{4, 4}, s/2, d/2)
		}},
		{"dragonfly:a=4,p=2,h=2,g=9", nil},
		{"dragonfly:a=3,p=2,h=2,g=4", nil},
		{"dragonfly:a=2,p=1,h=3,g=5", nil},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			g, err := topology.Generate(tc.spec)
			if tc.spec == "fattree:4,3" {
				if err == nil {
					t.Fatal("fattree:4,3 accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			rng := rand.New(rand.NewPCG(1, 2))
			load := make([]int32, g.NumLinks())
			for i := range load {
				load[i] = int32(rng.IntN(4))
			}
			var buf []int32
			H := g.NumHosts()
			for s := 0; s < H; s++ {
				for d := 0; d < H; d++ {
					buf = g.Route(buf[:0], int32(s), int32(d))
					checkRoute(t, g, int32(s), int32(d), buf)
					if tc.want != nil && len(buf) != tc.want(s, d) {
						t.Fatalf("route %d->%d has %d links, want %d", s, d, len(buf), tc.want(s, d))
					}
					static := len(buf)
					buf = g.RouteAdaptive(buf[:0], int32(s), int32(d), load)
					checkRoute(t, g, int32(s), int32(d), buf)
					if tc.want != nil && len(buf) != static {
						t.Fatalf("adaptive route %d->%d has %d links, static %d", s, d, len(buf), static)
					}
				}
			}
		})
	}
}

// TestFatTreeDModK checks d-mod-k on the way up and that the way down
// from the top is the same for every source (destination-based routing).
func TestFatTreeDModK(t *testing.T) {
	for _, spec := range []string{"fattree:k=4,n=3", "fattree:k=4,n=3,oversub=2"} {
		g := mustGenerate(t, spec)
		ups := 4
		if spec != "fattree:k=4,n=3" {
			ups = 2
		}
		for d := int32(0); d < 64; d++ {
			var top int32 = -1
			for s := int32(0); s < 64; s++ {
				if s/16 == d/16 {
					continue
				}
				r := g.Route(nil, s, d)
				// r[1] is the leaf's up-link: its ports are the 4 host
				// links, then the up-links; d-mod-k takes (d mod 4) mod ups.
				if p, want := portOf(g, r[1]), 4+int(d%4)%ups; p != want {
					t.Fatalf("%s: %d->%d leaves its leaf by port %d, want %d", spec, s, d, p, want)
				}
				_, peak := g.Link(r[2])
				if top >= 0 && peak != top {
					t.Fatalf("%s: routes to %d cross top switches %s and %s", spec, d, g.NodeName(top), g.NodeName(peak))
				}
				top = peak
			}
		}
	}
}

func TestAdaptivePicksLeastLoaded(t *testing.T) {
	g := mustGenerate(t, "fattree:k=4,n=2")
	load := make([]int32, g.NumLinks())
	static := g.Route(nil, 0, 15)
	if got := g.RouteAdaptive(nil, 0, 15, load); !equal(got, static) {
		t.Fatalf("no load: adaptive %v, static %v", got, static)
	}
	// Load the static up-link: the first other up-port (port 4 of the
	// leaf: its down-ports come first) is taken.
	load[static[1]] = 3
	got := g.RouteAdaptive(nil, 0, 15, load)
	leaf, _ := g.Link(static[1])
	if got[1] != g.OutLinks(leaf)[4] {
		t.Fatalf("loaded static up-link %s: adaptive took %s, want %s", g.LinkName(static[1]), g.LinkName(got[1]), g.LinkName(g.OutLinks(leaf)[4]))
	}
	// Equal loads elsewhere: ties go to the static choice.
	for _, l := range g.OutLinks(leaf) {
		load[l] = 3
	}
	if got := g.RouteAdaptive(nil, 0, 15, load); got[1] != static[1] {
		t.Fatalf("all equal: adaptive took %s, want the static %s", g.LinkName(got[1]), g.LinkName(static[1]))
	}
}

// portOf returns the index of link l among its source node's out-links.
func portOf(g *topology.Graph, l int32) int {
	from, _ := g.Link(l)
	for i, o := range g.OutLinks(from) {
		if o == l {
			return i
		}
	}
	return -1
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestWriteDotRoundTrip writes generated graphs in LogGOPSim's format and
// reads them back: every static route crosses the same nodes.
func TestWriteDotRoundTrip(t *testing.T) {
	for _, spec := range []string{
		"fattree:k=4,n=2", "fattree:k=4,n=3,oversub=2", "torus:3x4", "torus:4x2x3,p=2",
		"dragonfly:a=2,p=2,h=1,g=3", "dragonfly:a=3,p=1,h=2,g=5",
	} {
		t.Run(spec, func(t *testing.T) {
			g := mustGenerate(t, spec)
			var b bytes.Buffer
			if err := topology.WriteDot(&b, g); err != nil {
				t.Fatal(err)
			}
			d, err := topology.ReadDot(spec+".dot", &b)
			if err != nil {
				t.Fatal(err)
			}
			if d.NumHosts() != g.NumHosts() || d.NumNodes() != g.NumNodes() || d.NumLinks() != g.NumLinks() {
				t.Fatalf("read back %d hosts %d nodes %d links, want %d %d %d", d.NumHosts(), d.NumNodes(), d.NumLinks(), g.NumHosts(), g.NumNodes(), g.NumLinks())
			}
			for s := int32(0); s < int32(g.NumHosts()); s++ {
				for dst := int32(0); dst < int32(g.NumHosts()); dst++ {
					a, b := g.Route(nil, s, dst), d.Route(nil, s, dst)
					if len(a) != len(b) {
						t.Fatalf("%d->%d: %d links generated, %d read", s, dst, len(a), len(b))
					}
					for i := range a {
						_, x := g.Link(a[i])
						_, y := d.Link(b[i])
						if g.NodeName(x) != d.NodeName(y) {
							t.Fatalf("%d->%d hop %d: %s generated, %s read", s, dst, i, g.NodeName(x), d.NodeName(y))
						}
					}
				}
			}
		})
	}
}

func TestGeneratorErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func() (*topology.Graph, error)
	}{
		{"fattree k=0", func() (*topology.Graph, error) { return topology.FatTree(0, 2, 1) }},
		{"fattree oversub not dividing", func() (*topology.Graph, error) { return topology.FatTree(4, 2, 3) }},
		{"fattree too large", func() (*topology.Graph, error) { return topology.FatTree(64, 5, 1) }},
		{"torus 4 dims", func() (*topology.Graph, error) { return topology.Torus([]int{2, 2, 2, 2}, 1) }},
		{"torus size 0", func() (*topology.Graph, error) { return topology.Torus([]int{4, 0}, 1) }},
		{"torus p=0", func() (*topology.Graph, error) { return topology.Torus([]int{4}, 0) }},
		{"dragonfly too many groups", func() (*topology.Graph, error) { return topology.Dragonfly(2, 1, 1, 4) }},
		{"dragonfly a=0", func() (*topology.Graph, error) { return topology.Dragonfly(0, 1, 1, 1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.f(); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}
