package collective

// pow2Floor is the largest power of two not above n (n >= 1).
func pow2Floor(n int) int {
	p := 1
	for p*2 <= n {
		p *= 2
	}
	return p
}

// isPow2 reports whether n is a power of two (n >= 1).
func isPow2(n int) bool { return n > 0 && n&(n-1) == 0 }

// rel is the rank of me relative to root: (me - root) mod p.
func rel(me, root, p int) int { return ((me-root)%p + p) % p }

// abs is the comm rank whose rank relative to root is r.
func abs(r, root, p int) int { return (r + root) % p }

// fold is the first step of MPICH's recursive algorithms on P ranks that
// are not a power of two: the first 2·rem ranks (rem = P - 2^floor(log2 P))
// pair up, one of each pair sends its bytes to the other, which combines
// them, and sits out. keepOdd selects which one stays: the odd one (rank
// me-1 sends, as the allreduces and reduce-scatter do) or the even one (as
// reduce does, so that root 0 needs no extra message). It returns the
// rank's rank among the 2^floor(log2 P) that go on, or -1, and rem.
func fold(e *emitter, bytes uint64, keepOdd bool) (newrank, rem int) {
	me := e.me
	rem = e.p - pow2Floor(e.p)
	if me >= 2*rem {
		return me - rem, rem
	}
	stays := me%2 == 1
	if !keepOdd {
		stays = !stays
	}
	partner := me + 1
	if me%2 == 1 {
		partner = me - 1
	}
	if !stays {
		e.send(partner, bytes)
		e.next()
		return -1, rem
	}
	e.reduce(bytes, e.recv(partner, bytes))
	e.next()
	return me / 2, rem
}
