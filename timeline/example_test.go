package timeline_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/timeline"
)

// exampleRun simulates one 10-byte message with the per-op record that
// timelines need.
func exampleRun() (*sim.Program, *sim.Result) {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 2
rank 0 {
send 10b to 1 tag 0
}
rank 1 {
recv 10b from 0 tag 0
}
`), "message.goal")
	if err != nil {
		panic(err)
	}
	p, err := sim.Compile(s)
	if err != nil {
		panic(err)
	}
	res, err := p.Run(sim.Options{Params: sim.DefaultParams(), Record: true})
	if err != nil {
		panic(err)
	}
	return p, res
}

// A Chrome trace-event file: load it in Perfetto or chrome://tracing.
func ExampleWriteChrome() {
	p, res := exampleRun()
	var b bytes.Buffer
	if err := timeline.WriteChrome(&b, p, res, timeline.Options{Input: "message.goal"}); err != nil {
		panic(err)
	}
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, `"ph": "X"`) || strings.Contains(line, `"ph": "s"`) || strings.Contains(line, `"ph": "f"`) {
			fmt.Println(line)
		}
	}
	// Output:
	// {"name": "o_send", "cat": "send", "ph": "X", "ts": 0.000, "dur": 1.500, "pid": 0, "tid": 0, "args": {"op": "", "index": 0, "bytes": 10, "peer": 1, "tag": 0}},
	// {"name": "message", "cat": "message", "ph": "s", "id": 0, "ts": 0.000, "pid": 0, "tid": 0},
	// {"name": "send", "cat": "send", "ph": "X", "ts": 0.000, "dur": 1.054, "pid": 0, "tid": 1, "args": {"op": "", "index": 0, "bytes": 10, "peer": 1, "tag": 0}},
	// {"name": "o_recv", "cat": "recv", "ph": "X", "ts": 4.000, "dur": 1.554, "pid": 1, "tid": 0, "args": {"op": "", "index": 0, "bytes": 10, "peer": 0, "tag": 0}},
	// {"name": "message", "cat": "message", "ph": "f", "id": 0, "ts": 4.000, "pid": 1, "tid": 0, "bp": "e"},
	// {"name": "recv", "cat": "recv", "ph": "X", "ts": 4.000, "dur": 1.054, "pid": 1, "tid": 2, "args": {"op": "", "index": 0, "bytes": 10, "peer": 0, "tag": 0}}
}

// Paraver's three files, written next to each other.
func ExampleWriteParaver() {
	p, res := exampleRun()
	dir, err := os.MkdirTemp("", "paraver")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	if err := timeline.WriteParaver(filepath.Join(dir, "run"), p, res, timeline.Options{}); err != nil {
		panic(err)
	}
	names, _ := filepath.Glob(filepath.Join(dir, "run.*"))
	for _, n := range names {
		fmt.Println(filepath.Base(n))
	}
	// Output:
	// run.pcf
	// run.prv
	// run.row
}

// The .prv trace: a header, a comment with the parameters, then state,
// event and communication records sorted by time.
func ExampleWritePRV() {
	p, res := exampleRun()
	if err := timeline.WritePRV(os.Stdout, p, res, timeline.Options{}); err != nil {
		panic(err)
	}
	// Output:
	// #Paraver (01/01/70 at 00:00):5554_ns:2(1,1):1:2(1:1,1:2)
	// # gopsim: params L=2500 ns, o=1500 ns, g=1000 ns, G=6 ns/byte (166.7 MB/s), O=0 ns/byte, S=65535 bytes; ranks 0-1; window 0..end ns
	// 1:1:1:1:1:0:1500:2
	// 2:1:1:1:1:0:90000001:1
	// 3:1:1:1:1:0:1500:2:1:2:1:5554:4000:10:0
	// 2:1:1:1:1:1500:90000001:0
	// 1:2:1:2:1:4000:5554:3
	// 2:2:1:2:1:4000:90000001:1
	// 2:2:1:2:1:5554:90000001:0
}

// The .pcf names the states and the op event.
func ExampleWritePCF() {
	var b bytes.Buffer
	if err := timeline.WritePCF(&b); err != nil {
		panic(err)
	}
	i := strings.Index(b.String(), "STATES\n")
	fmt.Print(b.String()[i : i+strings.Index(b.String()[i:], "\n\n")+1])
	// Output:
	// STATES
	// 0    Idle
	// 1    Calc
	// 2    Send overhead (o_send)
	// 3    Receive overhead (o_recv)
	// 4    Noise
}

// The .row names Paraver's rows after the shown ranks.
func ExampleWriteROW() {
	p, res := exampleRun()
	if err := timeline.WriteROW(os.Stdout, p, res, timeline.Options{Ranks: []int{1}}); err != nil {
		panic(err)
	}
	// Output:
	// LEVEL CPU SIZE 1
	// rank 1 CPU 0
	//
	// LEVEL NODE SIZE 1
	// rank 1
	//
	// LEVEL TASK SIZE 1
	// rank 1
	//
	// LEVEL THREAD SIZE 1
	// rank 1 CPU 0
}

func ExampleParseRanks() {
	r, err := timeline.ParseRanks("0-3,8")
	fmt.Println(r, err)
	// Output: [0 1 2 3 8] <nil>
}

func ExampleCheckRanks() {
	fmt.Println(timeline.CheckRanks([]int{0, 5}, 8))
	fmt.Println(timeline.CheckRanks([]int{0, 8}, 8))
	fmt.Println(timeline.CheckRanks([]int{3, 3}, 8))
	// Output:
	// <nil>
	// timeline: rank 8: the schedule has ranks 0 to 7
	// timeline: rank 3 listed twice
}

func ExampleParseWindow() {
	from, to, err := timeline.ParseWindow("1000:250000")
	fmt.Println(from, to, err)
	// Output: 1000 250000 <nil>
}
