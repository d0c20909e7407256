package main

import (
	"math/rand/v2"
	"testing"
)

// TestLinkIsOneCycle checks that the walk the measurement times visits
// every cache line of the buffer exactly once per turn: a shorter cycle
// would time a smaller footprint than the row says.
func TestLinkIsOneCycle(t *testing.T) {
	for _, lines := range []int{1, 2, 3, 64, 1000} {
		a := make([]uint64, lines*lineWords)
		link(a, rand.New(rand.NewPCG(1, uint64(lines))))
		seen := make([]bool, lines)
		p := uint64(0)
		for step := 0; step < lines; step++ {
			if p%lineWords != 0 || p >= uint64(len(a)) {
				t.Fatalf("%d lines: step %d goes to word %d, not the start of a line", lines, step, p)
			}
			l := p / lineWords
			if seen[l] {
				t.Fatalf("%d lines: line %d visited twice within %d steps", lines, l, step)
			}
			seen[l] = true
			p = a[p]
		}
		if p != 0 {
			t.Errorf("%d lines: after %d steps the walk is at word %d, not back at 0", lines, lines, p)
		}
	}
}

func TestFootprint(t *testing.T) {
	for _, c := range []struct {
		kib  int
		want string
	}{{256, "256 KiB"}, {1024, "1 MiB"}, {4 << 10, "4 MiB"}, {2 << 20, "2 GiB"}} {
		if got := footprint(c.kib); got != c.want {
			t.Errorf("footprint(%d) = %q, want %q", c.kib, got, c.want)
		}
	}
}
