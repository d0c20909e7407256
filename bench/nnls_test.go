package bench

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bruteNNLS solves min ||Ax-b||, x >= 0, by trying every set of variables
// held at 0: the best feasible unconstrained solution on the others is
// the optimum (the problem is convex).
func bruteNNLS(a []float64, m, n int, b []float64) []float64 {
	best, bestRes := make([]float64, n), math.Inf(1)
	for mask := 0; mask < 1<<n; mask++ {
		var cols []int
		for j := range n {
			if mask&(1<<j) != 0 {
				cols = append(cols, j)
			}
		}
		sub := make([]float64, m*len(cols))
		for i := range m {
			for k, j := range cols {
				sub[i*len(cols)+k] = a[i*n+j]
			}
		}
		x := make([]float64, n)
		if len(cols) > 0 {
			z := lstsq(sub, m, len(cols), b)
			ok := true
			for k, j := range cols {
				if z[k] < -1e-9 {
					ok = false
				}
				x[j] = max(z[k], 0)
			}
			if !ok {
				continue
			}
		}
		if r := residual(a, m, n, b, x); r < bestRes-1e-12*max(1, bestRes) {
			best, bestRes = x, r
		}
	}
	return best
}

func residual(a []float64, m, n int, b, x []float64) float64 {
	var ss float64
	for i := range m {
		r := b[i]
		for j := range n {
			r -= a[i*n+j] * x[j]
		}
		ss += r * r
	}
	return ss
}

func TestNNLS(t *testing.T) {
	tests := []struct {
		name string
		m, n int
		a, b []float64
		want []float64
	}{
		{"interior", 3, 2, []float64{1, 0, 0, 1, 1, 1}, []float64{1, 2, 3}, []float64{1, 2}},
		{"one bound", 3, 2, []float64{1, 0, 0, 1, 1, 1}, []float64{1, -2, -1}, []float64{0, 0}},
		{"negative slope clamped", 3, 2, []float64{1, 0, 1, 1, 1, 2}, []float64{3, 2, 1}, []float64{2, 0}},
		{"zero column", 2, 2, []float64{1, 0, 1, 0}, []float64{2, 4}, []float64{3, 0}},
		{"collinear: any exact solution", 2, 2, []float64{1, 2, 1, 2}, []float64{5, 5}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			x, err := nnls(tc.a, tc.m, tc.n, tc.b)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if r := residual(tc.a, tc.m, tc.n, tc.b, x); r > 1e-18 || x[0] < 0 || x[1] < 0 {
					t.Fatalf("x = %v: residual %g, want 0", x, r)
				}
				return
			}
			for j := range x {
				if math.Abs(x[j]-tc.want[j]) > 1e-9 {
					t.Fatalf("x = %v, want %v", x, tc.want)
				}
			}
		})
	}
	if _, err := nnls([]float64{1, math.NaN()}, 2, 1, []float64{1, 1}); err == nil {
		t.Error("NaN accepted")
	}
	if _, err := nnls([]float64{1}, 2, 1, []float64{1, 1}); err == nil {
		t.Error("bad dimensions accepted")
	}
}

// TestNNLSRandom compares nnls with the brute-force optimum on random
// problems shaped like calibration fits (columns of very different
// scales) and checks the Kuhn-Tucker conditions.
func TestNNLSRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		m, n := 3+rng.IntN(30), 1+rng.IntN(5)
		a, b := make([]float64, m*n), make([]float64, m)
		for i := range m {
			size := math.Exp(rng.Float64() * 15)
			for j := range n {
				switch rng.IntN(3) {
				case 0:
					a[i*n+j] = 1
				case 1:
					a[i*n+j] = size
				default:
					a[i*n+j] = rng.NormFloat64()
				}
			}
			b[i] = rng.NormFloat64()*1000 + rng.Float64()*size
		}
		x, err := nnls(a, m, n, b)
		if err != nil {
			t.Fatal(err)
		}
		want := bruteNNLS(a, m, n, b)
		got, best := residual(a, m, n, b, x), residual(a, m, n, b, want)
		if got > best*(1+1e-7)+1e-9 {
			t.Fatalf("trial %d: residual %g, brute force %g (x %v, want %v)", trial, got, best, x, want)
		}
		for j, v := range x {
			if v < 0 {
				t.Fatalf("trial %d: x[%d] = %g < 0", trial, j, v)
			}
		}
	}
}
