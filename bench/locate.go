package bench

import (
	"context"
	"fmt"
	"math"
)

// maxLocateSteps bounds the bisection of LocateS: 2^30 bytes is the
// largest message size, so 30 steps always reach one byte.
const maxLocateSteps = 30

// locateMinJump is the smallest jump of the half round trip, relative to
// it, that LocateS bisects: a rendezvous handshake adds a round trip of a
// control message (Open MPI's shared memory: +150 %), whereas a change
// that small may be noise, which a bisection would follow.
const locateMinJump = 0.25

// LocateS narrows down S, the size where the round trip jumps by the
// rendezvous handshake, to the byte: Fit finds the jump between two
// measured sizes, and LocateS measures sizes between them by bisection,
// reps timed PRTT(1,0,s) rounds each (after cfg.Warmup untimed), putting
// each on the side whose round trip its median is closer to: the median
// of the measured size below the jump, or above it, moved along its
// range's fitted slope (sides). The median, whatever opt fits: a
// protocol moves every round, whereas a few rounds of a descheduled
// process move a mean by as much as the jump (a probe of 3,840 bytes on
// this project's VM: median 1.95 us, mean 5.85 us from 4 rounds of 84 to
// 120 us, which sent the bisection down to S = 3839 where Open MPI's
// limit is 4040).
// It returns t with the new rounds appended (so that `gopsim calibrate
// fit` of the saved table finds the same S) and the number of sizes
// measured; t unchanged when Fit finds no S, when its jump adds less
// than locateMinJump to the half round trip, or when S is already exact.
func LocateS(ctx context.Context, p Prober, t Table, cfg Config, opt FitOptions, reps int) (Table, int, error) {
	cfg, err := cfg.WithDefaults()
	if err != nil {
		return t, 0, err
	}
	opt, err = opt.withDefaults()
	if err != nil {
		return t, 0, err
	}
	pf, err := Fit(t, opt)
	if err != nil {
		return t, 0, err
	}
	var c *Change
	for i := range pf.Fit.Changes {
		if ch := pf.Fit.Changes[i]; ch.EagerLimit && ch.relJump >= locateMinJump {
			c = &pf.Fit.Changes[i]
		}
	}
	if c == nil {
		return t, 0, nil
	}
	lo, hi := c.AfterBytes, c.BeforeBytes
	rlo, rhi := pf.RangeFor(lo), pf.RangeFor(hi)
	side := sides{lo, hi, tableMedian(t, lo, rlo), tableMedian(t, hi, rhi), rlo, rhi}
	rounds := make([]Round, cfg.Warmup+reps)
	for i := range rounds {
		rounds[i] = Round{N: 1}
	}
	res := make([]Result, len(rounds))
	steps := 0
	for hi-lo > 1 && steps < maxLocateSteps {
		s := lo + (hi-lo)/2
		if err := p.Rounds(ctx, s, rounds, res); err != nil {
			return t, steps, fmt.Errorf("locating S at %d bytes: %w", s, err)
		}
		xs := make([]float64, 0, reps)
		for _, r := range res[cfg.Warmup:] {
			v := float64(max(r.PRTT.Nanoseconds(), 1))
			xs = append(xs, v)
			t = append(t, Sample{N: 1, SizeBytes: s, PRTTNs: v})
		}
		if side.low(s, Summarize(xs).Median) {
			lo = s
		} else {
			hi = s
		}
		steps++
	}
	return t, steps, nil
}

// sides is what a probe's median is compared with, by LocateS and by
// Fit's placeProbes: the medians of PRTT(1,0,s) at the sweep's sizes lo
// (below a change) and hi (above it), and the fitted ranges there, whose
// slopes carry them to the sizes between.
type sides struct {
	lo, hi       int64
	medLo, medHi float64
	rlo, rhi     Range
}

// low reports whether a probe of s bytes whose round trips have median m
// belongs below the change: m is at least as close to the round trip
// expected there as to the one expected above.
func (sd sides) low(s int64, m float64) bool {
	below := sd.medLo + sd.rlo.PRTT(1, 0, s) - sd.rlo.PRTT(1, 0, sd.lo)
	above := sd.medHi + sd.rhi.PRTT(1, 0, s) - sd.rhi.PRTT(1, 0, sd.hi)
	return math.Abs(m-below) <= math.Abs(m-above)
}

// tableMedian is the median of t's PRTT(1,0,s) rows, or r's round trip
// at s when t has none.
func tableMedian(t Table, s int64, r Range) float64 {
	var xs []float64
	for _, row := range t {
		if row.N == 1 && row.DelayNs == 0 && !row.Exchange && row.SizeBytes == s {
			xs = append(xs, row.PRTTNs)
		}
	}
	if len(xs) == 0 {
		return r.PRTT(1, 0, s)
	}
	return Summarize(xs).Median
}
