package noise

import (
	"errors"
	"math"
	"testing"
)

// TestConfigRefusesNonNumbers: not-a-number, infinite and out-of-range
// fractions, factors and means are refused, not taken as "off".
func TestConfigRefusesNonNumbers(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"fraction NaN", Config{StragglerFraction: math.NaN(), Factor: 2}},
		{"fraction negative", Config{StragglerFraction: -0.1, Factor: 2}},
		{"factor NaN", Config{Stragglers: []int32{0}, Factor: math.NaN()}},
		{"factor Inf", Config{Stragglers: []int32{0}, Factor: math.Inf(1)}},
		{"factor above MaxFactor", Config{Stragglers: []int32{0}, Factor: 2 * MaxFactor}},
		{"interval Inf", Config{Dist: "exp", MeanIntervalNs: math.Inf(1)}},
		{"interval NaN", Config{Dist: "exp", MeanIntervalNs: math.NaN()}},
		{"length NaN", Config{Dist: "exp", MeanIntervalNs: 100, MeanDurNs: math.NaN()}},
		{"alpha NaN", Config{Dist: "pareto", MeanIntervalNs: 100, Alpha: math.NaN()}},
		{"period negative", Config{PeriodNs: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := New(tc.cfg, 4); !errors.Is(err, ErrConfig) {
				t.Errorf("New = %v, want ErrConfig", err)
			}
		})
	}
}

// TestChargeNeverWraps: the largest straggler factor on the longest
// computation, and a Pareto tail of shape barely above 1, give large
// positive charges, never wrapped or negative ones.
func TestChargeNeverWraps(t *testing.T) {
	m, err := New(Config{Stragglers: []int32{0}, Factor: MaxFactor}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Charge(0, 0, math.MaxInt64/2); got != MaxDetour {
		t.Errorf("straggler charge on 2^62 ns: %d, want MaxDetour", got)
	}
	p, err := New(Config{Dist: "pareto", MeanIntervalNs: 1e15, MeanDurNs: 1e14, Alpha: 1.0001, Seed: 3}, 2)
	if err != nil {
		t.Fatal(err)
	}
	for r := int32(0); r < 2; r++ {
		for start := int64(0); start < 1<<50; start += 1 << 46 {
			if got := p.Charge(r, start, 1<<46); got < 0 {
				t.Fatalf("rank %d at %d: charge %d", r, start, got)
			}
		}
	}
	if got := clampNs(1e30); got != MaxDetour {
		t.Errorf("clampNs(1e30) = %d", got)
	}
}
