package goal

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/gopsim/gopsim/internal/excerpt"
)

// SyntaxError is an error in a GOAL text file, positioned at FILE:LINE:COL
// (1-based line and byte column).
type SyntaxError struct {
	File string
	Line int
	Col  int
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Unwrap lets errors.Is(err, ErrSyntax) identify text format errors.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// ErrSyntax is the sentinel every SyntaxError unwraps to.
var ErrSyntax = errors.New("goal: malformed GOAL text")

// TextReader reads the GOAL text format (see docs/goal-format.md) one rank
// block at a time, so that a schedule never has to be held whole.
//
// It accepts everything LogGOPSim's txt2bin accepts, plus a `//` comment
// after a statement on the same line, and reports what txt2bin does not
// check: peers outside 0..N-1, missing, repeated or out-of-order rank
// blocks, labels used before their definition, duplicate labels,
// dependency cycles, integers that overflow their field, a missing `b`;
// with Limits (SetLimits), an op larger than its consumer takes.
type TextReader struct {
	name string
	br   *bufio.Reader
	line []byte // current line without its newline
	pos  int    // byte offset in line
	num  int    // current line number, 1-based
	eof  bool   // no line after the current one

	numRanks     int // -1 until num_ranks is read
	numRanksLine int
	next         int // next expected rank block; -1 in a piece: any
	inBlock      bool
	piece        bool // reading a piece of a file (ReadTextBlocks)
	// maxMsg and maxCalc are the largest sizes taken (SetLimits).
	maxMsg, maxCalc uint64

	// per-block state
	opLine  []int32 // line of each op of the block
	opCol   []int32 // column of its peer (send, recv) or keyword (calc)
	exc     []bool  // op has a non-canonical label (or none)
	labels  map[string]int32
	edges   []pendingEdge
	order   []int32 // CSR edge -> index into edges
	work    []int32
	scratch []byte // the current line: in br's buffer, or own
	own     []byte
}

type pendingEdge struct {
	pred, succ int32
	start      bool
	line, col  int32
}

// NewTextReader returns a reader of GOAL text from r; name is used in
// error messages (usually the file name).
func NewTextReader(r io.Reader, name string) *TextReader {
	return newTextReader(bufio.NewReaderSize(r, 1<<16), name)
}

func newTextReader(br *bufio.Reader, name string) *TextReader {
	return &TextReader{name: name, br: br, numRanks: -1, labels: make(map[string]int32),
		maxMsg: math.MaxUint64, maxCalc: math.MaxUint64}
}

// SetLimits makes the reader refuse an op larger than l allows, with a
// *LimitError at the op's line and the column of its size. Set them before
// the first call to Next; the zero Limits, the default, bound nothing.
func (t *TextReader) SetLimits(l Limits) {
	t.maxMsg, t.maxCalc = l.Of(Send), l.Of(Calc)
}

// NumRanks is the num_ranks of the file, or -1 while it has not been read.
// It is known once the first block has been returned by Next.
func (t *TextReader) NumRanks() int { return t.numRanks }

func (t *TextReader) errAt(col int, format string, args ...any) error {
	return &SyntaxError{File: t.name, Line: t.num, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// errHere reports an error at the current position, naming what was
// expected and what was found.
func (t *TextReader) errHere(expected string) error {
	found := "end of line"
	if t.pos < len(t.line) {
		c := t.line[t.pos]
		if c >= 0x20 && c < 0x7f {
			found = strconv.QuoteRune(rune(c))
		} else {
			found = fmt.Sprintf("byte 0x%02x", c)
		}
	} else if t.eof && t.num > 0 && t.atLastLine() {
		found = "end of file"
	}
	return t.errAt(t.pos+1, "expected %s, found %s", expected, found)
}

func (t *TextReader) atLastLine() bool { return t.eof }

// readLine loads the next line; it returns false at the end of the input.
func (t *TextReader) readLine() (bool, error) {
	if t.eof {
		return false, nil
	}
	chunk, err := t.br.ReadSlice('\n')
	if err == nil {
		// The whole line is in the buffer, valid until the next read: no
		// copy.
		t.scratch = chunk
		return t.lineRead(), nil
	}
	// A line longer than the buffer, or the last one: into own storage.
	t.own = append(t.own[:0], chunk...)
	for err == bufio.ErrBufferFull {
		chunk, err = t.br.ReadSlice('\n')
		t.own = append(t.own, chunk...)
	}
	switch err {
	case nil:
	case io.EOF:
		t.eof = true
		if len(t.own) == 0 {
			return false, nil
		}
	default:
		return false, fmt.Errorf("%s: line %d: %w", t.name, t.num+1, err)
	}
	t.scratch = t.own
	return t.lineRead(), nil
}

// lineRead makes the line in t.scratch, with its newline, the current one.
func (t *TextReader) lineRead() bool {
	t.num++
	l := t.scratch
	// A newline is "\r\n" or "\n". txt2bin appends a '\n' at the end of
	// its input, so a final "\r" without '\n' ends a line too.
	if n := len(l); n > 0 && l[n-1] == '\n' {
		l = l[:n-1]
		if n := len(l); n > 0 && l[n-1] == '\r' {
			l = l[:n-1]
		}
	} else if n > 0 && t.eof && l[n-1] == '\r' {
		l = l[:n-1]
	}
	t.line, t.pos = l, 0
	return true
}

func (t *TextReader) skipBlanks() {
	for t.pos < len(t.line) && (t.line[t.pos] == ' ' || t.line[t.pos] == '\t') {
		t.pos++
	}
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// ident returns the longest identifier at the current position.
func (t *TextReader) ident() []byte {
	i := t.pos
	if i >= len(t.line) || !isLetter(t.line[i]) {
		return nil
	}
	for i++; i < len(t.line) && (isLetter(t.line[i]) || isDigit(t.line[i]) || t.line[i] == '_'); i++ {
	}
	w := t.line[t.pos:i]
	t.pos = i
	return w
}

// literal consumes s if the line continues with it (after blanks).
func (t *TextReader) literal(s string) bool {
	t.skipBlanks()
	if hasPrefix(t.line[t.pos:], s) {
		t.pos += len(s)
		return true
	}
	return false
}

// hasPrefix is bytes.HasPrefix for the grammar's short words, compared in
// place (no call into the runtime's memory compare).
func hasPrefix(l []byte, s string) bool {
	if len(l) < len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if l[i] != s[i] {
			return false
		}
	}
	return true
}

// uint reads an unsigned decimal integer no larger than max; what names
// the field in messages.
func (t *TextReader) uint(what string, max uint64) (uint64, error) {
	t.skipBlanks()
	start := t.pos
	if t.pos >= len(t.line) || !isDigit(t.line[t.pos]) {
		return 0, t.errHere(what + " (an unsigned integer)")
	}
	var v uint64
	// 19 digits cannot overflow.
	line, i := t.line, t.pos
	for end := min(len(line), i+19); i < end && isDigit(line[i]); i++ {
		v = v*10 + uint64(line[i]-'0')
	}
	t.pos = i
	overflow := false
	for t.pos < len(t.line) && isDigit(t.line[t.pos]) {
		d := uint64(t.line[t.pos] - '0')
		if v > (math.MaxUint64-d)/10 {
			overflow = true
		} else {
			v = v*10 + d
		}
		t.pos++
	}
	if overflow || v > max {
		return 0, t.errAt(start+1, "%s %s overflows its field (at most %d)", what, excerpt.Of(string(t.line[start:t.pos])), max)
	}
	return v, nil
}

// wildOrUint reads "-1" (returning wild) or an unsigned integer.
func (t *TextReader) wildOrUint(what string, max uint64) (v uint64, wild bool, err error) {
	t.skipBlanks()
	if bytes.HasPrefix(t.line[t.pos:], []byte("-1")) && (t.pos+2 == len(t.line) || !isDigit(t.line[t.pos+2])) {
		t.pos += 2
		return 0, true, nil
	}
	v, err = t.uint(what, max)
	return v, false, err
}

// endStatement requires the end of the line, allowing blanks and a
// trailing // comment.
func (t *TextReader) endStatement(expected string) error {
	t.skipBlanks()
	if t.pos == len(t.line) {
		return nil
	}
	if bytes.HasPrefix(t.line[t.pos:], []byte("//")) {
		t.pos = len(t.line)
		return nil
	}
	return t.errHere(expected)
}

// Next reads the next rank block into b (reusing its storage). It returns
// io.EOF after the last rank; a file that ends before all num_ranks
// blocks were read is an error.
func (t *TextReader) Next(b *RankBlock) error {
	if t.num == 0 && !t.eof {
		if ok, err := t.readLine(); err != nil {
			return err
		} else if !ok {
			return &SyntaxError{File: t.name, Line: 1, Col: 1, Msg: "empty file: expected num_ranks and rank blocks"}
		}
	}
	for {
		t.skipBlanks()
		if t.pos >= len(t.line) {
			ok, err := t.readLine()
			if err != nil {
				return err
			}
			if !ok {
				return t.finish()
			}
			continue
		}
		rest := t.line[t.pos:]
		switch {
		case bytes.HasPrefix(rest, []byte("//")):
			t.pos = len(t.line)
			continue
		case bytes.HasPrefix(rest, []byte("/*")):
			if err := t.blockComment(); err != nil {
				return err
			}
			continue
		case rest[0] == '}':
			if !t.inBlock {
				return t.errHere(`"rank", "num_ranks" or a comment`)
			}
			col := t.pos + 1
			t.pos++
			t.inBlock = false
			if err := t.closeBlock(b, col); err != nil {
				return err
			}
			return nil
		}
		if textFastPath && t.inBlock && rest[0] == 'l' && t.fastStmt(b) {
			continue
		}
		col := t.pos + 1
		word := t.ident()
		if word == nil {
			if t.inBlock {
				return t.errHere(`"send", "recv", "calc", a label, "}" or a comment`)
			}
			return t.errHere(`"rank", "num_ranks" or a comment`)
		}
		var err error
		switch string(word) {
		case "num_ranks":
			err = t.numRanksStmt(col)
		case "rank":
			err = t.rankStmt(b, col)
		case "send", "recv", "calc":
			if !t.inBlock {
				return t.errAt(col, "%s outside a rank block", excerpt.Of(string(word)))
			}
			err = t.opStmt(b, opKeyword(word), nil, col)
		default:
			if !t.inBlock {
				return t.errAt(col, "expected \"rank\", \"num_ranks\" or a comment, found %s", excerpt.Quote(string(word)))
			}
			err = t.labelStmt(b, word, col)
		}
		if err != nil {
			return err
		}
	}
}

func (t *TextReader) blockComment() error {
	line, col := t.num, t.pos+1
	t.pos += 2
	for {
		if i := bytes.Index(t.line[t.pos:], []byte("*/")); i >= 0 {
			t.pos += i + 2
			return nil
		}
		ok, err := t.readLine()
		if err != nil {
			return err
		}
		if !ok {
			return &SyntaxError{File: t.name, Line: line, Col: col, Msg: "comment /* never closed by */"}
		}
	}
}

func (t *TextReader) finish() error {
	if t.inBlock {
		return t.errHere(`"}" closing rank ` + strconv.Itoa(t.next))
	}
	if t.piece {
		return io.EOF // the caller checks that the pieces join
	}
	if t.numRanks < 0 {
		return &SyntaxError{File: t.name, Line: 1, Col: 1, Msg: "no num_ranks statement in the file"}
	}
	if t.next < t.numRanks {
		return &SyntaxError{File: t.name, Line: t.num, Col: len(t.line) + 1,
			Msg: fmt.Sprintf("file ends after %d of %d rank blocks: rank %d is missing", t.next, t.numRanks, t.next)}
	}
	return io.EOF
}

func (t *TextReader) numRanksStmt(col int) error {
	n, err := t.uint("number of ranks", MaxRanks)
	if err != nil {
		return err
	}
	if n == 0 {
		return t.errAt(col, "num_ranks 0: a schedule has at least 1 rank")
	}
	if t.numRanks >= 0 {
		return t.errAt(col, "num_ranks given again (first on line %d)", t.numRanksLine)
	}
	if t.next > 0 {
		return t.errAt(col, "num_ranks after the first rank block")
	}
	t.numRanks, t.numRanksLine = int(n), t.num
	return nil
}

func (t *TextReader) rankStmt(b *RankBlock, col int) error {
	if t.inBlock {
		return t.errAt(col, "rank block opened inside rank %d (missing \"}\")", t.next)
	}
	t.skipBlanks()
	numCol := t.pos + 1
	r, err := t.uint("rank number", MaxRanks)
	if err != nil {
		return err
	}
	if !t.literal("{") {
		return t.errHere(`"{"`)
	}
	if t.next < 0 { // a piece starts with any rank
		t.next = int(r)
	}
	switch {
	case t.numRanks >= 0 && int(r) >= t.numRanks:
		return t.errAt(numCol, "rank %d outside 0..%d (num_ranks %d)", r, t.numRanks-1, t.numRanks)
	case int(r) < t.next:
		return t.errAt(numCol, "rank %d block repeated", r)
	case int(r) > t.next:
		return t.errAt(numCol, "rank %d block where rank %d was expected (blocks come in order 0..N-1)", r, t.next)
	}
	t.inBlock = true
	b.Reset(int32(r))
	t.opLine = t.opLine[:0]
	t.opCol = t.opCol[:0]
	t.exc = t.exc[:0]
	clear(t.labels)
	t.edges = t.edges[:0]
	return nil
}

// canonicalIndex returns i if name is CanonicalLabel(i), else -1.
func canonicalIndex(name []byte) int64 {
	if len(name) < 2 || name[0] != 'l' || name[1] == '0' || len(name) > 11 {
		return -1
	}
	var v int64
	for _, c := range name[1:] {
		if !isDigit(c) {
			return -1
		}
		v = v*10 + int64(c-'0')
	}
	if v-1 > math.MaxInt32 {
		return -1
	}
	return v - 1
}

// lookup finds a label defined so far in the current block.
func (t *TextReader) lookup(b *RankBlock, name []byte) (int32, bool) {
	// A canonical label of its own op first (the common case, without
	// hashing): no other op can hold the same name, which would have been
	// a second definition.
	if i := canonicalIndex(name); i >= 0 && i < int64(len(b.Ops)) && !t.exc[i] {
		return int32(i), true
	}
	if len(t.labels) > 0 {
		if i, ok := t.labels[string(name)]; ok {
			return i, true
		}
	}
	return -1, false
}

func (t *TextReader) labelStmt(b *RankBlock, label []byte, col int) error {
	t.skipBlanks()
	if t.literal(":") {
		t.skipBlanks()
		opCol := t.pos + 1
		for _, kw := range [...]string{"send", "recv", "calc"} {
			if hasPrefix(t.line[t.pos:], kw) {
				t.pos += len(kw)
				if _, dup := t.lookup(b, label); dup {
					return t.errAt(col, "label %s defined twice in rank %d", excerpt.Of(string(label)), b.Rank)
				}
				return t.opStmt(b, kw, label, opCol)
			}
		}
		return t.errHere(`"send", "recv" or "calc"`)
	}
	var start bool
	switch {
	case t.literal("irequires"):
		start = true
	case t.literal("requires"):
	default:
		return t.errHere(`":", "requires" or "irequires" after label ` + string(label))
	}
	succ, ok := t.lookup(b, label)
	if !ok {
		return t.errAt(col, "label %s used before it is defined in rank %d", excerpt.Of(string(label)), b.Rank)
	}
	t.skipBlanks()
	pcol := t.pos + 1
	other := t.ident()
	if other == nil {
		return t.errHere("a label")
	}
	pred, ok := t.lookup(b, other)
	if !ok {
		return t.errAt(pcol, "label %s used before it is defined in rank %d", excerpt.Of(string(other)), b.Rank)
	}
	if err := t.endStatement("end of line"); err != nil {
		return err
	}
	t.edges = append(t.edges, pendingEdge{pred: pred, succ: succ, start: start, line: int32(t.num), col: int32(col)})
	return nil
}

// opKeyword returns the constant string for an op keyword, so that
// dispatching on it allocates nothing.
func opKeyword(word []byte) string {
	switch string(word) {
	case "send":
		return "send"
	case "recv":
		return "recv"
	}
	return "calc"
}

// opStmt parses the op after its keyword kw; label (nil if none) points
// into the current line and is copied only when it must be stored.
func (t *TextReader) opStmt(b *RankBlock, kw string, label []byte, col int) error {
	if len(b.Ops) >= math.MaxInt32-1 {
		return t.errAt(col, "more than %d ops in rank %d", math.MaxInt32-1, b.Rank)
	}
	var op Op
	vcol := col // where Validate's complaints about the op point
	t.skipBlanks()
	scol := t.pos + 1 // the size's
	limit := t.maxMsg
	switch kw {
	case "calc":
		op.Kind = Calc
		limit = t.maxCalc
		v, err := t.uint("calc time", math.MaxUint64)
		if err != nil {
			return err
		}
		op.Size = v
		if t.literal("cpu") {
			c, err := t.uint("cpu index", MaxCPU)
			if err != nil {
				return err
			}
			op.CPU = uint16(c)
			if err := t.endStatement("end of line"); err != nil {
				return err
			}
		} else if err := t.endStatement(`"cpu" or end of line`); err != nil {
			return err
		}
	default:
		op.Kind = Send
		dir := "to"
		if kw == "recv" {
			op.Kind, dir = Recv, "from"
		}
		v, err := t.uint("message size in bytes", math.MaxUint64)
		if err != nil {
			return err
		}
		op.Size = v
		if !t.literal("b") {
			return t.errHere(`"b" after the size`)
		}
		if !t.literal(dir) {
			return t.errHere(strconv.Quote(dir))
		}
		t.skipBlanks()
		pcol := t.pos + 1
		vcol = pcol
		if op.Kind == Recv {
			p, wild, err := t.wildOrUint("source rank", MaxRanks)
			if err != nil {
				return err
			}
			op.Peer = int32(p)
			if wild {
				op.Peer = AnySource
			}
		} else {
			p, err := t.uint("destination rank", MaxRanks)
			if err != nil {
				return err
			}
			op.Peer = int32(p)
		}
		if op.Peer != AnySource && t.numRanks >= 0 && int(op.Peer) >= t.numRanks {
			return t.errAt(pcol, "peer rank %d outside 0..%d (num_ranks %d)", op.Peer, t.numRanks-1, t.numRanks)
		}
		expect := `"tag", "cpu", "nic" or end of line`
		if t.literal("tag") {
			tag, wild, err := t.wildOrUint("tag", MaxTag)
			if err != nil {
				return err
			}
			op.Tag = uint32(tag)
			if wild {
				op.Tag = AnyTag
			}
			expect = `"cpu", "nic" or end of line`
		}
		if t.literal("cpu") {
			c, err := t.uint("cpu index", MaxCPU)
			if err != nil {
				return err
			}
			op.CPU = uint16(c)
			expect = `"nic" or end of line`
		}
		if t.literal("nic") {
			n, err := t.uint("nic index", MaxNIC)
			if err != nil {
				return err
			}
			op.NIC = uint16(n)
			expect = "end of line"
		}
		if err := t.endStatement(expect); err != nil {
			return err
		}
	}
	idx := int32(len(b.Ops))
	if op.Size > limit {
		return &LimitError{File: t.name, Line: t.num, Col: scol, Rank: int(b.Rank), Op: int(idx), Label: string(label),
			Kind: op.Kind, Size: op.Size, Limit: limit}
	}
	b.Ops = append(b.Ops, op)
	t.opLine = append(t.opLine, int32(t.num))
	t.opCol = append(t.opCol, int32(vcol))
	exc := len(label) == 0 || canonicalIndex(label) != int64(idx)
	t.exc = append(t.exc, exc)
	if exc {
		name := string(label)
		b.Labels = append(b.Labels, Label{Op: idx, Name: name})
		if name != "" {
			t.labels[name] = idx
		}
	}
	return nil
}

// closeBlock builds the CSR edge lists and validates the block.
func (t *TextReader) closeBlock(b *RankBlock, col int) error {
	if t.numRanks < 0 {
		return t.errAt(col, "rank %d closed before num_ranks was given", b.Rank)
	}
	if int(b.Rank) >= t.numRanks { // num_ranks came inside the block
		return t.errAt(col, "rank %d closed, but it is outside 0..%d (num_ranks %d)", b.Rank, t.numRanks-1, t.numRanks)
	}
	n := len(b.Ops)
	// Stable counting sort of the edges by predecessor.
	b.DepStart = append(b.DepStart[:0], make([]int32, n+1)...)
	for _, e := range t.edges {
		b.DepStart[e.pred+1]++
	}
	for i := 0; i < n; i++ {
		b.DepStart[i+1] += b.DepStart[i]
	}
	if cap(b.Deps) < len(t.edges) {
		b.Deps = make([]Dep, len(t.edges))
	}
	b.Deps = b.Deps[:len(t.edges)]
	if cap(t.order) < len(t.edges) {
		t.order = make([]int32, len(t.edges))
	}
	t.order = t.order[:len(t.edges)]
	fill := t.work[:0]
	fill = append(fill, b.DepStart[:n]...)
	for i, e := range t.edges {
		k := fill[e.pred]
		fill[e.pred]++
		b.Deps[k] = MakeDep(e.succ, e.start)
		t.order[k] = int32(i)
	}
	t.work = fill
	var berr *BlockError
	t.work, berr = b.Validate(t.numRanks, t.work)
	if berr != nil {
		line, c := t.num, col
		switch {
		case berr.Edge >= 0:
			e := t.edges[t.order[berr.Edge]]
			line, c = int(e.line), int(e.col)
		case berr.Op >= 0:
			line, c = int(t.opLine[berr.Op]), int(t.opCol[berr.Op])
		}
		return &SyntaxError{File: t.name, Line: line, Col: c, Msg: berr.Msg}
	}
	t.next++
	return nil
}

// ReadText reads a whole GOAL text schedule; name is used in errors.
func ReadText(r io.Reader, name string) (*Schedule, error) {
	return ReadTextLimits(r, name, Limits{})
}

// ReadTextLimits is ReadText with the op sizes bounded by l: an op beyond
// them is a *LimitError at its line (TextReader.SetLimits).
func ReadTextLimits(r io.Reader, name string, l Limits) (*Schedule, error) {
	t := NewTextReader(r, name)
	t.SetLimits(l)
	return collect(t.Next, t.NumRanks, name)
}
