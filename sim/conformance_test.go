package sim

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// conformanceRow is one row of testdata/conformance/expected.csv or
// edge/expected.csv: a schedule, parameters and LogGOPSim's times.
type conformanceRow struct {
	name, file     string
	p              Params
	max            int64 // -1 if not given
	perRank        []int64
	orderSensitive bool
}

func readConformance(t *testing.T, path string) []conformanceRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[h] = i
	}
	num := func(rec []string, name string) int64 {
		v, err := strconv.ParseInt(rec[col[name]], 10, 64)
		if err != nil {
			t.Fatalf("%s: column %s: %v", path, name, err)
		}
		return v
	}
	var rows []conformanceRow
	for _, rec := range recs[1:] {
		// expected.csv names files in goal/, edge/expected.csv files beside it.
		dir := filepath.Dir(path)
		if filepath.Base(dir) != "edge" {
			dir = filepath.Join(dir, "goal")
		}
		r := conformanceRow{name: rec[col["case"]], file: filepath.Join(dir, rec[col["goal"]]), max: -1}
		r.p = Params{L: float64(num(rec, "L")), Overhead: float64(num(rec, "o")), Gap: float64(num(rec, "g")), GapPerByte: float64(num(rec, "G")),
			OverheadPerByte: float64(num(rec, "O")), EagerLimit: num(rec, "S")}
		if i, ok := col["max_time_ns"]; ok && rec[i] != "" {
			r.max = num(rec, "max_time_ns")
		}
		if s := rec[col["per_rank_times_ns"]]; s != "" {
			for _, f := range strings.Split(s, ";") {
				v, err := strconv.ParseInt(f, 10, 64)
				if err != nil {
					t.Fatalf("%s: %s: %v", path, r.name, err)
				}
				r.perRank = append(r.perRank, v)
			}
		}
		if i, ok := col["order_sensitive"]; ok {
			r.orderSensitive = rec[i] == "yes"
		}
		rows = append(rows, r)
	}
	return rows
}

// conformanceGoals returns the GOAL files of the conformance data: the
// schedules of LogGOPSim's rows, then the edge cases.
func conformanceGoals() []string {
	files, _ := filepath.Glob("testdata/conformance/goal/*.goal")
	edge, _ := filepath.Glob("testdata/conformance/edge/*.goal")
	return append(files, edge...)
}

func loadText(t testing.TB, path string) *goal.Schedule {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := goal.ReadText(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestConformance runs every row of LogGOPSim's printed results and the
// edge cases, with both event queues, and demands the exact times; and
// once more counting ps instead of ns, which must not change them.
func TestConformance(t *testing.T) {
	rows := readConformance(t, "testdata/conformance/expected.csv")
	rows = append(rows, readConformance(t, "testdata/conformance/edge/expected.csv")...)
	if len(rows) < 90 {
		t.Fatalf("only %d conformance rows", len(rows))
	}
	cache := map[string]*goal.Schedule{}
	for _, row := range rows {
		for _, v := range []struct {
			suffix string
			q      QueueKind
			ps     bool
		}{{"", RadixQueue, false}, {"/heap", HeapQueue, false}, {"/ps", RadixQueue, true}} {
			name, q := row.name+v.suffix, v.q
			t.Run(name, func(t *testing.T) {
				s := cache[row.file]
				if s == nil {
					s = loadText(t, row.file)
					cache[row.file] = s
				}
				res, err := Run(s, Options{Params: row.p, Queue: q, psAlways: v.ps})
				if err != nil {
					t.Fatal(err)
				}
				if row.max >= 0 && res.MaxTime != row.max {
					t.Errorf("max time %d ns, LogGOPSim %d ns", res.MaxTime, row.max)
				}
				if row.perRank != nil && !row.orderSensitive {
					if len(row.perRank) != len(res.PerRank) {
						t.Fatalf("%d ranks, expected %d", len(res.PerRank), len(row.perRank))
					}
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
