package goal

import (
	"math"
	"strings"
	"testing"
)

// TestCalcSize: a computed time becomes a calc of the nearest whole ns up
// to MaxCalc; beyond it, negative or not a number, it is an error that
// gives the time and the limit, never a wrapped or clamped size.
func TestCalcSize(t *testing.T) {
	for _, tc := range []struct {
		name string
		ns   float64
		want uint64
		err  string
	}{
		{"zero", 0, 0, ""},
		{"rounds half up", 2.5, 3, ""},
		{"rounds down", 1e3 + 0.4, 1000, ""},
		{"largest float below 2^62", math.Nextafter(1<<62, 0), 1<<62 - 512, ""},
		{"2^62", 1 << 62, 0, "4.612e+18 ns: more than the 4611686018427387903 ns a calc holds"},
		{"2^63", 1 << 63, 0, "more than the 4611686018427387903 ns"},
		{"1e300", 1e300, 0, "1e+300 ns: more than the 4611686018427387903 ns"},
		{"infinite", math.Inf(1), 0, "+Inf ns: more than"},
		{"negative", -1, 0, "-1 ns: a calc takes 0 to 4611686018427387903 ns"},
		{"not a number", math.NaN(), 0, "NaN ns: a calc takes 0 to"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := CalcSize(tc.ns)
			if tc.err == "" {
				if err != nil || got != tc.want {
					t.Fatalf("CalcSize(%g) = %d, %v; want %d", tc.ns, got, err, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("CalcSize(%g) = %d, %v; want an error with %q", tc.ns, got, err, tc.err)
			}
		})
	}
}
