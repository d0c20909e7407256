package collective

import (
	"strings"
	"testing"
)

// TestOpenMPIDecisions checks Open MPI's fixed rules at their boundaries,
// case by case as ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (tag
// v4.1.4) reads for commutative operations: communicator size and bytes
// to the name Open MPI gives the algorithm.
func TestOpenMPIDecisions(t *testing.T) {
	type c struct {
		p     int
		bytes uint64
		want  string
	}
	for _, tc := range []struct {
		op    Op
		block bool
		cases []c
	}{
		{op: Allreduce, cases: []c{
			{2, 0, "ring"}, {2, 7, "ring"}, {2, 8, "recursive_doubling"}, {2, 4095, "recursive_doubling"},
			{2, 4096, "ring"}, {3, 8191, "ring"}, {2, 8192, "recursive_doubling"}, {2, 16383, "recursive_doubling"},
			{2, 16384, "ring"}, {2, 65535, "ring"}, {2, 65536, "segmented_ring"}, {2, 262143, "segmented_ring"},
			{2, 262144, "rabenseifner"}, {3, 1 << 30, "rabenseifner"},
			{4, 15, "ring"}, {4, 16, "recursive_doubling"}, {7, 8191, "recursive_doubling"}, {7, 8192, "rabenseifner"},
			{8, 8191, "recursive_doubling"}, {15, 8192, "rabenseifner"},
			{16, 63, "segmented_ring"}, {16, 64, "recursive_doubling"}, {31, 4095, "recursive_doubling"}, {31, 4096, "rabenseifner"},
			{32, 127, "segmented_ring"}, {63, 128, "rabenseifner"},
			{64, 262143, "recursive_doubling"}, {127, 262144, "rabenseifner"},
			{128, 131071, "nonoverlapping"}, {255, 131072, "recursive_doubling"}, {255, 262144, "rabenseifner"},
			{256, 4095, "nonoverlapping"}, {511, 4096, "rabenseifner"},
			{512, 2047, "nonoverlapping"}, {2047, 2048, "recursive_doubling"}, {2047, 16384, "rabenseifner"},
			{2048, 2047, "nonoverlapping"}, {4095, 2048, "segmented_ring"}, {4095, 4096, "recursive_doubling"}, {4095, 16384, "rabenseifner"},
			{4096, 2047, "nonoverlapping"}, {100000, 2048, "segmented_ring"}, {4096, 16384, "recursive_doubling"}, {4096, 32768, "rabenseifner"},
		}},
		{op: Bcast, cases: []c{
			{2, 0, "pipeline"}, {2, 31, "pipeline"}, {2, 32, "binary_tree"}, {2, 255, "binary_tree"}, {2, 256, "pipeline"},
			{2, 512, "knomial"}, {2, 1023, "knomial"}, {2, 1024, "basic_linear"}, {2, 32767, "basic_linear"},
			{2, 32768, "binary_tree"}, {2, 131072, "chain"}, {2, 262144, "basic_linear"}, {2, 524288, "binomial"},
			{3, 1048575, "binomial"}, {3, 1048576, "binary_tree"},
			{4, 63, "binary_tree"}, {4, 64, "binomial"}, {4, 128, "binary_tree"}, {4, 2048, "binomial"}, {7, 8192, "basic_linear"}, {7, 1 << 20, "chain"},
			{8, 7, "knomial"}, {8, 8, "binary_tree"}, {8, 64, "knomial"}, {8, 4096, "binary_tree"}, {15, 16384, "binomial"}, {15, 32768, "basic_linear"},
			{16, 4095, "knomial"}, {16, 4096, "binomial"}, {31, 1 << 20, "scatter_allgather"},
			{32, 2047, "binomial"}, {63, 2048, "knomial"}, {64, 1, "knomial"}, {127, 1 << 30, "knomial"},
			{128, 1, "binomial"}, {128, 2, "binary_tree"}, {255, 16384, "basic_linear"}, {255, 32768, "binary_tree"}, {255, 65536, "knomial"},
			{256, 16383, "knomial"}, {1023, 16384, "split_binary_tree"}, {1023, 32768, "knomial"},
			{1024, 524287, "knomial"}, {2047, 524288, "scatter_allgather"}, {2048, 262143, "knomial"}, {4095, 262144, "scatter_allgather"},
			{4096, 8191, "knomial"}, {4096, 8192, "binary_tree"}, {4096, 16384, "knomial"}, {1 << 20, 262144, "scatter_allgather"},
		}},
		{op: Reduce, cases: []c{
			{2, 7, "rabenseifner"}, {2, 8, "binary"}, {2, 16, "pipeline"}, {2, 32, "linear"}, {3, 262143, "linear"},
			{2, 262144, "pipeline"}, {2, 524288, "chain"}, {2, 1048576, "pipeline"},
			{4, 4095, "binary"}, {4, 4096, "chain"}, {5, 65536, "binomial"}, {6, 262144, "linear"}, {7, 524288, "binomial"}, {7, 1048576, "linear"},
			{8, 8191, "binary"}, {15, 8192, "binomial"}, {16, 4095, "binary"}, {31, 4096, "binomial"},
			{32, 0, "binomial"}, {255, 1 << 30, "binomial"},
			{256, 8191, "binomial"}, {511, 8192, "in-order_binary"}, {511, 16384, "binomial"}, {2047, 8192, "binomial"},
			{2048, 511, "binomial"}, {2048, 512, "in-order_binary"}, {4095, 1024, "binomial"}, {4095, 8192, "in-order_binary"}, {4095, 16384, "binomial"},
			{4096, 15, "binomial"}, {4096, 16, "in-order_binary"}, {4096, 32, "binomial"}, {4096, 1024, "in-order_binary"}, {4096, 2048, "binomial"},
			{4096, 8192, "in-order_binary"}, {4096, 16384, "binomial"},
		}},
		{op: Alltoall, cases: []c{
			{2, 1, "pairwise"}, {2, 2, "two_proc"}, {2, 4, "pairwise"}, {2, 16, "two_proc"}, {2, 64, "pairwise"}, {2, 256, "two_proc"},
			{2, 4096, "pairwise"}, {2, 32768, "linear_sync"}, {2, 262144, "two_proc"}, {2, 1048576, "pairwise"},
			{3, 8191, "linear_sync"}, {3, 8192, "linear"}, {4, 16384, "linear_sync"}, {5, 65536, "linear"}, {6, 524288, "pairwise"}, {7, 1048576, "linear"},
			{8, 262143, "linear_sync"}, {15, 262144, "linear"},
			{16, 3, "linear_sync"}, {16, 4, "modified_bruck"}, {16, 512, "linear_sync"}, {16, 8192, "linear"}, {16, 32768, "linear_sync"}, {16, 262144, "linear"}, {31, 524288, "linear_sync"},
			{32, 511, "modified_bruck"}, {32, 512, "linear"}, {63, 524288, "linear_sync"},
			{64, 1023, "modified_bruck"}, {64, 1024, "linear"}, {64, 2048, "linear_sync"}, {64, 4096, "linear"}, {127, 262144, "pairwise"},
			{128, 1024, "linear_sync"}, {255, 2048, "linear"}, {255, 262144, "pairwise"},
			{256, 1024, "linear_sync"}, {511, 8192, "linear"}, {511, 32768, "pairwise"},
			{512, 511, "modified_bruck"}, {512, 512, "linear_sync"}, {512, 8192, "linear"}, {512, 16384, "linear_sync"}, {512, 131072, "linear"}, {1023, 262144, "pairwise"},
			{1024, 512, "linear_sync"}, {1024, 1024, "linear"}, {1024, 2048, "linear_sync"}, {1024, 16384, "linear"}, {2047, 262144, "linear_sync"},
			{2048, 1023, "modified_bruck"}, {2048, 1024, "linear_sync"}, {2048, 4096, "linear"}, {2048, 8192, "linear_sync"}, {4095, 131072, "linear"},
			{4096, 2047, "modified_bruck"}, {4096, 2048, "linear_sync"}, {4096, 8192, "linear"}, {4096, 16384, "linear_sync"}, {4096, 32768, "linear"}, {4096, 65536, "linear_sync"},
		}},
		{op: Alltoallv, cases: []c{{2, 0, "pairwise"}, {3, 0, "pairwise"}, {4, 0, "basic_linear"}, {63, 0, "basic_linear"}, {64, 0, "pairwise"},
			{128, 0, "basic_linear"}, {256, 0, "pairwise"}, {1023, 0, "pairwise"}, {1024, 0, "basic_linear"}}},
		{op: Barrier, cases: []c{{2, 0, "recursive_doubling"}, {3, 0, "recursive_doubling"}, {4, 0, "linear"}, {7, 0, "linear"},
			{8, 0, "recursive_doubling"}, {63, 0, "recursive_doubling"}, {64, 0, "bruck"}, {256, 0, "tree"}, {512, 0, "bruck"},
			{1024, 0, "tree"}, {4095, 0, "tree"}, {4096, 0, "bruck"}}},
		{op: Allgather, cases: []c{
			{2, 0, "two_proc"}, {2, 1 << 30, "two_proc"}, {3, 1 << 30, "recursive_doubling"}, {31, 0, "recursive_doubling"},
			{32, 1023, "recursive_doubling"}, {32, 1024, "neighbor"}, {63, 65536, "ring"},
			{64, 511, "recursive_doubling"}, {64, 512, "neighbor"}, {127, 65536, "ring"},
			{128, 512, "neighbor"}, {128, 131072, "ring"}, {128, 524288, "neighbor"}, {255, 1048576, "ring"},
			{256, 31, "recursive_doubling"}, {256, 32, "bruck"}, {256, 128, "recursive_doubling"}, {256, 1024, "neighbor"}, {511, 131072, "ring"}, {511, 524288, "neighbor"}, {511, 1048576, "ring"},
			{512, 63, "recursive_doubling"}, {512, 64, "bruck"}, {512, 256, "recursive_doubling"}, {1023, 2048, "neighbor"},
			{1024, 3, "recursive_doubling"}, {1024, 4, "bruck"}, {1024, 8, "recursive_doubling"}, {1024, 16, "bruck"}, {1024, 32, "recursive_doubling"},
			{1024, 256, "bruck"}, {1024, 512, "recursive_doubling"}, {2047, 4096, "neighbor"},
			{2048, 31, "bruck"}, {2048, 32, "recursive_doubling"}, {2048, 128, "bruck"}, {2048, 512, "recursive_doubling"}, {4095, 4096, "neighbor"},
			{4096, 1, "recursive_doubling"}, {4096, 2, "bruck"}, {4096, 8, "recursive_doubling"}, {4096, 16, "bruck"}, {4096, 512, "recursive_doubling"}, {4096, 4096, "neighbor"},
		}},
		{op: Gather, cases: []c{
			{2, 1, "linear_sync"}, {2, 2, "basic_linear"}, {2, 4, "binomial"}, {3, 32768, "basic_linear"}, {3, 65536, "binomial"}, {3, 131072, "linear_sync"},
			{4, 1023, "binomial"}, {4, 1024, "basic_linear"}, {5, 8192, "binomial"}, {6, 32768, "basic_linear"}, {7, 262144, "linear_sync"},
			{8, 1 << 30, "binomial"}, {255, 0, "binomial"}, {256, 2047, "binomial"}, {256, 2048, "basic_linear"}, {511, 8192, "binomial"}, {512, 8192, "binomial"},
		}},
		{op: Scatter, cases: []c{
			{2, 1, "linear_nb"}, {2, 2, "basic_linear"}, {3, 131072, "linear_nb"}, {3, 262144, "basic_linear"},
			{4, 2047, "binomial"}, {4, 2048, "basic_linear"}, {5, 4096, "binomial"}, {6, 8192, "basic_linear"}, {7, 32768, "linear_nb"}, {7, 1048576, "basic_linear"},
			{8, 16383, "binomial"}, {8, 16384, "linear_nb"}, {15, 1048576, "basic_linear"},
			{16, 16384, "basic_linear"}, {31, 32768, "linear_nb"},
			{32, 511, "binomial"}, {32, 512, "linear_nb"}, {63, 8192, "binomial"}, {63, 16384, "linear_nb"},
			{64, 511, "binomial"}, {1000, 512, "linear_nb"},
		}},
		{op: ReduceScatter, cases: []c{ // bytes: all blocks together
			{2, 65535, "ring"}, {2, 65536, "butterfly"}, {3, 131072, "ring"},
			{4, 7, "non-overlapping"}, {4, 8, "recursive_halving"}, {7, 262144, "ring"},
			{8, 262143, "recursive_halving"}, {31, 262144, "ring"},
			{32, 63, "non-overlapping"}, {32, 64, "recursive_halving"}, {32, 2048, "butterfly"}, {63, 524288, "ring"},
			{64, 255, "non-overlapping"}, {64, 256, "recursive_halving"}, {64, 512, "butterfly"}, {64, 2048, "recursive_halving"}, {127, 4096, "butterfly"},
			{128, 256, "recursive_halving"}, {255, 512, "butterfly"}, {256, 1023, "recursive_halving"}, {511, 1024, "butterfly"},
			{512, 511, "non-overlapping"}, {512, 2048, "butterfly"}, {512, 8192, "recursive_halving"}, {1023, 16384, "butterfly"},
			{1024, 4096, "butterfly"}, {1024, 16384, "recursive_halving"}, {2047, 32768, "butterfly"},
			{2048, 512, "recursive_halving"}, {4095, 4096, "butterfly"}, {4096, 1023, "non-overlapping"}, {4096, 8191, "recursive_halving"}, {4096, 8192, "butterfly"},
		}},
		{op: ReduceScatter, block: true, cases: []c{ // bytes: the block each rank gets
			{2, 3, "recursive_doubling"}, {2, 4, "butterfly"}, {2, 8, "recursive_halving"}, {2, 16, "butterfly"}, {2, 128, "recursive_halving"},
			{2, 256, "butterfly"}, {2, 4096, "recursive_halving"}, {2, 8192, "butterfly"}, {3, 131072, "basic_linear"},
			{4, 7, "recursive_halving"}, {4, 8, "recursive_doubling"}, {4, 32, "butterfly"}, {5, 256, "recursive_halving"}, {6, 8192, "butterfly"},
			{7, 16384, "recursive_halving"}, {7, 1048576, "basic_linear"},
			{8, 3, "basic_linear"}, {8, 4, "recursive_halving"}, {8, 32, "butterfly"}, {8, 128, "recursive_halving"}, {15, 524288, "basic_linear"}, {15, 4194304, "butterfly"},
			{16, 31, "basic_linear"}, {16, 32, "recursive_halving"}, {16, 524288, "basic_linear"}, {31, 2097152, "recursive_halving"}, {31, 4194304, "butterfly"},
			{32, 3, "recursive_halving"}, {32, 4, "basic_linear"}, {32, 16, "butterfly"}, {32, 65536, "basic_linear"}, {1000, 262144, "butterfly"},
		}},
		{op: Allgatherv, cases: []c{ // bytes: the mean block
			{2, 2047, "ring"}, {2, 2048, "two_proc"}, {2, 4096, "ring"}, {2, 8192, "two_proc"},
			{3, 255, "default"}, {3, 256, "neighbor"}, {4, 4096, "ring"}, {5, 8192, "neighbor"}, {6, 16384, "bruck"}, {7, 262144, "neighbor"},
			{8, 1023, "default"}, {15, 1024, "bruck"}, {16, 127, "default"}, {16, 128, "bruck"}, {31, 262144, "ring"},
			{32, 255, "default"}, {32, 256, "bruck"}, {63, 8192, "ring"}, {64, 256, "bruck"}, {127, 4096, "ring"},
			{128, 1023, "bruck"}, {128, 1024, "neighbor"}, {255, 65536, "ring"}, {256, 1023, "bruck"}, {511, 1024, "ring"},
			{512, 511, "bruck"}, {512, 512, "default"}, {512, 1024, "bruck"}, {512, 4096, "neighbor"}, {1023, 1048576, "ring"},
			{1024, 4095, "bruck"}, {1024, 4096, "neighbor"},
		}},
	} {
		names := ompiNames[tc.op]
		if tc.block {
			names = ompiNamesRSBlock
		}
		for _, k := range tc.cases {
			id := ompiDecide(tc.op, k.p, k.bytes, tc.block)
			if id <= 0 || id >= len(names) || names[id] != k.want {
				got := "nothing"
				if id > 0 && id < len(names) {
					got = names[id]
				}
				t.Errorf("%s (block %v) P=%d %d B: %s, want %s", tc.op, tc.block, k.p, k.bytes, got, k.want)
			}
		}
	}
}

// TestSelectOpenMPI checks whole selections: the size measure, the
// algorithm run, and the stand-ins.
func TestSelectOpenMPI(t *testing.T) {
	for _, tc := range []struct {
		name   string
		op     Op
		spec   Spec
		alg    string
		wanted string
	}{
		{name: "allreduce 8 doubles P=2", op: Allreduce, spec: Spec{Comm: WorldComm(2), Size: 64, ElemSize: 8}, alg: "recdoub"},
		{name: "allreduce 1 int P=2", op: Allreduce, spec: Spec{Comm: WorldComm(2), Size: 4, ElemSize: 4}, alg: "ompi_ring"},
		{name: "allreduce 1 MiB P=2", op: Allreduce, spec: Spec{Comm: WorldComm(2), Size: 1 << 20, ElemSize: 8}, alg: "ompi_redscat_allgather"},
		{name: "bcast 4 KiB P=2", op: Bcast, spec: Spec{Comm: WorldComm(2), Size: 4096}, alg: "ompi_linear"},
		{name: "bcast 16 KiB P=500", op: Bcast, spec: Spec{Comm: WorldComm(500), Size: 16384}, alg: "ompi_split_bintree"},
		{name: "alltoall 100 B P=2", op: Alltoall, spec: Spec{Comm: WorldComm(2), Size: 100}, alg: "ompi_pairwise"},
		{name: "alltoall 8 KiB P=4", op: Alltoall, spec: Spec{Comm: WorldComm(4), Size: 8192}, alg: "linear"},
		{name: "alltoall 100 B P=40", op: Alltoall, spec: Spec{Comm: WorldComm(40), Size: 100}, alg: "bruck"},
		{name: "barrier P=2", op: Barrier, spec: Spec{Comm: WorldComm(2)}, alg: "recdoub"},
		{name: "barrier P=5", op: Barrier, spec: Spec{Comm: WorldComm(5)}, alg: "ompi_linear"},
		{name: "allgather P=2", op: Allgather, spec: Spec{Comm: WorldComm(2), Size: 8}, alg: "ompi_two_proc"},
		{name: "allgatherv mean 3 KiB P=2", op: Allgatherv, spec: Spec{Comm: WorldComm(2), Counts: []uint64{2048, 4096}}, alg: "ompi_two_proc"},
		{name: "allgatherv mean 1 KiB P=2", op: Allgatherv, spec: Spec{Comm: WorldComm(2), Counts: []uint64{0, 2048}}, alg: "ompi_ring"},
		{name: "reduce_scatter total 64 KiB P=2", op: ReduceScatter, spec: Spec{Comm: WorldComm(2), Size: 32768}, alg: "ompi_butterfly"},
		{name: "reduce_scatter total 48 KiB P=2", op: ReduceScatter, spec: Spec{Comm: WorldComm(2), Size: 24576}, alg: "ring"},
		{name: "reduce_scatter_block 200 KiB P=2", op: ReduceScatter, spec: Spec{Comm: WorldComm(2), Size: 200 << 10, Block: true}, alg: "ompi_block_linear"},
		{name: "scan", op: Scan, spec: Spec{Comm: WorldComm(9), Size: 8}, alg: "linear"},
		{name: "exscan", op: Exscan, spec: Spec{Comm: WorldComm(9), Size: 8}, alg: "ompi_linear"},
		{name: "gatherv", op: Gatherv, spec: Spec{Comm: WorldComm(3), Counts: []uint64{1, 2, 3}}, alg: "ompi_linear"},
		{name: "scatterv", op: Scatterv, spec: Spec{Comm: WorldComm(3), Counts: []uint64{1, 2, 3}}, alg: "ompi_linear"},
		{name: "gather 1 B P=2", op: Gather, spec: Spec{Comm: WorldComm(2), Size: 1}, alg: "ompi_linear_sync"},
		{name: "scatter 1 B P=2", op: Scatter, spec: Spec{Comm: WorldComm(2), Size: 1}, alg: "linear"},
		{name: "reduce 4 B P=2", op: Reduce, spec: Spec{Comm: WorldComm(2), Size: 4, ElemSize: 4}, alg: "ompi_redscat_gather"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ch, err := OpenMPI.Choose(tc.op, &tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if ch.Alg.Name != tc.alg || ch.Wanted != tc.wanted {
				t.Errorf("%s (wanted %q), want %s (wanted %q)", ch.Alg.Name, ch.Wanted, tc.alg, tc.wanted)
			}
		})
	}
}

// TestSelectOpenMPIStandIn: an algorithm the rules name that is not
// modelled is reported in Choice.Wanted and replaced by its stand-in.
func TestSelectOpenMPIStandIn(t *testing.T) {
	saved := ompiAlgs[Barrier][1]
	ompiAlgs[Barrier][1] = "ompi_not_modelled"
	ompiStandIn["barrier/ompi_not_modelled"] = []string{"nosuch", "ompi_double_ring"}
	defer func() {
		ompiAlgs[Barrier][1] = saved
		delete(ompiStandIn, "barrier/ompi_not_modelled")
	}()
	ch, err := OpenMPI.Choose(Barrier, &Spec{Comm: WorldComm(5)}) // P = 5: Open MPI's linear
	if err != nil || ch.Alg.Name != "ompi_double_ring" || ch.Wanted != "ompi_not_modelled" {
		t.Fatalf("%+v, %v", ch, err)
	}
	if got := OpenMPIStandIns(); len(got) != 1 || got[0] != "barrier/ompi_not_modelled -> nosuch, ompi_double_ring" {
		t.Errorf("stand-ins listed: %v", got)
	}
}

// TestOpenMPIRulesListed checks that every band and algorithm of the rules
// is described, as docs/collectives.md shows them, and that every stand-in
// names registered algorithms.
func TestOpenMPIRulesListed(t *testing.T) {
	for _, op := range Ops() {
		lines := OpenMPIRules(op)
		if len(lines) == 0 {
			t.Errorf("%s: no rules", op)
		}
		if _, basic := ompiBasic[op]; !basic && len(lines) < len(ompiFixed[op]) {
			t.Errorf("%s: %d lines for %d bands", op, len(lines), len(ompiFixed[op]))
		}
	}
	if len(OpenMPIStandIns()) != 0 {
		t.Errorf("stand-ins in use: %v", OpenMPIStandIns())
	}
	for k, v := range ompiStandIn {
		opName, _, _ := strings.Cut(k, "/")
		op, ok := ParseOp(opName)
		if !ok {
			t.Fatalf("stand-in %s: no operation %s", k, opName)
		}
		for _, n := range v {
			if _, err := Lookup(op, n); err != nil {
				t.Errorf("stand-in %s: %v", k, err)
			}
		}
	}
	// every algorithm the rules name is registered or has a stand-in
	check := func(op Op, algs []string) {
		for _, a := range algs[1:] {
			if _, err := Lookup(op, a); err != nil && ompiStandIn[op.String()+"/"+a] == nil {
				t.Errorf("%s/%s: neither modelled nor stood in for", op, a)
			}
		}
	}
	for op, algs := range ompiAlgs {
		check(op, algs)
	}
	check(ReduceScatter, ompiAlgsRSBlock)
	for op, a := range ompiBasic {
		check(op, []string{"", a})
	}
}
