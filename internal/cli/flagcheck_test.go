package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestFlagsThatDoNothing: every flag given without what it needs, or with
// a value that is not a number of its kind, is refused with a message
// naming the flag, in every subcommand; the same flags with what they need
// are accepted.
func TestFlagsThatDoNothing(t *testing.T) {
	dir := t.TempDir()
	sched := writeFile(t, dir, "pp.goal", "num_ranks 2\nrank 0 {\nl1: calc 100\nl2: send 8b to 1 tag 0\nl2 requires l1\n}\nrank 1 {\nl1: recv 8b from 0 tag 0\n}\n")
	spec := writeFile(t, dir, "s.toml", "input = \"pp.goal\"\n[grid]\nL_ns = [1, 2]\n")
	result := filepath.Join(dir, "r.json")
	if code, out, e := run("sim", "--json", sched); code != ExitOK {
		t.Fatalf("sim --json: %s", e)
	} else if err := os.WriteFile(result, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	liballprof := "../../trace/liballprof/testdata/vladimir-4"
	out := func(name string) string { return filepath.Join(dir, name) }
	lib, nolib := out("lib.json"), out("nolib.json")
	if err := os.WriteFile(lib, []byte(`{"library": {"name": "x", "first_contact_ns": "1us", "comm_create_ns": 0, "first_call": []}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(nolib, []byte(`{"L_ns": 5}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string // in stderr; "" with ExitOK
	}{
		// sim: noise and stragglers
		{"noise-interval alone", []string{"sim", "--noise-interval", "1000", sched}, ExitUsage, "--noise-interval needs --noise-dist exp or pareto"},
		{"noise-length alone", []string{"sim", "--noise-length", "10", sched}, ExitUsage, "--noise-length needs --noise-interval and --noise-dist"},
		{"noise-length with dist, no interval", []string{"sim", "--noise-dist", "exp", "--noise-length", "10", sched}, ExitUsage, "--noise-length needs --noise-interval: random detours need"},
		{"noise-dist without interval", []string{"sim", "--noise-dist", "exp", sched}, ExitUsage, "needs --noise-interval"},
		{"noise-alpha with exp", []string{"sim", "--noise-dist", "exp", "--noise-interval", "1000", "--noise-alpha", "3", sched}, ExitUsage, "--noise-alpha is the shape of --noise-dist pareto"},
		{"noise-alpha with pareto", []string{"sim", "--noise-dist", "pareto", "--noise-interval", "1000", "--noise-length", "10", "--noise-alpha", "3", sched}, ExitOK, ""},
		{"noise-period alone", []string{"sim", "--noise-period", "1000", sched}, ExitUsage, "--noise-period needs --noise-period-length"},
		{"noise-period-length alone", []string{"sim", "--noise-period-length", "10", sched}, ExitUsage, "--noise-period-length needs --noise-period"},
		{"noise-period both", []string{"sim", "--noise-period", "1000", "--noise-period-length", "10", sched}, ExitOK, ""},
		{"noise-cosched alone", []string{"sim", "--noise-cosched", sched}, ExitUsage, "--noise-cosched applies to"},
		{"straggler-factor alone", []string{"sim", "--straggler-factor", "2", sched}, ExitUsage, "--straggler-factor needs --stragglers or --straggler-fraction"},
		{"straggler-fraction NaN", []string{"sim", "--straggler-fraction", "NaN", "--straggler-factor", "2", sched}, ExitUsage, "--straggler-fraction NaN"},
		{"straggler-fraction negative", []string{"sim", "--straggler-fraction", "-0.5", "--straggler-factor", "2", sched}, ExitUsage, "--straggler-fraction -0.5"},
		{"straggler-factor NaN", []string{"sim", "--stragglers", "1", "--straggler-factor", "NaN", sched}, ExitUsage, "--straggler-factor NaN"},
		{"straggler-factor Inf", []string{"sim", "--stragglers", "1", "--straggler-factor", "+Inf", sched}, ExitUsage, "--straggler-factor +Inf"},
		{"noise-interval NaN", []string{"sim", "--noise-dist", "exp", "--noise-interval", "NaN", sched}, ExitUsage, "--noise-interval NaN"},
		{"noise-period negative", []string{"sim", "--noise-period", "-5", "--noise-period-length", "1", sched}, ExitUsage, "--noise-period -5"},
		{"straggler-fraction without factor", []string{"sim", "--straggler-fraction", "0.5", sched}, ExitUsage, "--straggler-fraction needs --straggler-factor above 1"},
		{"stragglers with factor 1", []string{"sim", "--stragglers", "1", "--straggler-factor", "1", sched}, ExitUsage, "--stragglers needs --straggler-factor above 1"},
		{"stragglers with factor", []string{"sim", "--stragglers", "1", "--straggler-factor", "2", sched}, ExitOK, ""},
		// sim: outputs and memory
		{"timing without json", []string{"sim", "--timing", sched}, ExitUsage, "--timing adds wall time to --json"},
		{"timing with json", []string{"sim", "--timing", "--json", sched}, ExitOK, ""},
		{"spill-dir with stream off", []string{"sim", "--stream", "off", "--spill-dir", dir, sched}, ExitUsage, "--spill-dir and --stream-unit apply to a streamed run"},
		{"timeline onto the schedule", []string{"sim", "--timeline", sched, sched}, ExitUsage, "--timeline " + sched + " is an input of this command"},
		{"paraver onto the schedule", []string{"sim", "--paraver", filepath.Join(dir, "s"), writeFile(t, dir, "s.prv", "num_ranks 1\nrank 0 {\ncalc 1\n}\n")}, ExitUsage, "--paraver " + filepath.Join(dir, "s.prv") + " is an input"},
		{"timeline onto the parameters", []string{"sim", "--params", writeFile(t, dir, "p.json", "{}"), "--timeline", filepath.Join(dir, "p.json"), sched}, ExitUsage, "is an input of this command"},
		{"spill-dir missing", []string{"sim", "--spill-dir", filepath.Join(dir, "nope"), sched}, ExitError, "--spill-dir: stat "},
		{"spill-dir a file", []string{"sim", "--spill-dir", sched, sched}, ExitError, "not a directory"},
		{"stream-unit negative", []string{"sim", "--stream", "on", "--stream-unit", "-3", sched}, ExitError, "stream unit of -3 ops"},
		{"timeline-ranks alone", []string{"sim", "--timeline-ranks", "0", sched}, ExitError, "need --timeline or --paraver"},
		{"hottest without network", []string{"sim", "--hottest", "2", sched}, ExitUsage, "--hottest needs a network"},
		// gen
		{"gen -s 0", []string{"gen", "-s", "0"}, ExitUsage, "-s 0: a schedule needs at least 1 rank"},
		{"gen -s -1", []string{"gen", "-s", "-1"}, ExitUsage, "-s -1"},
		{"gen flag of another pattern", []string{"gen", "-p", "binomialtreebcast", "--nway", "3"}, ExitUsage, "--nway does not apply to pattern binomialtreebcast"},
		{"gen seed on a fixed pattern", []string{"gen", "-p", "binomialtreebcast", "--seed", "3"}, ExitUsage, "--seed does not apply"},
		{"gen outcast", []string{"gen", "-p", "linear_alltoallv", "--outcast", "-o", out("a.goal")}, ExitOK, ""},
		// convert and extrapolate
		{"convert compute-scale on a schedule", []string{"convert", "--compute-scale", "2", sched, out("c.goal")}, ExitUsage, "--compute-scale applies to a trace input; the input is a GOAL schedule"},
		{"convert timemult on a schedule", []string{"convert", "--timemult", "2", sched, out("c.goal")}, ExitUsage, "--timemult applies to a liballprof input"},
		{"convert mpi on a schedule", []string{"convert", "--mpi", "mpich", sched, out("c.goal")}, ExitUsage, "--mpi applies"},
		{"convert host-speed on liballprof", []string{"convert", "--host-speed", "2e9", liballprof, out("c.goal")}, ExitUsage, "--host-speed applies to a SimGrid TIT input or --to tit"},
		{"convert compute-scale negative", []string{"convert", "--compute-scale", "-1", liballprof, out("c.goal")}, ExitUsage, "--compute-scale -1"},
		{"convert compute-scale NaN", []string{"convert", "--compute-scale", "NaN", liballprof, out("c.goal")}, ExitUsage, "--compute-scale NaN"},
		{"convert reduce-cost negative", []string{"convert", "--reduce-cost", "-1", liballprof, out("c.goal")}, ExitUsage, "--reduce-cost -1"},
		{"convert timemult zero", []string{"convert", "--timemult", "0", liballprof, out("c.goal")}, ExitUsage, "--timemult 0"},
		{"convert library-costs on a schedule", []string{"convert", "--library-costs", lib, sched, out("c.goal")}, ExitUsage, "--library-costs applies to a trace converted to GOAL; the input is a GOAL schedule"},
		{"convert library-costs to tit", []string{"convert", "--library-costs", lib, "--to", "tit", liballprof, out("c.tit")}, ExitUsage, "--library-costs applies to a trace converted to GOAL"},
		{"convert library-costs without a section", []string{"convert", "--library-costs", nolib, liballprof, out("c.goal")}, ExitError, nolib + " has no \"library\" section, so --library-costs would charge nothing"},
		{"convert library-costs", []string{"convert", "--library-costs", lib, liballprof, out("c.goal")}, ExitOK, ""},
		{"convert library-costs none", []string{"convert", "--library-costs", "none", liballprof, out("c.goal")}, ExitOK, ""},
		{"extrapolate library-costs on a schedule", []string{"extrapolate", "--factor", "2", "--library-costs", lib, sched, out("x.goal")}, ExitUsage, "--library-costs applies to a trace converted to GOAL; the input is a GOAL schedule"},
		{"extrapolate library-costs without a section", []string{"extrapolate", "--factor", "2", "--library-costs", nolib, liballprof, out("x.goal")}, ExitError, nolib + " has no \"library\" section, so --library-costs would charge nothing"},
		{"extrapolate library-costs", []string{"extrapolate", "--factor", "2", "--library-costs", lib, liballprof, out("x.goal")}, ExitOK, ""},
		{"extrapolate no-grid on a schedule", []string{"extrapolate", "--factor", "2", "--no-grid", sched, out("e.goal")}, ExitUsage, "--no-grid applies to a trace input"},
		{"extrapolate no-grid on a trace", []string{"extrapolate", "--factor", "2", "--no-grid", liballprof, out("e.goal")}, ExitOK, ""},
		{"extrapolate compute-scale on a schedule", []string{"extrapolate", "--factor", "2", "--compute-scale", "2", sched, out("e.goal")}, ExitUsage, "--compute-scale applies to a trace input"},
		{"validate compute-scale NaN", []string{"validate", "--compute-scale", "NaN", liballprof}, ExitUsage, "--compute-scale NaN"},
		{"validate timemult on a gopsim trace", []string{"validate", "--timemult", "2", "../../trace/testdata/irregular"}, ExitUsage, "--timemult applies to liballprof traces"},
		// merge, report, noise, sweep
		{"merge seed without random", []string{"merge", "--seed", "3", "-o", out("m.goal"), sched, sched}, ExitUsage, "--seed needs --placement random"},
		{"merge seed with random", []string{"merge", "--seed", "3", "--placement", "random", "-o", out("m.goal"), sched, sched}, ExitOK, ""},
		{"report ranks without timeline", []string{"report", "--ranks", "0", "-o", out("r.html"), result}, ExitUsage, "--ranks needs --timeline"},
		{"report timeline-ops without timeline", []string{"report", "--timeline-ops", "5", "-o", out("r.html"), result}, ExitUsage, "--timeline-ops needs --timeline"},
		{"report sweep-y without sweep", []string{"report", "--sweep-y", "events", "-o", out("r.html"), result}, ExitUsage, "--sweep-y needs --sweep"},
		{"noise measure negative duration", []string{"noise", "measure", "-o", out("n.txt"), "--duration", "-1s"}, ExitUsage, "--duration -1s"},
		{"sweep workers negative", []string{"sweep", "--workers", "-2", spec}, ExitUsage, "--workers -2"},
		{"sweep dry-run with sort", []string{"sweep", "--dry-run", "--sort", spec}, ExitUsage, "--dry-run simulates nothing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, e := run(tc.args...)
			if code != tc.code || (tc.msg != "" && !strings.Contains(e, tc.msg)) {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, e, tc.code, tc.msg)
			}
		})
	}
}

// TestComputeScaleZero: --compute-scale 0 drops the computation of a
// trace (it used to be taken as 1 while the summary said "scale 0").
func TestComputeScaleZero(t *testing.T) {
	in := "../../trace/liballprof/testdata/vladimir-4"
	calcs := regexp.MustCompile(`(\d+) ns of computation`)
	for _, tc := range []struct {
		scale   string
		compute bool
	}{{"0", false}, {"1", true}, {"0.5", true}} {
		t.Run(tc.scale, func(t *testing.T) {
			o := filepath.Join(t.TempDir(), "out.goal")
			code, _, e := run("convert", "--compute-scale", tc.scale, in, o)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, e)
			}
			m := calcs.FindStringSubmatch(e)
			data, err := os.ReadFile(o)
			if m == nil || err != nil {
				t.Fatalf("no computation in the summary %q (%v)", e, err)
			}
			hasCalc := regexp.MustCompile(` calc [1-9]`).Match(data)
			if (m[1] != "0") != tc.compute || hasCalc != tc.compute {
				t.Errorf("--compute-scale %s: %s ns of computation, calc ops of some time %v; want computation %v", tc.scale, m[1], hasCalc, tc.compute)
			}
			// validate echoes the scale it converted with, 0 too.
			code, out, e := run("validate", "--json", "--compute-scale", tc.scale, in)
			var rep validateReport
			if code != ExitOK || json.Unmarshal([]byte(out), &rep) != nil {
				t.Fatalf("validate: exit %d: %s", code, e)
			}
			if want, _ := strconv.ParseFloat(tc.scale, 64); rep.Convert.ComputeScale != want {
				t.Errorf("validate --compute-scale %s echoes compute_scale %g", tc.scale, rep.Convert.ComputeScale)
			}
			if _, text, _ := run("validate", "--compute-scale", tc.scale, in); !strings.Contains(text, "compute scale "+tc.scale+",") {
				t.Errorf("validate --compute-scale %s: text lacks \"compute scale %s\":\n%s", tc.scale, tc.scale, text)
			}
		})
	}
}

// TestComputeScaleOverflow: a compute scale that makes a computation
// longer than a calc holds (goal.MaxCalc, what sim runs) is an error naming
// the scale and the limit, not a wrapped time that drops the computation
// nor a calc that sim refuses.
func TestComputeScaleOverflow(t *testing.T) {
	for _, tc := range []struct {
		name, scale, trace string
		msg                []string
	}{
		{"beyond an int64", "1e300", "../../trace/liballprof/testdata/vladimir-4",
			[]string{"times the compute scale 1e+300", "rank 0", "more than the 4611686018427387903 ns a calc holds"}},
		// 42000 ns before the barrier: 5.04e18 ns fits an int64 but not a calc.
		{"between 2^62 and 2^63", "1.2e14", "../../trace/dumpi/testdata/sstmacro-testtrace-4",
			[]string{"42000 ns times the compute scale 1.2e+14, is 5.04e+18 ns: more than the 4611686018427387903 ns a calc holds"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := filepath.Join(t.TempDir(), "out.goal")
			code, _, e := run("convert", "--compute-scale", tc.scale, tc.trace, o)
			if code != ExitError {
				t.Errorf("exit %d: %s", code, e)
			}
			for _, m := range tc.msg {
				if !strings.Contains(e, m) {
					t.Errorf("error %q lacks %q", e, m)
				}
			}
			if _, err := os.Stat(o); !os.IsNotExist(err) {
				t.Errorf("an output was written: %v", err)
			}
		})
	}
}

// TestFlagParseErrors: a value a flag of a basic type cannot take says
// what the flag takes, not the flag package's "parse error".
func TestFlagParseErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", "--hottest", "1.5"}, `invalid value "1.5" for flag -hottest: want an integer`},
		{[]string{"sim", "--hottest", "99999999999999999999"}, `for flag -hottest: out of range: want an integer that fits 64 bits`},
		{[]string{"noise", "measure", "--duration", "1.5"}, `for flag -duration: want a duration with its unit, such as 1.5s or 100ms`},
		{[]string{"sim", "--quiet=maybe"}, `invalid boolean value "maybe" for -quiet: want true or false`},
		{[]string{"sim", "--frobnicate"}, "flag provided but not defined: -frobnicate"},
	} {
		code, _, errOut := run(tc.args...)
		if code != ExitUsage || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "parse error") {
			t.Errorf("%v: exit %d, %q; want exit %d and %q", tc.args, code, errOut, ExitUsage, tc.want)
		}
	}
}
