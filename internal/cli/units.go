package cli

import (
	"fmt"
	"strconv"

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
