package pattern

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// The conformance schedules were written by LogGOPSim's Schedgen; their
// names say how: PATTERN_nRANKS_dBYTES[_segmentsizeB|_nwayN][_seqtag].
const conformanceDir = "../sim/testdata/conformance"

var conformanceName = regexp.MustCompile(`^([a-z_]+?)_n(\d+)_d(\d+)(?:_segmentsize(\d+)|_nway(\d+))?(_seqtag)?\.goal$`)

// generate builds the whole schedule of a pattern in memory.
func generate(t testing.TB, name string, p Params) *goal.Schedule {
	t.Helper()
	g, err := New(name, p)
	if err != nil {
		t.Fatal(err)
	}
	s := goal.NewSchedule(g.NumRanks())
	if err := Write(g, s.AppendRank); err != nil {
		t.Fatal(err)
	}
	return s
}

// seqTags renumbers tags so that the k-th message from a rank to another
// carries tag k, on both sides (how the *_seqtag files were made).
func seqTags(s *goal.Schedule) {
	type pair struct{ a, b int32 }
	sent, recvd := map[pair]uint32{}, map[pair]uint32{}
	for r := 0; r < s.NumRanks; r++ {
		for g := s.RankStart[r]; g < s.RankStart[r+1]; g++ {
			op := &s.Ops[g]
			switch op.Kind {
			case goal.Send:
				k := pair{int32(r), op.Peer}
				op.Tag = sent[k]
				sent[k]++
			case goal.Recv:
				k := pair{op.Peer, int32(r)}
				op.Tag = recvd[k]
				recvd[k]++
			}
		}
	}
}

type conformanceCase struct {
	file    string
	pattern string
	params  Params
	seqtag  bool
}

func conformanceCases(t *testing.T) []conformanceCase {
	files, err := filepath.Glob(filepath.Join(conformanceDir, "goal", "*.goal"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance schedules in %s (%v)", conformanceDir, err)
	}
	var cases []conformanceCase
	for _, f := range files {
		m := conformanceName.FindStringSubmatch(filepath.Base(f))
		if m == nil {
			t.Fatalf("%s: name does not say how Schedgen wrote it", f)
		}
		atoi := func(s string) int {
			if s == "" {
				return 0
			}
			n, err := strconv.Atoi(s)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		cases = append(cases, conformanceCase{file: f, pattern: m[1], seqtag: m[6] != "", params: Params{
			Ranks: atoi(m[2]), Size: uint64(atoi(m[3])), Segment: uint64(atoi(m[4])), NWay: atoi(m[5]),
		}})
	}
	return cases
}

// TestSchedgenIdentical: every conformance schedule, generated again, is
// the same schedule op for op and edge for edge.
func TestSchedgenIdentical(t *testing.T) {
	for _, tc := range conformanceCases(t) {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			want, _, err := goal.ReadFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			got := generate(t, tc.pattern, tc.params)
			if tc.seqtag {
				seqTags(got)
			}
			if got.NumRanks != want.NumRanks {
				t.Fatalf("%d ranks, Schedgen wrote %d", got.NumRanks, want.NumRanks)
			}
			for r := 0; r < want.NumRanks; r++ {
				var gb, wb goal.RankBlock
				got.Block(r, &gb)
				want.Block(r, &wb)
				if !reflect.DeepEqual(gb.Ops, wb.Ops) {
					for i := range min(len(gb.Ops), len(wb.Ops)) {
						if gb.Ops[i] != wb.Ops[i] {
							t.Fatalf("rank %d op %d: %+v, Schedgen wrote %+v", r, i, gb.Ops[i], wb.Ops[i])
						}
					}
					t.Fatalf("rank %d: %d ops, Schedgen wrote %d", r, len(gb.Ops), len(wb.Ops))
				}
				if !reflect.DeepEqual(gb.DepStart, wb.DepStart) || !reflect.DeepEqual(gb.Deps, wb.Deps) {
					t.Fatalf("rank %d: edges %v %v, Schedgen wrote %v %v", r, gb.DepStart, gb.Deps, wb.DepStart, wb.Deps)
				}
			}
			if len(want.Labels) != 0 {
				t.Fatalf("Schedgen file has non-canonical labels %v", want.Labels)
			}
		})
	}
}

// TestSchedgenTimes simulates the generated schedules with every parameter
// set of expected.csv and compares with the times LogGOPSim printed.
func TestSchedgenTimes(t *testing.T) {
	f, err := os.Open(filepath.Join(conformanceDir, "expected.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]conformanceCase{}
	for _, tc := range conformanceCases(t) {
		cases[filepath.Base(tc.file)] = tc
	}
	scheds := map[string]*goal.Schedule{}
	n := 0
	for _, rec := range recs[1:] {
		tc, ok := cases[rec[1]]
		if !ok {
			continue // hand-written or non-Schedgen file
		}
		n++
		t.Run(rec[0], func(t *testing.T) {
			s := scheds[rec[1]]
			if s == nil {
				s = generate(t, tc.pattern, tc.params)
				if tc.seqtag {
					seqTags(s)
				}
				scheds[rec[1]] = s
			}
			var v [6]int64
			for i := range v {
				x, err := strconv.ParseInt(rec[2+i], 10, 64)
				if err != nil {
					t.Fatal(err)
				}
				v[i] = x
			}
			p := sim.Params{L: float64(v[0]), Overhead: float64(v[1]), Gap: float64(v[2]), GapPerByte: float64(v[3]), OverheadPerByte: float64(v[4]), EagerLimit: v[5]}
			res, err := sim.Run(s, sim.Options{Params: p})
			if err != nil {
				t.Fatal(err)
			}
			if want := rec[8]; strconv.FormatInt(res.MaxTime, 10) != want {
				t.Fatalf("max time %d ns, LogGOPSim %s ns", res.MaxTime, want)
			}
			if rec[10] == "no" && rec[9] != "" {
				var got []string
				for _, x := range res.PerRank {
					got = append(got, strconv.FormatInt(x, 10))
				}
				if g := strings.Join(got, ";"); g != rec[9] {
					t.Fatalf("per-rank times %s, LogGOPSim %s", g, rec[9])
				}
			}
		})
	}
	if n < 50 {
		t.Fatalf("only %d Schedgen rows in expected.csv", n)
	}
}
