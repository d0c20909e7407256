package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/sweep"
)

const sweepSpec = `input = "pp.goal"
output = "pp.csv"
[grid]
L_ns = [100, 200, 300]
o_ns = [0, 10]
`

func sweepDir(t *testing.T) (dir, spec string) {
	t.Helper()
	dir = t.TempDir()
	writeFile(t, dir, "pp.goal", pingpong)
	return dir, writeFile(t, dir, "spec.toml", sweepSpec)
}

func TestSweepCommand(t *testing.T) {
	dir, spec := sweepDir(t)
	out := filepath.Join(dir, "pp.csv")
	code, stdout, stderr := run("sweep", "--quiet", spec, "--sort") // flags after the spec too
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if want := out + ": 6 points (6 new, 0 already there); parameters in " + out + ".meta.json\n"; stdout != want {
		t.Errorf("stdout %q, want %q", stdout, want)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := `point,compute_scale,extrapolate_factor,L_ns,o_ns,g_ns,G_ns_per_byte,O_ns_per_byte,S_bytes,noise_period_ns,noise_period_length_ns,noise_interval_ns,noise_length_ns,straggler_fraction,straggler_factor,noise_seed,max_time_ns,max_rank,events,noise_ns
0,1,1,100,0,1000,6,0,65535,0,0,0,0,0,1,0,6238,1,3,0
1,1,1,100,10,1000,6,0,65535,0,0,0,0,0,1,0,6258,1,3,0
2,1,1,200,0,1000,6,0,65535,0,0,0,0,0,1,0,6338,1,3,0
3,1,1,200,10,1000,6,0,65535,0,0,0,0,0,1,0,6358,1,3,0
4,1,1,300,0,1000,6,0,65535,0,0,0,0,0,1,0,6438,1,3,0
5,1,1,300,10,1000,6,0,65535,0,0,0,0,0,1,0,6458,1,3,0
`
	if string(data) != want {
		t.Errorf("CSV:\n%s\nwant:\n%s", data, want)
	}
	meta, err := os.ReadFile(out + ".meta.json")
	if err != nil || !bytes.Contains(meta, []byte(`"tool": "gopsim `)) || !bytes.Contains(meta, []byte(`"input_sha256"`)) {
		t.Errorf("meta %s: %v", meta, err)
	}

	// Again: nothing to do; timing on stderr, no progress line (not a terminal).
	code, stdout, stderr = run("sweep", spec)
	if code != ExitOK || !strings.Contains(stdout, "6 points (0 new, 6 already there)") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "gopsim sweep: 0 points simulated in") || strings.Contains(stderr, "\r") {
		t.Errorf("stderr %q", stderr)
	}

	code, stdout, _ = run("sweep", "--dry-run", "--shard", "1/2", spec)
	for _, w := range []string{"points:  6: grid 6 [L_ns (3) x o_ns (2)], listed 0", "shard:   1/2: 3 points", "output:  " + filepath.Join(dir, "pp-shard-1-of-2.csv"),
		"point,compute_scale,extrapolate_factor,L_ns,o_ns,g_ns,G_ns_per_byte,O_ns_per_byte,S_bytes,noise_period_ns,noise_period_length_ns,noise_interval_ns,noise_length_ns,straggler_fraction,straggler_factor,noise_seed\n1,1,1,100,10,1000,6,0,65535,0,0,0,0,0,1,0\n3,1,1,200,10,"} {
		if code != ExitOK || !strings.Contains(stdout, w) {
			t.Errorf("dry run: exit %d, output lacks %q:\n%s", code, w, stdout)
		}
	}

	code, stdout, stderr = run("sweep", "plot", out, "--x", "L_ns", "--series", "o_ns", "-o", filepath.Join(dir, "p.svg"))
	if code != ExitOK || !strings.Contains(stdout, "p.svg: max_time_ns against L_ns") {
		t.Errorf("plot: exit %d, %s %s", code, stdout, stderr)
	}
	if svg, err := os.ReadFile(filepath.Join(dir, "p.svg")); err != nil || !bytes.Contains(svg, []byte("<svg")) {
		t.Errorf("plot: %v", err)
	}
}

func TestSweepShardsCommand(t *testing.T) {
	dir, spec := sweepDir(t)
	full := filepath.Join(dir, "full.csv")
	if code, _, stderr := run("sweep", "--quiet", "--sort", "-o", full, spec); code != ExitOK {
		t.Fatal(stderr)
	}
	for _, sh := range []string{"0/2", "1/2"} {
		if code, _, stderr := run("sweep", "--quiet", "--workers", "1", "--shard", sh, spec); code != ExitOK {
			t.Fatal(stderr)
		}
	}
	shard0 := filepath.Join(dir, "pp-shard-0-of-2.csv")
	code, _, stderr := run("sweep", "merge", "--spec", spec, "-o", filepath.Join(dir, "m.csv"), shard0)
	if code != ExitError || !strings.Contains(stderr, "3 of 6 points have no row: 1, 3, 5") {
		t.Errorf("merge of one shard: exit %d, %s", code, stderr)
	}
	code, stdout, stderr := run("sweep", "merge", "--spec", spec) // the shards found by name
	out := filepath.Join(dir, "pp.csv")
	if code != ExitOK || stdout != out+": 6 points from 2 files, sorted by point; parameters in "+out+".meta.json\n" {
		t.Fatalf("merge: exit %d, %q, %s", code, stdout, stderr)
	}
	a, _ := os.ReadFile(full)
	b, _ := os.ReadFile(out)
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Errorf("merged:\n%s\nwhole sweep:\n%s", b, a)
	}
	code, _, stderr = run("sweep", "merge", "--spec", spec, shard0, shard0, filepath.Join(dir, "pp-shard-1-of-2.csv"))
	if code != ExitError || !strings.Contains(stderr, "point given twice") {
		t.Errorf("duplicate shard: exit %d, %s", code, stderr)
	}
}

func TestSweepCommandErrors(t *testing.T) {
	dir, spec := sweepDir(t)
	bad := writeFile(t, dir, "bad.toml", "input = \"pp.goal\"\n[grid]\nL_ns = [1, -2]\n")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no spec", []string{"sweep"}, ExitUsage, "one spec file expected"},
		{"two specs", []string{"sweep", spec, spec}, ExitUsage, "one spec file expected"},
		{"shard out of range", []string{"sweep", "--shard", "2/2", spec}, ExitUsage, "0 <= I < N"},
		{"shard syntax", []string{"sweep", "--shard", "1-2", spec}, ExitUsage, "expected I/N"},
		{"unknown flag", []string{"sweep", "--bogus", spec}, ExitUsage, "flag provided but not defined"},
		{"bad spec", []string{"sweep", bad}, ExitError, bad + ":3:12: grid: L_ns: -2 outside"},
		{"missing spec", []string{"sweep", filepath.Join(dir, "none.toml")}, ExitError, "none.toml"},
		{"missing input", []string{"sweep", writeFile(t, dir, "noin.json", `{"input": "nope.goal", "points": [{}]}`)}, ExitError, "nope.goal"},
		{"output onto the spec", []string{"sweep", "-o", spec, spec}, ExitError, "is an input of this command"},
		{"output onto the parameter file", []string{"sweep", "-o", writeFile(t, dir, "pf.json", `{"L_ns": 5}`), writeFile(t, dir, "pf.toml", "input = \"pp.goal\"\nparams = \"pf.json\"\n[grid]\nL_ns = [1]\n")}, ExitError, "is an input of this command"},
		{"output onto the noise trace", []string{"sweep", "-o", writeFile(t, dir, "nt.txt", "0\t10\n"), writeFile(t, dir, "nt.toml", "input = \"pp.goal\"\n[noise]\ntrace = \"nt.txt\"\n[grid]\nnoise_seed = [1]\n")}, ExitError, "is an input of this command"},
		{"a directory as input", []string{"sweep", "--stream", "off", writeFile(t, dir, "dirin.json", `{"input": ".", "points": [{}]}`)}, ExitError, "is a directory (a trace?); a sweep's input is a schedule"},
		// noise keys that no point draws on: sim's rule for its flags (noise.Unused), at the key
		{"straggler_factor alone", []string{"sweep", writeFile(t, dir, "sf.toml", "input = \"pp.goal\"\n[grid]\nstraggler_factor = [3]\n")}, ExitError, "sf.toml:3:1: no effect at any point of the spec: straggler_factor needs straggler_fraction"},
		{"noise_period_ns alone", []string{"sweep", writeFile(t, dir, "np.toml", "input = \"pp.goal\"\n[grid]\nnoise_period_ns = [1000]\n")}, ExitError, "np.toml:3:1: no effect at any point of the spec: noise_period_ns needs noise_period_length_ns"},
		{"noise_length_ns alone", []string{"sweep", writeFile(t, dir, "nl.toml", "input = \"pp.goal\"\n[grid]\nnoise_length_ns = [100]\n")}, ExitError, "nl.toml:3:1: no effect at any point of the spec: noise_length_ns needs noise_interval_ns"},
		{"noise_seed without noise", []string{"sweep", writeFile(t, dir, "ns.toml", "input = \"pp.goal\"\n[grid]\nnoise_seed = [1, 2]\n")}, ExitError, "ns.toml:3:1: no effect at any point of the spec: noise_seed needs"},
		{"pareto without interval", []string{"sweep", writeFile(t, dir, "nd.toml", "input = \"pp.goal\"\n[noise]\ndist = \"pareto\"\n[grid]\nL_ns = [1]\n")}, ExitError, "nd.toml:3:1: no effect at any point of the spec: dist needs noise_interval_ns"},
		// an output in a directory that does not exist: refused before any point, as by every command
		{"-o in a missing directory", []string{"sweep", "-o", filepath.Join(dir, "nodir", "x.csv"), spec}, ExitError, "-o " + filepath.Join(dir, "nodir", "x.csv") + ": its directory: stat "},
		{"-o under a file", []string{"sweep", "-o", filepath.Join(spec, "x.csv"), spec}, ExitError, "is not a directory"},
		{"spec output in a missing directory", []string{"sweep", writeFile(t, dir, "od.toml", "input = \"pp.goal\"\noutput = \"nodir/o.csv\"\n[grid]\nL_ns = [1]\n")}, ExitError, "od.toml:2:10: output " + filepath.Join(dir, "nodir", "o.csv") + ": its directory"},
		{"shard of a spec output in a missing directory", []string{"sweep", "--shard", "1/2", filepath.Join(dir, "od.toml")}, ExitError, "od.toml:2:10: output " + filepath.Join(dir, "nodir", "o-shard-1-of-2.csv") + ": its directory"},
		{"merge without spec", []string{"sweep", "merge", "a.csv"}, ExitUsage, "--spec SPEC is required"},
		{"merge nothing found", []string{"sweep", "merge", "--spec", spec}, ExitUsage, "no shard files given"},
		{"plot without -o", []string{"sweep", "plot", "--x", "L_ns", "r.csv"}, ExitUsage, "expected one result CSV"},
		{"plot format", []string{"sweep", "plot", "--x", "L_ns", "-o", "p.gif", "r.csv"}, ExitUsage, "must end in .png, .svg or .pdf"},
		{"plot where", []string{"sweep", "plot", "--where", "L_ns", "r.csv"}, ExitUsage, "expected COLUMN=VALUE"},
		{"stream mode", []string{"sweep", "--stream", "maybe", spec}, ExitUsage, "expected auto, on or off"},
		{"spill dir without stream", []string{"sweep", "--stream", "off", "--spill-dir", dir, spec}, ExitUsage, "--spill-dir applies to a streamed sweep; --stream off does not stream"},
		{"dry run with stream", []string{"sweep", "--dry-run", "--stream", "auto", spec}, ExitUsage, "--dry-run simulates nothing"},
		{"missing spill dir", []string{"sweep", "--stream", "on", "--spill-dir", filepath.Join(dir, "none"), "-o", filepath.Join(dir, "x.csv"), spec}, ExitError, "spill file"},
		{"plot missing csv", []string{"sweep", "plot", "--x", "L_ns", "-o", filepath.Join(dir, "p.png"), filepath.Join(dir, "none.csv")}, ExitError, "none.csv"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(tc.args...)
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d (want %d), stderr %q lacks %q", code, tc.code, stderr, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "nodir")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a refused output's directory: %v, want it not made", err)
	}
}

func TestSweepHelp(t *testing.T) {
	code, stdout, _ := run("help", "sweep")
	for _, w := range []string{"gopsim sweep merge --spec SPEC", "gopsim sweep plot --x COLUMN", "-shard I/N", "-where COLUMN=VALUE", "noise_seed", "extrapolate_factor"} {
		if code != ExitOK || !strings.Contains(stdout, w) {
			t.Errorf("help sweep lacks %q:\n%s", w, stdout)
		}
	}
	if _, stdout, _ := run("help"); !strings.Contains(stdout, "  sweep ") {
		t.Errorf("usage lacks sweep:\n%s", stdout)
	}
	if code, stdout, _ := run("sweep", "-h"); code != ExitOK || !strings.Contains(stdout, "Usage:") {
		t.Errorf("sweep -h: exit %d %s", code, stdout)
	}
}

// TestSweepStreamAuto: --stream auto streams a sweep whose schedule is a
// chain beyond autoStreamBytes, or too large for the memory with a copy
// per worker, and writes the CSV it writes in memory; a collective within
// memory stays there whatever its size.
func TestSweepStreamAuto(t *testing.T) {
	dir := t.TempDir()
	chain := filepath.Join(dir, "ar.bin")
	if code, _, errOut := run("gen", "-p", "mpi_allreduce", "--algo", "recdoub", "-s", "16", "-d", "4096", "--iterations", "20", "--compute", "500", "-o", chain); code != ExitOK {
		t.Fatal(errOut)
	}
	coll := filepath.Join(dir, "d.bin")
	if code, _, errOut := run("gen", "-p", "dissemination", "-s", "1024", "-o", coll); code != ExitOK {
		t.Fatal(errOut)
	}
	sweepOf := func(name, input string, extra ...string) (csv []byte, stderr string) {
		t.Helper()
		spec := writeFile(t, dir, name+".toml", fmt.Sprintf("input = %q\noutput = %q\n[grid]\nL_ns = [100, 2000]\n", input, name+".csv"))
		os.Remove(filepath.Join(dir, name+".csv"))
		code, _, stderr := run(append(append([]string{"sweep", "--quiet", "--sort"}, extra...), spec)...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, stderr)
		}
		data, err := os.ReadFile(filepath.Join(dir, name+".csv"))
		if err != nil {
			t.Fatal(err)
		}
		return data, stderr
	}
	held, errOut := sweepOf("chain", chain)
	if errOut != "" {
		t.Errorf("auto streamed a small schedule: %q", errOut)
	}
	defer func(b int64) { autoStreamBytes = b }(autoStreamBytes)
	autoStreamBytes = 64 << 10
	streamed, errOut := sweepOf("chain", chain, "--spill-dir", dir)
	if !strings.Contains(errOut, "the schedule (16 ranks, ") || !strings.Contains(errOut, "and its ranks are chains of ops, which run about as fast streamed in a tenth of the memory; streaming it from a spill file") {
		t.Errorf("auto beyond autoStreamBytes: %q", errOut)
	}
	if !bytes.Equal(held, streamed) {
		t.Errorf("streamed:\n%s\nheld:\n%s", streamed, held)
	}
	if _, errOut := sweepOf("chain", chain, "--stream", "off"); errOut != "" {
		t.Errorf("--stream off streamed: %q", errOut)
	}
	if _, errOut := sweepOf("coll", coll); errOut != "" {
		t.Errorf("auto streamed a collective within memory: %q", errOut)
	}
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 20))
	if _, errOut := sweepOf("coll", coll, "--workers", "2"); !strings.Contains(errOut, "and a compiled copy for each of 2 workers need about") || !strings.Contains(errOut, "(60 % of GOMEMLIMIT)") {
		t.Errorf("auto beyond the memory: %q", errOut)
	}
}

// TestSweepStreamCommand: --stream on writes the CSV of the sweep in
// memory, byte for byte.
func TestSweepStreamCommand(t *testing.T) {
	dir, spec := sweepDir(t)
	var csv [2][]byte
	for i, args := range [][]string{{}, {"--stream", "on", "--spill-dir", dir}} {
		out := filepath.Join(dir, fmt.Sprint(i, ".csv"))
		code, _, stderr := run(append(append([]string{"sweep", "--quiet", "--sort", "-o", out}, args...), spec)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d, %s", args, code, stderr)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		csv[i] = data
	}
	if !bytes.Equal(csv[0], csv[1]) || len(csv[0]) == 0 {
		t.Errorf("--stream on:\n%s\nin memory:\n%s", csv[1], csv[0])
	}
}

// TestSweepFIFOInput: a sweep in the default mode (--stream auto) reads
// an input that is not a regular file, here a FIFO, once, holding it in
// memory, and writes the CSV it writes from the regular file with the
// same bytes; also when the regular file would be streamed
// (autoStreamBytes), since a FIFO cannot be measured without being
// consumed. The sweep used to open the FIFO to size it and close it, then
// open it again to read it: it lost the data and waited for a writer
// that had gone.
func TestSweepFIFOInput(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ar.bin")
	if code, _, errOut := run("gen", "-p", "mpi_allreduce", "--algo", "recdoub", "-s", "16", "-d", "4096", "--iterations", "20", "--compute", "500", "-o", bin); code != ExitOK {
		t.Fatal(errOut)
	}
	text := filepath.Join(dir, "ar.goal")
	if code, _, errOut := run("convert", bin, text); code != ExitOK {
		t.Fatal(errOut)
	}
	defer func(b int64) { autoStreamBytes = b }(autoStreamBytes)
	for _, tc := range []struct {
		name, input string
		streamAt    int64  // autoStreamBytes
		fileNote    string // in the regular file's sweep's stderr
	}{
		{"text", text, autoStreamBytes, ""},
		{"binary", bin, autoStreamBytes, ""},
		{"text, compute scaled", text, autoStreamBytes, ""},
		{"binary, a file that would stream", bin, 64 << 10, "streaming it from a spill file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			autoStreamBytes = tc.streamAt
			grid := "L_ns = [100, 2000]"
			if strings.Contains(tc.name, "compute scaled") {
				grid += "\ncompute_scale = [0.5, 1]"
			}
			data, err := os.ReadFile(tc.input)
			if err != nil {
				t.Fatal(err)
			}
			var csv [2][]byte
			for i, fifo := range []bool{false, true} {
				sub := t.TempDir()
				in := filepath.Join(sub, filepath.Base(tc.input))
				if fifo {
					fifoOf(t, in, data)
				} else if err := os.WriteFile(in, data, 0o644); err != nil {
					t.Fatal(err)
				}
				spec := writeFile(t, sub, "s.toml", fmt.Sprintf("input = %q\noutput = \"r.csv\"\n[grid]\n%s\n", filepath.Base(in), grid))
				code, _, errOut := runReading(t, in, "sweep", "--quiet", "--sort", "--spill-dir", sub, spec)
				if code != ExitOK {
					t.Fatalf("FIFO %v: exit %d: %s", fifo, code, errOut)
				}
				if note := tc.fileNote; fifo && errOut != "" || !fifo && !strings.Contains(errOut, note) || note == "" && errOut != "" {
					t.Errorf("FIFO %v: stderr %q, want %q", fifo, errOut, note)
				}
				if csv[i], err = os.ReadFile(filepath.Join(sub, "r.csv")); err != nil {
					t.Fatal(err)
				}
			}
			if len(csv[0]) == 0 || !bytes.Equal(csv[0], csv[1]) {
				t.Errorf("from the FIFO:\n%s\nfrom the file:\n%s", csv[1], csv[0])
			}
		})
	}
}

// TestSweepMergeFIFOInput: sweep merge reads the spec's input, here a
// FIFO, once: it hashes it and, when no shard has a meta file that gives
// the input's ranks and ops, reads those in the same pass. It used to
// open the FIFO again for them, after its writer had gone, and wait for
// ever. The merged CSV and its meta file's account of the input are those
// of a merge with the input in a regular file.
func TestSweepMergeFIFOInput(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "ar.bin")
	if code, _, errOut := run("gen", "-p", "mpi_allreduce", "-s", "8", "-d", "4096", "--iterations", "2", "-o", bin); code != ExitOK {
		t.Fatal(errOut)
	}
	const specText = "input = \"ar.bin\"\noutput = \"r.csv\"\n[grid]\nL_ns = [100, 2000, 5000]\n"
	spec := writeFile(t, dir, "s.toml", specText)
	shards := []string{"r-shard-0-of-2.csv", "r-shard-1-of-2.csv"}
	for _, sh := range []string{"0/2", "1/2"} {
		if code, _, errOut := run("sweep", "--quiet", "--shard", sh, spec); code != ExitOK {
			t.Fatal(errOut)
		}
	}
	if code, _, errOut := run("sweep", "merge", "--spec", spec); code != ExitOK {
		t.Fatal(errOut)
	}
	wantCSV, wantMeta := readMerged(t, filepath.Join(dir, "r.csv"))
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		metas bool // the shards' meta files are there
	}{
		{"shards with meta files", true},
		{"shards without meta files", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sub := t.TempDir()
			for _, sh := range shards {
				names := []string{sh}
				if tc.metas {
					names = append(names, sh+".meta.json")
				}
				for _, name := range names {
					b, err := os.ReadFile(filepath.Join(dir, name))
					if err != nil {
						t.Fatal(err)
					}
					writeFile(t, sub, name, string(b))
				}
			}
			in := fifoOf(t, filepath.Join(sub, "ar.bin"), data)
			spec := writeFile(t, sub, "s.toml", specText)
			code, _, errOut := runReading(t, in, "sweep", "merge", "--spec", spec)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			gotCSV, gotMeta := readMerged(t, filepath.Join(sub, "r.csv"))
			if !bytes.Equal(gotCSV, wantCSV) {
				t.Errorf("merged with the input in a FIFO:\n%s\nin a file:\n%s", gotCSV, wantCSV)
			}
			if gotMeta.InputSHA256 != wantMeta.InputSHA256 || gotMeta.InputFormat != wantMeta.InputFormat ||
				gotMeta.NumRanks != wantMeta.NumRanks || gotMeta.NumOps != wantMeta.NumOps {
				t.Errorf("meta file's input: sha256 %s, %s, %d ranks, %d ops; want %s, %s, %d, %d",
					gotMeta.InputSHA256, gotMeta.InputFormat, gotMeta.NumRanks, gotMeta.NumOps,
					wantMeta.InputSHA256, wantMeta.InputFormat, wantMeta.NumRanks, wantMeta.NumOps)
			}
		})
	}
}

// readMerged reads a merged CSV and its meta file.
func readMerged(t *testing.T, csv string) ([]byte, sweep.Meta) {
	t.Helper()
	data, err := os.ReadFile(csv)
	if err != nil {
		t.Fatal(err)
	}
	var m sweep.Meta
	b, err := os.ReadFile(sweep.MetaPath(csv))
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatal(err)
	}
	return data, m
}
