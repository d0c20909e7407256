package topology

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
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
// The dot subset read: [strict] digraph [ID] { ... } with node, edge
// (a -> b -> c) and attribute statements (graph, node, edge [k=v, ...]
// and k=v), identifiers, numerals, quoted strings (with \" and +
// concatenation) and <HTML> strings, // and /* */ comments and # lines.
// Subgraphs and ports are not supported. As in Graphviz, a strict graph
// merges repeated edges and a plain one keeps them as parallel links, and
// an `edge [comment=...]` statement sets the comment of the edges made
// after it; an edge without a comment routes nothing.
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
	p := dotParser{lex: dotLexer{name: name, src: src, line: 1, col: 1}, nodeID: map[string]int32{}}
	if err := p.parse(); err != nil {
		return nil, err
	}
	return p.build()
}

type tokKind uint8

const (
	tEOF tokKind = iota
	tID
	tLBrace
	tRBrace
	tLBrack
	tRBrack
	tEq
	tSemi
	tComma
	tColon
	tArrow // ->
	tUndir // --
)

func (k tokKind) String() string {
	return [...]string{"end of file", "identifier", "'{'", "'}'", "'['", "']'", "'='", "';'", "','", "':'", "'->'", "'--'"}[k]
}

type token struct {
	kind      tokKind
	text      string
	quoted    bool // a quoted or HTML string: never a keyword
	line, col int
}

type dotLexer struct {
	name      string
	src       []byte
	pos       int
	line, col int
}

func (x *dotLexer) errAt(line, col int, format string, args ...any) error {
	return &SyntaxError{x.name, line, col, fmt.Sprintf(format, args...)}
}

func (x *dotLexer) advance() {
	if x.src[x.pos] == '\n' {
		x.line++
		x.col = 1
	} else {
		x.col++
	}
	x.pos++
}

func (x *dotLexer) peekByte(off int) byte {
	if x.pos+off < len(x.src) {
		return x.src[x.pos+off]
	}
	return 0
}

// skip skips blanks and comments.
func (x *dotLexer) skip() error {
	for x.pos < len(x.src) {
		c := x.src[x.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			x.advance()
		case c == '#' && x.col == 1:
			for x.pos < len(x.src) && x.src[x.pos] != '\n' {
				x.advance()
			}
		case c == '/' && x.peekByte(1) == '/':
			for x.pos < len(x.src) && x.src[x.pos] != '\n' {
				x.advance()
			}
		case c == '/' && x.peekByte(1) == '*':
			line, col := x.line, x.col
			x.advance()
			x.advance()
			for {
				if x.pos >= len(x.src) {
					return x.errAt(line, col, "comment not closed")
				}
				if x.src[x.pos] == '*' && x.peekByte(1) == '/' {
					x.advance()
					x.advance()
					break
				}
				x.advance()
			}
		default:
			return nil
		}
	}
	return nil
}

func singleTok(c byte) tokKind {
	switch c {
	case '{':
		return tLBrace
	case '}':
		return tRBrace
	case '[':
		return tLBrack
	case ']':
		return tRBrack
	case '=':
		return tEq
	case ';':
		return tSemi
	case ',':
		return tComma
	case ':':
		return tColon
	}
	return tEOF
}

func isIDStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (x *dotLexer) next() (token, error) {
	if err := x.skip(); err != nil {
		return token{}, err
	}
	t := token{line: x.line, col: x.col}
	if x.pos >= len(x.src) {
		return t, nil
	}
	c := x.src[x.pos]
	if k := singleTok(c); k != tEOF {
		x.advance()
		t.kind = k
		return t, nil
	}
	switch {
	case c == '-' && x.peekByte(1) == '>':
		x.advance()
		x.advance()
		t.kind = tArrow
		return t, nil
	case c == '-' && x.peekByte(1) == '-':
		x.advance()
		x.advance()
		t.kind = tUndir
		return t, nil
	case isIDStart(c):
		start := x.pos
		for x.pos < len(x.src) && (isIDStart(x.src[x.pos]) || isDigit(x.src[x.pos])) {
			x.advance()
		}
		t.kind, t.text = tID, string(x.src[start:x.pos])
		return t, nil
	case isDigit(c) || c == '.' || c == '-':
		start := x.pos
		if c == '-' {
			x.advance()
		}
		digits, dot := 0, false
		for x.pos < len(x.src) {
			d := x.src[x.pos]
			if isDigit(d) {
				digits++
			} else if d == '.' && !dot {
				dot = true
			} else {
				break
			}
			x.advance()
		}
		if digits == 0 {
			return t, x.errAt(t.line, t.col, "malformed number %q", x.src[start:x.pos])
		}
		if x.pos < len(x.src) && isIDStart(x.src[x.pos]) {
			return t, x.errAt(x.line, x.col, "letter after the number %q (quote the name)", x.src[start:x.pos])
		}
		t.kind, t.text = tID, string(x.src[start:x.pos])
		return t, nil
	case c == '"':
		var sb strings.Builder
		for {
			if err := x.quoted(&sb); err != nil {
				return t, err
			}
			// "a" + "b" concatenates.
			save, sl, sc := x.pos, x.line, x.col
			if err := x.skip(); err != nil {
				return t, err
			}
			if x.pos < len(x.src) && x.src[x.pos] == '+' {
				x.advance()
				if err := x.skip(); err != nil {
					return t, err
				}
				if x.pos >= len(x.src) || x.src[x.pos] != '"' {
					return t, x.errAt(x.line, x.col, "'+' must be followed by a quoted string")
				}
				continue
			}
			x.pos, x.line, x.col = save, sl, sc
			break
		}
		t.kind, t.text, t.quoted = tID, sb.String(), true
		return t, nil
	case c == '<':
		depth := 0
		start := x.pos
		for {
			if x.pos >= len(x.src) {
				return t, x.errAt(t.line, t.col, "HTML string not closed")
			}
			switch x.src[x.pos] {
			case '<':
				depth++
			case '>':
				depth--
			}
			x.advance()
			if depth == 0 {
				break
			}
		}
		t.kind, t.text, t.quoted = tID, string(x.src[start+1:x.pos-1]), true
		return t, nil
	}
	return t, x.errAt(t.line, t.col, "unexpected character %q", c)
}

// quoted reads one "..." string into sb: \" is a quote, a backslash before
// a newline continues the line, other backslashes stay.
func (x *dotLexer) quoted(sb *strings.Builder) error {
	line, col := x.line, x.col
	x.advance()
	for {
		if x.pos >= len(x.src) {
			return x.errAt(line, col, "string not closed")
		}
		c := x.src[x.pos]
		if c == '"' {
			x.advance()
			return nil
		}
		if c == '\\' && x.peekByte(1) == '"' {
			sb.WriteByte('"')
			x.advance()
			x.advance()
			continue
		}
		if c == '\\' && x.peekByte(1) == '\n' {
			x.advance()
			x.advance()
			continue
		}
		if c == '\\' && x.peekByte(1) == '\r' && x.peekByte(2) == '\n' {
			x.advance()
			x.advance()
			x.advance()
			continue
		}
		sb.WriteByte(c)
		x.advance()
	}
}

type dotNode struct {
	name      string
	line, col int
}

type dotEdge struct {
	from, to    int32
	comment     string
	line, col   int // the edge operator
	cline, ccol int // the comment value, or the edge operator
}

type dotParser struct {
	lex    dotLexer
	tok    token
	strict bool

	nodes  []dotNode
	nodeID map[string]int32
	edges  []dotEdge
	pair   map[[2]int32]int32 // strict graphs: (from, to) -> edge

	commentDefault attrComment // set by edge [comment=...]
}

func (p *dotParser) advance() error {
	t, err := p.lex.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *dotParser) errHere(format string, args ...any) error {
	return p.lex.errAt(p.tok.line, p.tok.col, format, args...)
}

func (p *dotParser) describe() string {
	if p.tok.kind == tID {
		return fmt.Sprintf("%q", p.tok.text)
	}
	return p.tok.kind.String()
}

func (p *dotParser) keyword(kw string) bool {
	return p.tok.kind == tID && !p.tok.quoted && strings.EqualFold(p.tok.text, kw)
}

func (p *dotParser) expect(k tokKind) error {
	if p.tok.kind != k {
		return p.errHere("expected %s, found %s", k, p.describe())
	}
	return p.advance()
}

func (p *dotParser) parse() error {
	if err := p.advance(); err != nil {
		return err
	}
	if p.keyword("strict") {
		p.strict = true
		p.pair = map[[2]int32]int32{}
		if err := p.advance(); err != nil {
			return err
		}
	}
	if p.keyword("graph") {
		return p.errHere("undirected graph: LogGOPSim's network files are digraphs")
	}
	if !p.keyword("digraph") {
		return p.errHere("expected digraph, found %s", p.describe())
	}
	if err := p.advance(); err != nil {
		return err
	}
	if p.tok.kind == tID {
		if err := p.advance(); err != nil {
			return err
		}
	}
	if err := p.expect(tLBrace); err != nil {
		return err
	}
	for p.tok.kind != tRBrace {
		if p.tok.kind == tEOF {
			return p.errHere("graph not closed: expected '}'")
		}
		if err := p.stmt(); err != nil {
			return err
		}
		if p.tok.kind == tSemi {
			if err := p.advance(); err != nil {
				return err
			}
		}
	}
	if err := p.advance(); err != nil {
		return err
	}
	if p.tok.kind != tEOF {
		return p.errHere("unexpected %s after the graph (one graph per file)", p.describe())
	}
	return nil
}

func (p *dotParser) stmt() error {
	t := p.tok
	switch {
	case t.kind == tLBrace || p.keyword("subgraph"):
		return p.errHere("subgraphs are not supported")
	case p.keyword("graph") || p.keyword("node") || p.keyword("edge"):
		kind := strings.ToLower(t.text)
		if err := p.advance(); err != nil {
			return err
		}
		if p.tok.kind != tLBrack {
			return p.errHere("expected '[' after %s, found %s", kind, p.describe())
		}
		var c attrComment
		if err := p.attrs(&c); err != nil {
			return err
		}
		if kind == "edge" && c.set {
			p.commentDefault = attrComment{true, c.value, c.line, c.col}
		}
		return nil
	case t.kind != tID:
		return p.errHere("expected a statement, found %s", p.describe())
	}
	if err := p.advance(); err != nil {
		return err
	}
	if p.tok.kind == tEq { // graph attribute ID = ID
		if err := p.advance(); err != nil {
			return err
		}
		if p.tok.kind != tID {
			return p.errHere("expected a value after '=', found %s", p.describe())
		}
		return p.advance()
	}
	if p.tok.kind == tColon {
		return p.errHere("node ports are not supported")
	}
	from := p.node(t)
	if p.tok.kind == tUndir {
		return p.errHere("'--' in a digraph: edges are written a -> b")
	}
	if p.tok.kind != tArrow {
		if p.tok.kind == tLBrack {
			var c attrComment
			return p.attrs(&c)
		}
		return nil
	}
	var made []int32
	for p.tok.kind == tArrow {
		op := p.tok
		if err := p.advance(); err != nil {
			return err
		}
		if p.tok.kind == tLBrace || p.keyword("subgraph") {
			return p.errHere("subgraphs are not supported")
		}
		if p.tok.kind != tID || p.keyword("node") || p.keyword("edge") || p.keyword("graph") {
			return p.errHere("expected a node after '->', found %s", p.describe())
		}
		nt := p.tok
		if err := p.advance(); err != nil {
			return err
		}
		if p.tok.kind == tColon {
			return p.errHere("node ports are not supported")
		}
		to := p.node(nt)
		made = append(made, p.edge(from, to, op))
		from = to
	}
	if p.tok.kind == tUndir {
		return p.errHere("'--' in a digraph: edges are written a -> b")
	}
	if p.tok.kind == tLBrack {
		var c attrComment
		if err := p.attrs(&c); err != nil {
			return err
		}
		if c.set {
			for _, e := range made {
				p.edges[e].comment = c.value
				p.edges[e].cline, p.edges[e].ccol = c.line, c.col
			}
		}
	}
	return nil
}

// node returns the index of the node named by t, creating it on first
// appearance.
func (p *dotParser) node(t token) int32 {
	if id, ok := p.nodeID[t.text]; ok {
		return id
	}
	id := int32(len(p.nodes))
	p.nodeID[t.text] = id
	p.nodes = append(p.nodes, dotNode{t.text, t.line, t.col})
	return id
}

func (p *dotParser) edge(from, to int32, op token) int32 {
	if p.strict {
		if e, ok := p.pair[[2]int32{from, to}]; ok {
			return e
		}
	}
	e := dotEdge{from: from, to: to, line: op.line, col: op.col, cline: op.line, ccol: op.col}
	if d := p.commentDefault; d.set {
		e.comment, e.cline, e.ccol = d.value, d.line, d.col
	}
	p.edges = append(p.edges, e)
	id := int32(len(p.edges) - 1)
	if p.strict {
		p.pair[[2]int32{from, to}] = id
	}
	return id
}

type attrComment struct {
	set       bool
	value     string
	line, col int
}

// attrs reads one or more [k=v, ...] lists, keeping the last comment.
func (p *dotParser) attrs(c *attrComment) error {
	for p.tok.kind == tLBrack {
		if err := p.advance(); err != nil {
			return err
		}
		for p.tok.kind != tRBrack {
			if p.tok.kind != tID {
				return p.errHere("expected an attribute name or ']', found %s", p.describe())
			}
			key := p.tok.text
			if err := p.advance(); err != nil {
				return err
			}
			if err := p.expect(tEq); err != nil {
				return err
			}
			if p.tok.kind != tID {
				return p.errHere("expected a value for %s, found %s", key, p.describe())
			}
			if key == "comment" {
				*c = attrComment{true, p.tok.text, p.tok.line, p.tok.col}
			}
			if err := p.advance(); err != nil {
				return err
			}
			if p.tok.kind == tComma || p.tok.kind == tSemi {
				if err := p.advance(); err != nil {
					return err
				}
			}
		}
		if err := p.advance(); err != nil {
			return err
		}
	}
	return nil
}

// build turns the parsed statements into a Graph and checks its routes.
func (p *dotParser) build() (*Graph, error) {
	if len(p.nodes) > MaxNodes || len(p.edges) > MaxLinks {
		return nil, p.lex.errAt(1, 1, "more than %d nodes or %d edges", MaxNodes, MaxLinks)
	}
	g := &Graph{kind: kindDot, desc: p.lex.name, numNodes: int32(len(p.nodes))}
	g.names = make([]string, len(p.nodes))
	g.nodeHost = make([]int32, len(p.nodes))
	for v, n := range p.nodes {
		g.names[v] = n.name
		g.nodeHost[v] = -1
		if strings.HasPrefix(n.name, "H") {
			g.nodeHost[v] = int32(len(g.hostNode))
			g.hostNode = append(g.hostNode, int32(v))
		}
	}
	if len(g.hostNode) > MaxHosts {
		return nil, p.lex.errAt(1, 1, "more than %d hosts", MaxHosts)
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
						return nil, p.lex.errAt(e.cline, e.ccol, "comment names %q, which is not a node of the graph (byte %d of the comment)", name, len(e.comment)-len(c)+off+1)
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
		nd := p.nodes[v]
		return p.lex.errAt(nd.line, nd.col, format, args...)
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
