package collective

import (
	"fmt"
	"testing"

	"github.com/gopsim/gopsim/sim"
)

// The traffic formulas below restate each algorithm's description in
// counting terms; none calls the emit code.

func init() {
	formulas["allgather/ring"] = func(s *Spec, me int) traffic {
		k := s.Comm.Size() - 1 // P-1 steps, one block each way
		return traffic{k, k, uint64(k) * s.Size, uint64(k) * s.Size}
	}
	formulas["allgather/bruck"] = func(s *Spec, me int) traffic {
		p := s.Comm.Size()
		if s.Size == 0 {
			return traffic{}
		}
		// ceil(log2 P) steps; every other block arrives exactly once, and
		// every rank sends as many blocks as it receives.
		k := ceilLog2(p)
		n := uint64(p-1) * s.Size
		return traffic{k, k, n, n}
	}
	formulas["allgather/recdoub"] = func(s *Spec, me int) traffic {
		return recdoubTraffic(s.Comm.Size(), me, func(int) uint64 { return s.Size })
	}
	formulas["allgatherv/recdoub"] = func(s *Spec, me int) traffic {
		var total uint64
		for _, c := range s.Counts {
			total += c
		}
		if total == 0 {
			return traffic{}
		}
		return recdoubTraffic(s.Comm.Size(), me, func(j int) uint64 { return s.Counts[j] })
	}
	formulas["allgatherv/ring"] = func(s *Spec, me int) traffic {
		p := s.Comm.Size()
		seg := s.Segment
		if seg == 0 {
			seg = 32768
		}
		pieces := func(c uint64) int { return int((c + seg - 1) / seg) }
		// Every block but the right neighbour's leaves me, every block but
		// mine arrives, each cut into pieces of at most seg bytes.
		var tr traffic
		for j := 0; j < p; j++ {
			if j != (me+1)%p {
				tr.sends += pieces(s.Counts[j])
				tr.sent += s.Counts[j]
			}
			if j != me {
				tr.recvs += pieces(s.Counts[j])
				tr.received += s.Counts[j]
			}
		}
		return tr
	}
	formulas["alltoall/bruck"] = func(s *Spec, me int) traffic {
		p := s.Comm.Size()
		var tr traffic
		for d := 1; d < p; d *= 2 {
			// Indices 0..P-1 with bit d set: d in every full period of 2d,
			// plus the part of the last period above d.
			blocks := p/(2*d)*d + max(0, p%(2*d)-d)
			tr.sends++
			tr.recvs++
			tr.sent += uint64(blocks) * s.Size
			tr.received += uint64(blocks) * s.Size
		}
		return tr
	}
	everyOther := func(s *Spec, me int) traffic {
		k := s.Comm.Size() - 1
		return traffic{k, k, uint64(k) * s.Size, uint64(k) * s.Size}
	}
	formulas["alltoall/pairwise"] = everyOther
	formulas["alltoall/linear"] = everyOther
	nonEmpty := func(s *Spec, me int) traffic {
		var tr traffic
		for j := range s.Counts {
			if j == me {
				continue // a local copy
			}
			if c := s.Counts[j]; c > 0 {
				tr.sends++
				tr.sent += c
			}
			if c := s.RecvCounts[j]; c > 0 {
				tr.recvs++
				tr.received += c
			}
		}
		return tr
	}
	formulas["alltoallv/linear"] = nonEmpty
	formulas["alltoallv/pairwise"] = nonEmpty
	formulas["barrier/recdoub"] = func(s *Spec, me int) traffic {
		p := s.Comm.Size()
		q := 1
		for 2*q <= p {
			q *= 2
		}
		k := ceilLog2(q)
		switch {
		case me >= q: // checks in with me-q, is released by it
			k = 1
		case me+q < p: // also serves rank me+q
			k++
		}
		return traffic{k, k, uint64(k) * s.Size, uint64(k) * s.Size}
	}
}

// recdoubTraffic is the traffic of recursive doubling allgather(v) with
// block(j) bytes from comm rank j. Received: every other block exactly
// once, one message per step whose partner group has a rank. Sent: the
// step-m exchange carries the existing blocks of my group of m; when the
// partner group is cut short by P, the nc ranks of my group that had a
// partner pass its blocks on by recursive halving (a holder at offset x of
// an aligned group of 2h sends to x+h if that rank does not hold them yet),
// played out here on a set of holders.
func recdoubTraffic(p, me int, block func(j int) uint64) traffic {
	sum := func(lo, hi int) uint64 {
		var n uint64
		for j := lo; j < min(hi, p); j++ {
			n += block(j)
		}
		return n
	}
	var tr traffic
	tr.received = sum(0, p) - block(me)
	for m := 1; m < p; m *= 2 {
		mine := me / m * m
		theirs := mine + m
		if (me/m)%2 == 1 {
			theirs = mine - m
		}
		if theirs >= p {
			continue // nobody to hear from at this step
		}
		tr.recvs++
		partner := me + (theirs - mine)
		if partner < p {
			tr.sends++
			tr.sent += sum(mine, mine+m)
		}
		if theirs < mine || theirs+m <= p {
			continue
		}
		fill := sum(theirs, p)
		has := make([]bool, m)
		for x := range has {
			has[x] = mine+x+m < p
		}
		for h := m / 2; h >= 1; h /= 2 {
			got := append([]bool(nil), has...)
			for x := 0; x < m; x++ {
				if has[x] && x%(2*h) < h && !has[x+h] {
					got[x+h] = true
					if mine+x == me {
						tr.sends++
						tr.sent += fill
					}
				}
			}
			has = got
		}
	}
	return tr
}

// TestAllgatherAlltoallClosedForm compares finishing times per comm rank
// with LogGP costs worked out by hand from docs/model.md: L 2500, o 1500,
// g 1000, G 6, O 0, S 65535, a message of s bytes costing bG = (s-1)G on
// the NIC and at the receiving CPU. Unless said otherwise every rank starts
// each step at the same time with one send and one receive of the same
// size, so a step is o (send) + L + o + bG (receive on an idle CPU), the
// NIC gap g + bG never binds, and the call takes the sum of its steps.
func TestAllgatherAlltoallClosedForm(t *testing.T) {
	p := sim.DefaultParams()
	L, o, G := int64(p.L), int64(p.Overhead), int64(p.GapPerByte)
	bG := func(s uint64) int64 { return (int64(s) - 1) * G }
	step := func(s uint64) int64 { return 2*o + L + bG(s) }
	same := func(n int, t int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = t
		}
		return out
	}
	uniform := func(size uint64) func(me int) Spec {
		return func(int) Spec { return Spec{Size: size} }
	}
	counts := func(c ...uint64) func(me int) Spec {
		return func(int) Spec { return Spec{Counts: c} }
	}
	// matrix[i][j] is what comm rank i sends to comm rank j.
	matrix := func(m [][]uint64) func(me int) Spec {
		return func(me int) Spec {
			s := Spec{Counts: m[me], RecvCounts: make([]uint64, len(m))}
			for j := range m {
				s.RecvCounts[j] = m[j][me]
			}
			return s
		}
	}
	const k = 1000
	for _, tc := range []struct {
		name string
		op   Op
		alg  string
		p    int
		spec func(me int) Spec
		want []int64 // per comm rank
	}{
		// Ring: P-1 steps of one block.
		{"allgather ring P=4", Allgather, "ring", 4, uniform(1024), same(4, 3*step(1024))},
		{"allgather ring P=5", Allgather, "ring", 5, uniform(k), same(5, 4*step(k))},
		// Recursive doubling on 2^n ranks: step j carries 2^j blocks.
		{"allgather recdoub P=2", Allgather, "recdoub", 2, uniform(1), same(2, step(1))},
		{"allgather recdoub P=8", Allgather, "recdoub", 8, uniform(k), same(8, step(k)+step(2*k)+step(4*k))},
		// Recursive doubling on 3 ranks, blocks of 1 byte (bG = 0 for one
		// block, G for two). Rank 0 swaps with 1 (rank 2 has no partner at
		// distance 1) while rank 2 already sends its block to 0 and waits
		// for blocks 0 and 1 from it. Both messages reach rank 0 at o+L;
		// 1's was sent first (rank order at time 0), so 0 takes it first:
		// step 1 ends at T = 2o+L on 0 and 1. Rank 2's arrives as
		// unexpected at T (CPU busy until then) and costs o: CPU free at
		// T+o. Rank 0's send of 2 blocks to 2 waits for the CPU, runs
		// [T+o, T+2o], arrives at T+2o+L: rank 2 ends at T+3o+L+G. The
		// receive from 2 was found in the unexpected queue at T, so the
		// step ends with the send at T+2o and rank 0 passes block 2 on to
		// rank 1 (the recursive-halving fill, one level): CPU until T+3o,
		// arrival at T+3o+L, rank 1 ends at T+4o+L.
		{"allgather recdoub P=3", Allgather, "recdoub", 3, uniform(1), []int64{
			(2*o + L) + 3*o,
			(2*o + L) + 4*o + L,
			(2*o + L) + 3*o + L + G,
		}},
		// Bruck: blocks 1, 2, ... 2^(n-1), then the P-2^n remaining.
		{"allgather bruck P=3", Allgather, "bruck", 3, uniform(1), same(3, 2*step(1))},
		{"allgather bruck P=5", Allgather, "bruck", 5, uniform(k), same(5, step(k)+step(2*k)+step(k))},
		{"allgather bruck P=8", Allgather, "bruck", 8, uniform(k), same(8, step(k)+step(2*k)+step(4*k))},
		// Ring allgatherv, P=2: one step, each rank ends after receiving
		// the other's block.
		{"allgatherv ring P=2", Allgatherv, "ring", 2, counts(100, 3000), []int64{step(3000), step(100)}},
		// Pipelined: 2000-byte blocks in 1000-byte pieces, two steps.
		{"allgatherv ring P=2 segments", Allgatherv, "ring", 2, func(int) Spec { return Spec{Counts: []uint64{2 * k, 2 * k}, Segment: k} }, same(2, 2*step(k))},
		// Ring allgatherv, P=3, rank 1's block empty. Step 1: 0 sends block
		// 0 to 1 and receives block 2 from 2; 1 only receives; 2 only sends
		// (its CPU is free at o). Step 2 at T = 2o+L+bG: 0 forwards block 2
		// to 1 (send only: 0 ends at T+o), 1 forwards block 0 to 2 and
		// receives block 2; 2 receives from 1. Ranks 1 and 2 end at
		// T+2o+L+bG. Sending block 1 as zero-byte messages would make rank
		// 0 wait for one from 2 and end later.
		{"allgatherv ring P=3 empty block", Allgatherv, "ring", 3, counts(k, 0, k), []int64{step(k) + o, 2 * step(k), 2 * step(k)}},
		{"allgatherv recdoub P=2", Allgatherv, "recdoub", 2, counts(100, 3000), []int64{step(3000), step(100)}},
		{"allgatherv recdoub P=4", Allgatherv, "recdoub", 4, counts(k, k, k, k), same(4, step(k)+step(2*k))},
		// Bruck alltoall, P=5: step 1 sends blocks {1,3}, step 2 {2,3},
		// step 4 {4}.
		{"alltoall bruck P=4", Alltoall, "bruck", 4, uniform(k), same(4, 2*step(2*k))},
		{"alltoall bruck P=5", Alltoall, "bruck", 5, uniform(100), same(5, 2*step(200)+step(100))},
		{"alltoall pairwise P=4", Alltoall, "pairwise", 4, uniform(k), same(4, 3*step(k))},
		{"alltoall pairwise P=3", Alltoall, "pairwise", 3, uniform(k), same(3, 2*step(k))},
		{"alltoall linear P=2", Alltoall, "linear", 2, uniform(k), same(2, step(k))},
		// Linear, P=3, 64 bytes (bG = 378 <= o-g, so the NIC never binds):
		// every rank sends at 0 and at o; the first arrival at o+L finds an
		// idle CPU (free at 2o), ends at 2o+L+bG; the second arrives at
		// 2o+L and waits for the CPU: 3o+L+2bG.
		{"alltoall linear P=3", Alltoall, "linear", 3, uniform(64), same(3, 3*o+L+2*bG(64))},
		// Linear alltoallv, P=3, only 0->1 and 2->1: both arrive at 1 at
		// o+L; the second waits for the CPU: 1 ends at 3o+L+2bG, the senders
		// at o. No other messages (empty blocks send nothing).
		{"alltoallv linear P=3 sparse", Alltoallv, "linear", 3, matrix([][]uint64{{0, k, 0}, {0, 0, 0}, {0, k, 0}}), []int64{o, 3*o + L + 2*bG(k), o}},
		{"alltoallv linear P=2", Alltoallv, "linear", 2, matrix([][]uint64{{0, 100}, {3000, 0}}), []int64{step(3000), step(100)}},
		{"alltoallv pairwise P=3", Alltoallv, "pairwise", 3, matrix([][]uint64{{0, k, k}, {k, 0, k}, {k, k, 0}}), same(3, 2*step(k))},
		{"alltoallv pairwise P=2 one way", Alltoallv, "pairwise", 2, matrix([][]uint64{{0, k}, {0, 0}}), []int64{o, step(k)}},
		// Pairwise alltoallv, P=3, only 0->1 (step 1) and 2->1 (step 2):
		// 0 and 2 both send at 0, so as for linear 1 ends at 3o+L+2bG; 2's
		// message waits in the unexpected queue for 1's second step.
		{"alltoallv pairwise P=3 sparse", Alltoallv, "pairwise", 3, matrix([][]uint64{{0, k, 0}, {0, 0, 0}, {0, k, 0}}), []int64{o, 3*o + L + 2*bG(k), o}},
		// Barrier recursive doubling on 2^n ranks: n exchange steps.
		{"barrier recdoub P=2", Barrier, "recdoub", 2, uniform(0), same(2, 2*o+L)},
		{"barrier recdoub P=8", Barrier, "recdoub", 8, uniform(0), same(8, 3*(2*o+L))},
		// Barrier recursive doubling on 3 ranks, empty messages: 2 checks
		// in with 0 while 0 and 1 start their exchange; both messages
		// reach 0 at o+L, 1's first (rank order), which is unexpected and
		// costs o; 2's waits for the CPU and ends the first step of 0 at
		// 3o+L. 0's exchange send runs [3o+L, 4o+L] (its receive finds 1's
		// message already there), so 1 ends at 4o+L+L+o = 5o+2L. Then 0
		// releases 2: send [4o+L, 5o+L], 2 ends at 6o+2L.
		{"barrier recdoub P=3", Barrier, "recdoub", 3, uniform(0), []int64{5*o + L, 5*o + 2*L, 6*o + 2*L}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			alg, err := Lookup(tc.op, tc.alg)
			if err != nil {
				t.Fatal(err)
			}
			members := make([]int32, tc.p)
			for i := range members {
				members[i] = int32(i)
			}
			c := buildCall(t, alg, tc.p, members, func(me int) Spec {
				s := tc.spec(me)
				s.Comm = WorldComm(tc.p)
				return s
			})
			got := c.simulate(t, p)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("finishing times %v ns, closed form %v ns", got, tc.want)
			}
		})
	}
}
