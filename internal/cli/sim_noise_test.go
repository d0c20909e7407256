package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gopsim/gopsim/progress"
	"github.com/gopsim/gopsim/sim"
)

func simDefaults() sim.Params { return sim.DefaultParams() }

// noiseResult is the part of `gopsim sim --json` these tests read.
type noiseResult struct {
	MaxTime int64   `json:"max_time_ns"`
	PerRank []int64 `json:"per_rank_ns"`
	Noise   *struct {
		PerRank []int64 `json:"absorbed_ns_per_rank"`
		Total   int64   `json:"total_ns"`
		Config  struct {
			Trace   string `json:"trace"`
			Seed    uint64 `json:"seed"`
			Cosched bool   `json:"cosched"`
		} `json:"config"`
	} `json:"noise"`
}

func simJSON(t *testing.T, args ...string) (noiseResult, string) {
	t.Helper()
	code, out, errOut := run(append([]string{"sim", "--json"}, args...)...)
	if code != ExitOK {
		t.Fatalf("sim %v: exit %d: %s", args, code, errOut)
	}
	var r noiseResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("sim %v: %v\n%s", args, err, out)
	}
	return r, out
}

// TestSimNoiseFlags: a noise trace charged from per-rank offsets is
// reproducible for a seed, echoed in the result with the noise each rank
// absorbed, co-scheduling gives symmetric ranks equal noise, and without
// noise flags the result has no noise part.
func TestSimNoiseFlags(t *testing.T) {
	dir := t.TempDir()
	// Four 300 ns detours; the trace repeats with the end of the last
	// (3300 ns) as its period: 1200/3300 = 36.4% noise.
	trace := writeFile(t, dir, "noise.txt", "# start\tduration\n0\t300\n1000\t300\n2000\t300\n3000\t300\n")
	// Two symmetric ranks that compute and exchange.
	sched := writeFile(t, dir, "sym.goal", `num_ranks 2
rank 0 {
c: calc 50000
s: send 8b to 1 tag 0
r: recv 8b from 1 tag 0
s requires c
r requires c
}
rank 1 {
c: calc 50000
s: send 8b to 0 tag 0
r: recv 8b from 0 tag 0
s requires c
r requires c
}
`)
	plain, _ := simJSON(t, sched)
	if plain.Noise != nil {
		t.Errorf("no noise flags, yet a noise part: %+v", plain.Noise)
	}
	a, outA := simJSON(t, "--noise-trace", trace, "--seed", "11", sched)
	_, outB := simJSON(t, "--noise-trace", trace, "--seed", "11", sched)
	if outA != outB {
		t.Errorf("same seed, different output")
	}
	if a.Noise == nil || a.Noise.Config.Trace != trace || a.Noise.Config.Seed != 11 || len(a.Noise.PerRank) != 2 {
		t.Fatalf("noise part %+v", a.Noise)
	}
	for r, n := range a.Noise.PerRank {
		// 50,000 ns of calc and two 1500 ns overheads at 36.4% noise
		// absorb about 19,300 ns: charged once over each window, so
		// within a detour or two of that.
		if n < 18500 || n > 20500 {
			t.Errorf("rank %d absorbed %d ns, want about 36.4%% of 53,000", r, n)
		}
		if a.PerRank[r] <= plain.PerRank[r] {
			t.Errorf("rank %d finishes at %d ns with noise, %d without", r, a.PerRank[r], plain.PerRank[r])
		}
	}
	if a.Noise.PerRank[0]+a.Noise.PerRank[1] != a.Noise.Total {
		t.Errorf("total %d is not the sum of %v", a.Noise.Total, a.Noise.PerRank)
	}
	c, _ := simJSON(t, "--noise-trace", trace, "--noise-cosched", "--seed", "11", sched)
	if !c.Noise.Config.Cosched || c.Noise.PerRank[0] != c.Noise.PerRank[1] || c.PerRank[0] != c.PerRank[1] {
		t.Errorf("co-scheduled noise on symmetric ranks: absorbed %v, finish %v", c.Noise.PerRank, c.PerRank)
	}
	// The text echoes every setting of the noise, the Pareto shape too.
	if code, out, errOut := run("sim", "--noise-dist", "pareto", "--noise-interval", "20us", "--noise-length", "1.5us", "--noise-alpha", "2.5", "--seed", "3", sched); code != ExitOK ||
		!strings.Contains(out, "noise:      random pareto detours (alpha 2.5) of mean 1500 ns every 20000 ns (seed 3)") {
		t.Errorf("pareto noise: exit %d, %s; text:\n%s", code, errOut, out)
	}
	st, _ := simJSON(t, "--stragglers", "1", "--straggler-factor", "2", sched)
	if st.Noise.PerRank[0] != 0 || st.Noise.PerRank[1] < 50000 {
		t.Errorf("straggler rank 1: absorbed %v", st.Noise.PerRank)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--noise-trace", dir + "/missing.txt"}, "missing.txt"},
		{[]string{"--stragglers", "1"}, "--straggler-factor above 1"},
		{[]string{"--stragglers", "x", "--straggler-factor", "2"}, `"x" is not a rank`},
		{[]string{"--stragglers", "5", "--straggler-factor", "2"}, "straggler rank 5 outside 0..1"},
		{[]string{"--noise-period", "100", "--noise-period-length", "200"}, "periodic detours"},
		{[]string{"--noise-dist", "gauss", "--noise-interval", "10"}, "expected exp or pareto"},
	} {
		code, _, errOut := run(append(append([]string{"sim"}, tc.args...), sched)...)
		want := ExitError
		if tc.args[0] == "--stragglers" && len(tc.args) == 2 {
			want = ExitUsage // a flag that needs another
		}
		if code != want || !strings.Contains(errOut, tc.want) {
			t.Errorf("sim %v: exit %d (want %d), stderr %q, want %q", tc.args, code, want, errOut, tc.want)
		}
	}
}

// TestSimProgress: gopsim sim draws a bar of the ops completed on its log
// writer when it is a terminal (faked here), ending at 100%, and nothing
// with --quiet or on a plain writer; the result on stdout is the same.
func TestSimProgress(t *testing.T) {
	dir := t.TempDir()
	f := dir + "/d.bin"
	if code, _, errOut := run("gen", "-p", "dissemination", "-s", "4096", "-d", "8", "-o", f); code != ExitOK {
		t.Fatal(errOut)
	}
	var want string
	for _, tc := range []struct {
		name     string
		quiet    bool
		terminal bool
		bar      bool
	}{{"terminal", false, true, true}, {"quiet", true, true, false}, {"not a terminal", false, false, false}} {
		var out, log strings.Builder
		o := SimOptions{Input: f, Params: simDefaults(), Quiet: tc.quiet, Log: &log, JSON: true,
			Progress: progress.Options{Terminal: tc.terminal, Throttle: time.Nanosecond}}
		if err := Sim(o, &out); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := strings.Contains(log.String(), "100%") && strings.Contains(log.String(), "ops"); got != tc.bar {
			t.Errorf("%s: bar drawn %v, want %v: %q", tc.name, got, tc.bar, log.String())
		}
		if !tc.bar && log.Len() != 0 {
			t.Errorf("%s: log %q, want nothing", tc.name, log.String())
		}
		if want == "" {
			want = out.String()
		} else if out.String() != want {
			t.Errorf("%s: result differs from the run with a bar", tc.name)
		}
	}
}
