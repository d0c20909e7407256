package extrapolation_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/extrapolation"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/pattern"
)

func TestParseDims(t *testing.T) {
	tests := []struct {
		in   string
		want []int
		err  string
	}{
		{"4x4", []int{4, 4}, ""},
		{"8,4,2", []int{8, 4, 2}, ""},
		{"16", []int{16}, ""},
		{" 2X3 ", []int{2, 3}, ""},
		{"", nil, "empty grid"},
		{"x", nil, "expected dimensions"},
		{"4x0", nil, "dimension 1 (\"0\") is not a positive integer"},
		{"4x-2", nil, "not a positive integer"},
		{"4xa", nil, "not a positive integer"},
		{"65536x65536", nil, "more than 2147483647 ranks"},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := extrapolation.ParseDims(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, extrapolation.ErrOptions) {
					t.Errorf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("got %v, %v; want %v", got, err, tc.want)
			}
			if back, _ := extrapolation.ParseDims(extrapolation.FormatDims(got)); !slices.Equal(back, got) {
				t.Errorf("FormatDims does not read back: %v", back)
			}
		})
	}
}

// FuzzParseDims: any string gives dimensions that are positive, whose
// product fits a rank, and that read back the same, or an error.
func FuzzParseDims(f *testing.F) {
	for _, s := range []string{"4x4", "8,4,2", "", "x", "0", "99999999999", "2x3x", "1x1x1x1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		dims, err := extrapolation.ParseDims(s)
		if err != nil {
			return
		}
		p := int64(1)
		for _, d := range dims {
			if d < 1 {
				t.Fatalf("%q: dimension %d", s, d)
			}
			p *= int64(d)
		}
		if p > goal.MaxRanks || len(dims) == 0 {
			t.Fatalf("%q: %v", s, dims)
		}
		back, err := extrapolation.ParseDims(extrapolation.FormatDims(dims))
		if err != nil || !slices.Equal(back, dims) {
			t.Fatalf("%q: %v reads back as %v, %v", s, dims, back, err)
		}
	})
}

func TestDimsCreate(t *testing.T) {
	tests := []struct {
		n, k int
		want []int
	}{
		{16, 2, []int{4, 4}},
		{16, 3, []int{4, 2, 2}},
		{64, 3, []int{4, 4, 4}},
		{12, 2, []int{4, 3}},
		{7, 2, []int{7, 1}},
		{1, 2, []int{1, 1}},
		{1024, 2, []int{32, 32}},
		{131072, 3, []int{64, 64, 32}},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.n, "/", tc.k), func(t *testing.T) {
			if got := pattern.DimsCreate(tc.n, tc.k); !slices.Equal(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestGridMatching: whatever the grid and the factor, every message of an
// all-to-all schedule still has its receive after extrapolation: sender
// and receiver agree on where the other went (a message that wraps one way
// is matched by one that wraps the other way).
func TestGridMatching(t *testing.T) {
	for _, tc := range []struct {
		grid []int
		k    int
	}{
		{[]int{4, 4}, 3}, {[]int{2, 3}, 2}, {[]int{5}, 4}, {[]int{3, 2, 2}, 5}, {[]int{1, 6}, 2}, {[]int{6}, 1},
	} {
		t.Run(extrapolation.FormatDims(tc.grid)+fmt.Sprint("x", tc.k), func(t *testing.T) {
			p := 1
			for _, d := range tc.grid {
				p *= d
			}
			s := goal.NewSchedule(p)
			var b goal.Builder
			for r := range p {
				b.Reset(int32(r))
				for q := range p {
					if q != r {
						b.Send(1, int32(q), uint32(r), 0, 0)
						b.Recv(1, int32(q), uint32(q), 0, 0)
					}
				}
				if err := s.AppendRank(b.Block()); err != nil {
					t.Fatal(err)
				}
			}
			type msg struct{ from, to, tag int32 }
			count := map[msg]int{}
			err := extrapolation.Schedule(s, extrapolation.ScheduleOptions{Factor: tc.k, Grid: tc.grid}, func(b *goal.RankBlock) error {
				for _, op := range b.Ops {
					switch op.Kind {
					case goal.Send:
						count[msg{b.Rank, op.Peer, int32(op.Tag)}]++
					case goal.Recv:
						count[msg{op.Peer, b.Rank, int32(op.Tag)}]--
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			for m, n := range count {
				if n != 0 {
					t.Errorf("message %+v: %d sends more than receives", m, n)
				}
			}
		})
	}
}
