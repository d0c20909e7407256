package bench

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// nnls solves the non-negative least-squares problem
//
//	minimize ||A x - b||  subject to  x >= 0
//
// with Lawson and Hanson's active-set method ("Solving Least Squares
// Problems", 1974, chapter 23, algorithm NNLS). a has m rows of n columns
// (row-major, a[i*n+j]), b has m values. gonum has least squares and
// linear programming but no bounded least squares, hence this.
//
// The columns are scaled to unit length first (the problem's solution set
// is the same under positive column scaling, and the parameters of a fit
// differ by orders of magnitude: ns against ns per byte of sizes up to
// MiB); each unconstrained sub-problem is solved through a singular value
// decomposition, so that collinear columns give the minimum-norm answer
// rather than an error.
func nnls(a []float64, m, n int, b []float64) ([]float64, error) {
	if m < 1 || n < 1 || len(a) != m*n || len(b) != m {
		return nil, errors.New("bench: nnls: inconsistent dimensions")
	}
	for _, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("bench: nnls: matrix value not finite")
		}
	}
	for _, v := range b {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, errors.New("bench: nnls: right-hand side not finite")
		}
	}
	as := make([]float64, len(a))
	scale := make([]float64, n)
	for j := range n {
		var s float64
		for i := range m {
			s += a[i*n+j] * a[i*n+j]
		}
		scale[j] = math.Sqrt(s)
		if scale[j] == 0 {
			scale[j] = 1 // a zero column: its x stays 0
		}
		for i := range m {
			as[i*n+j] = a[i*n+j] / scale[j]
		}
	}
	x := nnlsScaled(mat.NewDense(m, n, as), mat.NewVecDense(m, b), n)
	for j := range x {
		x[j] /= scale[j]
	}
	return x, nil
}

// nnlsScaled is Lawson and Hanson's loop on a matrix with unit columns.
func nnlsScaled(A *mat.Dense, b *mat.VecDense, n int) []float64 {
	var bnorm float64
	for i := range b.Len() {
		bnorm = math.Hypot(bnorm, b.AtVec(i))
	}
	tol := 1e-12 * max(bnorm, 1) * float64(n)
	x := make([]float64, n)
	passive := make([]bool, n)
	w := gradient(A, b, x)
	for iter := 0; iter < 3*n+10; iter++ {
		// The most promising variable held at 0 is freed.
		t := -1
		for j := range n {
			if !passive[j] && w[j] > tol && (t < 0 || w[j] > w[t]) {
				t = j
			}
		}
		if t < 0 {
			break // Kuhn-Tucker conditions hold
		}
		passive[t] = true
		for inner := 0; inner < 3*n+10; inner++ {
			z := solvePassive(A, b, passive)
			if ok := feasible(z, passive); ok {
				copy(x, z)
				break
			}
			// Step from x towards z as far as x stays >= 0, and hold at 0
			// the variables that reach it.
			alpha := math.Inf(1)
			for j := range n {
				if passive[j] && z[j] <= 0 {
					step := 0.0
					if d := x[j] - z[j]; d > 0 {
						step = x[j] / d
					}
					alpha = min(alpha, step)
				}
			}
			for j := range n {
				x[j] += alpha * (z[j] - x[j])
				if passive[j] && x[j] <= tol*1e-3 {
					passive[j], x[j] = false, 0
				}
			}
		}
		w = gradient(A, b, x)
	}
	return x
}

// feasible says whether the passive variables of z are all positive.
func feasible(z []float64, passive []bool) bool {
	for j, p := range passive {
		if p && z[j] <= 0 {
			return false
		}
	}
	return true
}

// gradient returns Aᵀ(b - Ax), the negative gradient of half the squared
// residual.
func gradient(A *mat.Dense, b *mat.VecDense, x []float64) []float64 {
	var r mat.VecDense
	r.MulVec(A, mat.NewVecDense(len(x), x))
	r.SubVec(b, &r)
	var w mat.VecDense
	w.MulVec(A.T(), &r)
	return w.RawVector().Data
}

// solvePassive solves the unconstrained least-squares problem in the
// passive variables, the others held at 0.
func solvePassive(A *mat.Dense, b *mat.VecDense, passive []bool) []float64 {
	m, n := A.Dims()
	var cols []int
	for j, p := range passive {
		if p {
			cols = append(cols, j)
		}
	}
	z := make([]float64, n)
	if len(cols) == 0 {
		return z
	}
	sub := mat.NewDense(m, len(cols), nil)
	for k, j := range cols {
		for i := range m {
			sub.Set(i, k, A.At(i, j))
		}
	}
	var svd mat.SVD
	if !svd.Factorize(sub, mat.SVDThin) {
		return z
	}
	rank := svd.Rank(1e-12)
	if rank == 0 {
		return z
	}
	var sol mat.VecDense
	svd.SolveVecTo(&sol, b, rank)
	for k, j := range cols {
		z[j] = sol.AtVec(k)
	}
	return z
}

// lstsq solves the unconstrained least-squares problem min ||A x - b||
// (the minimum-norm solution when A's columns are collinear), with the
// same column scaling as nnls.
func lstsq(a []float64, m, n int, b []float64) []float64 {
	as := make([]float64, len(a))
	scale := make([]float64, n)
	all := make([]bool, n)
	for j := range n {
		var s float64
		for i := range m {
			s += a[i*n+j] * a[i*n+j]
		}
		scale[j] = math.Sqrt(s)
		if s == 0 {
			scale[j] = 1
		}
		for i := range m {
			as[i*n+j] = a[i*n+j] / scale[j]
		}
		all[j] = true
	}
	x := solvePassive(mat.NewDense(m, n, as), mat.NewVecDense(m, b), all)
	for j := range x {
		x[j] /= scale[j]
	}
	return x
}
