package extrapolation_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/extrapolation"
	"github.com/gopsim/gopsim/goal"
)

func readText(t *testing.T, text string) *goal.Schedule {
	t.Helper()
	s, err := goal.ReadText(strings.NewReader(text), "test.goal")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func extrapolated(t *testing.T, s *goal.Schedule, opt extrapolation.ScheduleOptions) *goal.Schedule {
	t.Helper()
	out := goal.NewSchedule(s.NumRanks * opt.Factor)
	if err := extrapolation.Schedule(s, opt, out.AppendRank); err != nil {
		t.Fatal(err)
	}
	return out
}

func textOf(t *testing.T, s *goal.Schedule) string {
	t.Helper()
	var b strings.Builder
	if err := goal.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// A 3-rank ring with a wildcard receive, labels, a second CPU and
// irequires edges.
const ring3 = `num_ranks 3
rank 0 {
a: send 8b to 1 tag 5
b: recv 8b from 2 tag 5
c: calc 100 cpu 1
c requires b
b irequires a
}
rank 1 {
l1: recv 8b from -1 tag 5
l2: send 8b to 2 tag 5
l2 requires l1
}
rank 2 {
l1: recv 8b from 1 tag -1
l2: send 8b to 0 tag 5
l2 requires l1
}
`

// The same, replicated by hand: copy j is ranks 3j..3j+2, its peers +3j.
func ring3Copies(k int, peer func(r, p, j int) int) string {
	var b strings.Builder
	b.WriteString("num_ranks " + itoa(3*k) + "\n")
	for j := range k {
		o := func(r, p int) string { return itoa(peer(r, p, j)) }
		b.WriteString("rank " + itoa(3*j) + " {\na: send 8b to " + o(0, 1) + " tag 5\nb: recv 8b from " + o(0, 2) + " tag 5\nc: calc 100 cpu 1\nc requires b\nb irequires a\n}\n")
		b.WriteString("rank " + itoa(3*j+1) + " {\nl1: recv 8b from -1 tag 5\nl2: send 8b to " + o(1, 2) + " tag 5\nl2 requires l1\n}\n")
		b.WriteString("rank " + itoa(3*j+2) + " {\nl1: recv 8b from " + o(2, 1) + " tag -1\nl2: send 8b to " + o(2, 0) + " tag 5\nl2 requires l1\n}\n")
	}
	return b.String()
}

func itoa(x int) string {
	return strconv.Itoa(x)
}

// TestSchedule: a GOAL-level extrapolation equals the schedule replicated
// by hand, with Schedgen's copies and with a 1-D periodic grid (the ring
// closes across the copies: rank 0 of copy j receives from rank 2 of copy
// j-1).
func TestSchedule(t *testing.T) {
	in := readText(t, ring3)
	copies := func(r, p, j int) int { return p + 3*j }
	tests := []struct {
		name string
		opt  extrapolation.ScheduleOptions
		want string
	}{
		{"factor 1", extrapolation.ScheduleOptions{Factor: 1}, ring3},
		{"copies x4", extrapolation.ScheduleOptions{Factor: 4}, ring3Copies(4, copies)},
		{"ring grid x3", extrapolation.ScheduleOptions{Factor: 3, Grid: []int{3}}, ring3Copies(3, func(r, p, j int) int {
			switch {
			case r == 0 && p == 2: // the ring wrapped: now the previous copy
				return 2 + 3*((j+2)%3)
			case r == 2 && p == 0: // and the next one
				return 3 * ((j + 1) % 3)
			}
			return p + 3*j
		})},
		{"grid 3x1 x2", extrapolation.ScheduleOptions{Factor: 2, Grid: []int{3, 1}}, ring3Copies(2, func(r, p, j int) int {
			switch {
			case r == 0 && p == 2:
				return 2 + 3*((j+1)%2)
			case r == 2 && p == 0:
				return 3 * ((j + 1) % 2)
			}
			return p + 3*j
		})},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := textOf(t, extrapolated(t, in, tc.opt))
			want := textOf(t, readText(t, tc.want))
			if got != want {
				t.Errorf("got\n%s\nwant\n%s", got, want)
			}
		})
	}
}

func TestScheduleErrors(t *testing.T) {
	in := readText(t, ring3)
	tests := []struct {
		name string
		opt  extrapolation.ScheduleOptions
		want string
	}{
		{"factor 0", extrapolation.ScheduleOptions{Factor: 0}, "factor 0: must be at least 1"},
		{"too many ranks", extrapolation.ScheduleOptions{Factor: 1 << 30}, "more than the 2147483647"},
		{"grid size", extrapolation.ScheduleOptions{Factor: 2, Grid: []int{2, 2}}, "grid 2x2 has 4 ranks, the schedule 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := extrapolation.Schedule(in, tc.opt, func(*goal.RankBlock) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, extrapolation.ErrOptions) {
				t.Errorf("error %v, want %q wrapping ErrOptions", err, tc.want)
			}
		})
	}
	// A failing writer is reported with the rank.
	err := extrapolation.Schedule(in, extrapolation.ScheduleOptions{Factor: 2}, func(b *goal.RankBlock) error {
		if b.Rank == 4 {
			return errors.New("disk full")
		}
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "rank 4 (copy 1 of rank 1): disk full") {
		t.Errorf("error %v", err)
	}
}
