package topology_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/topology"
)

func TestParseSpec(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want topology.Spec
		str  string
	}{
		{"fattree:k=4,n=3", topology.Spec{Kind: "fattree", K: 4, N: 3, Oversub: 1}, "fattree:k=4,n=3"},
		{"fattree:k=4,n=3,oversub=2", topology.Spec{Kind: "fattree", K: 4, N: 3, Oversub: 2}, "fattree:k=4,n=3,oversub=2"},
		{"FatTree:N=3,K=4,oversub=1", topology.Spec{Kind: "fattree", K: 4, N: 3, Oversub: 1}, "fattree:k=4,n=3"},
		{"torus:8x8x8", topology.Spec{Kind: "torus", Dims: []int{8, 8, 8}, P: 1}, "torus:8x8x8"},
		{"torus:dims=4X6,p=2", topology.Spec{Kind: "torus", Dims: []int{4, 6}, P: 2}, "torus:4x6,p=2"},
		{"torus:16", topology.Spec{Kind: "torus", Dims: []int{16}, P: 1}, "torus:16"},
		{"dragonfly:a=4,p=2,h=2,g=9", topology.Spec{Kind: "dragonfly", A: 4, P: 2, H: 2, G: 9}, "dragonfly:a=4,p=2,h=2,g=9"},
		{"dragonfly:h=2,a=4,p=2", topology.Spec{Kind: "dragonfly", A: 4, P: 2, H: 2, G: 9}, "dragonfly:a=4,p=2,h=2,g=9"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := topology.ParseSpec(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
			if got.String() != tc.str {
				t.Fatalf("String() = %q, want %q", got.String(), tc.str)
			}
			back, err := topology.ParseSpec(got.String())
			if err != nil || !reflect.DeepEqual(back, got) {
				t.Fatalf("String() parses back to %+v, %v", back, err)
			}
		})
	}
}

func TestParseSpecErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "--topology:1:1: missing kind"},
		{"mesh:4x4", "--topology:1:1: unknown topology \"mesh\""},
		{"fattree:k=4", "--topology:1:12: fattree needs k, n"},
		{"fattree:k=4,n=3,x=1", "--topology:1:17: unknown parameter \"x\" (fattree takes k, n, oversub)"},
		{"fattree:k=4,n=three", "--topology:1:15: n=\"three\": want an integer"},
		{"fattree:k=4,k=4,n=2", "--topology:1:13: k given twice"},
		{"torus:4x0", "--topology:1:9: torus dimension \"0\""},
		{"torus:2x2x2x2", "--topology:1:7: 4 torus dimensions"},
		{"torus:p=2", "--topology:1:10: torus needs dims"},
		{"torus:4x4,8", "--topology:1:11: \"8\": want key=value"},
		{"dragonfly:a=4,p=2", "--topology:1:18: dragonfly needs a, p, h"},
		{"dragonfly:a=4,p=2,h=-1", "--topology:1:21: h=\"-1\""},
		{"dragonfly:h=7,a=2700000,p=1", "--topology:1:28: dragonfly a=2700000, h=7: the default g = a·h+1 = 18900001 is beyond 16777216; give g"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			_, err := topology.ParseSpec(tc.in)
			if err == nil {
				t.Fatal("accepted")
			}
			if !errors.Is(err, topology.ErrSyntax) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %q, want prefix %q", err, tc.want)
			}
		})
	}
	// Valid syntax, impossible topology: Build says why.
	for _, in := range []string{"fattree:k=4,n=2,oversub=3", "dragonfly:a=2,p=1,h=1,g=9", "torus:0"} {
		if _, err := topology.Generate(in); err == nil {
			t.Errorf("Generate(%q) accepted", in)
		}
	}
}
