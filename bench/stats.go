package bench

import (
	"math"
	"slices"
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
	// (FitOptions.Quantile; the median when that is 0.5), and QSE its
	// standard error from the order statistics around it (see SEAt).
	Q   float64 `json:"q_ns"`
	QSE float64 `json:"q_se_ns"`
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

// SEAt is the standard error of Q, never less than floor. For the
// q-quantile of the kept samples it is half the distance between the order statistics
// one binomial standard deviation, sqrt(n q (1-q)) ranks, below and above
// it (the distribution-free confidence interval of a quantile). Unlike
// one from the MAD it follows the samples' shape: noise that only adds
// time spreads the samples above a sharp floor, and a low quantile there
// is known much better than the MAD suggests. For a mean
// (SummarizeMean) it is the samples' standard deviation over the square
// root of their number.
func (s Summary) SEAt(floor float64) float64 {
	if s.Reps-s.Rejected < 1 {
		return math.Inf(1)
	}
	return max(s.QSE, floor)
}

// quantileSE is SEAt's order-statistic standard error of the q-quantile
// of sorted xs.
func quantileSE(xs []float64, q float64) float64 {
	n := float64(len(xs))
	if len(xs) < 2 {
		return 0
	}
	h := math.Sqrt(n * q * (1 - q))
	lo := int(math.Floor(q*(n-1) - h))
	hi := int(math.Ceil(q*(n-1) + h))
	lo, hi = max(lo, 0), min(hi, len(xs)-1)
	return (xs[hi] - xs[lo]) / 2 * math.Sqrt(n*q*(1-q)) / math.Max(float64(hi-lo)/2, 1)
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
	sm := spread(len(xs), kept, quantile(kept, 0.5))
	sm.Q, sm.QSE = quantile(kept, q), quantileSE(kept, q)
	return sm
}

// spread is the Summary of n samples of which the sorted kept ones were
// kept, around the median med, without Q and QSE.
func spread(n int, kept []float64, med float64) Summary {
	dev := make([]float64, len(kept))
	for i, x := range kept {
		dev[i] = math.Abs(x - med)
	}
	slices.Sort(dev)
	return Summary{
		Median:   med,
		IQR:      quantile(kept, 0.75) - quantile(kept, 0.25),
		MAD:      quantile(dev, 0.5),
		Reps:     n,
		Rejected: n - len(kept),
	}
}

// SummarizeMean is Summarize with Q the mean of the samples up to cutoff
// times their median and up to stall ns beyond it (cutoff or stall 0: no
// such bound), which are the kept ones: Rejected counts those above.
// Noise that only adds time is part of the mean, where Tukey's fences
// would drop most of it (FitOptions.Mean).
func SummarizeMean(xs []float64, cutoff, stall float64) Summary {
	s := slices.Clone(xs)
	slices.Sort(s)
	med := quantile(s, 0.5)
	lim := math.Inf(1)
	if cutoff > 0 {
		lim = cutoff * med
	}
	if stall > 0 {
		lim = min(lim, med+stall)
	}
	n, _ := slices.BinarySearchFunc(s, lim, func(x, lim float64) int {
		if x > lim {
			return 1
		}
		return -1
	})
	kept := s[:max(n, 1)]
	var sum, sq float64
	for _, x := range kept {
		sum += x
	}
	mean := sum / float64(len(kept))
	for _, x := range kept {
		sq += (x - mean) * (x - mean)
	}
	sm := spread(len(xs), kept, med)
	sm.Q = mean
	if len(kept) > 1 {
		sm.QSE = math.Sqrt(sq/float64(len(kept)-1)) / math.Sqrt(float64(len(kept)))
	}
	return sm
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
