package main

import "testing"

func TestRelayout(t *testing.T) {
	tests := []struct {
		name, line string
		old        []string
		want       string
	}{
		{"same columns",
			"| a -d 1 | 1,024 | 0.02 M | 0.03 M | 0.04 M | 0.005 | 0.006 s | 4.90 M | 204 | 15 MiB | 748.6 | – | – |",
			columns,
			"| a -d 1 | 1,024 | 0.02 M | 0.03 M | 0.04 M | 0.005 | 0.006 s | 4.90 M | 204 | 15 MiB | 748.6 | – | – |"},
		{"no queue ops before",
			"| a -d 1 | 1,024 | 0.02 M | 0.03 M | 0.005 | 0.006 s | 4.90 M | 204 | 15 MiB | 748.6 | 1.42 s (12.1x faster) | 445 MiB (5.0x less) |",
			[]string{"schedule", "ranks", "ops", "events", "file bytes/op", "wall", "events/s", "ns/event", "peak RSS", "RSS bytes/op", "LogGOPSim wall", "LogGOPSim RSS"},
			"| a -d 1 | 1,024 | 0.02 M | 0.03 M | – | 0.005 | 0.006 s | 4.90 M | 204 | 15 MiB | 748.6 | 1.42 s (12.1x faster) | 445 MiB (5.0x less) |"},
	}
	for _, tc := range tests {
		if got := relayout(tableCells(tc.line), tc.old); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
