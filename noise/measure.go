package noise

import (
	"fmt"
	"time"
)

// MeasureResult is a selfish-detour run: the detours found and how the
// loop behaved.
type MeasureResult struct {
	Trace       *Trace
	Duration    time.Duration // how long the loop ran
	Iterations  int64
	MinStep     time.Duration // fastest loop iteration: the resolution
	Threshold   time.Duration // steps longer than this were recorded as detours
	NoiseFrac   float64       // detour time / Duration
	NumDetours  int
	LongestStep time.Duration
}

// Measure runs a selfish-detour loop (Beckman et al.) on the calling
// goroutine for d: it reads the clock back to back, and every step longer
// than threshold is a detour that took the CPU away (0 picks ten times the
// fastest step, at least 1 µs; a threshold below the fastest step, which
// would make every step a detour, is an error). Pin the process (taskset) for one CPU's
// noise.
func Measure(d, threshold time.Duration) (*MeasureResult, error) {
	if d <= 0 {
		return nil, fmt.Errorf("noise: measuring for %v", d)
	}
	// Resolution: the fastest of 100k steps.
	minStep := time.Duration(1 << 62)
	prev := time.Now()
	for i := 0; i < 100_000; i++ {
		cur := time.Now()
		if s := cur.Sub(prev); s > 0 && s < minStep {
			minStep = s
		}
		prev = cur
	}
	if threshold <= 0 {
		threshold = max(10*minStep, time.Microsecond)
	} else if threshold < minStep {
		return nil, fmt.Errorf("noise: threshold %v is below the fastest clock step, %v: every step would be a detour; give at least %v", threshold, minStep, minStep)
	}
	res := &MeasureResult{MinStep: minStep, Threshold: threshold}
	t := &Trace{}
	start := time.Now()
	prev = start
	var n int64
	for {
		cur := time.Now()
		n++
		step := cur.Sub(prev)
		if step > threshold {
			t.Start = append(t.Start, int64(prev.Sub(start)))
			t.Dur = append(t.Dur, int64(step))
		}
		res.LongestStep = max(res.LongestStep, step)
		prev = cur
		if n&1023 == 0 && cur.Sub(start) >= d {
			break
		}
	}
	res.Duration = prev.Sub(start)
	res.Iterations = n
	res.NumDetours = len(t.Start)
	var sum int64
	for _, x := range t.Dur {
		sum += x
	}
	res.NoiseFrac = float64(sum) / float64(res.Duration)
	if len(t.Start) == 0 { // a quiet machine: one empty detour keeps the trace valid
		t.Start, t.Dur = []int64{0}, []int64{0}
	}
	t.normalize()
	if t.Period == 0 {
		t.Period = int64(res.Duration)
	}
	res.Trace = t
	return res, nil
}
