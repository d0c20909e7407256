package topology_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/gopsim/gopsim/topology"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestWriteDotGolden compares WriteDot's output for small generated
// networks with testdata/*.dot (go test -update rewrites them). The files
// are LogGOPSim network files: `LogGOPSim --network-type simple
// --network-file testdata/fattree_k2_n2.dot` reads them.
func TestWriteDotGolden(t *testing.T) {
	for _, tc := range []struct{ spec, file string }{
		{"fattree:k=2,n=2", "fattree_k2_n2.dot"},
		{"fattree:k=4,n=2,oversub=2", "fattree_k4_n2_oversub2.dot"},
		{"torus:3x2", "torus_3x2.dot"},
		{"dragonfly:a=2,p=1,h=1,g=3", "dragonfly_a2_p1_h1_g3.dot"},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			var b bytes.Buffer
			if err := topology.WriteDot(&b, mustGenerate(t, tc.spec)); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", tc.file)
			if *update {
				if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b.Bytes(), want) {
				t.Fatalf("WriteDot(%s) differs from %s:\n%s", tc.spec, path, b.String())
			}
		})
	}
}
