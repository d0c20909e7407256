package sim

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/topology"
)

// burst is rank 0 sending n eager messages of size bytes to rank 1,
// which receives them; nothing else.
func burst(t testing.TB, n int, size uint64) *goal.Schedule {
	t.Helper()
	s := goal.NewSchedule(2)
	var b goal.Builder
	b.Reset(0)
	for i := 0; i < n; i++ {
		b.Send(size, 1, 0, 0, 0)
	}
	if err := s.AppendRank(b.Block()); err != nil {
		t.Fatal(err)
	}
	b.Reset(1)
	for i := 0; i < n; i++ {
		b.Recv(size, 0, 0, 0, 0)
	}
	if err := s.AppendRank(b.Block()); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFractionalAccumulates: fractions of a ns add up exactly, because the
// engine counts ps and rounds once, on output. 1000 one-byte messages with
// L = g = G = 0: the sender's CPU is busy 1000·o; the k-th message arrives
// at k·o and the receiver's CPU, busy o per message, ends at 1000·o + o.
// Each parameter is itself rounded once to a ps first: o = 1/3 ns is
// 333 ps, so 1000 messages take 333 ns, not 333.33. Halves round up.
func TestFractionalAccumulates(t *testing.T) {
	s := burst(t, 1000, 1)
	for _, tc := range []struct {
		o              float64
		sender, recver int64
	}{
		{0.5, 500, 501},     // 500.5 rounds up
		{0.001, 1, 1},       // 1000 ps; 1001 ps
		{1.0 / 3, 333, 333}, // 333 ps each: 333.000 and 333.333
		{0.0004, 0, 0},      // below half a ps: 0
		{2.75, 2750, 2753},  // 2752.75
	} {
		p := Params{Overhead: tc.o, EagerLimit: 65535}
		for _, q := range []QueueKind{RadixQueue, HeapQueue} {
			res, err := Run(s, Options{Params: p, Queue: q})
			if err != nil {
				t.Fatal(err)
			}
			if res.PerRank[0] != tc.sender || res.PerRank[1] != tc.recver {
				t.Errorf("o=%g, queue %d: ranks finish at %v, want [%d %d]", tc.o, q, res.PerRank, tc.sender, tc.recver)
			}
		}
	}
}

// TestFractionalBandwidth: a 100 Gb/s link is G = 0.08 ns per byte; one
// MiB costs exactly (2^20 - 1)·0.08 = 83886 ns at the receiver (o = L =
// g = 0), where float arithmetic in ns would give 83886.00000000001.
func TestFractionalBandwidth(t *testing.T) {
	G, err := ParsePerByte("100Gb/s")
	if err != nil {
		t.Fatal(err)
	}
	s := burst(t, 1, 1<<20)
	res, err := Run(s, Options{Params: Params{GapPerByte: G, EagerLimit: 1 << 30}})
	if err != nil {
		t.Fatal(err)
	}
	if res.PerRank[1] != 83886 || res.PerRank[0] != 0 {
		t.Errorf("G=%g: ranks finish at %v, want [0 83886]", G, res.PerRank)
	}
	if f := float64(1<<20-1) * G; f == 83886 {
		t.Logf("float64 happens to be exact here: %v", f)
	}
}

// runAll runs s with opt and returns everything a run gives, critical
// path included (LogGOPS's: CriticalPath explains LogGOPS costs),
// formatted for comparison.
func runAll(t *testing.T, p *Program, opt Options) string {
	t.Helper()
	opt.Record, opt.Breakdown = true, true
	res, err := p.Run(opt)
	if err != nil {
		return "error: " + err.Error()
	}
	out := fmt.Sprintf("%d %d %v %d\n%+v\n%+v\n", res.MaxTime, res.MaxRank, res.PerRank, res.Events, res.Breakdown, res.Record)
	if opt.Model != LogGOPS {
		return out
	}
	path, err := CriticalPath(p, res)
	if err != nil {
		return out + "critical path: " + err.Error()
	}
	return out + fmt.Sprintf("%+v", *path)
}

// TestTimeUnitsAgree: with parameters that are whole ns, counting ps
// gives what counting ns gives: finishing times, breakdown, record and
// critical path, on every conformance schedule, under LogGOPS with noise,
// and under every model on a few.
func TestTimeUnitsAgree(t *testing.T) {
	files := conformanceGoals()
	if len(files) < 30 {
		t.Fatalf("only %d schedules", len(files))
	}
	for i, f := range files {
		p, err := Compile(loadText(t, f))
		if err != nil {
			t.Fatal(err)
		}
		models := []Model{LogGOPS}
		if i%10 == 0 {
			models = Models()
		}
		for _, m := range models {
			for _, withNoise := range []bool{false, true} {
				mk := func(ps bool) Options {
					opt := Options{Params: DefaultParams(), Model: m, psAlways: ps}
					if withNoise {
						n, err := noise.New(noise.Config{Seed: 3, PeriodNs: 10000, PeriodDurNs: 700, Stragglers: []int32{1}, Factor: 1.5}, p.NumRanks)
						if err != nil {
							t.Fatal(err)
						}
						opt.Noise = n
					}
					return opt
				}
				ns, ps := runAll(t, p, mk(false)), runAll(t, p, mk(true))
				if ns != ps {
					t.Fatalf("%s, model %s, noise %v: ns and ps differ:\nns: %s\nps: %s", filepath.Base(f), m, withNoise, ns, ps)
				}
			}
		}
	}
}

// fractionalParams is a parameter set whose every time has a fraction of
// a ns, with a range.
func fractionalParams() Params {
	return Params{L: 1234.567, Overhead: 850.5, Gap: 900.25, GapPerByte: 0.08, OverheadPerByte: 0.013, EagerLimit: 4096,
		Ranges: []Range{{MinBytes: 4097, MaxBytes: 1 << 30, L: 1500.5, Overhead: 700.125, Gap: 1000.001, GapPerByte: 0.125, OverheadPerByte: 0.031}}}
}

// TestFractionalModesAgree: fractional parameters give the same results,
// noise included, in memory and streamed, with either event queue, run
// after run.
func TestFractionalModesAgree(t *testing.T) {
	cases := []*goal.Schedule{}
	for _, f := range conformanceGoals()[:12] {
		cases = append(cases, loadText(t, f))
	}
	for _, name := range []string{"allreduce_recdoub", "linear_alltoall"} {
		cases = append(cases, patternSchedule(t, name, 16, 8192))
	}
	for i, s := range cases {
		mem, err := Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		str := streamed(t, binaryOf(t, s), 3)
		var want *Result
		for _, q := range []QueueKind{RadixQueue, HeapQueue} {
			for _, p := range []*Program{mem, str, mem} {
				nz, err := noise.New(noise.Config{Seed: 9, PeriodNs: 7000, PeriodDurNs: 300, Stragglers: []int32{0}, Factor: 1.25}, p.NumRanks)
				if err != nil {
					t.Fatal(err)
				}
				res, err := p.Run(Options{Params: fractionalParams(), Queue: q, Breakdown: true, Noise: nz})
				if err != nil && !errors.As(err, new(*DeadlockError)) {
					t.Fatal(err)
				}
				if want == nil {
					want = res
				} else if !reflect.DeepEqual(res, want) {
					t.Fatalf("case %d: %+v\nwant %+v", i, res, want)
				}
			}
		}
	}
}

// TestFractionalCriticalPath: with fractional parameters the critical
// path's steps still tile [0, MaxTime] and its classes add up, after
// rounding, and the breakdown's parts add up to the finishing time.
func TestFractionalCriticalPath(t *testing.T) {
	p, err := Compile(patternSchedule(t, "allreduce_recdoub", 8, 10000))
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(Options{Params: fractionalParams(), Record: true, Breakdown: true})
	if err != nil {
		t.Fatal(err)
	}
	path, err := CriticalPath(p, res)
	if err != nil {
		t.Fatal(err)
	}
	if path.Sum() != res.MaxTime || path.Length != res.MaxTime {
		t.Errorf("path length %d, classes %d, max time %d", path.Length, path.Sum(), res.MaxTime)
	}
	at := int64(0)
	for i, st := range path.Steps {
		if st.Start != at || st.End-st.Start != st.Sum() {
			t.Fatalf("step %d %+v does not follow %d or its classes do not add up", i, st, at)
		}
		at = st.End
	}
	if at != res.MaxTime {
		t.Errorf("steps end at %d, max time %d", at, res.MaxTime)
	}
	for r, b := range res.Breakdown {
		if b.Calc+b.SendOverhead+b.RecvOverhead+b.Noise+b.Wait != b.Finish {
			t.Errorf("rank %d: %+v does not add up", r, b)
		}
	}
	// The record agrees with the finishing times.
	for r := 0; r < p.NumRanks; r++ {
		lo, hi := p.RankOps(r)
		var last int64
		for g := lo; g < hi; g++ {
			last = max(last, res.Record[g].CPUEnd)
		}
		if last > res.PerRank[r] {
			t.Errorf("rank %d: CPU work ends at %d, after its finishing time %d", r, last, res.PerRank[r])
		}
	}
}

// TestTimeBeyondMaxTime: a cost or a finishing time beyond MaxTime is an
// error naming the op, never a wrapped or clamped time.
func TestTimeBeyondMaxTime(t *testing.T) {
	huge := goal.NewSchedule(2)
	var b goal.Builder
	b.Reset(0)
	b.Calc(1, 0)
	b.Send(MaxMessage, 1, 0, 0, 0)
	if err := huge.AppendRank(b.Block()); err != nil {
		t.Fatal(err)
	}
	b.Reset(1)
	b.Recv(MaxMessage, 0, 0, 0, 0)
	if err := huge.AppendRank(b.Block()); err != nil {
		t.Fatal(err)
	}
	calcs := func(n int, d uint64) *goal.Schedule {
		s := goal.NewSchedule(1)
		var b goal.Builder
		b.Reset(0)
		for i := 0; i < n; i++ {
			b.Calc(d, 0)
			if i > 0 {
				b.Requires(int32(i), int32(i-1))
			}
		}
		if err := s.AppendRank(b.Block()); err != nil {
			t.Fatal(err)
		}
		return s
	}
	frac := DefaultParams()
	frac.Overhead = 0.5
	for _, tc := range []struct {
		name string
		s    *goal.Schedule
		p    Params
		want string
	}{
		{"G on 2 TiB", huge, Params{GapPerByte: 4194305, EagerLimit: 1 << 20},
			"rank 0 op 1 (l2): send 2199023255552 bytes: (s-1)·G = 2199023255551 bytes × 4.194305e+06 ns/byte: beyond the largest time the engine represents, 1152921504606846976 ns"},
		{"O on 2 TiB in ps", huge, Params{OverheadPerByte: 600000.5},
			"rank 0 op 1 (l2): send 2199023255552 bytes: (s-1)·O = 2199023255551 bytes × 600000.5 ns/byte: beyond the largest time the engine represents, 1152921504606846 ns (13.3 days"},
		{"calc in ps", calcs(1, MaxTime/1000+1), frac, "rank 0 op 0 (l1): calc of 1152921504606847 ns: beyond"},
		{"calc in ns", calcs(1, MaxTime+1), DefaultParams(), "rank 0 op 0 (l1): calc of 1152921504606846977 ns: beyond"},
		{"sum of calcs", calcs(5, MaxTime/4), DefaultParams(), "rank 0 op 4 (l5): calc of 288230376151711744 ns from 1152921504606846976 ns: beyond"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, q := range []QueueKind{RadixQueue, HeapQueue} {
				_, err := Run(tc.s, Options{Params: tc.p, Queue: q})
				var te *TimeError
				if !errors.As(err, &te) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want a TimeError with %q", err, tc.want)
				}
			}
		})
	}
	// Just below: the largest time is fine.
	res, err := Run(calcs(4, MaxTime/4), Options{Params: DefaultParams()})
	if err != nil || res.MaxTime != MaxTime {
		t.Fatalf("%v, %v", res, err)
	}
}

// TestTimeUnitsNetwork: under the congestion models, counting ps with
// whole parameters gives what counting ns gives, and fractional
// parameters give the same results with either queue, run after run.
func TestTimeUnitsNetwork(t *testing.T) {
	g, err := topology.Generate("fattree:k=4,n=2,oversub=2")
	if err != nil {
		t.Fatal(err)
	}
	p, err := Compile(patternSchedule(t, "linear_alltoall", 8, 4096))
	if err != nil {
		t.Fatal(err)
	}
	m, err := topology.Linear(g, p.NumRanks, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, model := range []topology.Model{topology.Simple, topology.Flow} {
		run := func(par Params, q QueueKind, ps bool) string {
			net, err := topology.NewNetwork(g, m, topology.Options{Model: model})
			if err != nil {
				t.Fatal(err)
			}
			nz, err := noise.New(noise.Config{Seed: 5, Dist: "exp", MeanIntervalNs: 20000, MeanDurNs: 900}, p.NumRanks)
			if err != nil {
				t.Fatal(err)
			}
			res, err := p.Run(Options{Params: par, Queue: q, Network: net, Noise: nz, Record: true, psAlways: ps})
			if err != nil {
				t.Fatalf("%s, queue %d, ps %v, %s: %v", model, q, ps, par, err)
			}
			return fmt.Sprintf("%v %+v", res.PerRank, res.Record)
		}
		if ns, ps := run(DefaultParams(), RadixQueue, false), run(DefaultParams(), RadixQueue, true); ns != ps {
			t.Errorf("%s: ns and ps differ:\n%s\n%s", model, ns, ps)
		}
		want := run(fractionalParams(), RadixQueue, false)
		for _, q := range []QueueKind{RadixQueue, HeapQueue} {
			if got := run(fractionalParams(), q, false); got != want {
				t.Errorf("%s, queue %d: fractional runs differ:\n%s\n%s", model, q, got, want)
			}
		}
	}
}
