package bench

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// modelProber answers rounds as a machine with the given ranges (split
// at switchAt: sizes up to it use the first) would, with noise that only
// adds time, and counts the sizes it was asked for.
type modelProber struct {
	ranges   [2]Range
	switchAt int64
	rng      *rand.Rand
	sizes    map[int64]int
	fail     bool
	// stallAt, if not 0, is a size whose every 10th round takes 40 times
	// as long: a process descheduled now and then.
	stallAt int64
}

func (m *modelProber) Rounds(ctx context.Context, s int64, rounds []Round, res []Result) error {
	if m.fail {
		return errors.New("link down")
	}
	m.sizes[s]++
	r := m.ranges[0]
	if s > m.switchAt {
		r = m.ranges[1]
	}
	for i, rd := range rounds {
		v := r.PRTT(rd.N, float64(rd.Delay), s) * (1 + 0.05*m.rng.ExpFloat64())
		if s == m.stallAt && i%10 == 9 {
			v *= 40
		}
		res[i] = Result{PRTT: time.Duration(v), Delay: rd.Delay}
	}
	return nil
}

func TestLocateS(t *testing.T) {
	small := Range{L: 300, Overhead: 50, Gap: 150, GapPerByte: 0.3, OverheadPerByte: 0.1}
	big := Range{L: 2000, Overhead: 1700, Gap: 1900, GapPerByte: 0.11, OverheadPerByte: 0.05}
	step := small
	step.L += 250 // +10 % of the half round trip at 4 KiB: not bisected
	tests := []struct {
		name     string
		above    Range
		switchAt int64
		sizes    []int64
		wantS    int64 // 0: none
		maxSteps int
		stallAt  int64
		opt      FitOptions
	}{
		{"between 3072 and 4096", big, 4071, []int64{256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 16384, 32768}, 4071, 10, 0, FitOptions{}},
		{"already exact", big, 4095, []int64{256, 512, 1024, 2048, 3072, 4095, 4096, 8192, 16384, 32768}, 4095, 0, 0, FitOptions{}},
		{"at the end of the measured range", big, 2047, []int64{256, 512, 1024, 2048, 3072, 4096, 8192, 16384}, 2047, 10, 0, FitOptions{}},
		{"a small jump is not bisected", step, 4071, []int64{256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 16384, 32768}, 4095, 0, 0, FitOptions{}},
		// The first probe, 3584 bytes, has a few rounds of a descheduled
		// process, which put its mean nearer the rendezvous side's: the
		// bisection must go by its median, as calibrate's mean fit does not.
		{"a probe with descheduled rounds, fitting the mean", big, 4071, []int64{256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 16384, 32768}, 4071, 10, 3584, FitOptions{Mean: true}},
		{"a probe with descheduled rounds, fitting the median", big, 4071, []int64{256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 16384, 32768}, 4071, 10, 3584, FitOptions{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := &modelProber{ranges: [2]Range{small, tc.above}, switchAt: tc.switchAt,
				rng: rand.New(rand.NewPCG(3, 4)), sizes: map[int64]int{}, stallAt: tc.stallAt}
			cfg := Config{Sizes: tc.sizes, Reps: 40, Warmup: 2}
			tab, err := Measure(context.Background(), p, cfg)
			if err != nil {
				t.Fatal(err)
			}
			before := len(tab)
			tab, steps, err := LocateS(context.Background(), p, tab, cfg, tc.opt, 30)
			if err != nil {
				t.Fatal(err)
			}
			if steps > tc.maxSteps || len(tab) != before+30*steps {
				t.Errorf("%d steps, %d rows added; want at most %d steps of 30 rows", steps, len(tab)-before, tc.maxSteps)
			}
			pf, err := Fit(tab, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			if pf.EagerLimit == nil || *pf.EagerLimit != tc.wantS {
				t.Errorf("S = %s after locating, want %d (changes %+v)", fmtS(pf.EagerLimit), tc.wantS, pf.Fit.Changes)
			}
		})
	}
	p := &modelProber{fail: true, sizes: map[int64]int{}}
	tab := synth(1, ranges(eager, rendezvous), []int64{1, 1024, 4096, 8192, 12288, 16384, 32768, 65536}, 8, 5, noise{})
	if _, _, err := LocateS(context.Background(), p, tab, Config{}, FitOptions{}, 10); err == nil {
		t.Error("no error from a failing prober")
	}
}

// fmtS prints a fitted S, or "none".
func fmtS(s *int64) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprint(*s)
}

// TestLocateSWarningRanges: after LocateS moved a boundary, the fit's
// warnings name each range by the bounds the file gives it (calibrate
// printed "range 3 (2560..12287 bytes)" for a range 2560..8255 of the
// file, the sweep's bound before the probes), and the last range's end as
// "max", as calibrate's table does, not as 2199023255552.
func TestLocateSWarningRanges(t *testing.T) {
	small := Range{L: 300, Overhead: 50, Gap: 150, GapPerByte: 0.3, OverheadPerByte: 0.1}
	// o > g above the jump: a warning about range 1.
	big := Range{L: 2000, Overhead: 2500, Gap: 1000, GapPerByte: 0.11, OverheadPerByte: 0.05}
	p := &modelProber{ranges: [2]Range{small, big}, switchAt: 4071, rng: rand.New(rand.NewPCG(3, 4)), sizes: map[int64]int{}}
	cfg := Config{Sizes: []int64{256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 16384, 32768}, Reps: 40, Warmup: 2}
	tab, err := Measure(context.Background(), p, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if tab, _, err = LocateS(context.Background(), p, tab, cfg, FitOptions{}, 30); err != nil {
		t.Fatal(err)
	}
	pf, err := Fit(tab, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(pf.Ranges) != 2 || pf.Ranges[1].MinBytes != 4072 {
		t.Fatalf("ranges %+v, want two split at 4072 bytes", pf.Ranges)
	}
	want := "range 1 (4072..max bytes): o = "
	found := false
	for _, w := range pf.Warnings {
		found = found || strings.HasPrefix(w, want)
		if strings.HasPrefix(w, "range ") && !strings.HasPrefix(w, "range 1 (4072..max bytes): ") {
			t.Errorf("warning names another range than the file's: %s", w)
		}
	}
	if !found {
		t.Errorf("no warning beginning %q in:\n%s", want, strings.Join(pf.Warnings, "\n"))
	}
}
