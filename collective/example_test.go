package collective_test

import (
	"fmt"

	"github.com/gopsim/gopsim/collective"
	"github.com/gopsim/gopsim/goal"
)

// Emit the ops of world rank 5, member 1 of the communicator {2, 5, 7, 9},
// in a recursive-doubling allreduce of 4 KiB that starts after op 0.
func ExampleAlgorithm_Emit() {
	spec := collective.Spec{Comm: collective.NewComm([]int32{2, 5, 7, 9}), Size: 4096, Tag: 3}
	alg, err := collective.Lookup(collective.Allreduce, "recdoub")
	if err != nil {
		panic(err)
	}
	if err := alg.Check(&spec); err != nil {
		panic(err)
	}
	var b goal.Builder
	b.Reset(5)
	prev := b.Calc(1000, 0)
	ends, err := alg.Emit(&b, 1, &spec, []int32{prev}, nil)
	if err != nil {
		panic(err)
	}
	blk := b.Block()
	for i, op := range blk.Ops[1:] {
		fmt.Println(i+1, op.Kind, op.Size, "bytes, peer", op.Peer, "tag", op.Tag)
	}
	fmt.Println("ends:", ends)
	// Output:
	// 1 send 4096 bytes, peer 2 tag 3
	// 2 recv 4096 bytes, peer 2 tag 3
	// 3 send 4096 bytes, peer 9 tag 3
	// 4 recv 4096 bytes, peer 9 tag 3
	// ends: [3 4]
}

// MPICH's default choice depends on the message size.
func ExampleSelect() {
	for _, size := range []uint64{1024, 1 << 20} {
		spec := collective.Spec{Comm: collective.WorldComm(64), Size: size}
		alg, err := collective.Select(collective.Allreduce, &spec)
		if err != nil {
			panic(err)
		}
		fmt.Println(size, "bytes:", alg.Name)
	}
	// Output:
	// 1024 bytes: recdoub
	// 1048576 bytes: rabenseifner
}

// Open MPI's choice for an allreduce of doubles on 2 ranks depends on the
// size, and on the element count: one double is fewer elements than
// ranks, so its ring falls back to recursive doubling inside.
func ExampleSelectOpenMPI() {
	for _, size := range []uint64{8, 1024, 6000, 100_000, 1 << 20} {
		spec := collective.Spec{Comm: collective.WorldComm(2), Size: size, ElemSize: 8}
		ch, err := collective.SelectOpenMPI(collective.Allreduce, &spec)
		if err != nil {
			panic(err)
		}
		fmt.Println(size, "bytes:", ch.Alg.Name)
	}
	// Output:
	// 8 bytes: recdoub
	// 1024 bytes: recdoub
	// 6000 bytes: ompi_ring
	// 100000 bytes: ompi_segmented_ring
	// 1048576 bytes: ompi_redscat_allgather
}

// A trace converter picks the rules once, then asks them per call.
func ExampleRules_Choose() {
	rules, err := collective.ParseRules("openmpi")
	if err != nil {
		panic(err)
	}
	spec := collective.Spec{Comm: collective.WorldComm(6)}
	ch, err := rules.Choose(collective.Barrier, &spec)
	if err != nil {
		panic(err)
	}
	fmt.Println(rules, ch.Alg.Name)
	fmt.Println(collective.OpenMPIRules(collective.Barrier)[1])
	// Output:
	// openmpi ompi_linear
	// 4 <= P < 8: linear (ompi_linear)
}
