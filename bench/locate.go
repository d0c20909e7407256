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
// each on the side whose fitted round trip its statistic (opt.Mean or
// opt.Quantile) is closer to.
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
	below, above := pf.RangeFor(lo), pf.RangeFor(hi)
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
		q := opt.statistic().summarize(xs).Q
		if math.Abs(q-below.PRTT(1, 0, s)) <= math.Abs(q-above.PRTT(1, 0, s)) {
			lo = s
		} else {
			hi = s
		}
		steps++
	}
	return t, steps, nil
}
