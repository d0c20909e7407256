package cli

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/sim"
)

// The flags of the LogGOPS parameters take decimals and units
// (sim.ParseDuration, sim.ParsePerByte, sim.ParseBytes). The flag package
// names the flag and the value in its error; the error says what was
// expected.

// timeFlag is a time in ns.
type timeFlag struct{ v *float64 }

func (f timeFlag) String() string { return formatParam(f.v) }

func (f timeFlag) Set(s string) error {
	x, err := sim.ParseDuration(s)
	if err != nil {
		return err
	}
	return setParam(f.v, x, "ns")
}

// perByteFlag is a per-byte cost in ns per byte.
type perByteFlag struct{ v *float64 }

func (f perByteFlag) String() string { return formatParam(f.v) }

func (f perByteFlag) Set(s string) error {
	x, err := sim.ParsePerByte(s)
	if err != nil {
		return err
	}
	return setParam(f.v, x, "ns/byte")
}

// bytesFlag is a size in bytes.
type bytesFlag struct{ v *int64 }

func (f bytesFlag) String() string {
	if f.v == nil {
		return "0"
	}
	return strconv.FormatInt(*f.v, 10)
}

func (f bytesFlag) Set(s string) error {
	x, err := sim.ParseBytes(s)
	if err != nil {
		return err
	}
	if x > sim.MaxParam {
		return fmt.Errorf("%d bytes is above the largest parameter, %d", x, int64(sim.MaxParam))
	}
	*f.v = x
	return nil
}

func formatParam(v *float64) string {
	if v == nil {
		return "0"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

func setParam(dst *float64, x float64, unit string) error {
	if x > sim.MaxParam {
		return fmt.Errorf("%g %s is above the largest parameter, %d %s", x, unit, int64(sim.MaxParam), unit)
	}
	*dst = x
	return nil
}

// qtyFlag is a number of type T (a time, a size, a rate) that a person
// may type plainly, as strconv reads it (so that the command's own checks
// still see a negative or NaN value and say so), or with a unit, which
// parse converts into the flag's unit: "50us" for a flag in ns, "64KiB"
// for one in bytes. An integer flag must come to a whole number of its
// unit (whole names it in the error).
type qtyFlag[T int64 | uint64 | float64] struct {
	v     *T
	parse func(string) (float64, error)
	whole string
	max   uint64 // an integer flag's largest value (0: no limit but 2^62 with a unit); see atMost
	what  string // the limit max is, for the error
}

// atMost limits an integer flag to max, which what describes ("the
// longest calc gopsim sim runs"): a larger value, plain or with a unit, is
// an error naming the value and the limit, never a clamped number.
func (f qtyFlag[T]) atMost(max uint64, what string) qtyFlag[T] {
	f.max, f.what = max, what
	return f
}

// wholeString is whole number x in decimal, exactly below 2^63.
func wholeString(x float64) string {
	if x < 1<<63 {
		return strconv.FormatUint(uint64(x), 10)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// tooLarge is the error of value v (in decimal), typed as s, above f.max.
func (f qtyFlag[T]) tooLarge(s, v string) error {
	if v != s {
		s += " is " + v
	}
	return fmt.Errorf("%s %s: more than %s, %d %s", s, f.whole, f.what, f.max, f.whole)
}

func (f qtyFlag[T]) String() string {
	if f.v == nil {
		return "0"
	}
	return fmt.Sprint(*f.v)
}

func (f qtyFlag[T]) Set(s string) error {
	var zero T
	switch any(zero).(type) {
	case float64:
		if x, err := strconv.ParseFloat(s, 64); err == nil {
			*f.v = T(x)
			return nil
		}
	case int64:
		if x, err := strconv.ParseInt(s, 0, 64); err == nil {
			if f.max > 0 && x > 0 && uint64(x) > f.max {
				return f.tooLarge(s, strconv.FormatInt(x, 10))
			}
			*f.v = T(x)
			return nil
		}
	case uint64:
		if x, err := strconv.ParseUint(s, 0, 64); err == nil {
			if f.max > 0 && x > f.max {
				return f.tooLarge(s, strconv.FormatUint(x, 10))
			}
			*f.v = T(x)
			return nil
		}
	}
	x, err := f.parse(s)
	if err != nil {
		return err
	}
	if _, isFloat := any(zero).(float64); !isFloat {
		if x != math.Trunc(x) {
			return fmt.Errorf("%s is %g %s: want a whole number of %s", s, x, f.whole, f.whole)
		}
		// float64(f.max) may round up to f.max+1 (2^62 for 2^62-1): the
		// converted value is checked again below.
		if f.max > 0 && x > float64(f.max) {
			return f.tooLarge(s, wholeString(x))
		}
		if x > 1<<62 {
			return fmt.Errorf("%s is %g %s: beyond %d", s, x, f.whole, int64(1)<<62)
		}
		if f.max > 0 && x > 0 && uint64(x) > f.max {
			return f.tooLarge(s, wholeString(x))
		}
	}
	*f.v = T(x)
	return nil
}

// nsQty, bytesQty, perByteQty, bandwidthQty and flopsQty are the units of
// qtyFlag's kinds of flag.
func nsQty[T int64 | uint64 | float64](v *T) qtyFlag[T] {
	return qtyFlag[T]{v: v, parse: sim.ParseDuration, whole: "ns"}
}

func bytesQty[T int64 | uint64](v *T) qtyFlag[T] {
	return qtyFlag[T]{v: v, whole: "bytes", parse: func(s string) (float64, error) {
		b, err := sim.ParseBytes(s)
		return float64(b), err
	}}
}

func perByteQty(v *float64) qtyFlag[float64] { return qtyFlag[float64]{v: v, parse: sim.ParsePerByte} }

// bandwidthQty is a rate in bytes per ns (1 byte/ns is 1 GB/s), typed
// plainly or as a bandwidth ("12.5GB/s") or a per-byte time ("0.08ns/B").
func bandwidthQty(v *float64) qtyFlag[float64] {
	return qtyFlag[float64]{v: v, parse: func(s string) (float64, error) {
		g, err := sim.ParsePerByte(s)
		if err != nil {
			return 0, err
		}
		if g == 0 {
			return 0, fmt.Errorf("%s: a cost of 0 ns per byte is no bandwidth", s)
		}
		return 1 / g, nil
	}}
}

// flopsQty is a speed in flop/s, typed plainly ("1e9") or in SimGrid's
// notation: a number and f, with an SI prefix ("100Mf", "1.5Gf"; also
// "flops" for f).
func flopsQty(v *float64) qtyFlag[float64] { return qtyFlag[float64]{v: v, parse: parseFlops} }

func parseFlops(s string) (float64, error) {
	num, ok := strings.CutSuffix(s, "flops")
	if !ok {
		if num, ok = strings.CutSuffix(s, "f"); !ok {
			return 0, fmt.Errorf("%q: want flop/s, as a number or with SimGrid's f (100Mf, 1Gf)", s)
		}
	}
	scale := 1.0
	if n := len(num); n > 0 {
		if p := strings.IndexByte("kMGTPE", num[n-1]); p >= 0 {
			scale = math.Pow(1000, float64(p+1))
			num = num[:n-1]
		}
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
	if err != nil || !(x > 0) || math.IsInf(x*scale, 0) {
		return 0, fmt.Errorf("%q: want a positive number of flop/s, as a number or with SimGrid's f (100Mf, 1Gf)", s)
	}
	return x * scale, nil
}
