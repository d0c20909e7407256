package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestParsePingpong(t *testing.T) {
	for _, c := range []struct {
		out, size string
		want      float64
		err       string
	}{
		{"pingpong: 20000 round trips of 8 bytes, 0.88 us each\n", "8", 0.88, ""},
		{"some warning\npingpong: 2000 round trips of 65536 bytes, 25.91 us each\n", "65536", 25.91, ""},
		{"pingpong: 2000 round trips of 65536 bytes, 25.91 us each\n", "8", 0, "no round trip of 8 bytes"},
		{"mpirun: nothing\n", "8", 0, "no round trip of 8 bytes"},
	} {
		got, err := parsePingpong(c.out, c.size)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("parsePingpong(%q, %s): error %v, want one containing %q", c.out, c.size, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("parsePingpong(%q, %s) = %g, %v; want %g", c.out, c.size, got, err, c.want)
		}
	}
}

func TestCalibratedRTT(t *testing.T) {
	file := []byte(`{"L_ns": 300, "fit": {"pingpong": [
		{"s_bytes": 1, "measured_rtt_ns": 570, "simulated_rtt_ns": 598},
		{"s_bytes": 8, "measured_rtt_ns": 697.7, "simulated_rtt_ns": 603},
		{"s_bytes": 65536, "measured_rtt_ns": 19481.8, "simulated_rtt_ns": 18025.5}]}}`)
	for _, c := range []struct {
		text []byte
		size int64
		want float64
	}{
		{file, 8, 0.6977},
		{file, 65536, 19.4818},
		{file, 4096, 0},                 // not measured at that size
		{[]byte(`{"L_ns": 300}`), 8, 0}, // a hand-written file has no fit
		{[]byte(`not json`), 8, 0},
	} {
		if got := calibratedRTT(c.text, c.size); got < c.want-1e-9 || got > c.want+1e-9 {
			t.Errorf("calibratedRTT(%.20s…, %d) = %g, want %g", c.text, c.size, got, c.want)
		}
	}
}

// TestReportRecalibrate checks that with -recalibrate each row shows its
// own calibration's round trips and the report lists every calibration.
func TestReportRecalibrate(t *testing.T) {
	cal := func(l, small, large float64) *calibration {
		return &calibration{command: "bin/gopsim calibrate --backend mpi --quiet -o params.json", text: []byte(fmt.Sprintf(
			`{"L_ns": %g, "o_ns": 1, "g_ns": 1, "G_ns_per_byte": 0.1, "O_ns_per_byte": 0, "S_bytes": 4040, "ranges": [], "fit": {"pingpong": [
			{"s_bytes": 8, "measured_rtt_ns": %g}, {"s_bytes": 65536, "measured_rtt_ns": %g}]}}`, l, small, large))}
	}
	a, b := cal(300, 1000, 30000), cal(450, 2000, 45000)
	sec := section{ranks: 2, results: []*result{
		{w: workload{name: "pingpong", args: []string{"5000", "4096"}}, ratio: 0.95, ref: reference{1.1, 33}, cal: a, runs: 27},
		{w: workload{name: "fring"}, ratio: 1.2, ref: reference{1.8, 40}, cal: b, runs: 9},
	}}
	for _, recal := range []bool{false, true} {
		var out strings.Builder
		o := &options{reps: 9, short: 27, ranks: []int{2}, recal: recal}
		report(&out, o, a, []section{sec}, time.Now(), "0.00 0.00 0.00")
		got := out.String()
		for _, want := range []string{
			"| pingpong 5000 4096 |", "| fring |", `"L_ns": 300`, "| 0.00-0.00 (27) |", "| 0.00-0.00 (9) |",
			"9 runs per workload without and with the tracer, alternating, 27 of those whose first traced run measured under 10 ms",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("recalibrate %v: report lacks %q:\n%s", recal, want, got)
			}
		}
		if strings.Contains(got, "-short-reps 27 -np 2 -recalibrate=false`)") == recal {
			t.Errorf("recalibrate %v: the command in the report:\n%s", recal, got)
		}
		perRow := []string{
			"calibrated right before each workload", "| 1.10 / 33.00 | 1.00 / 30.00 |", "| 1.80 / 40.00 | 2.00 / 45.00 |",
			"### Calibrations", `"L_ns": 450`, "0.90 to 1.10 times at 8 bytes and 0.89 to 1.10 times at 64 KiB",
		}
		for _, want := range perRow {
			if strings.Contains(got, want) != recal {
				t.Errorf("recalibrate %v: report has %q: %v, want %v:\n%s", recal, want, !recal, recal, got)
			}
		}
	}
}
