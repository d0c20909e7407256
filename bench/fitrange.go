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
}

// model is series k of range r at b = s-1 bytes: the half round trip
// L + 2o + bG, the gap g + bG or the overhead o + bO.
func model(r Range, k int, b float64) float64 {
	switch k {
	case sHalf:
		return r.L + 2*r.Overhead + b*max(r.GapPerByte, r.OverheadPerByte)
	case sGap:
		return r.Gap + b*r.GapPerByte
	default:
		return r.Overhead + b*r.OverheadPerByte
	}
}

// rangeRows are the weighted equations of a range's fit: a (rows of
// nUnknowns coefficients) x = y.
type rangeRows struct {
	a, y []float64
	m    int
}

// rows builds the equations of seg: per point and series present, the
// series' model over its standard error (the half round trip's times
// sqrt(halfRTTPriority)). Unknowns no series determines get zero columns
// (nnls keeps them at 0): o and O without overhead rows, g without gap
// rows.
func rows(seg []point) rangeRows {
	var has [nSeries]int
	for _, p := range seg {
		for k := range nSeries {
			if p.has[k] {
				has[k]++
			}
		}
	}
	var rr rangeRows
	for _, p := range seg {
		for k := range nSeries {
			if !p.has[k] {
				continue
			}
			var c [nUnknowns]float64
			w := 1 / p.se[k]
			switch k {
			case sHalf:
				w *= math.Sqrt(halfRTTPriority)
				c = [nUnknowns]float64{xL: 1, xo: 2, xD: p.b, xO: p.b}
			case sGap:
				c = [nUnknowns]float64{xg: 1, xD: p.b, xO: p.b}
			case sOver:
				c = [nUnknowns]float64{xo: 1, xO: p.b}
			}
			if has[sOver] == 0 {
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
	rr := rows(seg)
	x, err := nnls(rr.a, rr.m, nUnknowns, rr.y)
	if err != nil {
		return Range{}, RangeFit{}, Range{}, fmt.Errorf("%w: %v", ErrFit, err)
	}
	free := lstsq(rr.a, rr.m, nUnknowns, rr.y)
	rg, uc := toRange(x), toRange(free)
	var cf ConstraintFit
	cf.Binding = binding(rr, x)
	cf.Unconstrained.L, cf.Unconstrained.Overhead, cf.Unconstrained.Gap = round(uc.L, 3), round(uc.Overhead, 3), round(uc.Gap, 3)
	cf.Unconstrained.GapPerByte, cf.Unconstrained.OverheadPerByte = round(uc.GapPerByte, 6), round(uc.OverheadPerByte, 6)
	for k, dst := range [nSeries][2]*float64{{&cf.RMSHalfRTTNs, &cf.UnconstrainedRMSHalfRTTNs},
		{&cf.RMSGapNs, &cf.UnconstrainedRMSGapNs}, {&cf.RMSOverheadNs, &cf.UnconstrainedRMSOverheadNs}} {
		*dst[0], *dst[1] = round(rmsResid(seg, rg, k), 3), round(rmsResid(seg, uc, k), 3)
	}
	hl, gl, ol := l[sHalf], l[sGap], l[sOver]
	rf := RangeFit{
		MeasuredMinBytes: seg[0].size, MeasuredMaxBytes: seg[len(seg)-1].size, Points: len(seg),
		R2HalfRTT: finite(hl.r2, 6), R2Gap: finite(gl.r2, 6), R2Overhead: finite(ol.r2, 6),
		RMSHalfRTTNs: round(rms(hl), 3), RMSGapNs: round(rms(gl), 3), RMSOverheadNs: round(rms(ol), 3),
		LSE:        round(math.Hypot(hl.aSE, 2*ol.aSE), 3),
		OverheadSE: round(ol.aSE, 3), GapSE: round(gl.aSE, 3),
		GapPerByteSE: round(gl.bSE, 6), OverheadPerByteSE: round(ol.bSE, 6), GRTT: round(hl.b, 6),
		Constraints: cf,
	}
	return rg, rf, uc, nil
}

// binding lists the constraints active at x whose multipliers are
// positive: the residual's gradient pushes the unknown below 0.
func binding(rr rangeRows, x []float64) []string {
	out := []string{}
	r := make([]float64, rr.m)
	var rnorm float64
	for i := range rr.m {
		r[i] = rr.y[i]
		for j := range nUnknowns {
			r[i] -= rr.a[i*nUnknowns+j] * x[j]
		}
		rnorm = math.Hypot(rnorm, r[i])
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
