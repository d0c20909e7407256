package topology

import "fmt"

// fatTree is a k-ary n-tree (Petrini and Vanneschi): k^n hosts, n levels
// of switches, k down-ports per switch. A level-l switch is named by an
// (n-1)-digit base-k word w; its up-port j leads to the level-(l+1) switch
// whose word is w with digit l replaced by j, so the down-port of that
// parent back to it is w's digit l. Host h hangs from leaf h/k on down-port
// h mod k. With oversubscription o, leaves have k/o up-links instead of k
// and every upper level keeps only the switches whose digit 0 is below
// k/o: the tree above the leaves has 1/o of the full bandwidth.
//
// Switch indices (node - hosts): leaves 0..s-1 (index w), then each upper
// level in turn, s1 switches each, index (w/k)*up0 + w mod k.
type fatTree struct {
	k, n  int32
	up0   int32 // up-links per leaf: k / oversub
	s     int32 // leaves: k^(n-1)
	s1    int32 // switches per upper level: s / oversub
	pow   []int32
	hosts int32
	// Links by switch index and port: up[sw*k+j], down[sw*k+i]; -1 if none.
	// Host h's up-link is link h, its leaf's down-link to it link hosts+h.
	up, down []int32
}

// FatTree builds a k-ary n-tree with k^n hosts. oversub (1 for a full
// tree) divides k: leaves get k/oversub up-links, so the leaf level is
// oversubscribed oversub:1 and every level above has 1/oversub of the
// switches. Static routing is d-mod-k: at level l a packet for host d goes
// up port (d / k^l) mod (number of up-ports); the way down is unique.
func FatTree(k, n, oversub int) (*Graph, error) {
	if k < 1 || n < 1 {
		return nil, errTopo("fat tree: k=%d, n=%d: both must be at least 1", k, n)
	}
	if oversub < 1 || k%oversub != 0 {
		return nil, errTopo("fat tree: oversub=%d must be at least 1 and divide k=%d", oversub, k)
	}
	hosts := int64(1)
	for i := 0; i < n; i++ {
		hosts *= int64(k)
		if hosts > MaxHosts {
			return nil, errTopo("fat tree: k=%d, n=%d gives more than %d hosts", k, n, MaxHosts)
		}
	}
	f := fatTree{k: int32(k), n: int32(n), up0: int32(k / oversub), hosts: int32(hosts)}
	f.s = int32(hosts) / f.k
	f.s1 = f.s / f.k * f.up0
	if n == 1 { // one switch, no upper levels
		f.s1 = 0
	}
	f.pow = make([]int32, n+1)
	f.pow[0] = 1
	for i := 1; i <= n; i++ {
		f.pow[i] = f.pow[i-1] * f.k
	}
	switches := f.s + int32(n-1)*f.s1
	g := &Graph{kind: kindFatTree, numNodes: f.hosts + switches}
	if oversub == 1 {
		g.desc = fmt.Sprintf("fattree:k=%d,n=%d", k, n)
	} else {
		g.desc = fmt.Sprintf("fattree:k=%d,n=%d,oversub=%d", k, n, oversub)
	}
	f.up = make([]int32, int(switches)*k)
	f.down = make([]int32, int(switches)*k)
	for i := range f.up {
		f.up[i], f.down[i] = -1, -1
	}
	var b builder
	for h := int32(0); h < f.hosts; h++ {
		b.link(h, f.hosts+h/f.k)
	}
	for h := int32(0); h < f.hosts; h++ {
		leaf := h / f.k
		f.down[leaf*f.k+h%f.k] = b.link(f.hosts+leaf, h)
	}
	// Upper links, child-major: up-link then its down-link. The CSR sorts
	// them by source node, so port order is by creation within a node.
	for l := int32(0); l+1 < f.n; l++ {
		for w := int32(0); w < f.s; w++ {
			if l > 0 && w%f.k >= f.up0 {
				continue
			}
			child := f.index(l, w)
			ups := f.ups(l)
			dl := (w / f.pow[l]) % f.k
			for j := int32(0); j < ups; j++ {
				parent := f.index(l+1, w+(j-dl)*f.pow[l])
				f.up[child*f.k+j] = b.link(f.hosts+child, f.hosts+parent)
				f.down[parent*f.k+dl] = b.link(f.hosts+parent, f.hosts+child)
			}
		}
	}
	if int64(len(b.from)) > MaxLinks {
		return nil, errTopo("fat tree: more than %d links", MaxLinks)
	}
	g.maxHops = 2 * f.n
	g.ft = f
	g.finish(&b, f.hosts)
	return g, nil
}

// ups returns the number of up-ports of a level-l switch.
func (f *fatTree) ups(l int32) int32 {
	switch {
	case l+1 >= f.n:
		return 0
	case l == 0:
		return f.up0
	}
	return f.k
}

// index returns the switch index of word w at level l.
func (f *fatTree) index(l, w int32) int32 {
	if l == 0 {
		return w
	}
	return f.s + (l-1)*f.s1 + (w/f.k)*f.up0 + w%f.k
}

// levelIndex inverts index.
func (f *fatTree) levelIndex(sw int32) (l, w int32) {
	if sw < f.s {
		return 0, sw
	}
	sw -= f.s
	l = 1 + sw/f.s1
	c := sw % f.s1
	return l, (c/f.up0)*f.k + c%f.up0
}

func (f *fatTree) nextHop(g *Graph, v, dst int32, load []int32) int32 {
	if v < f.hosts {
		return v // host up-link
	}
	sw := v - f.hosts
	l, w := f.levelIndex(sw)
	leaf := dst / f.k
	if leaf/f.pow[l] == w/f.pow[l] { // dst below: go down
		if l == 0 {
			return f.down[sw*f.k+dst%f.k]
		}
		return f.down[sw*f.k+(leaf/f.pow[l-1])%f.k]
	}
	ups := f.ups(l)
	static := f.up[sw*f.k+(dst/f.pow[l])%f.k%ups]
	if load == nil {
		return static
	}
	return pick(f.up[sw*f.k:sw*f.k+ups], static, load)
}
