package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gopsim/gopsim/progress"
	"github.com/gopsim/gopsim/sim"
)

// TestSimStream: a streamed run (--stream on, or auto under a memory
// limit the program exceeds) prints exactly what the in-memory run prints,
// plus the "stream" object; bad streaming flags are refused with a
// message saying why.
func TestSimStream(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "ar.bin")
	if code, _, errOut := run("gen", "-p", "mpi_allreduce", "--algo", "recdoub", "-s", "64", "-d", "4096", "--iterations", "20", "--compute", "500", "-o", f); code != ExitOK {
		t.Fatal(errOut)
	}
	code, want, errOut := run("sim", "--json", "--stream", "off", "--breakdown", "--noise-period", "1000", "--noise-period-length", "50", f)
	if code != ExitOK {
		t.Fatal(errOut)
	}
	check := func(name string, args ...string) map[string]any {
		t.Helper()
		code, got, errOut := run(append(append([]string{"sim", "--json", "--breakdown", "--noise-period", "1000", "--noise-period-length", "50", "--spill-dir", dir}, args...), f)...)
		if code != ExitOK {
			t.Fatalf("%s: exit %d: %s", name, code, errOut)
		}
		var g, w map[string]any
		if err := json.Unmarshal([]byte(got), &g); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(want), &w); err != nil {
			t.Fatal(err)
		}
		st, ok := g["stream"].(map[string]any)
		if !ok {
			t.Fatalf("%s: no stream object:\n%s", name, got)
		}
		delete(g, "stream")
		gb, _ := json.Marshal(g)
		wb, _ := json.Marshal(w)
		if string(gb) != string(wb) {
			t.Fatalf("%s: streamed result differs:\n%s\nin memory:\n%s", name, gb, wb)
		}
		return st
	}
	st := check("on", "--stream", "on", "--stream-unit", "16")
	if st["unit_ops"].(float64) != 16 || st["peak_ops_in_memory"].(float64) >= 64*20*17 || st["pages_given_back"].(float64) == 0 {
		t.Errorf("stream report %v", st)
	}

	// auto streams a program beyond autoStreamBytes, however much memory
	// there is
	defer func(b int64) { autoStreamBytes = b }(autoStreamBytes)
	autoStreamBytes = 64 << 10
	check("auto")
	_, _, errOut = run("sim", "--json", "--spill-dir", dir, f)
	if !strings.Contains(errOut, "64 ranks, 16640 ops and 30592 edges need about 0 MiB in memory, more than 0 MiB, and its ranks are chains of ops") {
		t.Errorf("auto beyond autoStreamBytes: no note on stderr: %q", errOut)
	}
	// but not a collective whose receives are all free at time 0
	coll := filepath.Join(dir, "d.bin")
	if code, _, errOut := run("gen", "-p", "dissemination", "-s", "1024", "-o", coll); code != ExitOK {
		t.Fatal(errOut)
	}
	if code, out, errOut := run("sim", "--json", "--spill-dir", dir, coll); code != ExitOK || strings.Contains(errOut, "streaming") || strings.Contains(out, `"stream"`) {
		t.Errorf("auto beyond autoStreamBytes streamed a collective: exit %d: %q", code, errOut)
	}
	autoStreamBytes = 1 << 40
	if _, out, errOut := run("sim", "--json", "--spill-dir", dir, f); strings.Contains(errOut, "streaming") || strings.Contains(out, `"stream"`) {
		t.Errorf("auto within autoStreamBytes and memory: streamed: %q", errOut)
	}

	// auto counts the per-op record of a critical path or a timeline: a
	// program that fits within 60 % of GOMEMLIMIT alone streams with it
	var size sim.ProgramSize
	if data, err := os.ReadFile(coll); err != nil {
		t.Fatal(err)
	} else if _, err := sim.ReadProgramIf(bytes.NewReader(data), func(s sim.ProgramSize) error { size = s; return nil }); err != nil {
		t.Fatal(err)
	}
	limit := (size.Bytes + sim.RecordBytes(sim.DefaultParams(), int64(size.Ops))/2) * 10 / 6
	func() {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
		if code, out, errOut := run("sim", "--json", "--spill-dir", dir, coll); code != ExitOK || strings.Contains(errOut, "streaming") || strings.Contains(out, `"stream"`) {
			t.Errorf("auto, the program alone within the limit: exit %d: %q", code, errOut)
		}
		code, out, errOut := run("sim", "--json", "--critical-path", "--spill-dir", dir, coll)
		if code != ExitOK || !strings.Contains(errOut, "with the per-op record a critical path or a timeline reads (96 bytes an op)") || !strings.Contains(out, `"stream"`) {
			t.Errorf("auto, the program and its record beyond the limit: exit %d: %q", code, errOut)
		}
		code, _, errOut = run("sim", "--json", "--timeline", filepath.Join(dir, "t.json"), "-G", "0.5", "--spill-dir", dir, coll)
		if code != ExitOK || !strings.Contains(errOut, "(192 bytes an op)") {
			t.Errorf("auto, a timeline in ps: exit %d: %q", code, errOut)
		}
		// A critical path alone keeps no copy in ns (sim.Options.PathOnly).
		code, _, errOut = run("sim", "--json", "--critical-path", "-G", "0.5", "--spill-dir", dir, coll)
		if code != ExitOK || !strings.Contains(errOut, "(96 bytes an op)") {
			t.Errorf("auto, a critical path in ps: exit %d: %q", code, errOut)
		}
	}()

	// auto streams a run whose timelines show some ranks only once the
	// record of every op would exceed autoStreamRecordBytes: a streamed
	// run keeps only theirs
	func() {
		defer func(b int64) { autoStreamRecordBytes = b }(autoStreamRecordBytes)
		autoStreamRecordBytes = 1 << 10
		tl := filepath.Join(dir, "t.json")
		code, out, errOut := run("sim", "--json", "--timeline", tl, "--timeline-ranks", "0-3", "--spill-dir", dir, coll)
		if code != ExitOK || !strings.Contains(errOut, "the timelines show 4 of the 1024 ranks, and a run in memory would record all") || !strings.Contains(out, `"stream"`) {
			t.Errorf("auto, a timeline of 4 ranks: exit %d: %q", code, errOut)
		}
		for _, args := range [][]string{
			{"--timeline", tl, "--timeline-ranks", "0-3", "--critical-path"}, // every rank's record
			{"--paraver", filepath.Join(dir, "p")},                           // every rank
		} {
			if code, out, errOut := run(append(append([]string{"sim", "--json", "--spill-dir", dir}, args...), coll)...); code != ExitOK || strings.Contains(errOut, "streaming") || strings.Contains(out, `"stream"`) {
				t.Errorf("auto, %v: streamed: exit %d: %q", args, code, errOut)
			}
		}
		if code, out, errOut := run("sim", "--json", "--timeline", tl, "--timeline-ranks", "0-3", "--stream", "off", coll); code != ExitOK || strings.Contains(out, `"stream"`) {
			t.Errorf("--stream off, a timeline of 4 ranks: streamed: exit %d: %q", code, errOut)
		}
		// the first 64 ranks of a 64-rank program are all of it
		if code, out, errOut := run("sim", "--json", "--timeline", tl, "--spill-dir", dir, f); code != ExitOK || strings.Contains(errOut, "streaming") || strings.Contains(out, `"stream"`) {
			t.Errorf("auto, a timeline of every rank: streamed: exit %d: %q", code, errOut)
		}
		autoStreamRecordBytes = 1 << 40
		if code, out, errOut := run("sim", "--json", "--timeline", tl, "--timeline-ranks", "0-3", "--spill-dir", dir, coll); code != ExitOK || strings.Contains(out, `"stream"`) {
			t.Errorf("auto, a timeline of 4 ranks, the record within the bound: streamed: exit %d: %q", code, errOut)
		}
	}()

	// auto streams when the program exceeds 60 % of GOMEMLIMIT
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 20))
	check("auto")
	_, _, errOut = run("sim", "--json", "--spill-dir", dir, f)
	if !strings.Contains(errOut, "streaming it from a spill file") || !strings.Contains(errOut, "GOMEMLIMIT") {
		t.Errorf("auto: no note on stderr: %q", errOut)
	}
	if code, out, _ := run("sim", "--json", "--stream", "off", "--breakdown", "--noise-period", "1000", "--noise-period-length", "50", f); code != ExitOK || out != want {
		t.Errorf("--stream off under the limit: exit %d", code)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--stream", "maybe", f}, "expected auto, on or off"},
		{[]string{"--stream", "on", "--stream-unit", "-3", f}, "stream unit of -3 ops"},
		{[]string{"--stream", "on", "--spill-dir", filepath.Join(dir, "none"), f}, "--spill-dir: stat "},
	} {
		code, _, errOut := run(append([]string{"sim"}, c.args...)...)
		if code == ExitOK || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want an error with %q", c.args, code, errOut, c.want)
		}
	}

	// A spill directory in memory (tmpfs; /dev/shm on Linux) gets a
	// warning.
	if inMemoryFS("/dev/shm") {
		shm, err := os.MkdirTemp("/dev/shm", "gopsim-test")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(shm)
		code, _, errOut := run("sim", "--json", "--stream", "on", "--spill-dir", shm, f)
		if code != ExitOK || !strings.Contains(errOut, "a file system in memory (tmpfs)") {
			t.Errorf("spill in /dev/shm: exit %d, %q", code, errOut)
		}
	}
}

// TestSimStreamText: a text schedule streams too (--stream on, or auto
// when 1.8 times its size exceeds 60 % of the memory allowed, or when it
// has autoStreamText bytes or more), with the
// output of the in-memory run, and the same error for a bad text.
func TestSimStreamText(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "ar.goal")
	if code, _, errOut := run("gen", "-p", "mpi_allreduce", "--algo", "recdoub", "-s", "32", "-d", "4096", "--iterations", "25", "--compute", "500", "-o", f); code != ExitOK {
		t.Fatal(errOut)
	}
	code, want, errOut := run("sim", "--json", "--stream", "off", f)
	if code != ExitOK {
		t.Fatal(errOut)
	}
	strip := func(out string) string {
		t.Helper()
		var g map[string]any
		if err := json.Unmarshal([]byte(out), &g); err != nil {
			t.Fatal(err)
		}
		if _, ok := g["stream"]; !ok {
			t.Fatalf("no stream object:\n%s", out)
		}
		delete(g, "stream")
		b, _ := json.Marshal(g)
		return string(b)
	}
	var w map[string]any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	wb, _ := json.Marshal(w)
	code, got, errOut := run("sim", "--json", "--stream", "on", "--spill-dir", dir, f)
	if code != ExitOK || strip(got) != string(wb) {
		t.Fatalf("--stream on: exit %d, %s\n%s\nin memory:\n%s", code, errOut, got, wb)
	}
	func() {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(1 << 20))
		code, got, errOut := run("sim", "--json", "--spill-dir", dir, f)
		if code != ExitOK || strip(got) != string(wb) || !strings.Contains(errOut, "a text schedule of") || !strings.Contains(errOut, "streaming it from a spill file") {
			t.Fatalf("auto under GOMEMLIMIT: exit %d, %q", code, errOut)
		}
	}()
	// auto streams a text from autoStreamText on, whatever the memory, if
	// its ranks are chains (this allreduce is iterated: 1.81 edges an op),
	// and not below it.
	func() {
		defer func(b int64) { autoStreamText = b }(autoStreamText)
		autoStreamText = 1 << 10
		code, got, errOut := run("sim", "--json", "--spill-dir", dir, f)
		if code != ExitOK || strip(got) != string(wb) || !strings.Contains(errOut, "parsed on all CPUs as it is spilled") {
			t.Fatalf("auto beyond autoStreamText: exit %d, %q", code, errOut)
		}
		// but not a collective whose receives are all free at time 0
		coll := filepath.Join(dir, "d.goal")
		if code, _, errOut := run("gen", "-p", "dissemination", "-s", "1024", "-o", coll); code != ExitOK {
			t.Fatal(errOut)
		}
		if code, got, errOut := run("sim", "--json", "--spill-dir", dir, coll); code != ExitOK || strings.Contains(errOut, "streaming") || strings.Contains(got, `"stream"`) {
			t.Fatalf("auto beyond autoStreamText streamed a collective: exit %d, %q", code, errOut)
		}
		autoStreamText = 1 << 40
		if code, got, errOut := run("sim", "--json", "--spill-dir", dir, f); code != ExitOK || strings.Contains(errOut, "streaming") || strings.Contains(got, `"stream"`) {
			t.Fatalf("auto below autoStreamText streamed: exit %d, %q", code, errOut)
		}
	}()
	bad := writeFile(t, dir, "bad.goal", "num_ranks 2\nrank 0 {\nl1: send 8b to 1\n}\nrank 1 {\nl1: recv 8b from 7\n}\n")
	for _, args := range [][]string{{"--stream", "on", "--spill-dir", dir}, {"--stream", "off"}} {
		mode := args[1]
		code, _, errOut := run(append(append([]string{"sim"}, args...), bad)...)
		if code == ExitOK || !strings.Contains(errOut, "bad.goal:6:18: peer rank 7 outside 0..1") {
			t.Errorf("--stream %s, bad text: exit %d, %q", mode, code, errOut)
		}
	}
}

// TestSimStreamProgress: on a terminal, the spill pass draws a bar of the
// input's bytes before the run's bar of ops; nothing is drawn otherwise.
func TestSimStreamProgress(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "d.bin")
	if code, _, errOut := run("gen", "-p", "dissemination", "-s", "4096", "-d", "8", "-o", f); code != ExitOK {
		t.Fatal(errOut)
	}
	for _, terminal := range []bool{true, false} {
		var out, log strings.Builder
		o := SimOptions{Input: f, Params: simDefaults(), Log: &log, JSON: true,
			Progress: progress.Options{Terminal: terminal, Throttle: time.Nanosecond}}
		o.Memory.mode, o.Memory.spillDir = "on", dir
		if err := Sim(o, &out); err != nil {
			t.Fatal(err)
		}
		l := log.String()
		spill, ops := strings.Index(l, "bytes spilled"), strings.LastIndex(l, "ops")
		if terminal && (spill < 0 || ops < spill || !strings.Contains(l[:ops], "100%")) {
			t.Errorf("terminal: log %q: want the spill bar at 100%% before the ops bar", l)
		}
		if !terminal && l != "" {
			t.Errorf("not a terminal: log %q", l)
		}
	}
}

// TestSimStreamOutputs: every model, the critical path, the breakdown and
// the timelines of a streamed run are those of the run in memory: the
// same JSON (but for the "stream" object) and the same files, byte for
// byte, with parameters in whole ns and in fractions of a ns, and with
// timelines alone, for which a streamed run keeps only the records of
// the ranks shown and of their messages' other ends. The text
// output says which ranks each timeline shows.
func TestSimStreamOutputs(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "ar.bin")
	if code, _, errOut := run("gen", "-p", "mpi_allreduce", "--algo", "recdoub", "-s", "80", "-d", "100000", "--iterations", "3", "--compute", "500", "-o", f); code != ExitOK {
		t.Fatal(errOut)
	}
	strip := func(out string) string {
		t.Helper()
		var g map[string]any
		if err := json.Unmarshal([]byte(out), &g); err != nil {
			t.Fatalf("%v:\n%s", err, out)
		}
		delete(g, "stream")
		b, _ := json.Marshal(g)
		return string(b)
	}
	for i, args := range [][]string{
		{"--json", "--critical-path", "--breakdown", "--noise-period", "1000", "--noise-period-length", "50", "--timeline", "T.json", "--paraver", "P"},
		{"--json", "--critical-path", "-L", "1234.5", "-G", "0.0125", "--timeline", "T.json", "--paraver", "P", "--timeline-ranks", "70-79,3"},
		{"--json", "--model", "loggps", "--critical-path", "--paraver", "P"},
		// Timelines alone: a streamed run writes only the shown ranks'
		// records (and their partners') to its record file.
		{"--json", "-o", "1500.5", "-G", "0.0125", "--timeline", "T.json", "--paraver", "P", "--timeline-ranks", "70-79,3"},
		{"--json", "--timeline", "T.json"},
		{"--json", "--model", "logfp", "--breakdown"},
		{"--json", "--model", "all"},
	} {
		outs := map[string][2]string{}
		for m, mode := range []string{"off", "on"} {
			sub := filepath.Join(dir, fmt.Sprint(i, mode))
			if err := os.Mkdir(sub, 0o777); err != nil {
				t.Fatal(err)
			}
			a := slices.Clone(args)
			for k := range a {
				if k > 0 && (a[k-1] == "--timeline" || a[k-1] == "--paraver") {
					a[k] = filepath.Join(sub, a[k])
				}
			}
			a = append(append([]string{"sim", "--stream", mode}, a...), f)
			if mode == "on" {
				a = append(a[:3], append([]string{"--spill-dir", sub}, a[3:]...)...)
			}
			code, out, errOut := run(a...)
			if code != ExitOK {
				t.Fatalf("%v: exit %d: %s", a, code, errOut)
			}
			o := outs["stdout"]
			o[m] = strip(out)
			outs["stdout"] = o
			files, _ := filepath.Glob(filepath.Join(sub, "*"))
			for _, name := range files {
				data, err := os.ReadFile(name)
				if err != nil {
					t.Fatal(err)
				}
				o := outs[filepath.Base(name)]
				o[m] = string(data)
				outs[filepath.Base(name)] = o
			}
		}
		for name, o := range outs {
			if o[0] != o[1] || o[0] == "" {
				t.Errorf("%v: %s: streamed (%d bytes) differs from in memory (%d bytes)", args, name, len(o[1]), len(o[0]))
			}
		}
		if i < 3 && len(outs) < 2 {
			t.Errorf("%v: no timeline written: %v", args, outs)
		}
	}
	code, out, errOut := run("sim", "--stream", "on", "--spill-dir", dir, "--timeline", filepath.Join(dir, "t.json"), "--paraver", filepath.Join(dir, "p"), f)
	if code != ExitOK || !strings.Contains(out, "t.json (Chrome trace events: Perfetto, chrome://tracing), ranks 0-63 of 80") ||
		!strings.Contains(out, "p.prv, .pcf, .row, ranks 0-79 of 80") {
		t.Errorf("exit %d, %s\n%s", code, errOut, out)
	}
}

// TestSimBinaryFIFOAuto: --stream auto reads a binary schedule from a
// FIFO once, whether it holds it or, once its header says so, streams it:
// the bytes read for the header are given again, followed by the rest,
// where the run used to open the FIFO again and read an end of file. The
// results are those of the same file read from a regular file.
func TestSimBinaryFIFOAuto(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "ar.bin")
	if code, _, errOut := run("gen", "-p", "mpi_allreduce", "--algo", "recdoub", "-s", "64", "-d", "4096", "--iterations", "20", "--compute", "500", "-o", f); code != ExitOK {
		t.Fatal(errOut)
	}
	data, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	defer func(b int64) { autoStreamBytes = b }(autoStreamBytes)
	for _, tc := range []struct {
		name     string
		streamAt int64 // autoStreamBytes
		streams  bool
	}{
		{"held", 1 << 40, false},
		{"streamed", 64 << 10, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			autoStreamBytes = tc.streamAt
			code, want, errOut := run("sim", "--json", "--spill-dir", dir, f)
			if code != ExitOK {
				t.Fatalf("from the file: exit %d: %s", code, errOut)
			}
			in := fifoOf(t, filepath.Join(t.TempDir(), "ar.bin"), data)
			code, got, errOut := runReading(t, in, "sim", "--json", "--spill-dir", dir, in)
			if code != ExitOK {
				t.Fatalf("from the FIFO: exit %d: %s", code, errOut)
			}
			if streamed := strings.Contains(errOut, "streaming it from a spill file"); streamed != tc.streams {
				t.Errorf("from the FIFO: streamed %v, want %v: %q", streamed, tc.streams, errOut)
			}
			if got = strings.ReplaceAll(got, in, f); got != want {
				t.Errorf("from the FIFO:\n%s\nfrom the file:\n%s", got, want)
			}
		})
	}
}
