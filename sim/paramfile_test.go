package sim

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// TestReadParamsStrict: keys are matched exactly, a key given twice and
// anything after the object are errors, and every error gives the line
// and column.
func TestReadParamsStrict(t *testing.T) {
	for _, tc := range []struct {
		name, src, err string
	}{
		{"case of G", `{"G_ns": 50}`, `p.json:1:2: unknown key "G_ns" (keys here: L_ns, o_ns, g_ns,`},
		{"case of O", `{"O_ns": 50}`, `p.json:1:2: unknown key "O_ns"`},
		{"case in a range", "{\"ranges\": [{\"min_bytes\": 0, \"max_bytes\": 1,\n  \"l_ns\": 1}]}", `p.json:2:3: unknown key "ranges[0].l_ns"`},
		{"case in a section", `{"alphabeta": {"Alpha_ns": 1}}`, `p.json:1:16: unknown key "alphabeta.Alpha_ns"`},
		{"duplicate", `{"L_ns": 1, "L_ns": 2}`, `p.json:1:13: key "L_ns" given twice`},
		{"duplicate in a range", `{"ranges": [{"min_bytes": 0, "min_bytes": 0}]}`, `p.json:1:30: key "ranges[0].min_bytes" given twice`},
		{"trailing object", `{"L_ns": 1}{}`, `p.json:1:12: unexpected data after the JSON object`},
		{"trailing garbage", "{\"L_ns\": 1}\nx", `p.json:2:1: unexpected data after the JSON object`},
		{"type error", "{\n  \"o_ns\": true\n}", `p.json:2:11: key "o_ns": expected a number, or a string with a unit such as "1.5us", found true`},
		{"integer expected", `{"S_bytes": 1.5}`, `p.json:1:13: key "S_bytes": "1.5" is not a whole number`},
		{"string for a count", `{"logfp": {"f": "2"}}`, `p.json:1:17: key "logfp.f": expected a whole number, found the string "2"`},
		{"not an object", `[1]`, `p.json:1:1: the file: expected a JSON object of parameters, found an array`},
		{"ranges not an array", `{"ranges": 3}`, `p.json:1:12: key "ranges": expected an array, found the number "3"`},
		{"bad unit", `{"L_ns": "1.5xs"}`, `p.json:1:10: key "L_ns": sim: bad quantity "1.5xs": unknown time unit "xs"`},
		{"bandwidth for a time", `{"g_ns": "1GB/s"}`, `p.json:1:10: key "g_ns": sim: bad quantity "1GB/s": unknown time unit "GB/s"`},
		{"negative string", `{"G_ns_per_byte": "-1ns/B"}`, `key "G_ns_per_byte": sim: bad quantity "-1ns/B": negative`},
		{"huge number", `{"L_ns": 1e999}`, `p.json:1:10: key "L_ns": "1e999" is not a finite number`},
		{"truncated", `{"L_ns": 1,`, `p.json:1:12: unexpected end of the file`},
		{"empty", ``, `p.json:1:1: unexpected end of the file`},
		{"beyond MaxParam", `{"L_ns": "2e3s"}`, `parameter L=2e+12 ns outside 0..1099511627776`},
		{"library name not a string", `{"library": {"name": 4}}`, `p.json:1:22: key "library.name": expected a string, found the number "4"`},
		{"library unknown key", `{"library": {"first_contact": 4}}`, `p.json:1:14: unknown key "library.first_contact" (keys here: name, first_contact_ns, comm_create_ns, first_call;`},
		{"library negative", `{"library": {"comm_create_ns": -4}}`, `sim: library.comm_create_ns=-4 outside 0..`},
		{"library unsorted", `{"library": {"first_call": [{"function": "MPI_Send", "extra_ns": 1}, {"function": "MPI_Barrier", "extra_ns": 1}]}}`,
			`sim: library.first_call[1] (MPI_Barrier) after MPI_Send: functions must be sorted by name and given once`},
		{"library no function", `{"library": {"first_call": [{"extra_ns": 1}]}}`, `sim: library.first_call[0]: no function named`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadParams(strings.NewReader(tc.src), "p.json", DefaultParams())
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want %q", err, tc.err)
			}
		})
	}
}

// TestReadParamsUnits: values have decimals, or are strings with a unit,
// converted to the key's unit; informational keys hold anything.
func TestReadParamsUnits(t *testing.T) {
	src := `{"L_ns": "1.5us", "o_ns": 850.5, "g_ns": "0.9 µs", "G_ns_per_byte": "12.5GB/s", "O_ns_per_byte": "13ps/B", "S_bytes": "64KiB",
	  "ranges": [{"min_bytes": 0, "max_bytes": "1MiB", "L_ns": "2us", "o_ns": 0.25, "g_ns": 1, "G_ns_per_byte": "100Gb/s", "O_ns_per_byte": 0}],
	  "alphabeta": {"alpha_ns": "5.5us", "beta_ns_per_byte": "1GiB/s"},
	  "fit": {"anything": [1, {"L_ns": "x"}], "L_ns": 1}, "warnings": null, "source": "tcp", "comment": ["a", "b"], "model_fit": {}}`
	p, err := ReadParams(strings.NewReader(src), "p.json", DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	want := Params{L: 1500, Overhead: 850.5, Gap: 900, GapPerByte: 0.08, OverheadPerByte: 0.013, EagerLimit: 65536,
		Ranges:    []Range{{MinBytes: 0, MaxBytes: 1 << 20, L: 2000, Overhead: 0.25, Gap: 1, GapPerByte: 0.08}},
		AlphaBeta: &AlphaBetaParams{Alpha: 5500, Beta: 1e9 / (1 << 30)}}
	if p.String() != want.String() {
		t.Fatalf("got  %s\nwant %s", p, want)
	}
	// Written back as JSON and read again: the same parameters, the
	// decimals kept.
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"G_ns_per_byte":0.08`) {
		t.Errorf("JSON %s lacks G_ns_per_byte 0.08", b)
	}
	q, err := ReadParams(strings.NewReader(string(b)), "again.json", Params{})
	if err != nil || q.String() != p.String() {
		t.Fatalf("read back %s, %v\nwant %s", q, err, p)
	}
}

// TestScaleOf: the engine counts ns when every time is whole once rounded
// to ps, ps otherwise; model sections count.
func TestScaleOf(t *testing.T) {
	frac := 0.5
	for _, tc := range []struct {
		name string
		p    Params
		want int64
	}{
		{"defaults", DefaultParams(), 1},
		{"o 0.5", Params{Overhead: 0.5}, 1000},
		{"G below a ps", Params{GapPerByte: 1e-4}, 1},
		{"whole after rounding", Params{L: 3.0000001}, 1},
		{"range", Params{Ranges: []Range{{MaxBytes: 1, GapPerByte: 0.08}}}, 1000},
		{"alphabeta", Params{AlphaBeta: &AlphaBetaParams{Beta: 0.5}}, 1000},
		{"logfp", Params{LogfP: &LogfPParams{F: 1, ORecv: &frac}}, 1000},
		{"plogp", Params{PLogP: &PLogPParams{Points: []PLogPPoint{{Os: 1.5}}}}, 1000},
		{"log3p", Params{Log3P: &Log3PParams{Points: []Log3PPoint{{Pack: 2.001}}}}, 1000},
	} {
		if got := scaleOf(&tc.p); got != tc.want {
			t.Errorf("%s: %d ticks per ns, want %d", tc.name, got, tc.want)
		}
	}
}

// TestParseQuantities: the unit parsers, by example.
func TestParseQuantities(t *testing.T) {
	type parse func(string) (float64, error)
	bytesF := func(s string) (float64, error) { v, err := ParseBytes(s); return float64(v), err }
	for _, tc := range []struct {
		name string
		f    parse
		in   string
		want float64
		err  string
	}{
		{"plain", ParseDuration, "2500", 2500, ""},
		{"decimals", ParseDuration, "0.5", 0.5, ""},
		{"us", ParseDuration, "1.5us", 1500, ""},
		{"µs", ParseDuration, "1.5µs", 1500, ""},
		{"μs (Greek mu)", ParseDuration, "1.5μs", 1500, ""},
		{"blank", ParseDuration, " 3 ms ", 3e6, ""},
		{"s", ParseDuration, "2s", 2e9, ""},
		{"ps", ParseDuration, "80ps", 0.08, ""},
		{"exponent", ParseDuration, "2e3ns", 2000, ""},
		{"unknown unit", ParseDuration, "1.5xs", 0, `unknown time unit "xs" (expected ns, us (µs), ms, s or ps)`},
		{"negative", ParseDuration, "-1us", 0, "negative"},
		{"NaN", ParseDuration, "NaN", 0, "expected a decimal number"},
		{"Inf", ParseDuration, "Inf", 0, "expected a decimal number"},
		{"hex", ParseDuration, "0x10", 0, `unknown time unit "x10"`},
		{"overflow", ParseDuration, "1e308s", 0, "too large"},
		{"empty", ParseDuration, "", 0, "expected a decimal number"},
		{"per byte plain", ParsePerByte, "0.08", 0.08, ""},
		{"ns/B", ParsePerByte, "6ns/B", 6, ""},
		{"ps/byte", ParsePerByte, "80ps/byte", 0.08, ""},
		{"GB/s", ParsePerByte, "12.5GB/s", 0.08, ""},
		{"Gb/s", ParsePerByte, "100Gb/s", 0.08, ""},
		{"MB/s", ParsePerByte, "800MB/s", 1.25, ""},
		{"GiB/s", ParsePerByte, "1GiB/s", 1e9 / (1 << 30), ""},
		{"B/s", ParsePerByte, "1e9B/s", 1, ""},
		{"zero bandwidth", ParsePerByte, "0GB/s", 0, "a bandwidth of 0 has no per-byte cost"},
		{"time for per byte", ParsePerByte, "5us", 0, `unknown unit "us"`},
		{"bad bandwidth", ParsePerByte, "5XB/s", 0, `unknown unit "XB/s"`},
		{"bytes", bytesF, "65535", 65535, ""},
		{"KiB", bytesF, "64KiB", 65536, ""},
		{"kB", bytesF, "1.5kB", 1500, ""},
		{"MiB", bytesF, "2 MiB", 2 << 20, ""},
		{"B", bytesF, "10B", 10, ""},
		{"fraction of a byte", bytesF, "1.5", 0, "1.5 bytes is not a whole number of bytes"},
		{"bits are not sizes", bytesF, "8Kb", 0, `unknown size unit "Kb"`},
		{"too many bytes", bytesF, "1e30", 0, "beyond"},
		{"long", ParseDuration, strings.Repeat("9", 5000) + "x", 0, `"` + strings.Repeat("9", 40) + `…" (5001 bytes)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.f(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || !errors.Is(err, ErrUnit) || len(err.Error()) > 300 {
					t.Fatalf("%q: %v, %v; want an ErrUnit with %q", tc.in, got, err, tc.err)
				}
				return
			}
			if err != nil || math.Abs(got-tc.want) > 1e-12*math.Abs(tc.want) {
				t.Fatalf("%q: %v, %v; want %v", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestFormatBandwidth(t *testing.T) {
	for g, want := range map[float64]string{0.08: "12.5 GB/s", 6: "166.7 MB/s", 0: "unlimited", 1e-3: "1 TB/s", 2e6: "500 B/s"} {
		if got := FormatBandwidth(g); got != want {
			t.Errorf("FormatBandwidth(%g) = %q, want %q", g, got, want)
		}
	}
}

// FuzzParseQuantity: the unit parsers never panic, and what they accept
// is a finite, non-negative number; a plain number reads back as itself.
func FuzzParseQuantity(f *testing.F) {
	for _, s := range []string{"2500", "1.5us", "1.5 µs", "12.5GB/s", "100Gb/s", "64KiB", "1e3", "-1", "NaN", "1e400s", "0.08ns/B", "", " ", "1..2", "1e", "1e+", ".5", "5."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range []func(string) (float64, error){ParseDuration, ParsePerByte} {
			v, err := p(s)
			if err == nil && !(v >= 0 && !math.IsInf(v, 0)) {
				t.Fatalf("%q: %v", s, v)
			}
			if err != nil && !errors.Is(err, ErrUnit) {
				t.Fatalf("%q: %v is not an ErrUnit", s, err)
			}
		}
		if n, err := ParseBytes(s); err == nil && n < 0 {
			t.Fatalf("%q: %d bytes", s, n)
		}
		if v, err := ParseDuration(s); err == nil {
			if w, err := ParseDuration(strconvFloat(v) + "ns"); err != nil || w != v {
				t.Fatalf("%q = %v, read back %v, %v", s, v, w, err)
			}
		}
	})
}

// FuzzReadParams: a parameter file never panics ReadParams; what it
// accepts is valid, and written back as JSON reads as the same
// parameters.
func FuzzReadParams(f *testing.F) {
	for _, s := range []string{
		`{"L_ns": 2500, "o_ns": 1500, "g_ns": 1000, "G_ns_per_byte": 6, "O_ns_per_byte": 0, "S_bytes": 65535}`,
		`{"L_ns": "1.5us", "G_ns_per_byte": "12.5GB/s", "S_bytes": "64KiB"}`,
		`{"ranges": [{"min_bytes": 0, "max_bytes": 12288, "L_ns": 2.5, "o_ns": 1.5, "g_ns": 5140, "G_ns_per_byte": 0.08, "O_ns_per_byte": 0}], "fit": {"r2": 0.99}}`,
		`{"L_ns": 1, "L_ns": 2}`, `{"G_ns": 50}`, `{} x`, `{"logfp": {"f": 4, "o_burst_ns": 0.5}}`,
		`{"plogp": {"L_ns": 2500, "points": [{"s_bytes": 1, "os_ns": 1500, "or_ns": 1500, "g_ns": 1000}]}}`,
		`{"warnings": ["a", {"b": [1, 2]}], "comment": null}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		p, err := ReadParams(strings.NewReader(src), "fuzz.json", DefaultParams())
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json:") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("accepted invalid parameters: %v", err)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		q, err := ReadParams(strings.NewReader(string(b)), "again.json", Params{})
		if err != nil || q.String() != p.String() {
			t.Fatalf("%s read back as %s, %v", p, q, err)
		}
	})
}

func strconvFloat(v float64) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestReadParamsLibrary: the library section, units included, is kept as
// the converter's, and a file without one has none.
func TestReadParamsLibrary(t *testing.T) {
	src := `{"L_ns": 300, "library": {"name": "Open MPI v4.1.4", "first_contact_ns": "290us", "comm_create_ns": 4700.5,
	  "first_call": [{"function": "MPI_Allreduce", "extra_ns": "50us"}, {"function": "MPI_Barrier", "extra_ns": 40000}]}}`
	p, err := ReadParams(strings.NewReader(src), "p.json", DefaultParams())
	if err != nil {
		t.Fatal(err)
	}
	c := p.Library
	if c == nil || c.Name != "Open MPI v4.1.4" || c.FirstContactNs != 290000 || c.CommCreateNs != 4700.5 ||
		c.FirstCallNs("MPI_Allreduce") != 50000 || c.FirstCallNs("MPI_Barrier") != 40000 || c.FirstCallNs("MPI_Bcast") != 0 {
		t.Errorf("library %+v", c)
	}
	if p, err := ReadParams(strings.NewReader(`{"L_ns": 300}`), "p.json", DefaultParams()); err != nil || p.Library != nil {
		t.Errorf("no library section: %+v, %v", p.Library, err)
	}
}
