package trace_test

import (
	"strconv"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// p2p counts a rank's point-to-point messages (collective tags have the
// top bit set) by kind and peer.
type p2p struct {
	kind goal.Kind
	peer int32
	tag  uint32
	size uint64
}

func p2pOps(s *goal.Schedule, r int) map[p2p]int {
	m := map[p2p]int{}
	for _, op := range s.RankOps(r) {
		if op.Kind != goal.Calc && op.Tag&(1<<31) == 0 {
			m[p2p{op.Kind, op.Peer, op.Tag, op.Size}]++
		}
	}
	return m
}

// convertTraced traces an example on 4 ranks under Open MPI, converts the
// trace and simulates the schedule, which must finish.
func convertTraced(t *testing.T, prog string, args ...string) (*goal.Schedule, *trace.ConvertStats) {
	t.Helper()
	dir, _ := runTracedDir(t, 4, prog, args...)
	d, err := trace.OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	s, st := convert(t, d, trace.ConvertOptions{})
	if len(st.Unsupported) > 0 {
		t.Fatalf("unsupported calls: %v", st.Unsupported)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	if res.MaxTime <= 0 {
		t.Fatalf("simulated time %d", res.MaxTime)
	}
	return s, st
}

func TestMPIConvertPingPong(t *testing.T) {
	const iters, bytes = 30, 2048
	s, st := convertTraced(t, "pingpong", strconv.Itoa(iters), strconv.Itoa(bytes))
	want := map[int]map[p2p]int{
		0: {{goal.Send, 1, 1, bytes}: iters, {goal.Recv, 1, 2, bytes}: iters},
		1: {{goal.Recv, 0, 1, bytes}: iters, {goal.Send, 0, 2, bytes}: iters},
		2: {}, 3: {},
	}
	for r, w := range want {
		if got := p2pOps(s, r); !equalCounts(got, w) {
			t.Errorf("rank %d: point-to-point %v, want %v", r, got, w)
		}
	}
	if st.Collectives != 4 { // one barrier per rank
		t.Errorf("%d collectives, want 4", st.Collectives)
	}
}

func TestMPIConvertHalo(t *testing.T) {
	const iters, nx, ny = 10, 16, 8
	s, st := convertTraced(t, "halo2d", strconv.Itoa(iters), strconv.Itoa(nx), strconv.Itoa(ny))
	// 2x2 periodic grid: north and south are the same rank, as are east and west.
	for r := 0; r < 4; r++ {
		row, col := r/2, r%2
		ns := int32((1-row)*2 + col)
		we := int32(row*2 + 1 - col)
		got := p2pOps(s, r)
		var msgs, bytesN, bytesE int
		for k, n := range got {
			msgs += n
			if k.peer == ns && k.size == 8*nx {
				bytesN += n
			}
			if k.peer == we && k.size == 8*ny {
				bytesE += n
			}
		}
		if msgs != 8*iters || bytesN != 4*iters || bytesE != 4*iters {
			t.Errorf("rank %d: %d messages (%d north/south, %d east/west), want %d (%d, %d): %v", r, msgs, bytesN, bytesE, 8*iters, 4*iters, 4*iters, got)
		}
	}
	if st.Collectives != 4*(iters/5) {
		t.Errorf("%d collectives, want %d", st.Collectives, 4*(iters/5))
	}
}

func TestMPIConvertAllreduceAndAlltoall(t *testing.T) {
	_, st := convertTraced(t, "allreduce_loop", "20", "64")
	if st.Collectives != 4*21 {
		t.Errorf("allreduce_loop: %d collectives, want %d", st.Collectives, 4*21)
	}
	s, st := convertTraced(t, "fft_alltoall", "3", "32")
	if st.Collectives != 4*6 {
		t.Errorf("fft_alltoall: %d collectives, want %d", st.Collectives, 4*6)
	}
	for r := 0; r < 4; r++ {
		if n := len(p2pOps(s, r)); n != 0 {
			t.Errorf("rank %d: %d point-to-point messages in a collective-only program", r, n)
		}
	}
}

// TestMPIConvertIrregular: wildcard receives become receives from the rank
// that actually sent, with the size it sent.
func TestMPIConvertIrregular(t *testing.T) {
	s, _ := convertTraced(t, "irregular")
	got := p2pOps(s, 0)
	for src := int32(1); src < 4; src++ {
		if got[p2p{goal.Recv, src, 7, uint64(100 * src)}] != 1 {
			t.Errorf("rank 0: no receive of %d bytes from %d tag 7: %v", 100*src, src, got)
		}
	}
	if got[p2p{goal.Recv, 1, 9, 8}] != 1 {
		t.Errorf("rank 0: no receive of the probed message: %v", got)
	}
}

func TestMPIConvertFortran(t *testing.T) {
	convertTraced(t, "fring")
}

func equalCounts(a, b map[p2p]int) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
