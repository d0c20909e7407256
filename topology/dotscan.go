package topology

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gopsim/gopsim/internal/excerpt"
)

// gonum's dot parser (see ReadDot) gives a syntax tree without positions,
// reports columns counting a tab as 4 and a rune as 1, puts the whole of
// an unclosed string or comment into its message, and checks an edge chain
// a -> b -> c ... recursively, one stack frame per edge. dotSource keeps
// ReadDot's errors at FILE:LINE:byte column and its input from crashing
// the process: before gonum parses, precheck scans the tokens once for
// what gonum would report badly or not survive; after, a rejected node or
// comment finds its position by scanning again (errors only).

// maxDotChain bounds the edges of one statement (a -> b -> c ...). With
// Go's 1 GiB stack limit, gonum's recursive check kills the process (a
// fatal error, which recover cannot catch) somewhere between 6.4 and 12.8
// million edges in one chain, a file of 20 to 40 MB: measured with a
// 64 MiB stack (debug.SetMaxStack), a chain of 400,000 edges passes and
// one of 800,000 dies. No network file chains more than a few edges.
const maxDotChain = 100_000

// dotSource is a dot file's text, for positions.
type dotSource struct {
	name string
	src  []byte
}

func (s *dotSource) errAt(line, col int, format string, args ...any) error {
	return &SyntaxError{s.name, line, col, fmt.Sprintf(format, args...)}
}

// dotTok is a token: its text as written (a quoted string with its
// quotes) and where it starts. An identifier, numeral, quoted or HTML
// string is an id; "->" and "--" are edge operators; any other token is
// one byte.
type dotTok struct {
	text      []byte
	id        bool
	line, col int
}

func (t dotTok) is(s string) bool { return !t.id && string(t.text) == s }

// keyword reports whether t is the keyword kw (in any case, unquoted).
func (t dotTok) keyword(kw string) bool {
	return t.id && t.text[0] != '"' && t.text[0] != '<' && strings.EqualFold(string(t.text), kw)
}

// dotScanner splits a dot file into tokens, as gonum's lexer does.
type dotScanner struct {
	*dotSource
	pos, line, col int
}

func (x *dotScanner) advance(n int) {
	for ; n > 0 && x.pos < len(x.src); n-- {
		if x.src[x.pos] == '\n' {
			x.line, x.col = x.line+1, 0
		}
		x.pos++
		x.col++
	}
}

func (x *dotScanner) at(off int) byte {
	if x.pos+off < len(x.src) {
		return x.src[x.pos+off]
	}
	return 0
}

// skip skips blanks and comments.
func (x *dotScanner) skip() error {
	for x.pos < len(x.src) {
		switch c := x.src[x.pos]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v':
			x.advance(1)
		case c == '#' || c == '/' && x.at(1) == '/':
			for x.pos < len(x.src) && x.src[x.pos] != '\n' {
				x.advance(1)
			}
		case c == '/' && x.at(1) == '*':
			line, col := x.line, x.col
			end := bytes.Index(x.src[x.pos+2:], []byte("*/"))
			if end < 0 {
				return x.errAt(line, col, "comment not closed")
			}
			x.advance(end + 4)
		default:
			return nil
		}
	}
	return nil
}

func isIDStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// next returns the next token; its text is empty at the end of the file.
func (x *dotScanner) next() (dotTok, error) {
	if err := x.skip(); err != nil {
		return dotTok{}, err
	}
	t := dotTok{line: x.line, col: x.col, id: true}
	start := x.pos
	switch c := x.at(0); {
	case x.pos >= len(x.src):
		return dotTok{line: x.line, col: x.col}, nil
	case c == '-' && (x.at(1) == '>' || x.at(1) == '-'):
		x.advance(2)
		t.id = false
	case isIDStart(c):
		for x.pos < len(x.src) && (isIDStart(x.src[x.pos]) || isDigit(x.src[x.pos])) {
			x.advance(1)
		}
	case isDigit(c) || c == '.' && isDigit(x.at(1)) || c == '-' && (isDigit(x.at(1)) || x.at(1) == '.'):
		if err := x.numeral(); err != nil {
			return t, err
		}
	case c == '"':
		if err := x.quoted(); err != nil {
			return t, err
		}
	case c == '<':
		if err := x.html(); err != nil {
			return t, err
		}
	default:
		x.advance(1)
		t.id = false
	}
	t.text = x.src[start:x.pos]
	return t, nil
}

// numeral reads [-](.digits | digits[.digits]).
func (x *dotScanner) numeral() error {
	start := x.pos
	if x.at(0) == '-' {
		x.advance(1)
	}
	for dot := false; isDigit(x.at(0)) || x.at(0) == '.' && !dot; x.advance(1) {
		dot = dot || x.at(0) == '.'
	}
	if x.pos < len(x.src) && isIDStart(x.src[x.pos]) {
		return x.errAt(x.line, x.col, "letter after the number %s (quote the name)", excerpt.Quote(string(x.src[start:x.pos])))
	}
	return nil
}

// quoted reads a "..." string, a backslash escaping the next byte.
func (x *dotScanner) quoted() error {
	line, col := x.line, x.col
	for x.advance(1); x.pos < len(x.src); x.advance(1) {
		switch x.src[x.pos] {
		case '\\':
			x.advance(1)
		case '"':
			x.advance(1)
			return nil
		}
	}
	return x.errAt(line, col, "string not closed")
}

// html reads a <...> string, whose <> nest.
func (x *dotScanner) html() error {
	line, col := x.line, x.col
	for depth := 0; x.pos < len(x.src); {
		switch x.src[x.pos] {
		case '<':
			depth++
		case '>':
			depth--
		}
		x.advance(1)
		if depth == 0 {
			return nil
		}
	}
	return x.errAt(line, col, "HTML string not closed")
}

// precheck scans the file for what ReadDot rejects and gonum would accept
// (undirected graphs and edges, subgraphs, ports, a second graph, a number
// run into a name) or report badly (unclosed strings and comments,
// concatenation with '+'), and for chains longer than maxDotChain.
func (s *dotSource) precheck() error {
	x := dotScanner{dotSource: s, line: 1, col: 1}
	depth, closed, chain := 0, false, 0
	var prev dotTok
	for {
		t, err := x.next()
		if err != nil {
			return err
		}
		switch {
		case len(t.text) == 0:
			return nil
		case closed:
			return s.errAt(t.line, t.col, "unexpected %s after the graph (one graph per file)", excerpt.Quote(dotUnquote(string(t.text))))
		case depth == 0 && t.keyword("graph"):
			return s.errAt(t.line, t.col, "undirected graph: LogGOPSim's network files are digraphs")
		case t.is("{"):
			if depth++; depth > 1 {
				return s.errAt(t.line, t.col, "subgraphs are not supported")
			}
		case t.is("}"):
			depth--
			closed = depth == 0
		case t.keyword("subgraph"):
			return s.errAt(t.line, t.col, "subgraphs are not supported")
		case t.is(":"):
			return s.errAt(t.line, t.col, "node ports are not supported")
		case t.is("--"):
			return s.errAt(t.line, t.col, "'--' in a digraph: edges are written a -> b")
		case t.is("+"):
			return s.errAt(t.line, t.col, "'+' (string concatenation) is not supported")
		case t.is("->"):
			if chain++; chain > maxDotChain {
				return s.errAt(t.line, t.col, "more than %d edges in one statement: split the chain", maxDotChain)
			}
		}
		if !t.is("->") && !(t.id && prev.is("->")) {
			chain = 0
		}
		prev = t
	}
}

// find returns the position of the first token inside the graph for which
// match, given the two tokens before and the one after it, holds; 1:1 if
// none does. It scans a file that precheck and gonum have accepted.
func (s *dotSource) find(match func(pp, p, t, n dotTok) bool) (line, col int) {
	x := dotScanner{dotSource: s, line: 1, col: 1}
	var pp, p dotTok
	depth := 0
	t, err := x.next()
	for err == nil && len(t.text) > 0 {
		var n dotTok
		n, err = x.next()
		if depth == 1 && match(pp, p, t, n) {
			return t.line, t.col
		}
		if t.is("{") {
			depth++
		} else if t.is("}") {
			depth--
		}
		pp, p, t = p, t, n
	}
	return 1, 1
}

// nodePos is where node name first appears: an id that is neither an
// attribute's name nor its value.
func (s *dotSource) nodePos(name string) (line, col int) {
	return s.find(func(_, p, t, n dotTok) bool {
		return t.id && !p.is("=") && !n.is("=") && dotUnquote(string(t.text)) == name
	})
}

// commentPos is where the first comment attribute of the given value is.
func (s *dotSource) commentPos(value string) (line, col int) {
	return s.find(func(pp, p, t, _ dotTok) bool {
		return t.id && p.is("=") && pp.id && dotUnquote(string(pp.text)) == "comment" && dotUnquote(string(t.text)) == value
	})
}

// parseError turns an error of gonum's parser, "LINE:COL: error: MSG"
// with COL counting a tab as 4 and a rune as 1, into a SyntaxError at
// the byte column, with the grammar's names of tokens made readable.
func (s *dotSource) parseError(err error) error {
	msg := err.Error()
	var line, col int
	if n, _ := fmt.Sscanf(msg, "%d:%d: error: ", &line, &col); n != 2 {
		return s.errAt(1, 1, "%s", msg)
	}
	msg = msg[strings.Index(msg, "error: ")+len("error: "):]
	msg = strings.NewReplacer("graphx", "graph", "␚", "end of file", "end-of-file", "end of file").Replace(msg)
	line, col = s.byteCol(line, col)
	return s.errAt(line, col, "%s", msg)
}

// byteCol converts gonum's position (its column counts a tab as 4, a
// carriage return restarts at 1, any other rune 1) to a line and byte
// column; a position past the input (ReadDot adds a final newline) is its
// end.
func (s *dotSource) byteCol(line, col int) (int, int) {
	src, l := s.src, 1
	for ; l < line; l++ {
		i := bytes.IndexByte(src, '\n')
		if i < 0 {
			return l, len(src) + 1
		}
		src = src[i+1:]
	}
	b, g := 0, 1
	for g < col && b < len(src) && src[b] != '\n' {
		r, size := utf8.DecodeRune(src[b:])
		switch r {
		case '\t':
			g += 4
		case '\r':
			g = 1
		default:
			g++
		}
		b += size
	}
	return l, b + 1
}
