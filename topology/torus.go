package topology

import (
	"fmt"
	"strconv"
	"strings"
)

// torus is a 1-, 2- or 3-dimensional torus of routers with p hosts each.
// Router r has coordinates (r mod d0, r/d0 mod d1, r/(d0 d1)); host h sits
// on router h/p. Each router has a + and a - link per dimension to its
// neighbours (wrapping around); a dimension of size 2 has only the + link,
// a dimension of size 1 none.
type torus struct {
	nd      int32
	dims    [3]int32
	stride  [3]int32
	p       int32
	hosts   int32
	routers int32
	// dim[r*6+2d] is router r's + link in dimension d, dim[r*6+2d+1] its
	// - link; -1 if absent. Host h's up-link is link h, its router's
	// down-link to it link hosts+h.
	dim []int32
}

// Torus builds a torus with the given dimension sizes (one to three of
// them) and p hosts per router. Static routing is dimension order: the
// lowest dimension first, each in its shorter direction (+ on a tie).
func Torus(dims []int, p int) (*Graph, error) {
	if len(dims) < 1 || len(dims) > 3 {
		return nil, errTopo("torus: %d dimensions (want 1 to 3)", len(dims))
	}
	if p < 1 {
		return nil, errTopo("torus: p=%d hosts per router (want at least 1)", p)
	}
	t := torus{nd: int32(len(dims)), p: int32(p)}
	routers := int64(1)
	for i, d := range dims {
		if d < 1 {
			return nil, errTopo("torus: dimension %d has size %d (want at least 1)", i, d)
		}
		routers *= int64(d)
		if routers*int64(p) > MaxHosts {
			return nil, errTopo("torus: more than %d hosts", MaxHosts)
		}
		t.dims[i] = int32(d)
	}
	for i := len(dims); i < 3; i++ {
		t.dims[i] = 1
	}
	t.stride[0] = 1
	t.stride[1] = t.dims[0]
	t.stride[2] = t.dims[0] * t.dims[1]
	t.routers = int32(routers)
	t.hosts = t.routers * t.p
	g := &Graph{kind: kindTorus, numNodes: t.hosts + t.routers}
	parts := make([]string, len(dims))
	for i, d := range dims {
		parts[i] = strconv.Itoa(d)
	}
	g.desc = "torus:" + strings.Join(parts, "x")
	if p != 1 {
		g.desc += fmt.Sprintf(",p=%d", p)
	}
	var b builder
	for h := int32(0); h < t.hosts; h++ {
		b.link(h, t.hosts+h/t.p)
	}
	for h := int32(0); h < t.hosts; h++ {
		b.link(t.hosts+h/t.p, h)
	}
	t.dim = make([]int32, 6*int(t.routers))
	for i := range t.dim {
		t.dim[i] = -1
	}
	hops := int32(2)
	for d := int32(0); d < t.nd; d++ {
		hops += t.dims[d] / 2
	}
	for r := int32(0); r < t.routers; r++ {
		for d := int32(0); d < t.nd; d++ {
			size := t.dims[d]
			if size == 1 {
				continue
			}
			c := (r / t.stride[d]) % size
			plus := r + ((c+1)%size-c)*t.stride[d]
			t.dim[r*6+2*d] = b.link(t.hosts+r, t.hosts+plus)
			if size > 2 {
				minus := r + ((c+size-1)%size-c)*t.stride[d]
				t.dim[r*6+2*d+1] = b.link(t.hosts+r, t.hosts+minus)
			}
		}
	}
	g.maxHops = hops
	g.to3 = t
	g.finish(&b, t.hosts)
	return g, nil
}

func (t *torus) nextHop(g *Graph, v, dst int32, load []int32) int32 {
	if v < t.hosts {
		return v
	}
	r := v - t.hosts
	rd := dst / t.p
	if r == rd {
		return t.hosts + dst
	}
	static := int32(-1)
	var cands [6]int32
	nc := 0
	for d := int32(0); d < t.nd; d++ {
		size := t.dims[d]
		off := ((rd/t.stride[d])%size - (r/t.stride[d])%size + size) % size
		if off == 0 {
			continue
		}
		plus, minus := t.dim[r*6+2*d], t.dim[r*6+2*d+1]
		if size == 2 {
			minus = -1
		}
		var first int32
		switch {
		case 2*off < size:
			first, minus = plus, -1
		case 2*off > size:
			first, plus = minus, -1
		default: // a tie: both ways are minimal, + is the static one
			first = plus
		}
		if static < 0 {
			static = first
			if load == nil {
				return static
			}
		}
		if plus >= 0 {
			cands[nc] = plus
			nc++
		}
		if minus >= 0 {
			cands[nc] = minus
			nc++
		}
	}
	return pick(cands[:nc], static, load)
}
