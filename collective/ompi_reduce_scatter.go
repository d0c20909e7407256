package collective

// Open MPI's reduce_scatter butterflies and reduce_scatter_block's
// recursive doubling (ompi/mca/coll/base/coll_base_reduce_scatter.c and
// coll_base_reduce_scatter_block.c, tag v4.1.4), on equal blocks of
// Spec.Size bytes. Its recursive halving (both) is the
// "recursive_halving" exchange.

func init() {
	register(&Algorithm{Op: ReduceScatter, Name: "ompi_butterfly",
		Doc:  "butterfly (Open MPI ompi_coll_base_reduce_scatter_intra_butterfly): the first 2(P-2^k) ranks fold (even into odd), the 2^k others halve the blocks with me XOR 1, 2, 4, ... (the bit clear keeps the lower half), then each sends the block it ends with to its owner, the rank of the bit-reversed core rank (and the folded rank's block to it)",
		emit: func(e *emitter) { ompiButterfly(e, false) }})
	register(&Algorithm{Op: ReduceScatter, Name: "ompi_block_butterfly",
		Doc:  "butterfly (Open MPI ompi_coll_base_reduce_scatter_block_intra_butterfly): on P a power of two the blocks are laid out bit-reversed first, so the halving ends with the own block and no final exchange; otherwise as ompi_butterfly",
		emit: func(e *emitter) { ompiButterfly(e, true) }})
	register(&Algorithm{Op: ReduceScatter, Name: "ompi_block_recdoub",
		Doc:  "recursive doubling (Open MPI ompi_coll_base_reduce_scatter_block_intra_recursivedoubling): step 2^k swaps with me XOR 2^k every block outside the own aligned group of 2^k ranks and combines them; when the partner group is incomplete its data reaches the ranks without a partner by recursive halving",
		emit: ompiBlockRecdoub})
}

// mirror reverses the low bits bits of x.
func mirror(x, bits int) int {
	r := 0
	for i := 0; i < bits; i++ {
		r = r<<1 | (x>>i)&1
	}
	return r
}

func ompiButterfly(e *emitter, block bool) {
	p, me, n := e.p, e.me, e.s.Size
	if p < 2 || (block && n == 0) {
		return
	}
	pof2 := pow2Floor(p)
	rem := p - pof2
	log2 := 0
	for 1<<log2 < pof2 {
		log2++
	}
	total := n * uint64(p)
	peerOf := func(v int) int { // core rank v: the odd rank of a folded pair
		if v < rem {
			return 2*v + 1
		}
		return v + rem
	}
	weight := func(lo, hi int) uint64 { // core blocks lo..hi-1; those below rem are two ranks'
		w := uint64(hi-lo) * n
		if lo < rem {
			w += uint64(min(hi, rem)-lo) * n
		}
		return w
	}
	vrank := me - rem
	if me < 2*rem {
		if me%2 == 0 {
			e.send(me+1, total)
			e.next()
			e.recv(peerOf(mirror((me+1)/2, log2)), n)
			e.next()
			return
		}
		e.reduce(total, e.recv(me-1, total))
		e.next()
		vrank = me / 2
	}
	nblocks, idx := pof2, 0
	for mask := 1; mask < pof2; mask <<= 1 {
		peer := peerOf(vrank ^ mask)
		nblocks /= 2
		sidx, ridx := idx, idx
		if vrank&mask == 0 {
			sidx += nblocks
		} else {
			ridx += nblocks
		}
		e.send(peer, weight(sidx, sidx+nblocks))
		got := weight(ridx, ridx+nblocks)
		e.reduce(got, e.recv(peer, got))
		e.next()
		idx = ridx
	}
	if block && rem == 0 {
		return // the blocks were laid out so that this is the own one
	}
	vpeer := mirror(vrank, log2)
	peer := peerOf(vpeer)
	if vpeer < rem {
		e.send(peer-1, n)
		e.next()
	}
	if vpeer != vrank {
		e.send(peer, n)
		e.recv(peer, n)
		e.next()
	}
}

// ompiBlockRecdoub: at distance m a rank holds partial sums of every block
// outside the aligned group of m ranks that the partner's group covers.
func ompiBlockRecdoub(e *emitter) {
	p, me, n := e.p, e.me, e.s.Size
	if p < 2 || n == 0 {
		return
	}
	outside := func(root, m int) uint64 { // blocks not in root..root+m-1
		return uint64(p-min(m, p-root)) * n
	}
	for m := 1; m < p; m <<= 1 {
		remote := me ^ m
		cur, rroot := me&^(m-1), remote&^(m-1)
		got := false
		if remote < p {
			e.send(remote, outside(cur, m))
			e.recv(remote, outside(rroot, m))
			e.next()
			got = true
		}
		if rroot+m > p {
			// the partner group is incomplete: pass its data on
			alldata := p - cur - m
			for h := m >> 1; h > 0; h >>= 1 {
				r := me ^ h
				base := me &^ (2*h - 1)
				switch {
				case r > me && me < base+alldata && r >= base+alldata:
					e.send(r, outside(rroot, m))
					e.next()
				case r < me && r < base+alldata && me >= base+alldata:
					e.recv(r, outside(rroot, m))
					e.next()
					got = true
				}
			}
		}
		if got {
			if c := e.reduceTime(outside(rroot, m)); c > 0 {
				e.inRound(e.calc(c))
				e.next()
			}
		}
	}
}
