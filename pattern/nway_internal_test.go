package pattern

import "testing"

func TestNwayRounds(t *testing.T) { // values from glibc 2.36's log (Python's math.log)
	for _, tc := range []struct{ p, n, want int }{
		{1, 1, 0}, {2, 1, 1}, {8, 1, 3}, {9, 1, 4}, {9, 2, 2}, {27, 2, 3}, {64, 2, 4}, {81, 2, 4},
		// exact powers where glibc's quotient lands above the integer
		{536870912, 1, 30}, {125, 4, 4}, {15625, 4, 7}, {216, 5, 4}, {16807, 6, 6}, {2097152, 7, 8}, {5832, 17, 4},
	} {
		if got := nwayRounds(tc.p, tc.n); got != tc.want {
			t.Errorf("P=%d n=%d: %d rounds, want %d", tc.p, tc.n, got, tc.want)
		}
	}
}
