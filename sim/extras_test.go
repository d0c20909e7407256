package sim_test

import (
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/sim"
)

// calcThenSend: rank 0 computes 100 ns, then sends 10 bytes to rank 1.
const calcThenSend = `num_ranks 2
rank 0 {
l1: calc 100
l2: send 10b to 1 tag 0
l2 requires l1
}
rank 1 {
l1: recv 10b from 0 tag 0
}
`

func readText(t *testing.T, text string) *goal.Schedule {
	t.Helper()
	s, _, err := goal.Read(strings.NewReader(text), "test.goal")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestBreakdownAndRecord checks, with LogGOPSim's default parameters (L
// 2500, o 1500, g 1000, G 6, O 0), times computed by hand:
//
//	rank 0: calc [0,100]; send at 100, CPU [100,1600], NIC busy g+9G = 1054
//	rank 1: arrival at 100+o+L = 4100, receive overhead o+max(9·O, 9·G) = 1554,
//	        CPU [4100,5654], NIC busy 1054; it waited 4100 ns.
//
// and with rank 1 a straggler of factor 2, its receive overhead absorbs
// 1554 ns of noise: it finishes at 7208.
func TestBreakdownAndRecord(t *testing.T) {
	s := readText(t, calcThenSend)
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams(), Breakdown: true, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []sim.Breakdown{
		{Finish: 1600, Calc: 100, SendOverhead: 1500, NICBusy: 1054},
		{Finish: 5654, RecvOverhead: 1554, Wait: 4100, NICBusy: 1054},
	}
	for r, b := range res.Breakdown {
		if b != want[r] {
			t.Errorf("rank %d breakdown %+v, want %+v", r, b, want[r])
		}
	}
	wantRec := []sim.OpRecord{
		{Ready: 0, Start: 0, CPUEnd: 100, End: 100, Delivered: -1, Arrive: -1, RecvCPUEnd: -1, NICEnd: -1, RecvNICEnd: -1, Match: -1},
		{Ready: 100, Start: 100, CPUEnd: 1600, End: 1600, Delivered: 4100, Arrive: 4100, RecvCPUEnd: 5654, NICEnd: 1154, RecvNICEnd: 5154, Match: 2},
		{Ready: 0, Start: 0, CPUEnd: 5654, End: 5654, Delivered: -1, Arrive: -1, RecvCPUEnd: -1, NICEnd: -1, RecvNICEnd: -1, Match: 1},
	}
	for g, r := range res.Record {
		if r != wantRec[g] {
			t.Errorf("op %d record %+v, want %+v", g, r, wantRec[g])
		}
	}

	m, err := noise.New(noise.Config{Stragglers: []int32{1}, Factor: 2}, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err = sim.Run(s, sim.Options{Params: sim.DefaultParams(), Breakdown: true, Noise: m})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Breakdown[1], (sim.Breakdown{Finish: 7208, RecvOverhead: 1554, Noise: 1554, Wait: 4100, NICBusy: 1054}); got != want {
		t.Errorf("straggler rank 1 breakdown %+v, want %+v", got, want)
	}
	if res.PerRank[0] != 1600 || m.Absorbed(1) != 1554 || m.Absorbed(0) != 0 {
		t.Errorf("finish %v, absorbed %d and %d ns, want rank 0 at 1600 and 0/1554 ns", res.PerRank, m.Absorbed(0), m.Absorbed(1))
	}
}

// TestNoiseChargedToEveryCPUWork: with a straggler factor of 3 on both
// ranks every piece of CPU work takes three times as long: the calc (100
// -> 300), the send overhead (1500 -> 4500) and the receive overhead
// (1554 -> 4662); the wire is unchanged. Rank 0: calc [0,300], send
// [300,4800]; arrival at 300+1500+2500 = 4300, receive [4300,8962].
func TestNoiseChargedToEveryCPUWork(t *testing.T) {
	s := readText(t, calcThenSend)
	m, err := noise.New(noise.Config{StragglerFraction: 1, Factor: 3}, 2)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams(), Noise: m})
	if err != nil {
		t.Fatal(err)
	}
	if res.PerRank[0] != 4800 || res.PerRank[1] != 8962 {
		t.Errorf("finish %v, want [4800 8962]", res.PerRank)
	}
	if a, b := m.Absorbed(0), m.Absorbed(1); a != 200+3000 || b != 2*1554 {
		t.Errorf("absorbed %d and %d ns, want 3200 and 3108", a, b)
	}
}

// TestNoisePeriodicCosched: periodic detours of 500 ns every 1000 ns,
// co-scheduled, so both ranks see the same phase drawn from the seed. A
// calc of 10,000 ns from 0 is charged the rest of a detour in progress at
// its start (up to 500 ns) plus the ten detours that start inside it
// (noise.Model.Charge): between 5000 and 5500 ns, the same on both ranks,
// the same for the same seed, and the calc ends that much later.
func TestNoisePeriodicCosched(t *testing.T) {
	const text = `num_ranks 2
rank 0 {
l1: calc 10000
}
rank 1 {
l1: calc 10000
}
`
	s := readText(t, text)
	run := func(seed uint64) ([]int64, int64) {
		m, err := noise.New(noise.Config{Seed: seed, PeriodNs: 1000, PeriodDurNs: 500, Cosched: true}, 2)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams(), Noise: m})
		if err != nil {
			t.Fatal(err)
		}
		if m.Absorbed(0) != m.Absorbed(1) || m.Absorbed(0) < 5000 || m.Absorbed(0) > 5500 {
			t.Errorf("seed %d: absorbed %d and %d ns, want the same, in [5000, 5500]", seed, m.Absorbed(0), m.Absorbed(1))
		}
		return res.PerRank, m.Absorbed(0)
	}
	phases := map[int64]bool{}
	for seed := uint64(0); seed < 5; seed++ {
		a, na := run(seed)
		b, _ := run(seed)
		if a[0] != 10000+na || a[1] != a[0] || b[0] != a[0] {
			t.Errorf("seed %d: finish %v then %v, want 10000+%d for both ranks", seed, a, b, na)
		}
		phases[na] = true
	}
	if len(phases) < 2 {
		t.Errorf("five seeds gave the same noise: the phase does not depend on the seed")
	}
}
