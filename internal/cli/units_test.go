package cli

import (
	"encoding/json"
	"flag"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestSimUnits: the parameter flags take decimals and units, a parameter
// file takes strings with units, the flags given override the file, and
// the JSON result echoes the parameters with their decimals.
func TestSimUnits(t *testing.T) {
	dir := t.TempDir()
	sched := writeFile(t, dir, "pp.goal", pingpong)
	params := writeFile(t, dir, "p.json", `{"L_ns": "2us", "o_ns": 0.5, "G_ns_per_byte": "1GB/s", "S_bytes": "64KiB"}`)
	for _, tc := range []struct {
		name string
		args []string
		want map[string]float64
	}{
		{"flags", []string{"-L", "1.5us", "-o", "0.5", "-g", "0.25 µs", "-G", "100Gb/s", "-O", "13ps/B", "-S", "1KiB"},
			map[string]float64{"L_ns": 1500, "o_ns": 0.5, "g_ns": 250, "G_ns_per_byte": 0.08, "O_ns_per_byte": 0.013, "S_bytes": 1024}},
		{"file", []string{"--params", params},
			map[string]float64{"L_ns": 2000, "o_ns": 0.5, "g_ns": 1000, "G_ns_per_byte": 1, "O_ns_per_byte": 0, "S_bytes": 65536}},
		{"file and flags", []string{"--params", params, "-G", "12.5GB/s", "-S", "100"},
			map[string]float64{"L_ns": 2000, "o_ns": 0.5, "g_ns": 1000, "G_ns_per_byte": 0.08, "O_ns_per_byte": 0, "S_bytes": 100}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, e := run(append(append([]string{"sim", "--json"}, tc.args...), sched)...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, e)
			}
			var r struct {
				Params map[string]any `json:"params"`
			}
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatal(err)
			}
			for k, v := range tc.want {
				if r.Params[k] != v {
					t.Errorf("params %s = %v, want %v", k, r.Params[k], v)
				}
			}
		})
	}
	// The text result echoes them with their units.
	code, out, e := run("sim", "-o", "0.5", "-G", "100Gb/s", sched)
	if code != ExitOK || !strings.Contains(out, "o=0.5 ns") || !strings.Contains(out, "G=0.08 ns/byte") {
		t.Fatalf("exit %d:\n%s%s", code, out, e)
	}
}

// TestSimTimeBeyondMaxTime: a per-byte cost beyond the largest time is an
// error naming the op and the product, not a wrapped or clamped time.
func TestSimTimeBeyondMaxTime(t *testing.T) {
	dir := t.TempDir()
	sched := writeFile(t, dir, "huge.goal", "num_ranks 2\nrank 0 {\nl1: send 2199023255552b to 1 tag 0\n}\nrank 1 {\nl1: recv 2199023255552b from 0 tag 0\n}\n")
	code, out, e := run("sim", "-G", "4194305", sched)
	want := "rank 0 op 0 (l1): send 2199023255552 bytes: (s-1)·G = 2199023255551 bytes × 4.194305e+06 ns/byte: beyond the largest time the engine represents"
	if code != ExitError || !strings.Contains(e, want) || out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want %q", code, out, e, want)
	}
}

// TestQuantityFlags: the flags beyond the LogGOPS parameters take what
// they took before (plain numbers, as strconv reads them) and units.
func TestQuantityFlags(t *testing.T) {
	var i64 int64
	var u64 uint64
	var f64 float64
	for _, tc := range []struct {
		name string
		f    flag.Value
		in   string
		get  func() float64
		want float64
		err  string
	}{
		{"ns plain", nsQty(&i64), "1000", func() float64 { return float64(i64) }, 1000, ""},
		{"ns negative, for the command's check", nsQty(&i64), "-5", func() float64 { return float64(i64) }, -5, ""},
		{"ns with a unit", nsQty(&i64), "1.5ms", func() float64 { return float64(i64) }, 1.5e6, ""},
		{"ns not whole", nsQty(&u64), "0.5ns", nil, 0, "whole number of ns"},
		{"ns float", nsQty(&f64), "2.5us", func() float64 { return f64 }, 2500, ""},
		{"ns unknown unit", nsQty(&f64), "3 hours", nil, 0, "unknown time unit"},
		{"bytes", bytesQty(&u64), "64KiB", func() float64 { return float64(u64) }, 65536, ""},
		{"bytes not whole", bytesQty(&u64), "1.5B", nil, 0, "whole number of bytes"},
		{"per byte as a rate", perByteQty(&f64), "4GB/s", func() float64 { return f64 }, 0.25, ""},
		{"bandwidth plain, bytes/ns", bandwidthQty(&f64), "2", func() float64 { return f64 }, 2, ""},
		{"bandwidth with a unit", bandwidthQty(&f64), "12.5GB/s", func() float64 { return f64 }, 12.5, ""},
		{"bandwidth as a per-byte time", bandwidthQty(&f64), "0.5ns/B", func() float64 { return f64 }, 2, ""},
		{"flops plain", flopsQty(&f64), "2e9", func() float64 { return f64 }, 2e9, ""},
		{"flops SimGrid", flopsQty(&f64), "100Mf", func() float64 { return f64 }, 1e8, ""},
		{"flops SimGrid G", flopsQty(&f64), "1.5Gf", func() float64 { return f64 }, 1.5e9, ""},
		{"flops no unit", flopsQty(&f64), "1G", nil, 0, "SimGrid's f"},
		{"flops zero", flopsQty(&f64), "0f", nil, 0, "positive"},
		// atMost: the limit, plain or with a unit, exactly (2^62-1 is 2^62 as a float).
		{"calc at its limit", nsQty(&u64).atMost(1<<62-1, "the calc limit"), "4611686018427387903", func() float64 { return float64(u64) }, 1<<62 - 1, ""},
		{"calc one above, plain", nsQty(&u64).atMost(1<<62-1, "the calc limit"), "4611686018427387904", nil, 0, "4611686018427387904 ns: more than the calc limit, 4611686018427387903 ns"},
		{"calc one above, as a float", nsQty(&u64).atMost(1<<62-1, "the calc limit"), "4.611686018427387904e18", nil, 0, "is 4611686018427387904 ns: more than the calc limit"},
		{"calc far above", nsQty(&u64).atMost(1<<62-1, "the calc limit"), "1e30", nil, 0, "1e30 is 1e+30 ns: more than the calc limit"},
		{"calc in hex", nsQty(&u64).atMost(1<<62-1, "the calc limit"), "0x4000000000000000", nil, 0, "0x4000000000000000 is 4611686018427387904 ns: more than"},
		{"signed: -1 is the command's", nsQty(&i64).atMost(10, "ten"), "-1", func() float64 { return float64(i64) }, -1, ""},
		{"signed above", nsQty(&i64).atMost(10, "ten"), "11", nil, 0, "11 ns: more than ten, 10 ns"},
		{"bytes at 2TiB", bytesQty(&u64).atMost(1<<41, "2 TiB"), "2TiB", func() float64 { return float64(u64) }, 1 << 41, ""},
		{"bytes above 2TiB", bytesQty(&u64).atMost(1<<41, "2 TiB"), "3TiB", nil, 0, "3TiB is 3298534883328 bytes: more than 2 TiB, 2199023255552 bytes"},
		{"bytes int64 max", bytesQty(&u64).atMost(1<<41, "2 TiB"), "9223372036854775807", nil, 0, "9223372036854775807 bytes: more than 2 TiB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.f.Set(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Set(%q) = %v, want an error with %q", tc.in, err, tc.err)
				}
				return
			}
			if err != nil || math.Abs(tc.get()-tc.want) > 1e-9*math.Abs(tc.want) {
				t.Fatalf("Set(%q): %v, got %v, want %v", tc.in, err, tc.get(), tc.want)
			}
		})
	}
}

// TestQuantityFlagsCommands: a value with a unit gives the same result as
// the plain number in the flag's unit, in gen and sim.
func TestQuantityFlagsCommands(t *testing.T) {
	dir := t.TempDir()
	gen := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		if code, _, e := run(append(append([]string{"gen", "-p", "mpi_allreduce", "-s", "8", "--iterations", "3"}, args...), "-o", out)...); code != ExitOK {
			t.Fatalf("gen %v: exit %d: %s", args, code, e)
		}
		return out
	}
	a, b := gen("a.goal", "-d", "4096", "--compute", "1500"), gen("b.goal", "-d", "4KiB", "--compute", "1.5us")
	sim := func(args ...string) string {
		code, out, e := run(append([]string{"sim", "--json"}, args...)...)
		if code != ExitOK {
			t.Fatalf("sim %v: exit %d: %s", args, code, e)
		}
		var r struct {
			MaxTimeNs int64 `json:"max_time_ns"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return strconv.FormatInt(r.MaxTimeNs, 10)
	}
	if x, y := sim(a), sim(b); x != y {
		t.Errorf("gen -d 4096 --compute 1500: %s ns; -d 4KiB --compute 1.5us: %s ns", x, y)
	}
	plain := sim("--noise-period", "20000", "--noise-period-length", "500", a)
	if units := sim("--noise-period", "20us", "--noise-period-length", "0.5us", a); plain != units {
		t.Errorf("--noise-period 20000 --noise-period-length 500: %s ns; 20us and 0.5us: %s ns", plain, units)
	}
}

// TestFlagsOverrideRanges: a parameter flag applies to every message
// size, so it changes a run whose parameter file has size ranges that
// cover every size (as calibrate writes them) exactly as it changes one
// without ranges.
func TestFlagsOverrideRanges(t *testing.T) {
	dir := t.TempDir()
	sched := writeFile(t, dir, "pp.goal", pingpong)
	ranges := writeFile(t, dir, "r.json", `{"ranges": [{"min_bytes": 0, "max_bytes": 100, "L_ns": 2500, "o_ns": 1500, "g_ns": 1000, "G_ns_per_byte": 6, "O_ns_per_byte": 0},
		{"min_bytes": 101, "max_bytes": 2199023255552, "L_ns": 2500, "o_ns": 1500, "g_ns": 1000, "G_ns_per_byte": 6, "O_ns_per_byte": 0}]}`)
	maxTime := func(args ...string) string {
		code, out, e := run(append(append([]string{"sim", "--json"}, args...), sched)...)
		if code != ExitOK {
			t.Fatalf("sim %v: exit %d: %s", args, code, e)
		}
		var r struct {
			MaxTimeNs int64 `json:"max_time_ns"`
		}
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return strconv.FormatInt(r.MaxTimeNs, 10)
	}
	if a, b := maxTime("-G", "0.5", "-L", "1us"), maxTime("--params", ranges, "-G", "0.5", "-L", "1us"); a != b {
		t.Errorf("-G 0.5 -L 1us: %s ns without ranges, %s ns with a file whose ranges hold the defaults", a, b)
	}
	if a, b := maxTime("--params", ranges), maxTime("--params", ranges, "-G", "0.5"); a == b {
		t.Errorf("-G 0.5 on a file with ranges changed nothing (%s ns)", a)
	}
}
