package bench

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/gopsim/gopsim/sim"
	"gonum.org/v1/gonum/stat"
)

// FitOptions control Fit. The zero value of every field is its documented
// default.
type FitOptions struct {
	// MaxRanges bounds the number of size ranges; 0 means
	// DefaultMaxRanges, and 1 turns change detection off.
	MaxRanges int
	// MinPoints is the fewest measured sizes a range may have; 0 means 3
	// (a line and one degree of freedom), less than 3 is raised to 3.
	MinPoints int
	// Quantile is the statistic of each round's repetitions (after
	// outlier rejection) that the fit uses, 0 < Quantile <= 1: 0.5 is the
	// median; 0 means DefaultQuantile, unless Mean is set.
	Quantile float64
	// Mean fits the mean of each round's repetitions instead of a
	// quantile (Quantile must then be 0): every repetition counts but
	// those beyond MeanCutoff times the median. An application's time is
	// the sum of its messages' costs, so the mean, the slow rounds
	// included, is what predicts it (see MeanCutoff).
	Mean bool
}

// MeanCutoff bounds the repetitions FitOptions.Mean averages: one more
// than MeanCutoff times the median of its round is a process descheduled
// for milliseconds, which OS noise models (docs/noise.md), not a message's
// cost. The slow rounds below it are what the median misses: on this
// project's 2-vCPU test machine 5 % of the 8-byte round trips took 2 to
// 50 times the median, the mean was 1.39 times the median, and a ping-pong
// program's measured round trip 1.34 times it (docs/accuracy.md).
const MeanCutoff = 100

// MeanStall bounds the repetitions FitOptions.Mean averages in time as
// MeanCutoff does in proportion: a round more than MeanStall ns longer
// than the median of its own is a process descheduled too (a time slice
// of the host's or the guest's scheduler, 1 to 40 ms on this project's
// VM), whatever the message's size. MeanCutoff alone let such rounds
// into the means of messages above about 10 us: in one calibration 7 of
// the 200 round trips of 786,432 bytes were 1.5 to 16 ms longer than the
// median of 164 us, and made the mean 460 us (docs/accuracy.md). No round
// of 128 KiB or less was that much slower than its median.
const MeanStall = 1e6

// statistic is what a fit takes of each round's repetitions.
type statistic struct {
	mean bool
	q    float64
}

// summarize summarizes xs with Q the statistic.
func (st statistic) summarize(xs []float64) Summary {
	if st.mean {
		return SummarizeMean(xs, MeanCutoff, MeanStall)
	}
	return SummarizeAt(xs, st.q)
}

func (opt FitOptions) statistic() statistic { return statistic{opt.Mean, opt.Quantile} }

// name is FitReport.Statistic for st.
func (st statistic) name() string {
	if st.mean {
		return "mean"
	}
	return "quantile"
}

// statistic is the statistic a fit report names; a report of a file
// written before FitReport.Statistic existed names the quantile (the
// median when that is absent too).
func (f FitReport) statistic() statistic {
	st := statistic{mean: f.Statistic == "mean", q: f.Quantile}
	if !st.mean && st.q == 0 {
		st.q = DefaultQuantile
	}
	return st
}

// DefaultMaxRanges is FitOptions.MaxRanges' default: Open MPI's shared
// memory alone has five protocols or so (inline sends, fast boxes, eager
// copies, single copy, and copies beyond the caches), and a range must end
// where they change for a ping-pong to be reproduced at every size.
const DefaultMaxRanges = 8

// DefaultQuantile is FitOptions.Quantile's default when Mean is not set,
// the median: the typical cost of one message. An application's time is
// the sum of its messages' costs, which the mean predicts better on a
// machine whose slow rounds are frequent (FitOptions.Mean, `gopsim
// calibrate`'s default since 2026-11-27); fitted at the 10th percentile,
// a 2-rank ping-pong of 8-byte messages on this project's test machine was
// predicted at 0.78 of its measured time, at the median 0.91
// (docs/accuracy.md). A low quantile (--quantile 0.1) estimates the
// undisturbed cost, on a machine where noise only ever adds time; the
// far-out fences already drop the descheduled rounds.
const DefaultQuantile = 0.5

// Change detection: a split of a range is kept when it removes at least
// 1-splitRatio of the range's weighted squared residuals and at least
// splitChi2 of them in units of the points' standard errors (the half
// round trip's, whose squared residuals count halfRTTPriority times). The ratio
// keeps smooth curvature from being cut up when the standard errors are
// small; the absolute floor keeps noise from being split.
const (
	splitRatio = 0.25
	splitChi2  = 25.0
	// A change is a jump (not only a change of slope) when the two lines
	// differ at both measured sizes next to it, with the same sign, by more
	// than jumpSigmas standard errors and by more than jumpRel of their
	// value.
	jumpSigmas = 5.0
	jumpRel    = 0.02
	// A range whose half round trips a line misses by more than
	// splitHalfRTTRel somewhere is split even when the split removes
	// less than 1-splitRatio of its residuals: several changes close
	// together, or a curve, which a ping-pong at every size needs followed.
	splitHalfRTTRel = 0.02
)

// halfRTTOff is the largest relative residual of the half round trips of
// pts against their weighted least-squares line.
func halfRTTOff(pts []point) float64 {
	l := seriesLine(pts, sHalf)
	worst := 0.0
	for _, p := range pts {
		if p.has[sHalf] && p.y[sHalf] > 0 {
			worst = max(worst, math.Abs(p.y[sHalf]-l.at(p.b))/p.y[sHalf])
		}
	}
	return worst
}

// Describe names the statistic fitted, for people: "the mean" or "the 0.5
// quantile".
func (f FitReport) Describe() string {
	if st := f.statistic(); !st.mean {
		return fmt.Sprintf("the %g quantile", st.q)
	}
	return fmt.Sprintf("the mean (up to %d times the median and %g ms beyond it)", MeanCutoff, MeanStall/1e6)
}

// ErrFit is wrapped by errors about a table that does not allow a fit.
var ErrFit = errors.New("bench: cannot fit")

// FitReport says how the parameters were found and how well they fit.
type FitReport struct {
	Method string `json:"method"`
	// Statistic is what was fitted of each round's repetitions: "mean"
	// (FitOptions.Mean) or "quantile", Quantile (FitOptions.Quantile).
	// Every q_ns below is that statistic.
	Statistic string  `json:"statistic"`
	Quantile  float64 `json:"quantile,omitempty"`
	// MaxRanges is the most size ranges the fit could find
	// (FitOptions.MaxRanges; 1: no change detection).
	MaxRanges int        `json:"max_ranges,omitempty"`
	Ranges    []RangeFit `json:"ranges"`
	Changes   []Change   `json:"changes"`
	Points    []PointFit `json:"points"`
	// PingPong compares, per measured size, the round trip of a ping-pong
	// simulated with the fitted parameters with the measured one.
	PingPong []PingPongPoint `json:"pingpong"`
	// Exchange compares, per size with exchange rounds, a simulated
	// exchange with the measured one.
	Exchange []ExchangePoint `json:"exchange,omitempty"`
}

// RangeFit is the quality of one range's fit: R² of the three lines (absent
// when the series is flat within its standard errors, as o often is) and
// the root mean square of
// their residuals, standard errors of the parameters, and G as the slope
// of the half round trip (which LogGP says equals G).
type RangeFit struct {
	MeasuredMinBytes  int64    `json:"measured_min_bytes"`
	MeasuredMaxBytes  int64    `json:"measured_max_bytes"`
	Points            int      `json:"points"`
	R2HalfRTT         *float64 `json:"r2_half_rtt"`
	R2Gap             *float64 `json:"r2_gap"`
	R2Overhead        *float64 `json:"r2_overhead"`
	R2Exchange        *float64 `json:"r2_exchange,omitempty"`
	RMSHalfRTTNs      float64  `json:"rms_resid_half_rtt_ns"`
	RMSGapNs          float64  `json:"rms_resid_gap_ns"`
	RMSOverheadNs     float64  `json:"rms_resid_overhead_ns"`
	RMSExchangeNs     *float64 `json:"rms_resid_exchange_ns,omitempty"`
	LSE               float64  `json:"L_se_ns"`
	OverheadSE        float64  `json:"o_se_ns"`
	GapSE             float64  `json:"g_se_ns"`
	GapPerByteSE      float64  `json:"G_se_ns_per_byte"`
	OverheadPerByteSE float64  `json:"O_se_ns_per_byte"`
	GRTT              float64  `json:"G_rtt_ns_per_byte"`
	// Constraints says how the physical constraints shaped the range's
	// parameters.
	Constraints ConstraintFit `json:"constraints"`
}

// Change is a detected protocol change between two measured sizes.
type Change struct {
	AfterBytes  int64 `json:"after_bytes"`  // last measured size below
	BeforeBytes int64 `json:"before_bytes"` // first measured size above
	// HalfRTTJump and GapJump are the differences between the upper and
	// the lower range's lines, the smaller of those at the two sizes.
	HalfRTTJump float64 `json:"half_rtt_jump_ns"`
	GapJump     float64 `json:"gap_jump_ns"`
	// Jump is true for a discontinuity (eager to rendezvous, say) and
	// false for a change of slope only (a packet size, say).
	Jump bool `json:"jump"`
	// Chi2Gain is the weighted squared residual the split removed.
	Chi2Gain float64 `json:"chi2_gain"`
	// EagerLimit marks the change that gives S (Fit).
	EagerLimit bool `json:"gives_S"`

	relJump float64 // the half round trip's jump relative to its value
}

// PointFit is one measured size: the summaries of its three rounds, the
// three derived series and their residuals against the range's lines.
type PointFit struct {
	SizeBytes int64    `json:"s_bytes"`
	Range     int      `json:"range"`
	N         int      `json:"n"`
	DelayNs   float64  `json:"d_ns"`
	PRTT1     Summary  `json:"prtt_1_0"`
	PRTTN     *Summary `json:"prtt_n_0,omitempty"`
	PRTTND    *Summary `json:"prtt_n_d,omitempty"`
	// HalfRTT is PRTT(1,0,s)/2 = L + 2o + (s-1)G. The residuals are
	// against the range's fitted parameters.
	HalfRTT      float64 `json:"half_rtt_ns"`
	HalfRTTResid float64 `json:"half_rtt_resid_ns"`
	// Gap is (PRTT(n,0,s) - PRTT(1,0,s))/(n-1) = g + (s-1)G.
	Gap      *float64 `json:"gap_ns,omitempty"`
	GapResid *float64 `json:"gap_resid_ns,omitempty"`
	// Overhead is o + (s-1)O: from PRTT(n,d,s) and PRTT(2,d,s), the slope
	// over n-1 of the medians of PRTT(n,d,s) - (n-1)d; from PRTT(n,d,s)
	// alone, (PRTT(n,d,s) - PRTT(1,0,s))/(n-1) - d. DelayNs is the median d.
	Overhead      *float64 `json:"overhead_ns,omitempty"`
	OverheadResid *float64 `json:"overhead_resid_ns,omitempty"`
	// IdleExtra is what a round trip after an idle period (the delay)
	// costs more than PRTT(1,0,s): wake-ups at both ends. Present with
	// PRTT(n,d,s) rows for two n.
	IdleExtra *float64 `json:"idle_extra_ns,omitempty"`
	// Exchange is (X(n,s) - X(1,s))/(n-1), the time of one exchange, from
	// exchange rounds of 1 and of ExchangeN exchanges (their summaries).
	ExchangeN     int      `json:"exchange_n,omitempty"`
	Exchange1     *Summary `json:"exchange_1,omitempty"`
	ExchangeNSum  *Summary `json:"exchange_n_rounds,omitempty"`
	Exchange      *float64 `json:"exchange_ns,omitempty"`
	ExchangeResid *float64 `json:"exchange_resid_ns,omitempty"`
}

// The derived series of a point: the three of LogGP, and the exchange
// (present when the table has exchange rounds).
const (
	sHalf = iota
	sGap
	sOver
	sExch
	nSeries
)

// point is one size's derived values and their standard errors.
type point struct {
	size int64
	b    float64 // size-1
	n    int
	d    float64
	p1   Summary
	pn   *Summary
	pnd  *Summary
	x1   *Summary // exchange rounds of one exchange, X(1,s)
	xn   *Summary // of xN exchanges, X(xN,s)
	xN   int
	y    [nSeries]float64
	se   [nSeries]float64
	has  [nSeries]bool
	cold *float64 // extra round-trip cost after idling, ns
}

// line is a weighted least-squares line y = a + b*x.
type line struct {
	a, b       float64
	aSE, bSE   float64
	r2, chi2   float64
	sse        float64 // unweighted
	n          int
	xMin, xMax float64
}

func (l line) at(x float64) float64 { return l.a + l.b*x }

// fitLine fits y = a + b*x with weights 1/se². One point gives a constant
// line; none the zero line.
func fitLine(x, y, se []float64) line {
	l := line{n: len(x), r2: math.NaN()}
	if len(x) == 0 {
		return l
	}
	w := make([]float64, len(x))
	for i := range w {
		w[i] = 1 / (se[i] * se[i])
	}
	l.xMin, l.xMax = slices.Min(x), slices.Max(x)
	if len(x) == 1 {
		l.a, l.aSE = y[0], se[0]
		return l
	}
	l.a, l.b = stat.LinearRegression(x, y, w, false)
	// R² only means something for a series that varies by more than its
	// standard errors (a flat o, say, gives noise over noise).
	if ym := stat.Mean(y, w); weightedSS(y, w, ym) > float64(len(y)) {
		l.r2 = stat.RSquared(x, y, w, l.a, l.b)
	}
	var sw, swx float64
	for i := range x {
		sw += w[i]
		swx += w[i] * x[i]
	}
	xm := swx / sw
	var sxx float64
	for i := range x {
		r := y[i] - l.at(x[i])
		l.chi2 += w[i] * r * r
		l.sse += r * r
		sxx += w[i] * (x[i] - xm) * (x[i] - xm)
	}
	// Parameter errors from the weights, inflated by the reduced chi² when
	// the scatter exceeds the standard errors.
	scale := 1.0
	if len(x) > 2 {
		scale = max(1, l.chi2/float64(len(x)-2))
	}
	l.bSE = math.Sqrt(scale / sxx)
	l.aSE = math.Sqrt(scale * (1/sw + xm*xm/sxx))
	return l
}

// weightedSS is the weighted sum of squared deviations of y from m.
func weightedSS(y, w []float64, m float64) float64 {
	var ss float64
	for i := range y {
		ss += w[i] * (y[i] - m) * (y[i] - m)
	}
	return ss
}

// seriesLine fits series k over pts.
func seriesLine(pts []point, k int) line {
	var x, y, se []float64
	for _, p := range pts {
		if p.has[k] {
			x, y, se = append(x, p.b), append(y, p.y[k]), append(se, p.se[k])
		}
	}
	return fitLine(x, y, se)
}

// lineSums accumulates a weighted least-squares line point by point
// (West's weighted form of Welford's updates: stable where sums of squares
// would cancel).
type lineSums struct {
	w, mx, my, cxx, cxy, cyy float64
}

func (a *lineSums) add(x, y, w float64) {
	a.w += w
	dx, dy := x-a.mx, y-a.my
	a.mx += w * dx / a.w
	a.my += w * dy / a.w
	a.cxx += w * dx * (x - a.mx)
	a.cxy += w * dx * (y - a.my)
	a.cyy += w * dy * (y - a.my)
}

// chi2 is the weighted squared residual of the best line.
func (a *lineSums) chi2() float64 {
	if a.cxx <= 0 {
		return max(a.cyy, 0)
	}
	return max(a.cyy-a.cxy*a.cxy/a.cxx, 0)
}

// bestSplit finds where to split pts into two parts of at least minPts
// full points (fullCounts) that leave the least weighted squared residual against one line
// per series and part, in one pass per series. It returns the cost of pts
// whole and of the best split, and the index of the split (-1: none).
func bestSplit(pts []point, minPts int) (whole, split float64, at int) {
	n := len(pts)
	left := make([]float64, n+1)  // left[k]: cost of pts[:k]
	right := make([]float64, n+1) // right[k]: cost of pts[k:]
	for k := range nSeries {
		// The half round trip counts first, as in the range's fit. The
		// exchange does not place changes: it is the largest of three
		// lines (exchangeForms), and bends where another one takes over
		// without any change of protocol.
		if k == sExch {
			continue
		}
		wk := 1.0
		if k == sHalf {
			wk = halfRTTPriority
		}
		var a, b lineSums
		for i := 0; i < n; i++ {
			if p := pts[i]; p.has[k] {
				a.add(p.b, p.y[k], wk/(p.se[k]*p.se[k]))
			}
			left[i+1] += a.chi2()
		}
		for i := n - 1; i >= 0; i-- {
			if p := pts[i]; p.has[k] {
				b.add(p.b, p.y[k], wk/(p.se[k]*p.se[k]))
			}
			right[i] += b.chi2()
		}
	}
	full := fullCounts(pts)
	split, at = math.Inf(1), -1
	for k := 1; k < n; k++ {
		if full[k] < minPts || full[n]-full[k] < minPts {
			continue
		}
		if c := left[k] + right[k]; c < split {
			split, at = c, k
		}
	}
	return left[n], split, at
}

// fullCounts returns, for k = 0..len(pts), how many of pts[:k] have every
// series that any point of pts has: the sizes of the sweep, not those
// LocateS added with PRTT(1,0,s) alone, which may not make a range.
func fullCounts(pts []point) []int {
	var all [nSeries]bool
	for _, p := range pts {
		for k := range nSeries {
			all[k] = all[k] || p.has[k]
		}
	}
	c := make([]int, len(pts)+1)
	for i, p := range pts {
		c[i+1] = c[i]
		if p.has == all {
			c[i+1]++
		}
	}
	return c
}

// Fit derives LogGOPS parameters from a raw PRTT table with Netgauge's
// LogGP method. Per size s, with P1 = PRTT(1,0,s), Pn = PRTT(n,0,s) and
// Pd = PRTT(n,d,s) (each the opt.Quantile of its repetitions), and
// b = s-1:
//
//	half round trip  P1/2             = L + 2o + bG
//	gap              (Pn-P1)/(n-1)    = g + bG
//	overhead         (Pd-P1)/(n-1)-d  = o + bO   (d large enough)
//
// With delayed rounds for two or more n (PRTT(2,d,s), as Measure takes),
// the overhead is instead the slope over n-1 of PRTT(n,d,s) - (n-1)d,
// which cancels the extra cost of a round trip after idling (reported as
// idle_extra_ns). A protocol change shows as a jump or a kink in these
// series: Fit splits the sizes where one line per series and side removes
// most of the residuals (binary segmentation, at most opt.MaxRanges
// ranges), and tells jumps from changes of slope, on the medians of the
// rounds whatever opt's statistic (medianPoints). Each range's parameters are then one weighted least-squares
// fit of the three series together under the physical constraints
// L, o, g, O >= 0 and G >= O (fitRange), the half round trip weighted
// first; fit.ranges[].constraints says which constraints were binding and
// what they cost in residual. S is the end of the range below the jump
// that adds most to the round trip (the rendezvous handshake), inside the
// measured sizes. fit.pingpong compares a ping-pong simulated with the
// result (sim.Run) with the measured round trips.
func Fit(t Table, opt FitOptions) (*ParamFile, error) {
	opt, err := opt.withDefaults()
	if err != nil {
		return nil, err
	}
	all, warn, err := points(t, opt.statistic())
	if err != nil {
		return nil, err
	}
	pts, probes := splitProbes(all)
	pf := &ParamFile{Warnings: warn}
	pf.Source.Rows = len(t)
	for _, p := range all {
		pf.Source.Sizes = append(pf.Source.Sizes, p.size)
	}
	pf.Fit.Method = "PRTT(n,d,s), LogGP (Hoefler, Lichei, Rehm 2007); binary segmentation of weighted least-squares lines over s-1; per range non-negative least squares (Lawson-Hanson) of the three series, the half round trip first"
	if slices.ContainsFunc(pts, func(p point) bool { return p.has[sExch] }) {
		pf.Fit.Method += "; with exchange rounds X(n,s) (gopsim), fitted first too"
	}
	pf.Fit.Quantile, pf.Fit.Statistic, pf.Fit.MaxRanges = opt.Quantile, opt.statistic().name(), opt.MaxRanges
	pf.Warnings = append(pf.Warnings, missingSeries(pts)...)
	mpts, err := medianPoints(t, opt, pts)
	if err != nil {
		return nil, err
	}
	bounds, gains := segment(mpts, opt)
	lines := make([][nSeries]line, len(bounds)-1)
	fits := make([]rangeFit, len(lines))
	for r := range lines {
		seg := pts[bounds[r]:bounds[r+1]]
		for k := range nSeries {
			lines[r][k] = seriesLine(seg, k)
		}
		rg, rf, uc, err := fitRange(seg, lines[r])
		if err != nil {
			return nil, fmt.Errorf("range %d: %w", r, err)
		}
		if r > 0 {
			rg.MinBytes = seg[0].size
		}
		if r+1 < len(lines) {
			rg.MaxBytes = pts[bounds[r+1]].size - 1
		}
		uc.MinBytes, uc.MaxBytes = rg.MinBytes, rg.MaxBytes
		pf.Ranges = append(pf.Ranges, roundRange(rg))
		pf.Fit.Ranges = append(pf.Fit.Ranges, rf)
		fits[r] = rangeFit{rg, uc, rf.Constraints, seg}
	}
	pf.Fit.Changes = changes(mpts, bounds, medianLines(mpts, bounds), gains)
	placeProbes(pf, pts, probes)
	// The warnings name each range by its bounds in the file: those the
	// probes placed, not the sweep's.
	for r, f := range fits {
		f.rg.MinBytes, f.rg.MaxBytes = pf.Ranges[r].MinBytes, pf.Ranges[r].MaxBytes
		pf.Warnings = append(pf.Warnings, rangeWarnings(r, f.rg, f.uc, f.cf, lines[r], f.seg)...)
	}
	pf.EagerLimit = eagerLimit(pf, pts)
	pf.Fit.Points = pointFits(all, pf.Ranges)
	pf.setBase()
	pp, err := pingPong(pf, all, probes)
	if err != nil {
		return nil, err
	}
	pf.Fit.PingPong = pp
	if pf.Fit.Exchange, err = exchanges(pf, pts); err != nil {
		return nil, err
	}
	if pf.Warnings == nil {
		pf.Warnings = []string{}
	}
	return pf, nil
}

// medianPoints returns the sweep's sizes (pts, from t) summarized by the
// median of each round's repetitions instead of opt's statistic, which
// is where Fit looks for protocol changes: a protocol moves every round,
// whereas a few rounds of a descheduled process move a mean by as much
// as a protocol does. One calibration in seven on this project's VM had
// such rounds at 3,072 bytes (mean half round trip 2.19 us, median 1.82;
// 3,584 bytes 1.99): split by the means, the change came out between
// 4,096 and 5,120 bytes, not as a jump, and S at 11 bytes, which made
// every message above it a rendezvous one and predicted allreduce_loop
// at 1.8 to 2.0 times its measured time instead of 1.1 to 1.3.
// The ranges' parameters are still fitted to opt's statistic.
func medianPoints(t Table, opt FitOptions, pts []point) ([]point, error) {
	if st := opt.statistic(); !st.mean && st.q == 0.5 {
		return pts, nil
	}
	all, _, err := points(t, statistic{q: 0.5})
	if err != nil {
		return nil, err
	}
	mpts, _ := splitProbes(all)
	if len(mpts) != len(pts) {
		// Unreachable: which sizes are the sweep's does not depend on
		// the statistic (splitProbes looks at the series present).
		return nil, fmt.Errorf("%w: %d sizes by the median, %d by the fitted statistic", ErrFit, len(mpts), len(pts))
	}
	return mpts, nil
}

// medianLines is each range's weighted least-squares line per series,
// over the points of mpts that bounds puts in it.
func medianLines(mpts []point, bounds []int) [][nSeries]line {
	lines := make([][nSeries]line, len(bounds)-1)
	for r := range lines {
		for k := range nSeries {
			lines[r][k] = seriesLine(mpts[bounds[r]:bounds[r+1]], k)
		}
	}
	return lines
}

// withDefaults fills in opt's defaults and checks it.
func (opt FitOptions) withDefaults() (FitOptions, error) {
	if opt.MaxRanges == 0 {
		opt.MaxRanges = DefaultMaxRanges
	}
	if opt.MaxRanges < 1 {
		return opt, fmt.Errorf("%w: at most %d ranges: want at least 1", ErrFit, opt.MaxRanges)
	}
	opt.MinPoints = max(opt.MinPoints, 3)
	if opt.Mean {
		if opt.Quantile != 0 {
			return opt, fmt.Errorf("%w: the mean and quantile %g both asked for: want one statistic", ErrFit, opt.Quantile)
		}
		return opt, nil
	}
	if opt.Quantile == 0 {
		opt.Quantile = DefaultQuantile
	}
	if !(opt.Quantile > 0 && opt.Quantile <= 1) {
		return opt, fmt.Errorf("%w: quantile %g: want 0 < q <= 1", ErrFit, opt.Quantile)
	}
	return opt, nil
}

// missingSeries says which series the table has no rows of.
func missingSeries(pts []point) []string {
	var w []string
	// Exchange rounds are optional: the tcp backend has none.
	for k, name := range [...]string{"PRTT(1,0,s)", "PRTT(n,0,s): g and G", "PRTT(n,d,s): o and O"} {
		missing := 0
		for _, p := range pts {
			if !p.has[k] {
				missing++
			}
		}
		if missing == len(pts) {
			w = append(w, fmt.Sprintf("no %s rows in the table: those parameters are 0", name))
		}
	}
	return w
}

// segment splits pts by binary segmentation: bounds[i] is the first point
// of range i (bounds[len-1] = len(pts)), gains the weighted squared
// residual each split removed, by its bound.
func segment(pts []point, opt FitOptions) ([]int, map[int]float64) {
	bounds := []int{0, len(pts)}
	gains := map[int]float64{}
	for len(bounds)-1 < opt.MaxRanges {
		// A split that removes most of a range's residuals (a protocol
		// change) comes first, the largest gain first; then one where a
		// line misses a half round trip by more than splitHalfRTTRel, the
		// range that misses most first (a ping-pong at every size).
		bestClass, bestScore, bestGain, bestAt := 0, 0.0, 0.0, -1
		for r := 0; r+1 < len(bounds); r++ {
			lo, hi := bounds[r], bounds[r+1]
			if full := fullCounts(pts[lo:hi]); full[hi-lo] < 2*opt.MinPoints {
				continue
			}
			whole, split, at := bestSplit(pts[lo:hi], opt.MinPoints)
			gain := whole - split
			if at < 0 || gain < splitChi2*halfRTTPriority {
				continue
			}
			class, score := 0, 0.0
			if split <= splitRatio*whole {
				class, score = 2, gain
			} else if off := halfRTTOff(pts[lo:hi]); off > splitHalfRTTRel {
				class, score = 1, off
			}
			if class > bestClass || class == bestClass && class > 0 && score > bestScore {
				bestClass, bestScore, bestGain, bestAt = class, score, gain, lo+at
			}
		}
		if bestAt < 0 {
			break
		}
		bounds = append(bounds, bestAt)
		slices.Sort(bounds)
		gains[bestAt] = bestGain
	}
	return bounds, gains
}

// changes describes the boundaries between the ranges: a jump or a change
// of slope, from the lines on both sides.
func changes(pts []point, bounds []int, lines [][nSeries]line, gains map[int]float64) []Change {
	out := []Change{}
	for r := 1; r < len(lines); r++ {
		lo, hi := pts[bounds[r]-1], pts[bounds[r]]
		c := Change{AfterBytes: lo.size, BeforeBytes: hi.size, Chi2Gain: round(gains[bounds[r]], 1)}
		for _, k := range []int{sHalf, sGap} {
			if !lo.has[k] || !hi.has[k] {
				continue
			}
			// The lines differ at both ends of the gap between the two
			// sizes, with the same sign: a jump. Lines that cross between
			// them: a change of slope.
			dLo := lines[r][k].at(lo.b) - lines[r-1][k].at(lo.b)
			dHi := lines[r][k].at(hi.b) - lines[r-1][k].at(hi.b)
			jump := dLo
			if math.Abs(dHi) < math.Abs(dLo) {
				jump = dHi
			}
			left := lines[r-1][k].at(lo.b)
			if dLo*dHi > 0 && math.Abs(jump) > jumpSigmas*math.Hypot(lo.se[k], hi.se[k]) && math.Abs(jump) > jumpRel*math.Abs(left) {
				c.Jump = true
			}
			if k == sHalf {
				c.HalfRTTJump = round(jump, 3)
				c.relJump = jump / math.Max(math.Abs(left), 1)
			} else {
				c.GapJump = round(jump, 3)
			}
		}
		out = append(out, c)
	}
	return out
}

// eagerLimit picks S: the end of the range below the change with a jump
// that adds the largest fraction to the half round trip (a rendezvous
// handshake adds a whole round trip of a control message; smaller
// protocol steps, such as the end of Open MPI's inline sends, add less).
// It marks that change; nil when no change is a jump upwards.
func eagerLimit(pf *ParamFile, pts []point) *int64 {
	best := -1
	for i, c := range pf.Fit.Changes {
		if c.Jump && c.relJump > 0 && (best < 0 || c.relJump > pf.Fit.Changes[best].relJump) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	pf.Fit.Changes[best].EagerLimit = true
	s := pf.Ranges[best].MaxBytes
	return &s
}

// splitProbes separates the sizes that lack series other sizes have
// (LocateS's, PRTT(1,0,s) alone) from the sweep's. The probes only place
// the boundaries between ranges (placeProbes): measured at another time,
// they must not pull the parameters. Without two sweep sizes every point
// is used.
func splitProbes(all []point) (pts, probes []point) {
	full := fullCounts(all)
	if full[len(all)] < 2 {
		return all, nil
	}
	for i, p := range all {
		if full[i+1] > full[i] {
			pts = append(pts, p)
		} else {
			probes = append(probes, p)
		}
	}
	return pts, probes
}

// placeProbes moves each boundary between two ranges to where the probes
// between the two sweep sizes around it say: a probe whose median round
// trip is closer to the lower side's belongs to it (sides: the medians,
// as LocateS, whatever the fit's statistic). Probes that contradict each
// other (a low one above a high one) leave the boundary where it is.
func placeProbes(pf *ParamFile, pts, probes []point) {
	median := func(s int64, r Range) float64 {
		for _, p := range pts {
			if p.size == s {
				return p.p1.Median
			}
		}
		return r.PRTT(1, 0, s)
	}
	for c := range pf.Fit.Changes {
		ch := &pf.Fit.Changes[c]
		below, above := &pf.Ranges[c], &pf.Ranges[c+1]
		lastLow, firstHigh := ch.AfterBytes, ch.BeforeBytes
		sd := sides{lastLow, firstHigh, median(lastLow, *below), median(firstHigh, *above), *below, *above}
		for _, p := range probes {
			if p.size <= ch.AfterBytes || p.size >= ch.BeforeBytes {
				continue
			}
			if sd.low(p.size, p.p1.Median) {
				lastLow = max(lastLow, p.size)
			} else {
				firstHigh = min(firstHigh, p.size)
			}
		}
		if lastLow < firstHigh {
			ch.AfterBytes, ch.BeforeBytes = lastLow, firstHigh
			below.MaxBytes, above.MinBytes = firstHigh-1, firstHigh
		}
	}
}

// pointFits reports every measured size with its residuals against its
// range's fitted parameters.
func pointFits(pts []point, ranges []Range) []PointFit {
	out := make([]PointFit, 0, len(pts))
	for _, p := range pts {
		r := 0
		for r+1 < len(ranges) && p.size > ranges[r].MaxBytes {
			r++
		}
		rg := ranges[r]
		pp := PointFit{SizeBytes: p.size, Range: r, N: p.n, DelayNs: round(p.d, 1), PRTT1: roundSummary(p.p1),
			HalfRTT: round(p.y[sHalf], 3), HalfRTTResid: round(p.y[sHalf]-model(rg, sHalf, p.b), 3)}
		if p.pn != nil {
			s := roundSummary(*p.pn)
			pp.PRTTN = &s
		}
		if p.pnd != nil {
			s := roundSummary(*p.pnd)
			pp.PRTTND = &s
		}
		if p.has[sGap] {
			pp.Gap, pp.GapResid = finite(p.y[sGap], 3), finite(p.y[sGap]-model(rg, sGap, p.b), 3)
		}
		if p.has[sOver] {
			pp.Overhead, pp.OverheadResid = finite(p.y[sOver], 3), finite(p.y[sOver]-model(rg, sOver, p.b), 3)
		}
		if p.cold != nil {
			pp.IdleExtra = finite(*p.cold, 1)
		}
		if p.has[sExch] {
			x1, xn := roundSummary(*p.x1), roundSummary(*p.xn)
			pp.ExchangeN, pp.Exchange1, pp.ExchangeNSum = p.xN, &x1, &xn
			pp.Exchange, pp.ExchangeResid = finite(p.y[sExch], 3), finite(p.y[sExch]-model(rg, sExch, p.b), 3)
		}
		out = append(out, pp)
	}
	return out
}

// setBase sets the base keys from the smallest-size range (toBase).
func (pf *ParamFile) setBase() {
	base := pf.Ranges[0]
	pf.L, pf.Overhead, pf.Gap = toBase(base.L), toBase(base.Overhead), toBase(base.Gap)
	pf.GapPerByte, pf.OverheadPerByte = toBase(base.GapPerByte), toBase(base.OverheadPerByte)
}

func rms(l line) float64 {
	if l.n == 0 {
		return 0
	}
	return math.Sqrt(l.sse / float64(l.n))
}

func roundRange(r Range) Range {
	r.L, r.Overhead, r.Gap = round(r.L, 3), round(r.Overhead, 3), round(r.Gap, 3)
	r.GapPerByte, r.OverheadPerByte = round(r.GapPerByte, 6), round(r.OverheadPerByte, 6)
	return r
}

func roundSummary(s Summary) Summary {
	s.Median, s.IQR, s.MAD, s.Q = round(s.Median, 1), round(s.IQR, 1), round(s.MAD, 1), round(s.Q, 1)
	return s
}

// rangeFit is what rangeWarnings needs of a range's fit: the constrained
// (rg) and unconstrained (uc) values, the constraints and the points.
type rangeFit struct {
	rg, uc Range
	cf     ConstraintFit
	seg    []point
}

// exchangeCostNs is how much worse (rms, ns) the half round trips of a
// range may fit with its exchanges than without them, beyond twice, before
// rangeWarnings says so.
const exchangeCostNs = 50

// rangeWarnings reports, for range r, the values that the unconstrained
// fit (uc) makes negative, which no network has and which the constraints
// replaced in rg, and the numbers of rg that do not fit LogGP's
// assumptions.
func rangeWarnings(r int, rg, uc Range, cf ConstraintFit, l [nSeries]line, seg []point) []string {
	var w []string
	where := fmt.Sprintf("range %d (%d..%s bytes)", r, rg.MinBytes, sim.FormatRangeEnd(uint64(rg.MaxBytes)))
	add := func(format string, args ...any) { w = append(w, where+": "+fmt.Sprintf(format, args...)) }
	cost := fmt.Sprintf("the constrained fit's residuals (rms) are %.1f ns in the half round trip, %.1f ns in the gap and %.1f ns in the overhead, against %.1f, %.1f and %.1f ns unconstrained",
		cf.RMSHalfRTTNs, cf.RMSGapNs, cf.RMSOverheadNs, cf.UnconstrainedRMSHalfRTTNs, cf.UnconstrainedRMSGapNs, cf.UnconstrainedRMSOverheadNs)
	if cf.RMSExchangeNs != nil {
		cost += fmt.Sprintf("; in the exchange %.1f ns, against %.1f ns", *cf.RMSExchangeNs, *cf.UnconstrainedRMSExchangeNs)
	}
	// A value is negative when it is below 0 by more than its standard
	// error: -1e-16 is 0, and -0.3 ± 0.5 may be.
	if se := math.Hypot(l[sHalf].aSE, 2*l[sOver].aSE); uc.L < -se {
		add("this measurement cannot be a network: fitted freely, L = %.1f ± %.1f ns, a negative latency (the round trip is shorter than four times the o measured at the sender, so the sender's o includes work the round trip does not wait for: the system calls of TCP over loopback, the copies of shared memory). Fitted with L >= 0 instead: L = %.1f ns, o = %.1f ns; %s",
			uc.L, se, rg.L, rg.Overhead, cost)
	}
	for _, v := range []struct {
		name, unit string
		got, free  float64
		se         float64
		identified bool
	}{
		{"o", "ns", rg.Overhead, uc.Overhead, l[sOver].aSE, l[sOver].n > 0},
		{"g", "ns", rg.Gap, uc.Gap, l[sGap].aSE, l[sGap].n > 0},
		{"G", "ns/byte", rg.GapPerByte, uc.GapPerByte, max(l[sGap].bSE, l[sHalf].bSE), l[sHalf].n > 1},
		{"O", "ns/byte", rg.OverheadPerByte, uc.OverheadPerByte, l[sOver].bSE, l[sOver].n > 1},
	} {
		if v.identified && v.free < -v.se {
			add("fitted freely, %s = %.4g ± %.2g %s, which no network has; fitted with %s >= 0: %s = %.4g %s; %s",
				v.name, v.free, v.se, v.unit, v.name, v.name, v.got, v.unit, cost)
		}
	}
	if w := cf.WithoutExchangeRMSHalfRTTNs; w != nil && cf.RMSHalfRTTNs > max(2**w, *w+exchangeCostNs) {
		add("the exchanges (both ends sending at once) and the round trips disagree beyond what LogGOPS can give together: fitted with the exchanges, the half round trips are %.1f ns (rms) off and the exchanges %.1f ns; fitted without the exchanges, the half round trips are %.1f ns off: a ping-pong is simulated less exactly (fit.pingpong) so that an exchange is simulated more exactly (fit.exchange)",
			cf.RMSHalfRTTNs, *cf.RMSExchangeNs, *w)
	}
	if w := cf.WithoutExchangeRMSGapNs; w != nil && cf.RMSGapNs > max(2**w, *w+exchangeCostNs) {
		add("the exchanges (both ends sending at once) cost more than the round trips' parameters give, and g = %.1f ns takes up the difference (an exchange is at least g + (s-1)G): fitted with the exchanges, the gap is %.1f ns (rms) off its measurements, against %.1f ns without them, so that a stream of back-to-back messages is simulated slower than measured",
			rg.Gap, cf.RMSGapNs, *w)
	}
	if l[sOver].n > 0 && l[sGap].n > 0 && rg.Overhead > rg.Gap {
		add("o = %.1f ns exceeds g = %.1f ns: back-to-back sends are then limited by o, so the gap series measures o, not g (LogGP assumes g >= o)", rg.Overhead, rg.Gap)
	}
	if l[sGap].n > 1 && l[sHalf].n > 1 {
		g, gr := l[sGap].b, l[sHalf].b
		if d := math.Abs(gr - g); d > 0.25*max(math.Abs(g), math.Abs(gr)) && d > 3*math.Hypot(l[sGap].bSE, l[sHalf].bSE) {
			add("the gap's slope (%.4g ns/byte, back-to-back messages) and the round trip's (%.4g ns/byte) disagree: LogGP has one G; G = %.4g ns/byte follows the round trip, so a stream of back-to-back messages is simulated at %.4g ns/byte",
				g, gr, rg.GapPerByte, rg.GapPerByte)
		}
	}
	for _, p := range seg {
		if p.has[sOver] && p.has[sGap] && p.y[sOver]+p.d < 1.05*p.y[sGap] {
			add("at %d bytes the delay d = %.0f ns is not larger than the gap g+(s-1)G = %.0f ns minus o: o there is the gap, not the overhead",
				p.size, p.d, p.y[sGap])
		}
	}
	return w
}

// points groups t by size and derives each size's three series.
//
// Per size: PRTT(1,0,s) are the rows with n = 1; PRTT(n,0,s) the rows
// with d = 0 of the n > 1 with the most such rows (ties: the larger n);
// PRTT(n,d,s) the rows with d > 0 of that n (or, without it, of the n with
// the most such rows). Delays may differ from row to row (a sleeping
// prober records the delay it actually spent), so the overhead comes from
// each row's PRTT(n,d,s) - (n-1)d: o = (median of that - P1)/(n-1).
func points(t Table, st statistic) ([]point, []string, error) {
	type rows struct {
		prtt, delay, net []float64 // net: prtt - (n-1)d
	}
	type key struct {
		n       int
		delayed bool
		exch    bool
	}
	bySize := map[int64]map[key]*rows{}
	for _, s := range t {
		m := bySize[s.SizeBytes]
		if m == nil {
			m = map[key]*rows{}
			bySize[s.SizeBytes] = m
		}
		k := key{s.N, s.DelayNs > 0, s.Exchange}
		r := m[k]
		if r == nil {
			r = &rows{}
			m[k] = r
		}
		r.prtt = append(r.prtt, s.PRTTNs)
		r.delay = append(r.delay, s.DelayNs)
		r.net = append(r.net, s.PRTTNs-float64(s.N-1)*s.DelayNs)
	}
	// best returns the n > 1 with the most rows of the given kind, ties
	// to the larger n, preferring n == prefer.
	best := func(m map[key]*rows, delayed bool, prefer int) int {
		n := 0
		for k, r := range m {
			if k.n < 2 || k.delayed != delayed || k.exch {
				continue
			}
			if n == 0 || cmp.Or(cmp.Compare(b2i(k.n == prefer), b2i(n == prefer)),
				cmp.Compare(len(r.prtt), len(m[key{n, delayed, false}].prtt)), cmp.Compare(k.n, n)) > 0 {
				n = k.n
			}
		}
		return n
	}
	var pts []point
	var warn []string
	for size, m := range bySize {
		p1, ok := m[key{1, false, false}]
		if !ok {
			warn = append(warn, fmt.Sprintf("%d bytes: no PRTT(1,0,s) rows; size ignored", size))
			continue
		}
		p := point{size: size, b: float64(size - 1), p1: st.summarize(p1.prtt)}
		se1 := p.p1.SEAt(seFloor(p.p1.Q))
		p.y[sHalf], p.se[sHalf], p.has[sHalf] = p.p1.Q/2, se1/2, true
		if n := best(m, false, 0); n != 0 {
			s := st.summarize(m[key{n, false, false}].prtt)
			p.pn, p.n = &s, n
			nm1 := float64(n - 1)
			p.y[sGap] = (s.Q - p.p1.Q) / nm1
			p.se[sGap] = math.Hypot(se1, s.SEAt(seFloor(s.Q))) / nm1
			p.has[sGap] = true
		}
		if n := best(m, true, p.n); n != 0 {
			r := m[key{n, true, false}]
			s, net := st.summarize(r.prtt), st.summarize(r.net)
			p.pnd, p.d = &s, Summarize(r.delay).Median
			if p.n == 0 {
				p.n = n
			}
			nm1 := float64(n - 1)
			p.y[sOver] = (net.Q - p.p1.Q) / nm1
			p.se[sOver] = math.Hypot(se1, net.SEAt(seFloor(net.Q))) / nm1
			p.has[sOver] = true
			// Several n with a delay: o is the slope of PRTT(n,d,s)-(n-1)d
			// over n-1, and the intercept less PRTT(1,0,s) the extra cost
			// of a round trip after idling.
			var x, y, se []float64
			for k, r := range m {
				if k.delayed && !k.exch && k.n >= 2 {
					net := st.summarize(r.net)
					x, y, se = append(x, float64(k.n-1)), append(y, net.Q), append(se, net.SEAt(seFloor(net.Q)))
				}
			}
			if len(x) >= 2 {
				l := fitLine(x, y, se)
				p.y[sOver], p.se[sOver] = l.b, max(l.bSE, 1e-3)
				cold := l.a - p.p1.Q
				p.cold = &cold
			}
		}
		xs := map[int][]float64{}
		for k, r := range m {
			if k.exch {
				xs[k.n] = r.prtt
			}
		}
		exchangeSeries(&p, st, xs)
		pts = append(pts, p)
	}
	slices.SortFunc(pts, func(a, b point) int { return cmp.Compare(a.size, b.size) })
	slices.Sort(warn)
	if len(pts) < 2 {
		return nil, nil, fmt.Errorf("%w: %d message sizes with PRTT(1,0,s) rows, want at least 2", ErrFit, len(pts))
	}
	return pts, warn, nil
}

// exchangeSeries derives p's exchange from its exchange rounds (xs: the
// rounds' times by their number of exchanges): with X(1,s) and X(n,s) for
// the n > 1 of the most rows (ties: the larger n), the exchange is their
// slope (X(n,s) - X(1,s))/(n-1), which cancels what the first exchange of
// a round costs more or less than the others (the ranks' skew at its
// start).
func exchangeSeries(p *point, st statistic, xs map[int][]float64) {
	x1 := xs[1]
	if x1 == nil {
		return
	}
	n := 0
	for k, r := range xs {
		if k > 1 && (n == 0 || cmp.Or(cmp.Compare(len(r), len(xs[n])), cmp.Compare(k, n)) > 0) {
			n = k
		}
	}
	if n == 0 {
		return
	}
	s1, sn := st.summarize(x1), st.summarize(xs[n])
	p.x1, p.xn, p.xN = &s1, &sn, n
	nm1 := float64(n - 1)
	p.y[sExch] = (sn.Q - s1.Q) / nm1
	p.se[sExch] = math.Hypot(s1.SEAt(seFloor(s1.Q)), sn.SEAt(seFloor(sn.Q))) / nm1
	p.has[sExch] = true
}

// seFloor is the smallest standard error a median of about x ns is given:
// 1 ns (the table's resolution) or 1e-4 of x, so that no point dominates
// a fit through an implausibly small spread.
func seFloor(x float64) float64 { return max(1, 1e-4*math.Abs(x)) }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
