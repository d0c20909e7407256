package bench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/sim"
)

// ErrSizes is wrapped by every error of ParseSizes.
var ErrSizes = errors.New("bench: bad size list")

// maxListSizes bounds the sizes one list may expand to.
const maxListSizes = 10000

// ParseSizes reads a list of message sizes in bytes: comma-separated items,
// each a size or a range START:END:STEP (START, START+STEP, ... up to END)
// or START:END:*FACTOR (START, START*FACTOR, ... up to END). A size may end
// in k (KiB) or m (MiB). The result is sorted, without duplicates; every
// size is 1..MaxSizeBytes. Example: "1,1k:8k:1k,12288,12289,16k:128k:*2".
func ParseSizes(list string) ([]int64, error) {
	var out []int64
	col := 1
	for _, item := range strings.Split(list, ",") {
		if err := parseSizeItem(strings.TrimSpace(item), &out); err != nil {
			return nil, fmt.Errorf("%w: item %q at column %d: %v", ErrSizes, item, col, err)
		}
		if len(out) > maxListSizes {
			return nil, fmt.Errorf("%w: more than %d sizes", ErrSizes, maxListSizes)
		}
		col += len(item) + 1
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func parseSizeItem(item string, out *[]int64) error {
	parts := strings.Split(item, ":")
	switch len(parts) {
	case 1:
		s, err := parseSize(parts[0])
		if err != nil {
			return err
		}
		*out = append(*out, s)
		return nil
	case 3:
	default:
		return errors.New("want SIZE, START:END:STEP or START:END:*FACTOR")
	}
	start, err := parseSize(parts[0])
	if err != nil {
		return err
	}
	end, err := parseSize(parts[1])
	if err != nil {
		return err
	}
	if end < start {
		return fmt.Errorf("end %d is below start %d", end, start)
	}
	if f, ok := strings.CutPrefix(parts[2], "*"); ok {
		factor, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || factor < 2 {
			return fmt.Errorf("factor %q: want an integer of at least 2", f)
		}
		for s := start; s <= end; s *= factor {
			*out = append(*out, s)
			if len(*out) > maxListSizes || s > end/factor {
				break
			}
		}
		return nil
	}
	step, err := parseSize(parts[2])
	if err != nil {
		return fmt.Errorf("step: %v", err)
	}
	for s := start; s <= end; s += step {
		*out = append(*out, s)
		if len(*out) > maxListSizes {
			break
		}
	}
	return nil
}

// parseSize reads a size in bytes with an optional k or m suffix.
func parseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	var v int64
	if n := len(s); n > 0 && strings.ContainsRune("kKmM", rune(s[n-1])) {
		// The shorthand k (KiB) and m (MiB).
		mult := 1.0 * (1 << 10)
		if s[n-1] == 'm' || s[n-1] == 'M' {
			mult = 1 << 20
		}
		x, err := strconv.ParseFloat(s[:n-1], 64)
		if err != nil || x*mult != math.Trunc(x*mult) || !(x*mult <= MaxSizeBytes) {
			return 0, fmt.Errorf("%q is not a size in bytes (1 to %d, or with a unit: 64k, 64KiB, 1.5MiB)", s, int64(MaxSizeBytes))
		}
		v = int64(x * mult)
	} else {
		var err error
		if v, err = sim.ParseBytes(s); err != nil {
			return 0, fmt.Errorf("%q is not a size in bytes: %v", s, err)
		}
	}
	if v < 1 || v > MaxSizeBytes {
		return 0, fmt.Errorf("%d bytes outside 1..%d", v, int64(MaxSizeBytes))
	}
	return v, nil
}
