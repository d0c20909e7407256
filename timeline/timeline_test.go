package timeline_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/pattern"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/timeline"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// small is the golden schedule: a calc and two sends on rank 0 (one of
// them labelled, with a tag), a receive and a calc on CPU 1 of rank 1,
// and a wildcard receive on rank 2, a straggler (factor 2), whose
// receive overhead therefore shows noise.
const small = `num_ranks 3
rank 0 {
l1: calc 100
l2: send 10b to 1 tag 0
hello: send 1b to 2 tag 5
l2 requires l1
hello requires l1
}
rank 1 {
l1: recv 10b from 0 tag 0
l2: calc 200 cpu 1
l2 requires l1
}
rank 2 {
l1: recv 1b from -1 tag -1
}
`

func run(t testing.TB, text string, opt sim.Options) (*sim.Program, *sim.Result) {
	t.Helper()
	s, err := goal.ReadText(strings.NewReader(text), "small.goal")
	if err != nil {
		t.Fatal(err)
	}
	p, err := sim.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	if opt.Params.L == 0 && opt.Params.Overhead == 0 {
		opt.Params = sim.DefaultParams()
	}
	opt.Record = true
	res, err := p.Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	return p, res
}

func runSmall(t testing.TB) (*sim.Program, *sim.Result) {
	m, err := noise.New(noise.Config{Stragglers: []int32{2}, Factor: 2}, 3)
	if err != nil {
		t.Fatal(err)
	}
	return run(t, small, sim.Options{Noise: m})
}

// runPattern simulates a generated schedule.
func runPattern(t testing.TB, name string, pp pattern.Params, params sim.Params) (*sim.Program, *sim.Result) {
	t.Helper()
	g, err := pattern.New(name, pp)
	if err != nil {
		t.Fatal(err)
	}
	s := goal.NewSchedule(g.NumRanks())
	if err := pattern.Write(g, s.AppendRank); err != nil {
		t.Fatal(err)
	}
	p, err := sim.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(sim.Options{Params: params, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	return p, res
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update creates it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it after checking):\n%s", name, got)
	}
}

// chromeFile is what a trace-event JSON object holds.
type chromeFile struct {
	TraceEvents     []map[string]any `json:"traceEvents"`
	DisplayTimeUnit string           `json:"displayTimeUnit"`
	OtherData       map[string]any   `json:"otherData"`
}

// validateChrome checks data against the trace-event format as the
// timeline writes it: the object's keys; per phase the required fields
// (X: name, ph, ts, dur >= 0, pid, tid; M: process_name, thread_name or
// process_sort_index with their args; s/f: name, cat, id, ts, pid, tid,
// and bp "e" on f); every pid and (pid, tid) of an event declared by
// metadata; flow starts and finishes paired one to one by (cat, name,
// id), each inside a complete event on its track, the start not after
// the finish. It returns the events by phase.
func validateChrome(t *testing.T, data []byte) (*chromeFile, map[string]int) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var f chromeFile
	if err := dec.Decode(&f); err != nil {
		t.Fatalf("not JSON: %v", err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		t.Fatal(err)
	}
	for k := range top {
		if k != "traceEvents" && k != "displayTimeUnit" && k != "otherData" {
			t.Errorf("unexpected top-level key %q", k)
		}
	}
	if f.TraceEvents == nil {
		t.Fatalf("no traceEvents array")
	}
	if f.DisplayTimeUnit != "ns" {
		t.Errorf("displayTimeUnit %q, want ns", f.DisplayTimeUnit)
	}
	num := func(i int, e map[string]any, k string) float64 {
		t.Helper()
		n, ok := e[k].(json.Number)
		if !ok {
			t.Errorf("event %d (%v): %s is not a number", i, e, k)
			return 0
		}
		x, err := n.Float64()
		if err != nil {
			t.Errorf("event %d: %s: %v", i, k, err)
		}
		return x
	}
	str := func(i int, e map[string]any, k string) string {
		t.Helper()
		s, ok := e[k].(string)
		if !ok || s == "" {
			t.Errorf("event %d (%v): %s is not a non-empty string", i, e, k)
		}
		return s
	}
	type track struct{ pid, tid float64 }
	type span struct{ ts, end float64 }
	procs := map[float64]bool{}
	threads := map[track]bool{}
	slices := map[track][]span{}
	type flowKey struct {
		cat, name string
		id        float64
	}
	type flowEnd struct {
		tr track
		ts float64
		i  int
	}
	starts, finishes := map[flowKey]flowEnd{}, map[flowKey]flowEnd{}
	count := map[string]int{}
	used := []track{}
	for i, e := range f.TraceEvents {
		ph := str(i, e, "ph")
		count[ph]++
		switch ph {
		case "M":
			args, ok := e["args"].(map[string]any)
			if !ok {
				t.Errorf("event %d: metadata without args", i)
				continue
			}
			pid := num(i, e, "pid")
			switch str(i, e, "name") {
			case "process_name":
				str(i, args, "name")
				procs[pid] = true
			case "thread_name":
				str(i, args, "name")
				threads[track{pid, num(i, e, "tid")}] = true
			case "process_sort_index":
				num(i, args, "sort_index")
			default:
				t.Errorf("event %d: unknown metadata %v", i, e["name"])
			}
		case "X":
			str(i, e, "name")
			ts, dur := num(i, e, "ts"), num(i, e, "dur")
			if dur < 0 || ts < 0 {
				t.Errorf("event %d: ts %g dur %g", i, ts, dur)
			}
			tr := track{num(i, e, "pid"), num(i, e, "tid")}
			used = append(used, tr)
			slices[tr] = append(slices[tr], span{ts, ts + dur})
			if _, ok := e["args"].(map[string]any); !ok {
				t.Errorf("event %d: complete event without args", i)
			}
		case "s", "f":
			k := flowKey{str(i, e, "cat"), str(i, e, "name"), num(i, e, "id")}
			tr := track{num(i, e, "pid"), num(i, e, "tid")}
			used = append(used, tr)
			end := flowEnd{tr, num(i, e, "ts"), i}
			m := starts
			if ph == "f" {
				m = finishes
				if e["bp"] != "e" {
					t.Errorf("event %d: flow finish without bp e", i)
				}
			}
			if _, dup := m[k]; dup {
				t.Errorf("event %d: flow %s id %v twice", i, ph, k.id)
			}
			m[k] = end
		default:
			t.Errorf("event %d: unexpected phase %q", i, ph)
		}
	}
	for _, tr := range used {
		if !procs[tr.pid] || !threads[tr] {
			t.Errorf("pid %g tid %g used but not declared by metadata", tr.pid, tr.tid)
		}
	}
	inside := func(e flowEnd) bool {
		for _, s := range slices[e.tr] {
			if s.ts <= e.ts && e.ts <= s.end {
				return true
			}
		}
		return false
	}
	for k, s := range starts {
		fin, ok := finishes[k]
		if !ok {
			t.Errorf("flow id %v starts (event %d) but never finishes", k.id, s.i)
			continue
		}
		if fin.ts < s.ts {
			t.Errorf("flow id %v finishes at %g before it starts at %g", k.id, fin.ts, s.ts)
		}
		if !inside(s) || !inside(fin) {
			t.Errorf("flow id %v: an end is not inside a slice of its track", k.id)
		}
	}
	for k, fin := range finishes {
		if _, ok := starts[k]; !ok {
			t.Errorf("flow id %v finishes (event %d) but never starts", k.id, fin.i)
		}
	}
	return &f, count
}

func chrome(t *testing.T, p *sim.Program, res *sim.Result, opt timeline.Options) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := timeline.WriteChrome(&b, p, res, opt); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestChromeGolden(t *testing.T) {
	p, res := runSmall(t)
	data := chrome(t, p, res, timeline.Options{Input: "small.goal"})
	_, count := validateChrome(t, data)
	// 3 ranks: process_name, process_sort_index, and 2 CPUs + 2 NIC
	// tracks each; slices: rank 0 calc, 2 o_send, 2 NIC send; rank 1
	// o_recv, NIC recv, calc; rank 2 o_recv, noise, NIC recv; 2 flows.
	want := map[string]int{"M": 3 * (2 + 4), "X": 5 + 3 + 3, "s": 2, "f": 2}
	for ph, n := range want {
		if count[ph] != n {
			t.Errorf("%d events of phase %s, want %d", count[ph], ph, n)
		}
	}
	golden(t, "small.json", data)
	if again := chrome(t, p, res, timeline.Options{Input: "small.goal"}); !bytes.Equal(again, data) {
		t.Errorf("a second write differs")
	}
}

// TestChromeBounded: a rank subset and a time window keep only what
// overlaps them, and flows only where both ends are kept.
func TestChromeBounded(t *testing.T) {
	p, res := runPattern(t, "allreduce_recdoub", pattern.Params{Ranks: 16, Size: 100000}, sim.DefaultParams())
	all := chrome(t, p, res, timeline.Options{})
	_, cAll := validateChrome(t, all)
	if cAll["s"] == 0 || cAll["s"] != cAll["f"] {
		t.Errorf("whole run: %d flow starts, %d finishes", cAll["s"], cAll["f"])
	}
	from, to := res.MaxTime/3, res.MaxTime/2
	ranks := []int{5, 0, 1, 2, 3}
	data := chrome(t, p, res, timeline.Options{Ranks: ranks, From: from, To: to})
	f, count := validateChrome(t, data)
	if count["X"] == 0 || count["X"] >= cAll["X"] || count["s"] >= cAll["s"] {
		t.Errorf("bounded: %d slices and %d flows of %d and %d", count["X"], count["s"], cAll["X"], cAll["s"])
	}
	keep := map[float64]bool{5: true, 0: true, 1: true, 2: true, 3: true}
	for i, e := range f.TraceEvents {
		pid, _ := e["pid"].(json.Number).Float64()
		if !keep[pid] {
			t.Errorf("event %d on rank %g, not shown", i, pid)
		}
		if e["ph"] == "X" {
			ts, _ := e["ts"].(json.Number).Float64()
			dur, _ := e["dur"].(json.Number).Float64()
			if ts*1000 > float64(to)+0.5 || (ts+dur)*1000 < float64(from)-0.5 {
				t.Errorf("event %d [%g, %g] µs outside the window [%d, %d] ns", i, ts, ts+dur, from, to)
			}
		}
	}
	if f.OtherData["ranks"] != "5,0-3" || f.OtherData["window_to_ns"] == nil {
		t.Errorf("otherData %v", f.OtherData)
	}
}

// TestChromeManyCPUs: several CPUs and NICs per rank, rendezvous and O.
func TestChromeManyCPUs(t *testing.T) {
	text := `num_ranks 2
rank 0 {
a: send 100000b to 1 tag 1 cpu 1 nic 1
b: calc 500 cpu 0
c: recv 8b from 1 tag 2 cpu 1
}
rank 1 {
a: recv 100000b from 0 tag 1 cpu 0 nic 0
b: send 8b to 0 tag 2 cpu 1 nic 1
b requires a
}
`
	pr := sim.DefaultParams()
	pr.OverheadPerByte = 1
	p, res := run(t, text, sim.Options{Params: pr})
	data := chrome(t, p, res, timeline.Options{})
	_, count := validateChrome(t, data)
	if count["s"] != 2 || count["M"] != 2*(2+2+4) {
		t.Errorf("events by phase %v", count)
	}
}

func TestParaverGolden(t *testing.T) {
	p, res := runSmall(t)
	dir := t.TempDir()
	prefix := filepath.Join(dir, "small")
	if err := timeline.WriteParaver(prefix, p, res, timeline.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".prv", ".pcf", ".row"} {
		data, err := os.ReadFile(prefix + ext)
		if err != nil {
			t.Fatal(err)
		}
		golden(t, "small"+ext, data)
	}
	prv, _ := os.ReadFile(prefix + ".prv")
	row, _ := os.ReadFile(prefix + ".row")
	got := checkParaver(t, prv, row)
	// Rank 0: calc, 2 send overheads; rank 1: receive overhead, calc;
	// rank 2: receive overhead and its noise: 7 states; an op event at
	// the start and end of each but the noise: 12; 2 messages.
	if got != [4]int{0, 7, 12, 2} {
		t.Errorf("records by type %v, want 7 states, 12 events, 2 communications", got[1:])
	}
}

// checkParaver parses a .prv (and its .row) and checks the header, the
// record syntax, the object ids against the header, the time order and
// the .row sizes. It returns the records counted by type.
func checkParaver(t *testing.T, prv, row []byte) [4]int {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(prv))
	sc.Buffer(nil, 1<<20)
	if !sc.Scan() {
		t.Fatal("empty .prv")
	}
	h := sc.Text()
	rest, ok := strings.CutPrefix(h, "#Paraver ("+timeline.ParaverDate+"):")
	if !ok {
		t.Fatalf("header %q", h)
	}
	fields := strings.SplitN(rest, ":", 3) // ftime_ns, nodes(cpus), 1:tasks(...)
	if len(fields) != 3 || !strings.HasSuffix(fields[0], "_ns") {
		t.Fatalf("header %q", h)
	}
	ftime, err := strconv.ParseInt(strings.TrimSuffix(fields[0], "_ns"), 10, 64)
	if err != nil {
		t.Fatalf("header %q: %v", h, err)
	}
	var nodes int
	var cpuList string
	if _, err := fmt.Sscanf(fields[1], "%d(%s", &nodes, &cpuList); err != nil {
		t.Fatalf("header nodes %q: %v", fields[1], err)
	}
	cpusPerNode := strings.Split(strings.TrimSuffix(cpuList, ")"), ",")
	if len(cpusPerNode) != nodes {
		t.Fatalf("header: %d nodes, %d CPU counts", nodes, len(cpusPerNode))
	}
	totalCPUs := 0
	for _, c := range cpusPerNode {
		n, _ := strconv.Atoi(c)
		totalCPUs += n
	}
	appl, ok := strings.CutPrefix(fields[2], "1:")
	if !ok {
		t.Fatalf("header: %q is not one application", fields[2])
	}
	var tasks int
	var threadList string
	if _, err := fmt.Sscanf(appl, "%d(%s", &tasks, &threadList); err != nil {
		t.Fatalf("header application %q: %v", appl, err)
	}
	threadsOf := map[int]int{}
	for i, x := range strings.Split(strings.TrimSuffix(threadList, ")"), ",") {
		th, node, ok := strings.Cut(x, ":")
		n, err1 := strconv.Atoi(th)
		nd, err2 := strconv.Atoi(node)
		if !ok || err1 != nil || err2 != nil || nd < 1 || nd > nodes {
			t.Fatalf("header task %d: %q", i+1, x)
		}
		threadsOf[i+1] = n
	}
	if len(threadsOf) != tasks {
		t.Fatalf("header: %d tasks, %d thread counts", tasks, len(threadsOf))
	}
	var count [4]int
	last := int64(-1)
	ints := func(line string, n int) []int64 {
		f := strings.Split(line, ":")
		if len(f) != n {
			t.Fatalf("record %q: %d fields, want %d", line, len(f), n)
		}
		v := make([]int64, n)
		for i, s := range f {
			x, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("record %q: field %d: %v", line, i+1, err)
			}
			v[i] = x
		}
		return v
	}
	object := func(line string, cpu, ap, task, thread int64) {
		if cpu < 1 || cpu > int64(totalCPUs) || ap != 1 || task < 1 || task > int64(tasks) || thread < 1 || thread > int64(threadsOf[int(task)]) {
			t.Errorf("record %q: object %d:%d:%d:%d outside the header's", line, cpu, ap, task, thread)
		}
	}
	// The line after the header is the comment that echoes the run
	// (Paraver skips a body line that starts with '#').
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), "# gopsim: ") || !strings.Contains(sc.Text(), "params L=") {
		t.Fatalf("no comment line with the parameters after the header: %q", sc.Text())
	}
	for sc.Scan() {
		line := sc.Text()
		var v []int64
		switch {
		case strings.HasPrefix(line, "1:"):
			v = ints(line, 8)
			object(line, v[1], v[2], v[3], v[4])
			if v[6] < v[5] || v[6] > ftime {
				t.Errorf("state %q: end before begin or after the end", line)
			}
			if v[7] < 0 || v[7] > 4 {
				t.Errorf("state %q: unknown state", line)
			}
		case strings.HasPrefix(line, "2:"):
			v = ints(line, 8)
			object(line, v[1], v[2], v[3], v[4])
		case strings.HasPrefix(line, "3:"):
			v = ints(line, 15)
			object(line, v[1], v[2], v[3], v[4])
			object(line, v[7], v[8], v[9], v[10])
			if v[6] < v[5] || v[12] < v[6] || v[11] > ftime {
				t.Errorf("communication %q: times out of order", line)
			}
		default:
			t.Fatalf("record %q of unknown type", line)
		}
		count[v[0]]++
		if v[5] < last {
			t.Errorf("record %q before the previous one's time %d", line, last)
		}
		last = v[5]
	}
	// .row: the sizes of each level match the header.
	want := map[string]int{"CPU": totalCPUs, "NODE": nodes, "TASK": tasks, "THREAD": 0}
	for _, n := range threadsOf {
		want["THREAD"] += n
	}
	lines := strings.Split(string(row), "\n")
	for i := 0; i < len(lines); i++ {
		var level string
		var size int
		if _, err := fmt.Sscanf(lines[i], "LEVEL %s SIZE %d", &level, &size); err != nil {
			continue
		}
		if size != want[level] {
			t.Errorf(".row level %s size %d, want %d", level, size, want[level])
		}
		for k := 1; k <= size; k++ {
			if i+k >= len(lines) || lines[i+k] == "" {
				t.Errorf(".row level %s: %d names, want %d", level, k-1, size)
				break
			}
		}
		delete(want, level)
	}
	if len(want) > 0 {
		t.Errorf(".row lacks levels %v", want)
	}
	return count
}

// TestParaverCounts: on a bigger run, with a subset and a window, the
// record counts match what the run's record says should be there.
func TestParaverCounts(t *testing.T) {
	p, res := runPattern(t, "mpi_alltoall", pattern.Params{Ranks: 12, Size: 2000, Algo: "pairwise"}, sim.DefaultParams())
	opt := timeline.Options{Ranks: []int{3, 4, 5, 11}, From: res.MaxTime / 4, To: res.MaxTime * 3 / 4}
	var prv, row bytes.Buffer
	if err := timeline.WritePRV(&prv, p, res, opt); err != nil {
		t.Fatal(err)
	}
	if err := timeline.WriteROW(&row, p, res, opt); err != nil {
		t.Fatal(err)
	}
	got := checkParaver(t, prv.Bytes(), row.Bytes())
	// Count independently: CPU work of the shown ranks overlapping the
	// window, and messages between shown ranks with both ends in it.
	shown := map[int]bool{3: true, 4: true, 5: true, 11: true}
	in := func(s, e int64) bool { return e >= opt.From && s <= opt.To }
	states, msgs := 0, 0
	for g := int32(0); g < int32(p.NumOps()); g++ {
		info := p.OpInfo(g)
		rc := res.Record[g]
		switch info.Kind {
		case goal.Calc:
			if shown[info.Rank] && in(rc.Start, rc.CPUEnd) {
				states++
			}
		case goal.Send:
			if shown[info.Rank] && in(rc.Start, rc.CPUEnd) {
				states++
			}
			q := int(info.Peer)
			if shown[q] && shown[info.Rank] && in(rc.Start, rc.CPUEnd) && in(rc.Arrive, rc.RecvCPUEnd) {
				msgs++
			}
			if shown[q] && in(rc.Arrive, rc.RecvCPUEnd) {
				states++ // its receive overhead
			}
		}
	}
	if got[1] != states || got[2] != 2*states || got[3] != msgs || msgs == 0 {
		t.Errorf("records by type %v, want %d states, %d events, %d communications", got[1:], states, 2*states, msgs)
	}
	var again bytes.Buffer
	if err := timeline.WritePRV(&again, p, res, opt); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), prv.Bytes()) {
		t.Errorf("a second write differs")
	}
}

func TestErrors(t *testing.T) {
	p, res := runSmall(t)
	noRec := *res
	noRec.Record = nil
	for _, tc := range []struct {
		name string
		res  *sim.Result
		opt  timeline.Options
		want string
	}{
		{"no record", &noRec, timeline.Options{}, "no per-op record"},
		{"rank beyond", res, timeline.Options{Ranks: []int{0, 3}}, "rank 3"},
		{"rank twice", res, timeline.Options{Ranks: []int{1, 1}}, "twice"},
		{"window", res, timeline.Options{From: 10, To: 5}, "window"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			err := timeline.WriteChrome(&b, p, tc.res, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("WriteChrome: %v, want an error with %q", err, tc.want)
			}
			if err := timeline.WritePRV(&b, p, tc.res, tc.opt); err == nil {
				t.Errorf("WritePRV: no error")
			}
			if err := timeline.WriteParaver(filepath.Join(t.TempDir(), "x"), p, tc.res, tc.opt); err == nil {
				t.Errorf("WriteParaver: no error")
			}
		})
	}
	if !errors.Is(timeline.WriteChrome(&bytes.Buffer{}, p, &noRec, timeline.Options{}), timeline.ErrNoRecord) {
		t.Errorf("no record: not ErrNoRecord")
	}
	// A failing writer's error comes back.
	if err := timeline.WriteChrome(failWriter{}, p, res, timeline.Options{}); err == nil {
		t.Errorf("WriteChrome to a failing writer: no error")
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestParseRanks(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []int
		err  bool
	}{
		{"0-3,7", []int{0, 1, 2, 3, 7}, false},
		{" 5 ", []int{5}, false},
		{"2-2,9-10", []int{2, 9, 10}, false},
		{"", nil, true},
		{"3-1", nil, true},
		{"a", nil, true},
		{"-4", nil, true},
		{"0-99999999999", nil, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := timeline.ParseRanks(tc.in)
			if (err != nil) != tc.err || fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("ParseRanks(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.err)
			}
		})
	}
}

func TestParseWindow(t *testing.T) {
	for _, tc := range []struct {
		in       string
		from, to int64
		err      bool
	}{
		{"100:2000", 100, 2000, false},
		{":5000", 0, 5000, false},
		{"7:", 7, 0, false},
		{"5:5", 5, 5, false},
		{"9:3", 0, 0, true},
		{"100", 0, 0, true},
		{"x:1", 0, 0, true},
		{"-1:4", 0, 0, true},
		// Times with units and decimals, as every time gopsim takes; a
		// fraction of a ns widens the window to whole ns.
		{"1.5us:0.5ms", 1500, 500000, false},
		{"2 µs:", 2000, 0, false},
		{":1e3ns", 0, 1000, false},
		{"0.5:2.5", 0, 3, false},
		{"1ms:1us", 0, 0, true},
		{"1parsec:2", 0, 0, true},
		{"0:1e300s", 0, 0, true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			from, to, err := timeline.ParseWindow(tc.in)
			if (err != nil) != tc.err || from != tc.from || to != tc.to {
				t.Errorf("ParseWindow(%q) = %d, %d, %v; want %d, %d (error %v)", tc.in, from, to, err, tc.from, tc.to, tc.err)
			}
		})
	}
}

func FuzzParseRanks(f *testing.F) {
	for _, s := range []string{"0-15,32", "1", "", "3-1", "0-0,0", " 4 - 9 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := timeline.ParseRanks(s)
		if err == nil && len(r) == 0 {
			t.Errorf("ParseRanks(%q): no ranks and no error", s)
		}
		for _, x := range r {
			if x < 0 {
				t.Errorf("ParseRanks(%q): negative rank %d", s, x)
			}
		}
	})
}

func FuzzParseWindow(f *testing.F) {
	for _, s := range []string{"0:100", ":9", "9:", "a:b", "5:1", ":"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		from, to, err := timeline.ParseWindow(s)
		if err == nil && (from < 0 || to < 0 || (to > 0 && to < from)) {
			t.Errorf("ParseWindow(%q) = %d, %d without error", s, from, to)
		}
	})
}

func BenchmarkWriteChrome(b *testing.B) {
	p, res := runPattern(b, "allreduce_recdoub", pattern.Params{Ranks: 64, Size: 4096}, sim.DefaultParams())
	b.ReportAllocs()
	for b.Loop() {
		if err := timeline.WriteChrome(discard{}, p, res, timeline.Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// TestFractionalParams: parameters with fractions of a ns (the engine
// counts ps, the record is rounded to ns) give well-formed timelines,
// whose NIC slices end where the record says, and echo the parameters
// with their decimals.
func TestFractionalParams(t *testing.T) {
	pr := sim.DefaultParams()
	pr.L, pr.Overhead, pr.Gap, pr.GapPerByte = 1234.5, 700.25, 800.125, 0.08
	p, res := runPattern(t, "mpi_alltoall", pattern.Params{Ranks: 6, Size: 3000, Algo: "pairwise"}, pr)
	data := chrome(t, p, res, timeline.Options{})
	validateChrome(t, data)
	if !bytes.Contains(data, []byte(`"G_ns_per_byte": 0.08`)) || !bytes.Contains(data, []byte(`"o_ns": 700.25`)) {
		t.Errorf("otherData lacks the fractional parameters")
	}
	var prv, row bytes.Buffer
	if err := timeline.WritePRV(&prv, p, res, timeline.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := timeline.WriteROW(&row, p, res, timeline.Options{}); err != nil {
		t.Fatal(err)
	}
	checkParaver(t, prv.Bytes(), row.Bytes())
	for g, rc := range res.Record {
		if p.OpInfo(int32(g)).Kind == goal.Send && (rc.NICEnd < rc.Start || rc.RecvNICEnd < rc.Arrive) {
			t.Fatalf("op %d: NIC busy before it started: %+v", g, rc)
		}
	}
}

// TestParaverAllRanks: without Options.Ranks a Paraver trace shows every
// rank, beyond DefaultRanks, its body sorted over all of them (the merge
// of the ranks' sorted runs), and is the trace of the list of all ranks
// given explicitly; Chrome's form keeps to the first DefaultRanks, as
// ShownRanks says.
func TestParaverAllRanks(t *testing.T) {
	const n = DefaultRanksPlus
	p, res := runPattern(t, "mpi_allreduce", pattern.Params{Ranks: n, Size: 1000, Iterations: 3, Compute: 700, Algo: "recdoub"}, sim.DefaultParams())
	var prv, row bytes.Buffer
	if err := timeline.WritePRV(&prv, p, res, timeline.Options{TempDir: t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	if err := timeline.WriteROW(&row, p, res, timeline.Options{}); err != nil {
		t.Fatal(err)
	}
	got := checkParaver(t, prv.Bytes(), row.Bytes())
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	var explicit bytes.Buffer
	if err := timeline.WritePRV(&explicit, p, res, timeline.Options{Ranks: all}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(explicit.Bytes(), prv.Bytes()) {
		t.Errorf("the default trace differs from the one of every rank listed")
	}
	// Every calc, send and receive overhead of every rank is a state.
	states := 0
	for g := int32(0); g < int32(p.NumOps()); g++ {
		if p.OpInfo(g).Kind != goal.Recv || res.Record[g].Match >= 0 {
			states++
		}
	}
	if got[1] != states || got[3] == 0 {
		t.Errorf("records by type %v, want %d states and communications", got[1:], states)
	}
	if s := timeline.ShownRanks(n, timeline.Options{}, true); s != fmt.Sprintf("0-%d", n-1) {
		t.Errorf("Paraver shows %q", s)
	}
	if s := timeline.ShownRanks(n, timeline.Options{}, false); s != fmt.Sprintf("0-%d", timeline.DefaultRanks-1) {
		t.Errorf("Chrome shows %q", s)
	}
	_, count := validateChrome(t, chrome(t, p, res, timeline.Options{}))
	if count["M"] != timeline.DefaultRanks*(2+3) {
		t.Errorf("Chrome declares %d processes and threads, want %d ranks'", count["M"], timeline.DefaultRanks)
	}
}

// DefaultRanksPlus is a run larger than Chrome's default.
const DefaultRanksPlus = timeline.DefaultRanks + 36

// TestStreamedMatchesMemory: the timelines of a streamed run (its record
// in a file, its ops read from the spill file) are those of the run in
// memory, byte for byte, in ns and in ps.
func TestStreamedMatchesMemory(t *testing.T) {
	g, err := pattern.New("mpi_allreduce", pattern.Params{Ranks: 70, Size: 100000, Iterations: 2, Compute: 900, Algo: "recdoub"})
	if err != nil {
		t.Fatal(err)
	}
	s := goal.NewSchedule(g.NumRanks())
	if err := pattern.Write(g, s.AppendRank); err != nil {
		t.Fatal(err)
	}
	var bin bytes.Buffer
	if err := goal.WriteBinary(&bin, s); err != nil {
		t.Fatal(err)
	}
	mem, err := sim.ReadProgram(bytes.NewReader(bin.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	st, err := sim.ReadProgramStream(bytes.NewReader(bin.Bytes()), sim.StreamOptions{Dir: t.TempDir(), Unit: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	frac := sim.DefaultParams()
	frac.L, frac.GapPerByte = 1234.5, 0.0125
	for _, par := range []sim.Params{sim.DefaultParams(), frac} {
		nm := func() *noise.Model {
			m, err := noise.New(noise.Config{Seed: 3, PeriodNs: 5000, PeriodDurNs: 300}, 70)
			if err != nil {
				t.Fatal(err)
			}
			return m
		}
		want, err := mem.Run(sim.Options{Params: par, Record: true, Noise: nm()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := st.Run(sim.Options{Params: par, Record: true, Noise: nm()})
		if err != nil {
			t.Fatal(err)
		}
		opt := timeline.Options{Input: "x", TempDir: t.TempDir()}
		if a, b := chrome(t, st, got, opt), chrome(t, mem, want, opt); !bytes.Equal(a, b) {
			t.Errorf("L=%g: the Chrome timelines differ", par.L)
		}
		dir := t.TempDir()
		if err := timeline.WriteParaver(filepath.Join(dir, "st"), st, got, opt); err != nil {
			t.Fatal(err)
		}
		if err := timeline.WriteParaver(filepath.Join(dir, "mem"), mem, want, opt); err != nil {
			t.Fatal(err)
		}
		for _, ext := range []string{".prv", ".pcf", ".row"} {
			a, _ := os.ReadFile(filepath.Join(dir, "st"+ext))
			b, _ := os.ReadFile(filepath.Join(dir, "mem"+ext))
			if len(b) == 0 || !bytes.Equal(a, b) {
				t.Errorf("L=%g: the %s files differ (%d and %d bytes)", par.L, ext, len(a), len(b))
			}
		}
	}
}

// TestSetupEchoed: the model, the noise and the network a run had
// (Options) are echoed in both formats' metadata, beside the parameters;
// without them the metadata names none.
func TestSetupEchoed(t *testing.T) {
	p, res := runPattern(t, "binomialtreebcast", pattern.Params{Ranks: 4, Size: 64}, sim.DefaultParams())
	opt := timeline.Options{Model: "alphabeta: alpha=5500 ns, beta=6 ns/byte", Noise: "periodic 25000 ns every 1000000 ns (seed 3)",
		Network: "flow (max-min fair, 12.5 bytes/ns per link) on torus:4"}
	var doc struct {
		OtherData map[string]any `json:"otherData"`
	}
	if err := json.Unmarshal(chrome(t, p, res, opt), &doc); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"model": opt.Model, "noise": opt.Noise, "network": opt.Network} {
		if doc.OtherData[k] != want {
			t.Errorf("otherData %q = %v, want %q", k, doc.OtherData[k], want)
		}
	}
	var prv bytes.Buffer
	if err := timeline.WritePRV(&prv, p, res, opt); err != nil {
		t.Fatal(err)
	}
	comment := strings.SplitN(prv.String(), "\n", 3)[1]
	for _, want := range []string{"; model " + opt.Model + ";", "; noise " + opt.Noise + ";", "; network " + opt.Network + ";"} {
		if !strings.Contains(comment, want) {
			t.Errorf(".prv comment lacks %q: %s", want, comment)
		}
	}
	doc.OtherData = nil
	if err := json.Unmarshal(chrome(t, p, res, timeline.Options{}), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"model", "noise", "network"} {
		if v, ok := doc.OtherData[k]; ok {
			t.Errorf("otherData %q = %v without it in the options", k, v)
		}
	}
}
