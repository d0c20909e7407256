package noise

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
)

// ErrTrace is returned (wrapped) for a malformed noise trace.
var ErrTrace = errors.New("noise: malformed noise trace")

// Trace is a measured noise trace in LogGOPSim's format: one detour per
// line, "start<TAB>duration" in ns (numbers may have a fraction, rounded to
// the nearest ns), lines starting with '#' are comments. Detours are kept
// sorted by start; the trace repeats with period Period.
type Trace struct {
	Start  []int64
	Dur    []int64
	Period int64 // the end of the latest detour: max(Start+Dur)

	cum []int64 // cum[k] = Dur[0] + ... + Dur[k-1]
}

// ReadTrace reads a noise trace; name is used in errors.
func ReadTrace(r io.Reader, name string) (*Trace, error) {
	t := &Trace{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == '#' {
			continue
		}
		f := strings.Fields(s)
		if len(f) < 2 {
			return nil, fmt.Errorf("%w: %s:%d: expected \"start<TAB>duration\" in ns, found %q", ErrTrace, name, line, s)
		}
		var v [2]int64
		for i := 0; i < 2; i++ {
			x, err := strconv.ParseFloat(f[i], 64)
			if err != nil || x < 0 || x > 1<<52 || math.IsNaN(x) {
				what := [2]string{"start", "duration"}[i]
				return nil, fmt.Errorf("%w: %s:%d: %s %q: expected a non-negative number of ns", ErrTrace, name, line, what, f[i])
			}
			v[i] = int64(math.Round(x))
		}
		t.Start = append(t.Start, v[0])
		t.Dur = append(t.Dur, v[1])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(t.Start) == 0 {
		return nil, fmt.Errorf("%w: %s: no detours", ErrTrace, name)
	}
	t.normalize()
	if t.Period == 0 {
		return nil, fmt.Errorf("%w: %s: every detour has length 0 at time 0", ErrTrace, name)
	}
	return t, nil
}

// normalize sorts the detours, merges overlapping ones and sets Period.
func (t *Trace) normalize() {
	idx := make([]int, len(t.Start))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return t.Start[idx[a]] < t.Start[idx[b]] })
	var start, dur []int64
	for _, i := range idx {
		s, d := t.Start[i], t.Dur[i]
		if n := len(start); n > 0 && s < start[n-1]+dur[n-1] { // overlaps the previous detour
			dur[n-1] = max(dur[n-1], s+d-start[n-1])
			continue
		}
		start, dur = append(start, s), append(dur, d)
	}
	t.Start, t.Dur = start, dur
	t.Period = 0
	t.cum = make([]int64, len(start)+1)
	for i := range start {
		t.Period = max(t.Period, start[i]+dur[i])
		t.cum[i+1] = t.cum[i] + dur[i]
	}
}

// firstAtOrAfter is the index of the first detour starting at or after x.
func (t *Trace) firstAtOrAfter(x int64) int {
	lo, hi := 0, len(t.Start)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.Start[m] < x {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// ReadTraceFile reads the noise trace at path.
func ReadTraceFile(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTrace(f, path)
}

// WriteTrace writes t in LogGOPSim's format, with comment lines first.
func WriteTrace(w io.Writer, t *Trace, comments ...string) error {
	bw := bufio.NewWriter(w)
	for _, c := range comments {
		for _, l := range strings.Split(c, "\n") {
			fmt.Fprintf(bw, "# %s\n", l)
		}
	}
	for i := range t.Start {
		fmt.Fprintf(bw, "%d\t%d\n", t.Start[i], t.Dur[i])
	}
	return bw.Flush()
}

// in returns the detour time that [a, a+n) on the periodic trace absorbs:
// the rest of a detour in progress at a, plus every detour that starts in
// [a, a+n), all counted in full (the CPU work waits while a detour runs;
// later detours are not looked for inside the extension).
func (t *Trace) in(a, n int64) int64 {
	T := t.Period
	a %= T
	var total int64
	// A detour in progress at a (they are disjoint, so at most one).
	if i := t.firstAtOrAfter(a); i > 0 && t.Start[i-1]+t.Dur[i-1] > a {
		total += t.Start[i-1] + t.Dur[i-1] - a
	}
	// Detours starting in [a, a+n): whole periods, then the rest.
	total += t.cum[len(t.Dur)] * (n / T)
	end := a + n%T
	lo := t.firstAtOrAfter(a)
	if end <= T {
		return total + t.cum[t.firstAtOrAfter(end)] - t.cum[lo]
	}
	return total + t.cum[len(t.Dur)] - t.cum[lo] + t.cum[t.firstAtOrAfter(end-T)]
}
