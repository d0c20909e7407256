package pattern

import (
	"fmt"
	"math/rand/v2"

	"github.com/gopsim/gopsim/goal"
)

// Application patterns: the communication skeletons of common codes.

func init() {
	app := func(name, doc string, flags []string, prep func(p *Params) (*Generator, error)) {
		register(&Pattern{Name: name, Doc: doc, Group: "application",
			Flags: append([]string{"-s", "-d", "--iterations", "--compute"}, flags...), prepare: prep})
	}
	app("halo2d", "2-D halo exchange on a process grid: per iteration --compute ns, then -d bytes to each of 4 (--stencil 5) or 8 (9) neighbours", []string{"--dims", "--stencil", "--periodic"}, prepHalo(2))
	app("halo3d", "3-D halo exchange: per iteration --compute ns, then -d bytes to each of 6 (--stencil 7) or 26 (27) neighbours", []string{"--dims", "--stencil", "--periodic"}, prepHalo(3))
	app("permutation", "random permutation traffic: each rank sends -d bytes to its image under a permutation drawn from --seed (no fixed points when P > 1)", []string{"--seed"}, prepPermutation)
	app("incast", "every rank sends -d bytes to --root at once (the root posts all receives)", []string{"--root"}, prepCast(true))
	app("outcast", "--root sends -d bytes to every rank at once", []string{"--root"}, prepCast(false))
}

// DimsCreate factors n into k dimensions as evenly as possible, largest
// first, as MPI_Dims_create does with no dimension fixed.
func DimsCreate(n, k int) []int {
	dims := make([]int, k)
	for i := range dims {
		dims[i] = 1
	}
	// Assign prime factors, largest first, to the currently smallest dimension.
	var primes []int
	m := n
	for f := 2; f*f <= m; f++ {
		for m%f == 0 {
			primes = append(primes, f)
			m /= f
		}
	}
	if m > 1 {
		primes = append(primes, m)
	}
	for i := len(primes) - 1; i >= 0; i-- {
		small := 0
		for d := range dims {
			if dims[d] < dims[small] {
				small = d
			}
		}
		dims[small] *= primes[i]
	}
	// Sort descending.
	for i := range dims {
		for j := i + 1; j < len(dims); j++ {
			if dims[j] > dims[i] {
				dims[i], dims[j] = dims[j], dims[i]
			}
		}
	}
	return dims
}

func prepHalo(k int) func(p *Params) (*Generator, error) {
	return func(p *Params) (*Generator, error) {
		n := p.Ranks
		dims := p.Dims
		if len(dims) == 0 {
			dims = DimsCreate(n, k)
		}
		if len(dims) != k {
			return nil, fmt.Errorf("%w: --dims %v: need %d dimensions", ErrParams, dims, k)
		}
		prod := 1
		for _, d := range dims {
			if d < 1 {
				return nil, fmt.Errorf("%w: --dims %v: dimensions must be positive", ErrParams, dims)
			}
			prod *= d
		}
		if prod != n {
			return nil, fmt.Errorf("%w: --dims %v has %d ranks, -s is %d", ErrParams, dims, prod, n)
		}
		faces, full := 2*k, 3*3-1
		if k == 3 {
			full = 27 - 1
		}
		stencil := p.Stencil
		switch {
		case stencil == 0:
			stencil = faces + 1
		case stencil == faces+1, stencil == full+1:
		default:
			return nil, fmt.Errorf("%w: --stencil %d: a %d-D halo has %d or %d points", ErrParams, stencil, k, faces+1, full+1)
		}
		// Neighbour offsets: faces only, or the whole 3^k cube minus the centre.
		var offs [][3]int
		for _, o := range cube(k) {
			nz := 0
			for _, x := range o {
				if x != 0 {
					nz++
				}
			}
			if nz == 0 || (stencil == faces+1 && nz != 1) {
				continue
			}
			offs = append(offs, o)
		}
		index := map[[3]int]uint32{}
		for i, o := range offs {
			index[o] = uint32(i)
		}
		q := *p
		return &Generator{ranks: n, rank: func(b *goal.Builder, r int) error {
			haloRank(b, &q, r, dims, offs, index)
			return nil
		}}, nil
	}
}

// cube lists the offsets of {-1,0,1}^k (padded to 3 coordinates) in a fixed order.
func cube(k int) [][3]int {
	var out [][3]int
	var o [3]int
	var rec func(d int)
	rec = func(d int) {
		if d == k {
			out = append(out, o)
			return
		}
		for _, x := range []int{-1, 0, 1} {
			o[d] = x
			rec(d + 1)
		}
		o[d] = 0
	}
	rec(0)
	return out
}

// haloRank: per iteration a calc, then a receive from and a send to every
// neighbour, posted together after the calc; the next calc waits for all of
// them. The tag of a message is the index of its direction as the sender
// sees it, so that two neighbours that are the same rank (a periodic
// dimension of size 2) still match correctly.
func haloRank(b *goal.Builder, p *Params, r int, dims []int, offs [][3]int, index map[[3]int]uint32) {
	k := len(dims)
	var coord [3]int
	x := r
	for d := k - 1; d >= 0; d-- { // row-major, last dimension fastest (MPI_Cart_create)
		coord[d] = x % dims[d]
		x /= dims[d]
	}
	neighbour := func(o [3]int) int {
		rank := 0
		for d := 0; d < k; d++ {
			c := coord[d] + o[d]
			if c < 0 || c >= dims[d] {
				if !p.Periodic {
					return -1
				}
				c = (c + dims[d]) % dims[d]
			}
			rank = rank*dims[d] + c
		}
		return rank
	}
	var prev, cur []int32
	for it := 0; it < p.Iterations; it++ {
		start := int32(-1)
		if p.Compute > 0 {
			start = b.Calc(p.Compute, 0)
			for _, q := range prev {
				b.Requires(start, q)
			}
		}
		cur = cur[:0]
		for _, o := range offs {
			nb := neighbour(o)
			if nb < 0 {
				continue
			}
			back := [3]int{-o[0], -o[1], -o[2]}
			cur = append(cur, b.Recv(p.Size, int32(nb), index[back], 0, 0))
		}
		for _, o := range offs {
			nb := neighbour(o)
			if nb < 0 {
				continue
			}
			cur = append(cur, b.Send(p.Size, int32(nb), index[o], 0, 0))
		}
		for _, id := range cur {
			if start >= 0 {
				b.Requires(id, start)
			} else {
				for _, q := range prev {
					b.Requires(id, q)
				}
			}
		}
		if len(cur) > 0 || start >= 0 {
			prev = append(prev[:0], cur...)
			if len(cur) == 0 {
				prev = append(prev, start)
			}
		}
	}
}

func prepPermutation(p *Params) (*Generator, error) {
	n := p.Ranks
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	// Sattolo's algorithm: a uniformly random cyclic permutation, so no
	// rank sends to itself.
	rnd := rand.New(rand.NewPCG(p.Seed, 0x7065726d))
	for i := n - 1; i > 0; i-- {
		j := rnd.IntN(i)
		perm[i], perm[j] = perm[j], perm[i]
	}
	inv := make([]int32, n)
	for i, x := range perm {
		inv[x] = int32(i)
	}
	q := *p
	return &Generator{ranks: n, rank: func(b *goal.Builder, r int) error {
		if n == 1 {
			return nil
		}
		last := int32(-1)
		for it := 0; it < q.Iterations; it++ {
			var c int32 = -1
			if q.Compute > 0 {
				c = b.Calc(q.Compute, 0)
				if last >= 0 {
					b.Requires(c, last)
				}
			}
			recv := b.Recv(q.Size, inv[r], 0, 0, 0)
			send := b.Send(q.Size, perm[r], 0, 0, 0)
			for _, id := range []int32{recv, send} {
				if c >= 0 {
					b.Requires(id, c)
				} else if last >= 0 {
					b.Requires(id, last)
				}
			}
			// The next iteration waits for both: a zero-cost calc joins them.
			last = b.Calc(0, 0)
			b.Requires(last, recv)
			b.Requires(last, send)
		}
		return nil
	}}, nil
}

func prepCast(in bool) func(p *Params) (*Generator, error) {
	return func(p *Params) (*Generator, error) {
		q := *p
		return &Generator{ranks: p.Ranks, rank: func(b *goal.Builder, r int) error {
			var prev []int32
			for it := 0; it < q.Iterations; it++ {
				var cur []int32
				if q.Compute > 0 {
					c := b.Calc(q.Compute, 0)
					for _, x := range prev {
						b.Requires(c, x)
					}
					prev = []int32{c}
				}
				if r == q.Root {
					for peer := 0; peer < q.Ranks; peer++ {
						if peer == r {
							continue
						}
						if in {
							cur = append(cur, b.Recv(q.Size, int32(peer), 0, 0, 0))
						} else {
							cur = append(cur, b.Send(q.Size, int32(peer), 0, 0, 0))
						}
					}
				} else if in {
					cur = append(cur, b.Send(q.Size, int32(q.Root), 0, 0, 0))
				} else {
					cur = append(cur, b.Recv(q.Size, int32(q.Root), 0, 0, 0))
				}
				for _, id := range cur {
					for _, x := range prev {
						b.Requires(id, x)
					}
				}
				if len(cur) > 0 {
					prev = cur
				}
			}
			return nil
		}}, nil
	}
}
