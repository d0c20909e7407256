package report

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/sweep"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func mustResult(t testing.TB, name string) *Result {
	t.Helper()
	r, err := ReadResult(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustTimeline(t testing.TB, name string) *Timeline {
	t.Helper()
	tl, err := ReadTimeline(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return tl
}

func mustSweep(t testing.TB, name string) *Sweep {
	t.Helper()
	s, err := ReadSweep(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// goldenInputs are the golden reports: testdata/NAME.html is the report
// of the inputs.
func goldenInputs(t testing.TB) []struct {
	name string
	in   Input
} {
	return []struct {
		name string
		in   Input
	}{
		{"ring4", Input{Result: mustResult(t, "ring4.json"), ResultFile: "ring4.json",
			Timeline: mustTimeline(t, "ring4.timeline.json"), TimelineFile: "ring4.timeline.json",
			Sweeps: []*Sweep{mustSweep(t, "sweep_latency.csv")}}},
		{"pingpong_noise_network", Input{Result: mustResult(t, "pingpong_noise_network.json"), ResultFile: "pingpong_noise_network.json"}},
		{"pingpong", Input{Result: mustResult(t, "pingpong.json"), ResultFile: "pingpong.json"}},
	}
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenInputs(t) {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.in, Options{Generator: "gopsim test"}); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", tc.name+".html")
			if *update {
				if err := os.WriteFile(golden, buf.Bytes(), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to write it)", err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				got := buf.String()
				i := 0
				for i < len(got) && i < len(want) && got[i] == want[i] {
					i++
				}
				t.Fatalf("%s differs from the report at byte %d: got %q, want %q (go test -update rewrites it)",
					golden, i, excerpt(got, i), excerpt(string(want), i))
			}
		})
	}
}

func excerpt(s string, i int) string { return s[max(i-40, 0):min(i+40, len(s))] }

// TestContent checks what each report must and must not say.
func TestContent(t *testing.T) {
	in := goldenInputs(t)
	tests := []struct {
		name        string
		in          Input
		want, never []string
	}{
		{
			name: "full",
			in:   in[0].in,
			want: []string{
				"51,638 ns (0.000052 s) at rank 0", // summary
				`data-chart="ranks"`, `data-chart="totals"`, `data-chart="critical"`, `data-chart="timeline"`, `data-chart="sweep"`,
				"<td>bandwidth</td>", "Every rank", "rank 0 / cpu 0",
				`"x":"L_ns","logx":true`, "o_ns=1500 G_ns_per_byte=6",
			},
			never: []string{"No timeline given", "No sweep results given", "Not in the result", `data-chart="histogram"`},
		},
		{
			name:  "noise and network",
			in:    in[1].in,
			want:  []string{"period_length_ns", "2,287 ns", "H0-&gt;S0", "star: 2 hosts &lt;H0, H1&gt; on switch S0", "Not in the result", "No timeline given", "No sweep results given"},
			never: []string{`data-chart="totals"`, "Every rank"},
		},
		{
			name: "today's fields only",
			in:   in[2].in,
			want: []string{"no noise model", "no congestion model", "no per-rank breakdown", "Not in the result", "No timeline given", "The slowest ranks"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Write(&buf, tc.in, Options{}); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("report lacks %q", w)
				}
			}
			for _, w := range tc.never {
				if strings.Contains(out, w) {
					t.Errorf("report has %q", w)
				}
			}
			for _, w := range []string{"http://", "https://"} {
				for _, line := range strings.Split(out, "\n") {
					if strings.Contains(line, w) && !strings.Contains(line, "http://www.w3.org/2000/svg") {
						t.Errorf("report refers to the network: %q", line)
					}
				}
			}
		})
	}
}

// TestEscaping: strings from the inputs cannot inject markup or script.
func TestEscaping(t *testing.T) {
	r := mustResult(t, "ring4.json")
	evil := `</script><script>alert("x")</script><img src=x onerror=alert(1)>`
	r.Input = evil
	r.CriticalPath.Steps[0].Label = evil
	r.Network = &Network{Type: "flow", Topology: evil, HottestLinks: []Link{{Link: evil, From: evil, To: evil}}}
	r.Noise = &Noise{Config: map[string]any{evil: evil}}
	tl := mustTimeline(t, "ring4.timeline.json")
	tl.Events[0].Args["name"] = evil
	tl.Events = append(tl.Events, TraceEvent{Name: evil, Cat: evil, Ph: "X", Ts: 1, Dur: 1, Pid: "0", Tid: "0"})
	var buf bytes.Buffer
	if err := Write(&buf, Input{Result: r, Timeline: tl, ResultFile: evil}, Options{Title: evil, Generator: evil}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, bad := range []string{"<script>alert", "<img src=x", `</script><script>alert`} {
		if strings.Contains(out, bad) {
			t.Errorf("report holds unescaped %q", bad)
		}
	}
	if got := strings.Count(out, "<script"); got != 2 {
		t.Errorf("%d <script elements, want 2 (data and code)", got)
	}
}

// TestLargeRun: beyond BarRanks ranks the report shows the slowest ranks
// and a histogram, and the timeline a subset of the ranks.
func TestLargeRun(t *testing.T) {
	const n = 500
	r, tl := largeRun(n)
	p, err := build(Input{Result: r, Timeline: tl}, Options{Slowest: 10, TimelineRanks: 8}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	rc := p.Data.Ranks
	if !rc.Large || rc.Hist == nil || len(rc.Bars) != 10 {
		t.Fatalf("large = %v, histogram %v, %d bars; want a histogram and 10 bars", rc.Large, rc.Hist != nil, len(rc.Bars))
	}
	sum := 0
	for _, c := range rc.Hist.Counts {
		sum += c
	}
	if sum != n {
		t.Errorf("histogram counts %d ranks, want %d", sum, n)
	}
	if rc.Bars[0].Rank != r.MaxRank || rc.Bars[0].Finish != r.MaxTime {
		t.Errorf("first bar is rank %d at %d ns, want the slowest rank %d at %d", rc.Bars[0].Rank, rc.Bars[0].Finish, r.MaxRank, r.MaxTime)
	}
	tc := p.Data.Timeline
	if tc == nil || len(tc.Tracks) != 8 {
		t.Fatalf("timeline tracks: %v, want 8", tc)
	}
	if !strings.Contains(tc.Tracks[0], "rank") || !slices.ContainsFunc(tc.Tracks, func(s string) bool { return s == fmt.Sprintf("rank %d / cpu 0", r.MaxRank) }) {
		t.Errorf("the slowest rank %d is not on the timeline: %v", r.MaxRank, tc.Tracks)
	}
	if !strings.Contains(p.TimelineNote, "Showing 8 of the timeline's 500 ranks") {
		t.Errorf("timeline note %q", p.TimelineNote)
	}
	p2, err := build(Input{Result: r, Timeline: tl}, Options{TimelineSelect: []int{3, 4}, TimelineEvents: 5}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if got := len(p2.Data.Timeline.Tracks); got != 2 {
		t.Errorf("--ranks 3,4: %d tracks", got)
	}
	if got := len(p2.Data.Timeline.Ev) / 5; got != 5 {
		t.Errorf("%d ops drawn, want the bound 5", got)
	}
	if !strings.Contains(p2.TimelineNote, "Only the first 5 ops") {
		t.Errorf("timeline note %q", p2.TimelineNote)
	}
}

// largeRun is an n-rank run: rank r computes, sends to r+1 and receives
// from r-1; rank n*2/3 is the slowest.
func largeRun(n int) (*Result, *Timeline) {
	r := &Result{Input: "synthetic", Format: "binary", NumRanks: n, NumOps: int64(3 * n), CPUs: 1, NICs: 1, Model: "loggops",
		Params: Params{L: 2500, Overhead: 1500, Gap: 1000, GapPerByte: 6, EagerLimit: 65535}, Events: uint64(6 * n)}
	tl := &Timeline{}
	slow := n * 2 / 3
	for rank := range n {
		calc := int64(10000 + (rank*7919)%5000)
		if rank == slow {
			calc = 30000
		}
		finish := calc + 1500 + 7638
		r.PerRank = append(r.PerRank, finish)
		if finish > r.MaxTime {
			r.MaxTime, r.MaxRank = finish, rank
		}
		pid := ID(fmt.Sprint(rank))
		tl.Events = append(tl.Events,
			TraceEvent{Name: "process_name", Ph: "M", Pid: pid, Tid: "0", Args: map[string]any{"name": fmt.Sprintf("rank %d", rank)}},
			TraceEvent{Name: "thread_name", Ph: "M", Pid: pid, Tid: "0", Args: map[string]any{"name": "cpu 0"}},
			TraceEvent{Name: "calc", Cat: "calc", Ph: "X", Ts: 0, Dur: float64(calc) / 1000, Pid: pid, Tid: "0"},
			TraceEvent{Name: "send", Cat: "send overhead", Ph: "X", Ts: float64(calc) / 1000, Dur: 1.5, Pid: pid, Tid: "0"},
			TraceEvent{Name: "recv", Cat: "recv overhead", Ph: "X", Ts: float64(calc)/1000 + 1.5, Dur: 7.638, Pid: pid, Tid: "0"},
			TraceEvent{Name: "msg", Cat: "message", Ph: "s", ID: pid, Ts: float64(calc) / 1000, Pid: pid, Tid: "0"},
			TraceEvent{Name: "msg", Cat: "message", Ph: "f", BP: "e", ID: pid, Ts: float64(calc)/1000 + 4, Pid: ID(fmt.Sprint((rank + 1) % n)), Tid: "0"},
		)
	}
	return r, tl
}

func TestFlows(t *testing.T) {
	p, err := build(Input{Result: mustResult(t, "ring4.json"), Timeline: mustTimeline(t, "ring4.timeline.json")}, Options{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	tc := p.Data.Timeline
	// rank 3 sends at 40 µs; rank 0 receives at 44 µs.
	want := []float64{3, 40000, 0, 44000}
	found := false
	for i := 0; i+4 <= len(tc.Flows); i += 4 {
		if slices.Equal(tc.Flows[i:i+4], want) {
			found = true
		}
	}
	if len(tc.Flows) != 16 || !found {
		t.Errorf("flows %v: want 4 flows, one of them %v", tc.Flows, want)
	}
	if len(tc.Ev) != 12*5 || tc.Start != 0 || tc.End != 51638 {
		t.Errorf("%d ops from %g to %g ns; want 12 from 0 to 51638", len(tc.Ev)/5, tc.Start, tc.End)
	}
}

func TestSweepPlots(t *testing.T) {
	s := mustSweep(t, "sweep_latency.csv")
	if got, want := s.Swept(), []string{"L_ns", "o_ns", "G_ns_per_byte"}; !slices.Equal(got, want) {
		t.Fatalf("swept %v, want %v", got, want)
	}
	p, err := build(Input{Result: mustResult(t, "pingpong.json"), Sweeps: []*Sweep{s}}, Options{}.withDefaults())
	if err != nil {
		t.Fatal(err)
	}
	sc := p.Data.Sweeps[0]
	if len(sc.Plots) != 3 {
		t.Fatalf("%d plots, want one per swept parameter", len(sc.Plots))
	}
	for _, pl := range sc.Plots {
		lines, pts := len(pl.Series), 0
		for _, se := range pl.Series {
			pts += len(se.Pts)
		}
		if lines < 12 && pts != len(s.Rows) {
			t.Errorf("plot against %s: %d points, want %d", pl.X, pts, len(s.Rows))
		}
		// 7 L_ns values x 2 o_ns x 2 G_ns_per_byte: 4 lines against
		// L_ns, 14 (12 drawn) against the others.
		wantLines := map[string]int{"L_ns": 4, "o_ns": 12, "G_ns_per_byte": 12}[pl.X]
		if lines != wantLines {
			t.Errorf("plot against %s: %d lines, want %d", pl.X, lines, wantLines)
		}
	}
	if len(p.SweepNotes) != 2 {
		t.Errorf("notes %q: want the two plots with more than 12 lines", p.SweepNotes)
	}
}

func TestResultColumns(t *testing.T) {
	if !slices.Equal(resultColumns, sweep.ResultColumns) {
		t.Errorf("resultColumns %v, sweep.ResultColumns %v", resultColumns, sweep.ResultColumns)
	}
}

func TestParseResultErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/ring4.json")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, data string
		want       string // in the message
		format     bool   // wraps ErrFormat
		offset     int64  // DecodeError offset, -1 when not a DecodeError
	}{
		{name: "empty", data: "", want: "r.json: empty file", format: true, offset: -1},
		{name: "array", data: "\n [1]", want: "r.json:2:2 (byte offset 2): expected a JSON object", format: true, offset: 2},
		{name: "syntax", data: "{\n  \"num_ranks\": 2,\n  \"params\" {}\n}", want: "r.json:3:12 (byte offset 31)", offset: 31},
		{name: "truncated", data: `{"num_ranks": 2, "per_rank_ns": [1, 2`, want: "unexpected end", offset: 37},
		{name: "type", data: `{"num_ranks": "two", "params": {}, "max_time_ns": 1, "per_rank_ns": [1]}`, want: "field num_ranks: string where int was expected", format: true, offset: 19},
		{name: "trailing", data: `{"num_ranks": 1, "params": {}, "max_time_ns": 1, "per_rank_ns": [1]} {}`, want: "r.json:1:70 (byte offset 69): data after the JSON value", format: true, offset: 69},
		{name: "not a result", data: `{"traceEvents": []}`, want: `no "num_ranks" key`, format: true, offset: -1},
		{name: "model all", data: `{"num_ranks": 2, "params": {}, "models": [{"model": "loggops", "max_time_ns": 1}]}`, want: "a result of gopsim sim --model all", format: true, offset: -1},
		{name: "per rank count", data: `{"num_ranks": 3, "params": {}, "max_time_ns": 1, "per_rank_ns": [1]}`, want: "per_rank_ns has 1 times for 3 ranks", format: true, offset: -1},
		{name: "max rank", data: `{"num_ranks": 1, "max_rank": 4, "params": {}, "max_time_ns": 1, "per_rank_ns": [1]}`, want: "max_rank 4", format: true, offset: -1},
		{name: "above max", data: `{"num_ranks": 1, "params": {}, "max_time_ns": 1, "per_rank_ns": [7]}`, want: "per_rank_ns[0] = 7", format: true, offset: -1},
		{name: "step rank", data: strings.Replace(string(good), `{"rank": 3, "op": 0`, `{"rank": 9, "op": 0`, 1), want: "critical_path.steps[0].rank 9", format: true, offset: -1},
		{name: "slowest rank", data: strings.Replace(string(good), `"slowest": [0, 3, 2, 1]`, `"slowest": [0, -3]`, 1), want: "breakdown.slowest[1] = -3", format: true, offset: -1},
		{name: "good", data: string(good)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseResult([]byte(tc.data), "r.json")
			if tc.want == "" {
				if err != nil || r == nil {
					t.Fatalf("ParseResult: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "r.json") {
				t.Errorf("error %q, want it to start with the file and hold %q", err, tc.want)
			}
			if tc.format != errors.Is(err, ErrFormat) {
				t.Errorf("errors.Is(%q, ErrFormat) = %v, want %v", err, !tc.format, tc.format)
			}
			var de *DecodeError
			if errors.As(err, &de) != (tc.offset >= 0) || (de != nil && de.Offset != tc.offset) {
				t.Errorf("error %q: decode error %+v, want offset %d", err, de, tc.offset)
			}
		})
	}
}

func TestParseTimelineErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
		events           int
	}{
		{name: "object", data: `{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 0, "tid": 0}]}`, events: 1},
		{name: "array", data: `[{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": "p", "tid": 1.5}]`, events: 1},
		{name: "string id", data: `[{"ph": "s", "name": "m", "id": "0x1f", "ts": 1, "pid": 0, "tid": 0}]`, events: 1},
		{name: "no events", data: `{"foo": 1}`, want: `t.json: no "traceEvents" array`},
		{name: "no phase", data: `[{"name": "a"}]`, want: `t.json: event 0: no "ph"`},
		{name: "negative", data: `[{"ph": "X", "name": "a", "dur": -1}]`, want: "negative duration"},
		{name: "bad id", data: `[{"ph": "X", "pid": {}}]`, want: "t.json:1:"},
		{name: "syntax", data: `{"traceEvents": [}`, want: "t.json:1:18 (byte offset 17)"},
		{name: "text", data: `hello`, want: "expected a JSON object"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl, err := ParseTimeline([]byte(tc.data), "t.json")
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(tl.Events) != tc.events {
					t.Errorf("%d events, want %d", len(tl.Events), tc.events)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestParseSweepErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{name: "empty", data: "", want: "s.csv: empty file"},
		{name: "no result", data: "point,L_ns\n0,1\n", want: "s.csv:1: no max_time_ns column"},
		{name: "not a number", data: "point,L_ns,max_time_ns\n0,1,2\n1,x,3\n", want: `s.csv:3: column L_ns: "x" is not a number`},
		{name: "fields", data: "point,L_ns,max_time_ns\n0,1\n", want: "s.csv:2:"},
		{name: "twice", data: "L_ns,L_ns,max_time_ns\n", want: `column "L_ns" twice`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSweep([]byte(tc.data), "s.csv")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrFormat) {
				t.Errorf("error %v, want %q wrapping ErrFormat", err, tc.want)
			}
		})
	}
}

func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.html")
	if err := WriteFile(out, Input{Result: mustResult(t, "pingpong.json")}, Options{}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("%d files in the directory, want only report.html", len(ents))
	}
	if err := Write(&bytes.Buffer{}, Input{}, Options{}); err == nil {
		t.Error("Write without a result: no error")
	}
}

func TestLogScale(t *testing.T) {
	tests := []struct {
		name string
		v    []float64
		want bool
	}{
		{"geometric", []float64{250, 500, 1000, 2000, 4000, 8000, 16000, 250}, true},
		{"arithmetic", []float64{500, 1500, 2500}, false},
		{"two values", []float64{1, 6}, false},
		{"three decades", []float64{1, 2, 3, 5000}, true},
		{"zero", []float64{0, 10, 100, 1000, 10000}, false},
		{"short geometric", []float64{1, 2, 4}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := logScale(tc.v); got != tc.want {
				t.Errorf("logScale(%v) = %v, want %v", tc.v, got, tc.want)
			}
		})
	}
}

// TestFractionalParams: a result whose parameters have fractions of a ns
// (gopsim sim -G 100Gb/s -o 0.5) is read and its parameters shown with
// their decimals.
func TestFractionalParams(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "pingpong.json"))
	if err != nil {
		t.Fatal(err)
	}
	src := strings.Replace(string(data), `"G_ns_per_byte": 6,`, `"G_ns_per_byte": 0.08,`, 1)
	src = strings.Replace(src, `"o_ns": 1500,`, `"o_ns": 1500.5,`, 1)
	r, err := ParseResult([]byte(src), "frac.json")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, Input{Result: r}, Options{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">0.08<", ">1500.5<"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %s", want)
		}
	}
}
