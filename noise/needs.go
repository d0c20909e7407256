package noise

import (
	"fmt"
	"strings"
)

// Settings is a set of a Config's settings, one bit each: what a
// command-line flag or a sweep's key sets. Unused says which of those a
// user gave have no effect, and what they need; gopsim sim and gopsim
// sweep refuse the same configurations through it.
type Settings uint16

// The settings, in the order Unused reports them: a setting that others
// need comes after them, so that the first report names the root cause
// (--noise-dist without --noise-interval before --noise-alpha).
const (
	SettingMeanInterval      Settings = 1 << iota // MeanIntervalNs
	SettingMeanDur                                // MeanDurNs
	SettingDist                                   // Dist
	SettingAlpha                                  // Alpha
	SettingPeriod                                 // PeriodNs
	SettingPeriodDur                              // PeriodDurNs
	SettingCosched                                // Cosched
	SettingFactor                                 // Factor
	SettingStragglers                             // Stragglers
	SettingStragglerFraction                      // StragglerFraction
	SettingSeed                                   // Seed
	SettingTrace                                  // Trace
	numSettings              = iota
)

// Used returns the settings that take effect in c: a noise source's
// settings when the source adds noise (random detours need Dist and a
// mean interval, periodic ones a period and a length, stragglers some
// ranks and a factor above 1), Cosched with a trace or periodic detours,
// Seed when something is drawn from it.
func (c *Config) Used() Settings {
	var u Settings
	random := c.Dist != "" && c.MeanIntervalNs > 0
	periodic := c.PeriodNs > 0 && c.PeriodDurNs > 0
	straggling := c.Factor > 1 && (len(c.Stragglers) > 0 || c.StragglerFraction > 0)
	if c.Trace != nil {
		u |= SettingTrace
	}
	if random {
		u |= SettingDist | SettingMeanInterval | SettingMeanDur
		if c.Dist == "pareto" {
			u |= SettingAlpha
		}
	}
	if periodic {
		u |= SettingPeriod | SettingPeriodDur
	}
	if c.Trace != nil || periodic {
		u |= SettingCosched
	}
	if len(c.Stragglers) > 0 || c.StragglerFraction > 0 {
		u |= SettingFactor // its value is the one that counts, 1 included
	}
	if straggling {
		if len(c.Stragglers) > 0 {
			u |= SettingStragglers
		}
		if c.StragglerFraction > 0 {
			u |= SettingStragglerFraction
		}
	}
	if c.Trace != nil || periodic || random || (straggling && c.StragglerFraction > 0) {
		u |= SettingSeed
	}
	return u
}

// Present returns the settings of c that are not off: not zero (and for
// Factor, not 1 either).
func (c *Config) Present() Settings {
	var p Settings
	for _, f := range []struct {
		s  Settings
		on bool
	}{
		{SettingMeanInterval, c.MeanIntervalNs != 0}, {SettingMeanDur, c.MeanDurNs != 0},
		{SettingDist, c.Dist != ""}, {SettingAlpha, c.Alpha != 0},
		{SettingPeriod, c.PeriodNs != 0}, {SettingPeriodDur, c.PeriodDurNs != 0},
		{SettingCosched, c.Cosched}, {SettingFactor, c.Factor != 0 && c.Factor != 1},
		{SettingStragglers, len(c.Stragglers) > 0}, {SettingStragglerFraction, c.StragglerFraction != 0},
		{SettingSeed, c.Seed != 0}, {SettingTrace, c.Trace != nil},
	} {
		if f.on {
			p |= f.s
		}
	}
	return p
}

// need is what a setting needs to have an effect: all of the settings in
// all, or one of those in any. missing says so when some are not given
// (%[1]s the setting, %[2]s those it lacks). value says what is wrong
// when they are all there (%[1]s the setting, %[2]s the setting valueOf);
// without it, the setting's own value is 0, or missing says it with all
// it needs.
var need = [numSettings]struct {
	all, any       Settings
	missing, value string
	valueOf        Settings
}{
	{all: SettingDist, missing: "%[1]s needs %[2]s exp or pareto: without it there are no random detours"},
	{all: SettingDist | SettingMeanInterval, missing: "%[1]s needs %[2]s: random detours need a distribution and a mean interval"},
	{all: SettingMeanInterval, missing: "%[1]s needs %[2]s (the mean time between random detours, ns)"},
	{all: SettingDist | SettingMeanInterval, missing: "%[1]s needs %[2]s: it is the shape of random detours with a Pareto distribution",
		value: "%[1]s is the shape of %[2]s pareto (random detours with a Pareto distribution)", valueOf: SettingDist},
	{all: SettingPeriodDur, missing: "%[1]s needs %[2]s (each detour's length, ns): detours of 0 ns add nothing"},
	{all: SettingPeriod, missing: "%[1]s needs %[2]s (the time between detours, ns)"},
	{any: SettingTrace | SettingPeriod, missing: "%[1]s applies to %[2]s (the offsets it aligns)"},
	{any: SettingStragglers | SettingStragglerFraction, missing: "%[1]s needs %[2]s (which ranks straggle)"},
	{all: SettingFactor, missing: "%[1]s needs %[2]s above 1 (how many times longer the stragglers' CPU work takes)",
		value: "%[1]s needs %[2]s above 1 (how many times longer the stragglers' CPU work takes)", valueOf: SettingFactor},
	{all: SettingFactor, missing: "%[1]s needs %[2]s above 1 (how many times longer the stragglers' CPU work takes)",
		value: "%[1]s needs %[2]s above 1 (how many times longer the stragglers' CPU work takes)", valueOf: SettingFactor},
	{any: SettingTrace | SettingPeriod | SettingMeanInterval | SettingStragglerFraction,
		missing: "%[1]s needs %[2]s: it seeds the offsets into a trace or a period, random detours and the choice of stragglers"},
	{missing: "%[1]s has no effect"}, // a trace always has one
}

// NeedError is a setting given without what gives it an effect.
type NeedError struct {
	Setting Settings // the setting that has no effect
	Needs   Settings // what it needs, without what was given already
	msg     string
}

func (e *NeedError) Error() string { return e.msg }

// Unwrap returns ErrConfig.
func (e *NeedError) Unwrap() error { return ErrConfig }

// Unused returns a *NeedError for the first setting of given that is not
// in used, nil when all are: given holds the settings a user set, used
// those that take effect (Config.Used, or their union over the points of
// a sweep) and present those with a value that is not off
// (Config.Present), left out of what the error says is needed. name spells
// a setting as the user wrote it (a flag, a key); a setting it spells ""
// does not exist there and is never named as needed.
func Unused(given, used, present Settings, name func(Settings) string) error {
	for i := range numSettings {
		s := Settings(1) << i
		if given&s == 0 || used&s != 0 {
			continue
		}
		n := need[i]
		want := n.all | n.any
		lacking := want &^ present
		var msg string
		switch {
		case lacking == 0 && n.value != "":
			msg = fmt.Sprintf(n.value, name(s), name(n.valueOf))
		case lacking == 0 && present&s == 0:
			msg = fmt.Sprintf("%s is 0 wherever it is given: it has no effect", name(s))
		default:
			if lacking != 0 {
				want = lacking // what is given already is not what is missing
			}
			msg = fmt.Sprintf(n.missing, name(s), names(want, n.any != 0, name))
		}
		return &NeedError{Setting: s, Needs: want, msg: msg}
	}
	return nil
}

// names spells the settings of set, those that name spells, as "a and b",
// "a, b or c".
func names(set Settings, any bool, name func(Settings) string) string {
	var l []string
	for j := range numSettings {
		if t := Settings(1) << j; set&t != 0 && name(t) != "" {
			l = append(l, name(t))
		}
	}
	sep := " and "
	if any {
		sep = " or "
	}
	if len(l) > 2 {
		l = []string{strings.Join(l[:len(l)-1], ", "), l[len(l)-1]}
	}
	return strings.Join(l, sep)
}
