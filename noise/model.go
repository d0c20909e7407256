package noise

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
)

// ErrConfig is returned (wrapped) for an unusable noise configuration.
var ErrConfig = errors.New("noise: invalid configuration")

// Config selects the noise sources; zero values switch a source off. All
// sources add up. Times are in ns.
type Config struct {
	Seed uint64 // per-rank offsets and random detours are drawn from it

	// Trace is a measured noise trace (LogGOPSim's --noise-trace). Each
	// rank starts reading it at its own offset, uniform in [0, Period) and
	// drawn from Seed, unless Cosched gives every rank the same offset.
	Trace   *Trace
	Cosched bool

	// Periodic detours: every PeriodNs a detour of PeriodDurNs, each rank
	// with its own phase (the same phase with Cosched).
	PeriodNs, PeriodDurNs int64

	// Random detours: inter-arrival times and lengths drawn from Dist
	// ("exp" or "pareto") with these means; Pareto uses shape Alpha > 1.
	Dist                      string
	MeanIntervalNs, MeanDurNs float64
	Alpha                     float64

	// Stragglers: the listed ranks, and a fraction of all ranks drawn from
	// Seed, run every CPU charge Factor times longer (Factor > 1).
	Stragglers        []int32
	StragglerFraction float64
	Factor            float64
}

// Enabled reports whether c adds any noise.
func (c *Config) Enabled() bool {
	return c.Trace != nil || c.PeriodNs > 0 || c.Dist != "" || ((len(c.Stragglers) > 0 || c.StragglerFraction > 0) && c.Factor != 1)
}

// Model charges noise to CPU work. It is deterministic: the same Config
// and number of ranks give the same detours, whatever order the charges
// come in.
type Model struct {
	cfg      Config
	offset   []int64 // per rank: trace offset
	phase    []int64 // per rank: periodic phase
	straggle []bool
	window   int64 // random detours: length of an independently drawn window
	absorbed []int64
}

// MaxFactor bounds a straggler factor; MaxDetour bounds one detour (and
// one straggler's extra time per charge), in ns: about 36 years, so that
// a charge is never a wrapped or negative time.
const (
	MaxFactor = 1e6
	MaxDetour = 1 << 60
)

// New prepares the model for numRanks ranks.
func New(cfg Config, numRanks int) (*Model, error) {
	if cfg.PeriodNs < 0 || cfg.PeriodDurNs < 0 || (cfg.PeriodNs > 0 && cfg.PeriodDurNs >= cfg.PeriodNs) {
		return nil, fmt.Errorf("%w: periodic detours of %d ns every %d ns", ErrConfig, cfg.PeriodDurNs, cfg.PeriodNs)
	}
	switch cfg.Dist {
	case "":
	case "exp", "pareto":
		if !(cfg.MeanIntervalNs >= 1) || !(cfg.MeanDurNs >= 0) || cfg.MeanDurNs >= cfg.MeanIntervalNs {
			return nil, fmt.Errorf("%w: random detours need 0 <= mean length (%g ns) < mean interval (%g ns)", ErrConfig, cfg.MeanDurNs, cfg.MeanIntervalNs)
		}
		if cfg.Dist == "pareto" && !(cfg.Alpha > 1) {
			return nil, fmt.Errorf("%w: Pareto shape %g: need alpha > 1 for a finite mean", ErrConfig, cfg.Alpha)
		}
	default:
		return nil, fmt.Errorf("%w: distribution %q: expected exp or pareto", ErrConfig, cfg.Dist)
	}
	if (len(cfg.Stragglers) > 0 || cfg.StragglerFraction > 0) && !(cfg.Factor >= 1 && cfg.Factor <= MaxFactor) {
		return nil, fmt.Errorf("%w: straggler factor %g: need 1..%g", ErrConfig, cfg.Factor, float64(MaxFactor))
	}
	if !(cfg.StragglerFraction >= 0 && cfg.StragglerFraction <= 1) {
		return nil, fmt.Errorf("%w: straggler fraction %g outside 0..1", ErrConfig, cfg.StragglerFraction)
	}
	if cfg.Dist != "" && math.IsInf(cfg.MeanIntervalNs, 0) {
		return nil, fmt.Errorf("%w: random detours every %g ns on average", ErrConfig, cfg.MeanIntervalNs)
	}
	m := &Model{cfg: cfg, absorbed: make([]int64, numRanks)}
	rnd := rand.New(rand.NewPCG(cfg.Seed, 0x6e6f697365))
	if cfg.Trace != nil {
		m.offset = make([]int64, numRanks)
		shared := rnd.Int64N(cfg.Trace.Period)
		for r := range m.offset {
			if cfg.Cosched {
				m.offset[r] = shared
			} else {
				m.offset[r] = rnd.Int64N(cfg.Trace.Period)
			}
		}
	}
	if cfg.PeriodNs > 0 {
		m.phase = make([]int64, numRanks)
		shared := rnd.Int64N(cfg.PeriodNs)
		for r := range m.phase {
			if cfg.Cosched {
				m.phase[r] = shared
			} else {
				m.phase[r] = rnd.Int64N(cfg.PeriodNs)
			}
		}
	}
	if len(cfg.Stragglers) > 0 || cfg.StragglerFraction > 0 {
		m.straggle = make([]bool, numRanks)
		for _, r := range cfg.Stragglers {
			if r < 0 || int(r) >= numRanks {
				return nil, fmt.Errorf("%w: straggler rank %d outside 0..%d", ErrConfig, r, numRanks-1)
			}
			m.straggle[r] = true
		}
		if f := cfg.StragglerFraction; f > 0 {
			// Exactly round(f·P) ranks, chosen by a seeded partial shuffle.
			k := int(math.Round(f * float64(numRanks)))
			perm := make([]int32, numRanks)
			for i := range perm {
				perm[i] = int32(i)
			}
			for i := 0; i < k; i++ {
				j := i + rnd.IntN(numRanks-i)
				perm[i], perm[j] = perm[j], perm[i]
				m.straggle[perm[i]] = true
			}
		}
	}
	if cfg.Dist != "" {
		m.window = int64(math.Ceil(16 * cfg.MeanIntervalNs))
	}
	return m, nil
}

// Charge returns the extra ns that noise adds to CPU work of length ns
// starting at start on rank r, and counts it as absorbed by r.
func (m *Model) Charge(r int32, start, length int64) int64 {
	var extra int64
	if t := m.cfg.Trace; t != nil {
		extra += t.in(start+m.offset[r], length)
	}
	if p := m.cfg.PeriodNs; p > 0 {
		extra += periodic(start+m.phase[r], length, p, m.cfg.PeriodDurNs)
	}
	if m.window > 0 {
		extra += m.random(r, start, length)
	}
	if m.straggle != nil && m.straggle[r] {
		extra += clampNs(math.Round(float64(length) * (m.cfg.Factor - 1)))
	}
	m.absorbed[r] += extra
	return extra
}

// Absorbed is the noise charged to rank r so far, in ns.
func (m *Model) Absorbed(r int) int64 { return m.absorbed[r] }

// periodic: detours [kP, kP+d) for every k; the rest of one in progress
// at a plus every one starting in [a, a+n).
func periodic(a, n, p, d int64) int64 {
	var total int64
	if x := a % p; x > 0 && x < d {
		total += d - x
	}
	// starts kP in [a, a+n): k from ceil(a/p) to ceil((a+n)/p)-1
	first := (a + p - 1) / p
	last := (a + n + p - 1) / p
	total += (last - first) * d
	return total
}

// random: detours of a renewal process drawn independently per rank and
// per window of 16 mean intervals (exact for exponential inter-arrivals,
// whose process is memoryless; for Pareto the window edges restart the
// process). Each charge regenerates the windows it touches, so the result
// does not depend on the order of charges.
func (m *Model) random(r int32, a, n int64) int64 {
	var total int64
	w := m.window
	for k := max(a/w-1, 0); k*w < a+n; k++ {
		var src rand.PCG // a value: no allocation per charge
		src.Seed(m.cfg.Seed^0x72616e646f6d, uint64(r)<<32^uint64(k))
		t := k * w
		for {
			t += max(m.draw(&src, m.cfg.MeanIntervalNs), 1)
			if t >= (k+1)*w || t >= a+n {
				break
			}
			d := m.draw(&src, m.cfg.MeanDurNs)
			switch {
			case t < a && t+d > a:
				total += t + d - a
			case t >= a:
				total += d
			}
		}
	}
	return total
}

// draw samples the distribution with the given mean.
func (m *Model) draw(src *rand.PCG, mean float64) int64 {
	if mean == 0 {
		return 0
	}
	u := float64(src.Uint64()>>11) / (1 << 53) // uniform in [0, 1)
	if m.cfg.Dist == "pareto" {
		a := m.cfg.Alpha
		xm := mean * (a - 1) / a
		return clampNs(math.Round(xm / math.Pow(1-u, 1/a)))
	}
	return clampNs(math.Round(-math.Log(1-u) * mean))
}

// clampNs converts a non-negative time to ns, at most MaxDetour: a heavy
// Pareto tail or a huge straggler factor saturates instead of wrapping.
func clampNs(v float64) int64 {
	if !(v < MaxDetour) {
		return MaxDetour
	}
	return int64(v)
}
