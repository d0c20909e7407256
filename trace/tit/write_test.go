package tit

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/internal/tracetest"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/pattern"
	"github.com/gopsim/gopsim/sim"
)

// titRoundTrip writes s as TIT at speed, reads it back with Open and
// converts it into a schedule.
func titRoundTrip(t *testing.T, s *goal.Schedule, speed float64) (*goal.Schedule, []byte) {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, s, speed); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "out.tit")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if !Detect(path) {
		t.Fatalf("Detect(%s) is false:\n%.300s", path, buf.Bytes())
	}
	tt, err := Open(path, Options{HostSpeed: speed})
	if err != nil {
		t.Fatalf("%v\n%.2000s", err, buf.Bytes())
	}
	if tt.NumRanks() != s.NumRanks {
		t.Fatalf("read back %d ranks, wrote %d", tt.NumRanks(), s.NumRanks)
	}
	back := goal.NewSchedule(tt.NumRanks())
	if _, err := trace.Convert(tt, trace.ConvertOptions{}, back.AppendRank); err != nil {
		t.Fatal(err)
	}
	return back, buf.Bytes()
}

// titTraffic is what a rank sends and receives, and computes.
type titTraffic struct {
	sends, recvs, sendBytes, recvBytes, calcNs uint64
	peers                                      []int32 // sorted: send peers, then -1-recv peers
}

func titTrafficOf(s *goal.Schedule) []titTraffic {
	out := make([]titTraffic, s.NumRanks)
	for r := range out {
		x := &out[r]
		for _, op := range s.RankOps(r) {
			switch op.Kind {
			case goal.Send:
				x.sends++
				x.sendBytes += op.Size
				x.peers = append(x.peers, op.Peer)
			case goal.Recv:
				x.recvs++
				x.recvBytes += op.Size
				x.peers = append(x.peers, -1-op.Peer)
			case goal.Calc:
				x.calcNs += op.Size
			}
		}
		slices.Sort(x.peers)
	}
	return out
}

func TestTITWriteRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		pattern string
		p       pattern.Params
		speed   float64
		// same: the simulated times must equal the original's. The others
		// lose parallelism on TIT's one timeline per rank (see write.go).
		same bool
	}{
		{"binomialtreebcast", "binomialtreebcast", pattern.Params{Ranks: 8, Size: 8}, 0, true},
		{"binomialtreebcast root 3", "binomialtreebcast", pattern.Params{Ranks: 13, Size: 1000, Root: 3}, 0, true},
		{"binarytreebcast", "binarytreebcast", pattern.Params{Ranks: 8, Size: 8}, 0, true},
		{"dissemination", "dissemination", pattern.Params{Ranks: 8, Size: 8}, 0, true},
		{"dissemination 11", "dissemination", pattern.Params{Ranks: 11, Size: 4096}, 0, true},
		{"nwaydissemination", "nwaydissemination", pattern.Params{Ranks: 8, Size: 8}, 0, true},
		{"mpi_allreduce", "mpi_allreduce", pattern.Params{Ranks: 8, Size: 8}, 0, true},
		{"mpi_allreduce rendezvous", "mpi_allreduce", pattern.Params{Ranks: 8, Size: 100000}, 0, true},
		{"mpi_alltoall", "mpi_alltoall", pattern.Params{Ranks: 8, Size: 8}, 0, true},
		{"mpi_allgather", "mpi_allgather", pattern.Params{Ranks: 6, Size: 64}, 0, true},
		{"mpi_reduce", "mpi_reduce", pattern.Params{Ranks: 8, Size: 8}, 0, true},
		{"allreduce_ring", "allreduce_ring", pattern.Params{Ranks: 8, Size: 800}, 0, true},
		{"gather", "gather", pattern.Params{Ranks: 8, Size: 8}, 0, true},
		{"linbarrier", "linbarrier", pattern.Params{Ranks: 8}, 0, true},
		{"random_bisect", "random_bisect", pattern.Params{Ranks: 8, Size: 8, Seed: 7}, 0, true},
		{"halo3d", "halo3d", pattern.Params{Ranks: 8, Size: 8}, 0, true},
		{"halo3d compute", "halo3d", pattern.Params{Ranks: 8, Size: 8, Iterations: 3, Compute: 12345}, 0, true},
		{"halo3d compute 2.5 Gflop/s", "halo3d", pattern.Params{Ranks: 8, Size: 8, Iterations: 2, Compute: 777}, 2.5e9, true},
		{"mpi_allreduce tag 2^31", "mpi_allreduce", pattern.Params{Ranks: 5, Size: 8, Tag: 1 << 31}, 0, true},
		{"linear_alltoall", "linear_alltoall", pattern.Params{Ranks: 8, Size: 8}, 0, false},
		{"doublering", "doublering", pattern.Params{Ranks: 8, Size: 8}, 0, false},
		{"mpi_bcast rendezvous", "mpi_bcast", pattern.Params{Ranks: 8, Size: 100000}, 0, false},
		{"pipelinedringdep", "pipelinedringdep", pattern.Params{Ranks: 5, Size: 6}, 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, err := pattern.New(tc.pattern, tc.p)
			if err != nil {
				t.Fatal(err)
			}
			s := goal.NewSchedule(g.NumRanks())
			if err := pattern.Write(g, s.AppendRank); err != nil {
				t.Fatal(err)
			}
			back, text := titRoundTrip(t, s, tc.speed)
			want, got := titTrafficOf(s), titTrafficOf(back)
			for r := range want {
				w, g := want[r], got[r]
				if w.sends != g.sends || w.recvs != g.recvs || w.sendBytes != g.sendBytes || w.recvBytes != g.recvBytes ||
					w.calcNs != g.calcNs || !slices.Equal(w.peers, g.peers) {
					t.Errorf("rank %d: read back %+v, wrote %+v", r, g, w)
				}
			}
			if tc.p.Tag != 0 && !bytes.Contains(text, []byte(" 0 8\n")) {
				t.Errorf("tag %d not renumbered from 0:\n%.500s", tc.p.Tag, text)
			}
			params := sim.Options{Params: sim.DefaultParams()}
			r1, err := sim.Run(s, params)
			if err != nil {
				t.Fatal(err)
			}
			r2, err := sim.Run(back, params)
			if err != nil {
				t.Fatalf("the read-back schedule: %v", err)
			}
			if tc.same && !slices.Equal(r1.PerRank, r2.PerRank) {
				t.Errorf("simulated per rank:\n read back %v\n original  %v", r2.PerRank, r1.PerRank)
			}
			if !tc.same && r2.MaxTime < r1.MaxTime {
				// One timeline per rank only adds constraints.
				t.Errorf("simulated %d ns, less than the original's %d", r2.MaxTime, r1.MaxTime)
			}
		})
	}
}

// titTiny is a 3-rank schedule that uses every construct the writer has.
func titTiny(t *testing.T) *goal.Schedule {
	t.Helper()
	s := goal.NewSchedule(3)
	var b goal.Builder
	// Rank 0: compute, then send to 1 and 2; receive twice from 2 with
	// one tag, and compute once the second has arrived (the first is
	// waited for too: a wait completes the oldest request of its key).
	// The receives need nothing: they are posted first.
	b.Reset(0)
	c := b.Calc(1500, 0)
	s1 := b.Send(100, 1, 7, 0, 0)
	s2 := b.Send(200, 2, 7, 0, 0)
	b.Recv(8, 2, 3, 0, 0)
	r2 := b.Recv(16, 2, 3, 0, 0)
	c2 := b.Calc(250, 0)
	b.Requires(s1, c)
	b.Requires(s2, c)
	b.Requires(c2, r2)
	b.Irequires(s2, s1)
	if err := s.AppendRank(b.Block()); err != nil {
		t.Fatal(err)
	}
	// Rank 1: receive from 0, forward to 2 once it has arrived; a send
	// to itself and its receive; ops out of dependency order.
	b.Reset(1)
	fwd := b.Send(100, 2, 9, 0, 0)
	in := b.Recv(100, 0, 7, 0, 0)
	self := b.Send(4, 1, 1, 0, 0)
	selfr := b.Recv(4, 1, 1, 0, 0)
	b.Requires(fwd, in)
	b.Irequires(selfr, self)
	if err := s.AppendRank(b.Block()); err != nil {
		t.Fatal(err)
	}
	// Rank 2: receive from 0 and 1, then answer 0 twice.
	b.Reset(2)
	a := b.Recv(200, 0, 7, 0, 0)
	f := b.Recv(100, 1, 9, 0, 0)
	x := b.Send(8, 0, 3, 0, 0)
	y := b.Send(16, 0, 3, 0, 0)
	b.Requires(x, a)
	b.Requires(y, f)
	b.Requires(y, a)
	if err := s.AppendRank(b.Block()); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestTITWriteGolden(t *testing.T) {
	s := titTiny(t)
	var buf bytes.Buffer
	if err := Write(&buf, s, 2e9); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "titwrite", "tiny.tit")
	if *tracetest.Update {
		if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("differs from %s (go test -update rewrites it):\n%s", golden, buf.Bytes())
	}
	back, _ := titRoundTrip(t, s, 2e9)
	if w, g := titTrafficOf(s), titTrafficOf(back); !slices.EqualFunc(w, g, func(a, b titTraffic) bool {
		return fmt.Sprint(a) == fmt.Sprint(b)
	}) {
		t.Errorf("read back %+v, wrote %+v", g, w)
	}
	if _, err := sim.Run(back, sim.Options{Params: sim.DefaultParams()}); err != nil {
		t.Fatal(err)
	}
}

func TestTITWriteErrors(t *testing.T) {
	one := func(ops ...goal.Op) *goal.Schedule {
		s := goal.NewSchedule(2)
		var b goal.Builder
		for r := int32(0); r < 2; r++ {
			b.Reset(r)
			if r == 1 {
				for _, op := range ops {
					b.Add(op)
				}
				if len(ops) == 2 { // a cycle
					b.Requires(0, 1)
					b.Requires(1, 0)
				}
			}
			if err := s.AppendRank(b.Block()); err != nil {
				t.Fatal(err)
			}
		}
		return s
	}
	calc := goal.Op{Kind: goal.Calc, Size: 1}
	tests := []struct {
		name  string
		s     *goal.Schedule
		speed float64
		want  string
		is    error
	}{
		{"any source", one(goal.Op{Kind: goal.Recv, Peer: goal.AnySource, Size: 1}), 0, "rank 1 op 0 (l1): recv from any source", ErrWildcard},
		{"any tag", one(goal.Op{Kind: goal.Recv, Peer: 0, Tag: goal.AnyTag, Size: 1}), 0, "rank 1 op 0 (l1): recv with any tag", ErrWildcard},
		{"send any tag", one(goal.Op{Kind: goal.Send, Peer: 0, Tag: goal.AnyTag, Size: 1}), 0, "rank 1 op 0 (l1): send with any tag", ErrWildcard},
		{"cycle", one(calc, calc), 0, "rank 1: dependency cycle through op 0 (l1)", nil},
		{"host speed", one(calc), -1, "host speed -1 flop/s", nil},
		{"incomplete", goal.NewSchedule(2), 0, "schedule has 0 of 2 ranks", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Write(&bytes.Buffer{}, tc.s, tc.speed)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("%v is not %v", err, tc.is)
			}
		})
	}
}

// Export a binomial-tree broadcast as a SimGrid time-independent trace.
func ExampleWrite() {
	g, err := pattern.New("binomialtreebcast", pattern.Params{Ranks: 4, Size: 1024})
	if err != nil {
		log.Fatal(err)
	}
	s := goal.NewSchedule(g.NumRanks())
	if err := pattern.Write(g, s.AppendRank); err != nil {
		log.Fatal(err)
	}
	if err := Write(os.Stdout, s, 1e9); err != nil {
		log.Fatal(err) // e.g. "rank 1 op 0 (l1): recv from any source: trace: tit: ..."
	}
	// Output:
	// # SimGrid time-independent trace written by gopsim: 4 ranks, 6 ops, compute in flops at 1e+09 flop/s
	// 0 init
	// 0 isend 1 0 1024
	// 0 isend 2 0 1024
	// 0 waitall
	// 0 finalize
	// 1 init
	// 1 irecv 0 0 1024
	// 1 wait 0 1 0
	// 1 isend 3 0 1024
	// 1 waitall
	// 1 finalize
	// 2 init
	// 2 irecv 0 0 1024
	// 2 waitall
	// 2 finalize
	// 3 init
	// 3 irecv 1 0 1024
	// 3 waitall
	// 3 finalize
}
