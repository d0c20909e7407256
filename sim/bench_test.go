package sim

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
	"unsafe"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/pattern"
)

// dissemination builds the schedule Schedgen writes for
// `-p dissemination -s P -d size`: in round k each rank sends to
// r+2^k and receives from r-2^k; the send of round k requires the
// receive of round k-1.
func dissemination(tb testing.TB, P int, size uint64) *goal.Schedule {
	tb.Helper()
	s := goal.NewSchedule(P)
	var b goal.RankBlock
	for r := 0; r < P; r++ {
		b.Reset(int32(r))
		var edges [][2]int32 // pred, succ
		for k := 1; k < P; k <<= 1 {
			if len(b.Ops) > 0 {
				edges = append(edges, [2]int32{int32(len(b.Ops) - 1), int32(len(b.Ops))})
			}
			b.Ops = append(b.Ops,
				goal.Op{Kind: goal.Send, Size: size, Peer: int32((r + k) % P)},
				goal.Op{Kind: goal.Recv, Size: size, Peer: int32((r - k + P) % P)})
		}
		b.DepStart = append(b.DepStart, make([]int32, len(b.Ops)+1)...)
		for _, e := range edges {
			b.DepStart[e[0]+1]++
		}
		for i := 1; i < len(b.DepStart); i++ {
			b.DepStart[i] += b.DepStart[i-1]
		}
		for _, e := range edges { // one successor per predecessor here
			b.Deps = append(b.Deps, goal.MakeDep(e[1], false))
		}
		if err := s.AppendRank(&b); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

func TestDisseminationHelperMatchesSchedgen(t *testing.T) {
	want := loadText(t, "testdata/conformance/goal/dissemination_n64_d1024.goal")
	got := dissemination(t, 64, 1024)
	for r := 0; r < 64; r++ {
		var a, b goal.RankBlock
		want.Block(r, &a)
		got.Block(r, &b)
		if fmt.Sprint(a.Ops, a.DepStart, a.Deps) != fmt.Sprint(b.Ops, b.DepStart, b.Deps) {
			t.Fatalf("rank %d differs from Schedgen's schedule", r)
		}
	}
	res, err := Run(got, Options{Params: DefaultParams()})
	if err != nil || res.MaxTime != 69828 {
		t.Fatalf("max %d, err %v; LogGOPSim gives 69828", res.MaxTime, err)
	}
}

// programBytes is the in-memory size of a program's slices.
func programBytes(p *Program) int {
	return int(unsafe.Sizeof(opRec{}))*cap(p.ops) + 4*cap(p.deps) + 4*cap(p.rankStart) +
		int(unsafe.Sizeof(rankStartState{}))*cap(p.start) + 4*cap(p.cn)
}

// benchRun runs the compiled schedule b.N times: the engine alone, not
// Compile.
func benchRun(b *testing.B, s *goal.Schedule, q QueueKind) {
	benchRunOpt(b, s, Options{Params: DefaultParams(), Queue: q})
}

// benchRunOpt is benchRun with the given options.
func benchRunOpt(b *testing.B, s *goal.Schedule, opt Options) {
	b.ReportAllocs()
	p, err := Compile(s)
	if err != nil {
		b.Fatal(err)
	}
	var events, queueOps uint64
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := p.Run(opt)
		if err != nil {
			b.Fatal(err)
		}
		events, queueOps = res.Events, res.QueueOps
	}
	b.StopTimer()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	perRun := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(events)/(perRun/1e9), "events/s")
	b.ReportMetric(perRun/float64(events), "ns/event")
	b.ReportMetric(float64(queueOps)/float64(events), "queue-ops/event")
	b.ReportMetric(float64(programBytes(p))/float64(len(s.Ops)), "program-B/op")
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(s.Ops)), "engine-B/op")
}

func BenchmarkRunDissemination(b *testing.B) {
	for _, P := range []int{1024, 65536} {
		s := dissemination(b, P, 1024)
		for _, q := range []struct {
			name string
			kind QueueKind
		}{{"radix", RadixQueue}, {"heap", HeapQueue}} {
			b.Run(fmt.Sprintf("P=%d/%s", P, q.name), func(b *testing.B) { benchRun(b, s, q.kind) })
		}
	}
}

// patternSchedule builds the schedule `gopsim gen -p name -s ranks -d size` writes.
func patternSchedule(tb testing.TB, name string, ranks int, size uint64) *goal.Schedule {
	tb.Helper()
	return patternScheduleWith(tb, name, pattern.Params{Ranks: ranks, Size: size})
}

// patternScheduleWith builds the schedule of pattern name with the
// parameters of `gopsim gen`'s flags.
func patternScheduleWith(tb testing.TB, name string, par pattern.Params) *goal.Schedule {
	tb.Helper()
	g, err := pattern.New(name, par)
	if err != nil {
		tb.Fatal(err)
	}
	s := goal.NewSchedule(g.NumRanks())
	var x goal.Builder
	for r := 0; r < g.NumRanks(); r++ {
		x.Reset(int32(r))
		g.Rank(&x, r)
		if err := s.AppendRank(x.Block()); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// BenchmarkRunPattern runs schedules of `gopsim gen` at the scale of the
// end-to-end table in docs/performance.md.
func BenchmarkRunPattern(b *testing.B) {
	for _, c := range []struct {
		name  string
		ranks int
		size  uint64
	}{
		{"allreduce_recdoub", 16384, 1 << 20},
		{"binomialtreebcast", 131072, 1024},
		{"linear_alltoall", 128, 1024},
		{"linear_alltoall", 1024, 1024},
	} {
		s := patternSchedule(b, c.name, c.ranks, c.size)
		b.Run(fmt.Sprintf("%s/P=%d", c.name, c.ranks), func(b *testing.B) { benchRun(b, s, RadixQueue) })
	}
}

// BenchmarkWaitingLists compares the engine's waiting lists with the
// rules' put-backs (Options.putBack) where ops wait for busy resources: a
// linear all-to-all, whose sends are all ready at time 0 (quadratic with
// put-backs), MPICH's pairwise all-to-all, and a binomial broadcast,
// whose sends wait for their CPU once each.
func BenchmarkWaitingLists(b *testing.B) {
	for _, c := range []struct {
		name  string
		ranks int
		size  uint64
	}{
		{"linear_alltoall", 256, 1024},
		{"mpi_alltoall", 256, 4096},
		{"binomialtreebcast", 131072, 1024},
	} {
		s := patternSchedule(b, c.name, c.ranks, c.size)
		for _, v := range []struct {
			name    string
			putBack bool
		}{{"lists", false}, {"putback", true}} {
			b.Run(fmt.Sprintf("%s/P=%d/%s", c.name, c.ranks, v.name), func(b *testing.B) {
				benchRunOpt(b, s, Options{Params: DefaultParams(), putBack: v.putBack})
			})
		}
	}
}

func BenchmarkRunConformance(b *testing.B) {
	for _, f := range []string{"linear_alltoall_n64_d1024", "allreduce_ring_n64_d65536_seqtag", "pipelinedringdep_n64_d65536_segmentsize8192"} {
		s := loadText(b, "testdata/conformance/goal/"+f+".goal")
		b.Run(f, func(b *testing.B) { benchRun(b, s, RadixQueue) })
	}
}

// BenchmarkRunTimeUnit compares the engine's two time units on the same
// schedules: ns (whole parameters, the default), ps forced with the same
// whole parameters, and ps because the parameters have fractions of a ns
// (docs/model.md, "Time unit").
func BenchmarkRunTimeUnit(b *testing.B) {
	frac := DefaultParams()
	frac.L, frac.Overhead, frac.GapPerByte = 2500.5, 1500.25, 0.08
	for _, c := range []struct {
		name string
		s    *goal.Schedule
	}{
		{"dissemination/P=1024", dissemination(b, 1024, 1024)},
		{"allreduce_recdoub/P=16384", patternSchedule(b, "allreduce_recdoub", 16384, 1<<20)},
		{"linear_alltoall/P=128", patternSchedule(b, "linear_alltoall", 128, 1024)},
	} {
		b.Run(c.name+"/ns", func(b *testing.B) { benchRunOpt(b, c.s, Options{Params: DefaultParams()}) })
		b.Run(c.name+"/ps", func(b *testing.B) { benchRunOpt(b, c.s, Options{Params: DefaultParams(), psAlways: true}) })
		b.Run(c.name+"/ps-fractional", func(b *testing.B) { benchRunOpt(b, c.s, Options{Params: frac}) })
	}
}

// BenchmarkReadProgram decodes a binary schedule into a Program, in
// parallel on GOMAXPROCS goroutines, and for comparison into a
// goal.Schedule that is then compiled.
func BenchmarkReadProgram(b *testing.B) {
	for _, c := range []struct {
		name  string
		ranks int
		size  uint64
	}{{"dissemination", 65536, 1024}, {"allreduce_recdoub", 16384, 1 << 20}} {
		s := patternSchedule(b, c.name, c.ranks, c.size)
		var file bytes.Buffer
		if err := goal.WriteBinary(&file, s); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/P=%d/ReadProgram", c.name, c.ranks), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ReadProgram(bytes.NewReader(file.Bytes())); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(s.Ops)), "ns/goalop")
		})
		b.Run(fmt.Sprintf("%s/P=%d/ReadBinary+Compile", c.name, c.ranks), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t, err := goal.ReadBinary(bytes.NewReader(file.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Compile(t); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(s.Ops)), "ns/goalop")
		})
	}
}

// BenchmarkRunStream reads a binary schedule into a streamed program
// (spill file in the test's temporary directory) and runs it, against the
// same in memory: the cost of bounded memory. stream keeps the distinct
// units in memory (the default), stream-file reads every unit from the
// spill file.
func BenchmarkRunStream(b *testing.B) {
	s := patternScheduleWith(b, "mpi_allreduce", pattern.Params{Ranks: 4096, Size: 8, Algo: "recdoub", Iterations: 20})
	for _, mode := range []string{"memory", "stream", "stream-file"} {
		b.Run(mode, func(b *testing.B) { benchReadRun(b, s, mode, Options{Params: DefaultParams()}) })
	}
}

// BenchmarkRunStreamRecord runs the schedule of BenchmarkRunStream with
// the per-op record (Options.Record) that a critical path or a timeline
// reads, in memory and streamed: what recording costs beside its plain
// runs. The record of a streamed run goes to a file in the test's
// temporary directory (streamrec.go).
func BenchmarkRunStreamRecord(b *testing.B) {
	s := patternScheduleWith(b, "mpi_allreduce", pattern.Params{Ranks: 4096, Size: 8, Algo: "recdoub", Iterations: 20})
	for _, mode := range []string{"memory", "stream"} {
		b.Run(mode, func(b *testing.B) { benchReadRun(b, s, mode, Options{Params: DefaultParams(), Record: true}) })
	}
	// In ps (parameters in fractions of a ns) the record is kept in ps
	// and, for timelines, copied to ns; a critical path alone needs no
	// copy (Options.PathOnly).
	ps := DefaultParams()
	ps.GapPerByte = 0.08
	for _, mode := range []string{"memory", "stream"} {
		b.Run(mode+"/ps", func(b *testing.B) { benchReadRun(b, s, mode, Options{Params: ps, Record: true}) })
		b.Run(mode+"/ps-pathonly", func(b *testing.B) { benchReadRun(b, s, mode, Options{Params: ps, Record: true, PathOnly: true}) })
	}
}

// benchReadRun reads s's binary form and runs it with opt at each
// iteration: in memory, streamed, or streamed with every unit in the
// spill file (mode memory, stream, stream-file).
func benchReadRun(b *testing.B, s *goal.Schedule, mode string, opt Options) {
	bin := binaryOf(b, s)
	b.ReportAllocs()
	var events uint64
	for b.Loop() {
		var p *Program
		var err error
		if mode == "memory" {
			p, err = ReadProgram(bytes.NewReader(bin))
		} else {
			so := StreamOptions{Dir: b.TempDir()}
			if mode == "stream-file" {
				so.StoreBytes = -1
			}
			p, err = ReadProgramStream(bytes.NewReader(bin), so)
		}
		if err != nil {
			b.Fatal(err)
		}
		res, err := p.Run(opt)
		if err != nil {
			b.Fatal(err)
		}
		events += res.Events
		p.Close()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events), "ns/event")
	b.ReportMetric(float64(len(s.Ops)), "ops")
}

// BenchmarkCriticalPath times the critical path of a recorded run (the
// walk alone; the run is done once) on an allreduce iterated with
// computation between: chains of ops on every rank, as in a traced
// application, whose path enters each rank many times.
func BenchmarkCriticalPath(b *testing.B) {
	s := patternScheduleWith(b, "mpi_allreduce", pattern.Params{Ranks: 1024, Size: 8, Algo: "recdoub", Iterations: 40, Compute: 500})
	p, err := Compile(s)
	if err != nil {
		b.Fatal(err)
	}
	res, err := p.Run(Options{Params: DefaultParams(), Record: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var steps int
	for range b.N {
		path, err := CriticalPath(p, res)
		if err != nil {
			b.Fatal(err)
		}
		steps = len(path.Steps)
	}
	b.ReportMetric(float64(steps), "steps")
}
