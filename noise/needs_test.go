package noise

import (
	"errors"
	"strings"
	"testing"
)

// fieldName spells a setting as its Config field; Stragglers is left
// unspelled, as a sweep has no list of straggler ranks.
func fieldName(s Settings) string {
	switch s {
	case SettingMeanInterval:
		return "MeanIntervalNs"
	case SettingMeanDur:
		return "MeanDurNs"
	case SettingDist:
		return "Dist"
	case SettingAlpha:
		return "Alpha"
	case SettingPeriod:
		return "PeriodNs"
	case SettingPeriodDur:
		return "PeriodDurNs"
	case SettingCosched:
		return "Cosched"
	case SettingFactor:
		return "Factor"
	case SettingStragglerFraction:
		return "StragglerFraction"
	case SettingSeed:
		return "Seed"
	case SettingTrace:
		return "Trace"
	}
	return ""
}

// TestUnused: every setting given without what gives it an effect is
// reported, first the one the others depend on, naming only what is
// lacking; a configuration whose settings all take effect passes.
func TestUnused(t *testing.T) {
	tr := &Trace{Start: []int64{0}, Dur: []int64{10}, Period: 100}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string // "" for no error
	}{
		{"nothing", Config{}, ""},
		{"random detours", Config{Dist: "exp", MeanIntervalNs: 100, MeanDurNs: 10, Seed: 3}, ""},
		{"pareto shape", Config{Dist: "pareto", MeanIntervalNs: 100, MeanDurNs: 10, Alpha: 3}, ""},
		{"periodic, co-scheduled", Config{PeriodNs: 100, PeriodDurNs: 10, Cosched: true}, ""},
		{"trace, co-scheduled", Config{Trace: tr, Cosched: true, Seed: 1}, ""},
		{"straggler fraction", Config{StragglerFraction: 0.5, Factor: 2, Seed: 1}, ""},
		{"listed stragglers", Config{Stragglers: []int32{1}, Factor: 2}, ""},
		{"interval without dist", Config{MeanIntervalNs: 100}, "MeanIntervalNs needs Dist exp or pareto"},
		{"length alone", Config{MeanDurNs: 10}, "MeanDurNs needs MeanIntervalNs and Dist: random detours need"},
		{"length with dist", Config{Dist: "exp", MeanDurNs: 10}, "MeanDurNs needs MeanIntervalNs: random"},
		{"dist without interval", Config{Dist: "pareto"}, "Dist needs MeanIntervalNs (the mean time"},
		{"alpha with exp", Config{Dist: "exp", MeanIntervalNs: 100, Alpha: 3}, "Alpha is the shape of Dist pareto"},
		{"alpha alone", Config{Alpha: 3}, "Alpha needs MeanIntervalNs and Dist: it is the shape"},
		{"period without length", Config{PeriodNs: 100}, "PeriodNs needs PeriodDurNs (each detour's length, ns)"},
		{"length without period", Config{PeriodDurNs: 10}, "PeriodDurNs needs PeriodNs (the time between"},
		{"cosched alone", Config{Cosched: true}, "Cosched applies to PeriodNs or Trace"},
		{"cosched with random detours", Config{Cosched: true, Dist: "exp", MeanIntervalNs: 100}, "Cosched applies to PeriodNs or Trace"},
		{"factor alone", Config{Factor: 2}, "Factor needs StragglerFraction (which ranks straggle)"},
		{"fraction with factor 1", Config{StragglerFraction: 0.5, Factor: 1}, "StragglerFraction needs Factor above 1"},
		{"fraction with factor below 1", Config{StragglerFraction: 0.5, Factor: 0.5}, "StragglerFraction needs Factor above 1"},
		{"seed alone", Config{Seed: 7}, "Seed needs MeanIntervalNs, PeriodNs, StragglerFraction or Trace: it seeds"},
		{"seed with listed stragglers", Config{Seed: 7, Stragglers: []int32{0}, Factor: 2}, "Seed needs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Unused(tc.cfg.Present(), tc.cfg.Used(), tc.cfg.Present(), fieldName)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("error %v", err)
			case tc.want == "":
				return
			case err == nil || !strings.HasPrefix(err.Error(), tc.want):
				t.Fatalf("error %v, want %q...", err, tc.want)
			}
			var ne *NeedError
			if !errors.As(err, &ne) || !errors.Is(err, ErrConfig) || !strings.HasPrefix(tc.want, fieldName(ne.Setting)) {
				t.Errorf("error %v: not a *NeedError for the setting it names, wrapping ErrConfig", err)
			}
		})
	}
}

// TestUnusedAcrossPoints: the union of what several configurations use
// (the points of a sweep) gives an effect to a setting one of them uses;
// a setting given as 0 everywhere is reported as such.
func TestUnusedAcrossPoints(t *testing.T) {
	var used, present Settings
	for _, c := range []Config{{StragglerFraction: 0.5, Factor: 1}, {StragglerFraction: 0.5, Factor: 3}} {
		used |= c.Used()
		present |= c.Present()
	}
	if err := Unused(SettingStragglerFraction|SettingFactor, used, present, fieldName); err != nil {
		t.Errorf("a fraction that one point uses: %v", err)
	}
	c := Config{Dist: "exp", MeanDurNs: 5}
	err := Unused(SettingMeanInterval|SettingMeanDur, c.Used(), c.Present(), fieldName)
	if err == nil || err.Error() != "MeanIntervalNs is 0 wherever it is given: it has no effect" {
		t.Errorf("an interval of 0: %v", err)
	}
}
