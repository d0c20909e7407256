package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/lockfile"
	"github.com/gopsim/gopsim/sim"
)

// pingpongText is examples/pingpong.goal with its calc durations as
// parameters.
func pingpongText(calc0, calc1 uint64) string {
	return fmt.Sprintf(`num_ranks 2
rank 0 {
work: calc %d
ping: send 1024b to 1 tag 1
pong: recv 1024b from 1 tag 2
ping requires work
pong requires ping
}
rank 1 {
ping: recv 1024b from 0 tag 1
work: calc %d
pong: send 1024b to 0 tag 2
work requires ping
pong requires work
}
`, calc0, calc1)
}

// setup writes the ping-pong schedule and a spec into a new directory and
// reads the spec.
func setup(t *testing.T, specName, spec string) *Spec {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "pp.goal"), []byte(pingpongText(10000, 5000)), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, specName)
	if err := os.WriteFile(path, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSpec(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func runSweep(t *testing.T, s *Spec, opt Options) Summary {
	t.Helper()
	sum, err := Run(context.Background(), s, opt)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// csvIDs returns the point ids of a result CSV's rows, in file order.
func csvIDs(t *testing.T, data []byte) []int {
	t.Helper()
	var ids []int
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	for _, l := range lines[1:] {
		id, err := strconv.Atoi(strings.SplitN(l, ",", 2)[0])
		if err != nil {
			t.Fatalf("row %q: %v", l, err)
		}
		ids = append(ids, id)
	}
	return ids
}

func seq(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

const ppSpec = `input = "pp.goal"
output = "out/pp.csv"
[params]
G_ns_per_byte = 2
[grid]
compute_scale = [0.5, 1, 0.3333]
L_ns = {from = 100, to = 6400, factor = 4}
S_bytes = [512, 65535]
[[points]]
o_ns = 0
compute_scale = 2.5
`

// Every row is what sim.Run gives for its parameters on the schedule with
// its calc durations scaled and rounded, built independently as text.
func TestRowsMatchSim(t *testing.T) {
	s := setup(t, "pp.toml", ppSpec)
	if _, err := Run(context.Background(), s, Options{Workers: 3}); err == nil || !strings.Contains(err.Error(), "its directory") {
		t.Fatalf("output in a directory that does not exist: %v", err) // made by nobody but the user
	}
	if err := os.Mkdir(filepath.Dir(s.OutputPath()), 0o777); err != nil {
		t.Fatal(err)
	}
	sum := runSweep(t, s, Options{Workers: 3})
	if sum.Points != 3*4*2+1 || sum.Ran != sum.Points || sum.Already != 0 || sum.Output != s.OutputPath() {
		t.Errorf("summary %+v", sum)
	}
	data := readFile(t, s.OutputPath())
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if lines[0] != "point,compute_scale,extrapolate_factor,L_ns,o_ns,g_ns,G_ns_per_byte,O_ns_per_byte,S_bytes,noise_period_ns,noise_period_length_ns,noise_interval_ns,noise_length_ns,straggler_fraction,straggler_factor,noise_seed,max_time_ns,max_rank,events,noise_ns" {
		t.Fatalf("header %q", lines[0])
	}
	if got := slices.Sorted(slices.Values(csvIDs(t, data))); !slices.Equal(got, seq(sum.Points)) {
		t.Fatalf("ids %v", got)
	}
	for _, l := range lines[1:] {
		f := strings.Split(l, ",")
		num := make([]int64, len(f))
		for i, x := range f {
			if i != 1 {
				num[i], _ = strconv.ParseInt(x, 10, 64)
			}
		}
		scale, _ := strconv.ParseFloat(f[1], 64)
		text := pingpongText(uint64(math.Round(10000*scale)), uint64(math.Round(5000*scale)))
		sched, _, err := goal.Read(strings.NewReader(text), "pp")
		if err != nil {
			t.Fatal(err)
		}
		p := sim.Params{L: float64(num[3]), Overhead: float64(num[4]), Gap: float64(num[5]), GapPerByte: float64(num[6]), OverheadPerByte: float64(num[7]), EagerLimit: num[8]}
		res, err := sim.Run(sched, sim.Options{Params: p})
		if err != nil {
			t.Fatal(err)
		}
		want := fmt.Sprintf("0,0,0,0,0,1,0,%d,%d,%d,0", res.MaxTime, res.MaxRank, res.Events)
		if got := strings.Join(f[9:], ","); got != want {
			t.Errorf("row %s: results %s, sim.Run gives %s", l, got, want)
		}
		// and the point's parameters are the spec's
		id, _ := strconv.Atoi(f[0])
		pt := s.Point(id)
		if pt.Params.L != p.L || pt.Params.Overhead != p.Overhead || pt.Params.GapPerByte != 2 || pt.ComputeScale != scale {
			t.Errorf("row %s is not point %d: %s", l, id, Describe(&pt))
		}
	}
	meta := readFile(t, MetaPath(s.OutputPath()))
	for _, want := range []string{`"input_sha256"`, `"base_params"`, `"G_ns_per_byte": 2`, `"num_points": 25`, `"dim": "compute_scale"`, `"input": "` + s.InputPath() + `"`} {
		if !bytes.Contains(meta, []byte(want)) {
			t.Errorf("meta lacks %s:\n%s", want, meta)
		}
	}
}

func TestScaleCompute(t *testing.T) {
	sched, _, err := goal.Read(strings.NewReader(pingpongText(3, 5)), "pp")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		f      float64
		c0, c1 uint64
	}{{0.5, 2, 3}, {0.4, 1, 2}, {0, 0, 0}, {1, 3, 5}, {1e6, 3000000, 5000000}} {
		got, err := ScaleCompute(sched, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var calcs []uint64
		for _, op := range got.Ops {
			if op.Kind == goal.Calc {
				calcs = append(calcs, op.Size)
			}
		}
		if !slices.Equal(calcs, []uint64{tc.c0, tc.c1}) {
			t.Errorf("scale %v: calcs %v, want [%d %d]", tc.f, calcs, tc.c0, tc.c1)
		}
	}
	if sched.Ops[0].Size != 3 {
		t.Errorf("the original schedule changed: %v", sched.Ops[0])
	}
	if _, err := ScaleCompute(sched, math.NaN()); err == nil {
		t.Error("NaN scale accepted")
	}
}

// Any number of workers, and sorting, give the same bytes.
func TestDeterministic(t *testing.T) {
	var ref []byte
	for _, w := range []int{1, 4} {
		s := setup(t, "pp.json", `{"input": "pp.goal", "output": "pp.csv", "grid": {"L_ns": {"from": 0, "to": 3000, "step": 100}, "compute_scale": [1, 2]}}`)
		var prog bytes.Buffer
		runSweep(t, s, Options{Workers: w, Sort: true, Progress: &prog})
		data := readFile(t, s.OutputPath())
		if ref == nil {
			ref = data
		} else if !bytes.Equal(data, ref) {
			t.Errorf("%d workers:\n%s\n1 worker:\n%s", w, data, ref)
		}
		if !slices.Equal(csvIDs(t, data), seq(62)) {
			t.Errorf("not sorted: %v", csvIDs(t, data))
		}
		if !strings.Contains(prog.String(), "sweep: 62/62 points (100.0%)") || !strings.Contains(prog.String(), "points/s") {
			t.Errorf("progress %q", prog.String())
		}
	}
}

// A run killed with SIGKILL part-way, with a torn line appended as a crash
// in the middle of a write leaves it, resumes into exactly the rows of an
// uninterrupted run.
func TestResumeAfterKill(t *testing.T) {
	spec := `input = "pp.goal"
[grid]
compute_scale = [1, 2, 3]
L_ns = {from = 0, to = 1900, step = 100}
`
	s := setup(t, "kill.toml", spec)
	out := s.OutputPath()

	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperSweep$", "-test.count=1")
	cmd.Env = append(os.Environ(), "GOPSIM_SWEEP_HELPER_SPEC="+s.File)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.After(60 * time.Second)
	for rows := 0; rows < 8; {
		select {
		case err := <-exited:
			t.Fatalf("the sweep ended before the kill (%v): %s", err, stderr.String())
		case <-deadline:
			cmd.Process.Kill()
			t.Fatalf("no 8 rows after 60 s: %s", stderr.String())
		case <-time.After(5 * time.Millisecond):
		}
		data, _ := os.ReadFile(out)
		rows = bytes.Count(data, []byte("\n")) - 1
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	<-exited

	data := readFile(t, out)
	if len(data) == 0 || data[len(data)-1] != '\n' {
		t.Fatalf("the killed run left a torn row:\n%s", data)
	}
	killed := csvIDs(t, data)
	if len(killed) >= s.NumPoints() {
		t.Fatalf("the sweep finished (%d rows) before the kill", len(killed))
	}
	// A crash in the middle of a write: part of a row, no newline.
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("59,3,1900,15")
	f.Close()

	var log bytes.Buffer
	sum := runSweep(t, s, Options{Workers: 2, Log: &log, Sort: true})
	if sum.Already != len(killed) || sum.Ran != s.NumPoints()-len(killed) {
		t.Errorf("resume: %+v after %d rows", sum, len(killed))
	}
	if want := fmt.Sprintf("%s:%d: dropping a torn final line (12 bytes", out, len(killed)+2); !strings.Contains(log.String(), want) {
		t.Errorf("log %q lacks %q", log.String(), want)
	}
	resumed := readFile(t, out)
	if !slices.Equal(csvIDs(t, resumed), seq(s.NumPoints())) {
		t.Errorf("rows after the resume: %v", csvIDs(t, resumed))
	}
	// An uninterrupted run gives the same bytes.
	ref := setup(t, "kill.toml", spec)
	runSweep(t, ref, Options{Sort: true})
	if want := readFile(t, ref.OutputPath()); !bytes.Equal(resumed, want) {
		t.Errorf("resumed:\n%s\nuninterrupted:\n%s", resumed, want)
	}
	// and the rows written before the kill were already right.
	for _, l := range strings.Split(string(data), "\n")[1:] {
		if !bytes.Contains(resumed, []byte(l+"\n")) {
			t.Errorf("row %q of the killed run is not in the final file", l)
		}
	}
}

// TestHelperSweep is the process TestResumeAfterKill kills: a sweep slowed
// down, and stopped before point 30, so that the kill lands part-way.
func TestHelperSweep(t *testing.T) {
	spec := os.Getenv("GOPSIM_SWEEP_HELPER_SPEC")
	if spec == "" {
		t.Skip("the process that TestResumeAfterKill starts and kills")
	}
	testHookRan = func(id int) {
		if id >= 30 {
			time.Sleep(time.Hour) // the kill comes first
		}
		time.Sleep(10 * time.Millisecond)
	}
	s, err := ReadSpec(spec)
	if err == nil {
		_, err = Run(context.Background(), s, Options{Workers: 2, SyncInterval: time.Millisecond})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

func TestShardMerge(t *testing.T) {
	const spec = `{"input": "pp.goal", "output": "all.csv",
		"grid": {"L_ns": [100, 200, 300, 400, 500], "o_ns": [10, 20]},
		"points": [{"compute_scale": 2}, {"compute_scale": 3}]}`
	s := setup(t, "sh.json", spec)
	out := s.OutputPath()
	var shards []string
	for i := range 3 {
		sh := Shard{i, 3}
		sum := runSweep(t, s, Options{Shard: sh})
		if sum.Output != ShardOutput(out, sh) || sum.Points != sh.size(12) || sum.Points != 4 {
			t.Errorf("shard %v: %+v", sh, sum)
		}
		for _, id := range csvIDs(t, readFile(t, sum.Output)) {
			if id%3 != i {
				t.Errorf("shard %v ran point %d", sh, id)
			}
		}
		shards = append(shards, sum.Output)
	}
	if filepath.Base(shards[1]) != "all-shard-1-of-3.csv" {
		t.Errorf("shard file %s", shards[1])
	}
	ref := setup(t, "sh.json", spec)
	runSweep(t, ref, Options{Sort: true})
	want := readFile(t, ref.OutputPath())

	if err := Merge(s, out, []string{shards[2], shards[0], shards[1]}, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, out); !bytes.Equal(got, want) {
		t.Errorf("merged:\n%s\nwhole sweep:\n%s", got, want)
	}
	if meta := readFile(t, MetaPath(out)); !bytes.Contains(meta, []byte(`"merged_from"`)) || bytes.Contains(meta, []byte(`"shard"`)) {
		t.Errorf("merged meta:\n%s", meta)
	}

	dir := filepath.Dir(out)
	tampered := filepath.Join(dir, "tampered.csv")
	data := readFile(t, shards[1])
	tamperedLine := slices.Index(csvIDs(t, data), 7) + 2
	data = bytes.Replace(data, []byte("\n7,1,1,400,20,"), []byte("\n7,1,1,400,21,"), 1)
	if err := os.WriteFile(tampered, data, 0o644); err != nil {
		t.Fatal(err)
	}
	torn := filepath.Join(dir, "torn.csv")
	data = readFile(t, shards[2])
	ids := csvIDs(t, data)
	if err := os.WriteFile(torn, data[:len(data)-3], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		inputs []string
		is     error
		want   string
	}{
		{"missing shard", []string{shards[0], shards[2]}, ErrIncomplete, "4 of 12 points have no row: 1, 4, 7, 10"},
		{"duplicate shard", []string{shards[0], shards[1], shards[2], shards[0]}, ErrDuplicate, "point given twice: 4 rows: point 0 at " + shards[0] + ":"},
		{"tampered row", []string{shards[0], tampered, shards[2]}, ErrMismatch, fmt.Sprintf("%s:%d: sweep: row does not match the spec: point 7 has o_ns=21, the spec gives it o_ns=20", tampered, tamperedLine)},
		{"torn row", []string{shards[0], shards[1], torn}, ErrIncomplete, fmt.Sprintf("1 of 12 points have no row: %d", ids[len(ids)-1])},
		{"nothing", nil, nil, "no result files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := readFile(t, out)
			var log bytes.Buffer
			err := Merge(s, out, tc.inputs, MergeOptions{Log: &log})
			if err == nil || (tc.is != nil && !errors.Is(err, tc.is)) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want %v: %s", err, tc.is, tc.want)
			}
			if !bytes.Equal(readFile(t, out), before) {
				t.Error("a failed merge changed the output")
			}
		})
	}
	// A shard's file holding another shard's point is an error.
	data = readFile(t, shards[0])
	data = append(data, readFile(t, shards[1])[len(headerLine()):]...)
	if err := os.WriteFile(shards[0], data, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), s, Options{Shard: Shard{0, 3}}); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "belongs to shard 1/3") {
		t.Errorf("a row of shard 1 in shard 0's file: %v", err)
	}
}

func TestResumeChecks(t *testing.T) {
	s := setup(t, "a.toml", "input = \"pp.goal\"\n[grid]\nL_ns = [1, 2, 3]\n")
	runSweep(t, s, Options{Sort: true})
	out := s.OutputPath()
	write := func(name, text string) string {
		p := filepath.Join(filepath.Dir(out), name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	run := func(s *Spec) error {
		_, err := Run(context.Background(), s, Options{Output: out})
		return err
	}
	other := func(spec string) *Spec {
		s, err := ReadSpec(write("b.toml", spec))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	// Another grid renumbers the points: point 1 is now L_ns=5.
	if err := run(other("input = \"pp.goal\"\n[grid]\nL_ns = [1, 5, 3]\n")); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), out+":3: ") || !strings.Contains(err.Error(), "point 1 has L_ns=2, the spec gives it L_ns=5") {
		t.Errorf("other grid: %v", err)
	}
	// Fewer points: point 2 is not one of them.
	if err := run(other("input = \"pp.goal\"\n[grid]\nL_ns = [1, 2]\n")); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), out+":4: ") {
		t.Errorf("fewer points: %v", err)
	}
	// Other base parameters: size ranges, which the rows do not show.
	if err := run(other("input = \"pp.goal\"\n[params]\nranges = [{min_bytes = 0, max_bytes = 9, L_ns = 1, o_ns = 1, g_ns = 1, G_ns_per_byte = 1, O_ns_per_byte = 1}]\n[grid]\nL_ns = [1, 2, 3]\n")); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "base parameters") {
		t.Errorf("other base: %v", err)
	}
	// Another input.
	write("pp2.goal", pingpongText(10000, 5001))
	if err := run(other("input = \"pp2.goal\"\n[grid]\nL_ns = [1, 2, 3]\n")); !errors.Is(err, ErrMismatch) || !strings.Contains(err.Error(), "sha256") {
		t.Errorf("other input: %v", err)
	}
	// A row given twice, a malformed row, a foreign header.
	data := readFile(t, out)
	lines := strings.SplitAfter(string(data), "\n")
	for _, tc := range []struct{ name, text, want string }{
		{"twice", string(data) + lines[1], out + ":5: sweep: point given twice: point 0 is also at line 2"},
		{"short row", lines[0] + "0,1,1\n", out + ":2: sweep: row does not match the spec: 3 fields"},
		{"bad result", lines[0] + strings.Replace(lines[1], ",0,", ",x,", 1), out + ":2: "},
		{"header", "id,L\n", out + ":1: sweep: row does not match the spec: the header is not"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(filepath.Base(out), tc.text)
			os.Remove(MetaPath(out))
			if err := run(s); err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want %s...", err, tc.want)
			}
		})
	}
	// A file with only part of its header is started again.
	write(filepath.Base(out), "point,comp")
	var log bytes.Buffer
	if _, err := Run(context.Background(), s, Options{Output: out, Log: &log, Sort: true}); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, out); !bytes.Equal(got, data) || !strings.Contains(log.String(), out+":1: dropping a torn final line") {
		t.Errorf("after a torn header:\n%s\nlog %s", got, log.String())
	}
}

// A point whose simulation fails stops the sweep with an error naming it;
// the other points' rows stay.
func TestFailingPoint(t *testing.T) {
	s := setup(t, "dl.toml", "input = \"x.goal\"\n[grid]\nS_bytes = [10, 1000]\n")
	// Both ranks send, then receive: rendezvous (S < 100 bytes) deadlocks.
	x := "num_ranks 2\nrank 0 {\nl1: send 100b to 1 tag 0\nl2: recv 100b from 1 tag 0\nl2 requires l1\n}\nrank 1 {\nl1: send 100b to 0 tag 0\nl2: recv 100b from 0 tag 0\nl2 requires l1\n}\n"
	if err := os.WriteFile(s.InputPath(), []byte(x), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Run(context.Background(), s, Options{Workers: 1})
	if err == nil || !strings.HasPrefix(err.Error(), s.InputPath()+": point 0 (compute_scale=1 L_ns=2500 o_ns=1500 g_ns=1000 G_ns_per_byte=6 O_ns_per_byte=0 S_bytes=10): ") {
		t.Fatalf("error %v", err)
	}
	var dl *sim.DeadlockError
	if !errors.As(err, &dl) {
		t.Errorf("error %v does not wrap the deadlock", err)
	}
	if ids := csvIDs(t, readFile(t, s.OutputPath())); len(ids) > 1 || (len(ids) == 1 && ids[0] != 1) {
		t.Errorf("rows %v", ids)
	}
}

func TestInterrupted(t *testing.T) {
	s := setup(t, "i.toml", "input = \"pp.goal\"\n[grid]\nL_ns = [1, 2, 3]\n")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	sum, err := Run(ctx, s, Options{})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "run again to resume") {
		t.Errorf("error %v", err)
	}
	sum2 := runSweep(t, s, Options{})
	if sum.Already+sum.Ran+sum2.Ran != 3 || sum2.Already != sum.Ran {
		t.Errorf("interrupted %+v, then %+v", sum, sum2)
	}
}

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Shard
		err  string
	}{
		{"0/4", Shard{0, 4}, ""},
		{"3/4", Shard{3, 4}, ""},
		{"0/1", Shard{0, 1}, ""},
		{"4/4", Shard{}, "0 <= I < N"},
		{"-1/4", Shard{}, "0 <= I < N"},
		{"1/0", Shard{}, "N >= 1"},
		{"1", Shard{}, "expected I/N"},
		{"a/b", Shard{}, "expected I/N"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseShard(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("error %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("%v, %v", got, err)
			}
		})
	}
	for _, n := range []int{0, 1, 5, 12, 13} {
		total := 0
		for i := range 4 {
			total += Shard{i, 4}.size(n)
		}
		if total != n {
			t.Errorf("4 shards of %d points have %d", n, total)
		}
	}
}

// TestTwoRunsOneOutput: a second run into the CSV a first run is writing
// stops before simulating anything, naming the first run's process; the
// first finishes with every point once; a merge into that CSV meanwhile
// is refused too.
func TestTwoRunsOneOutput(t *testing.T) {
	s := setup(t, "two.toml", "input = \"pp.goal\"\n[grid]\nL_ns = [1, 2, 3, 4]\n")
	var second, merge error
	var secondSum Summary
	var once sync.Once
	testHookRan = func(int) {
		once.Do(func() {
			secondSum, second = Run(context.Background(), s, Options{})
			merge = Merge(s, s.OutputPath(), []string{s.OutputPath()}, MergeOptions{})
		})
	}
	defer func() { testHookRan = nil }()
	sum := runSweep(t, s, Options{Workers: 1})
	want := fmt.Sprintf("held by pid %d", os.Getpid())
	for _, err := range []error{second, merge} {
		if !errors.Is(err, lockfile.ErrHeld) || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), LockPath(s.OutputPath())) {
			t.Errorf("the second writer got %v, want an error naming %s and %q", err, LockPath(s.OutputPath()), want)
		}
	}
	if secondSum.Ran != 0 || sum.Ran != 4 {
		t.Errorf("the first run simulated %d points, the second %d; want 4 and 0", sum.Ran, secondSum.Ran)
	}
	if ids := csvIDs(t, readFile(t, s.OutputPath())); len(ids) != 4 {
		t.Errorf("rows %v, want each of the 4 points once", ids)
	}
	if _, err := os.Stat(LockPath(s.OutputPath())); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file left after the run: %v", err)
	}
	// A second name of the same CSV (a symbolic link) shares its lock.
	link := filepath.Join(t.TempDir(), "link.csv")
	if err := os.Symlink(s.OutputPath(), link); err != nil {
		t.Fatal(err)
	}
	lock, err := lockOutput(s.OutputPath())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), s, Options{Output: link}); !errors.Is(err, lockfile.ErrHeld) {
		t.Errorf("a run through a link to the CSV: %v, want the lock held", err)
	}
	lock.Release()
	// Afterwards the CSV resumes as usual.
	if sum := runSweep(t, s, Options{}); sum.Already != 4 || sum.Ran != 0 {
		t.Errorf("run after: %+v", sum)
	}
}

// TestOutputNotAFile: a sweep's CSV is read back, so a FIFO or a device
// is refused before anything runs.
func TestOutputNotAFile(t *testing.T) {
	s := setup(t, "fifo.toml", "input = \"pp.goal\"\n[grid]\nL_ns = [1, 2]\n")
	fifo := filepath.Join(t.TempDir(), "out.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{fifo, "/dev/null"} {
		_, err := Run(context.Background(), s, Options{Output: out})
		if err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), out) {
			t.Errorf("-o %s: %v", out, err)
		}
	}
}

// TestStreamMatchesMemory: a sweep on shares of one spilled schedule
// (Options.Stream), straight from the file or per transformation of it,
// on one worker or several, writes the CSV and the meta file of the sweep
// that compiles a program per worker, byte for byte.
func TestStreamMatchesMemory(t *testing.T) {
	for _, spec := range []string{
		`{"input": "pp.goal", "output": "pp.csv", "grid": {"L_ns": {"from": 0, "to": 3000, "step": 250}, "noise_period_ns": [0, 1000], "noise_period_length_ns": [100]}}`,
		`{"input": "pp.goal", "output": "pp.csv", "grid": {"L_ns": {"from": 0, "to": 3000, "step": 500}, "compute_scale": [1, 2, 0.5]}}`,
	} {
		var ref, refMeta []byte
		for _, c := range []struct {
			stream  bool
			workers int
		}{{false, 1}, {true, 1}, {true, 3}} {
			s := setup(t, "pp.json", spec)
			sum := runSweep(t, s, Options{Workers: c.workers, Sort: true, Stream: c.stream, SpillDir: t.TempDir()})
			data := readFile(t, s.OutputPath())
			meta := bytes.ReplaceAll(readFile(t, MetaPath(s.OutputPath())), []byte(filepath.Dir(s.InputPath())), []byte("DIR"))
			if ref == nil {
				ref, refMeta = data, meta
				if sum.Ran < 10 {
					t.Fatalf("%d points", sum.Ran)
				}
				continue
			}
			if !bytes.Equal(data, ref) || !bytes.Equal(meta, refMeta) {
				t.Errorf("%s\nstream %v, %d workers:\n%s\n%s\nin memory:\n%s\n%s", spec, c.stream, c.workers, data, meta, ref, refMeta)
			}
		}
	}
}
