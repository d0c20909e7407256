package topology

// Binary heaps on flat slices of values: no interfaces, no boxing.

// pend is an entry of LogGOPSim's query db: query slot at t (if it is
// still message seq).
type pend struct {
	t    int64
	seq  uint64
	slot int32
}

type pendHeap []pend

func (h pendHeap) less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].seq < h[j].seq
}

func (h *pendHeap) push(e pend) {
	*h = append(*h, e)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *pendHeap) pop() pend {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= len(a) {
			break
		}
		if c+1 < len(a) && a.less(c+1, c) {
			c++
		}
		if !a.less(c, i) {
			break
		}
		a[i], a[c] = a[c], a[i]
		i = c
	}
	*h = a
	return top
}

// linkHeap orders links by (share, link) during progressive filling;
// Network.lpos holds each link's position.
type linkHeap []int32

func (h linkHeap) less(n *Network, i, j int32) bool {
	a, b := h[i], h[j]
	return n.share[a] < n.share[b] || n.share[a] == n.share[b] && a < b
}

func (h linkHeap) swap(n *Network, i, j int32) {
	h[i], h[j] = h[j], h[i]
	n.lpos[h[i]] = i
	n.lpos[h[j]] = j
}

func (h linkHeap) up(n *Network, i int32) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.less(n, i, p) {
			return
		}
		h.swap(n, i, p)
		i = p
	}
}

func (h linkHeap) down(n *Network, i int32) {
	k := int32(len(h))
	for {
		c := 2*i + 1
		if c >= k {
			return
		}
		if c+1 < k && h.less(n, c+1, c) {
			c++
		}
		if !h.less(n, c, i) {
			return
		}
		h.swap(n, i, c)
		i = c
	}
}

func (h linkHeap) init(n *Network) {
	for i := int32(len(h))/2 - 1; i >= 0; i-- {
		h.down(n, i)
	}
}

func (h linkHeap) fix(n *Network, i int32) {
	l := h[i]
	h.up(n, i)
	h.down(n, n.lpos[l])
}

// remove takes out the link at position i.
func (h *linkHeap) remove(n *Network, i int32) {
	a := *h
	last := int32(len(a) - 1)
	l := a[i]
	if i != last {
		a.swap(n, i, last)
	}
	a = a[:last]
	*h = a
	if i != last {
		a.fix(n, i)
	}
	n.lpos[l] = -1
}

func (h *linkHeap) pop(n *Network) int32 {
	l := (*h)[0]
	h.remove(n, 0)
	return l
}

// finishHeap orders flow slots by (finish, seq); each slot records its
// position in msgs[s].hpos (-1 when not in the heap).
type finishHeap []int32

func finishLess(m []msg, a, b int32) bool {
	x, y := &m[a], &m[b]
	return x.finish < y.finish || x.finish == y.finish && x.seq < y.seq
}

func (h finishHeap) swap(m []msg, i, j int32) {
	h[i], h[j] = h[j], h[i]
	m[h[i]].hpos = i
	m[h[j]].hpos = j
}

func (h finishHeap) up(m []msg, i int32) {
	for i > 0 {
		p := (i - 1) / 2
		if !finishLess(m, h[i], h[p]) {
			return
		}
		h.swap(m, i, p)
		i = p
	}
}

func (h finishHeap) down(m []msg, i int32) {
	n := int32(len(h))
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && finishLess(m, h[c+1], h[c]) {
			c++
		}
		if !finishLess(m, h[c], h[i]) {
			return
		}
		h.swap(m, i, c)
		i = c
	}
}

func (h *finishHeap) push(m []msg, s int32) {
	*h = append(*h, s)
	i := int32(len(*h) - 1)
	m[s].hpos = i
	h.up(m, i)
}

// fix restores the order after the key of the slot at position i changed.
func (h finishHeap) fix(m []msg, i int32) {
	s := h[i]
	h.up(m, i)
	h.down(m, m[s].hpos)
}

func (h *finishHeap) pop(m []msg) int32 {
	a := *h
	top := a[0]
	last := int32(len(a) - 1)
	a.swap(m, 0, last)
	a = a[:last]
	*h = a
	a.down(m, 0)
	m[top].hpos = -1
	return top
}
