package report

import (
	"bytes"
	"os"
	"testing"
)

func addSeeds(f *testing.F, files ...string) {
	for _, name := range files {
		data, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzParseResult: any input gives a result or an error, never a panic,
// and a result that parses makes a report.
func FuzzParseResult(f *testing.F) {
	addSeeds(f, "ring4.json", "pingpong.json", "pingpong_noise_network.json")
	f.Add([]byte(`{"num_ranks": 1, "params": {}, "max_time_ns": 0, "per_rank_ns": [0]}`))
	f.Add([]byte(`{"num_ranks": 1, "params": {}, "max_time_ns": 5, "per_rank_ns": [5], "critical_path": {"steps": [{"rank": 0, "end_ns": 5}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseResult(data, "fuzz.json")
		if err != nil {
			return
		}
		if err := Write(&bytes.Buffer{}, Input{Result: r}, Options{BarRanks: 8, Slowest: 4}); err != nil {
			t.Fatalf("a valid result gives no report: %v", err)
		}
	})
}

// FuzzParseTimeline: any input gives a timeline or an error, never a
// panic, and a timeline that parses goes into a report.
func FuzzParseTimeline(f *testing.F) {
	addSeeds(f, "ring4.timeline.json")
	f.Add([]byte(`[{"ph":"X","ts":1,"dur":2,"pid":0,"tid":0},{"ph":"f","id":"a","pid":0,"tid":0},{"ph":"s","id":"a","pid":1,"tid":0}]`))
	r, err := ReadResult("testdata/ring4.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tl, err := ParseTimeline(data, "fuzz.json")
		if err != nil {
			return
		}
		if err := Write(&bytes.Buffer{}, Input{Result: r, Timeline: tl}, Options{TimelineRanks: 3, TimelineEvents: 50}); err != nil {
			t.Fatalf("a valid timeline gives no report: %v", err)
		}
	})
}

// FuzzParseSweep: any input gives a sweep or an error, never a panic.
func FuzzParseSweep(f *testing.F) {
	addSeeds(f, "sweep_latency.csv")
	f.Add([]byte("point,L_ns,max_time_ns\n0,1,2\n1,3,4\n"))
	r, err := ReadResult("testdata/pingpong.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseSweep(data, "fuzz.csv")
		if err != nil {
			return
		}
		if err := Write(&bytes.Buffer{}, Input{Result: r, Sweeps: []*Sweep{s}}, Options{}); err != nil {
			t.Fatalf("a valid sweep gives no report: %v", err)
		}
	})
}
