package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/gopsim/gopsim/goal"
)

// TestModels runs the hand-computed cases in testdata/models: each is
//
//	params
//	<JSON parameter file, read on top of LogGOPSim's defaults>
//	----
//	ok
//
// which sets the parameters of the runs after it in the file, or
//
//	run model=NAME [L=..] [o=..] [g=..] [G=..] [O=..] [S=..]
//	<GOAL text>
//	----
//	<per-rank finishing times, or the error>
//
// Every run goes through both event queues, which must agree.
func TestModels(t *testing.T) {
	datadriven.Walk(t, "testdata/models", func(t *testing.T, path string) {
		base := DefaultParams()
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			switch d.Cmd {
			case "params":
				p, err := ReadParams(strings.NewReader(d.Input), d.Pos, DefaultParams())
				if err != nil {
					return err.Error() + "\n"
				}
				base = p
				return "ok\n"
			case "run":
			default:
				t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			}
			p := base
			var model Model
			for _, a := range d.CmdArgs {
				if len(a.Vals) != 1 {
					t.Fatalf("%s: argument %s needs one value", d.Pos, a.Key)
				}
				if a.Key == "model" {
					m, err := ParseModel(a.Vals[0])
					if err != nil {
						t.Fatalf("%s: %v", d.Pos, err)
					}
					model = m
					continue
				}
				if a.Key == "S" {
					v, err := strconv.ParseInt(a.Vals[0], 10, 64)
					if err != nil {
						t.Fatalf("%s: %v", d.Pos, err)
					}
					p.EagerLimit = v
					continue
				}
				v, err := strconv.ParseFloat(a.Vals[0], 64)
				if err != nil {
					t.Fatalf("%s: %v", d.Pos, err)
				}
				dst := map[string]*float64{"L": &p.L, "o": &p.Overhead, "g": &p.Gap, "G": &p.GapPerByte, "O": &p.OverheadPerByte}[a.Key]
				if dst == nil {
					t.Fatalf("%s: unknown parameter %s", d.Pos, a.Key)
				}
				*dst = v
			}
			s, err := goal.ReadText(strings.NewReader(d.Input), d.Pos)
			if err != nil {
				return "parse error: " + err.Error() + "\n"
			}
			return runBothQueues(t, d.Pos, s, Options{Params: p, Model: model})
		})
	})
}

// runBothQueues runs s with both event queues and returns the per-rank
// times (or the deadlock) they agree on.
func runBothQueues(t *testing.T, pos string, s *goal.Schedule, opt Options) string {
	t.Helper()
	out := [2]string{}
	for i, q := range []QueueKind{RadixQueue, HeapQueue} {
		opt.Queue = q
		res, err := Run(s, opt)
		var b strings.Builder
		if err != nil {
			var dl *DeadlockError
			if !errors.As(err, &dl) {
				t.Fatalf("%s: error is not a DeadlockError: %v", pos, err)
			}
			b.WriteString(err.Error() + "\n")
		} else {
			for r, tm := range res.PerRank {
				fmt.Fprintf(&b, "rank %d: %d ns\n", r, tm)
			}
			fmt.Fprintf(&b, "max: %d ns at rank %d\n", res.MaxTime, res.MaxRank)
		}
		out[i] = b.String()
	}
	if out[0] != out[1] {
		t.Fatalf("%s: radix queue and heap disagree:\n%s\nvs\n%s", pos, out[0], out[1])
	}
	return out[0]
}

// TestModelsConformance checks that LogGOPS chosen by name stays
// LogGOPSim-exact on every conformance row, and that the models' own
// engine path gives the same times when its parameters make it LogGOPS:
// LogfP with f=1 and log3P without non-contiguous messages.
func TestModelsConformance(t *testing.T) {
	rows := readConformance(t, "testdata/conformance/expected.csv")
	rows = append(rows, readConformance(t, "testdata/conformance/edge/expected.csv")...)
	cache := map[string]*goal.Schedule{}
	for _, name := range []string{"loggops", "logfp", "log3p"} {
		model, err := ParseModel(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, row := range rows {
			t.Run(name+"/"+row.name, func(t *testing.T) {
				s := cache[row.file]
				if s == nil {
					s = loadText(t, row.file)
					cache[row.file] = s
				}
				p := row.p
				p.LogfP = &LogfPParams{F: 1}
				p.Log3P = &Log3PParams{Points: []Log3PPoint{{Size: 1, Stride: 8, Pack: 1e6, Unpack: 1e6}}}
				res, err := Run(s, Options{Params: p, Model: model})
				if err != nil {
					t.Fatal(err)
				}
				if row.max >= 0 && res.MaxTime != row.max {
					t.Errorf("max time %d ns, LogGOPSim %d ns", res.MaxTime, row.max)
				}
				if row.perRank != nil && !row.orderSensitive {
					for r, want := range row.perRank {
						if res.PerRank[r] != want {
							t.Errorf("rank %d: %d ns, expected %d ns", r, res.PerRank[r], want)
						}
					}
				}
			})
		}
	}
}

func TestParseModel(t *testing.T) {
	for _, m := range Models() {
		got, err := ParseModel(strings.ToUpper(m.String()))
		if err != nil || got != m {
			t.Errorf("ParseModel(%q) = %v, %v", m, got, err)
		}
	}
	if _, err := ParseModel("logpp"); !errors.Is(err, ErrModel) || !strings.Contains(err.Error(), "alphabeta") {
		t.Errorf("ParseModel(logpp): %v", err)
	}
	if len(Models()) != 8 || Models()[0] != LogGOPS {
		t.Errorf("Models() = %v", Models())
	}
}

func TestStrideOf(t *testing.T) {
	for _, tc := range []struct {
		label  string
		stride uint64
		ok     bool
	}{
		{"stride1024", 1024, true},
		{"stride8_halo_x", 8, true},
		{"stride0", 0, true},
		{"stride", 0, false},
		{"stride_8", 0, false},
		{"stridex8", 0, false},
		{"l12", 0, false},
		{"stride99999999999999999999", 0, false},
	} {
		t.Run(tc.label, func(t *testing.T) {
			d, ok := StrideOf(tc.label)
			if d != tc.stride || ok != tc.ok {
				t.Errorf("StrideOf(%q) = %d, %v; want %d, %v", tc.label, d, ok, tc.stride, tc.ok)
			}
		})
	}
}

func TestInterp(t *testing.T) {
	f := newInterp([]uint64{10, 20, 40}, []float64{100, 300, 200}, 1)
	for _, tc := range []struct {
		s    uint64
		want int64
	}{{0, 100}, {10, 100}, {15, 200}, {20, 300}, {30, 250}, {40, 200}, {80, 0}, {1000, 0}, {60, 100}} {
		if got := f.at(tc.s); got != tc.want {
			t.Errorf("at(%d) = %d, want %d", tc.s, got, tc.want)
		}
	}
	one := newInterp([]uint64{5}, []float64{7}, 1)
	if one.at(0) != 7 || one.at(1<<40) != 7 {
		t.Errorf("one point: %d %d", one.at(0), one.at(1<<40))
	}
	big := newInterp([]uint64{1, 2}, []float64{0, MaxParam}, 1000)
	if got := big.at(MaxMessage); got != tooLong {
		t.Errorf("steep extrapolation: %d, want tooLong (%d), the cost beyond MaxTime", got, int64(tooLong))
	}
}

func TestModelParamsDefaults(t *testing.T) {
	p := DefaultParams()
	ab := p.ModelParams(AlphaBeta).AlphaBeta
	if ab == nil || ab.Alpha != 5500 || ab.Beta != 6 {
		t.Errorf("alphabeta defaults %+v, want alpha 5500 beta 6", ab)
	}
	if f := p.ModelParams(LogfP).LogfP; f == nil || f.F != 1 {
		t.Errorf("logfp defaults %+v", f)
	}
	if q := p.ModelParams(LogGOPS); q.AlphaBeta != nil || q.LogfP != nil || q.PLogP != nil || q.Log3P != nil {
		t.Errorf("LogGOPS keeps model sections: %+v", q)
	}
	// With size ranges, the default PLogP table steps where they do.
	p.Ranges = []Range{{MinBytes: 0, MaxBytes: 100, L: 2500, Overhead: 1000, Gap: 500, GapPerByte: 2}}
	pl := p.ModelParams(PLogP).PLogP
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	want := []PLogPPoint{{1, 1000, 1000, 500}, {100, 1000, 1198, 698}, {101, 1500, 2100, 1600}, {65637, 1500, 395316, 394816}}
	if fmt.Sprint(pl.Points) != fmt.Sprint(want) {
		t.Errorf("plogp default table %v, want %v", pl.Points, want)
	}
}

func TestReadModelParams(t *testing.T) {
	for _, tc := range []struct {
		name, json, err string
	}{
		{"alphabeta", `{"alphabeta": {"alpha_ns": 10, "beta_ns_per_byte": 0.5}}`, ""},
		{"unknown key in a section", `{"logfp": {"f": 2, "g_ns": 3}}`, `p.json:1:20: unknown key "logfp.g_ns" (keys here: f, o_burst_ns`},
		{"unknown section", `{"logpp": {}}`, `p.json:1:2: unknown key "logpp"`},
		{"f zero", `{"logfp": {"f": 0}}`, "f=0 outside"},
		{"plogp unsorted", `{"plogp": {"L_ns": 1, "points": [{"s_bytes": 5}, {"s_bytes": 5}]}}`, "sizes must ascend"},
		{"plogp empty", `{"plogp": {"L_ns": 1}}`, "no points"},
		{"log3p negative", `{"log3p": {"points": [{"s_bytes": 5, "stride_bytes": 8, "pack_ns": -1}]}}`, "cost outside"},
		{"log3p repeated", `{"log3p": {"points": [{"s_bytes": 5, "stride_bytes": 8}, {"s_bytes": 5, "stride_bytes": 8}]}}`, "repeats"},
		{"beta negative", `{"alphabeta": {"alpha_ns": 10, "beta_ns_per_byte": -1}}`, "want 0.."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ReadParams(strings.NewReader(tc.json), "p.json", DefaultParams())
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if p.AlphaBeta == nil || p.AlphaBeta.Beta != 0.5 {
					t.Errorf("read %+v", p.AlphaBeta)
				}
				if !strings.Contains(p.String(), "alpha=10 ns, beta=0.5 ns/byte") {
					t.Errorf("String() = %s", p)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "p.json") {
				t.Errorf("error %v, want one with %q", err, tc.err)
			}
		})
	}
}

func TestModelErrors(t *testing.T) {
	s := loadText(t, "testdata/conformance/goal/dissemination_n64_d1024.goal")
	if _, err := Run(s, Options{Params: DefaultParams(), Model: numModels}); err == nil {
		t.Error("an unknown model ran")
	}
}

// FuzzReadParamsModels: a parameter file never panics ReadParams, and
// what it accepts runs every model on a small schedule without panicking.
func FuzzReadParamsModels(f *testing.F) {
	f.Add(`{"logfp": {"f": 4, "o_burst_ns": 10, "o_recv_ns": 0, "small_bytes": 8}}`)
	f.Add(`{"plogp": {"L_ns": 1, "points": [{"s_bytes": 1, "os_ns": 1, "or_ns": 2, "g_ns": 3}, {"s_bytes": 9, "os_ns": 0, "or_ns": 1e9, "g_ns": 3}]}}`)
	f.Add(`{"log3p": {"points": [{"s_bytes": 64, "stride_bytes": 8, "pack_ns": 5, "unpack_ns": 6}]}, "S_bytes": 10}`)
	f.Add(`{"alphabeta": {"alpha_ns": 1e12, "beta_ns_per_byte": 1e12}}`)
	s, err := goal.ReadText(strings.NewReader("num_ranks 2\nrank 0 {\nstride8: send 64b to 1\nsend 1b to 1\nrecv 100b from 1\n}\nrank 1 {\nrecv 64b from 0\nrecv 1b from -1\nsend 100b to 0\n}\n"), "f.goal")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		p, err := ReadParams(strings.NewReader(in), "fuzz.json", DefaultParams())
		if err != nil {
			return
		}
		for _, m := range Models() {
			if _, err := Run(s, Options{Params: p, Model: m}); err != nil {
				t.Fatalf("%s: %v", m, err)
			}
		}
	})
}

// TestModelsWithExtras: the breakdown and the per-op record do not change
// any model's times, and the breakdown's finishing times are the run's.
func TestModelsWithExtras(t *testing.T) {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 3
rank 0 {
stride512: send 100000b to 1
b: calc 100
b requires stride512
send 8b to 2
send 8b to 2
recv 100000b from 2
}
rank 1 {
w: calc 20000
r: recv 100000b from -1
r requires w
}
rank 2 {
recv 8b from 0
recv 8b from 0
send 100000b to 0
}
`), "x.goal")
	if err != nil {
		t.Fatal(err)
	}
	p := DefaultParams()
	p.LogfP = &LogfPParams{F: 2}
	p.Log3P = &Log3PParams{Points: []Log3PPoint{{Size: 100000, Stride: 512, Pack: 7000, Unpack: 9000}}}
	for _, m := range Models() {
		t.Run(m.String(), func(t *testing.T) {
			plain, err := Run(s, Options{Params: p, Model: m})
			if err != nil {
				t.Fatal(err)
			}
			x, err := Run(s, Options{Params: p, Model: m, Breakdown: true, Record: true})
			if err != nil {
				t.Fatal(err)
			}
			for r := range plain.PerRank {
				if x.PerRank[r] != plain.PerRank[r] || x.Breakdown[r].Finish != plain.PerRank[r] {
					t.Errorf("rank %d: %d ns plain, %d ns with extras, breakdown %d ns", r, plain.PerRank[r], x.PerRank[r], x.Breakdown[r].Finish)
				}
			}
			for g, rec := range x.Record {
				if rec.End < 0 {
					t.Errorf("op %d never completed in the record", g)
				}
			}
		})
	}
}
