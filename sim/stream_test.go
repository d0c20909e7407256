package sim

import (
	"bytes"
	"errors"
	"fmt"
	"math/bits"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/pattern"
	"github.com/gopsim/gopsim/topology"
)

func binaryOf(t testing.TB, s *goal.Schedule) []byte {
	t.Helper()
	var bin bytes.Buffer
	if err := goal.WriteBinary(&bin, s); err != nil {
		t.Fatal(err)
	}
	return bin.Bytes()
}

func streamed(t testing.TB, bin []byte, unit int) *Program {
	t.Helper()
	return streamedWith(t, bin, StreamOptions{Unit: unit})
}

func streamedWith(t testing.TB, bin []byte, opt StreamOptions) *Program {
	t.Helper()
	opt.Dir = t.TempDir()
	p, err := ReadProgramStream(bytes.NewReader(bin), opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.Close(); err != nil {
			t.Error(err)
		}
	})
	return p
}

// streamOpts are the stream options the tests compare with memory: units
// of 1, 3 and 128 ops, with distinct units in memory (the default), in the
// spill file only, and a few in memory and the rest in the file (a budget
// of 4 KiB).
var streamOpts = []StreamOptions{{Unit: 1}, {Unit: 3, StoreBytes: -1}, {Unit: 128, StoreBytes: 4 << 10}}

// TestStreamMatchesMemory: every conformance schedule and a set of
// generated ones, streamed with each of streamOpts, gives exactly
// what the program held in memory gives (times, events, errors), twice
// in a row, under two parameter sets, with noise and a breakdown. A run
// that finishes has given back every page of op records: the bookkeeping
// of finished ops is complete.
func TestStreamMatchesMemory(t *testing.T) {
	files := conformanceGoals()
	if len(files) < 30 {
		t.Fatalf("only %d schedules", len(files))
	}
	type named struct {
		name string
		s    *goal.Schedule
	}
	var cases []named
	for _, f := range files {
		cases = append(cases, named{filepath.Base(f), loadText(t, f)})
	}
	for _, c := range []struct {
		name  string
		ranks int
		size  uint64
	}{{"allreduce_recdoub", 128, 1 << 16}, {"linear_alltoall", 33, 100}, {"binomialtreebcast", 1000, 1 << 20}, {"dissemination", 77, 8}} {
		cases = append(cases, named{fmt.Sprintf("%s_%d", c.name, c.ranks), patternSchedule(t, c.name, c.ranks, c.size)})
	}
	params := []Params{DefaultParams(), {L: 0, Overhead: 7, Gap: 100, GapPerByte: 1, OverheadPerByte: 3, EagerLimit: 0}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := binaryOf(t, c.s)
			mem, err := ReadProgram(bytes.NewReader(bin))
			if err != nil {
				t.Fatal(err)
			}
			for _, so := range streamOpts {
				unit := so.Unit
				p := streamedWith(t, bin, so)
				if p.NumOps() != mem.NumOps() || p.NumRanks != mem.NumRanks {
					t.Fatalf("unit %d: %d ops, %d ranks; want %d, %d", unit, p.NumOps(), p.NumRanks, mem.NumOps(), mem.NumRanks)
				}
				for pi, par := range params {
					// Options with a fresh noise model each time: a model
					// counts what it charged.
					opts := func() []Options {
						o := []Options{{Params: par}, {Params: par, Breakdown: true, Queue: HeapQueue, Record: true}}
						if pi == 0 {
							nm, err := noise.New(noise.Config{Seed: 7, PeriodNs: 1000, PeriodDurNs: 37, Stragglers: []int32{1}, Factor: 1.5}, mem.NumRanks)
							if err != nil {
								t.Fatal(err)
							}
							o = append(o, Options{Params: par, Noise: nm, Breakdown: true, Record: true})
						}
						return o
					}
					for oi := range opts() {
						want, werr := mem.Run(opts()[oi])
						for run := 0; run < 2; run++ {
							got, err := p.Run(opts()[oi])
							if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
								t.Fatalf("unit %d, options %d, run %d: got %+v, %v; in memory %+v, %v", unit, oi, run, got, err, want, werr)
							}
							if werr == nil && want.Record != nil {
								samePath(t, p, got, mem, want)
							}
							st, ok := p.Stream()
							if !ok || (st.Loads < int64(p.NumRanks) && p.NumOps() >= p.NumRanks) {
								t.Fatalf("unit %d: stats %+v", unit, st)
							}
							if werr == nil && st.ResidentOps != 0 {
								t.Fatalf("unit %d: %d op records still in memory after a finished run: %+v", unit, st.ResidentOps, st)
							}
						}
					}
				}
			}
		})
	}
}

// TestStreamBoundsMemory: on schedules whose ranks advance together, a
// streamed run holds a small window of each rank's ops, not the schedule.
func TestStreamBoundsMemory(t *testing.T) {
	for _, c := range []struct {
		name  string
		ranks int
		size  uint64
		unit  int

		iters int
	}{
		{"mpi_allreduce", 256, 1 << 10, 16, 400},
		{"halo3d", 64, 1 << 12, 8, 1000},
	} {
		s := patternScheduleWith(t, c.name, pattern.Params{Ranks: c.ranks, Size: c.size, Iterations: c.iters, Compute: 1000})
		p := streamed(t, binaryOf(t, s), c.unit)
		want, err := Run(s, Options{Params: DefaultParams()})
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Run(Options{Params: DefaultParams()})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %+v, %v; want %+v", c.name, got, err, want)
		}
		st, _ := p.Stream()
		t.Logf("%s, %d ranks, %d ops: %+v", c.name, c.ranks, p.NumOps(), st)
		// Per rank: the page its oldest unfinished op is on, the page
		// after, and a few units of successors loaded ahead.
		perPage := int64(recPageOps)
		most := int64(c.ranks) * (2*perPage + 4*int64(c.unit))
		if most > int64(p.NumOps())/4 {
			t.Fatalf("%s: the bound %d is not far below the %d ops: make the schedule longer", c.name, most, p.NumOps())
		}
		if st.PeakOps > most {
			t.Errorf("%s: %d of %d op records in memory at once, want at most %d", c.name, st.PeakOps, p.NumOps(), most)
		}
		if st.Drops == 0 || st.ResidentOps != 0 {
			t.Errorf("%s: %+v", c.name, st)
		}
		// The pool's blocks: the pages of the ops in memory, and at
		// each rank's two ends a page shared with the next rank.
		if blocks := most/perPage + 2*int64(c.ranks); st.PeakBytes > blocks*int64(recBlockSize) {
			t.Errorf("%s: the records took %d bytes at most, want at most %d blocks of %d", c.name, st.PeakBytes, blocks, recBlockSize)
		}
	}
}

// FuzzReadProgramStream: whatever the bytes, ReadProgramStream agrees with
// ReadProgram: the same error, or a program that runs to the same result
// or the same error, with nothing left in memory after a finished run.
func FuzzReadProgramStream(f *testing.F) {
	files, _ := filepath.Glob("testdata/conformance/edge/*.goal")
	for _, name := range files[:min(len(files), 12)] {
		f.Add(binaryOf(f, loadText(f, name)), uint8(3))
	}
	f.Add(binaryOf(f, patternSchedule(f, "linear_alltoall", 5, 100)), uint8(1))
	f.Add(binaryOf(f, patternSchedule(f, "allreduce_recdoub", 8, 1<<17)), uint8(2))
	f.Add([]byte{}, uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, unit uint8) {
		mem, merr := ReadProgram(bytes.NewReader(data))
		p, err := ReadProgramStream(bytes.NewReader(data), StreamOptions{Dir: t.TempDir(), Unit: int(unit%8) + 1, StoreBytes: []int64{0, -1, 1 << 10}[unit/8%3]})
		if fmt.Sprint(err) != fmt.Sprint(merr) {
			t.Fatalf("ReadProgramStream: %v; ReadProgram: %v", err, merr)
		}
		if err != nil {
			return
		}
		defer p.Close()
		checkStreamedRun(t, p, mem)
	})
}

// checkStreamedRun runs the streamed program p and the in-memory mem of a
// fuzzed schedule (unless it is too large to run quickly): same results
// and errors, and no op record left after a finished run.
func checkStreamedRun(t *testing.T, p, mem *Program) {
	t.Helper()
	if int64(mem.NumOps())*int64(mem.NumRanks) > 1<<20 {
		return // runs of huge fuzzed files take too long
	}
	want, werr := mem.Run(Options{Params: DefaultParams()})
	got, gerr := p.Run(Options{Params: DefaultParams()})
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
		t.Fatalf("streamed: %+v, %v; in memory: %+v, %v", got, gerr, want, werr)
	}
	if st, _ := p.Stream(); gerr == nil && st.ResidentOps != 0 {
		t.Fatalf("%+v after a finished run", st)
	}
}

// TestStreamClosed: a closed streamed program refuses to run, and the
// spill file is gone from its directory from the start.
func TestStreamClosed(t *testing.T) {
	dir := t.TempDir()
	p, err := ReadProgramStream(bytes.NewReader(binaryOf(t, patternSchedule(t, "dissemination", 16, 8))), StreamOptions{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("spill directory holds %v", ents)
	}
	if _, err := p.Run(Options{Params: DefaultParams()}); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(Options{Params: DefaultParams()}); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("run after Close: %v", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
}

// TestStreamOpInfo: a streamed program describes every op (OpInfo, Succ,
// Preds, Label) as the program held in memory does, before and after a
// run has loaded and given back its records.
func TestStreamOpInfo(t *testing.T) {
	files, _ := filepath.Glob("testdata/conformance/edge/*.goal")
	files = append(files, "testdata/conformance/goal/allreduce_recdoub_n64_d65536.goal")
	for _, f := range files {
		bin := binaryOf(t, loadText(t, f))
		mem, err := ReadProgram(bytes.NewReader(bin))
		if err != nil {
			t.Fatal(err)
		}
		p := streamed(t, bin, 3)
		for run := 0; run < 2; run++ {
			for g := int32(0); g < int32(mem.NumOps()); g++ {
				if got, want := p.OpInfo(g), mem.OpInfo(g); got != want {
					t.Fatalf("%s, op %d: OpInfo %+v, want %+v", f, g, got, want)
				}
				if got, want := p.Succ(g, nil), mem.Succ(g, nil); !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, op %d: Succ %v, want %v", f, g, got, want)
				}
				if got, want := p.Label(g), mem.Label(g); got != want {
					t.Fatalf("%s, op %d: Label %q, want %q", f, g, got, want)
				}
			}
			for r := 0; r < mem.NumRanks; r++ {
				s1, e1 := p.Preds(r)
				s2, e2 := mem.Preds(r)
				if !reflect.DeepEqual(s1, s2) || !reflect.DeepEqual(e1, e2) {
					t.Fatalf("%s, rank %d: Preds differ", f, r)
				}
			}
			p.Run(Options{Params: DefaultParams()})
		}
	}
}

// TestStreamDeadlock: a streamed run that cannot finish reports the same
// stuck ops as the program in memory, including ops it never loaded (a
// receive that never matches holds back the rest of its rank).
func TestStreamDeadlock(t *testing.T) {
	var b strings.Builder
	b.WriteString("num_ranks 2\nrank 0 {\n  first: send 10b to 1 tag 5\n  r: recv 8b from 1 tag 9\n")
	for i := 0; i < 70; i++ {
		fmt.Fprintf(&b, "  c%d: calc %d\n  c%d requires %s\n", i, 10+i, i, map[bool]string{true: "r", false: fmt.Sprintf("c%d", i-1)}[i == 0])
	}
	b.WriteString("}\nrank 1 {\n  recv 10b from 0 tag 5\n}\n")
	bin, mem := textProgram(t, b.String(), "stuck.goal")
	_, want := mem.Run(Options{Params: DefaultParams()})
	var d *DeadlockError
	if !errors.As(want, &d) || d.Total != 71 {
		t.Fatalf("in memory: %v", want)
	}
	for _, unit := range []int{1, 4} {
		p := streamed(t, bin, unit)
		_, got := p.Run(Options{Params: DefaultParams()})
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("unit %d: %v\nin memory: %v", unit, got, want)
		}
		if p.win.hi[0] >= p.rankStart[1] {
			t.Fatalf("unit %d: rank 0 was loaded whole; the test needs ops never loaded", unit)
		}
	}
}

// TestTextStreamMatchesMemory: text schedules streamed with
// ReadTextProgramStream run exactly as the program Compile builds from
// goal.ReadText, whether or not they use several CPUs and NICs (which a
// text states only op by op), and bad texts give goal.ReadText's error.
func TestTextStreamMatchesMemory(t *testing.T) {
	texts := map[string][]byte{}
	for _, f := range conformanceGoals() {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[filepath.Base(f)] = data
	}
	for _, c := range []struct {
		name  string
		ranks int
		size  uint64
	}{{"allreduce_recdoub", 64, 1 << 16}, {"binomialtreebcast", 300, 1 << 20}, {"dissemination", 2600, 8}} {
		var b bytes.Buffer
		if err := goal.WriteText(&b, patternSchedule(t, c.name, c.ranks, c.size)); err != nil {
			t.Fatal(err)
		}
		texts[c.name] = b.Bytes()
	}
	multi := []byte("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 3 cpu 1 nic 2\nl2: calc 50 cpu 2\nl3: calc 9\nl3 requires l1\n}\nrank 1 {\nl1: recv 8b from 0 tag 3 nic 1\n}\n")
	texts["several CPUs and NICs"] = multi
	texts["bad peer"] = bytes.Replace(multi, []byte("from 0"), []byte("from 5"), 1)
	texts["missing rank"] = []byte("num_ranks 3\nrank 0 {\n}\nrank 1 {\n}\n")
	texts["no ranks"] = []byte("num_ranks 0\n")
	// The dissemination's text is long enough to be parsed in pieces on
	// all CPUs by ReadTextProgramStreamAt (goal.TextStream).
	if n := len(texts["dissemination"]); n < 2<<20+1<<16 {
		t.Fatalf("the dissemination's text has %d bytes, want more than 2 MiB (two pieces)", n)
	}
	cpus := 0
	for name, data := range texts {
		s, werr := goal.ReadText(bytes.NewReader(data), name)
		for i, so := range []StreamOptions{streamOpts[0], streamOpts[2], streamOpts[0]} {
			unit := so.Unit
			so.Dir = t.TempDir()
			var p *Program
			var err error
			if i < 2 {
				p, err = ReadTextProgramStream(bytes.NewReader(data), name, so)
			} else {
				p, err = ReadTextProgramStreamAt(bytes.NewReader(data), int64(len(data)), name, so)
			}
			if fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Fatalf("%s (%d): error %v, want %v", name, i, err, werr)
			}
			if werr != nil {
				continue
			}
			mem, err := Compile(s)
			if err != nil {
				t.Fatal(err)
			}
			if p.NumRanks != mem.NumRanks || p.NumCPUs != mem.NumCPUs || p.NumNICs != mem.NumNICs || p.NumOps() != mem.NumOps() {
				t.Fatalf("%s: %d ranks, %d CPUs, %d NICs, %d ops; in memory %d, %d, %d, %d", name,
					p.NumRanks, p.NumCPUs, p.NumNICs, p.NumOps(), mem.NumRanks, mem.NumCPUs, mem.NumNICs, mem.NumOps())
			}
			cpus = max(cpus, p.NumCPUs)
			for _, par := range []Params{DefaultParams(), {L: 0, Overhead: 7, Gap: 100, GapPerByte: 1, OverheadPerByte: 3, EagerLimit: 0}} {
				want, werr := mem.Run(Options{Params: par})
				got, err := p.Run(Options{Params: par})
				if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
					t.Fatalf("%s, unit %d: got %+v, %v; in memory %+v, %v", name, unit, got, err, want, werr)
				}
			}
			if err := p.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	if cpus < 3 {
		t.Fatalf("no schedule with several CPUs was streamed (at most %d)", cpus)
	}
}

// FuzzReadTextProgramStream: a text streamed with ReadTextProgramStream,
// and read into memory with ReadTextProgram, gives the error of
// goal.ReadTextLimits with the engine's limits or runs exactly as the
// program Compile builds.
func FuzzReadTextProgramStream(f *testing.F) {
	files, _ := filepath.Glob("testdata/conformance/edge/*.goal")
	for _, name := range files[:min(len(files), 12)] {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data, uint8(3))
	}
	f.Add([]byte("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 3 cpu 1 nic 2\nl2: calc 50 cpu 2\nl2 requires l1\n}\nrank 1 {\nl1: recv 8b from 0 tag 3 nic 1\n}\n"), uint8(1))
	f.Add([]byte("num_ranks 1\nrank 0 {\n"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, unit uint8) {
		if len(data) > 64<<10 {
			t.Skip()
		}
		s, werr := goal.ReadTextLimits(bytes.NewReader(data), "fuzz.goal", textLimits)
		p, err := ReadTextProgramStream(bytes.NewReader(data), "fuzz.goal", StreamOptions{Dir: t.TempDir(), Unit: int(unit%8) + 1, StoreBytes: []int64{0, -1, 1 << 10}[unit/8%3]})
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("ReadTextProgramStream: %v; ReadText: %v", err, werr)
		}
		q, qerr := ReadTextProgram(bytes.NewReader(data), int64(len(data)), "fuzz.goal")
		if fmt.Sprint(qerr) != fmt.Sprint(werr) {
			t.Fatalf("ReadTextProgram: %v; ReadText: %v", qerr, werr)
		}
		if werr != nil {
			return
		}
		defer p.Close()
		mem, err := Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(q, mem) {
			t.Fatal("ReadTextProgram: another program than Compile's")
		}
		checkStreamedRun(t, p, mem)
	})
}

// strideSchedule is TestModelsWithExtras's schedule: a labelled
// non-contiguous send (log3P), rendezvous messages both ways (LogGPS) and
// a wildcard receive.
const strideSchedule = `num_ranks 3
rank 0 {
stride512: send 100000b to 1
b: calc 100
b requires stride512
send 8b to 2
send 8b to 2
recv 100000b from 2
}
rank 1 {
w: calc 20000
r: recv 100000b from -1
r requires w
}
rank 2 {
recv 8b from 0
recv 8b from 0
send 100000b to 0
}
`

// modelParams are parameters with a section for every model that has
// one beyond LogGOPS's: LogfP bursts of 2 and a log3P table.
func modelParams() Params {
	p := DefaultParams()
	p.LogfP = &LogfPParams{F: 2, OBurst: 30}
	p.Log3P = &Log3PParams{Points: []Log3PPoint{{Size: 100000, Stride: 512, Pack: 7000, Unpack: 9000}, {Size: 8, Stride: 64, Pack: 10, Unpack: 20}}}
	return p
}

// TestStreamModelsMatchMemory: every model, with noise, a breakdown and a
// congested network, gives a streamed program exactly what it gives the
// program held in memory, and a finished run leaves no op record loaded.
func TestStreamModelsMatchMemory(t *testing.T) {
	type named struct {
		name string
		s    *goal.Schedule
	}
	st, err := goal.ReadText(strings.NewReader(strideSchedule), "stride.goal")
	if err != nil {
		t.Fatal(err)
	}
	cases := []named{{"stride", st}}
	for _, f := range conformanceGoals() {
		cases = append(cases, named{filepath.Base(f), loadText(t, f)})
	}
	for _, c := range []struct {
		name  string
		ranks int
		size  uint64
	}{{"allreduce_recdoub", 64, 1 << 16}, {"linear_alltoall", 17, 100}, {"binomialtreebcast", 200, 1 << 20}, {"dissemination", 33, 8}} {
		cases = append(cases, named{fmt.Sprintf("%s_%d", c.name, c.ranks), patternSchedule(t, c.name, c.ranks, c.size)})
	}
	g, err := topology.Generate("fattree:k=4,n=2")
	if err != nil {
		t.Fatal(err)
	}
	par := modelParams()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := binaryOf(t, c.s)
			mem, err := ReadProgram(bytes.NewReader(bin))
			if err != nil {
				t.Fatal(err)
			}
			p := streamed(t, bin, 3)
			for _, m := range Models() {
				opts := func() []Options {
					nm, err := noise.New(noise.Config{Seed: 7, PeriodNs: 1000, PeriodDurNs: 37, Stragglers: []int32{1}, Factor: 1.5}, mem.NumRanks)
					if err != nil {
						t.Fatal(err)
					}
					o := []Options{{Params: par, Model: m}, {Params: par, Model: m, Noise: nm, Breakdown: true, Record: true}}
					for _, model := range []topology.Model{topology.Simple, topology.Flow} {
						lm, err := topology.Linear(g, mem.NumRanks, (mem.NumRanks+g.NumHosts()-1)/g.NumHosts())
						if err != nil {
							t.Fatal(err)
						}
						net, err := topology.NewNetwork(g, lm, topology.Options{Model: model})
						if err != nil {
							t.Fatal(err)
						}
						o = append(o, Options{Params: par, Model: m, Network: net, Queue: HeapQueue, Record: model == topology.Flow})
					}
					return o
				}
				for oi := range opts() {
					wo, go_ := opts()[oi], opts()[oi]
					want, werr := mem.Run(wo)
					got, err := p.Run(go_)
					if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
						t.Fatalf("%s, options %d: got %+v, %v; in memory %+v, %v", m, oi, got, err, want, werr)
					}
					if werr == nil && want.Record != nil {
						samePath(t, p, got, mem, want)
					}
					if wo.Network != nil && !reflect.DeepEqual(wo.Network.LinkStats(want.MaxTime, nil), go_.Network.LinkStats(got.MaxTime, nil)) {
						t.Fatalf("%s, options %d: link statistics differ", m, oi)
					}
					if st, _ := p.Stream(); werr == nil && st.ResidentOps != 0 {
						t.Fatalf("%s, options %d: %d op records still in memory after a finished run", m, oi, st.ResidentOps)
					}
				}
			}
		})
	}
}

// samePath checks that the critical path of the streamed program's run
// got is the one of the in-memory run want, or fails the same way.
func samePath(t *testing.T, p *Program, got *Result, mem *Program, want *Result) {
	t.Helper()
	wp, werr := CriticalPath(mem, want)
	// The streamed walk forgets every rank it has seen as soon as it
	// needs another.
	defer func(n int) { critCacheEntries = n }(critCacheEntries)
	critCacheEntries = 0
	gp, gerr := CriticalPath(p, got)
	if fmt.Sprint(gerr) != fmt.Sprint(werr) || !reflect.DeepEqual(gp, wp) {
		t.Fatalf("critical path of the streamed run: %+v, %v; in memory %+v, %v", gp, gerr, wp, werr)
	}
}

// TestStreamShare: shares of a streamed program run at the same time, on
// their own goroutines, each exactly as the program held in memory, also
// after the program they were shared from is closed; a program in memory
// cannot be shared.
func TestStreamShare(t *testing.T) {
	bin := binaryOf(t, patternSchedule(t, "allreduce_recdoub", 64, 1<<16))
	mem, err := ReadProgram(bytes.NewReader(bin))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mem.Share(); err == nil {
		t.Fatal("a program in memory was shared")
	}
	p, err := ReadProgramStream(bytes.NewReader(bin), StreamOptions{Dir: t.TempDir(), Unit: 7})
	if err != nil {
		t.Fatal(err)
	}
	var shares []*Program
	for range 3 {
		q, err := p.Share()
		if err != nil {
			t.Fatal(err)
		}
		shares = append(shares, q)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Share(); err == nil {
		t.Fatal("a closed program was shared")
	}
	opts := func(i int) []Options {
		par := DefaultParams()
		par.L = float64(1000 * (i + 1))
		return []Options{{Params: par, Record: i == 1}, {Params: par, Model: LogGPS, Record: i == 1}}
	}
	var wants [][]*Result
	for i := range shares {
		var w []*Result
		for _, opt := range opts(i) {
			want, err := mem.Run(opt)
			if err != nil {
				t.Fatal(err)
			}
			w = append(w, want)
		}
		wants = append(wants, w)
	}
	errs := make(chan error, len(shares))
	for i, q := range shares {
		go func() {
			for k, opt := range opts(i) {
				want, m := wants[i][k], opt.Model
				got, err := q.Run(opt)
				if err != nil || !reflect.DeepEqual(got, want) {
					errs <- fmt.Errorf("share %d, %s: %+v, %v; want %+v", i, m, got, err, want)
					return
				}
			}
			errs <- q.Close()
		}()
	}
	for range shares {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestStreamRecordNoOps: a schedule without ops has an empty record,
// streamed as in memory.
func TestStreamRecordNoOps(t *testing.T) {
	bin, mem := textProgram(t, "num_ranks 2\nrank 0 {\n}\nrank 1 {\n}\n", "empty.goal")
	p := streamed(t, bin, 1)
	want, werr := mem.Run(Options{Params: DefaultParams(), Record: true})
	got, err := p.Run(Options{Params: DefaultParams(), Record: true})
	if err != nil || werr != nil || !reflect.DeepEqual(got, want) || got.Record == nil {
		t.Fatalf("%+v, %v; in memory %+v, %v", got, err, want, werr)
	}
}

// TestStreamStoresUnitsOnce: the units of ranks that do the same thing
// are kept once (peers relative to the rank), and a budget of no memory
// puts every unit in the spill file; both run as the program in memory.
func TestStreamStoresUnitsOnce(t *testing.T) {
	s := patternScheduleWith(t, "halo3d", pattern.Params{Ranks: 64, Size: 1 << 12, Iterations: 50, Compute: 1000})
	bin := binaryOf(t, s)
	want, err := Run(s, Options{Params: DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		store      int64
		mem, spill bool
	}{{0, true, false}, {-1, false, true}, {1 << 10, true, true}} {
		p := streamedWith(t, bin, StreamOptions{Unit: 16, StoreBytes: c.store})
		got, err := p.Run(Options{Params: DefaultParams()})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("store %d: %+v, %v; want %+v", c.store, got, err, want)
		}
		st, _ := p.Stream()
		t.Logf("store %d: %+v", c.store, st)
		if (st.StoredUnits > 0) != c.mem || (st.SpillBytes > 0) != c.spill || st.StoreBytes > max(c.store, 0) && c.store != 0 {
			t.Errorf("store %d: %+v", c.store, st)
		}
		if c.store == 0 && st.StoredUnits*4 > st.Units {
			t.Errorf("%d distinct units of %d: the copies were not found alike", st.StoredUnits, st.Units)
		}
	}
}

// TestStreamRecordRanks: a streamed run asked for the records of some
// ranks only (Options.RecordRanks) gives, for their ops and for the ops
// they exchanged messages with, exactly the records of the run in
// memory, and the rest of the result unchanged: in ns and in ps, run
// after a run of every rank and before one, so that pages the file kept
// from another run do not matter; and it writes fewer pages to its file.
func TestStreamRecordRanks(t *testing.T) {
	cases := []struct {
		name  string
		ranks int
		size  uint64
	}{{"allreduce_recdoub", 64, 1 << 16}, {"dissemination", 300, 100}, {"binomialtreebcast", 3000, 1 << 20}}
	frac := DefaultParams()
	frac.GapPerByte, frac.Overhead = 0.37, 1500.5
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bin := binaryOf(t, patternSchedule(t, c.name, c.ranks, c.size))
			mem, err := ReadProgram(bytes.NewReader(bin))
			if err != nil {
				t.Fatal(err)
			}
			p := streamedWith(t, bin, StreamOptions{Unit: 3})
			listed := []int{1, c.ranks - 1}
			pars := []Params{DefaultParams(), frac}
			for i, par := range pars {
				want, err := mem.Run(Options{Params: par, Record: true})
				if err != nil {
					t.Fatal(err)
				}
				// Every page of the file is first written by a run under
				// the other parameters, whose records differ.
				other := pars[1-i]
				for _, o := range []Options{{Params: other, Record: true}, {Params: par, Record: true, RecordRanks: listed}, {Params: par, Record: true}} {
					got, err := p.Run(o)
					if err != nil {
						t.Fatal(err)
					}
					if o.Params.Overhead == par.Overhead {
						checkRecords(t, mem, want, got, o.RecordRanks)
					}
					if o.RecordRanks != nil && p.win.rec.written == nil {
						t.Fatal("RecordRanks: every page written")
					}
				}
				if _, err := p.Run(Options{Params: par, Record: true, RecordRanks: listed}); err != nil {
					t.Fatal(err)
				}
				kept := 0
				for _, w := range p.win.rec.written {
					kept += bits.OnesCount64(w)
				}
				if all := p.win.rec.pages(); kept == 0 || kept >= all {
					t.Errorf("%d of %d record pages written for ranks %v", kept, all, listed)
				}
			}
		})
	}
}

// checkRecords compares a streamed run's result got with want, the run
// in memory: everything but the record, and the records of the ops of
// ranks and of the ops they matched (every op when ranks is nil).
func checkRecords(t *testing.T, p *Program, want, got *Result, ranks []int) {
	t.Helper()
	a, b := *want, *got
	a.Record, b.Record, a.rawRec, b.rawRec = nil, nil, nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("ranks %v: got %+v, want %+v", ranks, b, a)
	}
	if ranks == nil {
		if !reflect.DeepEqual(got.Record, want.Record) {
			t.Fatal("every rank: the records differ")
		}
		return
	}
	for _, r := range ranks {
		lo, hi := p.RankOps(r)
		for g := lo; g < hi; g++ {
			for _, k := range []int32{g, want.Record[g].Match} {
				if k >= 0 && got.Record[k] != want.Record[k] {
					t.Fatalf("ranks %v: op %d's record %+v, want %+v", ranks, k, got.Record[k], want.Record[k])
				}
			}
		}
	}
}

// TestStreamRecordRanksFailed: with Options.RecordRanks, a receive from
// any source keeps its sender's record, and a run that deadlocks leaves
// the listed ranks' records as a run in memory does, the ops it never
// loaded included (writeUnfinished).
func TestStreamRecordRanksFailed(t *testing.T) {
	const ranks, calcs = 6, 300
	var b strings.Builder
	fmt.Fprintf(&b, "num_ranks %d\n", ranks)
	for r := 0; r < ranks; r++ {
		fmt.Fprintf(&b, "rank %d {\n  c0: calc %d\n", r, 100+r)
		for i := 1; i < calcs; i++ {
			fmt.Fprintf(&b, "  c%d: calc %d\n  c%d requires c%d\n", i, 10+i%7, i, i-1)
		}
		from := (r + ranks - 1) % ranks
		if r == 2 {
			from = -1
		}
		fmt.Fprintf(&b, "  s: send 100b to %d tag 1\n  s requires c%d\n  v: recv 100b from %d tag 1\n", (r+1)%ranks, calcs-1, from)
		if r == 4 {
			// never sent: rank 4 stops here, the rest of it never loaded
			fmt.Fprintf(&b, "  x: recv 8b from 0 tag 9\n  x requires v\n")
			for i := 0; i < calcs; i++ {
				fmt.Fprintf(&b, "  d%d: calc 5\n  d%d requires %s\n", i, i, map[bool]string{true: "x", false: fmt.Sprintf("d%d", i-1)}[i == 0])
			}
		}
		b.WriteString("}\n")
	}
	bin, mem := textProgram(t, b.String(), "anysource.goal")
	p := streamedWith(t, bin, StreamOptions{Unit: 4})
	other := DefaultParams()
	other.L = 777
	for _, listed := range [][]int{{2}, {4}, {1, 4}} {
		want, werr := mem.Run(Options{Params: DefaultParams(), Record: true})
		var d *DeadlockError
		if !errors.As(werr, &d) {
			t.Fatalf("in memory: %v", werr)
		}
		if _, err := p.Run(Options{Params: other, Record: true}); !errors.As(err, &d) {
			t.Fatalf("streamed: %v", err)
		}
		// What the file holds before the run must not matter: fill it
		// with bytes no run writes.
		junk := bytes.Repeat([]byte{0x5a}, int(p.win.rec.n)*int(recSize))
		if _, err := p.win.rec.f.WriteAt(junk, 0); err != nil {
			t.Fatal(err)
		}
		got, err := p.Run(Options{Params: DefaultParams(), Record: true, RecordRanks: listed})
		if fmt.Sprint(err) != fmt.Sprint(werr) {
			t.Fatalf("ranks %v: %v, in memory %v", listed, err, werr)
		}
		if p.win.hi[4] >= p.rankStart[5] {
			t.Fatal("rank 4 was loaded whole; the test needs ops never loaded")
		}
		checkRecords(t, mem, want, got, listed)
	}
}

// textProgram reads a GOAL text and returns its binary form and the
// program it gives in memory.
func textProgram(t *testing.T, text, name string) ([]byte, *Program) {
	t.Helper()
	s, err := goal.ReadText(strings.NewReader(text), name)
	if err != nil {
		t.Fatal(err)
	}
	bin := binaryOf(t, s)
	mem, err := ReadProgram(bytes.NewReader(bin))
	if err != nil {
		t.Fatal(err)
	}
	return bin, mem
}

// TestPathOnly: with Options.PathOnly a run counting ps keeps no record
// in ns (Result.Record nil, no second record file when streamed) and
// CriticalPath gives the same path as without it, in memory and
// streamed; a run counting ns is not changed.
func TestPathOnly(t *testing.T) {
	bin := binaryOf(t, patternSchedule(t, "allreduce_recdoub", 64, 1<<16))
	mem, err := ReadProgram(bytes.NewReader(bin))
	if err != nil {
		t.Fatal(err)
	}
	str := streamedWith(t, bin, StreamOptions{Unit: 3})
	frac := DefaultParams()
	frac.GapPerByte, frac.Overhead = 0.37, 1500.5
	for _, par := range []Params{frac, DefaultParams()} {
		for name, p := range map[string]*Program{"in memory": mem, "streamed": str} {
			want, err := p.Run(Options{Params: par, Record: true})
			if err != nil {
				t.Fatal(err)
			}
			wp, err := CriticalPath(p, want)
			if err != nil {
				t.Fatal(err)
			}
			wantPath := fmt.Sprint(wp)
			got, err := p.Run(Options{Params: par, Record: true, PathOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if fractional := par.Overhead != DefaultParams().Overhead; (got.Record == nil) != fractional {
				t.Errorf("%s, fractional %v: Record nil %v", name, fractional, got.Record == nil)
			}
			gp, err := CriticalPath(p, got)
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(gp) != wantPath || got.MaxTime != want.MaxTime {
				t.Errorf("%s, %s: the path with PathOnly differs:\n%v\nwant\n%v", name, par, gp, wp)
			}
		}
	}
}
