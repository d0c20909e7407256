package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// A spec is decoded in two steps: the file (JSON or TOML) becomes a tree
// of nodes that remember their line and column, then the tree becomes a
// Spec (spec.go), so that every mistake, in either format, is reported at
// its place in the file.

// pos is a place in a spec file, 1-based; line 0 means unknown.
type pos struct{ line, col int }

type nodeKind uint8

const (
	kObject nodeKind = iota
	kArray
	kNumber
	kString
	kBool
	kNull
	kOther // TOML dates and times
)

func (k nodeKind) String() string {
	return [...]string{"a table", "a list", "a number", "a string", "a boolean", "null", "a date or time"}[k]
}

type field struct {
	key    string
	keyPos pos
	val    *node
}

type node struct {
	kind   nodeKind
	pos    pos
	fields []field // kObject, in the order of the file
	elems  []*node // kArray
	num    float64 // kNumber
	isInt  bool    // kNumber written as an integer that fits int64
	i      int64
	str    string // kString
	b      bool   // kBool
}

// maxDepth bounds the nesting of a spec: a real one has three levels.
const maxDepth = 32

// lineIndex turns byte offsets into lines and columns.
type lineIndex []int // offsets where lines start

func newLineIndex(data []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range data {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (x lineIndex) pos(off int) pos {
	l := sort.SearchInts(x, off+1) - 1 // last line start <= off
	if l < 0 {
		l = 0
	}
	return pos{line: l + 1, col: off - x[l] + 1}
}

// parseJSON decodes a JSON document into a tree. Duplicate keys are an
// error, as is anything after the top-level value.
func parseJSON(data []byte, name string) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	lines := newLineIndex(data)
	fail := func(err error) error {
		var se *json.SyntaxError
		off := len(data)
		if errors.As(err, &se) {
			off = int(se.Offset)
		} else if !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			off = int(dec.InputOffset())
		} else {
			err = errors.New("unexpected end of the file")
		}
		off = min(max(off-1, 0), len(data))
		return specErr(name, lines.pos(off), "%w", err)
	}
	start := func() pos {
		off := int(dec.InputOffset())
		for off < len(data) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
			off++
		}
		return lines.pos(off)
	}
	var value func(depth int) (*node, error)
	value = func(depth int) (*node, error) {
		p := start()
		tok, err := dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		if depth > maxDepth {
			return nil, specErr(name, p, "nested more than %d levels deep", maxDepth)
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' {
				n := &node{kind: kObject, pos: p}
				for dec.More() {
					kp := start()
					kt, err := dec.Token()
					if err != nil {
						return nil, fail(err)
					}
					key, _ := kt.(string)
					for _, f := range n.fields {
						if f.key == key {
							return nil, specErr(name, kp, "key %q given twice (first at line %d)", key, f.keyPos.line)
						}
					}
					v, err := value(depth + 1)
					if err != nil {
						return nil, err
					}
					n.fields = append(n.fields, field{key, kp, v})
				}
				if _, err := dec.Token(); err != nil {
					return nil, fail(err)
				}
				return n, nil
			}
			n := &node{kind: kArray, pos: p}
			for dec.More() {
				v, err := value(depth + 1)
				if err != nil {
					return nil, err
				}
				n.elems = append(n.elems, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, fail(err)
			}
			return n, nil
		case json.Number:
			n := &node{kind: kNumber, pos: p}
			if i, err := strconv.ParseInt(string(t), 10, 64); err == nil {
				n.i, n.isInt, n.num = i, true, float64(i)
				return n, nil
			}
			f, err := strconv.ParseFloat(string(t), 64)
			if err != nil {
				return nil, specErr(name, p, "number %s out of range", t)
			}
			n.num = f + 0 // no -0
			return n, nil
		case string:
			return &node{kind: kString, pos: p, str: t}, nil
		case bool:
			return &node{kind: kBool, pos: p, b: t}, nil
		default:
			return &node{kind: kNull, pos: p}, nil
		}
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, specErr(name, pos{1, 1}, "empty spec")
	}
	root, err := value(0)
	if err != nil {
		return nil, err
	}
	p := start()
	if _, err := dec.Token(); err != io.EOF {
		return nil, specErr(name, p, "unexpected data after the spec's closing brace")
	}
	return root, nil
}

// parseTOML decodes a TOML document into a tree: go-toml decodes it (and
// rejects what TOML forbids), then its parser's syntax tree gives every
// key and value its place.
func parseTOML(data []byte, name string) (*node, error) {
	var m map[string]any
	if err := toml.Unmarshal(data, &m); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			line, col := de.Position()
			return nil, specErr(name, pos{line, col}, "%w", err)
		}
		return nil, specErr(name, pos{}, "%w", err)
	}
	tp := tomlPositions(data)
	return tp.build(m, nil, pos{1, 1}, 0, name)
}

// tomlPos maps key paths (parts joined by pathSep, array elements by
// index) to the place of their key and of their value.
type tomlPos struct {
	key, val map[string]pos
}

const pathSep = "\x00"

func joinPath(parts []string) string { return strings.Join(parts, pathSep) }

func tomlPositions(data []byte) *tomlPos {
	tp := &tomlPos{key: map[string]pos{}, val: map[string]pos{}}
	var p unstable.Parser
	p.Reset(data)
	at := func(r unstable.Range) pos {
		if r.Length == 0 || int(r.Offset)+int(r.Length) > len(data) {
			return pos{}
		}
		s := p.Shape(r)
		return pos{s.Start.Line, s.Start.Column}
	}
	keyOf := func(n *unstable.Node) ([]string, pos) {
		var parts []string
		var first pos
		it := n.Key()
		for it.Next() {
			k := it.Node()
			if len(parts) == 0 {
				first = at(k.Raw)
			}
			parts = append(parts, string(k.Data))
		}
		return parts, first
	}
	var value func(path []string, n *unstable.Node, fallback pos)
	value = func(path []string, n *unstable.Node, fallback pos) {
		vp := at(n.Raw)
		if vp.line == 0 {
			vp = fallback
		}
		tp.val[joinPath(path)] = vp
		switch n.Kind {
		case unstable.Array:
			i := 0
			for it := n.Children(); it.Next(); {
				c := it.Node()
				if c.Kind == unstable.Comment {
					continue
				}
				value(append(slices.Clip(path), strconv.Itoa(i)), c, vp)
				i++
			}
		case unstable.InlineTable:
			for it := n.Children(); it.Next(); {
				kv := it.Node()
				if kv.Kind != unstable.KeyValue {
					continue
				}
				parts, kp := keyOf(kv)
				sub := append(slices.Clip(path), parts...)
				tp.key[joinPath(sub)] = kp
				value(sub, kv.Value(), kp)
			}
		}
	}
	arrays := map[string]int{} // array-of-tables lengths so far, by path
	var cur []string
	for p.NextExpression() {
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			parts, kp := keyOf(e)
			cur = nil
			for i, part := range parts {
				cur = append(cur, part)
				k := joinPath(cur)
				if _, ok := tp.key[k]; !ok {
					tp.key[k], tp.val[k] = kp, kp
				}
				if i == len(parts)-1 && e.Kind == unstable.ArrayTable {
					n := arrays[k]
					arrays[k] = n + 1
					cur = append(cur, strconv.Itoa(n))
				} else if n, ok := arrays[k]; ok {
					cur = append(cur, strconv.Itoa(n-1))
				}
			}
			tp.key[joinPath(cur)], tp.val[joinPath(cur)] = kp, kp
		case unstable.KeyValue:
			parts, kp := keyOf(e)
			path := append(slices.Clip(cur), parts...)
			tp.key[joinPath(path)] = kp
			value(path, e.Value(), kp)
		}
	}
	return tp
}

func (tp *tomlPos) build(v any, path []string, fallback pos, depth int, name string) (*node, error) {
	p, ok := tp.val[joinPath(path)]
	if !ok || p.line == 0 {
		p = fallback
	}
	if depth > maxDepth {
		return nil, specErr(name, p, "nested more than %d levels deep", maxDepth)
	}
	switch v := v.(type) {
	case map[string]any:
		n := &node{kind: kObject, pos: p}
		for k, e := range v {
			sub := append(slices.Clip(path), k)
			kp, ok := tp.key[joinPath(sub)]
			if !ok || kp.line == 0 {
				kp = p
			}
			c, err := tp.build(e, sub, kp, depth+1, name)
			if err != nil {
				return nil, err
			}
			n.fields = append(n.fields, field{k, kp, c})
		}
		slices.SortFunc(n.fields, func(a, b field) int {
			if a.keyPos.line != b.keyPos.line {
				return a.keyPos.line - b.keyPos.line
			}
			if a.keyPos.col != b.keyPos.col {
				return a.keyPos.col - b.keyPos.col
			}
			return strings.Compare(a.key, b.key)
		})
		return n, nil
	case []any:
		n := &node{kind: kArray, pos: p}
		for i, e := range v {
			c, err := tp.build(e, append(slices.Clip(path), strconv.Itoa(i)), p, depth+1, name)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, c)
		}
		return n, nil
	case []map[string]any:
		n := &node{kind: kArray, pos: p}
		for i, e := range v {
			c, err := tp.build(e, append(slices.Clip(path), strconv.Itoa(i)), p, depth+1, name)
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, c)
		}
		return n, nil
	case int64:
		return &node{kind: kNumber, pos: p, num: float64(v), isInt: true, i: v}, nil
	case float64:
		return &node{kind: kNumber, pos: p, num: v + 0}, nil // no -0
	case string:
		return &node{kind: kString, pos: p, str: v}, nil
	case bool:
		return &node{kind: kBool, pos: p, b: v}, nil
	default:
		return &node{kind: kOther, pos: p}, nil
	}
}

// json re-encodes a subtree, for the decoders that take JSON (sim.ReadParams).
func (n *node) json(b *bytes.Buffer) error {
	switch n.kind {
	case kObject:
		b.WriteByte('{')
		for i, f := range n.fields {
			if i > 0 {
				b.WriteByte(',')
			}
			k, _ := json.Marshal(f.key)
			b.Write(k)
			b.WriteByte(':')
			if err := f.val.json(b); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case kArray:
		b.WriteByte('[')
		for i, e := range n.elems {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := e.json(b); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case kNumber:
		if n.isInt {
			b.WriteString(strconv.FormatInt(n.i, 10))
		} else if math.IsNaN(n.num) || math.IsInf(n.num, 0) {
			return fmt.Errorf("line %d: %v is not a number", n.pos.line, n.num)
		} else if n.num == math.Trunc(n.num) && math.Abs(n.num) < 1<<53 {
			b.WriteString(strconv.FormatFloat(n.num, 'f', -1, 64)) // 1e3 is 1000 to an int64
		} else {
			b.WriteString(strconv.FormatFloat(n.num, 'g', -1, 64))
		}
	case kString:
		s, _ := json.Marshal(n.str)
		b.Write(s)
	case kBool:
		b.WriteString(strconv.FormatBool(n.b))
	case kNull:
		b.WriteString("null")
	default:
		return fmt.Errorf("line %d: %s is not allowed here", n.pos.line, n.kind)
	}
	return nil
}
