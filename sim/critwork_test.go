package sim

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortWork: grouping by resource and sorting only the groups out of
// order gives the order of one sort of everything by (resource, end, op),
// for intervals in op order, ends out of order and ties on end alike.
func TestSortWork(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 9))
	for _, tc := range []struct {
		name   string
		n      int
		nres   int
		sorted bool // ends increase with op within each resource
	}{
		{"empty", 0, 3, true},
		{"one", 1, 3, true},
		{"in order", 500, 3, true},
		{"out of order", 500, 3, false},
		{"many resources", 2000, 9, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := make([]critWork, tc.n)
			for i := range w {
				end := int64(rng.IntN(50)) // ties on end
				if tc.sorted {
					end = int64(i)
				}
				w[i] = critWork{end: end, res: int32(rng.IntN(tc.nres)), op: int32(rng.IntN(1000))}
			}
			want := slices.Clone(w)
			slices.SortFunc(want, cmpWork)
			got, buf := sortWork(slices.Clone(w), nil, tc.nres)
			if !slices.Equal(got, want) {
				t.Errorf("sortWork: %v, want %v", got, want)
			}
			if len(buf) != tc.n {
				t.Errorf("buffer kept: %d entries, want the %d given", len(buf), tc.n)
			}
		})
	}
}
