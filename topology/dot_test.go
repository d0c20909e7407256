package topology_test

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/topology"
)

// routeNames returns a route as "A->B->C" node names.
func routeNames(g *topology.Graph, src, dst int32, route []int32) string {
	names := []string{g.NodeName(g.HostNode(src))}
	for _, l := range route {
		_, to := g.Link(l)
		names = append(names, g.NodeName(to))
	}
	return strings.Join(names, "->")
}

// TestTwoSwitchDot loads LogGOPSim's conformance network and checks that
// every route follows the comments.
func TestTwoSwitchDot(t *testing.T) {
	g, err := topology.ReadDotFile(filepath.Join(conformanceDir, "two-switch.dot"))
	if err != nil {
		t.Fatal(err)
	}
	if g.NumHosts() != 4 || g.NumNodes() != 6 || g.NumLinks() != 10 {
		t.Fatalf("%d hosts, %d nodes, %d links; want 4, 6, 10", g.NumHosts(), g.NumNodes(), g.NumLinks())
	}
	for h := int32(0); h < 4; h++ {
		if name := g.NodeName(g.HostNode(h)); name != "H"+string('0'+rune(h)) {
			t.Errorf("host %d is %s", h, name)
		}
	}
	// LogGOPSim's link numbering: node by node (H0 H1 H2 H3 S0 S1 in order
	// of appearance... S0 appears with H0's edge), out-edges in file order.
	wantLinks := []string{"H0->S0", "S0->S1", "S0->H0", "S0->H1", "H1->S0", "H2->S1", "S1->S0", "S1->H2", "S1->H3", "H3->S1"}
	for l, want := range wantLinks {
		if got := g.LinkName(int32(l)); got != want {
			t.Errorf("link %d is %s, want %s", l, got, want)
		}
	}
	want := map[[2]int32]string{
		{0, 1}: "H0->S0->H1",
		{0, 2}: "H0->S0->S1->H2",
		{0, 3}: "H0->S0->S1->H3",
		{1, 2}: "H1->S0->S1->H2",
		{2, 0}: "H2->S1->S0->H0",
		{3, 1}: "H3->S1->S0->H1",
		{2, 3}: "H2->S1->H3",
		{1, 1}: "H1",
	}
	for k, w := range want {
		if got := routeNames(g, k[0], k[1], g.Route(nil, k[0], k[1])); got != w {
			t.Errorf("route %d->%d: %s, want %s", k[0], k[1], got, w)
		}
	}
}

// TestReadDot covers the dot subset: each case gives the hosts in order
// and some routes.
func TestReadDot(t *testing.T) {
	for _, tc := range []struct {
		name   string
		src    string
		hosts  string            // host names in host order
		links  int               // number of links
		routes map[string]string // "src>dst" host indices -> node path
	}{
		{
			name:  "edge chain, quoted names, comments, defaults",
			src:   "/* net */ strict digraph \"x\" {\n# cpp line\n node [shape=box]; edge [comment=\"*\"]\n \"Ha\" -> sw -> \"Hb\"; // chain\n sw -> Ha [comment=\"Ha\"] ; sw -> Hb [comment=Hb]\n Hb -> sw\n Ha -> sw [color=red]\n}\n",
			hosts: "Ha Hb",
			links: 4,
			routes: map[string]string{
				"0>1": "Ha->sw->Hb",
				"1>0": "Hb->sw->Ha",
			},
		},
		{
			name:  "hosts in order of first appearance, switches between",
			src:   "digraph{ s1; H9; s2; H1 -> s1 H9 -> s1 s1 -> H1 [comment=\"H1\"] s1 -> H9 [comment=\"H9\"]}",
			hosts: "H9 H1",
			links: 4,
			routes: map[string]string{
				"0>1": "H9->s1->H1",
				"1>0": "H1->s1->H9",
			},
		},
		{
			name:  "a destination on two edges: the first is static",
			src:   "digraph {H0->A H1->B A->B [comment=\"H1\"] A->C [comment=\"H1\"] C->B [comment=\"*\"] B->H1 [comment=\"H1\"] B->A [comment=\"H0\"] A->H0 [comment=\"H0\"]}",
			hosts: "H0 H1",
			links: 8,
			routes: map[string]string{
				"0>1": "H0->A->B->H1",
				"1>0": "H1->B->A->H0",
			},
		},
		{
			name:  "plain digraph keeps parallel edges, strict merges them",
			src:   "digraph {H0->S [comment=\"*\"] H0->S S->H0 [comment=\"H0\"] S->H1 [comment=\"H1\"] H1->S}",
			hosts: "H0 H1",
			links: 4, // strict: the two H0->S edges are one link
			routes: map[string]string{
				"0>1": "H0->S->H1",
			},
		},
		{
			name:  "quoted strings, numerals and HTML ids, attribute separators",
			src:   "digraph g { graph [rankdir=LR]; a = b; \"H0\" -> 42 [comment=\"*\"; weight=1.5]; 42 -> H0 [comment=<H0>]; 42 -> H1 [comment=\"H\\\n1\"]; H1 -> 42 }",
			hosts: "H0 H1",
			links: 4,
			routes: map[string]string{
				"0>1": "H0->42->H1",
				"1>0": "H1->42->H0",
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, err := topology.ReadDot("test.dot", strings.NewReader(tc.src))
			if tc.name == "plain digraph keeps parallel edges, strict merges them" {
				// H0 has two out-edges and no routes: an error.
				if err == nil || !strings.Contains(err.Error(), "none whose comment lists H1") {
					t.Fatalf("err = %v", err)
				}
				g, err = topology.ReadDot("test.dot", strings.NewReader("strict "+tc.src))
			}
			if err != nil {
				t.Fatal(err)
			}
			var hosts []string
			for h := int32(0); h < int32(g.NumHosts()); h++ {
				hosts = append(hosts, g.NodeName(g.HostNode(h)))
			}
			if strings.Join(hosts, " ") != tc.hosts {
				t.Errorf("hosts %q, want %q", strings.Join(hosts, " "), tc.hosts)
			}
			if g.NumLinks() != tc.links {
				t.Errorf("%d links, want %d", g.NumLinks(), tc.links)
			}
			for k, want := range tc.routes {
				var s, d int32
				s, d = int32(k[0]-'0'), int32(k[2]-'0')
				if got := routeNames(g, s, d, g.Route(nil, s, d)); got != want {
					t.Errorf("route %s: %s, want %s", k, got, want)
				}
			}
		})
	}
}

// TestDotAdaptive: a destination listed on several out-edges is a choice
// for adaptive routing.
func TestDotAdaptive(t *testing.T) {
	src := `digraph {
  H0 -> A; H1 -> B
  A -> B [comment="H1"]
  A -> C [comment="H1"]
  C -> B [comment="*"]
  B -> H1 [comment="H1"]
  B -> A [comment="H0"]
  A -> H0 [comment="H0"]
}`
	g, err := topology.ReadDot("a.dot", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	load := make([]int32, g.NumLinks())
	if got := routeNames(g, 0, 1, g.RouteAdaptive(nil, 0, 1, load)); got != "H0->A->B->H1" {
		t.Fatalf("unloaded: %s", got)
	}
	static := g.Route(nil, 0, 1)
	load[static[1]] = 1
	if got := routeNames(g, 0, 1, g.RouteAdaptive(nil, 0, 1, load)); got != "H0->A->C->B->H1" {
		t.Fatalf("A->B loaded: %s", got)
	}
	if g.MaxHops() != 4 {
		t.Errorf("MaxHops %d, want 4", g.MaxHops())
	}
}

func TestReadDotErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"empty", "", "x.dot:1:1: expected one of strict, graph or digraph; got: end of file"},
		{"undirected graph", "graph { a -- b }", "x.dot:1:1: undirected graph"},
		{"missing brace", "digraph G\n a -> b }", "x.dot:2:2: expected \"{\"; got: \"a\""},
		{"unclosed", "digraph {\n H0 -> S", "x.dot:2:9: expected one of \"{\", \"}\", graph, \";\", \"--\", \"->\", node, edge, \"[\", subgraph, \":\", or id; got: end of file"},
		{"unclosed after a comment", "digraph {\n H0 -> S // x", "x.dot:2:14: expected one of"},
		{"tab columns", "digraph {\n\t\ta -> -> b }", "x.dot:2:8: expected one of"},
		{"undirected edge", "digraph {\n  a -- b\n}", "x.dot:2:5: '--' in a digraph"},
		{"subgraph", "digraph { subgraph s { a } }", "x.dot:1:11: subgraphs are not supported"},
		{"anonymous subgraph", "digraph { a -> { b c } }", "x.dot:1:16: subgraphs are not supported"},
		{"port", "digraph { a:p -> b }", "x.dot:1:12: node ports are not supported"},
		{"unclosed string", "digraph { \"a -> b }", "x.dot:1:11: string not closed"},
		{"unclosed comment", "digraph { /* a -> b }", "x.dot:1:11: comment not closed"},
		{"bad char", "digraph { a -> b @ }", "x.dot:1:18: expected one of \"{\", \"}\", graph, \";\", \"--\", \"->\", node, edge, \"[\", subgraph, \":\", or id; got: unknown/invalid token \"@\""},
		{"concatenation", "digraph { \"H\" + \"0\" }", "x.dot:1:15: '+' (string concatenation) is not supported"},
		{"chain too long", "digraph { a" + strings.Repeat(" -> a", 100_001) + " }", "x.dot:1:500013: more than 100000 edges in one statement"},
		{"unclosed HTML", "digraph {\n a -> <b<c> }", "x.dot:2:7: HTML string not closed"},
		{"attr without value", "digraph { a -> b [comment] }", "x.dot:1:26: expected \"=\"; got: \"]\""},
		{"number then letters", "digraph { 12ab }", "x.dot:1:13: letter after the number"},
		{"trailing graph", "digraph { } digraph { }", "x.dot:1:13: unexpected \"digraph\" after the graph"},
		{"long token after the graph", "digraph { } \"" + strings.Repeat("x", 5000) + "\"", "x.dot:1:13: unexpected \"" + strings.Repeat("x", 40) + "…\" (5000 bytes) after the graph"},
		{"unknown node in comment", "digraph {\n H0 -> S [comment=\"*\"]\n S -> H0 [comment=\"H0\"]\n S -> H1 [comment=\"H1, H7\"]\n H1 -> S\n}", "x.dot:4:19: comment names \"H7\""},
		{"no route", "digraph {\n H0 -> S\n H1 -> S\n S -> H0 [comment=\"H0\"]\n S -> H1 [comment=\"S\"]\n}", "x.dot:2:8: node S has 2 out-edges and none whose comment lists H1 (needed by the route from H0)"},
		{"dead end", "digraph {\n H0 -> S\n S -> H1\n H1 -> T\n}", "x.dot:4:8: node T has no out-edge, needed by the route from H1 to H0"},
		{"host without edge", "digraph {\n H0 -> S\n H1\n}", "x.dot:3:2: node H1 has no out-edge, needed by the route from H1 to H0"},
		{"loop", "digraph {\n H0 -> A\n A -> B [comment=\"*\"]\n B -> A\n H1 -> A\n}", "x.dot:2:8: routing loop towards H0 through node A (from H1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := topology.ReadDot("x.dot", strings.NewReader(tc.src))
			if err == nil {
				t.Fatal("accepted")
			}
			var se *topology.SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, topology.ErrSyntax) {
				t.Fatalf("%T %v: not a SyntaxError", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %q\nwant prefix %q", err, tc.want)
			}
		})
	}
}
