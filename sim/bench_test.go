package sim

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/gopsim/gopsim/goal"
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

// scheduleBytes is the in-memory size of a schedule's slices.
func scheduleBytes(s *goal.Schedule) int {
	return 24*cap(s.Ops) + 4*cap(s.RankStart) + 4*cap(s.DepStart) + 4*cap(s.Deps)
}

func benchRun(b *testing.B, s *goal.Schedule, q QueueKind) {
	b.ReportAllocs()
	var events uint64
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := Run(s, Options{Params: DefaultParams(), Queue: q})
		if err != nil {
			b.Fatal(err)
		}
		events = res.Events
	}
	b.StopTimer()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	perRun := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(float64(events)/(perRun/1e9), "events/s")
	b.ReportMetric(perRun/float64(events), "ns/event")
	b.ReportMetric(float64(scheduleBytes(s))/float64(len(s.Ops)), "sched-B/op")
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

func BenchmarkRunConformance(b *testing.B) {
	for _, f := range []string{"linear_alltoall_n64_d1024", "allreduce_ring_n64_d65536_seqtag", "pipelinedringdep_n64_d65536_segmentsize8192"} {
		s := loadText(b, "testdata/conformance/goal/"+f+".goal")
		b.Run(f, func(b *testing.B) { benchRun(b, s, RadixQueue) })
	}
}
