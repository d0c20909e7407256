package sim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/internal/excerpt"
)

// Quantities a person types: a number, possibly with decimals, and a unit.
// ParseDuration reads times in ns, ParsePerByte per-byte costs in ns per
// byte (or a bandwidth), ParseBytes sizes in bytes. A number without a
// unit is in the quantity's base unit (ns, ns/byte, bytes). The number is
// decimal: digits with an optional fraction and exponent ("1.5", "2e3"),
// no sign other than a refused minus, no hexadecimal, Inf or NaN; blanks
// between it and the unit are allowed ("1.5 us").

// ErrUnit is wrapped by every error of ParseDuration, ParsePerByte and
// ParseBytes.
var ErrUnit = errors.New("sim: bad quantity")

// timeUnits are the time units, in ns; a negative number is a divisor
// (so that 13ps is 13/1000 = 0.013 ns, not 13·0.001).
var timeUnits = []struct {
	name string
	ns   float64
}{{"ns", 1}, {"us", 1e3}, {"µs", 1e3}, {"μs", 1e3}, {"ms", 1e6}, {"s", 1e9}, {"ps", -1e3}}

// inNs is v of a time unit worth ns (timeUnits) in ns.
func inNs(v, ns float64) float64 {
	if ns < 0 {
		return v / -ns
	}
	return v * ns
}

// byteUnits are the size units, in bytes: SI prefixes are powers of 1000,
// binary ones (KiB, MiB, ...) powers of 1024. For bandwidths, a lower-case
// b is a bit.
var byteUnits = []struct {
	name  string
	bytes float64
}{
	{"B", 1}, {"byte", 1}, {"bytes", 1},
	{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
}

var bitUnits = []struct {
	name  string
	bytes float64
}{{"b", 1.0 / 8}, {"kb", 1e3 / 8}, {"Kb", 1e3 / 8}, {"Mb", 1e6 / 8}, {"Gb", 1e9 / 8}, {"Tb", 1e12 / 8}}

const (
	timeUnitNames    = "ns, us (µs), ms, s or ps"
	perByteUnitNames = "ns/B (or another time unit per B), or a bandwidth such as 12.5GB/s, 100Gb/s, 800MB/s, 1GiB/s"
	byteUnitNames    = "B, kB, MB, GB, TB, KiB, MiB, GiB or TiB"
)

// splitNumber splits s into its decimal number and its unit (blanks
// trimmed).
func splitNumber(s string) (float64, string, error) {
	t := strings.TrimSpace(s)
	i := 0
	digits := 0
	if i < len(t) && (t[i] == '-' || t[i] == '+') {
		i++
	}
	for ; i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == '.'); i++ {
		if t[i] != '.' {
			digits++
		}
	}
	if digits == 0 {
		return 0, "", fmt.Errorf("%w %s: expected a decimal number, possibly followed by a unit", ErrUnit, excerpt.Quote(s))
	}
	if i < len(t) && (t[i] == 'e' || t[i] == 'E') {
		j := i + 1
		if j < len(t) && (t[j] == '-' || t[j] == '+') {
			j++
		}
		if j < len(t) && t[j] >= '0' && t[j] <= '9' {
			for i = j; i < len(t) && t[i] >= '0' && t[i] <= '9'; i++ {
			}
		}
	}
	v, err := strconv.ParseFloat(t[:i], 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, "", fmt.Errorf("%w %s: %s is not a finite decimal number", ErrUnit, excerpt.Quote(s), excerpt.Quote(t[:i]))
	}
	if v < 0 {
		return 0, "", fmt.Errorf("%w %s: negative", ErrUnit, excerpt.Quote(s))
	}
	return v, strings.TrimSpace(t[i:]), nil
}

// ParseDuration reads a time such as "2500", "1.5us", "1.5 µs", "3ms" and
// returns it in ns.
func ParseDuration(s string) (float64, error) {
	v, u, err := splitNumber(s)
	if err != nil {
		return 0, err
	}
	if u == "" {
		return v, nil
	}
	ns, ok := timeUnit(u)
	if !ok {
		return 0, fmt.Errorf("%w %s: unknown time unit %s (expected %s)", ErrUnit, excerpt.Quote(s), excerpt.Quote(u), timeUnitNames)
	}
	return finite(s, inNs(v, ns))
}

func timeUnit(u string) (float64, bool) {
	for _, x := range timeUnits {
		if u == x.name {
			return x.ns, true
		}
	}
	return 0, false
}

// ParsePerByte reads a per-byte cost, "0.08", "0.08ns/B", "80ps/byte", or
// a bandwidth, "12.5GB/s", "100Gb/s", "800MB/s", "1GiB/s", and returns it
// in ns per byte (a bandwidth of B bytes per second is 1e9/B ns per byte).
func ParsePerByte(s string) (float64, error) {
	v, u, err := splitNumber(s)
	if err != nil {
		return 0, err
	}
	if u == "" {
		return v, nil
	}
	num, den, ok := strings.Cut(u, "/")
	if !ok {
		return 0, fmt.Errorf("%w %s: unknown unit %s (expected %s)", ErrUnit, excerpt.Quote(s), excerpt.Quote(u), perByteUnitNames)
	}
	if ns, ok := timeUnit(num); ok && (den == "B" || den == "byte") {
		return finite(s, inNs(v, ns))
	}
	if den == "s" {
		if b, ok := sizeUnit(num, true); ok {
			if v == 0 {
				return 0, fmt.Errorf("%w %s: a bandwidth of 0 has no per-byte cost", ErrUnit, excerpt.Quote(s))
			}
			return finite(s, 1e9/(v*b))
		}
	}
	return 0, fmt.Errorf("%w %s: unknown unit %s (expected %s)", ErrUnit, excerpt.Quote(s), excerpt.Quote(u), perByteUnitNames)
}

// sizeUnit returns the bytes of size unit u; bits counts b, kb, Mb, ...
func sizeUnit(u string, bits bool) (float64, bool) {
	for _, x := range byteUnits {
		if u == x.name {
			return x.bytes, true
		}
	}
	if bits {
		for _, x := range bitUnits {
			if u == x.name {
				return x.bytes, true
			}
		}
	}
	return 0, false
}

// ParseBytes reads a size such as "65535", "64KiB", "1.5MB" and returns
// it in bytes; it must come to a whole number of bytes.
func ParseBytes(s string) (int64, error) {
	v, u, err := splitNumber(s)
	if err != nil {
		return 0, err
	}
	b := 1.0
	if u != "" {
		var ok bool
		if b, ok = sizeUnit(u, false); !ok {
			return 0, fmt.Errorf("%w %s: unknown size unit %s (expected %s)", ErrUnit, excerpt.Quote(s), excerpt.Quote(u), byteUnitNames)
		}
	}
	x := v * b
	if x > 1<<62 {
		return 0, fmt.Errorf("%w %s: beyond %d bytes", ErrUnit, excerpt.Quote(s), int64(1)<<62)
	}
	if x != math.Trunc(x) {
		return 0, fmt.Errorf("%w %s: %g bytes is not a whole number of bytes", ErrUnit, excerpt.Quote(s), x)
	}
	return int64(x), nil
}

func finite(s string, v float64) (float64, error) {
	if math.IsInf(v, 0) || math.IsNaN(v) || v > math.MaxFloat64/2 {
		return 0, fmt.Errorf("%w %s: too large", ErrUnit, excerpt.Quote(s))
	}
	return v, nil
}

// FormatBandwidth formats a per-byte cost of G ns per byte as the
// bandwidth it is, in the largest decimal unit that keeps a number of at
// least 1 ("12.5 GB/s"), or "unlimited" for 0.
func FormatBandwidth(g float64) string {
	if g <= 0 {
		return "unlimited"
	}
	bps := 1e9 / g
	for _, u := range []struct {
		name string
		f    float64
	}{{"TB/s", 1e12}, {"GB/s", 1e9}, {"MB/s", 1e6}, {"kB/s", 1e3}} {
		if bps >= u.f {
			return strconv.FormatFloat(bps/u.f, 'g', 4, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(bps, 'g', 4, 64) + " B/s"
}

// FormatDuration formats a time of ns nanoseconds in the largest unit of
// ns, us, ms and s that keeps a number of at least 1, to 4 significant
// digits ("290.6 us"), in units ParseDuration reads back.
func FormatDuration(ns float64) string {
	for _, u := range []struct {
		name string
		f    float64
	}{{"s", 1e9}, {"ms", 1e6}, {"us", 1e3}} {
		if ns >= u.f {
			return strconv.FormatFloat(ns/u.f, 'g', 4, 64) + " " + u.name
		}
	}
	return strconv.FormatFloat(ns, 'g', 4, 64) + " ns"
}
