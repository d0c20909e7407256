package bench

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gopsim/gopsim/sim"
)

// TestFitModels fits the model family to a synthetic LogGOPS table and
// checks each section against the parameters it was made from.
func TestFitModels(t *testing.T) {
	r := Range{L: 3200, Overhead: 1300, Gap: 5140, GapPerByte: 0.73, OverheadPerByte: 0.21, MaxBytes: MaxMessageBytes}
	sizes := []int64{1, 1024, 4096, 16384, 65536}
	tab := synth(1, []Range{r}, sizes, 8, 5, noise{})
	pf, err := Fit(tab, FitOptions{MaxRanges: 1})
	if err != nil {
		t.Fatal(err)
	}
	mf, err := FitModels(pf, tab, ModelInputs{})
	if err != nil {
		t.Fatal(err)
	}
	near := func(name string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 1 { // the table holds whole ns

			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// Half round trip L + 2o + (s-1)G = (L + 2o - G) + s·G.
	near("alpha", mf.AlphaBeta.Alpha, r.L+2*r.Overhead-r.GapPerByte)
	near("beta", mf.AlphaBeta.Beta, r.GapPerByte)
	near("plogp L", mf.PLogP.L, r.L)
	if len(mf.PLogP.Points) != len(sizes) {
		t.Fatalf("%d plogp points, want %d", len(mf.PLogP.Points), len(sizes))
	}
	for i, p := range mf.PLogP.Points {
		b := float64(sizes[i] - 1)
		near("o_s", p.Os, r.Overhead+b*r.OverheadPerByte)
		near("o_r", p.Or, r.Overhead+b*(r.GapPerByte-r.OverheadPerByte))
		near("g", p.Gap, r.Gap+b*r.GapPerByte)
	}
	if mf.LogfP != nil || mf.Log3P != nil {
		t.Errorf("sections without their measurements: %+v %+v", mf.LogfP, mf.Log3P)
	}
	// The file is a parameter file sim reads whole.
	var buf bytes.Buffer
	if err := mf.Write(&buf); err != nil {
		t.Fatal(err)
	}
	p, err := sim.ReadParams(&buf, "models.json", sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if p.PLogP == nil || p.AlphaBeta == nil || p.L != float64(pf.L) {
		t.Errorf("read back %+v", p)
	}
}

// burstTable is LogfP's P:1 round trip RTT(P) = 2L + o + P·o while the
// CPU limits and 2L + 2o + (P-f)·g once the gap does, plus noise.
func burstTable(L, o, g float64, f, maxP, reps int, rel float64) Table {
	var t Table
	for p := 1; p <= maxP; p++ {
		v := 2*L + o + max(float64(p)*o, o+float64(p-f)*g)
		for k := range reps {
			x := v * (1 + rel*math.Sin(float64(7*p+13*k)))
			t = append(t, Sample{N: p, SizeBytes: 8, PRTTNs: math.Round(x)})
		}
	}
	return t
}

func TestFitLogfP(t *testing.T) {
	for _, tc := range []struct {
		name    string
		o, g    float64
		f, maxP int
		want    int64
	}{
		{"f=4", 1000, 3000, 4, 24, 4},
		{"f=8", 500, 2000, 8, 32, 8},
		{"f=2", 1000, 5000, 2, 16, 2},
		{"f=1 (LogGP)", 1000, 3000, 1, 16, 1},
		{"no kink within the bursts", 1000, 3000, 40, 16, 16},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := burstTable(2000, tc.o, tc.g, tc.f, tc.maxP, 5, 1e-4)
			f, fit, err := fitLogfP(tab, tc.g)
			if err != nil {
				t.Fatal(err)
			}
			if f.F != tc.want {
				t.Errorf("f = %d, want %d (fit %+v)", f.F, tc.want, fit)
			}
		})
	}
	if _, _, err := fitLogfP(burstTable(2000, 1000, 3000, 4, 2, 3, 0), 3000); !errors.Is(err, ErrFit) {
		t.Errorf("two values of P: %v", err)
	}
}

// fakeProber answers every round with RTT(P) of burstTable.
type fakeProber struct{}

func (fakeProber) Rounds(ctx context.Context, size int64, rounds []Round, res []Result) error {
	for i, r := range rounds {
		p := float64(r.N)
		res[i] = Result{PRTT: time.Duration(4000 + 1000 + max(p*1000, 1000+(p-4)*3000))}
	}
	return nil
}

// relaunchCounter is fakeProber that records, per launch, the sizes it
// measured.
type relaunchCounter struct {
	fakeProber
	sizes [][]int64
	fail  bool
}

func (r *relaunchCounter) Rounds(ctx context.Context, size int64, rounds []Round, res []Result) error {
	if len(r.sizes) == 0 {
		r.sizes = append(r.sizes, nil)
	}
	l := len(r.sizes) - 1
	if n := len(r.sizes[l]); n == 0 || r.sizes[l][n-1] != size {
		r.sizes[l] = append(r.sizes[l], size)
	}
	return r.fakeProber.Rounds(ctx, size, rounds, res)
}

func (r *relaunchCounter) Relaunch(ctx context.Context) error {
	if r.fail {
		return errors.New("no more processes")
	}
	r.sizes = append(r.sizes, nil)
	return nil
}

// TestMeasureLaunches checks that Config.Launches spreads the passes over
// fresh launches in order (pass i in launch i*Launches/Passes), and that
// a prober that cannot relaunch, or fails to, is an error.
func TestMeasureLaunches(t *testing.T) {
	sizes := []int64{8, 64}
	tests := []struct {
		passes, launches int
		want             [][]int64 // sizes per launch
	}{
		{3, 1, [][]int64{{8, 64, 8, 64, 8, 64}}},
		{3, 3, [][]int64{{8, 64}, {8, 64}, {8, 64}}},
		{4, 2, [][]int64{{8, 64, 8, 64}, {8, 64, 8, 64}}},
		{3, 2, [][]int64{{8, 64, 8, 64}, {8, 64}}},
	}
	for _, tc := range tests {
		r := &relaunchCounter{}
		tab, err := Measure(context.Background(), r, Config{Sizes: sizes, Reps: 6, Warmup: 1, N: 4, Passes: tc.passes, Launches: tc.launches})
		if err != nil {
			t.Fatalf("%d passes in %d launches: %v", tc.passes, tc.launches, err)
		}
		if !reflect.DeepEqual(r.sizes, tc.want) {
			t.Errorf("%d passes in %d launches: measured %v, want %v", tc.passes, tc.launches, r.sizes, tc.want)
		}
		if len(tab) != 4*6*len(sizes) {
			t.Errorf("%d passes in %d launches: %d rows, want %d", tc.passes, tc.launches, len(tab), 4*6*len(sizes))
		}
	}
	if _, err := Measure(context.Background(), fakeProber{}, Config{Sizes: sizes, Passes: 2, Launches: 2}); err == nil || !strings.Contains(err.Error(), "cannot start afresh") {
		t.Errorf("a prober without Relaunch: %v", err)
	}
	_, err := Measure(context.Background(), &relaunchCounter{fail: true}, Config{Sizes: sizes, Passes: 2, Launches: 2})
	if err == nil || !strings.Contains(err.Error(), "launch 2 of 2: no more processes") {
		t.Errorf("a failed relaunch: %v", err)
	}
}

func TestMeasureBurst(t *testing.T) {
	tab, err := MeasureBurst(context.Background(), fakeProber{}, BurstConfig{MaxP: 12, Reps: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab) != 36 || tab[0].N != 1 || tab[35].N != 12 || tab[0].SizeBytes != 8 {
		t.Fatalf("table of %d rows: %v", len(tab), tab)
	}
	f, _, err := fitLogfP(tab, 3000)
	if err != nil || f.F != 4 {
		t.Errorf("f = %+v, %v; want 4", f, err)
	}
	if _, err := MeasureBurst(context.Background(), fakeProber{}, BurstConfig{MaxP: 2}); err == nil {
		t.Error("MaxP 2 accepted")
	}
}

func TestMeasurePack(t *testing.T) {
	tab, err := MeasurePack(PackConfig{Sizes: []int64{1024, 4096}, Strides: []int64{8, 1024}, Reps: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(tab) != 12 {
		t.Fatalf("%d rows, want 12", len(tab))
	}
	p := tab.Params()
	if len(p.Points) != 4 || p.Points[0].Stride != 8 || p.Points[0].Size != 1024 || p.Points[3].Stride != 1024 {
		t.Errorf("points %+v", p.Points)
	}
	// pack and unpack move the elements.
	src := []byte("abcdefgh--------ijklmnop--------")
	dst := make([]byte, 16)
	pack(dst, src, 16)
	if string(dst) != "abcdefghijklmnop" {
		t.Errorf("pack gives %q", dst)
	}
	back := make([]byte, 32)
	unpack(back, dst, 16)
	if string(back[:8]) != "abcdefgh" || string(back[16:24]) != "ijklmnop" {
		t.Errorf("unpack gives %q", back)
	}
	if _, err := MeasurePack(PackConfig{Sizes: []int64{4}}); err == nil {
		t.Error("a 4-byte message accepted")
	}
}

func TestPackTable(t *testing.T) {
	good := PackHeader + "\n# comment\n16384,1024,9120,8870\n16384,1024,9000,8800\n"
	tab, err := ReadPackTable(strings.NewReader(good), "p.csv")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tab.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	again, err := ReadPackTable(&buf, "again.csv")
	if err != nil || len(again) != 2 || again[1] != tab[1] {
		t.Fatalf("round trip: %v %v", again, err)
	}
	if p := tab.Params().Points[0]; p.Pack != 9060 || p.Unpack != 8835 {
		t.Errorf("medians %+v", p)
	}
	for _, tc := range []struct{ name, in, err string }{
		{"empty", "", "p.csv:1:1: empty table"},
		{"header", "a,b\n", "p.csv:1:1: header"},
		{"fields", PackHeader + "\n1,8,3\n", "p.csv:2:5: 3 fields"},
		{"stride", PackHeader + "\n16,4,1,1\n", "p.csv:2:4: stride_bytes=4 outside 8.."},
		{"integer", PackHeader + "\n16,8,x,1\n", "p.csv:2:6: pack_ns: \"x\""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadPackTable(strings.NewReader(tc.in), "p.csv")
			if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrTable) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
		})
	}
}

func TestPredictHalfRTT(t *testing.T) {
	p := sim.DefaultParams()
	for _, tc := range []struct {
		model sim.Model
		want  []float64 // 1 byte and 1025 bytes
	}{
		// L + 2o + (s-1)G: 5500 and 5500 + 1024*6.
		{sim.LogGOPS, []float64{5500, 11644}},
		{sim.LogP, []float64{5500, 5500}},
		// alpha + s*beta with alpha = L+2o, beta = G.
		{sim.AlphaBeta, []float64{5506, 11650}},
	} {
		t.Run(tc.model.String(), func(t *testing.T) {
			got, err := PredictHalfRTT(p, tc.model, []int64{1, 1025}, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got[0] != tc.want[0] || got[1] != tc.want[1] {
				t.Errorf("half round trips %v, want %v", got, tc.want)
			}
		})
	}
	var buf bytes.Buffer
	if err := WriteModelPlot(&buf, "png", p, []int64{1, 64, 4096}, 1024, []PointFit{{SizeBytes: 64, HalfRTT: 6000}}); err != nil || buf.Len() == 0 {
		t.Errorf("plot: %d bytes, %v", buf.Len(), err)
	}
}

var modelsPlot = flag.Bool("models-plot", false, "rewrite ../docs/models.png from ../docs/models-params.json")

// TestModelsPlotDocs draws the plot of docs/models.md (with
// -models-plot; otherwise it checks that the parameter file reads).
func TestModelsPlotDocs(t *testing.T) {
	p, err := sim.ReadParamsFile("../docs/models-params.json", sim.DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	if !*modelsPlot {
		return
	}
	if err := WriteModelPlotFile("../docs/models.png", p, PlotSizes(), 1024, nil); err != nil {
		t.Fatal(err)
	}
}
