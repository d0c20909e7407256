package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopsim/gopsim/bench"
	"github.com/gopsim/gopsim/sim"
)

// eachPRTT calls f with every round gopsim calibrate measures (n, d,
// s and the round trip), reps times per size, on a machine that obeys
// LogGOPS exactly with eager's parameters up to 12288 bytes and
// rendezvous's above.
func eachPRTT(sizes []int64, reps int, eager, rendezvous bench.Range, f func(n int, d float64, s int64, prtt float64)) {
	for _, s := range sizes {
		r := eager
		if s > 12288 {
			r = rendezvous
		}
		d := r.PRTT(1, 0, s)
		for range reps {
			for _, k := range []struct {
				n int
				d float64
			}{{1, 0}, {8, 0}, {8, d}, {2, d}} {
				f(k.n, k.d, s, r.PRTT(k.n, k.d, s))
			}
		}
	}
}

// prttTable is the CSV of a machine that obeys LogGOPS exactly, with an
// eager/rendezvous change after 12288 bytes and the PRTT rounds that
// gopsim calibrate measures.
func prttTable(t *testing.T, eager, rendezvous bench.Range) string {
	t.Helper()
	var tab bench.Table
	eachPRTT([]int64{1, 1024, 2048, 4096, 8192, 12288, 12289, 16384, 32768, 65536}, 3, eager, rendezvous,
		func(n int, d float64, s int64, prtt float64) {
			tab = append(tab, bench.Sample{N: n, DelayNs: d, SizeBytes: s, PRTTNs: math.Round(prtt)})
		})
	var b bytes.Buffer
	if err := tab.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var (
	eagerRange      = bench.Range{L: 3200, Overhead: 1300, Gap: 5140, GapPerByte: 0.73, OverheadPerByte: 0.2}
	rendezvousRange = bench.Range{L: 7800, Overhead: 2600, Gap: 21390, GapPerByte: 1.03, OverheadPerByte: 0.35}
)

// paramFile is what the tests read back from a parameter file.
type paramFile struct {
	L, O, G float64 // whole ns until sim.Params' fields are float64
	S       *int64
	Ranges  []bench.Range
	Warn    []string
	Source  bench.Source
	Library *sim.LibraryCosts
	fit     map[string]any
}

func readParamFile(t *testing.T, data []byte) paramFile {
	t.Helper()
	var f struct {
		L      float64           `json:"L_ns"`
		O      float64           `json:"o_ns"`
		G      float64           `json:"g_ns"`
		S      *int64            `json:"S_bytes"`
		Ranges []bench.Range     `json:"ranges"`
		Warn   []string          `json:"warnings"`
		Fit    map[string]any    `json:"fit"`
		Source bench.Source      `json:"source"`
		Lib    *sim.LibraryCosts `json:"library"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("%v:\n%s", err, data)
	}
	if f.Fit == nil || f.Warn == nil {
		t.Errorf("no fit or warnings in\n%s", data)
	}
	return paramFile{f.L, f.O, f.G, f.S, f.Ranges, f.Warn, f.Source, f.Lib, f.Fit}
}

func TestCalibrateFit(t *testing.T) {
	dir := t.TempDir()
	table := writeFile(t, dir, "prtt.csv", prttTable(t, eagerRange, rendezvousRange))
	params, plot := filepath.Join(dir, "p.json"), filepath.Join(dir, "p.png")
	code, out, errOut := run("calibrate", "fit", table, "-o", params, "--plot", plot)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"table:      " + table + " (120 rows, 10 sizes from 1 to 65536 bytes; fitted: the mean (up to 100 times the median and 1 ms beyond it) of each round",
		"0..12288", "12289..max", "jump between 12288 and 12289 bytes", "S:          12288 bytes", "parameters: " + params, "plot:       " + plot} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	pf := readParamFile(t, data)
	near := func(x, want float64) bool { return x >= want-1 && x <= want+1 } // the table holds whole ns
	if pf.S == nil || *pf.S != 12288 || len(pf.Ranges) != 2 || !near(pf.L, 3200) || !near(pf.O, 1300) || !near(pf.G, 5140) {
		t.Errorf("parameters %+v", pf)
	}
	if r := pf.Ranges[1]; math.Abs(r.GapPerByte-1.03) > 0.001 || math.Abs(r.Gap-21390) > 5 || r.MinBytes != 12289 {
		t.Errorf("rendezvous range %+v", r)
	}
	if pf.Source.Table != table || pf.Source.Rows != 120 || len(pf.Source.Sizes) != 10 {
		t.Errorf("source %+v", pf.Source)
	}
	// The base keys are range 0's values, fractions included (G = 0.73).
	var base struct {
		G float64 `json:"G_ns_per_byte"`
	}
	json.Unmarshal(data, &base)
	if base.G != pf.Ranges[0].GapPerByte || math.Abs(base.G-0.73) > 0.001 || strings.Contains(errOut, "rounded") {
		t.Errorf("base key G %v, range 0's %v; warnings: %q, stderr:\n%s", base.G, pf.Ranges[0].GapPerByte, pf.Warn, errOut)
	}
	if png, err := os.ReadFile(plot); err != nil || !bytes.HasPrefix(png, []byte("\x89PNG")) {
		t.Errorf("plot: %v", err)
	}

	// Without -o the parameter file goes to stdout, and it is the same.
	code, out, _ = run("calibrate", "fit", table)
	if code != ExitOK || out != string(data) {
		t.Errorf("exit %d; stdout differs from the file:\n%s", code, out)
	}

	// The file echoes the options of the fit: the ranges allowed too.
	if pf := readParamFile(t, data); pf.fit["max_ranges"] != 8.0 {
		t.Errorf("fit.max_ranges %v, want the default 8", pf.fit["max_ranges"])
	}
	code, out, _ = run("calibrate", "fit", "--max-ranges", "1", "--quantile", "0.5", table)
	if pf := readParamFile(t, []byte(out)); code != ExitOK || pf.fit["max_ranges"] != 1.0 || pf.fit["quantile"] != 0.5 {
		t.Errorf("--max-ranges 1 --quantile 0.5: exit %d, fit.max_ranges %v, fit.quantile %v", code, pf.fit["max_ranges"], pf.fit["quantile"])
	}
}

// TestCalibrateParamsForSim: the base keys alone are usable by gopsim sim
// as they are.
func TestCalibrateParamsForSim(t *testing.T) {
	dir := t.TempDir()
	table := writeFile(t, dir, "prtt.csv", prttTable(t, eagerRange, rendezvousRange))
	code, out, errOut := run("calibrate", "fit", table)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatal(err)
	}
	base := map[string]json.RawMessage{}
	v := map[string]float64{}
	for _, k := range []string{"L_ns", "o_ns", "g_ns", "G_ns_per_byte", "O_ns_per_byte", "S_bytes"} {
		base[k] = all[k]
		var x float64
		if err := json.Unmarshal(all[k], &x); err != nil {
			t.Fatalf("%s = %s: %v", k, all[k], err)
		}
		v[k] = x
	}
	b, _ := json.Marshal(base)
	params := writeFile(t, dir, "base.json", string(b))
	in := writeFile(t, dir, "pp.goal", pingpong)
	code, out, errOut = run("sim", "--json", "--params", params, in)
	if code != ExitOK {
		t.Fatalf("sim exit %d: %s", code, errOut)
	}
	var rep struct {
		Max int64 `json:"max_time_ns"`
	}
	json.Unmarshal([]byte(out), &rep)
	// One 1024-byte eager message: o + L + o + 1023 G with the base keys,
	// rounded once to whole ns.
	if want := int64(math.Round(2*v["o_ns"] + v["L_ns"] + 1023*v["G_ns_per_byte"])); rep.Max != want || v["S_bytes"] != 12288 {
		t.Errorf("max time %d ns, want %d", rep.Max, want)
	}
}

func TestCalibrateErrors(t *testing.T) {
	dir := t.TempDir()
	table := writeFile(t, dir, "prtt.csv", prttTable(t, eagerRange, rendezvousRange))
	bad := writeFile(t, dir, "bad.csv", "n,d_ns,s_bytes,prtt_ns\n1,0,8,1000\n1,0,8,-5\n")
	one := writeFile(t, dir, "one.csv", "n,d_ns,s_bytes,prtt_ns\n1,0,8,1000\n")
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"listen and peer", []string{"calibrate", "--listen", ":0", "--peer", "x:1"}, ExitUsage, "exclude each other"},
		{"unknown backend", []string{"calibrate", "--backend", "udp"}, ExitUsage, `--backend "udp": want tcp, mpi or ibverbs`},
		{"listen with -o", []string{"calibrate", "--listen", ":0", "-o", "p.json"}, ExitUsage, "belong on the peer's side"},
		{"wait without listen", []string{"calibrate", "--wait", "1s"}, ExitUsage, "--wait applies to --listen only"},
		{"plot format, before measuring", []string{"calibrate", "--plot", "p.bmp"}, ExitUsage, "--plot p.bmp: the name must end in .png, .svg or .pdf"},
		{"-o in no directory, before measuring", []string{"calibrate", "-o", "/nonexistent-dir/p.json"}, ExitUsage, "-o /nonexistent-dir/p.json: its directory"},
		{"--table in no directory", []string{"calibrate", "--table", "/nonexistent-dir/t.csv"}, ExitUsage, "--table /nonexistent-dir/t.csv: its directory"},
		{"fit: plot format", []string{"calibrate", "fit", "--plot", "p.gif", "t.csv"}, ExitUsage, "--plot p.gif: the name must end in"},
		{"bad sizes", []string{"calibrate", "--sizes", "1,0"}, ExitUsage, `invalid value "1,0" for flag -sizes`},
		{"negative delay", []string{"calibrate", "--delay", "-5"}, ExitUsage, "--delay -5"},
		{"argument", []string{"calibrate", "extra"}, ExitUsage, `unexpected argument "extra"`},
		{"unknown flag", []string{"calibrate", "--frobnicate"}, ExitUsage, "flag provided but not defined"},
		{"fit without table", []string{"calibrate", "fit"}, ExitUsage, "one table file expected, got 0"},
		{"fit two tables", []string{"calibrate", "fit", table, table}, ExitUsage, "one table file expected, got 2"},
		{"fit missing table", []string{"calibrate", "fit", filepath.Join(dir, "none.csv")}, ExitError, "no such file"},
		{"fit bad table", []string{"calibrate", "fit", bad}, ExitError, bad + ":3:7: prtt_ns=-5 outside"},
		{"fit one size", []string{"calibrate", "fit", one}, ExitError, "cannot fit: 1 message sizes"},
		{"fit onto its table", []string{"calibrate", "fit", table, "-o", table}, ExitUsage, "-o " + table + " is an input of this command"},
		{"fit bad plot", []string{"calibrate", "fit", table, "--plot", filepath.Join(dir, "p.txt")}, ExitUsage, "the name must end in .png, .svg or .pdf"},
		{"fit plot not written", []string{"calibrate", "fit", table, "--plot", filepath.Join(dir, "none", "p.png")}, ExitError, "(the parameters are written)"},
		{"peer refuses", []string{"calibrate", "--peer", "127.0.0.1:1", "-o", filepath.Join(dir, "x.json")}, ExitError, "connect"},
		{"quantile 0", []string{"calibrate", "fit", table, "--quantile", "0"}, ExitUsage, `invalid value "0" for flag -quantile: want mean, or a quantile in (0, 1]`},
		{"quantile word", []string{"calibrate", "fit", table, "--quantile", "median"}, ExitUsage, `invalid value "median" for flag -quantile: want mean`},
		{"quantile not a number", []string{"calibrate", "--quantile", "low"}, ExitUsage, `invalid value "low" for flag -quantile`},
		{"negative locate-reps", []string{"calibrate", "--locate-reps", "-1"}, ExitUsage, `invalid value "-1" for flag -locate-reps`},
		{"more passes than reps", []string{"calibrate", "--reps", "3", "--passes", "4", "--peer", "127.0.0.1:1"}, ExitError, "4 passes, want 1..3"},
		{"listen with --quantile", []string{"calibrate", "--listen", ":0", "--quantile", "0.5"}, ExitUsage, "belong on the peer's side"},
		{"fit table with a bad decimal", []string{"calibrate", "fit", writeFile(t, dir, "dec.csv", "n,d_ns,s_bytes,prtt_ns\n1,0,8,30760.6\n1,0,16,1,5\n")}, ExitError, "dec.csv:3:"},
		{"fit table with a decimal size", []string{"calibrate", "fit", writeFile(t, dir, "dec2.csv", "n,d_ns,s_bytes,prtt_ns\n1,0,8.5,30760.6\n")}, ExitError, `dec2.csv:2:5: s_bytes: "8.5" is not an integer`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := run(tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit %d and %q", code, errOut, tc.code, tc.want)
			}
		})
	}
}

func TestCalibrateHelp(t *testing.T) {
	code, out, _ := run("help", "calibrate")
	for _, want := range []string{"Usage: gopsim calibrate", "gopsim calibrate fit TABLE.csv", "-listen", "-peer", "-sizes", "-reps", "-delay", "-table", "-plot", "ns"} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("help lacks %q (exit %d):\n%s", want, code, out)
		}
	}
	code, out, _ = run("calibrate", "fit", "-h")
	if code != ExitOK || !strings.Contains(out, "Usage: gopsim calibrate fit") {
		t.Errorf("calibrate fit -h: exit %d\n%s", code, out)
	}
	if _, out, _ := run("help"); !strings.Contains(out, "calibrate") {
		t.Errorf("command list lacks calibrate:\n%s", out)
	}
}

// lineWriter hands the first line written to it over a channel.
type lineWriter struct {
	pw    *io.PipeWriter
	first chan string
}

func newLineWriter() *lineWriter {
	pr, pw := io.Pipe()
	w := &lineWriter{pw, make(chan string, 1)}
	go func() {
		br := bufio.NewReader(pr)
		line, _ := br.ReadString('\n')
		w.first <- line
		io.Copy(io.Discard, br)
	}()
	return w
}

func (w *lineWriter) Write(p []byte) (int, error) { return w.pw.Write(p) }

// TestCalibrateListenPeer runs both sides through the command line, as on
// two hosts: --listen announces its address, --peer measures against it.
// (In one process the timings suffer, see bench.StartServerProcess; the
// test checks the plumbing, not the numbers.)
func TestCalibrateListenPeer(t *testing.T) {
	dir := t.TempDir()
	stdout := newLineWriter()
	var serverErr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"calibrate", "--listen", "127.0.0.1:0", "--wait", "30s"}, stdout, &serverErr)
	}()
	var addr string
	select {
	case line := <-stdout.first:
		addr = strings.TrimSpace(strings.TrimPrefix(line, bench.ListenBanner))
	case <-time.After(30 * time.Second):
		t.Fatal("no address announced")
	}
	params := filepath.Join(dir, "p.json")
	code, out, errOut := run("calibrate", "--peer", addr, "--sizes", "1,1k,4k", "--reps", "5", "--warmup", "2", "--n", "3", "-o", params)
	if code != ExitOK {
		t.Fatalf("peer: exit %d: %s", code, errOut)
	}
	if code := <-done; code != ExitOK {
		t.Fatalf("listener: exit %d: %s", code, serverErr.String())
	}
	if !strings.Contains(serverErr.String(), "served 127.0.0.1:") {
		t.Errorf("listener stderr: %s", serverErr.String())
	}
	table := filepath.Join(dir, "p.prtt.csv") // the default next to -o
	tab, err := bench.ReadTableFile(table)
	if err != nil {
		t.Fatal(err)
	}
	if len(tab) != 3*5*4 {
		t.Errorf("%d rows in the table, want %d", len(tab), 3*5*4)
	}
	for _, want := range []string{"table:      " + table + " (60 rows, 3 sizes from 1 to 4096 bytes; fitted: the mean (up to 100 times the median and 1 ms beyond it) of each round", "parameters: " + params} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	data, err := os.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	pf := readParamFile(t, data)
	if pf.Source.Backend != "tcp" || pf.Source.Peer != addr || pf.Source.Reps != 5 || pf.Source.Rows != 60 || pf.Source.BufferOffset != nil {
		t.Errorf("source %+v", pf.Source)
	}
}

// TestCalibrateHelperProcess is not a test: TestCalibrateLoopback runs
// the test binary with it as the server process of a loopback calibration.
func TestCalibrateHelperProcess(t *testing.T) {
	if os.Getenv("GOPSIM_CALIBRATE_HELPER") != "1" {
		t.Skip("helper process of TestCalibrateLoopback")
	}
	os.Exit(Main([]string{"calibrate", "--listen", "127.0.0.1:0", "--wait", "30s"}, os.Stdout, os.Stderr))
}

// TestCalibrateLoopback measures with both ends on this host, the server
// in a child process (here the test binary, which `gopsim calibrate` would
// run as itself).
func TestCalibrateLoopback(t *testing.T) {
	t.Setenv("GOPSIM_CALIBRATE_HELPER", "1")
	dir := t.TempDir()
	o := CalibrateOptions{Backend: "tcp", Output: filepath.Join(dir, "p.json"), Table: filepath.Join(dir, "t.csv"),
		Plot: filepath.Join(dir, "p.svg"), ServerCommand: []string{os.Args[0], "-test.run=^TestCalibrateHelperProcess$"},
		Config: bench.Config{Sizes: []int64{1, 1024, 8192}, Reps: 5, Warmup: 2, N: 4}, LocateReps: 3}
	var out, errOut bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := Calibrate(ctx, o, &out, &errOut); err != nil {
		t.Fatalf("%v\n%s", err, errOut.String())
	}
	for _, f := range []string{o.Output, o.Table, o.Plot} {
		if _, err := os.Stat(f); err != nil {
			t.Error(err)
		}
	}
	data, _ := os.ReadFile(o.Output)
	pf := readParamFile(t, data)
	if !strings.HasPrefix(pf.Source.Peer, "loopback") || pf.Source.Rows < 3*5*4 || pf.Source.LocateReps != 3 {
		t.Errorf("source %+v", pf.Source)
	}
	for _, want := range []string{"raw table " + o.Table + " (60 rows", "served 127.0.0.1:"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
	if strings.Contains(errOut.String(), "\r") {
		t.Errorf("progress on a stderr that is not a terminal:\n%q", errOut.String())
	}
	fmt.Fprint(io.Discard, out.String())
}
