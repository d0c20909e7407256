package extrapolation_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/extrapolation"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/trace"
)

// memSource is a trace held in memory: per rank its calls and its
// communicators. With end, each rank's last call is one an importer adds
// after the last record (trace.Position.End).
type memSource struct {
	calls [][]trace.Call
	comms []map[int32]*trace.Comm
	end   bool
}

func (m *memSource) NumRanks() int { return len(m.calls) }

func (m *memSource) OpenRank(r int) (trace.RankStream, error) {
	return &memStream{src: m, r: r}, nil
}

type memStream struct {
	src  *memSource
	r, i int
}

func (s *memStream) Next(c *trace.Call) error {
	if s.i == len(s.src.calls[s.r]) {
		return io.EOF
	}
	*c = s.src.calls[s.r][s.i].Clone()
	s.i++
	return nil
}

func (s *memStream) Comm(id int32) *trace.Comm { return s.src.comms[s.r][id] }
func (s *memStream) Name() string              { return fmt.Sprintf("mem-%d", s.r) }
func (s *memStream) Where() trace.Position {
	if s.src.end && s.i == len(s.src.calls[s.r]) {
		return trace.Position{File: s.Name(), Record: int64(s.i - 1), Offset: -1, End: true}
	}
	return trace.Position{File: s.Name(), Record: int64(s.i), Offset: -1}
}
func (s *memStream) Start() int64 { return 0 }
func (s *memStream) Close() error { return nil }

// ringProgram is the trace of a program on p ranks: a periodic 1-D
// MPI_Cart_create, then per iteration a send to the right neighbour and a
// receive from the left one on the grid, an Allreduce on the grid and an
// Allgatherv on the world; pairs (ranks 2i, 2i+1) also split off a
// communicator and reduce on it (all pairs agree on the id 10, as the
// tracer's ids do). Times are the same on every rank.
func ringProgram(p int) *memSource {
	m := &memSource{calls: make([][]trace.Call, p), comms: make([]map[int32]*trace.Comm, p)}
	world := make([]int32, p)
	for i := range world {
		world[i] = int32(i)
	}
	for r := range p {
		m.comms[r] = map[int32]*trace.Comm{
			0:  {ID: 0, Members: world},
			2:  {ID: 2, Members: world},
			10: {ID: 10, Members: []int32{int32(r &^ 1), int32(r | 1)}},
		}
	}
	for r := range p {
		t := int64(1000)
		call := func(f trace.Func, dur int64) *trace.Call {
			c := trace.NewCall(f, t, t+dur)
			t += dur + 500
			m.calls[r] = append(m.calls[r], c)
			return &m.calls[r][len(m.calls[r])-1]
		}
		call(trace.FuncInit, 10)
		c := call(trace.FuncCartCreate, 10)
		c.Comm, c.NewComm = 0, 2
		c = call(trace.FuncCommSplit, 10)
		c.Comm, c.NewComm = 0, 10
		counts := make([]int64, p)
		for i := range counts {
			counts[i] = int64(8 * (i%2 + 1)) // the same at 4 and 12 ranks when repeated
		}
		for range 3 {
			c = call(trace.FuncSend, 20)
			c.Comm, c.Peer, c.Tag, c.Bytes = 2, int32((r+1)%p), 7, 800
			c = call(trace.FuncRecv, 20)
			c.Comm, c.Peer, c.Tag, c.Bytes = 2, int32((r+p-1)%p), 7, 800
			c = call(trace.FuncAllreduce, 30)
			c.Comm, c.Bytes = 2, 64
			c = call(trace.FuncAllgatherv, 30)
			c.Comm, c.Bytes, c.Counts = 0, counts[r], counts
			c = call(trace.FuncAllreduce, 30)
			c.Comm, c.Bytes = 10, 16
		}
		call(trace.FuncFinalize, 10)
	}
	return m
}

func convert(t *testing.T, src trace.Source) *goal.Schedule {
	t.Helper()
	s := goal.NewSchedule(src.NumRanks())
	if _, err := trace.Convert(src, trace.ConvertOptions{}, s.AppendRank); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSourceEqualsLargerRun: the ring program's 4-rank trace extrapolated
// ×3 converts to the very schedule of its 12-rank trace: the ring closes
// over all 12 ranks (the grid rule), the Allreduce on the grid and the
// Allgatherv on the world are regenerated over 12 ranks (counts repeated
// per copy), and the pair communicators stay pairs.
func TestSourceEqualsLargerRun(t *testing.T) {
	x, err := extrapolation.NewSource(ringProgram(4), extrapolation.Options{Factor: 3})
	if err != nil {
		t.Fatal(err)
	}
	g := x.Grid()
	if g.String() != "4 grown to 12 (MPI_Cart_create over all ranks, dimensions from the point-to-point neighbours; 4 of 4 ranks have the same neighbours in it)" {
		t.Errorf("grid: %s", g)
	}
	got, want := textOf(t, convert(t, x)), textOf(t, convert(t, ringProgram(12)))
	if got != want {
		t.Errorf("extrapolated:\n%s\n12-rank run:\n%s", head(got), head(want))
	}
}

func head(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "..."
	}
	return s
}

// TestSourceGridOptions: --no-grid keeps each copy's ring closed on itself
// (Schedgen's rule), and a wrong --grid is an error.
func TestSourceGridOptions(t *testing.T) {
	x, err := extrapolation.NewSource(ringProgram(4), extrapolation.Options{Factor: 2, NoGrid: true})
	if err != nil {
		t.Fatal(err)
	}
	s := convert(t, x)
	for _, op := range s.RankOps(4) {
		if op.Kind == goal.Send && op.Tag == 7 && op.Peer != 5 {
			t.Errorf("rank 4 sends to %d, want 5", op.Peer)
		}
	}
	for _, op := range s.RankOps(7) {
		if op.Kind == goal.Send && op.Tag == 7 && op.Peer != 4 {
			t.Errorf("rank 7 sends to %d, want 4 (its copy's ring)", op.Peer)
		}
	}
	tests := []struct {
		name string
		opt  extrapolation.Options
		want string
	}{
		{"grid size", extrapolation.Options{Factor: 2, Grid: []int{3}}, "grid 3 has 3 ranks, the trace 4"},
		{"factor", extrapolation.Options{Factor: -1}, "factor -1: must be at least 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := extrapolation.NewSource(ringProgram(4), tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, extrapolation.ErrOptions) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := x.OpenRank(8); err == nil {
		t.Error("rank 8 of 8 opened")
	}
}

// TestSourceGridOfTwo: a ring of 2 ranks exchanges at exactly half its
// dimension, which cannot tell up from down, so the grid rule changes no
// message: the log says so rather than that the grid grew, and the
// schedule is the one without the rule.
func TestSourceGridOfTwo(t *testing.T) {
	x, err := extrapolation.NewSource(ringProgram(2), extrapolation.Options{Factor: 3})
	if err != nil {
		t.Fatal(err)
	}
	g := x.Grid()
	if g.Crossing != 0 || !strings.Contains(g.String(), "they stay inside each copy, as with --no-grid") {
		t.Errorf("grid: crossing %d: %s", g.Crossing, g)
	}
	y, err := extrapolation.NewSource(ringProgram(2), extrapolation.Options{Factor: 3, NoGrid: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := textOf(t, convert(t, x)), textOf(t, convert(t, y)); got != want {
		t.Errorf("with the grid rule:\n%s\nwithout:\n%s", head(got), head(want))
	}
	if x, err = extrapolation.NewSource(ringProgram(4), extrapolation.Options{Factor: 3}); err != nil {
		t.Fatal(err)
	}
	if g := x.Grid(); g.Crossing != 2 {
		t.Errorf("a ring of 4: %d ranks cross a copy, want 2 (the ends): %s", g.Crossing, g)
	}
}

// TestSourceErrorWhere: an error at a call of a copy names the template
// rank's position of the call and the copy, beside the rank the copy is,
// whether the copy reads the template's trace or replays its recording
// (budget); also for a call the template's importer added at its end.
// One rank ×3: its Allreduce over 3 ranks gives copy 1 (rank 1) the most
// ops.
func TestSourceErrorWhere(t *testing.T) {
	program := func(end bool) *memSource {
		ar := trace.NewCall(trace.FuncAllreduce, 1000, 1100)
		ar.Comm, ar.Bytes = 0, 64
		return &memSource{
			calls: [][]trace.Call{{trace.NewCall(trace.FuncInit, 0, 10), ar, trace.NewCall(trace.FuncFinalize, 2000, 2010)}},
			comms: []map[int32]*trace.Comm{{0: {ID: 0, Members: []int32{0}}}},
			end:   end,
		}
	}
	for _, tc := range []struct {
		name   string
		end    bool
		maxOps int64
		want   string
	}{
		{"at a call", false, 4,
			"mem-0: record 2 (copy 1 of rank 0): rank 1: MPI_Allreduce at t=1000: trace: too many ops"},
		{"at an implicit call", true, 5,
			"mem-0: end of file (implicit call after record 2) (copy 1 of rank 0): rank 1: MPI_Finalize at t=2000: trace: too many ops"},
	} {
		for _, budget := range []int64{0, 1 << 30} {
			t.Run(fmt.Sprintf("%s, budget %d", tc.name, budget), func(t *testing.T) {
				defer extrapolation.SetReplayBudget(budget)()
				x, err := extrapolation.NewSource(program(tc.end), extrapolation.Options{Factor: 3})
				if err != nil {
					t.Fatal(err)
				}
				_, err = trace.Convert(x, trace.ConvertOptions{MaxRankOps: tc.maxOps}, func(*goal.RankBlock) error { return nil })
				if err == nil || !strings.HasPrefix(err.Error(), tc.want) || !errors.Is(err, trace.ErrTooManyOps) {
					t.Errorf("err = %v\nwant %s...", err, tc.want)
				}
			})
		}
	}
}
