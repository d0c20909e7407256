package sweep

import (
	"errors"
	"os"
	"testing"
)

// FuzzParseSpec checks that no spec, in either format, panics or hangs
// the parser, that every error is a *SpecError, and that an accepted spec
// gives valid points.
func FuzzParseSpec(f *testing.F) {
	for _, file := range []string{"../examples/sweep_latency.toml", "../examples/sweep_compute.json"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, file[len(file)-5:] == ".toml")
	}
	f.Add([]byte("input = \"a.goal\"\n[grid]\nS_bytes = {from = 1, to = 10, factor = 1.5}\n[[points]]\nL_ns = 3\n"), true)
	f.Add([]byte("input = 'a'\npoints = [{compute_scale = 0.5}, {}]\n[params]\n[[params.ranges]]\nmin_bytes = 0\nmax_bytes = 9\n"), true)
	f.Add([]byte("[[a]]\n[[a.b]]\nx = 1\n[[a]]\n[a.c]\ny = {z = [1, {w = 2}]}\n"), true)
	f.Add([]byte(`{"input": "a.goal", "grid": {"o_ns": {"from": 10, "to": 0, "step": -5}, "compute_scale": [0.1, 1e-3]}}`), false)
	f.Add([]byte(`{"input": "a", "params": {"L_ns": 1, "ranges": []}, "points": [{"L_ns": 1}, {"L_ns": 1}]}`), false)
	f.Add([]byte(`{"input": "a", "grid": {"L_ns": [1,]}}`), false)
	f.Fuzz(func(t *testing.T, data []byte, isTOML bool) {
		name := "fuzz.json"
		if isTOML {
			name = "fuzz.toml"
		}
		s, err := ParseSpec(data, name)
		if err != nil {
			var se *SpecError
			if !errors.As(err, &se) || se.File != name {
				t.Fatalf("error %v is not a *SpecError for %s", err, name)
			}
			return
		}
		n := s.NumPoints()
		if n <= 0 || n > MaxPoints || s.Input == "" {
			t.Fatalf("%d points, input %q", n, s.Input)
		}
		seen := map[string]int{}
		for _, id := range []int{0, n / 3, n / 2, n - 1, s.GridPoints()} {
			if id >= n {
				continue
			}
			p := s.Point(id)
			if p.ID != id {
				t.Fatalf("point %d has id %d", id, p.ID)
			}
			if err := p.Params.Validate(); err != nil {
				t.Fatalf("point %d: %v", id, err)
			}
			for _, d := range Dims {
				if err := d.check(d.Get(&p)); err != nil {
					t.Fatalf("point %d: %v", id, err)
				}
			}
			if j, ok := seen[pointKey(&p)]; ok && j != id {
				t.Fatalf("points %d and %d are the same: %s", j, id, Describe(&p))
			}
			seen[pointKey(&p)] = id
		}
	})
}

// FuzzParseResults checks the reader of result CSVs (resume, merge, sort)
// on any bytes: no panic, and the rows it accepts are the spec's points.
func FuzzParseResults(f *testing.F) {
	s, err := ParseSpec([]byte("input = \"a.goal\"\n[grid]\nL_ns = [1, 2]\ncompute_scale = [1, 0.5]\n"), "s.toml")
	if err != nil {
		f.Fatal(err)
	}
	h := headerLine()
	f.Add([]byte(h + "0,1,1,1500,1000,6,0,65535,38276,0,8\n3,0.5,2,1500,1000,6,0,65535,1,0,8\n"))
	f.Add([]byte(h + "1,1,2,1500,1000,6,0,65535,38276,0,8\n2,0.5,1,15"))
	f.Add([]byte(h[:10]))
	f.Add([]byte("point\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		rf, err := parseResults(data, "r.csv", s)
		if err != nil {
			return
		}
		if rf.size+int64(len(rf.torn)) != int64(len(data)) {
			t.Fatalf("size %d + torn %d != %d", rf.size, len(rf.torn), len(data))
		}
		for _, r := range rf.rows {
			p := s.Point(r.id)
			if want := (&Row{Point: p}).line(); string(r.line[:len(want)-7]) != string(want[:len(want)-7]) {
				t.Fatalf("row %q is not point %d (%q)", r.line, r.id, want)
			}
		}
	})
}
