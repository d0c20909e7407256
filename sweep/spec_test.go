package sweep

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// points formats the listed dimensions of every point of s, one string per
// point: "L_ns=250 S_bytes=4096".
func points(s *Spec, dims ...string) []string {
	var out []string
	for id := 0; id < s.NumPoints(); id++ {
		p := s.Point(id)
		if p.ID != id {
			panic("wrong id")
		}
		var f []string
		for _, name := range dims {
			d := DimByName(name)
			f = append(f, name+"="+d.Format(d.Get(&p)))
		}
		out = append(out, strings.Join(f, " "))
	}
	return out
}

func TestGridExpansion(t *testing.T) {
	tests := []struct {
		name       string
		toml, json string // the same spec in both forms ("" to skip one)
		dims       []string
		want       []string
	}{
		{
			name: "list",
			toml: "input = \"a.goal\"\n[grid]\nL_ns = [3, 1, 2]\n",
			json: `{"input": "a.goal", "grid": {"L_ns": [3, 1, 2]}}`,
			dims: []string{"L_ns"},
			want: []string{"L_ns=3", "L_ns=1", "L_ns=2"},
		},
		{
			name: "single value",
			toml: "input = \"a.goal\"\n[grid]\nS_bytes = 4096\n",
			json: `{"input": "a.goal", "grid": {"S_bytes": 4096}}`,
			dims: []string{"S_bytes", "L_ns"},
			want: []string{"S_bytes=4096 L_ns=2500"},
		},
		{
			name: "arithmetic",
			toml: "input = \"a.goal\"\n[grid]\no_ns = {from = 500, to = 2500, step = 1000}\n",
			json: `{"input": "a.goal", "grid": {"o_ns": {"from": 500, "to": 2500, "step": 1000}}}`,
			dims: []string{"o_ns"},
			want: []string{"o_ns=500", "o_ns=1500", "o_ns=2500"},
		},
		{
			name: "arithmetic stops before to",
			toml: "input = \"a.goal\"\n[grid]\ng_ns = {from = 0, to = 10, step = 4}\n",
			json: `{"input": "a.goal", "grid": {"g_ns": {"from": 0, "to": 10, "step": 4}}}`,
			dims: []string{"g_ns"},
			want: []string{"g_ns=0", "g_ns=4", "g_ns=8"},
		},
		{
			name: "arithmetic downwards",
			toml: "input = \"a.goal\"\n[grid]\nG_ns_per_byte = {from = 10, to = 0, step = -5}\n",
			json: `{"input": "a.goal", "grid": {"G_ns_per_byte": {"from": 10, "to": 0, "step": -5}}}`,
			dims: []string{"G_ns_per_byte"},
			want: []string{"G_ns_per_byte=10", "G_ns_per_byte=5", "G_ns_per_byte=0"},
		},
		{
			name: "arithmetic floats are tidy",
			toml: "input = \"a.goal\"\n[grid]\ncompute_scale = {from = 0.1, to = 0.5, step = 0.1}\n",
			json: `{"input": "a.goal", "grid": {"compute_scale": {"from": 0.1, "to": 0.5, "step": 0.1}}}`,
			dims: []string{"compute_scale"},
			want: []string{"compute_scale=0.1", "compute_scale=0.2", "compute_scale=0.3", "compute_scale=0.4", "compute_scale=0.5"},
		},
		{
			name: "geometric",
			toml: "input = \"a.goal\"\n[grid]\nL_ns = {from = 250, to = 16000, factor = 2}\n",
			json: `{"input": "a.goal", "grid": {"L_ns": {"from": 250, "to": 16000, "factor": 2}}}`,
			dims: []string{"L_ns"},
			want: []string{"L_ns=250", "L_ns=500", "L_ns=1000", "L_ns=2000", "L_ns=4000", "L_ns=8000", "L_ns=16000"},
		},
		{
			name: "geometric floats and 1e3 notation",
			toml: "input = \"a.goal\"\n[grid]\ncompute_scale = {from = 0.25, to = 4e0, factor = 2}\n",
			json: `{"input": "a.goal", "grid": {"compute_scale": {"from": 0.25, "to": 4e0, "factor": 2}}}`,
			dims: []string{"compute_scale"},
			want: []string{"compute_scale=0.25", "compute_scale=0.5", "compute_scale=1", "compute_scale=2", "compute_scale=4"},
		},
		{
			name: "geometric downwards",
			toml: "input = \"a.goal\"\n[grid]\nS_bytes = {from = 65536, to = 1024, factor = 0.25}\n",
			json: `{"input": "a.goal", "grid": {"S_bytes": {"from": 65536, "to": 1024, "factor": 0.25}}}`,
			dims: []string{"S_bytes"},
			want: []string{"S_bytes=65536", "S_bytes=16384", "S_bytes=4096", "S_bytes=1024"},
		},
		{
			name: "geometric integers round and drop repeats",
			toml: "input = \"a.goal\"\n[grid]\nS_bytes = {from = 1, to = 10, factor = 1.5}\n",
			json: `{"input": "a.goal", "grid": {"S_bytes": {"from": 1, "to": 10, "factor": 1.5}}}`,
			dims: []string{"S_bytes"},
			want: []string{"S_bytes=1", "S_bytes=2", "S_bytes=3", "S_bytes=5", "S_bytes=8"},
		},
		{
			name: "cartesian product in Dims order, last fastest",
			toml: "input = \"a.goal\"\n[grid]\nS_bytes = [10, 20]\nL_ns = [1, 2]\ncompute_scale = [1, 0.5]\n",
			json: `{"input": "a.goal", "grid": {"S_bytes": [10, 20], "L_ns": [1, 2], "compute_scale": [1, 0.5]}}`,
			dims: []string{"compute_scale", "L_ns", "S_bytes"},
			want: []string{
				"compute_scale=1 L_ns=1 S_bytes=10", "compute_scale=1 L_ns=1 S_bytes=20",
				"compute_scale=1 L_ns=2 S_bytes=10", "compute_scale=1 L_ns=2 S_bytes=20",
				"compute_scale=0.5 L_ns=1 S_bytes=10", "compute_scale=0.5 L_ns=1 S_bytes=20",
				"compute_scale=0.5 L_ns=2 S_bytes=10", "compute_scale=0.5 L_ns=2 S_bytes=20",
			},
		},
		{
			name: "listed points follow the grid, from the base",
			toml: "input = \"a.goal\"\n[params]\nL_ns = 7\n[grid]\no_ns = [1, 2]\n[[points]]\no_ns = 3\n[[points]]\nL_ns = 8\ncompute_scale = 2\n",
			json: `{"input": "a.goal", "params": {"L_ns": 7}, "grid": {"o_ns": [1, 2]}, "points": [{"o_ns": 3}, {"L_ns": 8, "compute_scale": 2}]}`,
			dims: []string{"L_ns", "o_ns", "compute_scale"},
			want: []string{"L_ns=7 o_ns=1 compute_scale=1", "L_ns=7 o_ns=2 compute_scale=1", "L_ns=7 o_ns=3 compute_scale=1", "L_ns=8 o_ns=1500 compute_scale=2"},
		},
		{
			name: "points only",
			toml: "input = \"a.goal\"\npoints = [{L_ns = 1}, {L_ns = 2, S_bytes = 0}]\n",
			json: `{"input": "a.goal", "points": [{"L_ns": 1}, {"L_ns": 2, "S_bytes": 0}]}`,
			dims: []string{"L_ns", "S_bytes"},
			want: []string{"L_ns=1 S_bytes=65535", "L_ns=2 S_bytes=0"},
		},
		{
			name: "base parameters in exponent notation",
			toml: "input = \"a.goal\"\n[params]\nL_ns = 1.099511627776e12\no_ns = 1e3\n[[points]]\n",
			json: `{"input": "a.goal", "params": {"L_ns": 1.099511627776e12, "o_ns": 1e3}, "points": [{}]}`,
			dims: []string{"L_ns", "o_ns"},
			want: []string{"L_ns=1099511627776 o_ns=1000"},
		},
		{
			name: "decimals and units",
			toml: "input = \"a.goal\"\n[params]\nL_ns = \"1.5us\"\nS_bytes = \"64KiB\"\n[grid]\nG_ns_per_byte = [\"100Gb/s\", 0.5]\no_ns = {from = \"0.25us\", to = \"0.5us\", step = \"125ns\"}\n[[points]]\ng_ns = \"2.5us\"\n",
			json: `{"input": "a.goal", "params": {"L_ns": "1.5us", "S_bytes": "64KiB"}, "grid": {"G_ns_per_byte": ["100Gb/s", 0.5], "o_ns": {"from": "0.25us", "to": "0.5us", "step": "125ns"}}, "points": [{"g_ns": "2.5us"}]}`,
			dims: []string{"L_ns", "o_ns", "g_ns", "G_ns_per_byte", "S_bytes"},
			want: []string{
				"L_ns=1500 o_ns=250 g_ns=1000 G_ns_per_byte=0.08 S_bytes=65536", "L_ns=1500 o_ns=250 g_ns=1000 G_ns_per_byte=0.5 S_bytes=65536",
				"L_ns=1500 o_ns=375 g_ns=1000 G_ns_per_byte=0.08 S_bytes=65536", "L_ns=1500 o_ns=375 g_ns=1000 G_ns_per_byte=0.5 S_bytes=65536",
				"L_ns=1500 o_ns=500 g_ns=1000 G_ns_per_byte=0.08 S_bytes=65536", "L_ns=1500 o_ns=500 g_ns=1000 G_ns_per_byte=0.5 S_bytes=65536",
				"L_ns=1500 o_ns=1500 g_ns=2500 G_ns_per_byte=6 S_bytes=65536",
			},
		},
		{
			name: "noise table with units",
			toml: "input = \"a.goal\"\n[noise]\nnoise_period_ns = \"1ms\"\nnoise_period_length_ns = \"25us\"\nnoise_length_ns = \"1.5us\"\nnoise_interval_ns = \"0.2ms\"\n[grid]\nnoise_seed = [1]\n",
			json: `{"input": "a.goal", "noise": {"noise_period_ns": "1ms", "noise_period_length_ns": "25us", "noise_length_ns": "1.5us", "noise_interval_ns": "0.2ms"}, "grid": {"noise_seed": [1]}}`,
			dims: []string{"noise_period_ns", "noise_period_length_ns", "noise_interval_ns", "noise_length_ns"},
			want: []string{"noise_period_ns=1000000 noise_period_length_ns=25000 noise_interval_ns=200000 noise_length_ns=1500"},
		},
		{
			name: "base parameters with ranges",
			toml: "input = \"a.goal\"\n[params]\nG_ns_per_byte = 2\n[[params.ranges]]\nmin_bytes = 0\nmax_bytes = 100\nL_ns = 1\no_ns = 2\ng_ns = 3\nG_ns_per_byte = 4\nO_ns_per_byte = 5\n[grid]\nL_ns = [10]\n",
			json: `{"input": "a.goal", "params": {"G_ns_per_byte": 2, "ranges": [{"min_bytes": 0, "max_bytes": 100, "L_ns": 1, "o_ns": 2, "g_ns": 3, "G_ns_per_byte": 4, "O_ns_per_byte": 5}]}, "grid": {"L_ns": [10]}}`,
			dims: []string{"L_ns", "G_ns_per_byte"},
			want: []string{"L_ns=10 G_ns_per_byte=2"},
		},
	}
	for _, tc := range tests {
		for _, form := range []struct{ ext, text string }{{".toml", tc.toml}, {".json", tc.json}} {
			if form.text == "" {
				continue
			}
			t.Run(tc.name+form.ext, func(t *testing.T) {
				s, err := ParseSpec([]byte(form.text), "spec"+form.ext)
				if err != nil {
					t.Fatal(err)
				}
				got := points(s, tc.dims...)
				if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
					t.Errorf("points:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
				}
			})
		}
	}
}

func TestSpecRanges(t *testing.T) {
	s, err := ParseSpec([]byte(`{"input": "a.goal", "params": {"ranges": [{"min_bytes": 0, "max_bytes": 100, "L_ns": 1, "o_ns": 2, "g_ns": 3, "G_ns_per_byte": 4, "O_ns_per_byte": 5}]}, "points": [{}]}`), "s.json")
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Point(0); len(p.Params.Ranges) != 1 || p.Params.Ranges[0].GapPerByte != 4 {
		t.Errorf("ranges: %+v", p.Params.Ranges)
	}
}

func TestSpecErrors(t *testing.T) {
	const in = "input = \"a.goal\"\n"
	tests := []struct {
		name, file, text string
		want             string // the error starts with it (file:line:col) ...
		also             string // ... and contains this
	}{
		{"wrong extension", "s.yaml", "input: a", "s.yaml: ", "must end in .json or .toml"},
		{"toml syntax", "s.toml", in + "[grid]\nL_ns = [1, 2\n", "s.toml:3:13: ", "toml:"},
		{"toml key twice", "s.toml", in + "input = \"b.goal\"\n", "s.toml:2:", "toml:"},
		{"unknown key", "s.toml", in + "\nbogus = 1\n[grid]\nL_ns = [1]\n", "s.toml:3:1: ", `unknown key "bogus"`},
		{"no input", "s.toml", "[grid]\nL_ns = [1]\n", "s.toml:1:1: ", "no input"},
		{"input not a string", "s.toml", "input = 3\n", "s.toml:1:9: ", "input: expected a file name, found a number"},
		{"input empty", "s.toml", "input = ''\n", "s.toml:1:9: ", "input: empty file name"},
		{"no points", "s.toml", in, "s.toml:1:1: ", "no points"},
		{"empty grid", "s.toml", in + "[grid]\n", "s.toml:1:1: ", "no points"},
		{"unknown dimension", "s.toml", in + "[grid]\nL_ns = [1]\n  X_ns = [1]\n", "s.toml:4:3: ", `unknown dimension "X_ns"`},
		{"empty list", "s.toml", in + "[grid]\nL_ns = []\n", "s.toml:3:", "empty list"},
		{"negative", "s.toml", in + "[grid]\nL_ns = [1, -1]\n", "s.toml:3:12: ", "L_ns: -1 outside 0..1099511627776"},
		{"not an integer", "s.toml", in + "[grid]\nS_bytes = [1.5]\n", "s.toml:3:12: ", "not an integer"},
		{"repeated value", "s.toml", in + "[grid]\nS_bytes = [1, 2, 1]\n", "s.toml:3:18: ", "value 3 repeats value 1"},
		{"string value", "s.toml", in + "[grid]\nstraggler_factor = [\"1\"]\n", "s.toml:3:21: ", "expected a number, found a string"},
		{"step zero", "s.toml", in + "[grid]\nL_ns = {from = 1, to = 10, step = 0}\n", "s.toml:3:35: ", "does not lead"},
		{"step wrong way", "s.toml", in + "[grid]\nL_ns = {from = 1, to = 10, step = -1}\n", "s.toml:3:35: ", "does not lead"},
		{"bad unit", "s.toml", in + "[grid]\nL_ns = [\"1.5xs\"]\n", "s.toml:3:9: ", `L_ns: sim: bad quantity "1.5xs": unknown time unit "xs"`},
		{"fractional bytes", "s.toml", in + "[grid]\nS_bytes = \"1.5B\"\n", "s.toml:3:11: ", "not a whole number of bytes"},
		{"step fractional", "s.toml", in + "[grid]\nS_bytes = {from = 1, to = 10, step = 0.5}\n", "s.toml:3:38: ", "not an integer"},
		{"step and factor", "s.toml", in + "[grid]\nL_ns = {from = 1, to = 10, step = 1, factor = 2}\n", "s.toml:3:8: ", "one of step"},
		{"no to", "s.toml", in + "[grid]\nL_ns = {from = 1, step = 1}\n", "s.toml:3:8: ", "needs from and to"},
		{"range key", "s.toml", in + "[grid]\nL_ns = {from = 1, to = 2, by = 1}\n", "s.toml:3:27: ", `unknown key "by"`},
		{"geometric from 0", "s.toml", in + "[grid]\nL_ns = {from = 0, to = 10, factor = 2}\n", "s.toml:3:37: ", "above 0"},
		{"geometric factor 1", "s.toml", in + "[grid]\nL_ns = {from = 1, to = 10, factor = 1}\n", "s.toml:3:37: ", "does not lead"},
		{"geometric wrong way", "s.toml", in + "[grid]\nL_ns = {from = 10, to = 1, factor = 2}\n", "s.toml:3:37: ", "does not lead"},
		{"too many values", "s.toml", in + "[grid]\nL_ns = {from = 0, to = 1e12, step = 1}\n", "s.toml:3:37: ", "more than 1048576"},
		{"too many points", "s.toml", in + "[grid]\nL_ns = {from = 1, to = 1000, step = 1}\no_ns = {from = 1, to = 1000, step = 1}\ng_ns = {from = 1, to = 1000, step = 1}\n", "s.toml:2:2: ", "more than 67108864 points"},
		{"range value bounds", "s.toml", in + "[grid]\nL_ns = {from = 1, to = 1e15, factor = 10}\n", "s.toml:3:24: ", "outside"},
		{"compute_scale negative", "s.toml", in + "[grid]\ncompute_scale = [-0.5]\n", "s.toml:3:18: ", "compute_scale: -0.5 outside"},
		{"grid not a table", "s.toml", in + "grid = [1]\n", "s.toml:2:", "grid: expected a table"},
		{"points not a list", "s.toml", in + "points = 1\n", "s.toml:2:", "points: expected a list"},
		{"point not a table", "s.toml", in + "points = [1]\n", "s.toml:2:11: ", "points[0]: expected a table"},
		{"point unknown dimension", "s.toml", in + "[[points]]\nL_ns = 1\n[[points]]\nX = 2\n", "s.toml:5:1: ", `points[1]: unknown dimension "X"`},
		{"point twice", "s.toml", in + "[[points]]\nL_ns = 1\n[[points]]\nL_ns = 1\n", "s.toml:4:", "points[1] is points[0] again (line 2)"},
		{"point in grid", "s.toml", in + "[grid]\nL_ns = [1, 2]\n[[points]]\nL_ns = 2\n", "s.toml:4:", "points[0] is grid point 1 again"},
		{"params unknown key", "s.toml", in + "[params]\nL_ns = 1\nl_ns = 2\n[grid]\nL_ns = [1]\n", "s.toml:4:1: ", `params: unknown key "l_ns"`},
		{"params bad value", "s.toml", in + "[params]\nS_bytes = -5\n[grid]\nL_ns = [1]\n", "s.toml:3:11: ", "S_bytes: -5 outside"},
		{"params bad range", "s.toml", in + "[params]\n[[params.ranges]]\nmin_bytes = 10\nmax_bytes = 1\nL_ns = 1\no_ns = 1\ng_ns = 1\nG_ns_per_byte = 1\nO_ns_per_byte = 0\n[grid]\nL_ns = [1]\n", "s.toml:2:", "min_bytes 10 above max_bytes 1"},
		{"params file missing", "s.toml", in + "params = \"nope.json\"\n[grid]\nL_ns = [1]\n", "s.toml:2:10: ", "nope.json"},
		// noise settings that no point draws on (noise.Unused, as gopsim sim's flags)
		{"straggler_factor alone", "s.toml", in + "[grid]\nstraggler_factor = [3]\n", "s.toml:3:1: ", "straggler_factor needs straggler_fraction (which ranks straggle)"},
		{"straggler_fraction with factor 1", "s.toml", in + "[noise]\nstraggler_fraction = 0.5\n[grid]\nL_ns = [1]\n", "s.toml:3:1: ", "straggler_fraction needs straggler_factor above 1"},
		{"noise_period_ns alone", "s.toml", in + "[grid]\nnoise_period_ns = [1000, 2000]\n", "s.toml:3:1: ", "noise_period_ns needs noise_period_length_ns"},
		{"noise_period_length_ns alone", "s.toml", in + "[noise]\nnoise_period_length_ns = 10\n[grid]\nL_ns = [1]\n", "s.toml:3:1: ", "noise_period_length_ns needs noise_period_ns"},
		{"noise_length_ns in a point, no interval", "s.toml", in + "[grid]\nL_ns = [1]\n[[points]]\nnoise_length_ns = 100\n", "s.toml:5:1: ", "noise_length_ns needs noise_interval_ns: random detours"},
		{"noise_interval_ns 0 everywhere", "s.toml", in + "[grid]\nnoise_interval_ns = [0]\nnoise_length_ns = [5]\n", "s.toml:3:1: ", "noise_interval_ns is 0 wherever it is given"},
		{"noise_seed without noise", "s.toml", in + "[grid]\nnoise_seed = [1, 2]\n", "s.toml:3:1: ", "noise_seed needs noise_interval_ns, noise_period_ns, straggler_fraction or trace"},
		{"noise_seed in points without noise", "s.toml", in + "[[points]]\nnoise_seed = 1\n[[points]]\nnoise_seed = 2\nL_ns = 5\n", "s.toml:3:1: ", "noise_seed needs"},
		{"dist without interval", "s.toml", in + "[noise]\ndist = \"pareto\"\n[grid]\nL_ns = [1]\n", "s.toml:3:1: ", "dist needs noise_interval_ns"},
		{"alpha with exp", "s.toml", in + "[noise]\nalpha = 3\nnoise_interval_ns = 1000\n[grid]\nL_ns = [1]\n", "s.toml:3:1: ", "alpha is the shape of dist pareto"},
		{"alpha without interval", "s.toml", in + "[noise]\ndist = \"pareto\"\nalpha = 3\n[grid]\nL_ns = [1]\n", "s.toml:3:1: ", "dist needs noise_interval_ns"},
		{"cosched without trace or period", "s.toml", in + "[noise]\ncosched = true\nnoise_interval_ns = 100\n[grid]\nL_ns = [1]\n", "s.toml:3:1: ", "cosched applies to noise_period_ns or trace"},
		{"json straggler_factor alone", "s.json", "{\"input\": \"a.goal\",\n \"points\": [{\"straggler_factor\": 2}]}", "s.json:2:14: ", "no effect at any point of the spec: straggler_factor needs straggler_fraction"},
		{"json syntax", "s.json", "{\n  \"input\": \"a.goal\",\n  \"grid\": {\"L_ns\": [1,]}\n}\n", "s.json:3:", "invalid character"},
		{"json truncated", "s.json", "{\n  \"input\": \"a.goal\",\n", "s.json:", "unexpected end"},
		{"json key twice", "s.json", "{\n  \"input\": \"a.goal\",\n  \"input\": \"b.goal\"\n}\n", "s.json:3:3: ", `key "input" given twice (first at line 2)`},
		{"json unknown key", "s.json", "{\"input\": \"a.goal\",\n \"grids\": {}}\n", "s.json:2:2: ", `unknown key "grids"`},
		{"json trailing data", "s.json", "{\"input\": \"a.goal\", \"points\": [{}]}\n{}\n", "s.json:2:1: ", "after the spec"},
		{"json range", "s.json", "{\"input\": \"a.goal\",\n \"grid\": {\n  \"o_ns\": {\"from\": 5, \"to\": 1, \"step\": 1}}}\n", "s.json:3:40: ", "does not lead"},
		{"json not an object", "s.json", "[1]", "s.json:1:1: ", "expected a table"},
		{"json empty", "s.json", "  \n", "s.json:1:1: ", "empty spec"},
		{"json null", "s.json", "{\"input\": null}", "s.json:1:11: ", "expected a file name, found null"},
		{"json number too big", "s.json", "{\"input\": \"a\", \"grid\": {\"L_ns\": [1e999]}}", "s.json:1:34: ", "out of range"},
		{"json deep", "s.json", "{\"input\": \"a\", \"grid\": {\"L_ns\": " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}}", "s.json:1:", "nested more than"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSpec([]byte(tc.text), tc.file)
			if err == nil {
				t.Fatalf("no error")
			}
			if !strings.HasPrefix(err.Error(), tc.want) || !strings.Contains(err.Error(), tc.also) {
				t.Errorf("error %q\nwant %q...%q", err, tc.want, tc.also)
			}
			var se *SpecError
			if !errors.As(err, &se) || !errors.Is(err, ErrSpec) {
				t.Errorf("error %v is not a *SpecError wrapping ErrSpec", err)
			}
		})
	}
}

// TestSpecNoiseUsed: a noise setting some point of the spec draws on is
// accepted, even when other points do not.
func TestSpecNoiseUsed(t *testing.T) {
	const in = "input = \"a.goal\"\n"
	for _, tc := range []struct{ name, text string }{
		{"factor 1 among others", in + "[noise]\nstraggler_fraction = 1\n[grid]\nstraggler_factor = [1, 2, 3]\n"},
		{"period 0 among others", in + "[grid]\nnoise_period_ns = [0, 1000]\nnoise_period_length_ns = [100]\n"},
		{"random detours in one listed point", in + "[noise]\ndist = \"pareto\"\nalpha = 3\nnoise_length_ns = 10\n[grid]\nnoise_seed = [1, 2]\n[[points]]\nnoise_interval_ns = 1000\n"},
		{"cosched with periodic detours", in + "[noise]\ncosched = true\nnoise_period_ns = 1000\nnoise_period_length_ns = 10\n[grid]\nnoise_seed = [1, 2]\n"},
		{"cosched false", in + "[noise]\ncosched = false\n[grid]\nL_ns = [1]\n"},
		{"seed with a straggler fraction", in + "[noise]\nstraggler_fraction = 0.5\nstraggler_factor = 2\n[grid]\nnoise_seed = [1, 2]\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := ParseSpec([]byte(tc.text), "s.toml"); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSpecParamsFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "p.json"), []byte(`{"L_ns": 42, "o_ns": 7}`), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "s.toml")
	if err := os.WriteFile(spec, []byte("input = \"sub/a.goal\"\nparams = \"p.json\"\n[grid]\ng_ns = [1, 2]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	if p := s.Point(1); p.Params.L != 42 || p.Params.Overhead != 7 || p.Params.Gap != 2 || p.Params.GapPerByte != 6 {
		t.Errorf("point 1: %v", p.Params)
	}
	if s.ParamsFile != "p.json" || s.InputPath() != filepath.Join(dir, "sub", "a.goal") || s.OutputPath() != filepath.Join(dir, "s.csv") {
		t.Errorf("params file %q, input %q, output %q", s.ParamsFile, s.InputPath(), s.OutputPath())
	}
}

// The two example specs parse, and give the points their comments say.
func TestExampleSpecs(t *testing.T) {
	for _, tc := range []struct {
		file      string
		n, grid   int
		lastPoint string
	}{
		{"../examples/sweep_latency.toml", 28, 28, "compute_scale=1 L_ns=16000 o_ns=1500 g_ns=1000 G_ns_per_byte=6 O_ns_per_byte=0 S_bytes=65535"},
		{"../examples/sweep_compute.json", 17, 15, "compute_scale=0 L_ns=2500 o_ns=0 g_ns=1000 G_ns_per_byte=6 O_ns_per_byte=0 S_bytes=65535"},
	} {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			s, err := ReadSpec(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if s.NumPoints() != tc.n || s.GridPoints() != tc.grid {
				t.Errorf("%d points, %d in the grid; want %d, %d", s.NumPoints(), s.GridPoints(), tc.n, tc.grid)
			}
			last := s.Point(s.NumPoints() - 1)
			if got := Describe(&last); got != tc.lastPoint {
				t.Errorf("last point %s, want %s", got, tc.lastPoint)
			}
			if _, err := os.Stat(s.InputPath()); err != nil {
				t.Error(err)
			}
		})
	}
}
