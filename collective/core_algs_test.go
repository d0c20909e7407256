package collective

import (
	"math/bits"
	"testing"

	"github.com/gopsim/gopsim/sim"
)

func ceilLog2(p int) int { return bits.Len(uint(p - 1)) }

func init() {
	formulas["barrier/dissemination"] = func(s *Spec, me int) traffic {
		k := ceilLog2(s.Comm.Size())
		return traffic{k, k, uint64(k) * s.Size, uint64(k) * s.Size}
	}
	formulas["bcast/binomial"] = func(s *Spec, me int) traffic {
		p := s.Comm.Size()
		r := rel(me, s.Root, p)
		var tr traffic
		limit := p // children are r+m for powers of two m below r's lowest set bit
		if r != 0 {
			tr.recvs, tr.received = 1, s.Size
			limit = r & -r
		}
		for m := 1; m < limit; m <<= 1 {
			if r+m < p {
				tr.sends++
				tr.sent += s.Size
			}
		}
		return tr
	}
	formulas["allreduce/recdoub"] = func(s *Spec, me int) traffic {
		p := s.Comm.Size()
		pof2 := pow2Floor(p)
		rem := p - pof2
		k := bits.Len(uint(pof2)) - 1
		var tr traffic
		switch {
		case me < 2*rem && me%2 == 0: // folded out: send data, get the result
			tr = traffic{1, 1, s.Size, s.Size}
		case me < 2*rem: // absorbs a neighbour: k exchanges plus two
			tr = traffic{k + 1, k + 1, uint64(k+1) * s.Size, uint64(k+1) * s.Size}
		default:
			tr = traffic{k, k, uint64(k) * s.Size, uint64(k) * s.Size}
		}
		return tr
	}
}

// TestClosedForm compares contention-free cases with LogGP costs worked out
// by hand from the rules in docs/model.md (b = s-1 bytes; eager; O = 0).
func TestClosedForm(t *testing.T) {
	p := sim.DefaultParams() // L 2500, o 1500, g 1000, G 6, S 65535
	L, o, G := int64(p.L), int64(p.Overhead), int64(p.GapPerByte)
	for _, tc := range []struct {
		name string
		op   Op
		alg  string
		p    int
		size uint64
		want func(b int64) int64 // finishing time of the whole call
	}{
		// Binomial broadcast on 2^k idle ranks, children served farthest
		// first: the chain 0 -> 4 -> 6 -> 7 (P=8) uses each rank's first
		// send only, and a hop costs o (send) + L + o + bG (receive, idle
		// CPU and NIC): k(2o + L + bG). The root's last send (to 1) starts
		// only at 2(g + bG), the NIC gap, and ends earlier than the chain.
		{"bcast binomial P=8", Bcast, "binomial", 8, 1024, func(b int64) int64 { return 3 * (2*o + L + b*G) }},
		{"bcast binomial P=2", Bcast, "binomial", 2, 1, func(b int64) int64 { return 2*o + L }},
		// Dissemination barrier, P = 2^k: every round is a send and a receive
		// on every rank, all ranks symmetric. Round 1: send at 0, CPU free at
		// o; message arrives at o+L, receive costs o + bG. The next round's
		// send waits for the receive: k(2o + L + bG), as long as the NIC gap
		// g + bG is below the round time.
		{"barrier dissemination P=16", Barrier, "dissemination", 16, 0, func(b int64) int64 { return 4 * (2*o + L + b*G) }},
		{"barrier dissemination P=16 8B", Barrier, "dissemination", 16, 8, func(b int64) int64 { return 4 * (2*o + L + b*G) }},
		// Recursive doubling allreduce on 2^k ranks: same round structure.
		{"allreduce recdoub P=32", Allreduce, "recdoub", 32, 4096, func(b int64) int64 { return 5 * (2*o + L + b*G) }},
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
			c := buildCall(t, alg, tc.p, members, func(me int) Spec { return Spec{Comm: WorldComm(tc.p), Size: tc.size} })
			times := c.simulate(t, p)
			var got int64
			for _, x := range times {
				got = max(got, x)
			}
			b := int64(tc.size) - 1
			if b < 0 {
				b = 0
			}
			if want := tc.want(b); got != want {
				t.Errorf("finishing time %d ns, closed form %d ns", got, want)
			}
		})
	}
}
