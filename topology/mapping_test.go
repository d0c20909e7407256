package topology_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/topology"
)

func TestMappings(t *testing.T) {
	g := mustGenerate(t, "fattree:k=4,n=2") // 16 hosts, 4 leaves
	for _, tc := range []struct {
		spec  string
		ranks int
		want  topology.Mapping
	}{
		{"linear", 6, topology.Mapping{0, 1, 2, 3, 4, 5}},
		{"", 3, topology.Mapping{0, 1, 2}},
		{"linear:ppn=2", 6, topology.Mapping{0, 0, 1, 1, 2, 2}},
		{"roundrobin", 6, topology.Mapping{0, 4, 8, 12, 1, 5}},
		{"rr:ppn=2", 10, topology.Mapping{0, 4, 8, 12, 0, 4, 8, 12, 1, 5}},
		{"roundrobin", 16, topology.Mapping{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15}},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			ms, err := topology.ParseMapping(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			m, err := ms.Build(g, tc.ranks)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(m, tc.want) {
				t.Fatalf("%v, want %v", m, tc.want)
			}
		})
	}
}

func TestRandomMapping(t *testing.T) {
	g := mustGenerate(t, "torus:8x8")
	a, err := topology.Random(g, 64, 1, 42)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := topology.Random(g, 64, 1, 42)
	c, _ := topology.Random(g, 64, 1, 43)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different mappings")
	}
	if reflect.DeepEqual(a, c) {
		t.Fatal("seeds 42 and 43 give the same mapping")
	}
	seen := map[int32]bool{}
	for _, h := range a {
		if seen[h] {
			t.Fatalf("host %d used twice: %v", h, a)
		}
		seen[h] = true
	}
	// The generator is gopsim's own: these values must never change.
	if got := a[:8]; !reflect.DeepEqual(got, topology.Mapping{21, 20, 56, 51, 14, 1, 47, 42}) {
		t.Fatalf("seed 42 starts %v", got)
	}
	// ppn: each host at most ppn ranks.
	m, _ := topology.Random(g, 128, 2, 7)
	count := map[int32]int{}
	for _, h := range m {
		count[h]++
	}
	for h, n := range count {
		if n > 2 {
			t.Fatalf("host %d has %d ranks", h, n)
		}
	}
	if _, err := topology.Random(g, 129, 2, 7); err == nil {
		t.Fatal("129 ranks on 64 hosts x 2 accepted")
	}
}

func TestReadMapping(t *testing.T) {
	g := mustGenerate(t, "torus:4x4")
	m, err := topology.ReadMapping("map.txt", strings.NewReader("# rank -> host\n3\n  7 # rank 1\n\n0\r\n15\n"), g, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m, topology.Mapping{3, 7, 0, 15}) {
		t.Fatalf("%v", m)
	}
	for _, tc := range []struct{ src, want string }{
		{"1\n2\nx\n", "map.txt:3:1: host \"x\" for rank 2"},
		{"1\n  16\n", "map.txt:2:3: host \"16\" for rank 1: want an integer from 0 to 15"},
		{"1\n-1\n", "map.txt:2:1: host \"-1\""},
		{"1 2\n", "map.txt:1:1: \"1 2\": one host index per line"},
		{"1\n2\n", "map.txt:3:1: 2 ranks listed, want 4"},
		{"1\n2\n3\n4\n5\n", "map.txt:5:1: more than 4 ranks"},
	} {
		_, err := topology.ReadMapping("map.txt", strings.NewReader(tc.src), g, 4)
		if err == nil || !errors.Is(err, topology.ErrSyntax) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want prefix %q", tc.src, err, tc.want)
		}
	}
}

func TestParseMapping(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want topology.MappingSpec
		err  string
	}{
		{"random", topology.MappingSpec{Kind: "random", PPN: 1, Seed: 1}, ""},
		{"random:seed=9,ppn=4", topology.MappingSpec{Kind: "random", PPN: 4, Seed: 9}, ""},
		{"file:/tmp/x.map", topology.MappingSpec{Kind: "file", Path: "/tmp/x.map"}, ""},
		{"linear:ppn=0", topology.MappingSpec{}, "--mapping:1:12: ppn must be at least 1"},
		{"linear:seed=3", topology.MappingSpec{}, "--mapping:1:8: unknown parameter \"seed\" for linear"},
		{"block", topology.MappingSpec{}, "--mapping:1:1: unknown mapping \"block\""},
		{"file:", topology.MappingSpec{}, "--mapping:1:6: file: needs a path"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := topology.ParseMapping(tc.in)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("%+v %v, want %+v", got, err, tc.want)
			}
			if back, err := topology.ParseMapping(got.String()); err != nil || back != got {
				t.Fatalf("String() %q parses to %+v %v", got.String(), back, err)
			}
		})
	}
}
