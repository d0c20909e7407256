package sweep

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlot(t *testing.T) {
	const golden = "testdata/sweep_latency.csv"
	tests := []struct {
		name string
		opt  PlotOptions
		err  string // "" for success
		want []string
	}{
		{"svg series", PlotOptions{X: "L_ns", Series: "G_ns_per_byte", Where: map[string]string{"o_ns": "1500"}, LogX: true, Format: "svg"},
			"", []string{"max_time_ns against L_ns by G_ns_per_byte", "G_ns_per_byte=1", "G_ns_per_byte=6", ">where o_ns=1500<"}},
		// The --where values say which slice an image shows, under a
		// title given too, as the CSV has them (the column names the unit).
		{"svg title and wheres", PlotOptions{X: "L_ns", Series: "G_ns_per_byte", Where: map[string]string{"o_ns": "1500"}, Title: "latency", Format: "svg"},
			"", []string{">latency<", ">where o_ns=1500<"}},
		{"svg two wheres", PlotOptions{X: "L_ns", Where: map[string]string{"o_ns": "1.5us", "G_ns_per_byte": "6"}, Format: "svg"},
			"", []string{">max_time_ns against L_ns<", ">where G_ns_per_byte=6, o_ns=1500<"}},
		{"png", PlotOptions{X: "o_ns", Series: "G_ns_per_byte", Where: map[string]string{"L_ns": "4000"}, LogY: true, Y: "events"}, "", nil},
		{"other dimension varies", PlotOptions{X: "L_ns", Series: "o_ns"}, "G_ns_per_byte takes 2 values among the rows (1, 6): fix it with --where G_ns_per_byte=VALUE", nil},
		{"unknown column", PlotOptions{X: "latency"}, `no column "latency" for x`, nil},
		{"no rows", PlotOptions{X: "L_ns", Where: map[string]string{"o_ns": "1"}}, "no row has o_ns=1 (its values: 500, 1500)", nil},
		// --where compares numbers, in the column's unit: what a person
		// types, with units or other spellings, picks the rows the CSV
		// writes its way.
		{"where with units", PlotOptions{X: "L_ns", Series: "G_ns_per_byte", Where: map[string]string{"o_ns": "1.5us"}, Format: "svg"},
			"", []string{"G_ns_per_byte=1", "G_ns_per_byte=6", ">where o_ns=1500<"}},
		{"where spelt otherwise", PlotOptions{X: "L_ns", Series: "G_ns_per_byte", Where: map[string]string{"o_ns": "1.5e3"}, Format: "svg"},
			"", []string{"G_ns_per_byte=1", "G_ns_per_byte=6"}},
		{"where as a bandwidth", PlotOptions{X: "L_ns", Series: "o_ns", Where: map[string]string{"G_ns_per_byte": "1GB/s"}, Format: "svg"},
			"", []string{"o_ns=500", "o_ns=1500"}},
		{"where bad unit", PlotOptions{X: "L_ns", Where: map[string]string{"o_ns": "1.5 parsecs"}}, "--where o_ns=1.5 parsecs", nil},
		{"format", PlotOptions{X: "L_ns", Format: "gif"}, `format "gif"`, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, err := os.Open(golden)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var img bytes.Buffer
			err = Plot(&img, f, golden, tc.opt)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.opt.Format == "svg" {
				for _, w := range tc.want {
					if !strings.Contains(img.String(), w) {
						t.Errorf("the SVG lacks %q", w)
					}
				}
			} else if _, err := png.Decode(&img); err != nil {
				t.Errorf("not a PNG: %v", err)
			}
		})
	}
	out := filepath.Join(t.TempDir(), "p.svg")
	if err := PlotFile(out, golden, PlotOptions{X: "L_ns", Series: "o_ns", Where: map[string]string{"G_ns_per_byte": "1"}}); err != nil {
		t.Fatal(err)
	}
	if data := readFile(t, out); !bytes.Contains(data, []byte("<svg")) {
		t.Errorf("%s is not an SVG", out)
	}
}
