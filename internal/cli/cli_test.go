package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func run(args ...string) (code int, stdout, stderr string) {
	var o, e bytes.Buffer
	code = Main(args, &o, &e)
	return code, o.String(), e.String()
}

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const pingpong = `num_ranks 2
rank 0 {
send 1024b to 1 tag 0
}
rank 1 {
recv 1024b from 0 tag 0
}
`

func TestSimDefaultExample(t *testing.T) {
	code, out, errOut := run("sim")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"L=2500 ns, o=1500 ns, g=1000 ns, G=6 ns/byte (166.7 MB/s), O=0 ns/byte, S=65535 bytes",
		"max finishing time: 721092 ns", "events:", "allreduce_recdoub_8.goal"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// The wall time varies between runs: it is logged, not a result.
	if strings.Contains(out, "wall time") || !strings.Contains(errOut, "wall time:") || !strings.Contains(errOut, "events/s") {
		t.Errorf("the wall time should be on stderr only:\nstdout:\n%s\nstderr:\n%s", out, errOut)
	}
}

func TestSimJSON(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "pp.goal", pingpong)
	params := writeFile(t, dir, "p.json", `{"L_ns": 100, "o_ns": 10}`)
	tests := []struct {
		name    string
		args    []string
		max     int64
		perRank []int64
		L, o, G int64
		bw      string // G as a bandwidth
	}{
		{"defaults", []string{"sim", "--json", in}, 11638, []int64{1500, 11638}, 2500, 1500, 6, "166.7 MB/s"},
		{"flags", []string{"sim", "--json", "-L", "0", "-o", "0", "-G", "0", in}, 0, []int64{0, 0}, 0, 0, 0, "unlimited"},
		{"params file", []string{"sim", "--json", "--params", params, in}, 10 + 100 + 10 + 1023*6, []int64{10, 6258}, 100, 10, 6, "166.7 MB/s"},
		{"flag beats file", []string{"sim", "--json", "--params", params, "-G", "1", in}, 10 + 100 + 10 + 1023, []int64{10, 1143}, 100, 10, 1, "1 GB/s"},
		{"heap queue", []string{"sim", "--json", "--queue", "heap", in}, 11638, []int64{1500, 11638}, 2500, 1500, 6, "166.7 MB/s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var rep struct {
				Max     int64            `json:"max_time_ns"`
				PerRank []int64          `json:"per_rank_ns"`
				Events  uint64           `json:"events"`
				Params  map[string]int64 `json:"params"`
				GBW     string           `json:"G_bandwidth"`
				Wall    *int64           `json:"wall_time_ns"`
			}
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatalf("%v: %s", err, out)
			}
			if rep.Max != tc.max || len(rep.PerRank) != 2 || rep.PerRank[0] != tc.perRank[0] || rep.PerRank[1] != tc.perRank[1] {
				t.Errorf("max %d per rank %v, want %d %v", rep.Max, rep.PerRank, tc.max, tc.perRank)
			}
			if rep.Params["L_ns"] != tc.L || rep.Params["o_ns"] != tc.o || rep.Params["G_ns_per_byte"] != tc.G || rep.Params["S_bytes"] != 65535 {
				t.Errorf("params echoed %v", rep.Params)
			}
			if rep.GBW != tc.bw {
				t.Errorf("G_bandwidth %q, want %q", rep.GBW, tc.bw)
			}
			if rep.Events == 0 || rep.Wall != nil {
				t.Errorf("events %d, wall %v (must be absent without --timing)", rep.Events, rep.Wall)
			}
		})
	}
}

func TestSimDeterministicJSON(t *testing.T) {
	_, a, _ := run("sim", "--json", "../../sim/testdata/conformance/goal/linear_alltoall_n64_d1024.goal")
	_, b, _ := run("sim", "--json", "../../sim/testdata/conformance/goal/linear_alltoall_n64_d1024.goal")
	if a != b || !strings.Contains(a, `"max_time_ns": 733194`) {
		t.Fatalf("outputs differ or wrong:\n%s", a)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.goal", "num_ranks 2\nrank 0 {\nsend 8b to 5\n}\nrank 1 {\n}\n")
	stuck := writeFile(t, dir, "stuck.goal", "num_ranks 2\nrank 0 {\nrecv 8b from 1 tag 3\n}\nrank 1 {\n}\n")
	params := writeFile(t, dir, "p.json", `{"L": 5}`)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no command", nil, ExitUsage, "Usage: gopsim COMMAND"},
		{"unknown command", []string{"frobnicate"}, ExitUsage, `unknown command "frobnicate"`},
		{"bad flag", []string{"sim", "--nosuch"}, ExitUsage, "flag provided but not defined"},
		{"bad queue", []string{"sim", "--queue", "fifo"}, ExitUsage, "expected radix or heap"},
		{"two files", []string{"sim", "a", "b"}, ExitUsage, "one schedule file expected"},
		{"two files among flags", []string{"sim", "a", "--quiet", "b"}, ExitUsage, "one schedule file expected, got 2 arguments"},
		{"flag after the file", []string{"sim", stuck, "-L", "5xs"}, ExitUsage, `invalid value "5xs" for flag -L`},
		{"missing file", []string{"sim", filepath.Join(dir, "none.goal")}, ExitError, "no such file"},
		{"peer out of range", []string{"sim", bad}, ExitError, bad + ":3:12: peer rank 5 outside 0..1 (num_ranks 2)"},
		{"deadlock", []string{"sim", stuck}, ExitError, "rank 0 op 0: recv 8 bytes from 1 tag 3: receive posted, no matching message arrived"},
		{"negative param", []string{"sim", "-L", "-5", stuck}, ExitUsage, `invalid value "-5" for flag -L: sim: bad quantity "-5": negative`},
		{"unknown param unit", []string{"sim", "-L", "5xs", stuck}, ExitUsage, `invalid value "5xs" for flag -L: sim: bad quantity "5xs": unknown time unit "xs" (expected ns, us`},
		{"param above MaxParam", []string{"sim", "-G", "2e12", stuck}, ExitUsage, `invalid value "2e12" for flag -G: 2e+12 ns/byte is above the largest parameter`},
		{"bandwidth 0", []string{"sim", "-G", "0GB/s", stuck}, ExitUsage, `a bandwidth of 0 has no per-byte cost`},
		{"fractional S", []string{"sim", "-S", "1.5", stuck}, ExitUsage, `invalid value "1.5" for flag -S: sim: bad quantity "1.5": 1.5 bytes is not a whole number of bytes`},
		{"unknown param key", []string{"sim", "--params", params, stuck}, ExitError, `p.json:1:2: unknown key "L"`},
		{"convert args", []string{"convert", "x"}, ExitUsage, "expected IN and OUT"},
		{"version args", []string{"version", "x"}, ExitUsage, "takes no arguments"},
		{"help unknown", []string{"help", "nosuch"}, ExitUsage, "unknown command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, errOut)
			}
			if !strings.Contains(errOut, tc.msg) {
				t.Errorf("stderr %q lacks %q", errOut, tc.msg)
			}
			if out != "" {
				t.Errorf("stdout not empty on error: %q", out)
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"help", "sim"}, {"help", "convert"}, {"help", "version"}, {"sim", "-h"}, {"version"}} {
		code, out, errOut := run(args...)
		if code != ExitOK || out == "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
	_, out, _ := run("help", "sim")
	for _, want := range []string{"wire latency L: a time, in ns unless a unit is given", "12.5GB/s", "64KiB"} {
		if !strings.Contains(out, want) {
			t.Errorf("help sim lacks %q", want)
		}
	}
	_, out, _ = run("version")
	if !strings.Contains(out, "reads versions 1..1") || !strings.Contains(out, "OTF2 archives: reads versions 2.x..3.x") {
		t.Errorf("version: %q", out)
	}
}

func TestConvert(t *testing.T) {
	dir := t.TempDir()
	in := "../../sim/testdata/conformance/goal/allreduce_ring_n64_d65536_seqtag.goal"
	bin := filepath.Join(dir, "ring.bin")
	back := filepath.Join(dir, "ring.goal")
	if code, _, e := run("convert", in, bin); code != ExitOK {
		t.Fatal(e)
	}
	if code, _, e := run("convert", bin, back); code != ExitOK {
		t.Fatal(e)
	}
	orig, _ := os.ReadFile(in)
	again, _ := os.ReadFile(back)
	// Schedgen interleaves dependencies with ops; ours groups them, so
	// compare the simulated results and the re-encoded binaries instead.
	_, a, _ := run("sim", "--json", in)
	_, b, _ := run("sim", "--json", bin)
	_, c, _ := run("sim", "--json", back)
	strip := func(s string) string { return s[strings.Index(s, `"num_ranks"`):] }
	if strip(a) != strip(b) || strip(a) != strip(c) || len(again) == 0 || len(orig) == 0 {
		t.Fatalf("results differ after conversion")
	}
	st, _ := os.Stat(bin)
	if st.Size()*20 > int64(len(orig)) {
		t.Errorf("binary %d bytes for %d bytes of text: expected far smaller", st.Size(), len(orig))
	}
}

func TestConvertErrorLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.goal", "num_ranks 1\nrank 0 {\na: calc 1\na requires a\n}\n")
	out := filepath.Join(dir, "out.bin")
	code, _, errOut := run("convert", bad, out)
	if code != ExitError || !strings.Contains(errOut, "bad.goal:4:1: dependency cycle") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("files left behind: %v", entries)
	}
}

// TestFlagsAfterFiles: sim, validate, convert and extrapolate take their
// flags before or after the files, with the same result ("--" ends the
// flags).
func TestFlagsAfterFiles(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "pp.goal", pingpong)
	for _, tc := range []struct{ before, after []string }{
		{[]string{"sim", "--json", "-L", "1.5us", in}, []string{"sim", in, "--json", "-L", "1.5us"}},
		{[]string{"extrapolate", "--factor", "2", in, filepath.Join(dir, "a.goal")}, []string{"extrapolate", in, filepath.Join(dir, "b.goal"), "--factor", "2"}},
		{[]string{"convert", "--from", "goal", in, filepath.Join(dir, "c.bin")}, []string{"convert", in, filepath.Join(dir, "d.bin"), "--from", "goal"}},
	} {
		c1, out1, err1 := run(tc.before...)
		c2, out2, err2 := run(tc.after...)
		if c1 != ExitOK || c2 != ExitOK || out1 != out2 {
			t.Errorf("%v: exit %d %q %q\n%v: exit %d %q %q", tc.before, c1, out1, err1, tc.after, c2, out2, err2)
		}
	}
	if c, _, stderr := run("sim", "--", in, "--json"); c != ExitUsage || !strings.Contains(stderr, "one schedule file expected, got 2 arguments") {
		t.Errorf("after --: exit %d, %q", c, stderr)
	}
}
