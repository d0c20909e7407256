package topology

import "fmt"

// dragonfly is Kim, Dally, Scott and Abts' dragonfly: g groups of a
// routers, p hosts per router, h global links per router, the routers of a
// group fully connected by local links. Router R is in group R/a; host x
// sits on router x/p.
//
// Global links follow the "relative" arrangement: global port q of group
// i (port q mod h of router q/h in the group) leads to group
// i + 1 + q mod (g-1), to the port q' of that group in the same round of
// g-1 ports (q' = q - q mod (g-1) + g-2 - q mod (g-1)), whose link leads
// back. With g = a·h+1 every pair of groups has exactly one link; with
// fewer groups some pairs have several, and a port whose partner would be
// beyond a·h stays unconnected.
type dragonfly struct {
	a, p, h, g int32
	hosts      int32
	routers    int32
	local      []int32 // local[R*a+j]: link from R to router j of its group, -1 for j = R's own index
	pairStart  []int32 // global links from group i to group j: pairLinks[pairStart[i*g+j]:pairStart[i*g+j+1]]
	pairLinks  []int32
}

// Dragonfly builds a dragonfly of g groups of a routers with p hosts and h
// global links each; g must be at most a·h+1 so that every pair of groups
// is linked (g = 0 means a·h+1). Static routing is minimal: within a
// group the local link; between groups the router's own global link to
// the destination group if it has one (the (R_dst mod count)-th if
// several), otherwise a local hop to the router owning global link
// number R_dst mod count between the two groups; then a local hop to the
// destination router.
func Dragonfly(a, p, h, g int) (*Graph, error) {
	if a < 1 || p < 1 || h < 0 {
		return nil, errTopo("dragonfly: a=%d, p=%d, h=%d (want a, p at least 1, h at least 0)", a, p, h)
	}
	if g == 0 {
		g = a*h + 1
	}
	if g < 1 || g > a*h+1 {
		return nil, errTopo("dragonfly: g=%d groups with a·h=%d global ports per group (want 1 <= g <= a·h+1 = %d)", g, a*h, a*h+1)
	}
	if int64(a)*int64(p)*int64(g) > MaxHosts || int64(a)*int64(g)*int64(a+h) > MaxLinks {
		return nil, errTopo("dragonfly: a=%d, p=%d, h=%d, g=%d is too large", a, p, h, g)
	}
	d := dragonfly{a: int32(a), p: int32(p), h: int32(h), g: int32(g)}
	d.routers = d.a * d.g
	d.hosts = d.routers * d.p
	gr := &Graph{kind: kindDragonfly, numNodes: d.hosts + d.routers}
	gr.desc = fmt.Sprintf("dragonfly:a=%d,p=%d,h=%d,g=%d", a, p, h, g)
	var b builder
	for x := int32(0); x < d.hosts; x++ {
		b.link(x, d.hosts+x/d.p)
	}
	for x := int32(0); x < d.hosts; x++ {
		b.link(d.hosts+x/d.p, x)
	}
	d.local = make([]int32, int(d.routers)*a)
	for R := int32(0); R < d.routers; R++ {
		base := R / d.a * d.a
		for j := int32(0); j < d.a; j++ {
			if base+j == R {
				d.local[R*d.a+j] = -1
				continue
			}
			d.local[R*d.a+j] = b.link(d.hosts+R, d.hosts+base+j)
		}
	}
	// Global links, group by group, port by port.
	type glink struct{ i, j, l int32 }
	var gl []glink
	if d.g > 1 {
		ports := d.a * d.h
		m := d.g - 1
		for i := int32(0); i < d.g; i++ {
			for q := int32(0); q < ports; q++ {
				j := (i + 1 + q%m) % d.g
				q2 := q - q%m + m - 1 - q%m
				if q2 >= ports {
					continue
				}
				from := d.hosts + i*d.a + q/d.h
				to := d.hosts + j*d.a + q2/d.h
				gl = append(gl, glink{i, j, b.link(from, to)})
			}
		}
	}
	d.pairStart = make([]int32, int(d.g)*int(d.g)+1)
	for _, x := range gl {
		d.pairStart[x.i*d.g+x.j+1]++
	}
	for i := 1; i < len(d.pairStart); i++ {
		d.pairStart[i] += d.pairStart[i-1]
	}
	d.pairLinks = make([]int32, len(gl))
	next := make([]int32, len(d.pairStart))
	copy(next, d.pairStart)
	for _, x := range gl { // in port order within each pair
		d.pairLinks[next[x.i*d.g+x.j]] = x.l
		next[x.i*d.g+x.j]++
	}
	gr.maxHops = 5
	gr.df = d
	gr.finish(&b, d.hosts)
	return gr, nil
}

func (d *dragonfly) nextHop(gr *Graph, v, dst int32, load []int32) int32 {
	if v < d.hosts {
		return v
	}
	R := v - d.hosts
	Rd := dst / d.p
	if R == Rd {
		return d.hosts + dst
	}
	G, Gd := R/d.a, Rd/d.a
	if G == Gd {
		return d.local[R*d.a+Rd%d.a]
	}
	links := d.pairLinks[d.pairStart[G*d.g+Gd]:d.pairStart[G*d.g+Gd+1]]
	own := int32(0)
	for _, l := range links {
		if gr.from[l] == v {
			own++
		}
	}
	if own > 0 {
		// Strictly minimal: leave the group from here.
		k := Rd % own
		static := int32(-1)
		for _, l := range links {
			if gr.from[l] == v {
				if k == 0 {
					static = l
					break
				}
				k--
			}
		}
		if load == nil || own == 1 {
			return static
		}
		best, bl := static, load[static]
		for _, l := range links {
			if gr.from[l] == v && load[l] < bl {
				best, bl = l, load[l]
			}
		}
		return best
	}
	owner := gr.from[links[Rd%int32(len(links))]] - d.hosts
	static := d.local[R*d.a+owner%d.a]
	if load == nil {
		return static
	}
	best, bl := static, load[static]
	for _, l := range links {
		c := d.local[R*d.a+(gr.from[l]-d.hosts)%d.a]
		if load[c] < bl {
			best, bl = c, load[c]
		}
	}
	return best
}
