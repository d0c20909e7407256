package collective

import (
	"fmt"
	"slices"
	"testing"

	"github.com/gopsim/gopsim/sim"
)

// treeShape lists, per comm rank, parent and children of a tree.
func treeShape(p int, build func(me int) ompiTree) [][]int {
	out := make([][]int, p)
	for me := range out {
		t := build(me)
		out[me] = append([]int{t.parent}, t.children...)
	}
	return out
}

// TestOmpiTrees checks the tree builders against trees drawn by hand from
// the descriptions in Open MPI's coll_base_topo.c and coll_base_bcast.c
// (v4.1.4): per rank {parent, children...}.
func TestOmpiTrees(t *testing.T) {
	for _, tc := range []struct {
		name  string
		p     int
		build func(me int) ompiTree
		want  [][]int
	}{
		// fanout 2, 7 ranks: 0; 1 2; 3 5 4 6.
		{"kary fanout 2 P=7", 7, func(me int) ompiTree { return ompiKaryTree(me, 0, 7, 2) },
			[][]int{{-1, 1, 2}, {0, 3, 5}, {0, 4, 6}, {1}, {2}, {1}, {2}}},
		// the same tree rooted at 5: shifted rank s is comm rank (s+5)%7
		{"kary fanout 2 P=7 root 5", 7, func(me int) ompiTree { return ompiKaryTree(me, 5, 7, 2) },
			[][]int{{5, 2, 4}, {6}, {0}, {6}, {0}, {-1, 6, 0}, {5, 1, 3}}},
		{"kary fanout 3 P=6", 6, func(me int) ompiTree { return ompiKaryTree(me, 0, 6, 3) },
			[][]int{{-1, 1, 2, 3}, {0, 4}, {0, 5}, {0}, {1}, {2}}},
		// k-nomial, 10 ranks, radix 2: 0 -> 8 4 2 1; 8 -> 9; 4 -> 6 5; 6 -> 7; 2 -> 3
		{"knomial radix 2 P=10", 10, func(me int) ompiTree { return ompiKnomialTree(me, 0, 10, 2) },
			[][]int{{-1, 8, 4, 2, 1}, {0}, {0, 3}, {2}, {0, 6, 5}, {4}, {4, 7}, {6}, {0, 9}, {8}}},
		// radix 3: 0 -> 9 3 6 1 2; 3 -> 4 5; 6 -> 7 8
		{"knomial radix 3 P=10", 10, func(me int) ompiTree { return ompiKnomialTree(me, 0, 10, 3) },
			[][]int{{-1, 9, 3, 6, 1, 2}, {0}, {0}, {0, 4, 5}, {3}, {3}, {0, 7, 8}, {6}, {6}, {0}}},
		// radix 4: 0 -> 4 8 1 2 3; 4 -> 5 6 7; 8 -> 9
		{"knomial radix 4 P=10", 10, func(me int) ompiTree { return ompiKnomialTree(me, 0, 10, 4) },
			[][]int{{-1, 4, 8, 1, 2, 3}, {0}, {0}, {0}, {0, 5, 6, 7}, {4}, {4}, {4}, {0, 9}, {8}}},
		// binomial (bmtree): 0 -> 1 2 4; 1 -> 3 5; 2 -> 6; 3 -> 7
		{"bmtree P=8", 8, func(me int) ompiTree { return ompiBinomialTree(me, 0, 8) },
			[][]int{{-1, 1, 2, 4}, {0, 3, 5}, {0, 6}, {1, 7}, {0}, {1}, {2}, {3}}},
		// in-order binomial: 0 -> 1 2 4; 2 -> 3; 4 -> 5 6; 6 -> 7
		{"in-order bmtree P=8", 8, func(me int) ompiTree { return ompiInOrderBinomialTree(me, 0, 8) },
			[][]int{{-1, 1, 2, 4}, {0}, {0, 3}, {2}, {0, 5, 6}, {4}, {4, 7}, {6}}},
		// chains: 7 ranks, fanout 3: 0 -> 1 3 5; 1 -> 2; 3 -> 4; 5 -> 6
		{"chain fanout 3 P=7", 7, func(me int) ompiTree { return ompiChain(me, 0, 7, 3) },
			[][]int{{-1, 1, 3, 5}, {0, 2}, {1}, {0, 4}, {3}, {0, 6}, {5}}},
		// 8 ranks, fanout 3: 7 others in runs of 3, 2, 2: 0 -> 1 4 6
		{"chain fanout 3 P=8", 8, func(me int) ompiTree { return ompiChain(me, 0, 8, 3) },
			[][]int{{-1, 1, 4, 6}, {0, 2}, {1, 3}, {2}, {0, 5}, {4}, {0, 7}, {6}}},
		{"pipeline P=4 root 2", 4, func(me int) ompiTree { return ompiChain(me, 2, 4, 1) },
			[][]int{{3, 1}, {0}, {-1, 3}, {2, 0}}},
		// in-order binary tree of 7: root 6, left subtree 3..5 (root 5),
		// right subtree 0..2 (root 2); 5 -> 4 3, 2 -> 1 0
		{"in-order bintree P=7", 7, func(me int) ompiTree { return ompiInOrderBinaryTree(me, 7) },
			[][]int{{2}, {2}, {6, 1, 0}, {5}, {5}, {6, 4, 3}, {-1, 5, 2}}},
		{"in-order bintree P=2", 2, func(me int) ompiTree { return ompiInOrderBinaryTree(me, 2) },
			[][]int{{1}, {-1, 0}}},
		// 4 ranks: root 3, left subtree {2}, right subtree {0, 1} rooted at 1
		{"in-order bintree P=4", 4, func(me int) ompiTree { return ompiInOrderBinaryTree(me, 4) },
			[][]int{{1}, {3, 0}, {3}, {-1, 2, 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := treeShape(tc.p, tc.build)
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("tree %v, want %v", got, tc.want)
			}
			checkTree(t, got)
		})
	}
}

// checkTree asserts that parents and children agree and every rank hangs
// off the one root.
func checkTree(t *testing.T, shape [][]int) {
	t.Helper()
	roots := 0
	for me, pc := range shape {
		if pc[0] < 0 {
			roots++
		} else if !slices.Contains(shape[pc[0]][1:], me) {
			t.Fatalf("rank %d: parent %d does not list it among %v", me, pc[0], shape[pc[0]][1:])
		}
		for _, c := range pc[1:] {
			if shape[c][0] != me {
				t.Fatalf("rank %d lists child %d whose parent is %d", me, c, shape[c][0])
			}
		}
	}
	if roots != 1 {
		t.Fatalf("%d roots", roots)
	}
}

// TestOmpiTreesWhole checks every builder on every size and root for a
// consistent single tree.
func TestOmpiTreesWhole(t *testing.T) {
	for p := 1; p <= 40; p++ {
		for _, root := range []int{0, p / 2, p - 1} {
			for name, b := range map[string]func(me int) ompiTree{
				"kary2":   func(me int) ompiTree { return ompiKaryTree(me, root, p, 2) },
				"kary4":   func(me int) ompiTree { return ompiKaryTree(me, root, p, 4) },
				"chain1":  func(me int) ompiTree { return ompiChain(me, root, p, 1) },
				"chain4":  func(me int) ompiTree { return ompiChain(me, root, p, 4) },
				"bm":      func(me int) ompiTree { return ompiBinomialTree(me, root, p) },
				"inbm":    func(me int) ompiTree { return ompiInOrderBinomialTree(me, root, p) },
				"knomial": func(me int) ompiTree { return ompiKnomialTree(me, root, p, 3) },
				"inorder": func(me int) ompiTree { return ompiInOrderBinaryTree(me, p) },
			} {
				t.Run(fmt.Sprintf("%s/P=%d/root=%d", name, p, root), func(t *testing.T) {
					checkTree(t, treeShape(p, b))
				})
			}
		}
	}
}

// ompiTreeTraffic is the traffic of a segmented tree broadcast (bcast) or
// reduction on tree t: a message per segment and child, and one per
// segment from the parent; reduce also lists the combinations.
func ompiTreeTraffic(s *Spec, tr ompiTree, reduce bool) (traffic, []uint64) {
	n := s.Size
	if s.Comm.Size() < 2 {
		return traffic{}, nil
	}
	seg, num := ompiSegments(s, n)
	var out traffic
	var combined []uint64
	kids := len(tr.children)
	for k := uint64(0); k < num; k++ {
		size := ompiSegSize(n, seg, num, k)
		up, down := 0, 0
		if tr.parent >= 0 {
			up = 1
		}
		down = kids
		if reduce {
			out = out.plus(traffic{up, down, uint64(up) * size, uint64(down) * size})
			for c := 0; c < kids; c++ {
				combined = append(combined, size)
			}
		} else {
			out = out.plus(traffic{down, up, uint64(down) * size, uint64(up) * size})
		}
	}
	return out, combined
}

func ompiTreeOf(op Op, name string, s *Spec, me int) ompiTree {
	e := emitter{s: s, me: me, p: s.Comm.Size()}
	return ompiTreeFor(op, name, &e)
}

func init() {
	for _, name := range []string{"ompi_binomial", "ompi_bintree", "ompi_pipeline", "ompi_chain", "ompi_knomial"} {
		formulas["bcast/"+name] = func(s *Spec, me int) traffic {
			tr, _ := ompiTreeTraffic(s, ompiTreeOf(Bcast, name, s, me), false)
			return tr
		}
	}
	for _, name := range []string{"ompi_binomial", "ompi_binary", "ompi_pipeline", "ompi_chain", "ompi_in_order_binary"} {
		f := func(s *Spec, me int) (traffic, []uint64) {
			tr, comb := ompiTreeTraffic(s, ompiTreeOf(Reduce, name, s, me), true)
			p := s.Comm.Size()
			if name == "ompi_in_order_binary" && s.Root != p-1 && p > 1 {
				switch me {
				case p - 1:
					tr = tr.plus(traffic{1, 0, s.Size, 0})
				case s.Root:
					tr = tr.plus(traffic{0, 1, 0, s.Size})
				}
			}
			return tr, comb
		}
		brCombined["reduce/"+name] = f
		formulas["reduce/"+name] = func(s *Spec, me int) traffic { tr, _ := f(s, me); return tr }
	}
	formulas["bcast/ompi_linear"] = func(s *Spec, me int) traffic {
		if me == s.Root {
			return traffic{s.Comm.Size() - 1, 0, uint64(s.Comm.Size()-1) * s.Size, 0}
		}
		return traffic{0, 1, 0, s.Size}
	}
	brCombined["reduce/ompi_linear"] = func(s *Spec, me int) (traffic, []uint64) {
		p, n := s.Comm.Size(), s.Size
		if me != s.Root {
			return traffic{1, 0, n, 0}, nil
		}
		return traffic{0, p - 1, 0, uint64(p-1) * n}, slices.Repeat([]uint64{n}, p-1)
	}
	brCombined["allreduce/ompi_linear"] = func(s *Spec, me int) (traffic, []uint64) {
		p, n := s.Comm.Size(), s.Size
		if me != 0 {
			return traffic{1, 1, n, n}, nil
		}
		return traffic{p - 1, p - 1, uint64(p-1) * n, uint64(p-1) * n}, slices.Repeat([]uint64{n}, p-1)
	}
	brCombined["allreduce/ompi_ring"] = ompiRingFormula
	brCombined["allreduce/ompi_segmented_ring"] = ompiSegRingFormula
	brCombined["allreduce/ompi_redscat_allgather"] = ompiRedscatFormula
	brCombined["allreduce/ompi_nonoverlapping"] = func(s *Spec, me int) (traffic, []uint64) {
		r := *s
		r.Root = 0
		red, bc := OpenMPI.pick(Reduce, &r), OpenMPI.pick(Bcast, &r)
		t1, c1 := brCombined[algKey(red)](&r, me)
		return t1.plus(formulas[algKey(bc)](&r, me)), c1
	}
	for _, k := range []string{"reduce/ompi_linear", "allreduce/ompi_linear", "allreduce/ompi_ring",
		"allreduce/ompi_segmented_ring", "allreduce/ompi_redscat_allgather", "allreduce/ompi_nonoverlapping"} {
		f := brCombined[k]
		formulas[k] = func(s *Spec, me int) traffic { tr, _ := f(s, me); return tr }
	}
	ompiMiscFormulas()
}

// ompiRingFormula: reduce-scatter sends every block but me+1 and receives
// (and combines, from me-1 down) every block but me; the allgather sends
// every block but me+2 and receives every block but me+1.
func ompiRingFormula(s *Spec, me int) (traffic, []uint64) {
	p := s.Comm.Size()
	count, elem := ompiElems(s, s.Size)
	if p == 1 {
		return traffic{}, nil
	}
	if count < uint64(p) {
		return formulas["allreduce/recdoub"](s, me), nil
	}
	bl := newOmpiBlocks(count, p, elem)
	b := func(i int) uint64 { return bl.bytes(((i % p) + p) % p) }
	total := count * elem
	var combined []uint64
	for k := 1; k < p; k++ {
		combined = append(combined, b(me-k))
	}
	tr := traffic{2 * (p - 1), 2 * (p - 1), 2*total - b(me+1) - b(me+2), 2*total - b(me) - b(me+1)}
	return tr, combined
}

func ompiSegRingFormula(s *Spec, me int) (traffic, []uint64) {
	p := s.Comm.Size()
	count, elem := ompiElems(s, s.Size)
	seg := count // Open MPI's segment count: s.Segment/elem elements, one more past half an element
	if s.Segment >= elem && s.Segment < elem*count {
		seg = s.Segment / elem
		if s.Segment%elem > elem/2 {
			seg++
		}
	}
	if p == 1 || seg == 0 || count < uint64(p)*seg {
		return ompiRingFormula(s, me)
	}
	phases := count / (uint64(p) * seg)
	if r := count % (uint64(p) * seg); r >= uint64(p) && r > uint64(p)*seg/2 {
		phases++
	}
	tr, _ := ompiRingFormula(s, me)
	tr.sends += int(phases-1) * (p - 1)
	tr.recvs += int(phases-1) * (p - 1)
	return tr, nil // the phases' combinations: checked by TestOmpiSegmentedRing
}

// ompiRedscatFormula follows the halving by hand: with the partner d, a
// rank below d keeps the lower floor(w/2) elements.
func ompiRedscatFormula(s *Spec, me int) (traffic, []uint64) {
	p := s.Comm.Size()
	count, elem := ompiElems(s, s.Size)
	pof2 := pow2Floor(p)
	if count < uint64(pof2) {
		return brCombined["allreduce/ompi_linear"](s, me)
	}
	rem := p - pof2
	lh, rh := count/2*elem, (count-count/2)*elem
	var tr traffic
	var comb []uint64
	vrank := me - rem
	if me < 2*rem {
		if me%2 != 0 {
			return traffic{2, 2, lh + rh, rh + count*elem}, []uint64{rh}
		}
		tr, comb, vrank = traffic{1, 2, rh, lh + rh}, []uint64{lh, rh}, me/2
	}
	dest := func(v int) int {
		if v < rem {
			return 2 * v
		}
		return v + rem
	}
	w := count
	for mask := 1; mask < pof2; mask <<= 1 {
		keep := w / 2
		if me > dest(vrank^mask) {
			keep = w - w/2
		}
		// halving sends w-keep and combines keep; doubling mirrors it
		tr = tr.plus(traffic{2, 2, w * elem, w * elem})
		comb = append(comb, keep*elem)
		w = keep
	}
	if me < 2*rem {
		tr = tr.plus(traffic{1, 0, count * elem, 0})
	}
	return tr, comb
}

func ompiMiscFormulas() {
	one := func(s *Spec, me int) traffic {
		other := 1 - me
		return traffic{1, 1, ompiOwnBlockOf(s, me), ompiOwnBlockOf(s, other)}
	}
	formulas["barrier/ompi_two_proc"] = one
	formulas["allgather/ompi_two_proc"] = one
	formulas["allgatherv/ompi_two_proc"] = one
	formulas["barrier/ompi_linear"] = func(s *Spec, me int) traffic {
		p, n := s.Comm.Size(), s.Size
		if p < 2 {
			return traffic{}
		}
		if me == 0 {
			return traffic{p - 1, p - 1, uint64(p-1) * n, uint64(p-1) * n}
		}
		return traffic{1, 1, n, n}
	}
	formulas["barrier/ompi_double_ring"] = func(s *Spec, me int) traffic {
		if s.Comm.Size() < 2 {
			return traffic{}
		}
		return traffic{2, 2, 2 * s.Size, 2 * s.Size}
	}
	a2a := func(s *Spec, me int) traffic {
		p := s.Comm.Size()
		var tr traffic
		for j := 0; j < p; j++ {
			if j != me {
				tr = tr.plus(traffic{1, 1, alltoallSendOf(s, j), alltoallRecvOf(s, j)})
			}
		}
		return tr
	}
	formulas["alltoall/ompi_pairwise"] = a2a
	formulas["alltoallv/ompi_pairwise"] = a2a
	formulas["alltoallv/ompi_linear"] = a2a
	formulas["allgather/ompi_recdoub"] = func(s *Spec, me int) traffic {
		p := s.Comm.Size()
		if !isPow2(p) {
			return formulas["allgather/bruck"](s, me)
		}
		k := log2Ceil(p)
		return traffic{k, k, uint64(p-1) * s.Size, uint64(p-1) * s.Size}
	}
	formulas["allgather/ompi_neighbor"] = func(s *Spec, me int) traffic { return ompiNeighborFormula(s, me, false) }
	formulas["allgatherv/ompi_neighbor"] = func(s *Spec, me int) traffic { return ompiNeighborFormula(s, me, true) }
	formulas["allgatherv/ompi_ring"] = func(s *Spec, me int) traffic {
		p := s.Comm.Size()
		var total uint64
		for _, c := range s.Counts {
			total += c
		}
		return traffic{p - 1, p - 1, total - s.Counts[(me+1)%p], total - s.Counts[me]}
	}
	ompiLinearFormulas()
}

// ompiLinearFormulas covers the linear rooted algorithms and exscan.
func ompiLinearFormulas() {
	linear := func(scatter, v bool) func(s *Spec, me int) traffic {
		return func(s *Spec, me int) traffic {
			size := func(i int) uint64 {
				if v {
					return s.Counts[i]
				}
				return s.Size
			}
			var root traffic
			if me != s.Root {
				if v && size(me) == 0 {
					return traffic{}
				}
				root = traffic{1, 0, size(me), 0}
			} else {
				for i := 0; i < s.Comm.Size(); i++ {
					if i != me && (!v || size(i) > 0) {
						root = root.plus(traffic{1, 0, size(i), 0})
					}
				}
			}
			if scatter == (me == s.Root) {
				return root
			}
			return traffic{root.recvs, root.sends, root.received, root.sent}
		}
	}
	formulas["gather/ompi_linear"] = linear(false, false)
	formulas["scatter/ompi_linear"] = linear(true, false)
	formulas["gatherv/ompi_linear"] = linear(false, true)
	formulas["scatterv/ompi_linear"] = linear(true, true)
	formulas["exscan/ompi_linear"] = func(s *Spec, me int) traffic {
		p, n := s.Comm.Size(), s.Size
		var tr traffic
		if me > 0 {
			tr = tr.plus(traffic{0, 1, 0, n})
		}
		if me < p-1 {
			tr = tr.plus(traffic{1, 0, n, 0})
		}
		return tr
	}
	gsCombinedBytes["exscan/ompi_linear"] = func(p, me int, n uint64) []uint64 {
		if me == 0 || me == p-1 {
			return nil
		}
		return []uint64{n}
	}
}

func log2Ceil(p int) int {
	k := 0
	for 1<<k < p {
		k++
	}
	return k
}

func ompiOwnBlockOf(s *Spec, i int) uint64 {
	if len(s.Counts) == s.Comm.Size() {
		return s.Counts[i]
	}
	return s.Size
}

func alltoallSendOf(s *Spec, j int) uint64 {
	if s.Counts != nil {
		return s.Counts[j]
	}
	return s.Size
}

func alltoallRecvOf(s *Spec, j int) uint64 {
	if s.RecvCounts != nil {
		return s.RecvCounts[j]
	}
	return s.Size
}

// ompiNeighborFormula: every rank receives every other block once; it
// sends its own block in the first step, and in each later step the two
// blocks it got in the step before (an even rank, in step 1, its own and
// the one it got first).
func ompiNeighborFormula(s *Spec, me int, v bool) traffic {
	p := s.Comm.Size()
	blk := func(i int) uint64 { return ompiOwnBlockOf(s, ((i%p)+p)%p) }
	if p%2 != 0 {
		if v {
			return formulas["allgatherv/ompi_ring"](s, me)
		}
		return formulas["allgather/ring"](s, me)
	}
	var total uint64
	for i := 0; i < p; i++ {
		total += blk(i)
	}
	tr := traffic{p / 2, p / 2, blk(me), total - blk(me)}
	// the pairs: an even rank gets pairs from the right neighbour
	// (me+2k..) in odd steps and from the left (me-2k..) in even ones;
	// an odd rank the mirror image. Step 1 sends (me, me+1) or (me-1, me).
	lo := me
	if me%2 != 0 {
		lo = me - 1
	}
	send := lo
	right, left := lo, lo // the lowest block of the last pair got from each side
	for i := 1; i < p/2; i++ {
		tr.sent += blk(send) + blk(send+1)
		if (i%2 == 1) == (me%2 == 1) {
			right += 2
			send = right
		} else {
			left -= 2
			send = left
		}
	}
	return tr
}

// TestOmpiSegments runs the segmented Open MPI algorithms with segment
// sizes that do and do not divide the data, and element sizes, through
// the property checks of TestAlgorithms.
func TestOmpiSegments(t *testing.T) {
	for _, tc := range []struct {
		op    Op
		alg   string
		seg   uint64
		elem  uint64
		sizes []uint64
	}{
		{Bcast, "ompi_pipeline", 100, 1, []uint64{99, 100, 101, 1000, 1050}},
		{Bcast, "ompi_binomial", 64, 8, []uint64{8, 64, 72, 1000}},
		{Bcast, "ompi_knomial", 30, 4, []uint64{4, 100, 1000}},
		{Bcast, "ompi_chain", 100, 1, []uint64{1, 350}},
		{Bcast, "ompi_split_bintree", 100, 1, []uint64{1, 2, 199, 200, 201, 1000, 1050}},
		{Reduce, "ompi_pipeline", 100, 1, []uint64{99, 100, 101, 1000, 1050}},
		{Reduce, "ompi_binary", 64, 8, []uint64{8, 64, 72, 1000}},
		{Reduce, "ompi_in_order_binary", 30, 4, []uint64{4, 100, 1000}},
		{Allreduce, "ompi_segmented_ring", 16, 4, []uint64{4, 64, 400, 1000, 4000}},
	} {
		alg, err := Lookup(tc.op, tc.alg)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []int{1, 2, 3, 7, 16} {
			for _, n := range tc.sizes {
				for _, root := range []int{0, p - 1} {
					t.Run(fmt.Sprintf("%s/seg=%d/P=%d/n=%d/root=%d", algKey(alg), tc.seg, p, n, root), func(t *testing.T) {
						members := make([]int32, p)
						for i := range members {
							members[i] = int32(p - 1 - i)
						}
						comm := NewComm(members)
						c := buildCall(t, alg, p, members, func(me int) Spec {
							return Spec{Comm: comm, Root: root, Size: n, Tag: 3, Segment: tc.seg, ElemSize: tc.elem, Radix: 2}
						})
						c.analyse(t)
						c.checkSemantics(t)
						c.checkTraffic(t, formulas[algKey(alg)], "")
						c.simulate(t, sim.DefaultParams())
					})
				}
			}
		}
	}
}

// TestOmpiSegmentCount checks COLL_BASE_COMPUTED_SEGCOUNT's rounding: a
// segment of s bytes holds round(s/elem) elements, rounding half down,
// and no cut when s is 0, below one element or not below the data.
func TestOmpiSegmentCount(t *testing.T) {
	for _, tc := range []struct {
		n, seg, elem   uint64
		wantSeg, wantN uint64
	}{
		{1000, 0, 8, 1000, 1},
		{1000, 4, 8, 1000, 1},    // below one element
		{1000, 1000, 8, 1000, 1}, // not below the data
		{1000, 100, 8, 96, 11},   // 12.5 elements: 12 (half rounds down)
		{1000, 101, 8, 104, 10},  // 12.625: 13
		{1024, 256, 4, 256, 4},   // exact
		{1026, 256, 1, 256, 5},   // last segment 2 bytes
		{8192, 8192, 8, 8192, 1}, // the whole
		{8192, 8191, 8, 8192, 1}, // 1023.875 elements: 1024, one segment
		{8192, 4100, 8, 4096, 2}, // 512.5: 512
		{8192, 4101, 8, 4104, 2}, // 512.625: 513
	} {
		s := Spec{Size: tc.n, Segment: tc.seg, ElemSize: tc.elem}
		seg, num := ompiSegments(&s, tc.n)
		if seg != tc.wantSeg || num != tc.wantN {
			t.Errorf("n=%d seg=%d elem=%d: segments of %d bytes x%d, want %d x%d", tc.n, tc.seg, tc.elem, seg, num, tc.wantSeg, tc.wantN)
		}
	}
}

// ompiThenFormula is the traffic of two collectives in a row, each with
// its formula; reduce, when set, is the spec of the first one whose
// combinations count.
func ompiThenFormula(me int, op1 Op, s1 Spec, op2 Op, s2 Spec) (traffic, []uint64) {
	a1, a2 := OpenMPI.pick(op1, &s1), OpenMPI.pick(op2, &s2)
	tr := formulas[algKey(a1)](&s1, me).plus(formulas[algKey(a2)](&s2, me))
	var comb []uint64
	if f := brCombined[algKey(a1)]; f != nil {
		_, comb = f(&s1, me)
	}
	return tr, comb
}

func init() {
	formulas["allgather/ompi_linear"] = func(s *Spec, me int) traffic {
		g, b := *s, *s
		g.Root, b.Root = 0, 0
		b.Size = s.Size * uint64(s.Comm.Size())
		tr, _ := ompiThenFormula(me, Gather, g, Bcast, b)
		return tr
	}
	formulas["allgatherv/ompi_default"] = func(s *Spec, me int) traffic {
		g, b := *s, *s
		g.Root, b.Root = 0, 0
		b.Counts, b.Size = nil, 0
		for _, c := range s.Counts {
			b.Size += c
		}
		tr, _ := ompiThenFormula(me, Gatherv, g, Bcast, b)
		return tr
	}
	rs := func(block bool) func(s *Spec, me int) (traffic, []uint64) {
		return func(s *Spec, me int) (traffic, []uint64) {
			p := s.Comm.Size()
			r, sc := *s, *s
			r.Root, sc.Root = 0, 0
			r.Size = s.Size * uint64(p)
			if block {
				return ompiThenFormula(me, Reduce, r, Scatter, sc)
			}
			sc.Counts = slices.Repeat([]uint64{s.Size}, p)
			return ompiThenFormula(me, Reduce, r, Scatterv, sc)
		}
	}
	for name, block := range map[string]bool{"ompi_nonoverlapping": false, "ompi_block_linear": true} {
		f := rs(block)
		formulas["reduce_scatter/"+name] = func(s *Spec, me int) traffic { tr, _ := f(s, me); return tr }
		gsCombinedBytes["reduce_scatter/"+name] = func(p, me int, n uint64) []uint64 {
			_, comb := f(&Spec{Comm: WorldComm(p), Size: n}, me)
			return comb
		}
	}
	formulas["gather/ompi_linear_sync"] = func(s *Spec, me int) traffic {
		p, n := s.Comm.Size(), s.Size
		if me != s.Root {
			return traffic{2, 1, n, 0}
		}
		return traffic{p - 1, 2 * (p - 1), 0, uint64(p-1) * n}
	}
}

// ompiRedscatGatherFormula: the fold and halving as in the allreduce, then
// the binomial gather: from the top step down, a core rank receives the
// partner's piece (what it sent in that step) until the partner is on the
// root's side, to which it sends what it has (what it kept).
func ompiRedscatGatherFormula(s *Spec, me int) (traffic, []uint64) {
	p, root := s.Comm.Size(), s.Root
	count, elem := ompiElems(s, s.Size)
	pof2 := pow2Floor(p)
	if pof2 < 2 || count < uint64(pof2) {
		return brCombined["reduce/ompi_linear"](s, me)
	}
	rem := p - pof2
	lh, rh := count/2*elem, (count-count/2)*elem
	var tr traffic
	var comb []uint64
	vrank := me - rem
	if me < 2*rem {
		if me%2 != 0 {
			tr, comb, vrank = traffic{2, 1, lh + rh, rh}, []uint64{rh}, -1
		} else {
			tr, comb, vrank = traffic{1, 2, rh, lh + rh}, []uint64{lh, rh}, me/2
		}
	}
	var sent, kept []uint64
	if vrank >= 0 {
		w := count
		for mask := 1; mask < pof2; mask <<= 1 {
			keep := w / 2
			if me > ompiVDest(vrank^mask, rem) {
				keep = w - w/2
			}
			tr = tr.plus(traffic{1, 1, (w - keep) * elem, keep * elem})
			comb = append(comb, keep*elem)
			sent, kept = append(sent, w-keep), append(kept, keep)
			w = keep
		}
	}
	vroot := root - rem
	rootOut := root < 2*rem && root%2 != 0
	if root < 2*rem {
		vroot = root / 2
	}
	if rootOut {
		vroot = 0
		piece := count
		for m := 1; m < pof2; m <<= 1 {
			piece /= 2
		}
		switch {
		case me == root:
			tr = tr.plus(traffic{0, 1, 0, piece * elem})
			vrank, sent, kept = 0, nil, nil
			w := count
			for m := 1; m < pof2; m <<= 1 {
				kept, sent = append(kept, w/2), append(sent, w-w/2)
				w /= 2
			}
		case vrank == 0:
			return tr.plus(traffic{1, 0, piece * elem, 0}), comb
		}
	}
	if vrank < 0 {
		return tr, comb
	}
	step := len(sent) - 1
	for mask := pof2 >> 1; mask > 0; mask, step = mask>>1, step-1 {
		if (vrank^mask)>>step == vroot>>step {
			return tr.plus(traffic{1, 0, kept[step] * elem, 0}), comb
		}
		tr = tr.plus(traffic{0, 1, 0, sent[step] * elem})
	}
	return tr, comb
}

func init() {
	brCombined["reduce/ompi_redscat_gather"] = ompiRedscatGatherFormula
	formulas["reduce/ompi_redscat_gather"] = func(s *Spec, me int) traffic { tr, _ := ompiRedscatGatherFormula(s, me); return tr }
}

// ompiButterflyFormula: the fold (even ranks below 2·rem send all P blocks
// and get their block back), log2 halving steps of the core blocks (a
// block below rem is two ranks' blocks), then the final exchange with the
// bit-reversed core rank; none for the block variant on 2^k ranks.
func ompiButterflyFormula(p, me int, n uint64, block bool) (traffic, []uint64) {
	if p < 2 || (block && n == 0) {
		return traffic{}, nil
	}
	pof2 := pow2Floor(p)
	rem := p - pof2
	log2 := log2Ceil(pof2)
	total := n * uint64(p)
	if me < 2*rem && me%2 == 0 {
		return traffic{1, 1, total, n}, nil
	}
	var tr traffic
	var comb []uint64
	vrank := me - rem
	if me < 2*rem {
		tr, comb, vrank = traffic{0, 1, 0, total}, []uint64{total}, me/2
	}
	w := func(lo, hi int) uint64 {
		c := uint64(0)
		for b := lo; b < hi; b++ {
			c += n
			if b < rem {
				c += n
			}
		}
		return c
	}
	lo, size := 0, pof2 // the core blocks still held
	for mask := 1; mask < pof2; mask <<= 1 {
		size /= 2
		keepLo := vrank&mask == 0
		kept, given := lo, lo+size
		if !keepLo {
			kept, given = lo+size, lo
		}
		tr = tr.plus(traffic{1, 1, w(given, given+size), w(kept, kept+size)})
		comb = append(comb, w(kept, kept+size))
		lo = kept
	}
	if block && rem == 0 {
		return tr, comb
	}
	v := mirror(vrank, log2)
	if v < rem {
		tr = tr.plus(traffic{1, 0, n, 0})
	}
	if v != vrank {
		tr = tr.plus(traffic{1, 1, n, n})
	}
	return tr, comb
}

// ompiBlockRecdoubFormula: at distance m a rank with a partner swaps
// everything outside the own group for everything outside the partner's;
// ranks whose partner group is incomplete get that data by halving.
func ompiBlockRecdoubFormula(p, me int, n uint64) (traffic, []uint64) {
	if p < 2 || n == 0 {
		return traffic{}, nil
	}
	out := func(root, m int) uint64 { return uint64(p-min(m, p-root)) * n }
	var tr traffic
	var comb []uint64
	for m := 1; m < p; m <<= 1 {
		cur, rroot := me&^(m-1), (me^m)&^(m-1)
		got := false
		if me^m < p {
			tr = tr.plus(traffic{1, 1, out(cur, m), out(rroot, m)})
			got = true
		}
		if rroot+m > p {
			all := p - cur - m
			for h := m >> 1; h > 0; h >>= 1 {
				r, base := me^h, me&^(2*h-1)
				if r > me && me < base+all && r >= base+all {
					tr = tr.plus(traffic{1, 0, out(rroot, m), 0})
				} else if r < me && r < base+all && me >= base+all {
					tr = tr.plus(traffic{0, 1, 0, out(rroot, m)})
					got = true
				}
			}
		}
		if got {
			comb = append(comb, out(rroot, m))
		}
	}
	return tr, comb
}

func init() {
	for name, block := range map[string]bool{"ompi_butterfly": false, "ompi_block_butterfly": true} {
		formulas["reduce_scatter/"+name] = func(s *Spec, me int) traffic {
			tr, _ := ompiButterflyFormula(s.Comm.Size(), me, s.Size, block)
			return tr
		}
		gsCombinedBytes["reduce_scatter/"+name] = func(p, me int, n uint64) []uint64 {
			_, c := ompiButterflyFormula(p, me, n, block)
			return c
		}
	}
	formulas["reduce_scatter/ompi_block_recdoub"] = func(s *Spec, me int) traffic {
		tr, _ := ompiBlockRecdoubFormula(s.Comm.Size(), me, s.Size)
		return tr
	}
	gsCombinedBytes["reduce_scatter/ompi_block_recdoub"] = func(p, me int, n uint64) []uint64 {
		_, c := ompiBlockRecdoubFormula(p, me, n)
		return c
	}
}

// ompiScatterAllgatherFormula: below P elements the linear broadcast;
// otherwise the binomial scatter of the pieces, then either the ring (every
// piece but the own one in, every piece but the right neighbour's out)
// or recursive doubling, where a rank swaps its group's pieces with its
// partner's and ranks of an incomplete group's partners get them by
// halving (one byte is an element here).
func ompiScatterAllgatherFormula(s *Spec, me int, ring bool) traffic {
	p, n := s.Comm.Size(), s.Size
	if p < 2 || n == 0 {
		return traffic{}
	}
	if n < uint64(p) {
		return formulas["bcast/ompi_linear"](s, me)
	}
	r := rel(me, s.Root, p)
	tr := brScatter(n, p, r)
	if ring {
		return tr.plus(traffic{p - 1, p - 1, n - brPiece(n, p, (r+1)%p), n - brPiece(n, p, r)})
	}
	for m := 1; m < p; m <<= 1 {
		mine, theirs := r&^(m-1), (r^m)&^(m-1)
		if r^m < p {
			tr = tr.plus(traffic{1, 1, brPieces(n, p, mine, mine+m), brPieces(n, p, theirs, theirs+m)})
		}
		if theirs+m > p {
			all := p - mine - m
			for h := m >> 1; h > 0; h >>= 1 {
				v2, base := r^h, r&^(2*h-1)
				if v2 > r && r < base+all && v2 >= base+all {
					tr = tr.plus(traffic{1, 0, brPieces(n, p, theirs, p), 0})
				} else if v2 < r && v2 < base+all && r >= base+all {
					tr = tr.plus(traffic{0, 1, 0, brPieces(n, p, theirs, p)})
				}
			}
		}
	}
	return tr
}

func init() {
	formulas["bcast/ompi_scatter_allgather"] = func(s *Spec, me int) traffic { return ompiScatterAllgatherFormula(s, me, false) }
	formulas["bcast/ompi_scatter_allgather_ring"] = func(s *Spec, me int) traffic { return ompiScatterAllgatherFormula(s, me, true) }
}

func init() {
	// the tree barrier: a message from each child and to the parent, and
	// back: twice the binomial tree's edges at the rank
	formulas["barrier/ompi_tree"] = func(s *Spec, me int) traffic {
		p, n := s.Comm.Size(), s.Size
		t := ompiInOrderBinomialTree(me, 0, p)
		k := len(t.children)
		if t.parent >= 0 {
			k++
		}
		return traffic{k, k, uint64(k) * n, uint64(k) * n}
	}
}

func init() {
	// Bruck allgatherv: the own block is sent in every step, the blocks
	// sent grow from me; in the end every other block was received once.
	formulas["allgatherv/ompi_bruck"] = func(s *Spec, me int) traffic {
		p := s.Comm.Size()
		var tr traffic
		var total uint64
		for _, c := range s.Counts {
			total += c
		}
		for d := 1; d < p; d <<= 1 {
			c := min(d, p-d)
			var sent uint64
			for i := 0; i < c; i++ {
				sent += s.Counts[(me+i)%p]
			}
			tr = tr.plus(traffic{1, 1, sent, 0})
		}
		tr.received = total - s.Counts[me]
		return tr
	}
}

func init() {
	// split binary tree (one byte an element): the halves go down the two
	// subtrees, then pairs swap them
	formulas["bcast/ompi_split_bintree"] = func(s *Spec, me int) traffic {
		p, n := s.Comm.Size(), s.Size
		if p < 2 {
			return traffic{}
		}
		half := [2]uint64{(n + 1) / 2, n / 2}
		if half[1] == 0 {
			return formulas["bcast/ompi_pipeline"](s, me)
		}
		if s.Segment > half[1] {
			return formulas["bcast/ompi_pipeline"](s, me)
		}
		num := [2]int{1, 1} // segments per half
		if s.Segment > 0 {
			num = [2]int{int((half[0] + s.Segment - 1) / s.Segment), int((half[1] + s.Segment - 1) / s.Segment)}
		}
		t := ompiKaryTree(me, s.Root, p, 2)
		sr := rel(me, s.Root, p)
		lr := (sr + 1) % 2
		var tr traffic
		if sr == 0 {
			for i := range t.children {
				tr = tr.plus(traffic{num[i], 0, half[i], 0})
			}
		} else {
			k := len(t.children)
			tr = traffic{k * num[lr], num[lr], uint64(k) * half[lr], half[lr]}
		}
		switch {
		case p%2 != 0 && sr != 0, p%2 == 0 && sr != 0 && sr != p-1:
			tr = tr.plus(traffic{1, 1, half[lr], half[1-lr]})
		case p%2 == 0 && sr == 0:
			tr = tr.plus(traffic{1, 0, half[1], 0})
		case p%2 == 0 && sr == p-1:
			tr = tr.plus(traffic{0, 1, 0, half[1]})
		}
		return tr
	}
}
