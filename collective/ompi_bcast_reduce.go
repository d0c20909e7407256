package collective

// Open MPI's broadcasts and reductions over trees (ompi/mca/coll/base/
// coll_base_bcast.c and coll_base_reduce.c, tag v4.1.4): one generic
// segmented broadcast and one generic segmented reduction, run on the
// trees of ompi_tree.go, plus the linear ones.

func init() {
	for _, t := range []struct{ name, doc string }{
		{"ompi_binomial", "binomial tree (Open MPI ompi_coll_base_bcast_intra_binomial: build_bmtree, children nearest first)"},
		{"ompi_bintree", "binary tree filled level by level (Open MPI ompi_coll_base_bcast_intra_bintree: build_tree(2))"},
		{"ompi_pipeline", "one chain root, root+1, ... (Open MPI ompi_coll_base_bcast_intra_pipeline: build_chain(1))"},
		{"ompi_chain", "Spec.Radix chains from the root (default 1: Open MPI's fixed rules pass fanout 0, raised to 1; ompi_coll_base_bcast_intra_chain: build_chain)"},
		{"ompi_knomial", "k-nomial tree of radix Spec.Radix (default 4, coll_tuned_bcast_knomial_radix; Open MPI ompi_coll_base_bcast_intra_knomial: build_kmtree)"},
	} {
		name := t.name
		register(&Algorithm{Op: Bcast, Name: name,
			Doc:  t.doc + "; Open MPI's generic segmented broadcast: the message in Spec.Segment-byte segments (0: one segment, as the fixed rules run it), an inner rank forwards segment k to all children once it arrived and segment k-1's sends completed, with the next receive posted ahead",
			emit: func(e *emitter) { ompiBcastTree(e, ompiTreeFor(Bcast, name, e)) }})
	}
	register(&Algorithm{Op: Bcast, Name: "ompi_linear",
		Doc:  "linear (Open MPI ompi_coll_base_bcast_intra_basic_linear): the root isends the whole buffer to every rank, in rank order, and waits for all",
		emit: ompiBcastLinear})
	for _, t := range []struct{ name, doc string }{
		{"ompi_binomial", "in-order binomial tree (Open MPI ompi_coll_base_reduce_intra_binomial: build_in_order_bmtree)"},
		{"ompi_binary", "binary tree filled level by level (Open MPI ompi_coll_base_reduce_intra_binary: build_tree(2))"},
		{"ompi_pipeline", "one chain ending at the root (Open MPI ompi_coll_base_reduce_intra_pipeline: build_chain(1))"},
		{"ompi_chain", "Spec.Radix chains into the root (default 1: the fixed rules pass fanout 0; Open MPI ompi_coll_base_reduce_intra_chain)"},
		{"ompi_in_order_binary", "in-order binary tree rooted at rank P-1, which then sends the result to the root if that is another rank (Open MPI ompi_coll_base_reduce_intra_in_order_binary)"},
	} {
		name := t.name
		register(&Algorithm{Op: Reduce, Name: name,
			Doc:  t.doc + "; Open MPI's generic segmented reduction: an inner rank receives segment by segment from each child in turn (the next receive posted before waiting for the previous), combines each, and sends a segment to its parent once all children's parts of it are in; Spec.Segment-byte segments (0: one)",
			emit: func(e *emitter) { ompiReduceTree(e, name) }})
	}
	register(&Algorithm{Op: Reduce, Name: "ompi_redscat_gather",
		Doc:  "Rabenseifner (Open MPI ompi_coll_base_reduce_intra_redscat_gather): the fold and recursive halving of ompi_redscat_allgather, then a binomial gather of the pieces to the root (a folded-out root gets core rank 0's piece first and plays it); linear when count < 2^floor(log2 P) or P = 1",
		emit: ompiReduceRedscatGather})
	register(&Algorithm{Op: Reduce, Name: "ompi_linear",
		Doc:  "linear (Open MPI ompi_coll_base_reduce_intra_basic_linear): every rank sends to the root, which receives from rank P-1 down to 0 one at a time, combining each",
		emit: ompiReduceLinear})
}

// ompiElems is the number of elements of n bytes and the element size.
func ompiElems(s *Spec, n uint64) (count, elem uint64) {
	elem = s.ElemSize
	if elem == 0 || n%elem != 0 {
		elem = 1
	}
	return n / elem, elem
}

// ompiSegments cuts n bytes as Open MPI's COLL_BASE_COMPUTED_SEGCOUNT does
// with a segment of Spec.Segment bytes: segments of round(seg/elem)
// elements (no cut when seg is 0, below one element or not below n), the
// last one shorter. It returns the segment size and count in bytes.
func ompiSegments(s *Spec, n uint64) (seg, num uint64) {
	count, elem := ompiElems(s, n)
	segcount := count
	if ss := s.Segment; ss >= elem && ss < elem*count {
		segcount = ss / elem
		if ss-segcount*elem > elem/2 {
			segcount++
		}
	}
	if segcount == 0 {
		return 0, 1
	}
	return segcount * elem, (count + segcount - 1) / segcount
}

// ompiSegSize is the size of segment k of num segments of seg bytes out
// of n.
func ompiSegSize(n, seg, num, k uint64) uint64 {
	if k == num-1 {
		return n - (num-1)*seg
	}
	return seg
}

// ompiTreeFor builds the tree the Open MPI algorithm name runs on for op.
func ompiTreeFor(op Op, name string, e *emitter) ompiTree {
	me, root, p := e.me, e.s.Root, e.p
	switch name {
	case "ompi_binomial":
		if op == Reduce {
			return ompiInOrderBinomialTree(me, root, p)
		}
		return ompiBinomialTree(me, root, p)
	case "ompi_bintree", "ompi_binary":
		return ompiKaryTree(me, root, p, 2)
	case "ompi_pipeline":
		return ompiChain(me, root, p, 1)
	case "ompi_chain":
		return ompiChain(me, root, p, max(e.s.Radix, 1))
	case "ompi_knomial":
		radix := e.s.Radix
		if radix < 2 {
			radix = 4
		}
		return ompiKnomialTree(me, root, p, radix)
	case "ompi_in_order_binary":
		return ompiInOrderBinaryTree(me, p)
	}
	panic("collective: no Open MPI tree " + name)
}

// ompiBcastTree is ompi_coll_base_bcast_intra_generic on tree t. The root
// isends segment k to every child once segment k-1's sends completed. An
// inner rank forwards segment k once it arrived and segment k-1's sends
// completed; it posts the receive of segment k after the sends of segment
// k-2 completed (two receive buffers). A leaf posts receive k after
// receive k-2 completed.
func ompiBcastTree(e *emitter, t ompiTree) {
	n := e.s.Size
	if e.p < 2 {
		return
	}
	seg, num := ompiSegments(e.s, n)
	recvs := make([]int32, 0, num)
	sends := make([][]int32, 0, num)
	for k := uint64(0); k < num; k++ {
		size := ompiSegSize(n, seg, num, k)
		if t.parent >= 0 {
			id := e.rawRecv(t.parent, size)
			switch {
			case k < 2:
				e.requiresStart(id)
			case len(t.children) == 0:
				e.requires(id, recvs[k-2])
			default:
				for _, x := range sends[k-2] {
					e.requires(id, x)
				}
			}
			recvs = append(recvs, id)
		}
		var these []int32
		for _, c := range t.children {
			id := e.rawSend(c, size)
			if t.parent >= 0 {
				e.requires(id, recvs[k])
			} else if k == 0 {
				e.requiresStart(id)
			}
			if k > 0 {
				for _, x := range sends[k-1] {
					e.requires(id, x)
				}
			}
			these = append(these, id)
		}
		sends = append(sends, these)
	}
	if len(t.children) > 0 {
		e.end(sends[num-1]...)
	} else {
		e.end(recvs[max(0, len(recvs)-2):]...)
	}
}

func ompiBcastLinear(e *emitter) {
	if e.me != e.s.Root {
		e.recv(e.s.Root, e.s.Size)
		return
	}
	for i := 0; i < e.p; i++ {
		if i != e.me {
			e.send(i, e.s.Size)
		}
	}
}

// ompiReduceTree is ompi_coll_base_reduce_generic on the tree of name,
// with no limit on outstanding requests (the fixed rules pass 0). A rank
// with children runs one step per (segment, child) and a last one: post
// the receive of this step, wait for the previous step's receive, combine
// it, and, when that completed a segment, send the segment to the parent
// (blocking). A leaf sends its segments one blocking send after another.
func ompiReduceTree(e *emitter, name string) {
	n := e.s.Size
	if e.p < 2 {
		return
	}
	root := e.s.Root
	t := ompiTreeFor(Reduce, name, e)
	if name == "ompi_in_order_binary" {
		root = e.p - 1
	}
	seg, num := ompiSegments(e.s, n)
	if len(t.children) == 0 {
		for k := uint64(0); k < num; k++ {
			e.send(t.parent, ompiSegSize(n, seg, num, k))
			e.next()
		}
	} else {
		ompiReduceInner(e, t, seg, num, e.me == root)
	}
	if name == "ompi_in_order_binary" && e.s.Root != e.p-1 {
		switch e.me {
		case e.p - 1:
			e.send(e.s.Root, n)
			e.next()
		case e.s.Root:
			e.recv(e.p-1, n)
			e.next()
		}
	}
}

// ompiReduceInner is the loop of a rank with children; done is what the
// previous step ended with, in program order.
func ompiReduceInner(e *emitter, t ompiTree, seg, num uint64, isRoot bool) {
	n := e.s.Size
	c := uint64(len(t.children))
	done := append([]int32(nil), e.prev...)
	prev, prevSize := int32(-1), uint64(0)
	for step := uint64(0); step <= num*c; step++ {
		s, i := step/c, step%c
		var cur int32 = -1
		var size uint64
		if s < num {
			size = ompiSegSize(n, seg, num, s)
			cur = e.rawRecv(t.children[i], size)
			for _, x := range done {
				e.requires(cur, x)
			}
		}
		if prev >= 0 {
			// wait for the previous receive and combine it
			in := e.rawReduce(prevSize, prev)
			if in != prev {
				for _, x := range done {
					e.requires(in, x)
				}
				done = append(done[:0], in)
			} else {
				done = append(done, prev)
			}
			if i == 0 && !isRoot { // segment s-1 is complete
				snd := e.rawSend(t.parent, prevSize)
				for _, x := range done {
					e.requires(snd, x)
				}
				done = append(done[:0], snd)
			}
		}
		prev, prevSize = cur, size
	}
	e.prev = e.prev[:0]
	e.end(done...)
	e.next()
}

func ompiReduceLinear(e *emitter) {
	n := e.s.Size
	if e.me != e.s.Root {
		e.send(e.s.Root, n)
		e.next()
		return
	}
	// The root takes rank P-1's data as its start, then combines the
	// others from P-2 down, its own data without a message.
	for i := e.p - 1; i >= 0; i-- {
		var in int32 = -1
		if i != e.me {
			in = e.recv(i, n)
		}
		if i == e.p-1 {
			e.next()
			continue
		}
		if in >= 0 {
			e.reduce(n, in)
		} else if t := e.reduceTime(n); t > 0 {
			c := e.calc(t)
			e.inRound(c)
		}
		e.next()
	}
}

func ompiReduceRedscatGather(e *emitter) {
	count, elem := ompiElems(e.s, e.s.Size)
	p, me, root := e.p, e.me, e.s.Root
	pof2 := pow2Floor(p)
	if pof2 < 2 || count < uint64(pof2) {
		ompiReduceLinear(e)
		return
	}
	rem := p - pof2
	nsteps := 0
	for 1<<nsteps < pof2 {
		nsteps++
	}
	vrank := ompiFoldHalves(e, count, elem)
	var sc, rc []uint64
	if vrank >= 0 {
		sc, rc = ompiHalving(e, vrank, rem, pof2, count, elem)
	}
	vroot := root - rem
	rootOut := root < 2*rem && root%2 != 0
	switch {
	case rootOut:
		vroot = 0
		// the root takes core rank 0's place, whose lower comm rank kept
		// the lower half in every step
		var last uint64
		w := count
		for i := 0; i < nsteps; i++ {
			last = w / 2
			w /= 2
		}
		if me == root {
			sc, rc = make([]uint64, nsteps), make([]uint64, nsteps)
			w = count
			for i := range rc {
				rc[i] = w / 2
				sc[i] = w - rc[i]
				w /= 2
			}
			e.recv(0, last*elem)
			e.next()
			vrank = 0
		} else if vrank == 0 {
			e.send(root, last*elem)
			e.next()
			vrank = -1
		}
	case root < 2*rem:
		vroot = root / 2
	}
	if vrank < 0 {
		return
	}
	step := nsteps - 1
	for mask := pof2 >> 1; mask > 0; mask >>= 1 {
		vd := vrank ^ mask
		d := ompiVDest(vd, rem)
		if vd == 0 && rootOut {
			d = root
		}
		if vd>>step == vroot>>step { // the partner is on the root's side: hand over
			e.send(d, rc[step]*elem)
			e.next()
			return
		}
		e.recv(d, sc[step]*elem)
		e.next()
		step--
	}
}

func init() {
	register(&Algorithm{Op: Bcast, Name: "ompi_scatter_allgather",
		Doc:  "scatter-allgather (Open MPI ompi_coll_base_bcast_intra_scatter_allgather): binomial scatter of ceil(count/P)-element pieces, then a recursive-doubling allgather of them, ranks without a partner getting the data by recursive halving (any P); linear when count < P",
		emit: func(e *emitter) { ompiBcastScatterAllgather(e, false) }})
	register(&Algorithm{Op: Bcast, Name: "ompi_scatter_allgather_ring",
		Doc:  "scatter-allgather (Open MPI ompi_coll_base_bcast_intra_scatter_allgather_ring): binomial scatter of ceil(count/P)-element pieces, then a ring allgather of P-1 sendrecv steps; linear when count < P",
		emit: func(e *emitter) { ompiBcastScatterAllgather(e, true) }})
}

func ompiBcastScatterAllgather(e *emitter, ring bool) {
	count, elem := ompiElems(e.s, e.s.Size)
	p, root := e.p, e.s.Root
	if p < 2 || count == 0 {
		return
	}
	if count < uint64(p) {
		ompiBcastLinear(e)
		return
	}
	pc := bcastPieces{n: count * elem, size: (count + uint64(p) - 1) / uint64(p) * elem}
	bcastScatter(e, pc)
	if ring {
		bcastRing(e, pc)
		return
	}
	vr := rel(e.me, root, p)
	for m := 1; m < p; m <<= 1 {
		vrem := vr ^ m
		mine, theirs := vr&^(m-1), vrem&^(m-1)
		if vrem < p {
			e.send(abs(vrem, root, p), pc.span(mine, min(mine+m, p)))
			e.recv(abs(vrem, root, p), pc.span(theirs, min(theirs+m, p)))
			e.next()
		}
		if theirs+m <= p {
			continue
		}
		// the partner group is incomplete: who has its data passes it on
		all := p - mine - m
		fill := pc.span(theirs, p)
		for h := m >> 1; h > 0; h >>= 1 {
			v2, base := vr^h, vr&^(2*h-1)
			switch {
			case v2 > vr && vr < base+all && v2 >= base+all:
				e.send(abs(v2, root, p), fill)
				e.next()
			case v2 < vr && v2 < base+all && vr >= base+all:
				e.recv(abs(v2, root, p), fill)
				e.next()
			}
		}
	}
}

func init() {
	register(&Algorithm{Op: Bcast, Name: "ompi_split_bintree",
		Doc:  "split binary tree (Open MPI ompi_coll_base_bcast_intra_split_bintree): the root sends the first half (ceil(count/2) elements) down its left subtree (odd shifted ranks) and the second half down the right one (even), each pipelined in Spec.Segment-byte segments with blocking sends (0: one segment); then every rank swaps halves with its pair in the other subtree (shifted rank ±1; for even P the root sends the second half to rank P-1); the pipeline broadcast when a half is empty or shorter than a segment",
		emit: ompiBcastSplitBintree})
}

func ompiBcastSplitBintree(e *emitter) {
	count, elem := ompiElems(e.s, e.s.Size)
	p, root := e.p, e.s.Root
	if p < 2 {
		return
	}
	half := [2]uint64{(count + 1) / 2, count / 2}
	seg := e.s.Segment
	segc := half
	if seg > 0 {
		seg = max(seg, elem)
		segc = [2]uint64{seg / elem, seg / elem}
	}
	if half[0] == 0 || half[1] == 0 || seg > half[0]*elem || seg > half[1]*elem {
		ompiBcastTree(e, ompiChain(e.me, root, p, 1))
		return
	}
	num := [2]uint64{(half[0] + segc[0] - 1) / segc[0], (half[1] + segc[1] - 1) / segc[1]}
	size := func(i int, k uint64) uint64 { // bytes of segment k of half i
		if k == num[i]-1 {
			return (half[i] - k*segc[i]) * elem
		}
		return segc[i] * elem
	}
	t := ompiKaryTree(e.me, root, p, 2)
	sr := rel(e.me, root, p)
	lr := (sr + 1) % 2 // 0: the left subtree (odd shifted ranks)
	switch {
	case sr == 0:
		for k := uint64(0); k < num[0]; k++ {
			for i, c := range t.children {
				if i < 2 && k < num[i] {
					e.send(c, size(i, k))
					e.next()
				}
			}
		}
	case len(t.children) > 0:
		ompiSplitForward(e, t, num[lr], func(k uint64) uint64 { return size(lr, k) })
	default:
		for k := uint64(0); k < num[lr]; k++ {
			e.recv(t.parent, size(lr, k))
			e.next()
		}
	}
	// swap halves with the pair in the other subtree
	full := [2]uint64{half[0] * elem, half[1] * elem}
	pair := abs(sr+1, root, p)
	if lr == 1 {
		pair = abs(sr-1+p, root, p)
	}
	switch {
	case p%2 != 0 && sr != 0, p%2 == 0 && sr != 0 && sr != p-1:
		e.send(pair, full[lr])
		e.recv(pair, full[1-lr])
		e.next()
	case p%2 == 0 && sr == 0:
		e.send(abs(p-1, root, p), full[1])
		e.next()
	case p%2 == 0 && sr == p-1:
		e.recv(root, full[1])
		e.next()
	}
}

// ompiSplitForward is an inner rank of the split binary tree: the receive
// of segment k is posted once segment k-2 went to the children; segment
// k-1 goes to each child in turn, blocking, once it arrived.
func ompiSplitForward(e *emitter, t ompiTree, num uint64, size func(uint64) uint64) {
	done := append([]int32(nil), e.prev...)
	recvs := make([]int32, 0, num)
	r := e.rawRecv(t.parent, size(0))
	e.requiresStart(r)
	recvs = append(recvs, r)
	for k := uint64(1); k <= num; k++ {
		if k < num {
			r := e.rawRecv(t.parent, size(k))
			for _, x := range done {
				e.requires(r, x)
			}
			recvs = append(recvs, r)
		}
		deps := append(done, recvs[k-1])
		for _, c := range t.children {
			s := e.rawSend(c, size(k-1))
			for _, x := range deps {
				e.requires(s, x)
			}
			deps = []int32{s}
		}
		done = deps
	}
	e.prev = e.prev[:0]
	e.end(done...)
	e.next()
}
