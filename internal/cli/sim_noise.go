package cli

import (
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/noise"
)

// simNoise holds the noise and straggler flags of `gopsim sim`
// (LogGOPSim's --noise-trace and --noise-cosched, and gopsim's synthetic
// sources).
type simNoise struct {
	traceFile  string
	cfg        noise.Config
	stragglers string
}

func (n *simNoise) flags(fs *flag.FlagSet) {
	fs.StringVar(&n.traceFile, "noise-trace", "", "charge OS noise from a measured trace `file` (LogGOPSim's format: start<TAB>duration in ns; see gopsim noise measure)")
	fs.BoolVar(&n.cfg.Cosched, "noise-cosched", false, "co-scheduled noise: every rank reads the trace (or periodic detours) at the same offset; needs --noise-trace or --noise-period")
	fs.Uint64Var(&n.cfg.Seed, "seed", 0, "`seed` for noise offsets, random detours, straggler choice and --mapping random")
	fs.Var(nsQty(&n.cfg.PeriodNs), "noise-period", "periodic detours: one every `ns` (or with a unit: 1ms; each rank with its own phase); needs --noise-period-length")
	fs.Var(nsQty(&n.cfg.PeriodDurNs), "noise-period-length", "periodic detours: each `ns` long (or with a unit: 25us); needs --noise-period")
	fs.StringVar(&n.cfg.Dist, "noise-dist", "", "random detours: inter-arrival and length distribution, `exp` or pareto; needs --noise-interval")
	fs.Var(nsQty(&n.cfg.MeanIntervalNs), "noise-interval", "random detours: mean inter-arrival time in `ns` (or with a unit: 1.5ms); needs --noise-dist")
	fs.Var(nsQty(&n.cfg.MeanDurNs), "noise-length", "random detours: mean length in `ns` (or with a unit: 20us); needs --noise-dist")
	fs.Float64Var(&n.cfg.Alpha, "noise-alpha", 2, "random detours: Pareto shape `alpha` (> 1); only with --noise-dist pareto")
	fs.StringVar(&n.stragglers, "stragglers", "", "straggler `ranks`, comma-separated (ranges a-b allowed)")
	fs.Float64Var(&n.cfg.StragglerFraction, "straggler-fraction", 0, "make this `fraction` of the ranks stragglers, chosen from --seed")
	fs.Float64Var(&n.cfg.Factor, "straggler-factor", 1, "stragglers' CPU work takes this `factor` times longer (1 to 1e6); needs --stragglers or --straggler-fraction")
}

// parseRanks parses "1,5,8-11".
func parseRanks(s string) ([]int32, error) {
	var out []int32
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.ParseInt(lo, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("rank list %q: %q is not a rank", s, f)
		}
		b := a
		if isRange {
			if b, err = strconv.ParseInt(hi, 10, 32); err != nil || b < a {
				return nil, fmt.Errorf("rank list %q: %q is not a range a-b with a <= b", s, f)
			}
		}
		for r := a; r <= b; r++ {
			out = append(out, int32(r))
		}
	}
	return out, nil
}

// model builds the noise model, nil without noise.
func (n *simNoise) model(numRanks int) (*noise.Model, error) {
	cfg := n.cfg
	if n.traceFile != "" {
		t, err := noise.ReadTraceFile(n.traceFile)
		if err != nil {
			return nil, err
		}
		cfg.Trace = t
	}
	if n.stragglers != "" {
		r, err := parseRanks(n.stragglers)
		if err != nil {
			return nil, fmt.Errorf("--stragglers: %w", err)
		}
		cfg.Stragglers = r
	}
	if err := n.needs(cfg); err != nil {
		return nil, usageMistake(err)
	}
	if cfg.Dist == "" {
		cfg.Alpha = 0
	}
	if !cfg.Enabled() {
		return nil, nil
	}
	n.cfg = cfg
	return noise.New(cfg, numRanks)
}

// needs refuses a noise flag that would have no effect without another
// (noise.Unused, the rule gopsim sweep applies to its keys). The flags'
// defaults are their zero values, and 2 for --noise-alpha and 1 for
// --straggler-factor, so a value other than those was given. --seed is
// not checked here: the network's random placement draws from it too
// (checkSeed).
func (n *simNoise) needs(cfg noise.Config) error {
	for _, f := range []struct {
		flag string
		v    float64
	}{{"noise-interval", cfg.MeanIntervalNs}, {"noise-length", cfg.MeanDurNs}, {"noise-alpha", cfg.Alpha},
		{"straggler-fraction", cfg.StragglerFraction}, {"straggler-factor", cfg.Factor},
		{"noise-period", float64(cfg.PeriodNs)}, {"noise-period-length", float64(cfg.PeriodDurNs)}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("--%s %v: want a number >= 0", f.flag, f.v)
		}
	}
	given := cfg.Present() &^ noise.SettingSeed
	if cfg.Alpha == 2 {
		given &^= noise.SettingAlpha
	}
	return noise.Unused(given, cfg.Used(), cfg.Present(), simNoiseFlag)
}

// simNoiseFlag spells a noise setting as its flag.
func simNoiseFlag(s noise.Settings) string {
	switch s {
	case noise.SettingMeanInterval:
		return "--noise-interval"
	case noise.SettingMeanDur:
		return "--noise-length"
	case noise.SettingDist:
		return "--noise-dist"
	case noise.SettingAlpha:
		return "--noise-alpha"
	case noise.SettingPeriod:
		return "--noise-period"
	case noise.SettingPeriodDur:
		return "--noise-period-length"
	case noise.SettingCosched:
		return "--noise-cosched"
	case noise.SettingFactor:
		return "--straggler-factor"
	case noise.SettingStragglers:
		return "--stragglers"
	case noise.SettingStragglerFraction:
		return "--straggler-fraction"
	case noise.SettingSeed:
		return "--seed"
	case noise.SettingTrace:
		return "--noise-trace"
	}
	return ""
}

// drawsSeed says whether the noise model built by model draws from
// --seed: the offsets into a noise trace or a period (one shared offset
// under --noise-cosched), random detours, or the choice of stragglers.
func (n *simNoise) drawsSeed() bool {
	return n.cfg.Used()&noise.SettingSeed != 0
}

// checkSeed refuses --seed in a run that draws nothing from it: neither
// the noise (drawsSeed) nor --mapping random without its own seed.
func checkSeed(given bool, n *simNoise, net *simNetwork) error {
	if given && !n.drawsSeed() && !net.seeded {
		return fmt.Errorf("--seed has no effect: nothing in this run is random (it seeds noise offsets and random detours, --straggler-fraction and --mapping random)")
	}
	return nil
}

// noiseReport is the "noise" part of the JSON result: the settings used
// and the noise each rank absorbed.
type noiseReport struct {
	Config   noiseConfigReport `json:"config"`
	PerRank  []int64           `json:"absorbed_ns_per_rank"`
	Total    int64             `json:"total_ns"`
	MaxRank  int               `json:"max_rank"`
	MaxNs    int64             `json:"max_ns"`
	numRanks int
}

type noiseConfigReport struct {
	Trace             string  `json:"trace,omitempty"`
	TraceDetours      int     `json:"trace_detours,omitempty"`
	TracePeriodNs     int64   `json:"trace_period_ns,omitempty"`
	Cosched           bool    `json:"cosched"`
	Seed              uint64  `json:"seed"`
	PeriodNs          int64   `json:"period_ns,omitempty"`
	PeriodLengthNs    int64   `json:"period_length_ns,omitempty"`
	Dist              string  `json:"dist,omitempty"`
	MeanIntervalNs    float64 `json:"mean_interval_ns,omitempty"`
	MeanLengthNs      float64 `json:"mean_length_ns,omitempty"`
	Alpha             float64 `json:"alpha,omitempty"`
	Stragglers        []int32 `json:"stragglers,omitempty"`
	StragglerFraction float64 `json:"straggler_fraction,omitempty"`
	StragglerFactor   float64 `json:"straggler_factor,omitempty"`
}

// config returns the noise settings of model m, which results echo; nil
// without noise.
func (n *simNoise) config(m *noise.Model) *noiseConfigReport {
	if m == nil {
		return nil
	}
	c := n.cfg
	r := &noiseConfigReport{
		Trace: n.traceFile, Cosched: c.Cosched, Seed: c.Seed, PeriodNs: c.PeriodNs, PeriodLengthNs: c.PeriodDurNs,
		Dist: c.Dist, MeanIntervalNs: c.MeanIntervalNs, MeanLengthNs: c.MeanDurNs, Alpha: c.Alpha,
		Stragglers: c.Stragglers, StragglerFraction: c.StragglerFraction}
	if c.Trace != nil {
		r.TraceDetours, r.TracePeriodNs = len(c.Trace.Start), c.Trace.Period
	}
	if len(c.Stragglers) > 0 || c.StragglerFraction > 0 {
		r.StragglerFactor = c.Factor
	}
	return r
}

func (n *simNoise) report(m *noise.Model, numRanks int) *noiseReport {
	if m == nil {
		return nil
	}
	r := &noiseReport{numRanks: numRanks, PerRank: make([]int64, numRanks), Config: *n.config(m)}
	for k := range r.PerRank {
		a := m.Absorbed(k)
		r.PerRank[k] = a
		r.Total += a
		if a > r.MaxNs {
			r.MaxNs, r.MaxRank = a, k
		}
	}
	return r
}

func (r *noiseReport) text(w io.Writer) {
	if r == nil {
		return
	}
	r.Config.text(w)
	sorted := slices.Clone(r.PerRank)
	slices.Sort(sorted)
	fmt.Fprintf(w, "noise absorbed: total %d ns, per rank min %d ns, median %d ns, max %d ns (rank %d)\n",
		r.Total, sorted[0], sorted[len(sorted)/2], r.MaxNs, r.MaxRank)
}

// text writes the "noise:" line of the text result: the sources of
// noise and the seed.
func (c *noiseConfigReport) text(w io.Writer) {
	if c == nil {
		return
	}
	fmt.Fprintf(w, "noise:      %s\n", c.describe())
}

// describe says what the noise is: its sources and the seed.
func (c *noiseConfigReport) describe() string {
	var src []string
	if c.Trace != "" {
		src = append(src, fmt.Sprintf("trace %s (%d detours over %d ns)", c.Trace, c.TraceDetours, c.TracePeriodNs))
	}
	if c.PeriodNs > 0 {
		src = append(src, fmt.Sprintf("periodic %d ns every %d ns", c.PeriodLengthNs, c.PeriodNs))
	}
	if c.Dist != "" {
		shape := ""
		if c.Dist == "pareto" {
			shape = fmt.Sprintf(" (alpha %g)", c.Alpha)
		}
		src = append(src, fmt.Sprintf("random %s detours%s of mean %s ns every %s ns", c.Dist, shape,
			strconv.FormatFloat(c.MeanLengthNs, 'f', -1, 64), strconv.FormatFloat(c.MeanIntervalNs, 'f', -1, 64)))
	}
	if c.StragglerFactor > 0 {
		s := fmt.Sprintf("stragglers x%g", c.StragglerFactor)
		if len(c.Stragglers) > 0 {
			s += fmt.Sprintf(" ranks %v", c.Stragglers)
		}
		if c.StragglerFraction > 0 {
			s += fmt.Sprintf(" fraction %g", c.StragglerFraction)
		}
		src = append(src, s)
	}
	co := ""
	if c.Cosched {
		co = ", co-scheduled"
	}
	return fmt.Sprintf("%s (seed %d%s)", strings.Join(src, "; "), c.Seed, co)
}
