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
