package bench

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestReadTable(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Table
	}{
		{"header only", "n,d_ns,s_bytes,prtt_ns\n", nil},
		{"rows", "n,d_ns,s_bytes,prtt_ns\n1,0,8,1000\n8,0,8,5000\n8,2000,8,20000\n",
			Table{{1, 0, 8, 1000, false}, {8, 0, 8, 5000, false}, {8, 2000, 8, 20000, false}}},
		{"comments, blank lines, CRLF, spaces, BOM", "\ufeff# gopsim\r\nn,d_ns,s_bytes,prtt_ns\r\n\r\n1, 0, 8, 1000\r\n# end\r\n",
			Table{{1, 0, 8, 1000, false}}},
		{"no final newline", "n,d_ns,s_bytes,prtt_ns\n1,0,8,1000", Table{{1, 0, 8, 1000, false}}},
		{"decimals", "n,d_ns,s_bytes,prtt_ns\n1,0,8,30760.6\n8,31000.25,8,1.5e5\n", Table{{1, 0, 8, 30760.6, false}, {8, 31000.25, 8, 150000, false}}},
		{"round column", "n,d_ns,s_bytes,prtt_ns,round\n1,0,8,1000,prtt\n8,0,8,4200.5,exchange\n1, 0, 8, 600, exchange \n",
			Table{{1, 0, 8, 1000, false}, {8, 0, 8, 4200.5, true}, {1, 0, 8, 600, true}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ReadTable(strings.NewReader(tc.in), "t.csv")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestReadTableErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "t.csv:1:1: empty table"},
		{"wrong header", "n,d,s,prtt\n", `t.csv:1:1: header "n,d,s,prtt"`},
		{"three fields", "n,d_ns,s_bytes,prtt_ns\n1,0,8\n", "t.csv:2:5: 3 fields, want 4"},
		{"not a number", "n,d_ns,s_bytes,prtt_ns\n1,0,eight,1000\n", `t.csv:2:5: s_bytes: "eight" is not an integer`},
		{"decimal size", "n,d_ns,s_bytes,prtt_ns\n1,0,8.5,1000.5\n", `t.csv:2:5: s_bytes: "8.5" is not an integer`},
		{"decimal n", "n,d_ns,s_bytes,prtt_ns\n1.0,0,8,1000.5\n", `t.csv:2:1: n: "1.0" is not an integer`},
		{"not a number", "n,d_ns,s_bytes,prtt_ns\n1,0,8,12x\n", `t.csv:2:7: prtt_ns: "12x" is not a number`},
		{"infinity", "n,d_ns,s_bytes,prtt_ns\n1,0,8,inf\n", `t.csv:2:7: prtt_ns: "inf" is not a number`},
		{"NaN delay", "n,d_ns,s_bytes,prtt_ns\n8,NaN,8,100\n", `t.csv:2:3: d_ns: "NaN" is not a number`},
		{"hex", "n,d_ns,s_bytes,prtt_ns\n1,0,8,0x10\n", `t.csv:2:7: prtt_ns: "0x10" is not a number`},
		{"huge", "n,d_ns,s_bytes,prtt_ns\n1,0,8,1e300\n", `t.csv:2:7: prtt_ns=1e300 outside`},
		{"delay with decimals, n 1", "n,d_ns,s_bytes,prtt_ns\n1,0.5,8,1000\n", "t.csv:2:3: d_ns=0.5 with n=1"},
		{"n 0", "n,d_ns,s_bytes,prtt_ns\n0,0,8,1000\n", "t.csv:2:1: n=0 outside 1..65536"},
		{"size 0", "n,d_ns,s_bytes,prtt_ns\n1,0,0,1000\n", "t.csv:2:5: s_bytes=0 outside 1..1073741824"},
		{"negative delay", "n,d_ns,s_bytes,prtt_ns\n8,-1,8,1000\n", "t.csv:2:3: d_ns=-1 outside"},
		{"prtt 0", "n,d_ns,s_bytes,prtt_ns\n1,0,8,0\n", "t.csv:2:7: prtt_ns=0 outside"},
		{"delay with n 1", "n,d_ns,s_bytes,prtt_ns\n1,5,8,1000\n", "t.csv:2:3: d_ns=5 with n=1"},
		{"bad quote", "n,d_ns,s_bytes,prtt_ns\n1,0,\"8,1000\n", "t.csv:2:"},
		{"round column, four fields", "n,d_ns,s_bytes,prtt_ns,round\n1,0,8,1000\n", "t.csv:2:7: 4 fields, want 5"},
		{"round column on a table without it", "n,d_ns,s_bytes,prtt_ns\n1,0,8,1000,prtt\n", "t.csv:2:12: 5 fields, want 4"},
		{"unknown round", "n,d_ns,s_bytes,prtt_ns,round\n1,0,8,1000,swap\n", `t.csv:2:12: round: "swap", want prtt or exchange`},
		{"exchange with a delay", "n,d_ns,s_bytes,prtt_ns,round\n8,100,8,1000,exchange\n", "t.csv:2:3: d_ns=100 in an exchange round"},
		{"header with a sixth column", "n,d_ns,s_bytes,prtt_ns,round,x\n", `header "n,d_ns,s_bytes,prtt_ns,round,x", want "n,d_ns,s_bytes,prtt_ns,round" (or "n,d_ns,s_bytes,prtt_ns")`},
		{"error on line 4", "n,d_ns,s_bytes,prtt_ns\n1,0,8,1000\n\n1,0,8,x\n", "t.csv:4:7:"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadTable(strings.NewReader(tc.in), "t.csv")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
			if !errors.Is(err, ErrTable) {
				t.Errorf("error %v is not ErrTable", err)
			}
		})
	}
}

func TestTableRoundTrip(t *testing.T) {
	tab := synth(5, ranges(eager), []int64{1, 1000, 100000}, 4, 3, noise{Rel: 0.01})
	path := filepath.Join(t.TempDir(), "prtt.csv")
	if err := WriteTableFile(path, tab); err != nil {
		t.Fatal(err)
	}
	got, err := ReadTableFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, tab) {
		t.Errorf("round trip changed the table")
	}
	data, _ := os.ReadFile(path)
	if !bytes.HasPrefix(data, []byte(TableHeaderPRTT+"\n")) {
		t.Errorf("file starts %q, want the header without the round column", data[:min(len(data), 40)])
	}
	// With exchange rounds, the round column.
	tab = append(tab, Sample{N: 8, SizeBytes: 1000, PRTTNs: 12345.5, Exchange: true})
	if err := WriteTableFile(path, tab); err != nil {
		t.Fatal(err)
	}
	if got, err = ReadTableFile(path); err != nil || !reflect.DeepEqual(got, tab) {
		t.Errorf("round trip with exchanges: %v", err)
	}
	data, _ = os.ReadFile(path)
	if !bytes.HasPrefix(data, []byte(TableHeader+"\n")) || !bytes.HasSuffix(data, []byte("\n8,0,1000,12345.5,exchange\n")) {
		t.Errorf("file with exchanges: %q ... %q", data[:min(len(data), 40)], data[max(0, len(data)-40):])
	}
	if _, err := ReadTableFile(filepath.Join(t.TempDir(), "missing.csv")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

func TestParseSizes(t *testing.T) {
	tests := []struct {
		in   string
		want []int64
	}{
		{"1", []int64{1}},
		{"8,1, 4 ,4", []int64{1, 4, 8}},
		{"1k,2K,1m", []int64{1024, 2048, 1 << 20}},
		{"1k:4k:1k", []int64{1024, 2048, 3072, 4096}},
		{"1:1000:*10", []int64{1, 10, 100, 1000}},
		{"1:64:*4,12288,12289", []int64{1, 4, 16, 64, 12288, 12289}},
		{"5:5:1", []int64{5}},
		// Sizes with units, as everywhere a size is typed.
		{"64KiB,1.5KiB,4MiB,1kB", []int64{1000, 1536, 65536, 4 << 20}},
		{"1KiB:4KiB:1KiB", []int64{1024, 2048, 3072, 4096}},
		{"1.5k", []int64{1536}},
		{"8B:32B:*2", []int64{8, 16, 32}},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseSizes(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "0", "-1", "x", "1,,2", "4:1:1", "1:4", "1:4:*1", "1:4:0", "2g", "1:2000000000:1", "1025m", "1.5B", "2TiB", "1xB"} {
		t.Run("bad "+bad, func(t *testing.T) {
			if _, err := ParseSizes(bad); !errors.Is(err, ErrSizes) {
				t.Errorf("ParseSizes(%q) = %v, want ErrSizes", bad, err)
			}
		})
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		name string
		xs   []float64
		want Summary
	}{
		{"one", []float64{5}, Summary{Median: 5, Reps: 1, Q: 5}},
		{"even", []float64{4, 1, 3, 2}, Summary{Median: 2.5, IQR: 1.5, MAD: 1, Reps: 4, Q: 2.5, QSE: 1}},
		{"outlier rejected", []float64{10, 11, 12, 13, 14, 15, 16, 17, 1000}, Summary{Median: 13.5, IQR: 3.5, MAD: 2, Reps: 9, Rejected: 1, Q: 13.5, QSE: math.Sqrt2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Summarize(tc.xs); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestSummarizeAt(t *testing.T) {
	xs := []float64{10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 1000}
	tests := []struct {
		q, want float64
	}{{0, 10}, {0.1, 11}, {0.5, 15}, {1, 20}}
	for _, tc := range tests {
		t.Run(fmt.Sprint(tc.q), func(t *testing.T) {
			s := SummarizeAt(xs, tc.q)
			if s.Q != tc.want || s.Median != 15 || s.Rejected != 1 {
				t.Errorf("SummarizeAt(%g) = %+v, want Q = %g, median 15, 1 rejected", tc.q, s, tc.want)
			}
		})
	}
}

// TestSEAt checks the order-statistic standard error against the normal
// theory (σ·sqrt(q(1-q))/φ(z_q)/sqrt(n)) and on noise that only adds time.
func TestSEAt(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 4000
	normal, floor := make([]float64, n), make([]float64, n)
	for i := range n {
		normal[i] = 1000 + 10*rng.NormFloat64()
		floor[i] = 1000 + 200*rng.ExpFloat64()
	}
	for _, tc := range []struct{ q, want float64 }{{0.5, 1.2533}, {0.1, 1.7094}} {
		got := SummarizeAt(normal, tc.q).SEAt(0) * math.Sqrt(n) / 10
		if math.Abs(got/tc.want-1) > 0.2 {
			t.Errorf("normal samples, q=%g: SE = %.3f σ/sqrt(n), want %.3f", tc.q, got, tc.want)
		}
	}
	lo, med := SummarizeAt(floor, 0.1), SummarizeAt(floor, 0.5)
	if lo.SEAt(0) > med.SEAt(0)/2 {
		t.Errorf("noise above a floor: SE of the 10th percentile %.2f, of the median %.2f: want the first much smaller", lo.SEAt(0), med.SEAt(0))
	}
	if s := SummarizeAt([]float64{5}, 0.1); s.SEAt(1) != 1 {
		t.Errorf("one sample: SE %g, want the floor", s.SEAt(1))
	}
}

func TestWritePlot(t *testing.T) {
	pf, err := Fit(synth(6, ranges(eager, rendezvous), paperSizes, 8, 20, noise{Rel: 0.01}), FitOptions{Quantile: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"p.png", "p.svg"} {
		path := filepath.Join(dir, name)
		if err := pf.WritePlotFile(path); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if name == "p.png" && !bytes.HasPrefix(data, []byte("\x89PNG\r\n")) || name == "p.svg" && !bytes.Contains(data, []byte("<svg")) {
			t.Errorf("%s is not an image of its type (%d bytes)", name, len(data))
		}
	}
	if err := pf.WritePlotFile(filepath.Join(dir, "p.unknown")); err == nil {
		t.Error("no error for an unknown image format")
	}
	// The exchange series is drawn when the table has exchange rounds.
	tab := synth(6, ranges(eager), paperSizes[:10], 8, 20, noise{Rel: 0.01})
	for _, exch := range []bool{false, true} {
		if exch {
			tab = append(tab, synthExchanges(6, ranges(eager), paperSizes[:10], 8, 20, noise{Rel: 0.01})...)
		}
		pf, err := Fit(tab, FitOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := pf.WritePlot(&b, "svg"); err != nil {
			t.Fatal(err)
		}
		if got := bytes.Contains(b.Bytes(), []byte("exchange measured")); got != exch {
			t.Errorf("exchange rounds %v: the plot's legend has \"exchange measured\": %v", exch, got)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestDefaultMPISizes(t *testing.T) {
	s := DefaultMPISizes
	if !slices.IsSorted(s) || len(slices.Compact(slices.Clone(s))) != len(s) || s[0] != 1 || s[len(s)-1] != 4<<20 {
		t.Fatalf("sizes %v: want sorted, distinct, 1 byte to 4 MiB", s)
	}
	for _, want := range []int64{256, 384, 2048, 2560, 3072, 3584, 4096, 65536, 3 << 20} {
		if !slices.Contains(s, want) {
			t.Errorf("no %d bytes in %v", want, s)
		}
	}
	// Every octave has its power of 2 and midpoint.
	for p := int64(2); p < 4<<20; p *= 2 {
		if !slices.Contains(s, p) || !slices.Contains(s, p+p/2) {
			t.Errorf("octave of %d bytes incomplete in %v", p, s)
		}
	}
}
