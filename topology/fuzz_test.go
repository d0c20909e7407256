package topology_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/topology"
)

// maxFuzzDot bounds the dot inputs FuzzReadDot looks at (the route check
// is quadratic in hosts).
const maxFuzzDot = 16 << 10

// FuzzReadDot checks that ReadDot never panics, that every error is a
// *SyntaxError with a position inside the input, and that an accepted
// graph routes every pair of hosts (static and adaptive) along valid
// paths no longer than MaxHops, and survives WriteDot and ReadDot with
// the same routes.
func FuzzReadDot(f *testing.F) {
	for _, seed := range []string{
		"digraph{}",
		"digraph { H0 -> S [comment=\"*\"]; S -> H0 [comment=\"H0\"]; S -> H1 [comment=\"H1\"]; H1 -> S }",
		"strict digraph x { edge [comment=\"*\"] Ha -> s -> Hb; s -> Ha [comment=Ha]; s -> Hb [comment=Hb]; Hb -> s }",
		"digraph { \"H\" + \"0\" -> 1 -> H1 [comment=<*>]; H1 -> 1; 1 -> H0 [comment=\"H0\"] }",
		"/* c */ digraph { # not at line start\n}",
		"digraph {\n# cpp\n a = b; graph [x=y] node [shape=box] H0 }",
		"digraph { H0 -> A; A -> B [comment=\"*\"]; B -> A; H1 -> A }",
		"digraph { a -- b }",
		"digraph { a:p -> b }",
		"digraph { subgraph { a } }",
		"digraph { \"unterminated }",
		"digraph { -1.5 -> .5 -> 12 }",
		"\xff\xfe digraph",
	} {
		f.Add([]byte(seed))
	}
	addFiles(f, filepath.Join(conformanceDir, "*.dot"), filepath.Join("testdata", "*.dot"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzDot {
			return
		}
		g, err := topology.ReadDot("f.dot", bytes.NewReader(data))
		if err != nil {
			var se *topology.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%T %v: not a SyntaxError", err, err)
			}
			lines := bytes.Count(data, []byte("\n")) + 1
			if se.File != "f.dot" || se.Line < 1 || se.Line > lines || se.Col < 1 || se.Col > len(data)+1 {
				t.Fatalf("error position out of the input: %v", err)
			}
			return
		}
		H := g.NumHosts()
		if H > 40 {
			H = 40
		}
		load := make([]int32, g.NumLinks())
		for i := range load {
			load[i] = int32(i % 3)
		}
		for s := int32(0); s < int32(H); s++ {
			for d := int32(0); d < int32(H); d++ {
				checkRoute(t, g, s, d, g.Route(nil, s, d))
				checkRoute(t, g, s, d, g.RouteAdaptive(nil, s, d, load))
			}
		}
		// Names with quotes, backslashes or newlines do not survive
		// WriteDot's quoting; the rest must round-trip.
		for v := int32(0); v < int32(g.NumNodes()); v++ {
			if strings.ContainsAny(g.NodeName(v), "\"\\\n\r,\t ") {
				return
			}
		}
		var b bytes.Buffer
		if err := topology.WriteDot(&b, g); err != nil {
			t.Fatal(err)
		}
		g2, err := topology.ReadDot("again.dot", &b)
		if err != nil {
			t.Fatalf("WriteDot output does not read back: %v\n%s", err, b.String())
		}
		for s := int32(0); s < int32(H); s++ {
			for d := int32(0); d < int32(H); d++ {
				if a, b := routeNames(g, s, d, g.Route(nil, s, d)), routeNames(g2, s, d, g2.Route(nil, s, d)); a != b {
					t.Fatalf("route %d->%d: %s, after WriteDot %s", s, d, a, b)
				}
			}
		}
	})
}

// addFiles adds the files matching the patterns to the seed corpus.
func addFiles(f *testing.F, patterns ...string) {
	for _, p := range patterns {
		names, _ := filepath.Glob(p)
		for _, name := range names {
			data, err := os.ReadFile(name)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
}

// FuzzParseSpec checks that ParseSpec never panics, reports columns inside
// the spec, and that an accepted spec's String parses back to it; small
// accepted specs must build (or fail with ErrTopology) and route.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"fattree:k=4,n=3", "fattree:k=4,n=3,oversub=2", "torus:8x8x8", "torus:dims=4x4,p=2",
		"dragonfly:a=4,p=2,h=2,g=9", "dragonfly:a=2,p=1,h=1", "torus:", "fattree:k=,n=", ":", "torus:1x1x1x1", "x:y=z,w"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := topology.ParseSpec(s)
		if err != nil {
			var se *topology.SyntaxError
			if !errors.As(err, &se) || se.Line != 1 || se.Col < 1 || se.Col > len(s)+1 {
				t.Fatalf("%q: bad error %v", s, err)
			}
			return
		}
		back, err := topology.ParseSpec(sp.String())
		if err != nil || !reflect.DeepEqual(back, sp) {
			t.Fatalf("%q -> %q -> %+v, %v", s, sp.String(), back, err)
		}
		// Build only small ones.
		size := 1
		switch sp.Kind {
		case "fattree":
			for i := 0; i < sp.N && size <= 256; i++ {
				size *= max(sp.K, 1)
			}
		case "torus":
			for _, d := range sp.Dims {
				size *= d
				if size > 256 {
					break
				}
			}
			size *= max(sp.P, 1)
		case "dragonfly":
			size = sp.A * sp.P * max(sp.G, 1)
		}
		if size > 256 || sp.K > 64 || sp.H > 64 || sp.A > 64 {
			return
		}
		g, err := sp.Build()
		if err != nil {
			if !errors.Is(err, topology.ErrTopology) {
				t.Fatalf("%q: Build: %v", s, err)
			}
			return
		}
		H := int32(min(g.NumHosts(), 24))
		for a := int32(0); a < H; a++ {
			for b := int32(0); b < H; b++ {
				checkRoute(t, g, a, b, g.Route(nil, a, b))
			}
		}
	})
}

// FuzzReadMapping checks that ReadMapping never panics and either returns
// exactly the ranks asked for, all on existing hosts, or a SyntaxError
// with a line inside the input.
func FuzzReadMapping(f *testing.F) {
	for _, s := range []string{"0\n1\n2\n3\n", "# c\n3 # x\n\n2\n1\r\n0", "1 2\n", "x\n", "99999999999\n", "-1\n", "0\n0\n0\n0\n0\n"} {
		f.Add(s, 4)
	}
	g, err := topology.Generate("torus:4x4")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string, ranks int) {
		if ranks < 0 || ranks > 64 {
			return
		}
		m, err := topology.ReadMapping("m.txt", strings.NewReader(s), g, ranks)
		if err != nil {
			var se *topology.SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Line > strings.Count(s, "\n")+2 {
				t.Fatalf("bad error %v", err)
			}
			return
		}
		if len(m) != ranks || m.Check(g) != nil {
			t.Fatalf("%d ranks, Check: %v", len(m), m.Check(g))
		}
	})
}

// FuzzParseMapping checks that ParseMapping never panics and that String
// parses back to the same spec.
func FuzzParseMapping(f *testing.F) {
	for _, s := range []string{"linear", "roundrobin:ppn=4", "rr", "random:seed=3,ppn=2", "file:x.map", "random:seed=-1", "linear:ppn"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := topology.ParseMapping(s)
		if err != nil {
			if !errors.Is(err, topology.ErrSyntax) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		back, err := topology.ParseMapping(m.String())
		if err != nil || back != m {
			t.Fatalf("%q -> %q -> %+v, %v", s, m.String(), back, err)
		}
	})
}
