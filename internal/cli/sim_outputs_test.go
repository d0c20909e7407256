package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var updateOutputs = flag.Bool("update-outputs", false, "rewrite testdata/sim_outputs.txt")

// outputsSchedule: rank 0 computes, then sends to 1 and 2; rank 2
// computes after its receive and finishes last. With the defaults:
// rank 0 calc [0,100], sends at 100 ([100,1600]) and 1600 ([1600,3100]);
// rank 1 takes its 10 bytes at 4100 ([4100,5654]); rank 2 its 1 byte at
// 5600 ([5600,7100]), then computes [7100,9100].
const outputsSchedule = `num_ranks 3
rank 0 {
c: calc 100
a: send 10b to 1 tag 0
b: send 1b to 2 tag 0
a requires c
b requires c
}
rank 1 {
r: recv 10b from 0 tag 0
}
rank 2 {
r: recv 1b from 0 tag 0
w: calc 2000
w requires r
}
`

// withoutWallTime drops the lines that vary between runs.
func withoutWallTime(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "wall time:") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestSimOutputsText: the text form of --breakdown and --critical-path
// on a hand-computed schedule (golden file testdata/sim_outputs.txt):
//
//	breakdown: rank 0 calc 100, send overhead 3000, NIC busy 1054+1000,
//	  finish 3100; rank 1 receive overhead 1554, wait 4100, NIC 1054,
//	  finish 5654; rank 2 receive overhead 1500, calc 2000, wait 5600,
//	  NIC 1000, finish 9100.
//	critical path (9100 ns): calc [0,100] <- the second send waited for
//	  the CPU: send overhead [100,1600] <- message [1600,5600] <- receive
//	  overhead [5600,7100] <- calc [7100,9100].
func TestSimOutputsText(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "out.goal", outputsSchedule)
	code, out, errOut := run("sim", "--breakdown", "--critical-path", f)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got := withoutWallTime(strings.ReplaceAll(out, f, "out.goal"))
	golden := filepath.Join("testdata", "sim_outputs.txt")
	if *updateOutputs {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestSimOutputsText -update-outputs writes it)", err)
	}
	if got != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// Without the flags the text form has neither.
	_, plain, _ := run("sim", f)
	if strings.Contains(plain, "breakdown") || strings.Contains(plain, "critical path") {
		t.Errorf("plain output shows outputs not asked for:\n%s", plain)
	}
}

// TestSimOutputsJSON: the JSON names another tool reads: breakdown totals
// always, per-rank entries with --breakdown, the critical path with
// --critical-path.
func TestSimOutputsJSON(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "out.goal", outputsSchedule)
	type doc = map[string]any
	decode := func(args ...string) doc {
		t.Helper()
		code, out, errOut := run(append([]string{"sim", "--json"}, append(args, f)...)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", args, code, errOut)
		}
		var d doc
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		return d
	}
	keys := func(m any) []string {
		var k []string
		for x := range m.(doc) {
			k = append(k, x)
		}
		slices.Sort(k)
		return k
	}
	checkCP := func(t *testing.T, d doc, want bool, length float64) {
		t.Helper()
		cp, has := d["critical_path"].(doc)
		if has != want {
			t.Fatalf("critical_path present %v, want %v", has, want)
		}
		if !want {
			return
		}
		if got := keys(cp); !reflect.DeepEqual(got, []string{"bandwidth_ns", "calc_ns", "latency_ns", "length_ns", "noise_ns", "overhead_ns", "steps", "wait_ns"}) {
			t.Errorf("critical_path keys %v", got)
		}
		if cp["length_ns"] != length || cp["calc_ns"] != 2100.0 || cp["overhead_ns"] != 4500.0 || cp["latency_ns"] != 2500.0 {
			t.Errorf("critical path %v", cp)
		}
		steps := cp["steps"].([]any)
		if len(steps) != 5 {
			t.Fatalf("%d steps, want 5", len(steps))
		}
		if got := keys(steps[0]); !reflect.DeepEqual(got, []string{"bytes", "end_ns", "kind", "label", "op", "peer", "rank", "start_ns", "what"}) {
			t.Errorf("step keys %v", got)
		}
		var kinds []string
		for _, s := range steps {
			kinds = append(kinds, s.(doc)["kind"].(string))
		}
		if !reflect.DeepEqual(kinds, []string{"calc", "send", "message", "recv", "calc"}) {
			t.Errorf("step kinds %v", kinds)
		}
	}
	for _, tc := range []struct {
		name         string
		args         []string
		perRank, cp  bool
		wantTotals   map[string]float64
		wantSlowest  []any
		wantCPLength float64
	}{
		{name: "plain"},
		{name: "breakdown", args: []string{"--breakdown"}, perRank: true, wantTotals: map[string]float64{"calc_ns": 2100, "send_overhead_ns": 3000, "recv_overhead_ns": 3054,
			"wait_ns": 4100 + 5600, "noise_ns": 0, "nic_busy_ns": 2054 + 1054 + 1000}},
		{name: "critical path", args: []string{"--critical-path"}, cp: true, wantCPLength: 9100},
		{name: "both", args: []string{"--breakdown", "--critical-path"}, perRank: true, cp: true, wantCPLength: 9100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := decode(tc.args...)
			bd, ok := d["breakdown"].(doc)
			if ok != tc.perRank {
				t.Fatalf("breakdown present %v, want %v (only with --breakdown): %v", ok, tc.perRank, d)
			}
			if !ok {
				checkCP(t, d, tc.cp, tc.wantCPLength)
				return
			}
			wantKeys := []string{"slowest", "totals"}
			if tc.perRank {
				wantKeys = []string{"per_rank", "slowest", "totals"}
			}
			if got := keys(bd); !reflect.DeepEqual(got, wantKeys) {
				t.Errorf("breakdown keys %v, want %v", got, wantKeys)
			}
			if got := keys(bd["totals"]); !reflect.DeepEqual(got, []string{"calc_ns", "nic_busy_ns", "noise_ns", "recv_overhead_ns", "send_overhead_ns", "wait_ns"}) {
				t.Errorf("totals keys %v", got)
			}
			for k, v := range tc.wantTotals {
				if got := bd["totals"].(doc)[k]; got != v {
					t.Errorf("totals %s = %v, want %v", k, got, v)
				}
			}
			if got := bd["slowest"]; !reflect.DeepEqual(got, []any{2.0, 1.0, 0.0}) {
				t.Errorf("slowest %v, want [2 1 0]", got)
			}
			if tc.perRank {
				pr := bd["per_rank"].([]any)
				if len(pr) != 3 {
					t.Fatalf("per_rank has %d entries", len(pr))
				}
				if got := keys(pr[2]); !reflect.DeepEqual(got, []string{"calc_ns", "finish_ns", "nic_busy_ns", "noise_ns", "rank", "recv_overhead_ns", "send_overhead_ns", "wait_ns"}) {
					t.Errorf("per_rank keys %v", got)
				}
				if r2 := pr[2].(doc); r2["rank"] != 2.0 || r2["finish_ns"] != 9100.0 || r2["calc_ns"] != 2000.0 || r2["wait_ns"] != 5600.0 {
					t.Errorf("rank 2: %v", r2)
				}
			}
			checkCP(t, d, tc.cp, tc.wantCPLength)
		})
	}
}

// TestSimTimelines: --timeline and --paraver write their files, bounded
// by --timeline-ranks and --timeline-window; bad bounds are errors.
func TestSimTimelines(t *testing.T) {
	dir := t.TempDir()
	f := writeFile(t, dir, "out.goal", outputsSchedule)
	js, prefix := filepath.Join(dir, "t.json"), filepath.Join(dir, "p")
	code, out, errOut := run("sim", "--timeline", js, "--paraver", prefix, "--timeline-ranks", "0,2", "--timeline-window", ":6000", f)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "timeline:   "+js) || !strings.Contains(out, "paraver:    "+prefix+".prv") {
		t.Errorf("output does not name the files:\n%s", out)
	}
	data, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		TraceEvents []map[string]any `json:"traceEvents"`
		OtherData   map[string]any   `json:"otherData"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	flows := 0
	for _, e := range doc.TraceEvents {
		if pid := e["pid"]; pid == 1.0 {
			t.Errorf("rank 1 shown: %v", e)
		}
		if e["ph"] == "X" && e["ts"].(float64) > 6.0 {
			t.Errorf("slice after the window: %v", e)
		}
		if e["ph"] == "s" {
			flows++
		}
	}
	if flows != 1 || doc.OtherData["input"] != f || doc.OtherData["ranks"] != "0,2" {
		t.Errorf("%d flows (want 1, rank 0 to 2), otherData %v", flows, doc.OtherData)
	}
	for _, ext := range []string{".prv", ".pcf", ".row"} {
		if _, err := os.Stat(prefix + ext); err != nil {
			t.Error(err)
		}
	}
	prv, _ := os.ReadFile(prefix + ".prv")
	if !bytes.HasPrefix(prv, []byte("#Paraver (01/01/70 at 00:00):9100_ns:2(1,1):1:2(1:1,1:2)\n")) {
		t.Errorf(".prv header: %q", strings.SplitN(string(prv), "\n", 2)[0])
	}
	// The timelines echo the model, the noise and the network too.
	js3, prefix3 := filepath.Join(dir, "t3.json"), filepath.Join(dir, "p3")
	if code, _, errOut := run("sim", "--timeline", js3, "--paraver", prefix3, "--model", "alphabeta", "--noise-period", "1ms", "--noise-period-length", "25us", "--seed", "3",
		"--network-type", "flow", "--topology", "torus:3", f); code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc3 struct {
		OtherData map[string]any `json:"otherData"`
	}
	if data3, err := os.ReadFile(js3); err != nil || json.Unmarshal(data3, &doc3) != nil {
		t.Fatalf("%s: %v", js3, err)
	}
	prv3, _ := os.ReadFile(prefix3 + ".prv")
	for k, want := range map[string]string{"model": "alphabeta: alpha=5500 ns, beta=6 ns/byte", "noise": "periodic 25000 ns every 1000000 ns (seed 3)",
		"network": "flow (max-min fair, 1 byte/ns per link) on torus:3 (3 hosts, 3 switches, "} {
		if v, _ := doc3.OtherData[k].(string); !strings.HasPrefix(v, want) {
			t.Errorf("otherData %q = %q, want %q", k, v, want)
		}
		if !bytes.Contains(prv3, []byte("; "+k+" "+want)) {
			t.Errorf(".prv comment lacks %q", "; "+k+" "+want)
		}
	}

	// A bad window is refused before the run: here one that would end stuck.
	stuck := writeFile(t, dir, "stuck.goal", "num_ranks 2\nrank 0 {\nrecv 8b from 1 tag 0\n}\nrank 1 {\n}\n")
	if code, _, errOut := run("sim", "--timeline", filepath.Join(dir, "stuck.json"), "--timeline-window", "9:3", stuck); code != ExitError || !strings.Contains(errOut, "--timeline-window") {
		t.Errorf("bad window on a stuck schedule: exit %d, %q; want the window's error", code, errOut)
	}

	// The window takes units and decimals, as every time gopsim takes.
	js2 := filepath.Join(dir, "t2.json")
	if code, _, errOut := run("sim", "--timeline", js2, "--timeline-ranks", "0,2", "--timeline-window", ":5.9995us", f); code != ExitOK {
		t.Fatalf("--timeline-window :5.9995us: exit %d: %s", code, errOut)
	}
	if data2, _ := os.ReadFile(js2); !bytes.Equal(data2, data) {
		t.Errorf("--timeline-window :5.9995us gives another timeline than :6000")
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--timeline", js, "--timeline-ranks", "0,7"}, "--timeline-ranks: timeline: rank 7"}, // before the run
		{[]string{"--timeline", js, "--timeline-ranks", "x"}, "--timeline-ranks"},
		{[]string{"--paraver", prefix, "--timeline-window", "9:3"}, "--timeline-window"},
		{[]string{"--timeline-ranks", "0"}, "need --timeline or --paraver"},
		{[]string{"--timeline", filepath.Join(dir, "no", "such", "dir", "t.json")}, "--timeline"},
	} {
		code, _, errOut := run(append(append([]string{"sim"}, tc.args...), f)...)
		if code != ExitError || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, errOut, ExitError, tc.want)
		}
	}
}
