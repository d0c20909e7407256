package topology

import (
	"fmt"
	"strconv"
)

// Limits on generated and read topologies: node, link and host indices are
// int32, and a graph this size already takes hundreds of MB.
const (
	MaxHosts = 1 << 24
	MaxNodes = 1 << 25
	MaxLinks = 1 << 28
)

type kind uint8

const (
	kindDot kind = iota
	kindFatTree
	kindTorus
	kindDragonfly
)

// Graph is a network: hosts and switches (nodes), directed links between
// them, and the routing function that picks, at a node, the link towards a
// destination host. Hosts are numbered 0..NumHosts()-1, nodes
// 0..NumNodes()-1, links 0..NumLinks()-1; routes are lists of link
// indices. A Graph is read-only once built and safe for concurrent use.
type Graph struct {
	kind kind
	desc string // the spec it was generated from, or the file it was read from

	numNodes int32
	hostNode []int32 // host -> node
	nodeHost []int32 // node -> host, or -1 for a switch

	from, to []int32   // per link
	capacity []float64 // per link, relative to Options.Bandwidth (1 unless a generator says otherwise)
	outStart []int32   // CSR: the out-links of node v are outLinks[outStart[v]:outStart[v+1]]
	outLinks []int32
	maxHops  int32 // longest route, links

	names []string // node names (dot); generated graphs name nodes on demand

	// Dot routing tables: for a node with more than one out-link, the
	// entries (destination node, link) sorted by destination, stable, so
	// the first entry of a destination is the one LogGOPSim uses.
	rtStart []int32
	rtDest  []int32
	rtLink  []int32

	ft  fatTree
	to3 torus
	df  dragonfly
}

// NumHosts returns the number of hosts.
func (g *Graph) NumHosts() int { return len(g.hostNode) }

// NumNodes returns the number of nodes, hosts and switches.
func (g *Graph) NumNodes() int { return int(g.numNodes) }

// NumLinks returns the number of directed links.
func (g *Graph) NumLinks() int { return len(g.from) }

// MaxHops returns the length in links of the longest route between two
// hosts (static or adaptive); a route buffer of this capacity never grows.
func (g *Graph) MaxHops() int { return int(g.maxHops) }

// String returns the spec or the file the graph came from.
func (g *Graph) String() string { return g.desc }

// HostNode returns the node of host h.
func (g *Graph) HostNode(h int32) int32 { return g.hostNode[h] }

// NodeHost returns the host index of node v, or -1 if v is a switch.
func (g *Graph) NodeHost(v int32) int32 { return g.nodeHost[v] }

// Link returns the endpoints of link l.
func (g *Graph) Link(l int32) (from, to int32) { return g.from[l], g.to[l] }

// Capacity returns the capacity of link l relative to the network's base
// bandwidth (1 for every link the generators and the dot reader make).
func (g *Graph) Capacity(l int32) float64 { return g.capacity[l] }

// OutLinks returns the links leaving node v, in port order. The slice is
// the graph's own: do not modify it.
func (g *Graph) OutLinks(v int32) []int32 { return g.outLinks[g.outStart[v]:g.outStart[v+1]] }

// Attach returns the node host h's first link leads to: its leaf switch
// or router. Round-robin mapping deals ranks over these.
func (g *Graph) Attach(h int32) int32 {
	out := g.OutLinks(g.hostNode[h])
	if len(out) == 0 {
		return g.hostNode[h]
	}
	return g.to[out[0]]
}

// NodeName returns the name of node v: its dot name, or for generated
// graphs H<host> for hosts, S<level>.<index> for fat-tree switches and
// R<index> for torus and dragonfly routers.
func (g *Graph) NodeName(v int32) string {
	if g.names != nil {
		return g.names[v]
	}
	if h := g.nodeHost[v]; h >= 0 {
		return "H" + strconv.Itoa(int(h))
	}
	sw := v - int32(len(g.hostNode))
	if g.kind == kindFatTree {
		l, w := g.ft.levelIndex(sw)
		return "S" + strconv.Itoa(int(l)) + "." + strconv.Itoa(int(w))
	}
	return "R" + strconv.Itoa(int(sw))
}

// LinkName returns "FROM->TO" for link l.
func (g *Graph) LinkName(l int32) string {
	return g.NodeName(g.from[l]) + "->" + g.NodeName(g.to[l])
}

// Route appends to buf the links of the static route from host src to
// host dst and returns the extended slice; src == dst gives no links.
// Static routes are destination-based: the dot file's comments, d-mod-k on
// fat trees, dimension order on tori, minimal on dragonflies.
func (g *Graph) Route(buf []int32, src, dst int32) []int32 {
	return g.route(buf, src, dst, nil)
}

// RouteAdaptive is Route with minimal adaptive routing: at every node
// that offers several minimal next hops, the link with the smallest
// load[link] (for example the number of messages in flight on it); ties go
// to the static choice, then to the first candidate in port order.
func (g *Graph) RouteAdaptive(buf []int32, src, dst int32, load []int32) []int32 {
	return g.route(buf, src, dst, load)
}

func (g *Graph) route(buf []int32, src, dst int32, load []int32) []int32 {
	v, end := g.hostNode[src], g.hostNode[dst]
	for hops := int32(0); v != end; hops++ {
		if hops >= g.maxHops {
			// Unreachable for a validated graph; stop rather than loop.
			panic(fmt.Sprintf("topology: route from host %d to host %d longer than %d links", src, dst, g.maxHops))
		}
		l := g.nextHop(v, dst, load)
		buf = append(buf, l)
		v = g.to[l]
	}
	return buf
}

// nextHop returns the link node v takes towards host dst (v is not dst's
// node). load == nil means static routing.
func (g *Graph) nextHop(v, dst int32, load []int32) int32 {
	switch g.kind {
	case kindFatTree:
		return g.ft.nextHop(g, v, dst, load)
	case kindTorus:
		return g.to3.nextHop(g, v, dst, load)
	case kindDragonfly:
		return g.df.nextHop(g, v, dst, load)
	}
	return g.dotNextHop(v, dst, load)
}

// pick returns the candidate with the smallest load, ties to static, then
// to the earliest. cands is not empty.
func pick(cands []int32, static int32, load []int32) int32 {
	best := static
	bl := load[static]
	for _, c := range cands {
		if load[c] < bl {
			best, bl = c, load[c]
		}
	}
	return best
}

// builder collects links while a generator or the dot reader runs.
type builder struct {
	from, to []int32
}

func (b *builder) link(from, to int32) int32 {
	b.from = append(b.from, from)
	b.to = append(b.to, to)
	return int32(len(b.from) - 1)
}

// finish installs the links, builds the out-link lists (a node's ports in
// the order its links were made) and, for generated graphs, whose hosts
// are nodes 0..hosts-1, the host tables.
func (g *Graph) finish(b *builder, hosts int32) {
	g.from, g.to = b.from, b.to
	g.capacity = make([]float64, len(g.from))
	for i := range g.capacity {
		g.capacity[i] = 1
	}
	if g.hostNode == nil {
		g.hostNode = make([]int32, hosts)
		g.nodeHost = make([]int32, g.numNodes)
		for v := range g.nodeHost {
			g.nodeHost[v] = -1
		}
		for h := int32(0); h < hosts; h++ {
			g.hostNode[h] = h
			g.nodeHost[h] = h
		}
	}
	g.outStart = make([]int32, g.numNodes+1)
	for _, f := range g.from {
		g.outStart[f+1]++
	}
	for v := int32(0); v < g.numNodes; v++ {
		g.outStart[v+1] += g.outStart[v]
	}
	g.outLinks = make([]int32, len(g.from))
	next := make([]int32, g.numNodes)
	copy(next, g.outStart[:g.numNodes])
	for l, f := range g.from {
		g.outLinks[next[f]] = int32(l)
		next[f]++
	}
}
