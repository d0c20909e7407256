package bench

import (
	"fmt"
	"math"
)

// The unknowns of a range's constrained fit. G is written D + O with
// D >= 0, so that the model's receive cost max(G, O) per byte is G and the
// half round trip L + 2o + bG is linear in the unknowns.
const (
	xL = iota // L, ns
	xo        // o, ns
	xg        // g, ns
	xD        // D = G - O, ns per byte
	xO        // O, ns per byte
	nUnknowns
)

// constraintNames name the constraint each unknown's x >= 0 stands for.
var constraintNames = [nUnknowns]string{"L >= 0", "o >= 0", "g >= 0", "G >= O", "O >= 0"}

// exchangePriority multiplies the weights of the exchanges in a range's
// fit: as much as the half round trips'. An exchange is what a ring, a
// halo or an all-to-all step pays, as a round trip is what a chain of
// dependent messages pays, and it tells the sender's per-byte cost O from
// G, which a round trip cannot. Not every exchange is a LogGOPS one: on
// this project's VM an exchange costs up to a constant 0.15 us (eager) to
// 1.5 us (rendezvous: the acknowledgements cross) more than half a round
// trip, which the model's excess bO - L cannot give, and the fit then
// shares that residual between the two series. Fitted after the round
// trips instead (a factor of 100), ping-pongs came out the same (38 and
// 42 of 50 sizes within 5 % in two calibrations, either way) and fewer
// exchanges within 5 % (28 against 32 and 35 of 50); fft_alltoall was
// predicted at 0.90 to 1.00 against 0.95 to 1.01 (docs/accuracy.md).
const exchangePriority = halfRTTPriority

// priority is the factor of series k's weights.
func priority(k int) float64 {
	switch k {
	case sHalf:
		return halfRTTPriority
	case sExch:
		return exchangePriority
	}
	return 1
}

// halfRTTPriority multiplies the weights of the half round trips in a
// range's fit. A round trip is what every chain of dependent messages
// pays, and the series LogGP derives from it, from the gap and from the
// overhead do not always agree with one model (shared memory moves a byte
// faster in a stream of sends than in a ping-pong): the factor makes the
// half round trips fitted first, as well as the constraints allow, and the
// gap and the overhead decide what the round trip leaves open (how L + 2o
// splits into L and o, g, O).
const halfRTTPriority = 1e4

// ConstraintFit says how the physical constraints (L, o, g, O >= 0 and
// G >= O) shaped a range's parameters: which were binding, the values
// without them, and the residuals of the three series with and without.
type ConstraintFit struct {
	// Binding lists the constraints that hold with equality and whose
	// removal would lower the residual, such as "L >= 0".
	Binding []string `json:"binding"`
	// Unconstrained holds the parameters of the same weighted least
	// squares without constraints.
	Unconstrained struct {
		L               float64 `json:"L_ns"`
		Overhead        float64 `json:"o_ns"`
		Gap             float64 `json:"g_ns"`
		GapPerByte      float64 `json:"G_ns_per_byte"`
		OverheadPerByte float64 `json:"O_ns_per_byte"`
	} `json:"unconstrained"`
	// Root mean square residuals of the half round trip, the gap and the
	// overhead against the constrained and the unconstrained parameters.
	RMSHalfRTTNs               float64 `json:"rms_resid_half_rtt_ns"`
	RMSGapNs                   float64 `json:"rms_resid_gap_ns"`
	RMSOverheadNs              float64 `json:"rms_resid_overhead_ns"`
	UnconstrainedRMSHalfRTTNs  float64 `json:"unconstrained_rms_resid_half_rtt_ns"`
	UnconstrainedRMSGapNs      float64 `json:"unconstrained_rms_resid_gap_ns"`
	UnconstrainedRMSOverheadNs float64 `json:"unconstrained_rms_resid_overhead_ns"`
	// The same for the exchange, when the table has exchange rounds.
	RMSExchangeNs              *float64 `json:"rms_resid_exchange_ns,omitempty"`
	UnconstrainedRMSExchangeNs *float64 `json:"unconstrained_rms_resid_exchange_ns,omitempty"`
	// WithoutExchangeRMSHalfRTTNs and WithoutExchangeRMSGapNs are the
	// half round trip's and the gap's residuals (constrained) of the same
	// range fitted without its exchange rounds: what fitting the exchanges
	// too cost the round trips and the streams of messages.
	WithoutExchangeRMSHalfRTTNs *float64 `json:"without_exchange_rms_resid_half_rtt_ns,omitempty"`
	WithoutExchangeRMSGapNs     *float64 `json:"without_exchange_rms_resid_gap_ns,omitempty"`
}

// model is series k of range r at b = s-1 bytes: the half round trip
// L + 2o + bG, the gap g + bG, the overhead o + bO or the exchange (the
// largest of exchangeForms).
func model(r Range, k int, b float64) float64 {
	switch k {
	case sHalf:
		return r.L + 2*r.Overhead + b*max(r.GapPerByte, r.OverheadPerByte)
	case sGap:
		return r.Gap + b*r.GapPerByte
	case sExch:
		f := exchangeForms(r, b)
		return max(f[0], f[1], f[2])
	default:
		return r.Overhead + b*r.OverheadPerByte
	}
}

// exchangeForms are the three times an exchange of b+1 bytes can take
// under the LogGOPS rules (docs/model.md), one per resource that bounds
// it; the exchange takes the largest (SimulateExchange checks them). Both
// ranks send at once: each CPU is busy o + bO, and the other's message
// arrives at o + L.
//
//	0: 2o + bO + bG   the message arrived while the CPU was still sending (bO >= L)
//	1: 2o + L + bG    the CPU was free when it arrived (L >= bO): a half round trip
//	2: g + bG         the NIC's gap is longer than both (g > 2o + max(L, bO))
//
// (G >= O, so the receive's per-byte cost max(bO, bG) is bG.)
func exchangeForms(r Range, b float64) [3]float64 {
	g := b * max(r.GapPerByte, r.OverheadPerByte)
	return [3]float64{2*r.Overhead + b*r.OverheadPerByte + g, 2*r.Overhead + r.L + g, r.Gap + g}
}

// exchangeRow is the row of coefficients of form f of exchangeForms.
func exchangeRow(f int, b float64) [nUnknowns]float64 {
	switch f {
	case 0:
		return [nUnknowns]float64{xo: 2, xD: b, xO: 2 * b}
	case 1:
		return [nUnknowns]float64{xL: 1, xo: 2, xD: b, xO: b}
	default:
		return [nUnknowns]float64{xg: 1, xD: b, xO: b}
	}
}

// exchangeForm is the form of exchangeForms that is largest for r at b.
func exchangeForm(r Range, b float64) int {
	f := exchangeForms(r, b)
	switch {
	case f[0] >= f[1] && f[0] >= f[2]:
		return 0
	case f[1] >= f[2]:
		return 1
	}
	return 2
}

// rangeRows are the weighted equations of a range's fit: a (rows of
// nUnknowns coefficients) x = y.
type rangeRows struct {
	a, y []float64
	m    int
}

// rows builds the equations of seg: per point and series present, the
// series' model over its standard error (the half round trip's and the
// exchange's times sqrt(halfRTTPriority)); an exchange's model is form
// forms[i] of exchangeForms at seg[i]. Unknowns no series determines get
// zero columns (nnls keeps them at 0): o and O without overhead or
// exchange rows, g without gap rows.
func rows(seg []point, forms []int) rangeRows {
	var has [nSeries]int
	for _, p := range seg {
		for k := range nSeries {
			if p.has[k] {
				has[k]++
			}
		}
	}
	var rr rangeRows
	for i, p := range seg {
		for k := range nSeries {
			if !p.has[k] {
				continue
			}
			var c [nUnknowns]float64
			w := math.Sqrt(priority(k)) / p.se[k]
			switch k {
			case sHalf:
				c = [nUnknowns]float64{xL: 1, xo: 2, xD: p.b, xO: p.b}
			case sGap:
				c = [nUnknowns]float64{xg: 1, xD: p.b, xO: p.b}
			case sOver:
				c = [nUnknowns]float64{xo: 1, xO: p.b}
			case sExch:
				c = exchangeRow(forms[i], p.b)
			}
			if has[sOver] == 0 && has[sExch] == 0 {
				c[xo], c[xO] = 0, 0
			}
			for j := range c {
				rr.a = append(rr.a, w*c[j])
			}
			rr.y = append(rr.y, w*p.y[k])
			rr.m++
		}
	}
	return rr
}

// toRange turns the unknowns into a range's parameters.
func toRange(x []float64) Range {
	return Range{MinBytes: 0, MaxBytes: MaxMessageBytes, L: x[xL], Overhead: x[xo], Gap: x[xg],
		GapPerByte: x[xD] + x[xO], OverheadPerByte: x[xO]}
}

// rmsResid is the root mean square residual of series k over seg against r.
func rmsResid(seg []point, r Range, k int) float64 {
	var ss float64
	n := 0
	for _, p := range seg {
		if p.has[k] {
			d := p.y[k] - model(r, k, p.b)
			ss += d * d
			n++
		}
	}
	if n == 0 {
		return 0
	}
	return math.Sqrt(ss / float64(n))
}

// fitRange fits the parameters of one range: the weighted least squares
// of its three series under L, o, g, O >= 0 and G >= O (nnls), and the
// same without constraints for comparison. It returns the constrained
// range (covering all sizes: the caller sets its bounds), the range's fit
// report and the unconstrained range.
func fitRange(seg []point, l [nSeries]line) (Range, RangeFit, Range, error) {
	rr, x, err := solveRange(seg)
	if err != nil {
		return Range{}, RangeFit{}, Range{}, err
	}
	free := lstsq(rr.a, rr.m, nUnknowns, rr.y)
	rg, uc := toRange(x), toRange(free)
	var cf ConstraintFit
	cf.Binding = binding(rr, x)
	cf.Unconstrained.L, cf.Unconstrained.Overhead, cf.Unconstrained.Gap = round(uc.L, 3), round(uc.Overhead, 3), round(uc.Gap, 3)
	cf.Unconstrained.GapPerByte, cf.Unconstrained.OverheadPerByte = round(uc.GapPerByte, 6), round(uc.OverheadPerByte, 6)
	for k, dst := range [...][2]*float64{{&cf.RMSHalfRTTNs, &cf.UnconstrainedRMSHalfRTTNs},
		{&cf.RMSGapNs, &cf.UnconstrainedRMSGapNs}, {&cf.RMSOverheadNs, &cf.UnconstrainedRMSOverheadNs}} {
		*dst[0], *dst[1] = round(rmsResid(seg, rg, k), 3), round(rmsResid(seg, uc, k), 3)
	}
	if l[sExch].n > 0 {
		cf.RMSExchangeNs, cf.UnconstrainedRMSExchangeNs = finite(rmsResid(seg, rg, sExch), 3), finite(rmsResid(seg, uc, sExch), 3)
		plain := make([]point, len(seg))
		for i, p := range seg {
			p.has[sExch] = false
			plain[i] = p
		}
		if _, x, err := solveRange(plain); err == nil {
			cf.WithoutExchangeRMSHalfRTTNs = finite(rmsResid(seg, toRange(x), sHalf), 3)
			if l[sGap].n > 0 {
				cf.WithoutExchangeRMSGapNs = finite(rmsResid(seg, toRange(x), sGap), 3)
			}
		}
	}
	hl, gl, ol := l[sHalf], l[sGap], l[sOver]
	rf := RangeFit{
		MeasuredMinBytes: seg[0].size, MeasuredMaxBytes: seg[len(seg)-1].size, Points: len(seg),
		R2HalfRTT: finite(hl.r2, 6), R2Gap: finite(gl.r2, 6), R2Overhead: finite(ol.r2, 6), R2Exchange: finite(l[sExch].r2, 6),
		RMSHalfRTTNs: round(rms(hl), 3), RMSGapNs: round(rms(gl), 3), RMSOverheadNs: round(rms(ol), 3),
		LSE:        round(math.Hypot(hl.aSE, 2*ol.aSE), 3),
		OverheadSE: round(ol.aSE, 3), GapSE: round(gl.aSE, 3),
		GapPerByteSE: round(gl.bSE, 6), OverheadPerByteSE: round(ol.bSE, 6), GRTT: round(hl.b, 6),
		Constraints: cf,
	}
	if l[sExch].n > 0 {
		rf.RMSExchangeNs = finite(rms(l[sExch]), 3)
	}
	return rg, rf, uc, nil
}

// maxFormRounds bounds solveRange's rounds from one start: each changes
// the form of at least one exchange, and a form changes back only by a
// tie.
const maxFormRounds = 8

// solveRange is the constrained least squares of seg. An exchange's model
// is the largest of three linear forms (exchangeForms), and which one
// depends on the unknowns, so the problem is piecewise linear: from each
// start (every exchange in form 0, in form 1, in form 2) solveRange
// refits with the forms the solution gives until they stay the same, and
// keeps the solution with the least weighted squared residual. One start
// is not enough: with L >= bO the exchange is a half round trip, which L
// = O = 0 and a larger o fit as well in form 0, at the cost of the
// overhead series alone.
func solveRange(seg []point) (rangeRows, []float64, error) {
	var best rangeRows
	var bestX []float64
	bestSS := math.Inf(1)
	hasExch := false
	for _, p := range seg {
		hasExch = hasExch || p.has[sExch]
	}
	for start := range 3 {
		if start > 0 && !hasExch {
			break
		}
		forms := make([]int, len(seg))
		for i := range forms {
			forms[i] = start
		}
		rr, x, err := solveForms(seg, forms)
		if err != nil {
			return rr, nil, err
		}
		if ss := residualSS(rr, x); ss < bestSS {
			best, bestX, bestSS = rr, x, ss
		}
	}
	return best, bestX, nil
}

// solveForms solves seg with its exchanges in forms, then again with the
// forms the solution gives, until they stay the same (maxFormRounds at
// most). forms is updated.
func solveForms(seg []point, forms []int) (rangeRows, []float64, error) {
	for round := 0; ; round++ {
		rr := rows(seg, forms)
		x, err := nnls(rr.a, rr.m, nUnknowns, rr.y)
		if err != nil {
			return rr, nil, fmt.Errorf("%w: %v", ErrFit, err)
		}
		changed := false
		for i, p := range seg {
			if f := exchangeForm(toRange(x), p.b); p.has[sExch] && f != forms[i] {
				forms[i], changed = f, true
			}
		}
		if !changed || round+1 == maxFormRounds {
			return rr, x, nil
		}
	}
}

// residual is y - ax, rr's residual at x.
func (rr rangeRows) residual(x []float64) []float64 {
	r := make([]float64, rr.m)
	for i := range rr.m {
		r[i] = rr.y[i]
		for j := range nUnknowns {
			r[i] -= rr.a[i*nUnknowns+j] * x[j]
		}
	}
	return r
}

// residualSS is the squared norm of rr's residual at x.
func residualSS(rr rangeRows, x []float64) float64 {
	var ss float64
	for _, r := range rr.residual(x) {
		ss += r * r
	}
	return ss
}

// binding lists the constraints active at x whose multipliers are
// positive: the residual's gradient pushes the unknown below 0.
func binding(rr rangeRows, x []float64) []string {
	out := []string{}
	r := rr.residual(x)
	var rnorm float64
	for _, ri := range r {
		rnorm = math.Hypot(rnorm, ri)
	}
	for j := range nUnknowns {
		if x[j] != 0 {
			continue
		}
		var g, cn float64 // Aᵀr and the column's norm
		for i := range rr.m {
			g += rr.a[i*nUnknowns+j] * r[i]
			cn = math.Hypot(cn, rr.a[i*nUnknowns+j])
		}
		if cn > 0 && -g/cn > 1e-6*max(rnorm, 1e-9) {
			out = append(out, constraintNames[j])
		}
	}
	return out
}
