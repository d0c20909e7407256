package noise_test

import (
	"fmt"
	"strings"

	"github.com/gopsim/gopsim/noise"
)

// A detour of 1 µs every 10 µs, the same phase on every rank.
func ExampleModel_Charge() {
	tr, err := noise.ReadTrace(strings.NewReader("# start\tduration (ns)\n0\t1000\n10000\t1000\n"), "example")
	if err != nil {
		panic(err)
	}
	m, err := noise.New(noise.Config{Trace: tr, Cosched: true}, 2)
	if err != nil {
		panic(err)
	}
	fmt.Println("period:", tr.Period, "ns")
	extra := m.Charge(0, 0, 25_000) // 25 µs of work meets several detours
	fmt.Println(extra > 0, m.Absorbed(0) == extra)
	// Output:
	// period: 11000 ns
	// true true
}

// Unused names the first setting given without effect, and what it needs,
// in the words of the caller (here, gopsim sim's flags).
func ExampleUnused() {
	flag := func(s noise.Settings) string {
		switch s {
		case noise.SettingPeriod:
			return "--noise-period"
		case noise.SettingPeriodDur:
			return "--noise-period-length"
		}
		return ""
	}
	c := noise.Config{PeriodNs: 1000}
	given := noise.SettingPeriod
	fmt.Println(noise.Unused(given, c.Used(), c.Present(), flag))
	c.PeriodDurNs = 50
	given |= noise.SettingPeriodDur
	fmt.Println(noise.Unused(given, c.Used(), c.Present(), flag))
	// Output:
	// --noise-period needs --noise-period-length (each detour's length, ns): detours of 0 ns add nothing
	// <nil>
}
