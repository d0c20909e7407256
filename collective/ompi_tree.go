package collective

// The trees Open MPI's segmented algorithms run on, as its coll/base
// topology code builds them (ompi/mca/coll/base/coll_base_topo.c, tag
// v4.1.4). Every builder gives, for comm rank me of p ranks and a root,
// me's parent (-1 at the root) and its children in the order the
// algorithms serve them. Ranks are "shifted" (relative to the root) while
// the tree is built and turned back into comm ranks at the end.

// ompiTree is one rank's place in a tree.
type ompiTree struct {
	parent   int // comm rank, -1 at the root
	children []int
}

// ompiKaryTree is build_tree(fanout): shifted ranks fill the tree level by
// level (level l holds fanout^l ranks); the children of a rank at level l
// are the ranks fanout^l, 2·fanout^l, ... fanout·fanout^l above it. With
// fanout 2 and 7 ranks: 0; 1 2; 3 5 4 6 (1's children are 3 and 5).
func ompiKaryTree(me, root, p, fanout int) ompiTree {
	t := ompiTree{parent: -1}
	if p < 2 {
		return t
	}
	sr := rel(me, root, p)
	level, first, width := 0, 0, 1 // first shifted rank of the level, its size
	for first+width <= sr {
		first += width
		width *= fanout
		level++
	}
	delta := width // fanout^level
	for i := 1; i <= fanout; i++ {
		c := sr + delta*i
		if c >= p {
			break
		}
		t.children = append(t.children, abs(c, root, p))
	}
	if sr == 0 {
		return t
	}
	// The parent is in the level above, at the same offset modulo its
	// width: step back by fanout^(level-1) until inside that level.
	par := sr
	if sr < fanout+1 {
		par = 0
	} else {
		for par >= first {
			par -= delta / fanout
		}
	}
	t.parent = abs(par, root, p)
	return t
}

// ompiChain is build_chain(fanout): the root heads fanout chains (fewer if
// there are fewer other ranks) that split the shifted ranks 1..p-1 in
// consecutive runs, the first (p-1) mod fanout of them one rank longer
// when the ranks do not divide evenly. Fanout 1 is one chain, the
// pipeline; Open MPI's fixed rules pass 0, which it raises to 1.
func ompiChain(me, root, p, fanout int) ompiTree {
	t := ompiTree{parent: -1}
	if p < 2 {
		return t
	}
	fanout = max(1, min(fanout, p-1))
	n := p - 1
	long, rest := n/fanout, n%fanout // chain lengths: rest chains of long+1, the others long
	head, sr := 1, rel(me, root, p)
	for c := 0; c < fanout; c++ {
		length := long
		if c < rest {
			length++
		}
		if sr == 0 {
			t.children = append(t.children, abs(head, root, p))
		} else if sr >= head && sr < head+length {
			if sr == head {
				t.parent = root
			} else {
				t.parent = abs(sr-1, root, p)
			}
			if sr+1 < head+length {
				t.children = []int{abs(sr+1, root, p)}
			}
			return t
		}
		head += length
	}
	return t
}

// ompiBinomialTree is build_bmtree: shifted rank r's parent is r without
// its highest set bit; its children are r + 2^k for every 2^k above that
// bit, nearest first.
func ompiBinomialTree(me, root, p int) ompiTree {
	t := ompiTree{parent: -1}
	r := rel(me, root, p)
	mask := 1
	for mask <= r {
		mask <<= 1
	}
	if r != 0 {
		t.parent = abs(r^(mask>>1), root, p)
	}
	for ; mask < p; mask <<= 1 {
		c := r ^ mask
		if c >= p {
			break
		}
		t.children = append(t.children, abs(c, root, p))
	}
	return t
}

// ompiInOrderBinomialTree is build_in_order_bmtree: shifted rank r's
// parent is r without its lowest set bit; its children are r + 2^k for the
// 2^k below that bit, nearest first (the tree of the binomial gather and
// scatter).
func ompiInOrderBinomialTree(me, root, p int) ompiTree {
	t := ompiTree{parent: -1}
	r := rel(me, root, p)
	for mask := 1; mask < p; mask <<= 1 {
		c := r ^ mask
		if c < r {
			t.parent = abs(c, root, p)
			break
		}
		if c < p {
			t.children = append(t.children, abs(c, root, p))
		}
	}
	return t
}

// ompiKnomialTree is build_kmtree(radix): shifted rank r's parent is r
// with its lowest nonzero base-radix digit cleared; its children are
// r + d·radix^j for the digits j below that one (all of them at the
// root), d = 1..radix-1, farthest power first.
func ompiKnomialTree(me, root, p, radix int) ompiTree {
	t := ompiTree{parent: -1}
	r := rel(me, root, p)
	mask := 1
	for mask < p {
		if r%(radix*mask) != 0 {
			t.parent = abs(r/(radix*mask)*(radix*mask), root, p)
			break
		}
		mask *= radix
	}
	for mask /= radix; mask > 0; mask /= radix {
		for d := 1; d < radix; d++ {
			if c := r + mask*d; c < p {
				t.children = append(t.children, abs(c, root, p))
			}
		}
	}
	return t
}

// ompiInOrderBinaryTree is build_in_order_bintree, rooted at comm rank
// p-1 whatever the operation's root: a tree of p ranks has its root at
// p-1, its right subtree on ranks 0..p/2-1 (root p/2-1) and its left
// subtree on ranks p/2..p-2 (root p-2); children are listed left first.
func ompiInOrderBinaryTree(me, p int) ompiTree {
	t := ompiTree{parent: -1}
	lo, n := 0, p // the subtree holding me: ranks lo..lo+n-1, root lo+n-1
	for {
		top := lo + n - 1
		right := n / 2 // ranks lo..lo+right-1
		left := n - right - 1
		if me == top {
			if left > 0 {
				t.children = append(t.children, top-1)
			}
			if right > 0 {
				t.children = append(t.children, lo+right-1)
			}
			return t
		}
		if me >= lo+right { // in the left subtree lo+right..top-1
			if me == top-1 {
				t.parent = top
			}
			lo, n = lo+right, left
		} else {
			if me == lo+right-1 {
				t.parent = top
			}
			n = right
		}
	}
}
