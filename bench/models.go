package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/sim"
)

// ModelFile is a parameter file for the whole model family: the LogGOPS
// keys of a ParamFile and the sections of the other models
// (sim.ReadParams reads it, `gopsim sim --model NAME --params FILE`).
// A section is absent when its measurements were not taken: the model
// then runs with the defaults docs/models.md derives from LogGOPS.
type ModelFile struct {
	*ParamFile
	AlphaBeta *sim.AlphaBetaParams `json:"alphabeta,omitempty"`
	LogfP     *sim.LogfPParams     `json:"logfp,omitempty"`
	PLogP     *sim.PLogPParams     `json:"plogp,omitempty"`
	Log3P     *sim.Log3PParams     `json:"log3p,omitempty"`
	ModelFit  ModelFitReport       `json:"model_fit"`
}

// ModelFitReport says how the model sections were found.
type ModelFitReport struct {
	AlphaBeta *AlphaBetaFit `json:"alphabeta,omitempty"`
	LogfP     *LogfPFit     `json:"logfp,omitempty"`
	PLogP     string        `json:"plogp,omitempty"`
	Log3P     string        `json:"log3p,omitempty"`
	Warnings  []string      `json:"warnings"`
}

// AlphaBetaFit is the quality of Hockney's line through the half round
// trips.
type AlphaBetaFit struct {
	R2      *float64 `json:"r2"`
	RMSNs   float64  `json:"rms_resid_ns"`
	AlphaSE float64  `json:"alpha_se_ns"`
	BetaSE  float64  `json:"beta_se_ns_per_byte"`
}

// LogfPFit is the hinge fit of a burst round trip RTT(P) over P.
type LogfPFit struct {
	SizeBytes int64 `json:"s_bytes"`
	MaxP      int   `json:"max_p"`
	// Slopes before and after the hinge at f: o and g per message, ns.
	SlopeBefore float64 `json:"slope_before_ns"`
	SlopeAfter  float64 `json:"slope_after_ns"`
	Intercept   float64 `json:"intercept_ns"`
	RMSNs       float64 `json:"rms_resid_ns"`
	// Medians of RTT(P), P = 1..MaxP.
	RTT []float64 `json:"rtt_ns"`
}

// Write writes the file as indented JSON.
func (m *ModelFile) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(m)
}

// WriteFile writes the file to path through a temporary file renamed
// into place.
func (m *ModelFile) WriteFile(path string) error {
	if err := atomicfile.Write(path, m.Write); err != nil {
		return fmt.Errorf("writing parameter file %s: %w", path, err)
	}
	return nil
}

// ModelInputs are the measurements FitModels uses beyond the PRTT table:
// each may be nil.
type ModelInputs struct {
	// Burst holds PRTT(P,0,s) rounds for P = 1, 2, ... at one size
	// (MeasureBurst): LogfP's f.
	Burst Table
	// Pack holds pack and unpack times by size and stride (MeasurePack):
	// log3P's table.
	Pack PackTable
}

// FitModels fits the parameters of the model family to the PRTT table t
// (whose LogGOPS fit is pf) and the extra measurements in in.
//
//   - alpha-beta: a weighted line through the half round trips
//     PRTT(1,0,s)/2 over s: alpha is its intercept, beta its slope.
//   - PLogP: per measured size, g(s) is the gap series g + (s-1)G,
//     o_s(s) the overhead series o + (s-1)O, L the smallest size's half
//     round trip less 2 o_s (taking o_r = o_s there), and o_r(s) the half
//     round trip less L and o_s(s), so that o_s + L + o_r is the half
//     round trip at every size.
//   - LogfP (with in.Burst): a continuous hinge through the medians of
//     RTT(P), slope o while the CPU limits and g once the gap does; f
//     follows from where they meet (fitLogfP). A straight line at the
//     gap's slope is f = 1 (LogGP); one that never steepens gives only
//     the lower bound f = the longest burst (a warning says so).
//   - log3P (with in.Pack): the medians of the pack and unpack times.
func FitModels(pf *ParamFile, t Table, in ModelInputs) (*ModelFile, error) {
	mf := &ModelFile{ParamFile: pf, ModelFit: ModelFitReport{Warnings: []string{}}}
	pts, _, err := points(t, pf.Fit.statistic()) // the statistic pf was fitted with
	if err != nil {
		return nil, err
	}
	warn := func(format string, a ...any) {
		mf.ModelFit.Warnings = append(mf.ModelFit.Warnings, fmt.Sprintf(format, a...))
	}

	// alpha-beta
	var x, y, se []float64
	for _, p := range pts {
		x, y, se = append(x, float64(p.size)), append(y, p.y[sHalf]), append(se, p.se[sHalf])
	}
	l := fitLine(x, y, se)
	mf.AlphaBeta = &sim.AlphaBetaParams{Alpha: round(max(l.a, 0), 3), Beta: round(max(l.b, 0), 6)}
	mf.ModelFit.AlphaBeta = &AlphaBetaFit{R2: finite(l.r2, 6), RMSNs: round(rms(l), 3), AlphaSE: round(l.aSE, 3), BetaSE: round(l.bSE, 6)}
	if l.a < 0 || l.b < 0 {
		warn("alphabeta: the line through the half round trips has alpha = %.1f ns, beta = %.4g ns/byte; negative values set to 0", l.a, l.b)
	}

	// PLogP
	var full []point
	for _, p := range pts {
		if p.has[sGap] && p.has[sOver] {
			full = append(full, p)
		}
	}
	if len(full) == 0 {
		warn("plogp: no size has both PRTT(n,0,s) and PRTT(n,d,s) rows; no table (sim uses its default)")
	} else {
		L := full[0].y[sHalf] - 2*full[0].y[sOver]
		if L < 0 {
			warn("plogp: L = %.1f ns from the smallest size is negative (o_s exceeds half the half round trip); set to 0", L)
			L = 0
		}
		pl := &sim.PLogPParams{L: round(L, 3)}
		for _, p := range full {
			os, g := p.y[sOver], p.y[sGap]
			or := p.y[sHalf] - L - os
			if or < 0 || os < 0 || g < 0 {
				warn("plogp: at %d bytes o_s = %.1f, o_r = %.1f, g = %.1f ns; negative values set to 0", p.size, os, or, g)
			}
			pl.Points = append(pl.Points, sim.PLogPPoint{Size: uint64(p.size), Os: round(max(os, 0), 3), Or: round(max(or, 0), 3), Gap: round(max(g, 0), 3)})
		}
		mf.PLogP = pl
		mf.ModelFit.PLogP = "per measured size: g(s) = (PRTT(n,0,s)-PRTT(1,0,s))/(n-1), o_s(s) = the overhead series, L = PRTT(1,0,s_min)/2 - 2 o_s(s_min), o_r(s) = PRTT(1,0,s)/2 - L - o_s(s)"
	}

	// LogfP
	if len(in.Burst) > 0 {
		f, fit, err := fitLogfP(in.Burst, pf.Ranges[0].Gap)
		if err != nil {
			return nil, err
		}
		mf.LogfP = f
		mf.ModelFit.LogfP = fit
		if f.F == int64(fit.MaxP) {
			warn("logfp: RTT(P) does not steepen up to P = %d (slopes %.1f then %.1f ns): no gap-limited region, so f = %d is a lower bound", fit.MaxP, fit.SlopeBefore, fit.SlopeAfter, f.F)
		}
	}

	// log3P
	if len(in.Pack) > 0 {
		mf.Log3P = in.Pack.Params()
		mf.ModelFit.Log3P = "medians of the pack and unpack times per size and stride (Go copies of 8-byte elements, stride bytes apart)"
	}
	return mf, nil
}

// fitLogfP fits the hinge to a burst table: the rows with d = 0 at the
// size that has the most distinct n. g0 is the LogGOPS fit's g, which
// decides a burst table without a kink: slope g from the start is f = 1.
//
// With o(P) = o, LogfP's P:1 round trip is 2L + o + P·o while the CPU
// limits (slope o) and 2L + 2o + (P-f)·g once the gap does (slope g): the
// two lines meet at the hinge h, where o + h·o = 2o + (h-f)·g, so
// f = (o + (g-o)·h)/g, rounded.
func fitLogfP(t Table, g0 float64) (*sim.LogfPParams, *LogfPFit, error) {
	bySize := map[int64]map[int][]float64{}
	for _, s := range t {
		if s.DelayNs != 0 || s.Exchange {
			continue
		}
		m := bySize[s.SizeBytes]
		if m == nil {
			m = map[int][]float64{}
			bySize[s.SizeBytes] = m
		}
		m[s.N] = append(m[s.N], float64(s.PRTTNs))
	}
	var size int64
	for s, m := range bySize {
		if len(m) > len(bySize[size]) || len(m) == len(bySize[size]) && s < size {
			size = s
		}
	}
	m := bySize[size]
	if len(m) < 3 {
		return nil, nil, fmt.Errorf("%w: the burst table has %d values of P at one size, want at least 3", ErrFit, len(m))
	}
	ns := make([]int, 0, len(m))
	for n := range m {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	px := make([]float64, len(ns))
	py := make([]float64, len(ns))
	for i, n := range ns {
		px[i], py[i] = float64(n), Summarize(m[n]).Median
	}
	h, a, b, c, sse := hinge(px, py)
	maxP := ns[len(ns)-1]
	fit := &LogfPFit{SizeBytes: size, MaxP: maxP, SlopeBefore: round(b, 3), SlopeAfter: round(c, 3), Intercept: round(a, 3),
		RMSNs: round(math.Sqrt(sse/float64(len(px))), 3)}
	for _, v := range py {
		fit.RTT = append(fit.RTT, round(v, 1))
	}
	var f int64
	steepens := h >= 0 && c > 1.05*b
	switch {
	case !steepens && b >= 0.9*g0: // one line at the gap's slope
		f = 1
	case !steepens: // the CPU limits throughout
		f = int64(maxP)
	default:
		f = int64(math.Round((b + (c-b)*h) / c))
	}
	f = min(max(f, 1), int64(maxP))
	return &sim.LogfPParams{F: f}, fit, nil
}

// hinge fits y = a + b·min(x, h) + c·max(x-h, 0), a continuous line that
// bends at h, for h on a fine grid between the second and the
// second-to-last x, and a straight line (h = -1), and returns the fit with
// the smallest Bayesian information criterion.
func hinge(x, y []float64) (h, a, b, c, sse float64) {
	n := float64(len(x))
	bic := func(sse float64, k int) float64 { return n*math.Log(max(sse, 1e-9)/n) + float64(k)*math.Log(n) }
	ones := make([]float64, len(x))
	for i := range ones {
		ones[i] = 1
	}
	l := fitLine(x, y, ones)
	h, a, b, c, sse = -1, l.a, l.b, l.b, l.sse
	best := bic(sse, 2)
	const steps = 20
	for i := 1; i+1 < len(x); i++ {
		for k := range steps {
			hk := x[i] + (x[i+1]-x[i])*float64(k)/steps
			var s [3][3]float64
			var r [3]float64
			for j := range x {
				v := [3]float64{1, min(x[j], hk), max(x[j]-hk, 0)}
				for p := range 3 {
					for q := range 3 {
						s[p][q] += v[p] * v[q]
					}
					r[p] += v[p] * y[j]
				}
			}
			sol, ok := solve3(s, r)
			if !ok {
				continue
			}
			var e float64
			for j := range x {
				d := y[j] - (sol[0] + sol[1]*min(x[j], hk) + sol[2]*max(x[j]-hk, 0))
				e += d * d
			}
			if v := bic(e, 4); v < best { // the hinge's position is a parameter too
				best, h, a, b, c, sse = v, hk, sol[0], sol[1], sol[2], e
			}
		}
	}
	return h, a, b, c, sse
}

// solve3 solves the 3x3 system s·v = r by Gaussian elimination with
// partial pivoting.
func solve3(s [3][3]float64, r [3]float64) ([3]float64, bool) {
	for col := range 3 {
		p := col
		for row := col + 1; row < 3; row++ {
			if math.Abs(s[row][col]) > math.Abs(s[p][col]) {
				p = row
			}
		}
		if math.Abs(s[p][col]) < 1e-12 {
			return [3]float64{}, false
		}
		s[col], s[p] = s[p], s[col]
		r[col], r[p] = r[p], r[col]
		for row := col + 1; row < 3; row++ {
			k := s[row][col] / s[col][col]
			for q := col; q < 3; q++ {
				s[row][q] -= k * s[col][q]
			}
			r[row] -= k * r[col]
		}
	}
	var v [3]float64
	for row := 2; row >= 0; row-- {
		x := r[row]
		for q := row + 1; q < 3; q++ {
			x -= s[row][q] * v[q]
		}
		v[row] = x / s[row][row]
	}
	return v, true
}
