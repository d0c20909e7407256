package pattern

// Schedgen draws its random patterns from two generators; reproducing them
// bit for bit lets gopsim write Schedgen's exact schedules for a given seed.

// mt19937 is the 32-bit Mersenne Twister (Matsumoto and Nishimura 1998), as
// C++'s std::mt19937, which Schedgen's random_bisect patterns use.
type mt19937 struct {
	s [624]uint32
	i int
}

func newMT19937(seed uint32) *mt19937 {
	m := &mt19937{i: 624}
	m.s[0] = seed
	for i := 1; i < 624; i++ {
		m.s[i] = 1812433253*(m.s[i-1]^(m.s[i-1]>>30)) + uint32(i)
	}
	return m
}

func (m *mt19937) next() uint32 {
	if m.i >= 624 {
		for k := 0; k < 624; k++ {
			y := m.s[k]&0x80000000 | m.s[(k+1)%624]&0x7fffffff
			v := m.s[(k+397)%624] ^ y>>1
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			m.s[k] = v
		}
		m.i = 0
	}
	y := m.s[m.i]
	m.i++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// glibcRand is glibc's rand()/random() with its default TYPE_3 state (an
// additive lagged Fibonacci generator, r[i] = r[i-3] + r[i-31], seeded
// through a Lehmer generator); Schedgen's linear_alltoallv calls rand()
// without srand, which is seed 1.
type glibcRand struct {
	r    [34]uint32 // the last 34 values of the recurrence, circular
	k    int        // index of the next value to compute
	init bool
}

func newGlibcRand(seed uint32) *glibcRand {
	if seed == 0 {
		seed = 1
	}
	g := &glibcRand{}
	var r [344]int64
	r[0] = int64(int32(seed))
	for i := 1; i < 31; i++ {
		hi, lo := r[i-1]/127773, r[i-1]%127773
		w := 16807*lo - 2836*hi
		if w < 0 {
			w += 2147483647
		}
		r[i] = w
	}
	for i := 31; i < 34; i++ {
		r[i] = r[i-31]
	}
	for i := 34; i < 344; i++ {
		r[i] = int64(uint32(r[i-31]) + uint32(r[i-3]))
	}
	for i := 0; i < 34; i++ {
		g.r[i] = uint32(r[310+i])
	}
	g.k = 0 // value 344 is next; slot k holds value 310+k
	return g
}

// next returns the next rand() value, in 0..2^31-1.
func (g *glibcRand) next() int32 {
	// value n = value n-31 + value n-3; with slots holding values
	// n-34..n-1 as slot (n-344)%34, n-31 is slot k+3, n-3 is slot k+31.
	v := g.r[(g.k+3)%34] + g.r[(g.k+31)%34]
	g.r[g.k] = v
	g.k = (g.k + 1) % 34
	return int32(v >> 1)
}
