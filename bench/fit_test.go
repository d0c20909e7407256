package bench

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// noise describes the disturbance added to a synthetic table: Gaussian
// with relative standard deviation Rel, plus, with probability Outliers, a
// delay of 20 % to 100 % (a descheduled process, an interrupt).
type noise struct {
	Rel      float64
	Outliers float64
	// IdleNs is added to every round with a delay: the last message
	// follows an idle period, and wake-ups cost (see Measure).
	IdleNs float64
}

// synth makes the raw table Measure would record on a machine that obeys
// the LogGOPS model with the given ranges exactly (PRTT from Range.PRTT),
// disturbed by nz: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) and PRTT(2,d,s).
// d is Netgauge's: the size's PRTT(1,0,s).
func synth(seed uint64, ranges []Range, sizes []int64, n, reps int, nz noise) Table {
	rng := rand.New(rand.NewPCG(seed, 7))
	pf := &ParamFile{Ranges: ranges}
	var t Table
	for _, s := range sizes {
		r := pf.RangeFor(s)
		d := math.Round(r.PRTT(1, 0, s))
		for range reps {
			for _, k := range []struct {
				n int
				d float64
			}{{1, 0}, {n, 0}, {n, d}, {2, d}} {
				v := r.PRTT(k.n, k.d, s) * (1 + nz.Rel*rng.NormFloat64())
				if k.d > 0 {
					v += nz.IdleNs
				}
				if rng.Float64() < nz.Outliers {
					v *= 1.2 + 0.8*rng.Float64()
				}
				t = append(t, Sample{N: k.n, DelayNs: k.d, SizeBytes: s, PRTTNs: max(1, math.Round(v))})
			}
		}
	}
	return t
}

// exchangeSkew is what the first exchange of a synthetic exchange round
// costs more than the others (the ranks' skew at its start): the fit's
// slope over n must cancel it.
const exchangeSkew = 350

// synthExchanges makes the exchange rounds Measure would record on a
// machine that obeys the LogGOPS model with the given ranges: X(1,s) and
// X(n,s), n exchanges of the model's time (model, sExch) after a skew.
func synthExchanges(seed uint64, ranges []Range, sizes []int64, n, reps int, nz noise) Table {
	rng := rand.New(rand.NewPCG(seed, 11))
	pf := &ParamFile{Ranges: ranges}
	var t Table
	for _, s := range sizes {
		e := model(pf.RangeFor(s), sExch, float64(s-1))
		for range reps {
			for _, k := range []int{1, n} {
				v := (exchangeSkew + float64(k)*e) * (1 + nz.Rel*rng.NormFloat64())
				if rng.Float64() < nz.Outliers {
					v *= 1.2 + 0.8*rng.Float64()
				}
				t = append(t, Sample{N: k, SizeBytes: s, PRTTNs: max(1, math.Round(v)), Exchange: true})
			}
		}
	}
	return t
}

// paperSizes straddle 12288/12289 and 65536/65537, as DefaultSizes do.
var paperSizes = []int64{1, 512, 1024, 2048, 3072, 4096, 6144, 8192, 10240, 12288,
	12289, 16384, 20480, 24576, 28672, 32768, 40960, 49152, 57344, 65536,
	65537, 81920, 98304, 131072, 196608, 262144}

// The paper's g and G (Hoefler et al. 2007, Table 2: g = 5.14 µs,
// G = 0.00073 µs/B below 12289 bytes; 21.39 µs, 0.00103 µs/B above), with
// an L and o of our own.
var (
	eager      = Range{L: 3200, Overhead: 1300, Gap: 5140, GapPerByte: 0.73, OverheadPerByte: 0.21}
	rendezvous = Range{L: 7800, Overhead: 2600, Gap: 21390, GapPerByte: 1.03, OverheadPerByte: 0.35}
	// A third protocol above 64 KiB, continuous at 65536 bytes: a change of
	// slope (G and O), no jump.
	pipelined = Range{L: 7800 + 65536*0.33, Overhead: 2600 + 65536*0.05, Gap: 21390 + 65536*0.43, GapPerByte: 0.6, OverheadPerByte: 0.3}
)

func ranges(rs ...Range) []Range {
	out := make([]Range, len(rs))
	bounds := []int64{12288, 65536}
	for i, r := range rs {
		r.MinBytes, r.MaxBytes = 0, MaxMessageBytes
		if i > 0 {
			r.MinBytes = bounds[i-1] + 1
		}
		if i+1 < len(rs) {
			r.MaxBytes = bounds[i]
		}
		out[i] = r
	}
	return out
}

// TestFitSynthetic fits tables made from known parameters with noise
// (three seeds each) and wants every parameter within 1 % and the ranges
// where the parameters change. The noise levels are those at which the
// method reaches 1 % on all of 100 seeds: the o and L of an upper range
// are intercepts extrapolated from far above 0 bytes, so they need less
// noise than the first range's (the fit's *_se_ns say how precise they
// are; with 0.1 % noise, 8 of 100 seeds miss 1 % on the third range's o).
func TestFitSynthetic(t *testing.T) {
	quiet := noise{Rel: 0.002, Outliers: 0.03}
	tests := []struct {
		name   string
		ranges []Range
		nz     noise
		reps   int
		jumps  []bool // per change: a jump (true) or a slope change
		S      int64  // 0: none
	}{
		{"one range, no noise", ranges(eager), noise{}, 5, nil, 0},
		{"one range", ranges(eager), quiet, 200, nil, 0},
		{"one range, outliers only", ranges(eager), noise{Outliers: 0.2}, 200, nil, 0},
		{"paper: eager/rendezvous at 12289", ranges(eager, rendezvous), quiet, 200, []bool{true}, 12288},
		{"three protocols", ranges(eager, rendezvous, pipelined), noise{Rel: 0.0005, Outliers: 0.03}, 200, []bool{true, false}, 12288},
		{"rendezvous alone", ranges(rendezvous), quiet, 200, nil, 0},
		// 20 µs more for a round trip after idling would make o 2.9 µs
		// too large with PRTT(n,d,s) alone; PRTT(2,d,s) cancels it.
		{"idle wake-up cost", ranges(eager, rendezvous), noise{Rel: 0.002, Outliers: 0.03, IdleNs: 20000}, 200, []bool{true}, 12288},
	}
	for _, tc := range tests {
		for seed := uint64(1); seed <= 6; seed++ {
			// Seeds 4 to 6 add exchange rounds, which the same model
			// produced: they must change nothing. Not to a change of
			// slope alone, which may be found one size off: the point on
			// the wrong side is then another protocol's, and its exchange,
			// fitted first, pulls the range's parameters (the fit's
			// rms_resid_exchange_ns shows it; docs/calibration.md).
			exch := seed > 3
			if exch && slices.Contains(tc.jumps, false) {
				continue
			}
			t.Run(fmt.Sprintf("%s/seed=%d", tc.name, seed), func(t *testing.T) {
				tab := synth(seed, tc.ranges, paperSizes, 8, tc.reps, tc.nz)
				if exch {
					tab = append(tab, synthExchanges(seed, tc.ranges, paperSizes, 8, tc.reps, tc.nz)...)
				}
				pf, err := Fit(tab, FitOptions{Quantile: 0.5})
				if err != nil {
					t.Fatal(err)
				}
				if len(pf.Ranges) != len(tc.ranges) {
					t.Fatalf("%d ranges %+v, want %d; changes %+v", len(pf.Ranges), pf.Ranges, len(tc.ranges), pf.Fit.Changes)
				}
				for i, want := range tc.ranges {
					got := pf.Ranges[i]
					if i == 0 && got.MinBytes != 0 || i+1 == len(pf.Ranges) && got.MaxBytes != MaxMessageBytes ||
						i > 0 && got.MinBytes != pf.Ranges[i-1].MaxBytes+1 {
						t.Errorf("range %d: %d..%d bytes: the ranges must cover 0..MaxMessageBytes", i, got.MinBytes, got.MaxBytes)
					}
					// The first size of the upper range. A change of slope
					// without a jump leaves the sizes next to the break on both
					// lines, so it may be found one measured size off.
					if i > 0 && got.MinBytes != want.MinBytes {
						j := slices.Index(paperSizes, want.MinBytes)
						if tc.jumps[i-1] || j < 1 || j+1 >= len(paperSizes) ||
							got.MinBytes != paperSizes[j-1] && got.MinBytes != paperSizes[j+1] {
							t.Errorf("range %d starts at %d bytes, want %d", i, got.MinBytes, want.MinBytes)
						}
					}
					for _, p := range []struct {
						name      string
						got, want float64
					}{{"L", got.L, want.L}, {"o", got.Overhead, want.Overhead}, {"g", got.Gap, want.Gap},
						{"G", got.GapPerByte, want.GapPerByte}, {"O", got.OverheadPerByte, want.OverheadPerByte}} {
						if e := math.Abs(p.got/p.want - 1); e > 0.01 {
							t.Errorf("range %d: %s = %.4f, want %.4f (error %.2f %% > 1 %%)", i, p.name, p.got, p.want, 100*e)
						}
					}
				}
				for i, c := range pf.Fit.Changes {
					if c.Jump != tc.jumps[i] {
						t.Errorf("change %d (%d/%d bytes): jump %v, want %v", i, c.AfterBytes, c.BeforeBytes, c.Jump, tc.jumps[i])
					}
				}
				switch {
				case tc.S == 0 && pf.EagerLimit != nil:
					t.Errorf("S = %d, want none", *pf.EagerLimit)
				case tc.S != 0 && (pf.EagerLimit == nil || *pf.EagerLimit != tc.S):
					t.Errorf("S = %v, want %d", pf.EagerLimit, tc.S)
				}
				for _, w := range pf.Warnings {
					t.Errorf("unexpected warning: %s", w)
				}
				if got := len(pf.Fit.Exchange); exch != (got == len(paperSizes)) || !exch && got != 0 {
					t.Errorf("%d exchanges compared, want %d", got, map[bool]int{true: len(paperSizes)}[exch])
				}
				for _, x := range pf.Fit.Exchange {
					if math.Abs(x.Ratio-1) > 0.01 {
						t.Errorf("exchange of %d bytes simulated at %.1f ns, measured %.1f", x.SizeBytes, x.SimulatedNs, x.MeasuredNs)
					}
				}
				// Base keys: the first range, rounded.
				if r := pf.Ranges[0]; pf.L != toBase(r.L) || pf.GapPerByte != toBase(r.GapPerByte) {
					t.Errorf("base keys L=%v G=%v, want ranges[0] (%v)", pf.L, pf.GapPerByte, r)
				}
				if t.Failed() {
					var b bytes.Buffer
					pf.Write(&b)
					t.Logf("parameter file:\n%s", b.String())
				}
			})
		}
	}
}

// TestFitExchangeDecidesO fits a machine whose exchanges cost less than
// its sender's overhead series says, as shared memory's do
// (docs/accuracy.md): the round trips, the gap and the exchanges obey a
// range with O = 0.07 ns/byte, the overhead series one with O = 0.26. The
// exchange is fitted first, so O follows it, and both a ping-pong and an
// exchange simulate as measured; the overhead series takes the residual.
func TestFitExchangeDecidesO(t *testing.T) {
	shm := Range{L: 150, Overhead: 320, Gap: 400, GapPerByte: 0.26, OverheadPerByte: 0.07}
	over := shm
	over.OverheadPerByte = 0.26
	sizes := []int64{64, 256, 512, 1024, 1536, 2048, 3072, 4000}
	var tab Table
	for _, s := range synth(3, ranges(shm), sizes, 8, 50, noise{Rel: 0.002}) {
		if s.DelayNs > 0 { // the overhead series: from the other range
			s.PRTTNs += float64(s.N-1) * (over.OverheadPerByte - shm.OverheadPerByte) * float64(s.SizeBytes-1)
		}
		tab = append(tab, s)
	}
	tab = append(tab, synthExchanges(3, ranges(shm), sizes, 8, 50, noise{Rel: 0.002})...)
	pf, err := Fit(tab, FitOptions{MaxRanges: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := pf.Ranges[0]
	if math.Abs(got.OverheadPerByte-0.07) > 0.01 || math.Abs(got.GapPerByte-0.26) > 0.01 {
		t.Errorf("G = %.4f, O = %.4f ns/byte, want 0.26 and 0.07", got.GapPerByte, got.OverheadPerByte)
	}
	for _, x := range pf.Fit.Exchange {
		if math.Abs(x.Ratio-1) > 0.02 {
			t.Errorf("exchange of %d bytes: simulated/measured %.4f", x.SizeBytes, x.Ratio)
		}
	}
	for _, x := range pf.Fit.PingPong {
		if math.Abs(x.Ratio-1) > 0.02 {
			t.Errorf("ping-pong of %d bytes: simulated/measured %.4f", x.SizeBytes, x.Ratio)
		}
	}
	cf := pf.Fit.Ranges[0].Constraints
	if cf.RMSExchangeNs == nil || cf.RMSOverheadNs < 50 {
		t.Errorf("constraints %+v: want the exchange's residual, and the overhead's at least 50 ns", cf)
	}
}

// TestFitExchangeDisagrees fits exchanges that cost twice what the
// round trips' parameters give, as TCP exchanged by two goroutines over
// loopback did (17.8 us against half round trips of 7.6): no LogGOPS
// parameters give both, and the warning says what fitting the exchanges
// cost the round trips.
func TestFitExchangeDisagrees(t *testing.T) {
	sizes := []int64{64, 256, 512, 1024, 1536, 2048, 3072, 4000}
	tab := synth(5, ranges(eager), sizes, 8, 50, noise{Rel: 0.002})
	for _, s := range synthExchanges(5, ranges(eager), sizes, 8, 50, noise{Rel: 0.002}) {
		s.PRTTNs *= 2
		tab = append(tab, s)
	}
	pf, err := Fit(tab, FitOptions{MaxRanges: 1})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, w := range pf.Warnings {
		found = found || strings.Contains(w, "the exchanges (both ends sending at once) and the round trips disagree beyond what LogGOPS can give together")
	}
	if !found {
		t.Errorf("no warning of the disagreement in %q", pf.Warnings)
	}
	if w := pf.Fit.Ranges[0].Constraints.WithoutExchangeRMSHalfRTTNs; w == nil || *w > 10 {
		t.Errorf("without the exchanges the round trips fit to %v ns, want the model's", w)
	}
	if w := pf.Fit.Ranges[0].Constraints.WithoutExchangeRMSGapNs; w == nil || *w > 50 {
		t.Errorf("without the exchanges the gap fits to %v ns, want the model's", w)
	}
}

// TestExchangeForms checks the exchange's model (exchangeForms) against
// the simulator in each of its three forms.
func TestExchangeForms(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    Range
		form int
	}{
		{"sending when it arrives", Range{L: 50, Overhead: 300, Gap: 200, GapPerByte: 0.3, OverheadPerByte: 0.1}, 0},
		{"free when it arrives", Range{L: 3000, Overhead: 300, Gap: 200, GapPerByte: 0.3, OverheadPerByte: 0.1}, 1},
		{"the gap", Range{L: 100, Overhead: 300, Gap: 9000, GapPerByte: 0.3, OverheadPerByte: 0.1}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.r.MaxBytes = MaxMessageBytes
			pf := &ParamFile{Ranges: []Range{tc.r}}
			pf.setBase()
			for _, s := range []int64{1000, 4000} {
				b := float64(s - 1)
				if f := exchangeForm(tc.r, b); f != tc.form {
					t.Errorf("%d bytes: form %d, want %d", s, f, tc.form)
				}
				got, err := SimulateExchange(pf.SimParams(), s)
				if err != nil {
					t.Fatal(err)
				}
				// The simulation counts whole ns.
				if want := model(tc.r, sExch, b); math.Abs(got-want) > 0.5 {
					t.Errorf("%d bytes: simulated %.1f ns, model %.1f ns", s, got, want)
				}
			}
		})
	}
}

// TestFitNetgauge fits a table without PRTT(2,d,s) rows, as Netgauge
// measures: o from (PRTT(n,d,s) - PRTT(1,0,s))/(n-1) - d.
func TestFitNetgauge(t *testing.T) {
	var tab Table
	for _, s := range synth(7, ranges(eager), paperSizes[:10], 8, 3, noise{}) {
		if s.N != 2 {
			tab = append(tab, s)
		}
	}
	pf, err := Fit(tab, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got := pf.Ranges[0]
	for _, p := range []struct {
		name      string
		got, want float64
	}{{"L", got.L, eager.L}, {"o", got.Overhead, eager.Overhead}, {"O", got.OverheadPerByte, eager.OverheadPerByte}} {
		if math.Abs(p.got/p.want-1) > 0.001 {
			t.Errorf("%s = %v, want %v", p.name, p.got, p.want)
		}
	}
	if pf.Fit.Points[0].IdleExtra != nil {
		t.Errorf("idle extra %v without PRTT(2,d,s)", *pf.Fit.Points[0].IdleExtra)
	}
}

// TestFitWarnings checks that numbers without physical sense are reported
// (in the file's warnings), not hidden.
func TestFitWarnings(t *testing.T) {
	tests := []struct {
		name string
		r    Range
		want []string
	}{
		{"o > g", Range{L: 2000, Overhead: 4000, Gap: 1000, GapPerByte: 1}, []string{"exceeds g"}},
		{"L < 0", Range{L: -1500, Overhead: 1000, Gap: 3000, GapPerByte: 1}, []string{"this measurement cannot be a network: fitted freely, L = -1500.0 ± 0.6 ns", "Fitted with L >= 0 instead: L = 0.0 ns"}},
		{"G < 0", Range{L: 90000, Overhead: 1000, Gap: 30000, GapPerByte: -0.5, OverheadPerByte: -0.6}, []string{"fitted freely, G = -0.5", "fitted with G >= 0: G = 0 ns/byte", "fitted freely, O = -0.6"}},
		{"two G", Range{L: 90000, Overhead: 1000, Gap: 30000, GapPerByte: -0.5}, []string{"the gap's slope (-0.5 ns/byte, back-to-back messages) and the round trip's (0 ns/byte) disagree"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			pf, err := Fit(synth(2, ranges(tc.r), paperSizes[:12], 8, 3, noise{}), FitOptions{})
			if err != nil {
				t.Fatal(err)
			}
			all := strings.Join(pf.Warnings, "\n")
			for _, w := range tc.want {
				if !strings.Contains(all, w) {
					t.Errorf("warnings lack %q:\n%s", w, all)
				}
			}
		})
	}
}

func TestFitErrors(t *testing.T) {
	tests := []struct {
		name string
		tab  Table
	}{
		{"empty", nil},
		{"one size", Table{{N: 1, SizeBytes: 8, PRTTNs: 100}, {N: 8, SizeBytes: 8, PRTTNs: 800}}},
		{"no PRTT(1,0,s)", Table{{N: 8, SizeBytes: 8, PRTTNs: 800}, {N: 8, SizeBytes: 16, PRTTNs: 900}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Fit(tc.tab, FitOptions{}); !errors.Is(err, ErrFit) {
				t.Errorf("error %v, want ErrFit", err)
			}
		})
	}
}

// TestFitPartialTable: without PRTT(n,0,s) or PRTT(n,d,s) rows the fit
// still gives what it can and says what is missing.
func TestFitPartialTable(t *testing.T) {
	full := synth(3, ranges(eager), paperSizes[:10], 8, 3, noise{})
	var only1 Table
	for _, s := range full {
		if s.N == 1 {
			only1 = append(only1, s)
		}
	}
	pf, err := Fit(only1, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(pf.Warnings, "\n")
	for _, w := range []string{"no PRTT(n,0,s): g and G rows", "no PRTT(n,d,s): o and O rows"} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	// L = half round trip's intercept = L + 2o when o is unknown.
	if want := eager.L + 2*eager.Overhead; math.Abs(pf.Ranges[0].L-want) > 1 {
		t.Errorf("L = %v, want %v", pf.Ranges[0].L, want)
	}
	if math.Abs(pf.Ranges[0].GapPerByte-eager.GapPerByte) > 0.001 {
		t.Errorf("G = %v, want %v from the round trip", pf.Ranges[0].GapPerByte, eager.GapPerByte)
	}
}

// TestParamFileJSON checks the keys of the parameter file: the base keys
// sim.ReadParams reads, as integers, then ranges, warnings, fit, source.
func TestParamFileJSON(t *testing.T) {
	pf, err := Fit(synth(4, ranges(eager, rendezvous), paperSizes[:14], 8, 5, noise{}), FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := pf.Write(&b); err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"L_ns", "o_ns", "g_ns", "G_ns_per_byte", "O_ns_per_byte", "S_bytes"} {
		var v baseValue
		if err := json.Unmarshal(m[k], &v); err != nil {
			t.Errorf("%s = %s: %v (sim.ReadParams reads sim.Params' type)", k, m[k], err)
		}
	}
	var rs []map[string]float64
	if err := json.Unmarshal(m["ranges"], &rs); err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		for _, k := range []string{"min_bytes", "max_bytes", "L_ns", "o_ns", "g_ns", "G_ns_per_byte", "O_ns_per_byte"} {
			if _, ok := r[k]; !ok {
				t.Errorf("range %v lacks %s", r, k)
			}
		}
	}
	if len(rs) != 2 || rs[0]["min_bytes"] != 0 || rs[0]["max_bytes"]+1 != rs[1]["min_bytes"] || rs[1]["max_bytes"] != MaxMessageBytes {
		t.Errorf("ranges not contiguous from 0 to MaxMessageBytes: %v", rs)
	}
	for _, k := range []string{"warnings", "fit", "source"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no %q key", k)
		}
	}
	var fit FitReport
	if err := json.Unmarshal(m["fit"], &fit); err != nil {
		t.Fatal(err)
	}
	if len(fit.Ranges) != 2 || fit.Ranges[0].R2Gap == nil || *fit.Ranges[0].R2Gap < 0.999 || len(fit.Points) != 14 {
		t.Errorf("fit report: %+v", fit)
	}
}

func TestRangePRTT(t *testing.T) {
	r := Range{L: 2500, Overhead: 1500, Gap: 1000, GapPerByte: 6, OverheadPerByte: 1}
	tests := []struct {
		n    int
		d    float64
		s    int64
		want float64
	}{
		{1, 0, 1, 2 * (2500 + 3000)},
		{1, 0, 1024, 2 * (2500 + 3000 + 1023*6)},
		{8, 0, 1024, 2*(2500+3000+1023*6) + 7*(1000+1023*6)},
		{8, 100000, 1024, 2*(2500+3000+1023*6) + 7*(1500+1023+100000)},
		{8, 0, 1, 2*(2500+3000) + 7*1500}, // o > g: the sender's overhead limits
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("n=%d,d=%v,s=%d", tc.n, tc.d, tc.s), func(t *testing.T) {
			if got := r.PRTT(tc.n, tc.d, tc.s); got != tc.want {
				t.Errorf("PRTT = %v, want %v", got, tc.want)
			}
		})
	}
}

func abs(x int64) int64 { return max(x, -x) }

// TestFitDenseSizes: a dense grid (1025 sizes) is fitted quickly (the split
// search is one pass per candidate range) and locates the change to the
// grid's resolution.
func TestFitDenseSizes(t *testing.T) {
	var sizes []int64
	for s := int64(1); s <= 131072; s += 128 {
		sizes = append(sizes, s)
	}
	start := time.Now()
	pf, err := Fit(synth(8, ranges(eager, rendezvous), sizes, 8, 5, noise{Rel: 0.002}), FitOptions{Quantile: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("fit of %d sizes took %v", len(sizes), d)
	}
	if len(pf.Ranges) != 2 || pf.Ranges[1].MinBytes != 12289 || pf.EagerLimit == nil || *pf.EagerLimit != 12288 {
		t.Errorf("ranges %+v, S %v: want a change after 12288 bytes", pf.Ranges, pf.EagerLimit)
	}
}

// TestFitNoisyProtocolChange is issue 19's acceptance case: a PRTT table
// with 0.5 % noise (and 3 % outliers) and a protocol change gives L, o, g
// and G of both ranges within 2 %. The noise is symmetric, so the median
// is the statistic to fit; the seeds are fixed.
func TestFitNoisyProtocolChange(t *testing.T) {
	eagerO0 := eager
	eagerO0.OverheadPerByte = 0 // O >= 0 binds now and then
	for _, tc := range []struct {
		name   string
		ranges []Range
	}{{"paper", ranges(eager, rendezvous)}, {"O = 0 below", ranges(eagerO0, rendezvous)}} {
		for seed := uint64(1); seed <= 5; seed++ {
			t.Run(fmt.Sprintf("%s/seed=%d", tc.name, seed), func(t *testing.T) {
				tab := synth(seed, tc.ranges, paperSizes, 8, 200, noise{Rel: 0.005, Outliers: 0.03})
				pf, err := Fit(tab, FitOptions{Quantile: 0.5})
				if err != nil {
					t.Fatal(err)
				}
				if len(pf.Ranges) != 2 || pf.EagerLimit == nil || *pf.EagerLimit != 12288 {
					t.Fatalf("ranges %+v, S %v: want 2, split after 12288 bytes", pf.Ranges, pf.EagerLimit)
				}
				for i, want := range tc.ranges {
					got := pf.Ranges[i]
					for _, v := range []struct {
						name      string
						got, want float64
					}{{"L", got.L, want.L}, {"o", got.Overhead, want.Overhead}, {"g", got.Gap, want.Gap}, {"G", got.GapPerByte, want.GapPerByte}} {
						if e := math.Abs(v.got/v.want - 1); e > 0.02 {
							t.Errorf("range %d: %s = %.4g, want %.4g (%.2f %% off)", i, v.name, v.got, v.want, 100*e)
						}
					}
					if got.OverheadPerByte < 0 {
						t.Errorf("range %d: O = %g < 0", i, got.OverheadPerByte)
					}
				}
				for _, p := range pf.Fit.PingPong {
					if math.Abs(p.Ratio-1) > 0.02 {
						t.Errorf("ping-pong at %d bytes: simulated/measured %.4f", p.SizeBytes, p.Ratio)
					}
				}
			})
		}
	}
}

// TestFitMean: fitted at the mean, a table with 0.5 % symmetric noise
// gives L, o, g and G within 2 % as the median does, and slow rounds
// (outliers that only add time) raise every fitted cost by what they add
// on average, where the median ignores them; a process descheduled for
// beyond MeanCutoff times the median counts for nothing.
func TestFitMean(t *testing.T) {
	want := ranges(eager, rendezvous)
	check := func(name string, tab Table, scale float64) {
		t.Helper()
		pf, err := Fit(tab, FitOptions{Mean: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if pf.Fit.Statistic != "mean" || pf.Fit.Quantile != 0 || !strings.HasPrefix(pf.Fit.Describe(), "the mean") {
			t.Errorf("%s: fit report says %q %g", name, pf.Fit.Statistic, pf.Fit.Quantile)
		}
		if len(pf.Ranges) != 2 || pf.EagerLimit == nil || *pf.EagerLimit != 12288 {
			t.Fatalf("%s: ranges %+v, S %v: want 2, split after 12288 bytes", name, pf.Ranges, pf.EagerLimit)
		}
		for i, w := range want {
			g := pf.Ranges[i]
			for _, v := range []struct {
				name      string
				got, want float64
			}{{"L", g.L, w.L}, {"o", g.Overhead, w.Overhead}, {"g", g.Gap, w.Gap}, {"G", g.GapPerByte, w.GapPerByte}} {
				if e := math.Abs(v.got/(v.want*scale) - 1); e > 0.02 {
					t.Errorf("%s: range %d: %s = %.4g, want %.4g (%.2f %% off)", name, i, v.name, v.got, v.want*scale, 100*e)
				}
			}
		}
	}
	for seed := uint64(1); seed <= 3; seed++ {
		check(fmt.Sprintf("0.5 %% noise, seed %d", seed), synth(seed, want, paperSizes, 8, 200, noise{Rel: 0.005}), 1)
	}
	// 20 % of the rounds 1.2 to 2 times slower: 1.12 times on average.
	// The mean's ping-pong is 1.12 times the median's, and the fit
	// reproduces it.
	slow := synth(7, want, paperSizes, 8, 400, noise{Rel: 0.001, Outliers: 0.2})
	mean, err := Fit(slow, FitOptions{Mean: true})
	if err != nil {
		t.Fatal(err)
	}
	med, err := Fit(slow, FitOptions{Quantile: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range mean.Fit.PingPong {
		if r := p.MeasuredNs / med.Fit.PingPong[i].MeasuredNs; math.Abs(r/1.12-1) > 0.05 { // 20 % of 400 rounds: a few % of sampling error
			t.Errorf("slow rounds, %d bytes: mean/median round trip %.3f, want 1.12", p.SizeBytes, r)
		}
		if math.Abs(p.Ratio-1) > 0.05 {
			t.Errorf("slow rounds, %d bytes: simulated/measured mean round trip %.3f", p.SizeBytes, p.Ratio)
		}
	}
	// One round descheduled for a second at each size is left out.
	var stalled Table
	seen := map[int64]bool{}
	for _, s := range synth(1, want, paperSizes, 8, 200, noise{Rel: 0.005}) {
		if s.N == 1 && !seen[s.SizeBytes] {
			seen[s.SizeBytes] = true
			stalled = append(stalled, Sample{N: 1, SizeBytes: s.SizeBytes, PRTTNs: 1e9})
		}
		stalled = append(stalled, s)
	}
	check("a stall per size", stalled, 1)
	if _, err := Fit(slow, FitOptions{Mean: true, Quantile: 0.5}); !errors.Is(err, ErrFit) {
		t.Errorf("mean and a quantile together: %v", err)
	}
}

// TestFitRealSlowRounds fits a real calibration of Open MPI's shared
// memory (testdata/README.md) whose mean round trip at 3,072 bytes a few
// slow rounds raised above 3,584 bytes': Fit finds the protocols by the
// medians, so S is at the eager limit, just below the 4,096-byte sweep
// size (4,040 bytes in Open MPI; this table has no probes between), and
// the ranges are still fitted to the means.
func TestFitRealSlowRounds(t *testing.T) {
	tab := readGzipTable(t, "testdata/ompi-sm-slow-3072.prtt.csv.gz")
	pf, err := Fit(tab, FitOptions{Mean: true})
	if err != nil {
		t.Fatal(err)
	}
	if s := pf.EagerLimit; s == nil || *s < 3584 || *s >= 4096 {
		t.Fatalf("S %s, changes %+v: want 3584 <= S < 4096", eagerString(s), pf.Fit.Changes)
	}
	if pf.Fit.Statistic != "mean" {
		t.Errorf("fitted the %s", pf.Fit.Statistic)
	}
	// The range below S is fitted to the means: the slow rounds at 3,072
	// bytes raise its round trip above the median's.
	for _, p := range pf.Fit.Points {
		if p.SizeBytes == 3072 && !(p.HalfRTT > p.PRTT1.Median/2*1.1) {
			t.Errorf("half round trip at 3072 bytes %.0f ns, median round trip %.0f ns: not the mean", p.HalfRTT, p.PRTT1.Median)
		}
	}
}

// TestFitRealStalls fits a real table whose rounds of 192 KiB and more
// include descheduled ones, 1.5 to 42 ms longer than their size's median
// (bench/testdata/README.md): left out by MeanStall, the means follow the
// medians and the range's line follows the means; with them, the largest
// range's half round trips were 200 us off its line.
func TestFitRealStalls(t *testing.T) {
	tab := readGzipTable(t, "testdata/ompi-sm-stalls.prtt.csv.gz")
	pf, err := Fit(tab, FitOptions{Mean: true})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, p := range pf.Fit.Points {
		if p.SizeBytes < 196608 || p.N != 1 && p.PRTTN == nil {
			continue
		}
		checked++
		if med := p.PRTT1.Median / 2; p.HalfRTT > 1.1*med {
			t.Errorf("%d bytes: half round trip %.0f ns, more than 1.1 x the median's %.0f ns: the stalls are in the mean", p.SizeBytes, p.HalfRTT, med)
		}
		if math.Abs(p.HalfRTTResid) > 0.1*p.HalfRTT {
			t.Errorf("%d bytes: half round trip %.0f ns, %.0f ns off its range's line", p.SizeBytes, p.HalfRTT, p.HalfRTTResid)
		}
	}
	if checked < 8 {
		t.Fatalf("%d sizes of 192 KiB or more checked, want the table's 9", checked)
	}
}

// TestFitRealExchanges fits a real calibration with exchange rounds
// (testdata/README.md) with and without them: with them, the simulated
// exchange is within 5 % of the measured one at most sizes, where the
// fit of the round trips alone, which takes O = G, charges the sender's
// copy twice and is within 5 % at few; the ping-pong is reproduced as well
// either way.
func TestFitRealExchanges(t *testing.T) {
	tab := readGzipTable(t, "testdata/ompi-sm-exchange.prtt.csv.gz")
	var prtt Table
	for _, s := range tab {
		if !s.Exchange {
			prtt = append(prtt, s)
		}
	}
	with, err := Fit(tab, FitOptions{Mean: true})
	if err != nil {
		t.Fatal(err)
	}
	without, err := Fit(prtt, FitOptions{Mean: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(with.Fit.Exchange) != 50 || len(without.Fit.Exchange) != 0 {
		t.Fatalf("%d and %d exchanges compared, want 50 and none", len(with.Fit.Exchange), len(without.Fit.Exchange))
	}
	within := func(r float64) int { return b2i(math.Abs(r-1) <= 0.05) }
	var xWith, xWithout int
	for _, x := range with.Fit.Exchange {
		sim, err := SimulateExchange(without.SimParams(), x.SizeBytes)
		if err != nil {
			t.Fatal(err)
		}
		xWith += within(x.Ratio)
		xWithout += within(sim / x.MeasuredNs)
	}
	var ppWith, ppWithout int
	for i, p := range with.Fit.PingPong {
		ppWith += within(p.Ratio)
		ppWithout += within(without.Fit.PingPong[i].Ratio)
	}
	t.Logf("within 5 %%: exchanges %d with the exchange rounds, %d without; ping-pongs %d and %d", xWith, xWithout, ppWith, ppWithout)
	if xWith < 30 || xWithout > 10 {
		t.Errorf("exchanges within 5 %%: %d of 50 fitted with them (want at least 30), %d without (want at most 10)", xWith, xWithout)
	}
	if ppWith < ppWithout-2 {
		t.Errorf("ping-pongs within 5 %%: %d fitted with the exchanges, %d without", ppWith, ppWithout)
	}
}

// readGzipTable reads a gzipped PRTT table of testdata.
func readGzipTable(t *testing.T, path string) Table {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := ReadTable(zr, filepath.Base(strings.TrimSuffix(path, ".gz")))
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// eagerString prints a fitted S.
func eagerString(s *int64) string {
	if s == nil {
		return "none"
	}
	return fmt.Sprintf("= %d bytes", *s)
}

func TestSummarizeMean(t *testing.T) {
	for _, tc := range []struct {
		name          string
		xs            []float64
		cutoff, stall float64
		mean          float64
		rejected      int
	}{
		{"below 100 x the median", []float64{10, 12, 11, 50, 2000}, MeanCutoff, MeanStall, 20.75, 1},
		{"no bound", []float64{10, 12, 11, 50, 2000}, 0, 0, 416.6, 0},
		{"one sample", []float64{7}, MeanCutoff, MeanStall, 7, 0},
		// A round trip of 160 us descheduled for 2 ms is below 100 x
		// the median, but beyond it by more than MeanStall.
		{"a stall of a long message", []float64{160e3, 170e3, 150e3, 2.16e6}, MeanCutoff, MeanStall, 160e3, 1},
		{"the same without the stall bound", []float64{160e3, 170e3, 150e3, 2.16e6}, MeanCutoff, 0, 660e3, 0},
		{"up to the stall bound kept", []float64{160e3, 170e3, 150e3, 1.165e6}, MeanCutoff, MeanStall, 411.25e3, 0},
	} {
		s := SummarizeMean(tc.xs, tc.cutoff, tc.stall)
		if s.Q != tc.mean || s.Rejected != tc.rejected || s.Reps != len(tc.xs) {
			t.Errorf("%s: %+v, want the mean %g with %d rejected", tc.name, s, tc.mean, tc.rejected)
		}
	}
	if one := SummarizeMean([]float64{7}, MeanCutoff, MeanStall); one.SEAt(1) != 1 {
		t.Errorf("one sample: %+v", one)
	}
}
