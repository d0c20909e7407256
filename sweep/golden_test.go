package sweep

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// The example sweep's CSV and meta file, byte for byte.
func TestGolden(t *testing.T) {
	s, err := ReadSpec("../examples/sweep_latency.toml")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "sweep_latency.csv")
	if _, err := Run(context.Background(), s, Options{Output: out, Sort: true, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct{ got, golden string }{
		{out, "testdata/sweep_latency.csv"},
		{MetaPath(out), "testdata/sweep_latency.csv.meta.json"},
	} {
		got := readFile(t, f.got)
		if *update {
			if err := os.WriteFile(f.golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if want := readFile(t, f.golden); !bytes.Equal(got, want) {
			t.Errorf("%s differs from %s (go test -update rewrites it):\n%s", f.got, f.golden, got)
		}
	}
}
