package extrapolation

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/pattern"
)

// ErrOptions is returned (wrapped) for a factor or grid that cannot be used.
var ErrOptions = errors.New("extrapolation: invalid options")

// mapper remaps the peers of copy j of a P-rank run into the K·P-rank one.
// Without a grid (d0 == 0) a peer stays in its copy; with one, the copies
// are stacked along the grid's first dimension and a message whose row
// distance is more than half that dimension (one that wrapped around it)
// goes to the neighbouring copy.
type mapper struct {
	p, k int
	d0   int     // size of the grid's first dimension; 0: no grid
	cart []int32 // grid rank of each world rank; nil: the identity
}

// row is world rank w's coordinate along the grid's first dimension.
func (m *mapper) row(w int32) int {
	c := int(w)
	if m.cart != nil {
		c = int(m.cart[w])
	}
	return c / (m.p / m.d0)
}

// peer maps peer p (a world rank of the P-rank run, or a negative special
// value, returned as it is) of template rank r in copy j.
func (m *mapper) peer(r, p int32, j int) int32 {
	if p < 0 || int(p) >= m.p {
		return p
	}
	off := 0
	if m.d0 > 0 {
		// The nearest image of the peer's row: a distance of more than half
		// the dimension wrapped around it. A distance of exactly half is
		// taken as it is, so sender and receiver always agree.
		delta := m.row(p) - m.row(r)
		switch {
		case 2*delta > m.d0:
			off = -1
		case 2*delta < -m.d0:
			off = 1
		}
	}
	jj := ((j+off)%m.k + m.k) % m.k
	return p + int32(m.p*jj)
}

// check validates the factor against the size of the input.
func checkFactor(p, k int) error {
	if k < 1 {
		return fmt.Errorf("%w: factor %d: must be at least 1", ErrOptions, k)
	}
	if p < 1 {
		return fmt.Errorf("%w: the input has no ranks", ErrOptions)
	}
	if int64(p)*int64(k) > math.MaxInt32 {
		return fmt.Errorf("%w: %d ranks × factor %d = %d ranks, more than the %d a schedule holds", ErrOptions, p, k, int64(p)*int64(k), math.MaxInt32)
	}
	return nil
}

// ParseDims reads a process grid written as "4x4", "4,4" or "8x4x2",
// slowest dimension first (MPI_Cart_create's dims order). Every dimension
// is a positive integer and the product fits an int32.
func ParseDims(s string) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, fmt.Errorf("%w: empty grid: expected dimensions such as 4x4", ErrOptions)
	}
	fields := strings.FieldsFunc(s, func(c rune) bool { return c == 'x' || c == 'X' || c == ',' })
	if len(fields) == 0 {
		return nil, fmt.Errorf("%w: grid %q: expected dimensions such as 4x4", ErrOptions, s)
	}
	dims := make([]int, 0, len(fields))
	prod := int64(1)
	for i, f := range fields {
		d, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || d < 1 {
			return nil, fmt.Errorf("%w: grid %q: dimension %d (%q) is not a positive integer", ErrOptions, s, i, f)
		}
		prod *= int64(d)
		if prod > math.MaxInt32 {
			return nil, fmt.Errorf("%w: grid %q: more than %d ranks", ErrOptions, s, math.MaxInt32)
		}
		dims = append(dims, d)
	}
	return dims, nil
}

// FormatDims writes dims as ParseDims reads them: "4x4".
func FormatDims(dims []int) string {
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.Itoa(d)
	}
	return strings.Join(parts, "x")
}

func product(dims []int) int {
	p := 1
	for _, d := range dims {
		p *= d
	}
	return p
}

// detectDims picks the grid of P ranks that best explains the
// point-to-point neighbours peers (per grid rank, the grid ranks it
// exchanged messages with): among MPI_Dims_create's grids of 1, 2 and 3
// dimensions, the one under which the most ranks see the same set of
// displacements to their neighbours (a halo exchange on a periodic grid:
// all of them); a tie goes to fewer dimensions.
func detectDims(p int, peers [][]int32) (dims []int, agree int) {
	best, bestAgree := []int{p}, -1
	seen := map[string]bool{}
	for nd := 1; nd <= 3; nd++ {
		cand := pattern.DimsCreate(p, nd)
		key := FormatDims(cand)
		if seen[key] {
			continue
		}
		seen[key] = true
		a := agreement(cand, peers)
		if a > bestAgree {
			best, bestAgree = cand, a
		}
	}
	return best, bestAgree
}

// agreement is the number of ranks whose set of displacements to their
// neighbours, taken to the nearest periodic image in each dimension, is
// the most common such set.
func agreement(dims []int, peers [][]int32) int {
	count := map[string]int{}
	var sb strings.Builder
	coords := func(c int32, out []int) {
		x := int(c)
		for d := len(dims) - 1; d >= 0; d-- {
			out[d] = x % dims[d]
			x /= dims[d]
		}
	}
	a, b := make([]int, len(dims)), make([]int, len(dims))
	for r, ps := range peers {
		coords(int32(r), a)
		var keys []string
		for _, q := range ps {
			coords(q, b)
			sb.Reset()
			for d := range dims {
				delta := ((b[d]-a[d])%dims[d] + dims[d]) % dims[d]
				if 2*delta > dims[d] {
					delta -= dims[d]
				}
				sb.WriteString(strconv.Itoa(delta))
				sb.WriteByte(',')
			}
			keys = append(keys, sb.String())
		}
		slices.Sort(keys)
		count[strings.Join(keys, ";")]++
	}
	most := 0
	for _, n := range count {
		most = max(most, n)
	}
	return most
}
