package main

import (
	"strings"
	"testing"
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
