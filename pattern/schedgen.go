package pattern

import (
	"fmt"
	"math"
	"math/big"
	"math/bits"

	"github.com/gopsim/gopsim/goal"
)

// The patterns of LogGOPSim's Schedgen (src/Schedgen/schedgen.cpp), ported
// op for op: the same ops in the same order, the same requires edges in the
// same order, tag 0, CPU and NIC 0, so that the schedules are identical to
// the ones Schedgen writes and simulate to LogGOPSim's times. Schedgen's
// quirks are kept on purpose (they change simulated times): repeated
// requires edges in the binomial trees, the binary tree's mix of virtual
// and real ranks for a non-zero root, integer halving of sizes.

func init() {
	sg := func(name, doc string, flags []string, prep func(p *Params) (*Generator, error)) {
		register(&Pattern{Name: name, Doc: doc, Group: "schedgen", Flags: append([]string{"-s", "-d", "--nb", "--nb-poll"}, flags...), prepare: prep})
	}
	sg("binomialtreebcast", "binomial tree broadcast from --root (Schedgen)", []string{"--root"}, perRank(sgBinomialBcast))
	sg("binomialtreereduce", "binomial tree reduction to --root, no compute (Schedgen)", []string{"--root"}, perRank(sgBinomialReduce))
	sg("binarytreebcast", "binary tree broadcast, heap order (Schedgen)", []string{"--root"}, perRank(sgBinaryBcast))
	sg("dissemination", "dissemination: round k sends to r+2^k, receives from r-2^k (Schedgen)", nil, perRank(sgDissemination))
	sg("nwaydissemination", "n-way dissemination with reduction calcs (Schedgen)", []string{"--nway"}, prepNway)
	sg("pipelinedring", "pipelined chain broadcast in --segmentsize segments (Schedgen)", []string{"--root", "--segmentsize"}, perRank(sgPipelinedRing(false)))
	sg("pipelinedringdep", "pipelinedring where segment k is received only after segment k-1 was sent (Schedgen)", []string{"--root", "--segmentsize"}, perRank(sgPipelinedRing(true)))
	sg("doublering", "a forward and a backward ring pass (Schedgen)", nil, perRank(sgDoubleRing))
	sg("gather", "linear gather to --root (Schedgen)", []string{"--root"}, perRank(sgGather))
	sg("scatter", "linear scatter from --root (Schedgen)", []string{"--root"}, perRank(sgScatter))
	sg("linbarrier", "central-counter barrier through rank 0, 1-byte messages (Schedgen)", nil, perRank(sgLinBarrier))
	sg("linear_alltoall", "alltoall, step k sends to r+k and receives from r-k (Schedgen)", nil, perRank(sgLinearAlltoall))
	sg("linear_alltoallv", "linear_alltoall with random sizes from glibc rand() seeded with --seed (Schedgen: 1)", []string{"--root", "--seed", "--a2av-skew-ratio", "--outcast"}, prepAlltoallv)
	sg("allreduce_recdoub", "recursive doubling allreduce (reduce-scatter then allgather), powers of two (Schedgen)", []string{"--rpl-dep-cmp"}, prepRecdoub)
	sg("allreduce_ring", "ring allreduce with blocks of d/s bytes (Schedgen)", nil, perRank(sgAllreduceRing))
	sg("random_bisect", "random pairing, one half sends to the other; std::mt19937 seeded with --seed (Schedgen: the time)", []string{"--seed"}, prepBisect(false))
	sg("random_bisect_fd_sym", "random_bisect where every pair exchanges both ways (Schedgen)", []string{"--seed"}, prepBisect(true))
}

// sgRank appends Schedgen's rank prologue (the --nb calcs) then calls f.
type sgRankFunc func(b *goal.Builder, p *Params, r int)

func perRank(f sgRankFunc) func(p *Params) (*Generator, error) {
	return func(p *Params) (*Generator, error) {
		return sgGenerator(p, p.Ranks, f), nil
	}
}

func sgGenerator(p *Params, ranks int, f sgRankFunc) *Generator {
	q := *p
	return &Generator{ranks: ranks, rank: func(b *goal.Builder, r int) error {
		sgPrologue(b, &q)
		f(b, &q, r)
		return nil
	}}
}

// sgPrologue is Schedgen's StartRank with --nb: a chain of calcs standing
// for the computation a nonblocking collective overlaps with.
func sgPrologue(b *goal.Builder, p *Params) {
	if p.NB == 0 {
		return
	}
	if p.NBPoll == 0 {
		b.Calc(p.NB, 0)
		return
	}
	last := int32(-1)
	for i := uint64(0); i < p.NB; i += p.NBPoll {
		cur := b.Calc(p.NBPoll, 0)
		if last >= 0 {
			b.Requires(cur, last)
		}
		last = cur
	}
}

// Schedgen's RANK2VRANK and VRANK2RANK: swap root and 0.
func sgSwap(x, root int) int {
	switch x {
	case 0:
		return root
	case root:
		return 0
	}
	return x
}

func sgCeilLog2(n int) int { return bits.Len(uint(n - 1)) } // ceil(log2(n)), 0 for n = 1

func sgSend(b *goal.Builder, size uint64, peer int) int32 { return b.Send(size, int32(peer), 0, 0, 0) }
func sgRecv(b *goal.Builder, size uint64, peer int) int32 { return b.Recv(size, int32(peer), 0, 0, 0) }

func sgBinomialBcast(b *goal.Builder, p *Params, rank int) {
	n, root := p.Ranks, p.Root
	v := sgSwap(rank, root)
	recv, send := int32(-1), int32(-1)
	for r := 0; r < sgCeilLog2(n); r++ {
		if v+1<<r < n && v < 1<<r {
			send = sgSend(b, p.Size, sgSwap(v+1<<r, root))
		}
		if send >= 0 && recv >= 0 {
			b.Requires(send, recv) // repeated in later rounds, as Schedgen does
		}
		if v >= 1<<r && v < 1<<(r+1) {
			recv = sgRecv(b, p.Size, sgSwap(v-1<<r, root))
		}
	}
}

func sgBinomialReduce(b *goal.Builder, p *Params, rank int) {
	n, root := p.Ranks, p.Root
	v := sgSwap(rank, root)
	send, recv := int32(-1), int32(-1)
	for r := 0; r < sgCeilLog2(n); r++ {
		if v+1<<r < n && v < 1<<r {
			recv = sgRecv(b, p.Size, sgSwap(v+1<<r, root))
		}
		if send >= 0 && recv >= 0 {
			b.Requires(send, recv)
		}
		if v >= 1<<r && v < 1<<(r+1) {
			send = sgSend(b, p.Size, sgSwap(v-1<<r, root))
		}
	}
}

// sgBinaryBcast: Schedgen walks a breadth-first queue where node s sends to
// 2s+1 and 2s+2, mapping nodes to ranks by swapping 0 and the root. This is
// that walk solved per rank: node c receives from (c-1)/2, then sends to
// 2c+1 and 2c+2. Schedgen compares the rank itself, not its node, with the
// queue's nodes, so with a root other than 0 it writes self-sends that never
// complete; gopsim uses the node throughout (identical for root 0).
func sgBinaryBcast(b *goal.Builder, p *Params, rank int) {
	n, root := p.Ranks, p.Root
	c := sgSwap(rank, root)
	recv := int32(-1)
	if c > 0 {
		recv = sgRecv(b, p.Size, sgSwap((c-1)/2, root))
	}
	var send [2]int32
	k := 0
	for _, t := range [2]int{2*c + 1, 2*c + 2} {
		if t < n {
			send[k] = sgSend(b, p.Size, sgSwap(t, root))
			k++
		}
	}
	if c > 0 {
		for i := 0; i < k; i++ {
			b.Requires(send[i], recv)
		}
	}
}

func sgDissemination(b *goal.Builder, p *Params, rank int) {
	n := p.Ranks
	recv := int32(-1)
	for d := 1; d < n; d <<= 1 {
		send := sgSend(b, p.Size, (rank+d)%n)
		if recv != -1 {
			b.Requires(send, recv)
		}
		recv = sgRecv(b, p.Size, (rank-d+n)%n)
	}
}

func prepNway(p *Params) (*Generator, error) {
	if p.NWay == 0 {
		p.NWay = 1
	}
	if p.NWay < 1 {
		return nil, fmt.Errorf("%w: --nway %d: need at least 1", ErrParams, p.NWay)
	}
	rounds := nwayRounds(p.Ranks, p.NWay)
	return sgGenerator(p, p.Ranks, func(b *goal.Builder, p *Params, rank int) {
		sgNway(b, p, rank, rounds)
	}), nil
}

func sgMod(a, b int) int {
	a %= b
	if a < 0 {
		a += b
	}
	return a
}

func sgNway(b *goal.Builder, p *Params, rank, rounds int) {
	n, P := p.NWay, p.Ranks
	recv := make([]int32, n)
	send := make([]int32, n)
	for i := range recv {
		recv[i] = -1
	}
	dist := 1
	for r := 0; r < rounds; r++ {
		for w := 1; w <= n; w++ {
			send[w-1] = sgSend(b, p.Size, sgMod(rank+w*dist, P))
		}
		if r > 0 {
			prev := recv[0]
			for w := 1; w < n; w++ {
				red := b.Calc(p.Size, 0)
				b.Requires(red, recv[w])
				b.Requires(red, prev)
				prev = red
			}
			red := b.Calc(p.Size, 0)
			b.Requires(red, recv[0])
			b.Requires(send[n-1], prev)
			for w := 1; w <= n; w++ {
				b.Requires(send[w-1], red)
			}
		}
		for w := 1; w <= n; w++ {
			recv[w-1] = sgRecv(b, p.Size, sgMod(rank-w*dist, P))
		}
		dist *= n + 1
	}
}

func sgPipelinedRing(dep bool) sgRankFunc {
	return func(b *goal.Builder, p *Params, rank int) {
		seg := p.Segment
		if seg == 0 {
			seg = 1 // Schedgen's default
		}
		v := sgSwap(rank, p.Root)
		rounds := int((p.Size + seg - 1) / seg)
		prevSend := int32(-1)
		for r := 0; r < rounds; r++ {
			psize := seg
			if r == rounds-1 {
				psize = p.Size - seg*uint64(r)
			}
			recv, send := int32(-1), int32(-1)
			if v >= 1 {
				recv = sgRecv(b, psize, sgSwap(v-1, p.Root))
			}
			if v+1 < p.Ranks {
				send = sgSend(b, psize, sgSwap(v+1, p.Root))
			}
			if send >= 0 && recv >= 0 {
				b.Requires(send, recv)
			}
			if dep && r > 0 && prevSend >= 0 && recv >= 0 {
				b.Requires(recv, prevSend)
			}
			prevSend = send
		}
	}
}

func sgDoubleRing(b *goal.Builder, p *Params, rank int) {
	n := p.Ranks
	for _, d := range [2]int{1, -1} {
		send := sgSend(b, p.Size, sgMod(rank+d, n))
		recv := sgRecv(b, p.Size, sgMod(rank-d, n))
		if rank > 0 {
			b.Requires(send, recv)
		}
	}
}

func sgGather(b *goal.Builder, p *Params, rank int) {
	if sgSwap(rank, p.Root) == 0 {
		for i := 1; i < p.Ranks; i++ {
			sgRecv(b, p.Size, sgSwap(i, p.Root))
		}
		return
	}
	sgSend(b, p.Size, p.Root)
}

func sgScatter(b *goal.Builder, p *Params, rank int) {
	if sgSwap(rank, p.Root) == 0 {
		for i := 1; i < p.Ranks; i++ {
			sgSend(b, p.Size, sgSwap(i, p.Root))
		}
		return
	}
	sgRecv(b, p.Size, p.Root)
}

func sgLinBarrier(b *goal.Builder, p *Params, rank int) {
	if rank == 0 {
		dummy := b.Calc(0, 0)
		for i := 1; i < p.Ranks; i++ {
			recv := sgRecv(b, 1, i)
			send := sgSend(b, 1, i)
			b.Requires(dummy, recv)
			b.Requires(send, dummy)
		}
		return
	}
	sgSend(b, 1, 0)
	sgRecv(b, 1, 0)
}

func sgLinearAlltoall(b *goal.Builder, p *Params, rank int) {
	n := p.Ranks
	for k := 1; k < n; k++ {
		sgSend(b, p.Size, (rank+k)%n)
		sgRecv(b, p.Size, sgMod(rank-k, n))
	}
}

// maxAlltoallvRanks bounds linear_alltoallv, whose P x P size matrix is
// drawn in one sequence (the receive sizes of a rank are a column).
const maxAlltoallvRanks = 8192

func prepAlltoallv(p *Params) (*Generator, error) {
	n := p.Ranks
	if n > maxAlltoallvRanks {
		return nil, fmt.Errorf("%w: %d ranks: its random size matrix is limited to %d ranks", ErrParams, n, maxAlltoallvRanks)
	}
	if p.A2AVSkew == 0 {
		p.A2AVSkew = 1
	}
	if p.A2AVSkew < 0 {
		return nil, fmt.Errorf("%w: --a2av-skew-ratio %d", ErrParams, p.A2AVSkew)
	}
	mod := p.Size / uint64(p.A2AVSkew)
	if mod == 0 {
		return nil, fmt.Errorf("%w: -d %d / --a2av-skew-ratio %d is 0 (Schedgen divides by it)", ErrParams, p.Size, p.A2AVSkew)
	}
	seed := uint32(1) // rand() without srand
	if p.Seed != 0 {
		seed = uint32(p.Seed)
	}
	rnd := newGlibcRand(seed)
	sizes := make([]uint64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			switch {
			case j == p.Root:
				sizes[i*n+j] = p.Size
			case p.A2AVOutcast && i == (p.Root+1)%n:
				sizes[i*n+j] = p.Size
			default:
				sizes[i*n+j] = uint64(rnd.next())%mod + 1
			}
		}
	}
	return sgGenerator(p, n, func(b *goal.Builder, p *Params, rank int) {
		for k := 1; k < n; k++ {
			to, from := (rank+k)%n, sgMod(rank-k, n)
			sgSend(b, sizes[rank*n+to], to)
			sgRecv(b, sizes[from*n+rank], from)
		}
	}), nil
}

func prepRecdoub(p *Params) (*Generator, error) {
	if p.Ranks&(p.Ranks-1) != 0 {
		return nil, fmt.Errorf("%w: %d ranks: Schedgen's allreduce_recdoub needs a power of two (its peers would fall outside the ranks); use -p mpi_allreduce --algo recdoub for any count", ErrParams, p.Ranks)
	}
	return sgGenerator(p, p.Ranks, sgRecdoub), nil
}

func sgRecdoub(b *goal.Builder, p *Params, rank int) {
	steps := bits.Len(uint(p.Ranks)) - 1
	mask, size := 1, p.Size
	last := int32(-1)
	for s := 0; s < steps; s++ { // reduce-scatter
		dest := rank ^ mask
		size /= 2
		send := sgSend(b, size, dest)
		if last != -1 {
			b.Requires(send, last)
		}
		last = sgRecv(b, size, dest)
		if p.ReplaceDeps {
			last = b.Calc(p.ReplaceDepNs, 0)
		}
		mask <<= 1
	}
	mask >>= 1
	for s := 0; s < steps; s++ { // allgather
		dest := rank ^ mask
		send := sgSend(b, size, dest)
		if last != -1 {
			b.Requires(send, last)
		}
		last = sgRecv(b, size, dest)
		if p.ReplaceDeps && s != steps-1 {
			last = b.Calc(p.ReplaceDepNs, 0)
		}
		size *= 2
		mask >>= 1
	}
}

func sgAllreduceRing(b *goal.Builder, p *Params, rank int) {
	n := p.Ranks
	chunk := p.Size / uint64(n)
	last := int32(-1)
	for phase := 0; phase < 2; phase++ {
		for s := 0; s < n-1; s++ {
			send := sgSend(b, chunk, (rank+1)%n)
			if last != -1 {
				b.Requires(send, last)
			}
			last = sgRecv(b, chunk, sgMod(rank-1, n))
		}
	}
}

// prepBisect draws Schedgen's random pairing: the counter-th draw picks the
// k-th still unused rank, k = (int)(mt()/mt.max() * (P-counter-1)); ranks
// at pairing positions i and i+P/2 form a pair. An odd P drops the last rank.
func prepBisect(sym bool) func(p *Params) (*Generator, error) {
	return func(p *Params) (*Generator, error) {
		n := p.Ranks
		if n%2 == 1 {
			n--
		}
		if n == 0 {
			return nil, fmt.Errorf("%w: random_bisect needs at least 2 ranks", ErrParams)
		}
		mt := newMT19937(uint32(p.Seed))
		peer := make([]int32, n) // position -> rank
		unused := newFenwick(n)
		for c := 0; c < n; c++ {
			k := int(float64(mt.next()) / float64(math.MaxUint32) * float64(n-c-1))
			pos := unused.kth(k)
			unused.add(pos, -1)
			peer[c] = int32(pos)
		}
		inv := make([]int32, n) // rank -> position
		for c, r := range peer {
			inv[r] = int32(c)
		}
		half := int32(n / 2)
		return sgGenerator(p, n, func(b *goal.Builder, p *Params, rank int) {
			if i := inv[rank]; i < half {
				sgSend(b, p.Size, int(peer[i+half]))
				if sym {
					sgRecv(b, p.Size, int(peer[i+half]))
				}
			} else {
				sgRecv(b, p.Size, int(peer[i-half]))
				if sym {
					sgSend(b, p.Size, int(peer[i-half]))
				}
			}
		}), nil
	}
}

// fenwick counts the unused ranks, for the k-th unused one in O(log n).
type fenwick struct{ t []int32 }

func newFenwick(n int) *fenwick {
	f := &fenwick{t: make([]int32, n+1)}
	for i := 1; i <= n; i++ {
		f.t[i]++
		if j := i + i&-i; j <= n {
			f.t[j] += f.t[i]
		}
	}
	return f
}

func (f *fenwick) add(i int, d int32) {
	for i++; i < len(f.t); i += i & -i {
		f.t[i] += d
	}
}

// kth returns the index of the unused entry with k unused entries before it.
func (f *fenwick) kth(k int) int {
	pos, rem := 0, int32(k)
	for step := 1 << bits.Len(uint(len(f.t)-1)); step > 0; step >>= 1 {
		if next := pos + step; next < len(f.t) && f.t[next] <= rem {
			pos = next
			rem -= f.t[next]
		}
	}
	return pos
}

// nwayRounds is Schedgen's ceil(log(P)/log(n+1)) as glibc computes it. The
// integer answer is the least r with (n+1)^r >= P, except when P is an exact
// power of n+1: then the quotient of the two rounded logarithms may land
// just above the integer (log(27)/log(3) = 3.0000000000000004, so 4 rounds).
// Go's math.Log is not always correctly rounded where glibc's is, so the
// logarithms are computed here to 256 bits and rounded once.
func nwayRounds(p, n int) int {
	b := uint64(n + 1)
	r, x := 0, uint64(1)
	for x < uint64(p) {
		x *= b
		r++
	}
	if x != uint64(p) || p == 1 {
		return r
	}
	q := roundedLog(uint64(p)) / roundedLog(b)
	return int(math.Ceil(q))
}

// roundedLog is ln(x) rounded to the nearest float64, for x >= 2.
func roundedLog(x uint64) float64 {
	const prec = 256
	// ln x = e·ln 2 + ln m with x = m·2^e, m in [1, 2); ln m = 2 atanh((m-1)/(m+1)).
	e := bits.Len64(x) - 1
	m := new(big.Float).SetPrec(prec).SetUint64(x)
	m.SetMantExp(m, -e)
	ln2 := atanh2(new(big.Float).SetPrec(prec).Quo(big.NewFloat(1).SetPrec(prec), big.NewFloat(3).SetPrec(prec)))
	one := big.NewFloat(1).SetPrec(prec)
	num := new(big.Float).SetPrec(prec).Sub(m, one)
	den := new(big.Float).SetPrec(prec).Add(m, one)
	lnm := atanh2(num.Quo(num, den))
	res := new(big.Float).SetPrec(prec).Mul(ln2, new(big.Float).SetPrec(prec).SetInt64(int64(e)))
	res.Add(res, lnm)
	f, _ := res.Float64()
	return f
}

// atanh2 is 2·atanh(z) = 2(z + z^3/3 + z^5/5 + ...) for 0 <= z <= 1/3.
func atanh2(z *big.Float) *big.Float {
	prec := z.Prec()
	sum := new(big.Float).SetPrec(prec)
	pow := new(big.Float).SetPrec(prec).Set(z)
	z2 := new(big.Float).SetPrec(prec).Mul(z, z)
	term := new(big.Float).SetPrec(prec)
	for k := int64(1); k < 400; k += 2 {
		term.Quo(pow, new(big.Float).SetPrec(prec).SetInt64(k))
		sum.Add(sum, term)
		pow.Mul(pow, z2)
		if pow.Sign() == 0 || pow.MantExp(nil) < -int(prec)-8 {
			break
		}
	}
	return sum.Mul(sum, big.NewFloat(2).SetPrec(prec))
}
