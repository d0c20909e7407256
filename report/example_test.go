package report_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/gopsim/gopsim/report"
)

// Write a report of a 4-rank run with its timeline and a sweep.
func ExampleWriteFile() {
	res, err := report.ReadResult("testdata/ring4.json")
	if err != nil {
		log.Fatal(err)
	}
	tl, err := report.ReadTimeline("testdata/ring4.timeline.json")
	if err != nil {
		log.Fatal(err)
	}
	sw, err := report.ReadSweep("testdata/sweep_latency.csv")
	if err != nil {
		log.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "report")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "report.html")
	in := report.Input{Result: res, ResultFile: "ring4.json", Timeline: tl, Sweeps: []*report.Sweep{sw}}
	if err := report.WriteFile(out, in, report.Options{}); err != nil {
		log.Fatal(err)
	}
	page, err := os.ReadFile(out)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.NumRanks, "ranks, max", res.MaxTime, "ns at rank", res.MaxRank)
	fmt.Println("critical path:", res.CriticalPath.Calc, "ns calc of", res.CriticalPath.Length)
	fmt.Println("timeline events:", len(tl.Events), "swept:", sw.Swept())
	fmt.Println("charts:", strings.Count(string(page), `class="chart`))
	// Output:
	// 4 ranks, max 51638 ns at rank 0
	// critical path: 40000 ns calc of 51638
	// timeline events: 28 swept: [L_ns o_ns G_ns_per_byte]
	// charts: 7
}

// Reader errors name the file, the line and column, and the byte offset.
func ExampleParseResult() {
	_, err := report.ParseResult([]byte("{\n  \"num_ranks\": 2,\n  \"params\" {}\n}"), "run.json")
	fmt.Println(err)
	// Output:
	// run.json:3:12 (byte offset 31): invalid character '{' after object key
}

// A timeline is Chrome's trace-event format: an object with traceEvents,
// or a bare array.
func ExampleParseTimeline() {
	tl, err := report.ParseTimeline([]byte(`[
	  {"name": "process_name", "ph": "M", "pid": 0, "tid": 0, "args": {"name": "rank 0"}},
	  {"name": "calc", "cat": "calc", "ph": "X", "ts": 0, "dur": 10, "pid": 0, "tid": 0}
	]`), "t.json")
	if err != nil {
		log.Fatal(err)
	}
	for _, e := range tl.Events {
		fmt.Println(e.Ph, e.Name, e.Ts, e.Dur, e.Pid)
	}
	// Output:
	// M process_name 0 0 0
	// X calc 0 10 0
}

// A sweep result CSV: the swept parameters are the columns that vary.
func ExampleParseSweep() {
	s, err := report.ParseSweep([]byte("point,L_ns,o_ns,max_time_ns\n0,250,1500,10\n1,500,1500,12\n"), "s.csv")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(s.Rows), "rows, swept:", s.Swept())
	// Output:
	// 2 rows, swept: [L_ns]
}
