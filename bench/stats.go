package bench

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// OutlierFence is the Tukey fence factor of Summarize: a sample further
// than OutlierFence times the interquartile range below the first or above
// the third quartile is rejected ("far out" in Tukey's terms).
const OutlierFence = 3.0

// Summary describes the repetitions of one (n, d, s) configuration after
// outlier rejection. Times are in ns.
type Summary struct {
	Median float64 `json:"median_ns"`
	// IQR is the interquartile range and MAD the median absolute deviation
	// from the median, both of the kept samples.
	IQR      float64 `json:"iqr_ns"`
	MAD      float64 `json:"mad_ns"`
	Reps     int     `json:"reps"`     // samples in the table
	Rejected int     `json:"rejected"` // outside the fences
	// Q is the quantile of the kept samples that the fit uses
	// (FitOptions.Quantile; the median when that is 0.5).
	Q float64 `json:"q_ns"`
}

// SE estimates the standard error of the median from the MAD (normal
// approximation: 1.2533 * 1.4826 * MAD / sqrt(kept)), never less than
// floor.
func (s Summary) SE(floor float64) float64 {
	kept := s.Reps - s.Rejected
	if kept < 1 {
		return math.Inf(1)
	}
	sigma := 1.4826 * s.MAD
	if sigma == 0 {
		sigma = s.IQR / 1.349
	}
	return max(1.2533*sigma/math.Sqrt(float64(kept)), floor)
}

// SEAt estimates the standard error of the q-quantile of the kept samples
// (normal approximation: σ·sqrt(q(1-q))/φ(z_q)/sqrt(kept), σ from the
// MAD; for q = 0.5 it is SE), never less than floor.
func (s Summary) SEAt(q, floor float64) float64 {
	q = min(max(q, 0.01), 0.99)
	z := distuv.UnitNormal.Quantile(q)
	return max(s.SE(0)*math.Sqrt(q*(1-q))/distuv.UnitNormal.Prob(z)/1.2533, floor)
}

// Summarize rejects outliers from xs (Tukey fences at OutlierFence IQRs)
// and summarizes the rest, Q being the median. xs must not be empty; it is
// not modified.
func Summarize(xs []float64) Summary { return SummarizeAt(xs, 0.5) }

// SummarizeAt is Summarize with Q the q-quantile (0 <= q <= 1) of the
// kept samples.
func SummarizeAt(xs []float64, q float64) Summary {
	s := slices.Clone(xs)
	slices.Sort(s)
	q1 := quantile(s, 0.25)
	q3 := quantile(s, 0.75)
	lo, hi := q1-OutlierFence*(q3-q1), q3+OutlierFence*(q3-q1)
	kept := s[:0:0]
	for _, x := range s {
		if x >= lo && x <= hi {
			kept = append(kept, x)
		}
	}
	med := quantile(kept, 0.5)
	dev := make([]float64, len(kept))
	for i, x := range kept {
		dev[i] = math.Abs(x - med)
	}
	slices.Sort(dev)
	return Summary{
		Median:   med,
		IQR:      quantile(kept, 0.75) - quantile(kept, 0.25),
		MAD:      quantile(dev, 0.5),
		Reps:     len(xs),
		Rejected: len(xs) - len(kept),
		Q:        quantile(kept, q),
	}
}

// quantile is the p-quantile of sorted xs, interpolated between order
// statistics (Hyndman and Fan's type 7, R's default: the median of an even
// number of values is the mean of the middle two).
func quantile(xs []float64, p float64) float64 {
	h := p * float64(len(xs)-1)
	i := int(h)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (h-float64(i))*(xs[i+1]-xs[i])
}
