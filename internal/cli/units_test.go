package cli

import (
	"encoding/json"
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
