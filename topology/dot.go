package topology

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"gonum.org/v1/gonum/graph/formats/dot"
	"gonum.org/v1/gonum/graph/formats/dot/ast"
)

// MaxDotSize bounds the dot files ReadDot accepts.
const MaxDotSize = 1 << 30

// ReadDotFile reads a LogGOPSim network file; see ReadDot.
func ReadDotFile(path string) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	defer f.Close()
	return ReadDot(path, bufio.NewReader(f))
}

// ReadDot reads a network in LogGOPSim's dot format, as LogGOPSim's
// --network-file does: nodes whose name starts with H are hosts, host i
// being the i-th such node in order of first appearance (so rank i runs on
// it under the linear mapping); other nodes are switches. Every edge is a
// link of capacity 1; a node's out-links, in the order the edges appear,
// are its ports. An edge's comment attribute lists the nodes routed over
// it, separated by commas or blanks; a node with a single out-link sends
// everything over it (its comment, usually "*", is not read). The first
// out-link of a node listing a destination is its static route there;
// adaptive routing picks among all that list it.
//
// The dot language is parsed by gonum's parser
// (gonum.org/v1/gonum/graph/formats/dot): [strict] digraph [ID] { ... }
// with node, edge (a -> b -> c) and attribute statements (graph, node,
// edge [k=v, ...] and k=v), identifiers, numerals, quoted strings (with
// \") and <HTML> strings, // and /* */ comments and # lines. Subgraphs,
// ports, '+' concatenation of strings and chains of more than 100,000
// edges in one statement are not supported. As in Graphviz, a strict
// graph merges repeated edges and a plain one keeps them as parallel
// links, and an `edge [comment=...]` statement sets the comment of the
// edges made after it; an edge without a comment routes nothing.
//
// ReadDot checks that every host reaches every other host without a loop
// whatever choice adaptive routing makes, and reports the first problem
// with the position of the node or comment at fault.
func ReadDot(name string, r io.Reader) (*Graph, error) {
	src, err := io.ReadAll(io.LimitReader(r, MaxDotSize+1))
	if err != nil {
		return nil, fmt.Errorf("topology: %s: %w", name, err)
	}
	if len(src) > MaxDotSize {
		return nil, &SyntaxError{name, 1, 1, fmt.Sprintf("file larger than %d bytes", MaxDotSize)}
	}
	p, err := parseDot(name, src)
	if err != nil {
		return nil, err
	}
	return p.build()
}

// parseDot parses src into nodes and edges. gonum's parser takes 2.6 to
// 4.4 times the CPU of the hand-written one it replaced (0.26 s against
// 0.10 s for WriteDot's 22 MB file of fattree:k=16,n=3; ReadDot as a
// whole 0.89 s against 0.70 s): docs/performance.md, "Network files".
func parseDot(name string, src []byte) (*dotParser, error) {
	s := &dotSource{name: name, src: src}
	if err := s.precheck(); err != nil {
		return nil, err
	}
	if len(src) > 0 && src[len(src)-1] != '\n' {
		src = append(src, '\n') // gonum's lexer ends a // comment at a newline only
	}
	f, err := dot.ParseBytes(src)
	if err != nil {
		return nil, s.parseError(err)
	}
	p := &dotParser{src: s, nodeID: map[string]int32{}}
	if err := p.graph(f); err != nil {
		return nil, err
	}
	return p, nil
}

type dotEdge struct {
	from, to int32
	comment  string
}

// dotParser turns gonum's syntax tree into nodes and edges. The tree
// holds no positions: errors find theirs in the source (dotSource).
type dotParser struct {
	src    *dotSource
	strict bool

	nodes  []string // names, in order of first appearance
	nodeID map[string]int32
	edges  []dotEdge
	pair   map[[2]int32]int32 // strict graphs: (from, to) -> edge

	commentDefault *string // set by edge [comment=...]
}

// graph reads the statements of the file's one graph (precheck has
// rejected a second graph, undirected ones, subgraphs and ports).
func (p *dotParser) graph(f *ast.File) error {
	if len(f.Graphs) != 1 || !f.Graphs[0].Directed {
		return p.src.errAt(1, 1, "expected one digraph") // precheck's job: unreachable
	}
	g := f.Graphs[0]
	if p.strict = g.Strict; p.strict {
		p.pair = map[[2]int32]int32{}
	}
	for _, st := range g.Stmts {
		switch st := st.(type) {
		case *ast.NodeStmt:
			if _, err := p.node(st.Node); err != nil {
				return err
			}
		case *ast.EdgeStmt:
			if err := p.edgeStmt(st); err != nil {
				return err
			}
		case *ast.AttrStmt:
			if c, ok := commentAttr(st.Attrs); ok && st.Kind == ast.EdgeKind {
				p.commentDefault = &c
			}
		case *ast.Attr: // a graph attribute: ignored
		default:
			return p.src.errAt(1, 1, "unsupported statement %s", st) // precheck's job: unreachable
		}
	}
	return nil
}

// edgeStmt adds the edges of a -> b -> ... [attributes].
func (p *dotParser) edgeStmt(st *ast.EdgeStmt) error {
	from, err := p.vertex(st.From)
	if err != nil {
		return err
	}
	c, set := commentAttr(st.Attrs)
	for e := st.To; e != nil; e = e.To {
		if !e.Directed {
			return p.src.errAt(1, 1, "'--' in a digraph") // precheck's job: unreachable
		}
		to, err := p.vertex(e.Vertex)
		if err != nil {
			return err
		}
		id := p.edge(from, to)
		if set {
			p.edges[id].comment = c
		}
		from = to
	}
	return nil
}

func (p *dotParser) vertex(v ast.Vertex) (int32, error) {
	n, ok := v.(*ast.Node)
	if !ok {
		return 0, p.src.errAt(1, 1, "subgraphs are not supported") // precheck's job: unreachable
	}
	return p.node(n)
}

// node returns the index of the node n, creating it on first appearance.
func (p *dotParser) node(n *ast.Node) (int32, error) {
	if n.Port != nil {
		return 0, p.src.errAt(1, 1, "node ports are not supported") // precheck's job: unreachable
	}
	name := dotUnquote(n.ID)
	if id, ok := p.nodeID[name]; ok {
		return id, nil
	}
	id := int32(len(p.nodes))
	p.nodeID[name] = id
	p.nodes = append(p.nodes, name)
	return id, nil
}

// edge adds the edge from -> to (in a strict graph, finds it again) and
// returns its index.
func (p *dotParser) edge(from, to int32) int32 {
	if p.strict {
		if e, ok := p.pair[[2]int32{from, to}]; ok {
			return e
		}
	}
	e := dotEdge{from: from, to: to}
	if d := p.commentDefault; d != nil {
		e.comment = *d
	}
	p.edges = append(p.edges, e)
	id := int32(len(p.edges) - 1)
	if p.strict {
		p.pair[[2]int32{from, to}] = id
	}
	return id
}

// commentAttr returns the value of the last comment attribute of attrs.
func commentAttr(attrs []*ast.Attr) (string, bool) {
	for i := len(attrs) - 1; i >= 0; i-- {
		if dotUnquote(attrs[i].Key) == "comment" {
			return dotUnquote(attrs[i].Val), true
		}
	}
	return "", false
}

// dotUnquote is the value of an identifier as gonum keeps it: a quoted
// string loses its quotes and its \" escapes (gonum has removed the
// backslash-newlines), an HTML string its outer <>; other identifiers
// are their text.
func dotUnquote(id string) string {
	if len(id) >= 2 && id[0] == '<' && id[len(id)-1] == '>' {
		return id[1 : len(id)-1]
	}
	if len(id) < 2 || id[0] != '"' || id[len(id)-1] != '"' {
		return id
	}
	s := id[1 : len(id)-1]
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '\\':
			b.WriteString(`\\`)
			i++
		case s[i] == '\\' && i+2 < len(s) && s[i+1] == '\r' && s[i+2] == '\n':
			i += 2
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// build turns the parsed statements into a Graph and checks its routes.
func (p *dotParser) build() (*Graph, error) {
	if len(p.nodes) > MaxNodes || len(p.edges) > MaxLinks {
		return nil, p.src.errAt(1, 1, "more than %d nodes or %d edges", MaxNodes, MaxLinks)
	}
	g := &Graph{kind: kindDot, desc: p.src.name, numNodes: int32(len(p.nodes))}
	g.names = p.nodes
	g.nodeHost = make([]int32, len(p.nodes))
	for v, n := range p.nodes {
		g.nodeHost[v] = -1
		if strings.HasPrefix(n, "H") {
			g.nodeHost[v] = int32(len(g.hostNode))
			g.hostNode = append(g.hostNode, int32(v))
		}
	}
	if len(g.hostNode) > MaxHosts {
		return nil, p.src.errAt(1, 1, "more than %d hosts", MaxHosts)
	}
	// Links in LogGOPSim's order: node by node, each node's out-edges in
	// the order they were made.
	order := make([]int32, len(p.edges))
	for i := range order {
		order[i] = int32(i)
	}
	sort.SliceStable(order, func(i, j int) bool { return p.edges[order[i]].from < p.edges[order[j]].from })
	var b builder
	for _, e := range order {
		b.link(p.edges[e].from, p.edges[e].to)
	}
	g.finish(&b, 0)
	// Routing tables of nodes with several out-links.
	type entry struct{ dest, link int32 }
	var ents []entry
	g.rtStart = make([]int32, g.numNodes+1)
	for v := int32(0); v < g.numNodes; v++ {
		out := g.OutLinks(v)
		start := len(ents)
		if len(out) > 1 {
			for _, l := range out {
				e := &p.edges[order[l]]
				if e.comment == "*" {
					continue
				}
				for c := e.comment; ; {
					name, off, rest := nextName(c)
					if name == "" {
						break
					}
					d, ok := p.nodeID[name]
					if !ok {
						line, col := p.src.commentPos(e.comment)
						return nil, p.src.errAt(line, col, "comment names %q, which is not a node of the graph (byte %d of the comment)", name, len(e.comment)-len(c)+off+1)
					}
					ents = append(ents, entry{d, l})
					c = rest
				}
			}
			sub := ents[start:]
			sort.SliceStable(sub, func(i, j int) bool { return sub[i].dest < sub[j].dest })
		}
		g.rtStart[v+1] = int32(len(ents))
	}
	g.rtDest = make([]int32, len(ents))
	g.rtLink = make([]int32, len(ents))
	for i, e := range ents {
		g.rtDest[i], g.rtLink[i] = e.dest, e.link
	}
	if err := g.checkDotRoutes(p); err != nil {
		return nil, err
	}
	return g, nil
}

// nextName returns the first name in a routing comment, names being
// separated by commas and blanks (LogGOPSim's strtok with ", \t\n"), its
// offset in s and the rest of s after it; "" when there is none.
func nextName(s string) (name string, off int, rest string) {
	isSep := func(c byte) bool { return c == ',' || c == ' ' || c == '\t' || c == '\n' }
	i := 0
	for i < len(s) && isSep(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isSep(s[j]) {
		j++
	}
	return s[i:j], i, s[j:]
}

// routeChoices returns the out-links of node v that lead towards node
// dst: the single out-link, or the routing entries for dst.
func (g *Graph) routeChoices(v, dst int32) []int32 {
	out := g.OutLinks(v)
	if len(out) <= 1 {
		return out
	}
	lo, hi := g.rtStart[v], g.rtStart[v+1]
	i := lo + int32(sort.Search(int(hi-lo), func(i int) bool { return g.rtDest[lo+int32(i)] >= dst }))
	j := i
	for j < hi && g.rtDest[j] == dst {
		j++
	}
	return g.rtLink[i:j]
}

func (g *Graph) dotNextHop(v, dst int32, load []int32) int32 {
	c := g.routeChoices(v, g.hostNode[dst])
	if load == nil || len(c) == 1 {
		return c[0]
	}
	return pick(c, c[0], load)
}

// checkDotRoutes walks, for every destination host, the routing choices
// from every host: each must reach the destination without a loop. It
// sets maxHops to the longest route found. O(hosts × reachable links).
func (g *Graph) checkDotRoutes(p *dotParser) error {
	n := g.numNodes
	state := make([]uint8, n) // 0 new, 1 on the path, 2 done
	depth := make([]int32, n)
	type frame struct {
		v int32
		i int32 // next choice to explore
	}
	var stack []frame
	nodeErr := func(v int32, format string, args ...any) error {
		line, col := p.src.nodePos(p.nodes[v])
		return p.src.errAt(line, col, format, args...)
	}
	for _, dn := range g.hostNode {
		for i := range state {
			state[i] = 0
		}
		state[dn], depth[dn] = 2, 0
		for _, sn := range g.hostNode {
			if state[sn] == 2 {
				continue
			}
			stack = append(stack[:0], frame{sn, 0})
			state[sn] = 1
			for len(stack) > 0 {
				f := &stack[len(stack)-1]
				c := g.routeChoices(f.v, dn)
				if len(c) == 0 {
					if len(g.OutLinks(f.v)) == 0 {
						return nodeErr(f.v, "node %s has no out-edge, needed by the route from %s to %s", g.names[f.v], g.names[sn], g.names[dn])
					}
					return nodeErr(f.v, "node %s has %d out-edges and none whose comment lists %s (needed by the route from %s)", g.names[f.v], len(g.OutLinks(f.v)), g.names[dn], g.names[sn])
				}
				if f.i < int32(len(c)) {
					w := g.to[c[f.i]]
					f.i++
					switch state[w] {
					case 1:
						return nodeErr(w, "routing loop towards %s through node %s (from %s)", g.names[dn], g.names[w], g.names[sn])
					case 0:
						state[w] = 1
						stack = append(stack, frame{w, 0})
					}
					continue
				}
				d := int32(0)
				for _, l := range c {
					d = max(d, depth[g.to[l]]+1)
				}
				depth[f.v], state[f.v] = d, 2
				g.maxHops = max(g.maxHops, d)
				stack = stack[:len(stack)-1]
			}
		}
	}
	return nil
}
