package collective

// Open MPI's algorithms that are two other collectives in a row, each run
// with the algorithm Open MPI's rules pick for it (they call the
// communicator's own collective functions), and its gather linear_sync
// (ompi/mca/coll/base, tag v4.1.4).

func init() {
	register(&Algorithm{Op: Allgather, Name: "ompi_linear",
		Doc:  "gather then broadcast (Open MPI ompi_coll_base_allgather_intra_basic_linear): MPI_Gather to rank 0, then MPI_Bcast of the P blocks from it, each with the algorithm Open MPI's rules pick",
		emit: ompiAllgatherLinear})
	register(&Algorithm{Op: Allgatherv, Name: "ompi_default",
		Doc:  "gatherv then broadcast (Open MPI ompi_coll_base_allgatherv_intra_basic_default): the basic component's linear MPI_Gatherv to rank 0, then MPI_Bcast of all blocks from it with the algorithm Open MPI's rules pick",
		emit: ompiAllgathervDefault})
	register(&Algorithm{Op: ReduceScatter, Name: "ompi_nonoverlapping",
		Doc:  "reduce then scatter (Open MPI ompi_coll_base_reduce_scatter_intra_nonoverlapping, and reduce_scatter_block's basic_linear): MPI_Reduce of all P blocks to rank 0 with the algorithm Open MPI's rules pick, then the basic component's linear MPI_Scatterv of the blocks",
		emit: ompiReduceScatterNonoverlapping})
	register(&Algorithm{Op: ReduceScatter, Name: "ompi_block_linear",
		Doc:  "reduce then scatter (Open MPI ompi_coll_base_reduce_scatter_block_basic_linear): MPI_Reduce of all P blocks to rank 0, then MPI_Scatter of the blocks, each with the algorithm Open MPI's rules pick",
		emit: ompiReduceScatterBlockLinear})
	register(&Algorithm{Op: Gather, Name: "ompi_linear_sync",
		Doc:  "synchronized linear (Open MPI ompi_coll_base_gather_intra_linear_sync): for each rank in order the root posts the receive of the first Spec.Segment bytes (0: all, as the fixed rules run it), sends the rank an empty go-ahead, posts the receive of the rest and waits for the first part; a rank waits for the go-ahead, then sends both parts (the second empty when the first is everything)",
		emit: ompiGatherLinearSync})
}

// ompiThen runs op1 on s1, then op2 on s2, each as Open MPI's rules pick.
func ompiThen(e *emitter, op1 Op, s1 Spec, op2 Op, s2 Spec) {
	orig := e.s
	e.s = &s1
	OpenMPI.pick(op1, &s1).emit(e)
	e.next()
	e.s = &s2
	OpenMPI.pick(op2, &s2).emit(e)
	e.next()
	e.s = orig
}

func ompiAllgatherLinear(e *emitter) {
	g, b := *e.s, *e.s
	g.Root, b.Root = 0, 0
	b.Size = e.s.Size * uint64(e.p)
	ompiThen(e, Gather, g, Bcast, b)
}

func ompiAllgathervDefault(e *emitter) {
	g, b := *e.s, *e.s
	g.Root, b.Root = 0, 0
	var total uint64
	for _, c := range e.s.Counts {
		total += c
	}
	b.Size, b.Counts = total, nil
	ompiThen(e, Gatherv, g, Bcast, b)
}

func ompiReduceScatterNonoverlapping(e *emitter) {
	r, sc := *e.s, *e.s
	r.Root, sc.Root = 0, 0
	r.Size = e.s.Size * uint64(e.p)
	sc.Counts = make([]uint64, e.p)
	for i := range sc.Counts {
		sc.Counts[i] = e.s.Size
	}
	ompiThen(e, Reduce, r, Scatterv, sc)
}

func ompiGatherLinearSync(e *emitter) {
	n, root := e.s.Size, e.s.Root
	first, _ := ompiSegments(e.s, n)
	if n == 0 {
		first = 0
	}
	if e.me != root {
		e.recv(root, 0)
		e.next()
		e.send(root, first)
		e.next()
		e.send(root, n-first)
		e.next()
		return
	}
	var rest []int32
	for i := 0; i < e.p; i++ {
		if i == root {
			continue
		}
		r1 := e.rawRecv(i, first)
		e.requiresStart(r1)
		go1 := e.rawSend(i, 0)
		e.requiresStart(go1)
		r2 := e.rawRecv(i, n-first)
		e.requires(r2, go1)
		// the next rank's turn starts once this one's first part is in
		e.prev = append(e.prev[:0], r1, go1)
		rest = append(rest, r2)
	}
	e.end(rest...)
	e.end(e.prev...)
	e.prev = e.prev[:0]
	e.next()
}

func ompiReduceScatterBlockLinear(e *emitter) {
	r, sc := *e.s, *e.s
	r.Root, sc.Root = 0, 0
	r.Size = e.s.Size * uint64(e.p)
	ompiThen(e, Reduce, r, Scatter, sc)
}
