package noise

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"
)

func TestReadTrace(t *testing.T) {
	tr, err := ReadTrace(strings.NewReader("# measured\n100\t10\n\n50.4\t5.6\n105 20\n"), "n.txt")
	if err != nil {
		t.Fatal(err)
	}
	// sorted, rounded, 100+10 and 105+20 merged into 100..125
	if got := [2][]int64{tr.Start, tr.Dur}; got[0][0] != 50 || got[1][0] != 6 || got[0][1] != 100 || got[1][1] != 25 || len(got[0]) != 2 {
		t.Fatalf("detours %v %v", tr.Start, tr.Dur)
	}
	if tr.Period != 125 {
		t.Fatalf("period %d", tr.Period)
	}
	for _, tc := range []struct{ src, msg string }{
		{"", "n.txt: no detours"},
		{"# only\n", "no detours"},
		{"10\n", `n.txt:1: expected "start<TAB>duration"`},
		{"1\t2\nx\t3\n", `n.txt:2: start "x"`},
		{"1\t-2\n", `n.txt:1: duration "-2"`},
		{"0\t0\n", "length 0 at time 0"},
	} {
		if _, err := ReadTrace(strings.NewReader(tc.src), "n.txt"); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%q: error %v, want %q", tc.src, err, tc.msg)
		}
	}
	var buf bytes.Buffer
	if err := WriteTrace(&buf, tr, "a comment"); err != nil {
		t.Fatal(err)
	}
	back, err := ReadTrace(&buf, "back")
	if err != nil || back.Period != tr.Period || len(back.Start) != 2 {
		t.Fatalf("round trip: %v %+v", err, back)
	}
}

// bruteTrace counts, ns by ns over the periodic trace, what Trace.in
// promises: the rest of a detour running at a, plus detours starting in
// [a, a+n).
func bruteTrace(tr *Trace, a, n int64) int64 {
	var total int64
	T := tr.Period
	for p := int64(-1); p*T < a+n+T; p++ {
		for i := range tr.Start {
			s := tr.Start[i] + p*T
			switch {
			case s < a && s+tr.Dur[i] > a:
				total += s + tr.Dur[i] - a
			case s >= a && s < a+n:
				total += tr.Dur[i]
			}
		}
	}
	return total
}

func TestTraceIn(t *testing.T) {
	tr, err := ReadTrace(strings.NewReader("0\t3\n10\t5\n40\t1\n41.5\t2\n90\t10\n"), "t")
	if err != nil {
		t.Fatal(err)
	}
	for a := int64(0); a < 250; a++ {
		for _, n := range []int64{0, 1, 5, 17, 99, 100, 101, 250, 1000} {
			if got, want := tr.in(a, n), bruteTrace(tr, a, n); got != want {
				t.Fatalf("in(%d, %d) = %d, brute force %d", a, n, got, want)
			}
		}
	}
}

func TestPeriodic(t *testing.T) {
	brute := func(a, n, p, d int64) int64 {
		var total int64
		for k := int64(-1); k*p < a+n+p; k++ {
			s := k * p
			switch {
			case s < a && s+d > a:
				total += s + d - a
			case s >= a && s < a+n:
				total += d
			}
		}
		return total
	}
	for a := int64(0); a < 300; a++ {
		for _, n := range []int64{0, 1, 9, 10, 11, 55, 1000} {
			if got, want := periodic(a, n, 10, 3), brute(a, n, 10, 3); got != want {
				t.Fatalf("periodic(%d, %d) = %d, want %d", a, n, got, want)
			}
		}
	}
}

func TestModel(t *testing.T) {
	tr, _ := ReadTrace(strings.NewReader("0\t100\n500\t100\n"), "t")
	// Independent offsets differ between ranks; cosched ones agree.
	m, err := New(Config{Seed: 1, Trace: tr}, 64)
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[int64]bool{}
	for _, o := range m.offset {
		distinct[o] = true
	}
	if len(distinct) < 30 {
		t.Fatalf("only %d distinct offsets among 64 ranks", len(distinct))
	}
	mc, _ := New(Config{Seed: 1, Trace: tr, Cosched: true}, 64)
	for r := range mc.offset {
		if mc.offset[r] != mc.offset[0] {
			t.Fatal("cosched offsets differ")
		}
	}
	// Same seed, same charges; absorbed adds up.
	m2, _ := New(Config{Seed: 1, Trace: tr}, 64)
	var sum int64
	for r := int32(0); r < 64; r++ {
		x := m.Charge(r, int64(r)*37, 1000)
		if y := m2.Charge(r, int64(r)*37, 1000); x != y {
			t.Fatalf("rank %d: %d vs %d", r, x, y)
		}
		// 1000 ns cover one period of 600 fully (200) plus 400 ns more.
		if x < 200 || x > 400 {
			t.Fatalf("rank %d: %d ns of noise in 1000 ns", r, x)
		}
		sum += x
	}
	var abs int64
	for r := 0; r < 64; r++ {
		abs += m.Absorbed(r)
	}
	if abs != sum {
		t.Fatalf("absorbed %d, charged %d", abs, sum)
	}
}

func TestStragglers(t *testing.T) {
	m, err := New(Config{Seed: 3, Stragglers: []int32{2}, StragglerFraction: 0.25, Factor: 3}, 100)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for r := range m.straggle {
		if m.straggle[r] {
			n++
		}
	}
	if !m.straggle[2] || n < 25 || n > 26 {
		t.Fatalf("%d stragglers (rank 2: %v), want 25 drawn plus rank 2", n, m.straggle[2])
	}
	if x := m.Charge(2, 0, 1000); x != 2000 {
		t.Fatalf("a 3x straggler charges %d extra ns on 1000, want 2000", x)
	}
}

// TestRandom: order-independent, and over a long run the noise takes the
// share mean length / mean interval of the time (fixed seed: deterministic).
// As in the engine, a charge's CPU interval ends after its noise, and the
// next charge starts there.
func TestRandom(t *testing.T) {
	for _, dist := range []string{"exp", "pareto"} {
		cfg := Config{Seed: 9, Dist: dist, MeanIntervalNs: 10_000, MeanDurNs: 500, Alpha: 2.5}
		m, err := New(cfg, 4)
		if err != nil {
			t.Fatal(err)
		}
		m2, _ := New(cfg, 4)
		var now, total int64
		var starts []int64
		const step = 1000
		for now < 200_000_000 { // 200 ms
			starts = append(starts, now)
			x := m.Charge(1, now, step)
			total += x
			now += step + x
		}
		for i := len(starts) - 1; i >= 0; i-- { // backwards: same answers
			if x, y := m2.Charge(1, starts[i], step), m.Charge(1, starts[i], step); x != y {
				t.Fatalf("%s: charge at %d depends on order: %d vs %d", dist, starts[i], x, y)
			}
		}
		frac := float64(total) / float64(now)
		if math.Abs(frac-0.05) > 0.01 {
			t.Fatalf("%s: noise share %.4f, expected about 500/10000 = 0.05", dist, frac)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		cfg Config
		msg string
	}{
		{Config{PeriodNs: 10, PeriodDurNs: 10}, "periodic detours of 10 ns every 10 ns"},
		{Config{Dist: "normal", MeanIntervalNs: 10}, `distribution "normal"`},
		{Config{Dist: "pareto", MeanIntervalNs: 10, MeanDurNs: 1, Alpha: 1}, "need alpha > 1"},
		{Config{Dist: "exp", MeanIntervalNs: 10, MeanDurNs: 10}, "mean length (10 ns) < mean interval"},
		{Config{Stragglers: []int32{5}, Factor: 2}, "straggler rank 5 outside 0..3"},
		{Config{Stragglers: []int32{1}, Factor: 0.5}, "factor 0.5"},
		{Config{StragglerFraction: 2, Factor: 2}, "fraction 2 outside"},
	} {
		if _, err := New(tc.cfg, 4); err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("%+v: error %v, want %q", tc.cfg, err, tc.msg)
		}
	}
}

func TestMeasure(t *testing.T) {
	res, err := Measure(50*time.Millisecond, 0)
	if err != nil {
		t.Fatal(err)
	}
	if res.Iterations < 1000 || res.Duration < 50*time.Millisecond || res.Trace.Period <= 0 || res.Threshold < time.Microsecond {
		t.Fatalf("implausible measurement: %+v", res)
	}
	var buf bytes.Buffer
	if err := WriteTrace(&buf, res.Trace); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTrace(&buf, "measured"); err != nil {
		t.Fatalf("a measured trace does not read back: %v", err)
	}
}

// TestMeasureThresholds: a threshold below the fastest clock step, which
// would record every step as a detour, is refused after the calibration,
// before the measuring loop; 0 picks the default.
func TestMeasureThresholds(t *testing.T) {
	for _, tc := range []struct {
		name      string
		threshold time.Duration
		want      string // "" for no error
	}{
		{"default", 0, ""},
		{"1 ns", time.Nanosecond, "below the fastest clock step"},
		{"10 µs", 10 * time.Microsecond, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res, err := Measure(20*time.Millisecond, tc.threshold)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "" && tc.threshold > 0 && res.Threshold != tc.threshold:
				t.Errorf("threshold %v, want %v", res.Threshold, tc.threshold)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("error %v, want %q", err, tc.want)
			case tc.want != "" && time.Since(start) >= 20*time.Millisecond:
				t.Errorf("refused after %v: the loop ran", time.Since(start))
			}
		})
	}
}

func FuzzReadTrace(f *testing.F) {
	f.Add([]byte("# c\n0\t10\n100\t5\n"))
	f.Add([]byte("1.5 2.5\n1e3\t7\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := ReadTrace(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		if tr.Period <= 0 || len(tr.Start) == 0 {
			t.Fatalf("accepted a trace with period %d and %d detours", tr.Period, len(tr.Start))
		}
		for i := 1; i < len(tr.Start); i++ {
			if tr.Start[i] < tr.Start[i-1]+tr.Dur[i-1] {
				t.Fatal("detours overlap after normalization")
			}
		}
		for _, a := range []int64{0, 1, tr.Period - 1, tr.Period, 3*tr.Period + 7} {
			if x := tr.in(a, 17); x < 0 {
				t.Fatalf("negative noise %d", x)
			}
		}
	})
}
