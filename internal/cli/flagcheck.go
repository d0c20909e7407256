package cli

import (
	"flag"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/gopsim/gopsim/pattern"
)

// A flag that would have no effect is an error (docs/reliability.md):
// the tables here say what each flag needs, and the checks name the flag.

// traceFlagScope says, for the trace flags shared by convert and
// extrapolate, which inputs (from) or outputs (to) they apply to.
var traceFlagScope = []struct {
	flag, needs string
	applies     func(from, to string) bool
}{
	{"coll-algo", "a trace input", isTrace},
	{"coll-select", "a trace input", isTrace},
	{"compute-scale", "a trace input", isTrace},
	{"unsupported", "a trace input", isTrace},
	{"reduce-cost", "a trace input", isTrace},
	{"library-costs", "a trace converted to GOAL", func(from, to string) bool { return from != "goal" && to != "tit" }},
	{"timemult", "a liballprof input", func(from, _ string) bool { return from == "liballprof" }},
	{"mpi", "a liballprof input", func(from, _ string) bool { return from == "liballprof" }},
	{"host-speed", "a SimGrid TIT input or --to tit", func(from, to string) bool { return from == "tit" || to == "tit" }},
	// extrapolate: a schedule's copies keep their messages unless --grid names its grid.
	{"no-grid", "a trace input (a schedule's copies keep their point-to-point messages unless --grid names its grid)", isTrace},
}

func isTrace(from, _ string) bool { return from != "goal" }

// checkConvertFlags is checkTraceFlags for the flags of fs and input in
// (its format detected unless --from gives it; an input that cannot be
// read is left to the conversion to report).
func checkConvertFlags(fs *flag.FlagSet, in, to string, o *ConvertOptions) error {
	from := o.From
	if from == "" {
		f, err := DetectFormat(in)
		if err != nil {
			return nil
		}
		from = f
	}
	return checkTraceFlags(setFlags(fs), from, to, o)
}

// checkTraceFlags refuses trace flags given for an input they do not
// apply to, and numbers that are not numbers of their kind. A compute
// scale of 0 given on the command line drops the computation.
func checkTraceFlags(given map[string]bool, from, to string, o *ConvertOptions) error {
	for _, s := range traceFlagScope {
		if given[s.flag] && !s.applies(from, to) {
			return fmt.Errorf("--%s applies to %s; the input %s", s.flag, s.needs, describeFrom(from))
		}
	}
	for _, c := range []struct {
		flag string
		v    float64
		ok   func(float64) bool
		want string
	}{
		{"compute-scale", o.Trace.ComputeScale, nonNegative, "a factor >= 0 (0: no computation)"},
		{"reduce-cost", o.Trace.ReduceNsPerByte, nonNegative, "ns/byte >= 0"},
		{"timemult", o.TimeMult, positive, "a factor > 0"},
		{"host-speed", o.HostSpeed, positive, "a speed in flop/s > 0"},
	} {
		if given[c.flag] && !c.ok(c.v) {
			return fmt.Errorf("--%s %v: want %s", c.flag, c.v, c.want)
		}
	}
	o.Trace.NoCompute = given["compute-scale"] && o.Trace.ComputeScale == 0
	return nil
}

func describeFrom(from string) string {
	if from == "goal" {
		return "is a GOAL schedule"
	}
	return "is a " + from + " trace"
}

func nonNegative(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }
func positive(v float64) bool    { return v > 0 && !math.IsInf(v, 0) }

// needsFlags refuses flags given without a flag they need: needs maps a
// flag to the flags of which one must be given too, and why.
func needsFlags(given map[string]bool, needs []flagNeed) error {
	for _, n := range needs {
		if !given[n.flag] {
			continue
		}
		found := false
		for _, o := range n.anyOf {
			found = found || given[o]
		}
		if !found {
			alts := make([]string, len(n.anyOf))
			for i, o := range n.anyOf {
				alts[i] = "--" + o
			}
			sort.Strings(alts)
			return fmt.Errorf("--%s needs %s: %s", n.flag, strings.Join(alts, " or "), n.why)
		}
	}
	return nil
}

// flagNeed: flag has an effect only with one of anyOf.
type flagNeed struct {
	flag  string
	anyOf []string
	why   string
}

// genCommonFlags apply to every pattern.
var genCommonFlags = map[string]bool{"p": true, "o": true, "quiet": true, "list": true, "s": true, "d": true}

// checkGenFlags refuses a flag the pattern does not use (the pattern's
// flag list, as gen --list shows it), a rank count below 1, a root outside
// the ranks, a segment of 0 bytes and a reduction cost that is not a
// cost. (The integer flags' own ranges are their intFlag's.)
func checkGenFlags(given map[string]bool, o GenOptions) error {
	p := &o.Params
	if given["s"] && p.Ranks < 1 {
		return fmt.Errorf("-s %d: a schedule needs at least 1 rank", p.Ranks)
	}
	if given["root"] && p.Root >= p.Ranks {
		return fmt.Errorf("--root %d: want a rank from 0 to %d (-s %d)", p.Root, p.Ranks-1, p.Ranks)
	}
	if given["segmentsize"] && p.Segment == 0 {
		return fmt.Errorf("--segmentsize 0: want at least 1 byte (omit it for the default)")
	}
	if given["reduce-cost"] && !nonNegative(p.ReduceNsPerByte) {
		return fmt.Errorf("--reduce-cost %v: want ns/byte >= 0", p.ReduceNsPerByte)
	}
	pat, err := pattern.Lookup(o.Pattern)
	if err != nil {
		return nil // Gen names the unknown pattern
	}
	uses := map[string]bool{}
	for _, f := range pat.Flags {
		uses[strings.TrimLeft(f, "-")] = true
	}
	var unused []string
	for f := range given {
		if !genCommonFlags[f] && !uses[f] {
			unused = append(unused, "--"+f)
		}
	}
	if len(unused) > 0 {
		sort.Strings(unused)
		return fmt.Errorf("%s does not apply to pattern %s, which uses %s", strings.Join(unused, ", "), pat.Name, strings.Join(pat.Flags, " "))
	}
	return nil
}

// mergeNeeds: --seed draws the random placement only.
func mergeNeeds(policy string) []flagNeed {
	if policy == "random" {
		return nil
	}
	return []flagNeed{{"seed", []string{"placement random"}, "the seed draws the random placement only"}}
}

// reportNeeds: the timeline flags need a timeline, --sweep-y a sweep.
var reportNeeds = []flagNeed{
	{"ranks", []string{"timeline"}, "it picks the ranks of the timeline"},
	{"timeline-ranks", []string{"timeline"}, "it bounds the ranks of the timeline"},
	{"timeline-ops", []string{"timeline"}, "it bounds the ops of the timeline"},
	{"sweep-y", []string{"sweep"}, "it picks the column of the sweep plots"},
}
