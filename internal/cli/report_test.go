package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReport(t *testing.T) {
	dir := t.TempDir()
	td := filepath.Join("..", "..", "report", "testdata")
	res, tl, sw := filepath.Join(td, "ring4.json"), filepath.Join(td, "ring4.timeline.json"), filepath.Join(td, "sweep_latency.csv")
	out := filepath.Join(dir, "r.html")
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string // in stdout
		stderr   string // in stderr
		page     []string
		noOutput bool // no report written
	}{
		{name: "everything", args: []string{"report", "--timeline", tl, res, "--sweep", sw, "-o", out}, stdout: "with timeline " + tl + " and 1 sweep CSV",
			page: []string{`data-chart="timeline"`, `data-chart="sweep"`, "51,638 ns"}},
		{name: "result only", args: []string{"report", "-o", out, res}, stdout: "(4 ranks, max finishing time 51638 ns)",
			page: []string{"No timeline given", "No sweep results given"}},
		{name: "ranks", args: []string{"report", "-o", out, "--ranks", "1-2", "--timeline", tl, res}, page: []string{"Showing 2 of the timeline&#39;s 4 ranks: 1, 2."}},
		{name: "title", args: []string{"report", "-o", out, "--title", "<b>run 7</b>", res}, page: []string{"<title>&lt;b&gt;run 7&lt;/b&gt;</title>"}},
		{name: "no output", args: []string{"report", res}, code: ExitUsage, stderr: "-o REPORT.html", noOutput: true},
		{name: "two results", args: []string{"report", "-o", out, res, res}, code: ExitUsage, stderr: "expected one RESULT.json", noOutput: true},
		{name: "bad ranks", args: []string{"report", "-o", out, "--ranks", "x", res}, code: ExitUsage, stderr: `--ranks "x"`, noOutput: true},
		{name: "not a result", args: []string{"report", "-o", out, tl}, code: ExitError, stderr: `no "num_ranks" key`, noOutput: true},
		{name: "bad timeline", args: []string{"report", "-o", out, "--timeline", res, res}, code: ExitError, stderr: `no "traceEvents" array`, noOutput: true},
		{name: "bad sweep", args: []string{"report", "-o", out, "--sweep", res, res}, code: ExitError, stderr: "ring4.json:", noOutput: true},
		{name: "missing", args: []string{"report", "-o", out, filepath.Join(dir, "nosuch.json")}, code: ExitError, stderr: "nosuch.json", noOutput: true},
		{name: "output is the result", args: []string{"report", "-o", res, res}, code: ExitUsage, stderr: "is an input of this command", noOutput: true},
		{name: "output is the timeline", args: []string{"report", "-o", tl, "--timeline", tl, res}, code: ExitUsage, stderr: "is an input of this command", noOutput: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(out)
			code, stdout, stderr := run(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			if !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
				t.Errorf("stdout %q, stderr %q; want %q and %q in them", stdout, stderr, tc.stdout, tc.stderr)
			}
			page, err := os.ReadFile(out)
			if tc.noOutput {
				if err == nil {
					t.Errorf("%s written", out)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.page {
				if !strings.Contains(string(page), w) {
					t.Errorf("report lacks %q", w)
				}
			}
		})
	}
}

func TestReportHelp(t *testing.T) {
	code, out, _ := run("help", "report")
	if code != ExitOK || !strings.Contains(out, "--timeline") || !strings.Contains(out, "self-contained") {
		t.Errorf("help report: exit %d:\n%s", code, out)
	}
	_, out, _ = run("help")
	if !strings.Contains(out, "report ") {
		t.Errorf("help does not list report:\n%s", out)
	}
}

// TestReportInputsFromSim: report/testdata/sim_allreduce.json and its
// timeline, which the report's Chromium test renders, are exactly what
// gopsim sim writes today (regenerate them with the command below, from
// the repository's root, if the output changes on purpose), and gopsim
// report takes them.
//
//	bin/gopsim sim --json --breakdown --critical-path --noise-period 50000 --noise-period-length 2000 \
//	  --seed 3 --network-type flow --topology fattree:k=4,n=2 \
//	  --timeline report/testdata/sim_allreduce.timeline.json examples/allreduce_recdoub_8.goal > report/testdata/sim_allreduce.json
func TestReportInputsFromSim(t *testing.T) {
	dir := t.TempDir()
	tl := filepath.Join(dir, "tl.json")
	code, out, errOut := run("sim", "--json", "--breakdown", "--critical-path", "--noise-period", "50000", "--noise-period-length", "2000",
		"--seed", "3", "--network-type", "flow", "--topology", "fattree:k=4,n=2", "--timeline", tl, "../../examples/allreduce_recdoub_8.goal")
	if code != ExitOK {
		t.Fatalf("sim: exit %d: %s", code, errOut)
	}
	norm := func(s string) string {
		return strings.ReplaceAll(strings.ReplaceAll(s, "../../examples/", "examples/"), tl, "report/testdata/sim_allreduce.timeline.json")
	}
	for _, f := range []struct{ got, golden string }{{out, "sim_allreduce.json"}, {readString(t, tl), "sim_allreduce.timeline.json"}} {
		want := readString(t, filepath.Join("..", "..", "report", "testdata", f.golden))
		if norm(f.got) != want {
			t.Errorf("gopsim sim no longer writes report/testdata/%s (regenerate it as the comment says if that is intended)", f.golden)
		}
	}
	res := filepath.Join(dir, "r.json")
	if err := os.WriteFile(res, []byte(out), 0o644); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "r.html")
	if code, _, errOut := run("report", res, "--timeline", tl, "-o", html); code != ExitOK {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	page := readString(t, html)
	for _, w := range []string{"Critical path", "840867", "flow"} {
		if !strings.Contains(page, w) {
			t.Errorf("the report lacks %q", w)
		}
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
