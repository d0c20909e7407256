package extrapolation_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gopsim/gopsim/extrapolation"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/trace"
)

// countingSource counts how often each rank is opened, and can make rank
// failRank's stream fail at its call failAt.
type countingSource struct {
	*memSource
	opens    []int
	failRank int
	failAt   int
}

func (c *countingSource) OpenRank(r int) (trace.RankStream, error) {
	c.opens[r]++
	s, _ := c.memSource.OpenRank(r)
	if r == c.failRank {
		return &failingStream{RankStream: s, at: c.failAt}, nil
	}
	return s, nil
}

type failingStream struct {
	trace.RankStream
	at, i int
}

var errBroken = errors.New("broken trace")

func (f *failingStream) Next(c *trace.Call) error {
	if f.i == f.at {
		return fmt.Errorf("%s: call %d: %w", f.Name(), f.i, errBroken)
	}
	f.i++
	return f.RankStream.Next(c)
}

// withAnySource adds to each rank of m, before its MPI_Finalize, a
// receive from any source completed by an MPI_Wait, whose completion
// names the left neighbour (which the copies rewrite), and the send to
// the right one that it gets.
func withAnySource(m *memSource) *memSource {
	p := len(m.calls)
	for r, calls := range m.calls {
		fin := calls[len(calls)-1]
		t := fin.Start
		c := func(f trace.Func) *trace.Call {
			x := trace.NewCall(f, t, t+20)
			t += 500
			calls = append(calls[:len(calls)-1], x, fin)
			return &calls[len(calls)-2]
		}
		left := int32((r + p - 1) % p)
		rc := c(trace.FuncIrecv)
		rc.Comm, rc.Peer, rc.Tag, rc.Bytes, rc.Request = 2, trace.AnySource, 9, 800, 77
		sc := c(trace.FuncSend)
		sc.Comm, sc.Peer, sc.Tag, sc.Bytes = 2, int32((r+1)%p), 9, 800
		w := c(trace.FuncWait)
		w.Done = []trace.Completion{{Request: 77, Kind: trace.ReqRecv, Peer: left, Tag: 9, Bytes: 800, Func: trace.FuncIrecv, Comm: 2}}
		calls[len(calls)-1].Start, calls[len(calls)-1].End = t, t+10
		m.calls[r] = calls
	}
	return m
}

// TestSourceReplay: the copies replay each template rank's calls as its
// first stream recorded them, so that every template rank is read once
// (by the grid scan) however large the factor, and the schedule is the
// one read from the trace by every copy (no budget), or with a budget
// that runs out on the way; a template whose trace fails gives the same
// error either way.
func TestSourceReplay(t *testing.T) {
	const p, k = 4, 8
	run := func(budget int64, failRank int) (string, []int, error) {
		defer extrapolation.SetReplayBudget(budget)()
		src := &countingSource{memSource: withAnySource(ringProgram(p)), opens: make([]int, p), failRank: failRank, failAt: 5}
		x, err := extrapolation.NewSource(src, extrapolation.Options{Factor: k})
		if err != nil {
			return "", src.opens, err
		}
		s := goal.NewSchedule(x.NumRanks())
		if _, err := trace.Convert(x, trace.ConvertOptions{}, s.AppendRank); err != nil {
			return "", src.opens, err
		}
		return textOf(t, s), src.opens, nil
	}
	want, opens, err := run(0, -1)
	if err != nil {
		t.Fatal(err)
	}
	for r, n := range opens {
		if n != k+1 {
			t.Errorf("no budget: rank %d opened %d times, want %d (the scan, then every copy)", r, n, k+1)
		}
	}
	for _, budget := range []int64{1 << 30, 2000} {
		got, opens, err := run(budget, -1)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("budget %d: the schedule differs from the one read by every copy:\n%s\nwant\n%s", budget, head(got), head(want))
		}
		for r, n := range opens {
			if budget == 1<<30 && n != 1 {
				t.Errorf("budget %d: rank %d opened %d times, want 1", budget, r, n)
			}
		}
		if budget == 2000 && opens[p-1] != k+1 {
			t.Errorf("budget %d: the last rank opened %d times: the budget did not run out", budget, opens[p-1])
		}
	}
	_, _, want1 := run(0, 1)
	_, _, got1 := run(1<<30, 1)
	if !errors.Is(want1, errBroken) || fmt.Sprint(got1) != fmt.Sprint(want1) {
		t.Errorf("a failing template: %v, want %v", got1, want1)
	}
}
