package collective

import "testing"

// TestSelect pins MPICH's default choices at both sides of each threshold.
func TestSelect(t *testing.T) {
	for _, tc := range []struct {
		op   Op
		p    int
		size uint64
		want string
	}{
		{Bcast, 7, 1 << 20, "binomial"}, // fewer than 8 ranks
		{Bcast, 64, 12287, "binomial"},
		{Bcast, 64, 12288, "scatter_recdoub_allgather"},
		{Bcast, 64, 524288, "scatter_ring_allgather"},
		{Bcast, 48, 12288, "scatter_ring_allgather"}, // not a power of two
		{Reduce, 64, 2048, "binomial"},
		{Reduce, 64, 2049, "rabenseifner"},
		{Allreduce, 64, 2048, "recdoub"},
		{Allreduce, 64, 2049, "rabenseifner"},
		{Allreduce, 4096, 3000, "recdoub"}, // count below 2^floor(log2 P)
		{Allgather, 64, 8191, "recdoub"},   // 64·8191 < 524288
		{Allgather, 64, 8192, "ring"},
		{Allgather, 48, 1706, "bruck"}, // 48·1706 = 81888 < 81920
		{Allgather, 48, 1707, "ring"},
		{Alltoall, 8, 256, "bruck"},
		{Alltoall, 7, 256, "linear"},
		{Alltoall, 64, 32768, "linear"},
		{Alltoall, 64, 32769, "pairwise"},
		{ReduceScatter, 64, 8191, "recursive_halving"},
		{ReduceScatter, 64, 8192, "pairwise"},
		{Barrier, 100, 0, "dissemination"},
		{Gather, 100, 8, "binomial"},
		{Scan, 100, 8, "recdoub"},
	} {
		s := Spec{Comm: WorldComm(tc.p), Size: tc.size}
		a, err := Select(tc.op, &s)
		if err != nil {
			t.Fatalf("%s P=%d %d B: %v", tc.op, tc.p, tc.size, err)
		}
		if a.Name != tc.want {
			t.Errorf("%s P=%d %d B: %s, MPICH picks %s", tc.op, tc.p, tc.size, a.Name, tc.want)
		}
	}
	// Rabenseifner needs as many bytes as 2^floor(log2 P): Select falls back.
	s := Spec{Comm: WorldComm(4096), Size: 100}
	if a, err := Select(Reduce, &s); err != nil || a.Name != "binomial" {
		t.Fatalf("reduce of 100 B on 4096 ranks: %v %v", a, err)
	}
}
