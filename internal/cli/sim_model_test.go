package cli

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateModels = flag.Bool("update-models", false, "rewrite testdata/sim_model_all.txt")

// rendezvousPair: rank 0 sends 100000 bytes (above S) while rank 1
// computes first, so that the models differ.
const rendezvousPair = `num_ranks 2
rank 0 {
s: send 100000b to 1
c: calc 100
c requires s
stride4096: send 16384b to 1 tag 1
}
rank 1 {
w: calc 20000
r: recv 100000b from 0
r requires w
recv 16384b from 0 tag 1
}
`

// TestSimModelAll: `gopsim sim --model all` gives one row per model,
// as text (golden file testdata/sim_model_all.txt, rewritten with
// -update-models) and as JSON, and each row agrees with `--model NAME`.
func TestSimModelAll(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "pair.goal", rendezvousPair)
	params := writeFile(t, dir, "p.json", `{"logfp": {"f": 4}, "log3p": {"points": [{"s_bytes": 16384, "stride_bytes": 4096, "pack_ns": 50000, "unpack_ns": 40000}]}}`)
	code, out, errOut := run("sim", "--model", "all", "--params", params, in)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	out = strings.ReplaceAll(out, dir, "DIR")
	golden := filepath.Join("testdata", "sim_model_all.txt")
	if *updateModels {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out != string(want) {
		t.Errorf("text output differs from %s:\n%s\nwant\n%s", golden, out, want)
	}

	code, out, errOut = run("sim", "--model", "all", "--json", "--params", params, in)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep modelsReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.GBandwidth != "166.7 MB/s" { // the default G, 6 ns/byte
		t.Errorf("G_bandwidth %q for G=%g ns/byte", rep.GBandwidth, rep.Params.GapPerByte)
	}
	names := []string{"loggops", "loggp", "logp", "alphabeta", "loggps", "logfp", "plogp", "log3p"}
	if len(rep.Models) != len(names) || rep.NumRanks != 2 {
		t.Fatalf("%d rows, %d ranks: %s", len(rep.Models), rep.NumRanks, out)
	}
	for i, row := range rep.Models {
		if row.Model != names[i] {
			t.Errorf("row %d is %s, want %s", i, row.Model, names[i])
		}
		code, one, errOut := run("sim", "--model", row.Model, "--json", "--params", params, in)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", row.Model, code, errOut)
		}
		var single simReport
		if err := json.Unmarshal([]byte(one), &single); err != nil {
			t.Fatal(err)
		}
		if single.Model != row.Model || single.MaxTime != row.MaxTime || single.MaxRank != row.MaxRank {
			t.Errorf("%s: --model all gives %d ns at rank %d, --model %s %s gives %d ns at rank %d",
				row.Model, row.MaxTime, row.MaxRank, row.Model, single.Model, single.MaxTime, single.MaxRank)
		}
	}
	if rep.Models[0].MaxTime == rep.Models[4].MaxTime {
		t.Errorf("loggps gives LogGOPS's time on a rendezvous: %+v", rep.Models)
	}
	if ab := rep.Models[3].Params.AlphaBeta; ab == nil || ab.Alpha != 5500 || ab.Beta != 6 {
		t.Errorf("alphabeta row echoes %+v, want its defaults", ab)
	}
	if f := rep.Models[5].Params.LogfP; f == nil || f.F != 4 {
		t.Errorf("logfp row echoes %+v, want the file's f=4", f)
	}
	if rep.Models[0].Params.LogfP != nil {
		t.Errorf("loggops row echoes a logfp section")
	}
}

func TestSimModelFlag(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "pp.goal", pingpong)
	bad := writeFile(t, dir, "bad.json", `{"logfp": {"f": 2, "gap": 1}}`)
	for _, tc := range []struct {
		name  string
		args  []string
		code  int
		model string
		max   int64
		err   string
	}{
		{"default", []string{"sim", "--json", in}, ExitOK, "loggops", 11638, ""},
		{"loggops", []string{"sim", "--json", "--model", "loggops", in}, ExitOK, "loggops", 11638, ""},
		// L + 2o + 1024*6 = 11644: the whole message at the receiver.
		{"alphabeta", []string{"sim", "--json", "--model", "alphabeta", in}, ExitOK, "alphabeta", 11644, ""},
		// 11638 + 2L + 4o with S=100.
		{"loggps rendezvous", []string{"sim", "--json", "--model", "LogGPS", "-S", "100", in}, ExitOK, "loggps", 22638, ""},
		{"logp", []string{"sim", "--json", "--model", "logp", in}, ExitOK, "logp", 5500, ""},
		{"unknown", []string{"sim", "--model", "logq", in}, ExitUsage, "", 0, `unknown model "logq"`},
		{"bad section", []string{"sim", "--model", "logfp", "--params", bad, in}, ExitError, "", 0, `bad.json:1:20: unknown key "logfp.gap"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, errOut)
			}
			if tc.err != "" {
				if !strings.Contains(errOut, tc.err) {
					t.Errorf("stderr %q lacks %q", errOut, tc.err)
				}
				return
			}
			var rep simReport
			if err := json.Unmarshal([]byte(out), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Model != tc.model || rep.MaxTime != tc.max {
				t.Errorf("model %s, max %d ns; want %s, %d ns", rep.Model, rep.MaxTime, tc.model, tc.max)
			}
		})
	}
	code, out, _ := run("sim", "--model", "logfp", in)
	if code != ExitOK || !strings.Contains(out, "model:      LogfP, L=2500 ns") || !strings.Contains(out, "f=1, o_burst=0 ns") {
		t.Errorf("text output does not name the model and its parameters:\n%s", out)
	}
}

// TestSimModelAllRefusesOutputs: --model all prints one row per model; the
// flags of what a single run reports beyond its finishing times would
// have no effect, and are refused before the schedule is read.
func TestSimModelAllRefusesOutputs(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "pp.goal", pingpong)
	tl := filepath.Join(dir, "t.json")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"breakdown", []string{"--breakdown"}, "--breakdown"},
		{"critical path", []string{"--critical-path"}, "--critical-path"},
		{"timeline", []string{"--timeline", tl}, "--timeline"},
		{"paraver", []string{"--paraver", filepath.Join(dir, "p")}, "--paraver"},
		{"timing", []string{"--json", "--timing"}, "--timing"},
		{"hottest", []string{"--network-type", "flow", "--topology", "torus:2", "--hottest", "3"}, "--hottest"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{"sim", "--model", "all"}, tc.args...), in)
			code, _, errOut := run(args...)
			if code != ExitUsage || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "--model all") {
				t.Errorf("%v: exit %d, stderr %q; want exit %d naming %s and --model all", tc.args, code, errOut, ExitUsage, tc.want)
			}
		})
	}
	if _, err := os.Stat(tl); err == nil {
		t.Errorf("--model all wrote %s", tl)
	}
}

// TestSimModelAllEchoesSetup: the noise and the network every model ran
// with are in --model all's result, text and JSON, as in a single run's.
func TestSimModelAllEchoesSetup(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "pp.goal", pingpong)
	args := []string{"sim", "--model", "all", "--noise-period", "1ms", "--noise-period-length", "25us", "--seed", "3",
		"--network-type", "flow", "--topology", "torus:2", "--link-bandwidth", "12.5GB/s", in}
	code, out, errOut := run(args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"noise:      periodic 25000 ns every 1000000 ns (seed 3)",
		"network:    flow (max-min fair, 12.5 bytes/ns per link) on torus:2 (2 hosts"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	code, out, errOut = run(append([]string{"sim", "--json"}, args[1:]...)...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Noise *struct {
			Config noiseConfigReport `json:"config"`
		} `json:"noise"`
		Network *networkReport `json:"network"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Noise == nil || rep.Noise.Config.PeriodNs != 1000000 || rep.Noise.Config.PeriodLengthNs != 25000 || rep.Noise.Config.Seed != 3 {
		t.Errorf("JSON noise %+v; want the periodic detours and seed 3:\n%s", rep.Noise, out)
	}
	if n := rep.Network; n == nil || n.Type != "flow" || n.BandwidthBpNs != 12.5 || n.Mapping != "linear" || n.Hosts != 2 {
		t.Errorf("JSON network %+v; want flow at 12.5 bytes/ns on 2 hosts:\n%s", rep.Network, out)
	}
}
