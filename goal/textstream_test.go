package goal_test

import (
	"errors"
	"io"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// readBlocks returns every block next hands out (copies) and the error
// that ends them (nil for io.EOF).
func readBlocks(next func(*goal.RankBlock) error) ([]goal.RankBlock, error) {
	var out []goal.RankBlock
	var b goal.RankBlock
	for {
		if err := next(&b); err != nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			return out, err
		}
		out = append(out, goal.RankBlock{Rank: b.Rank, Ops: append([]goal.Op{}, b.Ops...),
			DepStart: append([]int32{}, b.DepStart...), Deps: append([]goal.Dep{}, b.Deps...),
			Labels: append([]goal.Label{}, b.Labels...)})
	}
}

// TestTextStreamMatchesTextReader compares TextStream with a TextReader on
// every text variant, for several piece lengths and numbers of CPUs: the
// same blocks in the same order, and the same error after them.
func TestTextStreamMatchesTextReader(t *testing.T) {
	for name, src := range textVariants(t) {
		t.Run(name, func(t *testing.T) {
			want, wantErr := readBlocks(goal.NewTextReader(strings.NewReader(src), "v.goal").Next)
			for _, procs := range []int{1, 4} {
				old := runtime.GOMAXPROCS(procs)
				for _, size := range []int64{1, 7, 700, 1 << 20} {
					restore := goal.SetTextPieceSize(size)
					s := goal.NewTextStream(strings.NewReader(src), int64(len(src)), "v.goal", goal.Limits{})
					got, err := readBlocks(s.Next)
					s.Close()
					restore()
					switch {
					case (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error():
						t.Errorf("%d CPUs, pieces of %d: error %v, want %v", procs, size, err, wantErr)
					case !reflect.DeepEqual(got, want):
						t.Errorf("%d CPUs, pieces of %d: %d blocks, want %d, or other blocks", procs, size, len(got), len(want))
					}
					if n := s.NumRanks(); wantErr == nil && len(want) > 0 && n != len(want) {
						t.Errorf("%d CPUs, pieces of %d: NumRanks %d, want %d", procs, size, n, len(want))
					}
				}
				runtime.GOMAXPROCS(old)
			}
		})
	}
}

// TestTextStreamParallel checks that the blocks of a text in Schedgen's
// shape come from the pieces parsed in parallel, up to a late error too
// (the comparison above could otherwise pass on the sequential reading
// alone), and that a stream closed early does not hang.
func TestTextStreamParallel(t *testing.T) {
	defer goal.SetTextPieceSize(200)()
	v := textVariants(t)
	for _, tc := range []struct {
		name string
		min  int
	}{
		{"valid", 120},
		{"crlf", 120},
		{"peer out of range late", 90},
		{"missing last rank", 110},
		{"num_ranks again", 70},
	} {
		src := v[tc.name]
		s := goal.NewTextStream(strings.NewReader(src), int64(len(src)), "v.goal", goal.Limits{})
		readBlocks(s.Next)
		s.Close()
		if n := goal.TextStreamHanded(s); n < tc.min {
			t.Errorf("%s: %d blocks from parallel pieces, want at least %d", tc.name, n, tc.min)
		}
	}
	src := bigText(2000)
	s := goal.NewTextStream(strings.NewReader(src), int64(len(src)), "v.goal", goal.Limits{})
	var b goal.RankBlock
	for range 10 {
		if err := s.Next(&b); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()
	if s.Consumed() <= 0 || s.Consumed() >= int64(len(src)) {
		t.Errorf("Consumed %d after 10 of 2000 blocks of %d bytes", s.Consumed(), len(src))
	}
}
