package trace

import (
	"math"
	"testing"
)

// TestAddNs: the total computation of a conversion stops at
// math.MaxInt64 instead of wrapping to a negative time (three calcs near
// goal.MaxCalc are more than an int64 holds).
func TestAddNs(t *testing.T) {
	for _, tc := range []struct{ a, b, want int64 }{
		{1, 2, 3},
		{0, math.MaxInt64, math.MaxInt64},
		{math.MaxInt64 - 1, 1, math.MaxInt64},
		{math.MaxInt64 - 1, 2, math.MaxInt64},
		{1 << 62, 1 << 62, math.MaxInt64},
		{1<<62 - 1, 1<<62 - 1, 1<<63 - 2},
	} {
		if got := addNs(tc.a, tc.b); got != tc.want {
			t.Errorf("addNs(%d, %d) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
