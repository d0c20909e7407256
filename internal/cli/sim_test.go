package cli

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/gopsim/gopsim/sim"
)

// TestSimGOMAXPROCS: `gopsim sim --json` gives byte-identical output
// whatever GOMAXPROCS is, on binary schedules of several chunks (decoded
// in parallel) and a text one. The command runs in-process after
// runtime.GOMAXPROCS(n).
func TestSimGOMAXPROCS(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, g := range [][]string{
		{"-p", "dissemination", "-s", "8192", "-d", "1024"}, // 1.5 MB decompressed: two chunks
		{"-p", "allreduce_recdoub", "-s", "1024", "-d", "1048576"},
		{"-p", "mpi_alltoall", "-s", "96", "-d", "512", "--iterations", "2", "--compute", "3000"},
		{"-p", "linear_alltoall", "-s", "40", "-d", "100000"},
	} {
		f := filepath.Join(dir, g[1]+".bin")
		if code, _, errOut := run(append(append([]string{"gen"}, g...), "-o", f)...); code != ExitOK {
			t.Fatalf("gen %v: exit %d: %s", g, code, errOut)
		}
		files = append(files, f)
	}
	files = append(files, writeFile(t, dir, "pp.goal", pingpong))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, f := range files {
		var want []byte
		for _, procs := range []int{1, 2, 4} {
			runtime.GOMAXPROCS(procs)
			var out, errOut bytes.Buffer
			if code := Main([]string{"sim", "--json", f}, &out, &errOut); code != ExitOK {
				t.Fatalf("%s, GOMAXPROCS %d: exit %d: %s", f, procs, code, errOut.String())
			}
			if want == nil {
				want = out.Bytes()
				continue
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("%s: GOMAXPROCS %d gives different output", filepath.Base(f), procs)
			}
		}
	}
}

// TestSimReportWrite: the streamed JSON report is what json.Encoder with
// two-space indentation and no HTML escaping writes.
func TestSimReportWrite(t *testing.T) {
	ns, rate := int64(12), 3.5
	for _, rep := range []simReport{
		{runInput: runInput{Input: "x.bin"}, PerRank: []int64{}},
		{runInput: runInput{Input: "a \"per_rank_ns\": null\n"}, PerRank: []int64{7}},
		{runInput: runInput{Input: "y.goal", Format: "text", NumRanks: 3}, PerRank: []int64{-1, 0, 1 << 62}, Events: 9, WallNs: &ns, EventsPer: &rate},
		{runInput: runInput{Input: "<&>"}, ParamsFile: "p.json", PerRank: make([]int64, 1000), Params: sim.DefaultParams()},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(rep); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := rep.write(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("got\n%s\nwant\n%s", got.String(), want.String())
		}
	}
}
