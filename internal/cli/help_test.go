package cli

import (
	"regexp"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/sweep"
)

// TestHelpMatchesBehaviour: what `gopsim help CMD` says a flag needs, or
// what a sweep can vary, is what the command does (the tables the checks
// use are the ones the help is checked against).
func TestHelpMatchesBehaviour(t *testing.T) {
	helpOf := func(cmd string) string {
		code, out, e := run("help", cmd)
		if code != ExitOK {
			t.Fatalf("help %s: exit %d: %s", cmd, code, e)
		}
		return out
	}
	t.Run("sweep dimensions", func(t *testing.T) {
		h := helpOf("sweep")
		for _, d := range sweep.Dims {
			if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(d.Name) + ` `).MatchString(h) {
				t.Errorf("help sweep does not list the dimension %s", d.Name)
			}
		}
		if !strings.Contains(h, strings.Join(sweep.Header(), ",")) {
			t.Errorf("help sweep does not give the CSV's columns %s", strings.Join(sweep.Header(), ","))
		}
		for _, wrong := range []string{"not dimensions", "not sweep dimensions"} {
			if strings.Contains(h, wrong) {
				t.Errorf("help sweep says %q", wrong)
			}
		}
		if !strings.Contains(h, ".lock") {
			t.Errorf("help sweep does not tell of the lock")
		}
	})
	t.Run("sim noise flags name what they need", func(t *testing.T) {
		h := helpOf("sim")
		for flag, needs := range map[string]string{
			"noise-interval": "--noise-dist", "noise-length": "--noise-dist", "noise-dist": "--noise-interval",
			"noise-alpha": "--noise-dist pareto", "noise-period": "--noise-period-length", "noise-period-length": "--noise-period",
			"noise-cosched": "--noise-trace or --noise-period", "straggler-factor": "--stragglers or --straggler-fraction",
		} {
			if u := flagUsage(h, flag); !strings.Contains(u, needs) {
				t.Errorf("help sim: -%s says %q, not that it needs %s", flag, u, needs)
			}
		}
	})
	t.Run("convert flags name their inputs", func(t *testing.T) {
		h := helpOf("convert")
		if !strings.Contains(h, "a flag given for an\ninput it does not apply to is an error") {
			t.Errorf("help convert does not say that a flag for another input is an error")
		}
		words := map[string]string{"a trace input": "", "a liballprof input": "liballprof", "a SimGrid TIT input or --to tit": "TIT"}
		for _, s := range traceFlagScope {
			if w := words[s.needs]; w != "" && !strings.Contains(flagUsage(h, s.flag), w) {
				t.Errorf("help convert: -%s does not say it is for %s", s.flag, s.needs)
			}
		}
		if !strings.Contains(flagUsage(h, "compute-scale"), "0: no computation") {
			t.Errorf("help convert: --compute-scale does not say what 0 does")
		}
	})
	t.Run("gen", func(t *testing.T) {
		if h := helpOf("gen"); !strings.Contains(h, "a flag the\npattern does not use is an error") || !strings.Contains(flagUsage(h, "s"), "at least 1") {
			t.Errorf("help gen does not say that unused flags and -s 0 are errors")
		}
	})
}

// flagUsage is the usage text of -name in a flag set's PrintDefaults
// output: its line and the indented lines below it.
func flagUsage(help, name string) string {
	lines := strings.Split(help, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "  -"+name+" ") || l == "  -"+name {
			u := l
			for _, m := range lines[i+1:] {
				if !strings.HasPrefix(m, "    \t") {
					break
				}
				u += " " + strings.TrimSpace(m)
			}
			return u
		}
	}
	return ""
}
