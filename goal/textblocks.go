package goal

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// Reading a text schedule on several cores.
//
// Schedgen starts every rank block on a line of its own, "rank N {" at
// column 0, and nothing else in the grammar starts a line that way outside
// a /* */ comment. ReadTextBlocks cuts the text at such lines into pieces
// of about textPieceSize bytes and parses the pieces on all CPUs, each with
// a TextReader that takes whichever rank comes first; the head of the file
// before the first cut (num_ranks, comments) is read first, so that every
// piece knows num_ranks.
//
// A cut can be wrong: a "rank" line inside a comment, a block that is never
// closed. Then a piece fails, or ends inside a block or a comment, or
// starts with another rank than its predecessor ends with. In any of these
// cases, and on any other error, the text is read again from its start by
// one TextReader, which returns exactly the blocks and the first error a
// sequential reading gives: the pieces only ever speed up a text that a
// single reader accepts in the same way.

// textPieceSize is the length of text a piece is cut at (a variable for
// tests).
var textPieceSize int64 = 1 << 20

// textPiece is the blocks parsed from bytes lo..hi of a text.
type textPiece struct {
	lo, hi   int64
	first    int32 // rank of its first block
	ops      []Op
	depStart []int32 // per block, its len(ops)+1 entries of RankBlock.DepStart
	deps     []Dep
	labels   []Label
	ends     []blockEnd // per block, where its ops, deps and labels end
	cpus     int        // largest CPU index used, plus one
	nics     int        // largest NIC index used, plus one
	next     int        // the rank after its last block
	numRanks int        // num_ranks as the piece's reader saw it
	numLine  int        // the line of the num_ranks statement (the head's)
	err      error
}

type blockEnd struct{ ops, deps, labels int }

// add appends block b to the piece.
func (p *textPiece) add(b *RankBlock) {
	if len(p.ends) == 0 {
		p.first = b.Rank
	}
	for i := range b.Ops {
		o := &b.Ops[i]
		p.cpus = max(p.cpus, int(o.CPU)+1)
		p.nics = max(p.nics, int(o.NIC)+1)
	}
	p.ops = append(p.ops, b.Ops...)
	p.depStart = append(p.depStart, b.DepStart...)
	p.deps = append(p.deps, b.Deps...)
	p.labels = append(p.labels, b.Labels...)
	p.ends = append(p.ends, blockEnd{len(p.ops), len(p.deps), len(p.labels)})
}

// parse reads the piece's bytes of r, with the op sizes bounded by lim. A
// piece after the head knows num_ranks (numRanks >= 0) and starts with any
// rank (next -1); the head and a whole text start with rank 0. whole reads
// to the end of the file with a reader's every check.
func (p *textPiece) parse(r io.ReaderAt, name string, lim Limits, numRanks, next int, whole bool) {
	p.cpus, p.nics = 1, 1
	p.ops, p.depStart, p.deps, p.labels, p.ends = p.ops[:0], p.depStart[:0], p.deps[:0], p.labels[:0], p.ends[:0]
	// A buffer of the piece's size, up to the usual 64 KiB: tiny pieces
	// (tests) must not each cost 64 KiB.
	t := newTextReader(bufio.NewReaderSize(io.NewSectionReader(r, p.lo, p.hi-p.lo), int(min(max(p.hi-p.lo, 16), 1<<16))), name)
	t.piece = !whole
	t.SetLimits(lim)
	if numRanks >= 0 {
		t.numRanks = numRanks
	}
	t.next = next
	var b RankBlock
	for {
		if err := t.Next(&b); err != nil {
			if err != io.EOF {
				p.err = err
			}
			break
		}
		p.add(&b)
	}
	p.next, p.numRanks, p.numLine = t.next, t.numRanks, t.numRanksLine
}

// keep returns a copy of the piece in storage of exactly its size, so that
// p's storage, grown while parsing, can be used for the next piece.
func (p *textPiece) keep() *textPiece {
	q := *p
	q.ops = slices.Clone(p.ops)
	q.depStart = slices.Clone(p.depStart)
	q.deps = slices.Clone(p.deps)
	q.labels = slices.Clone(p.labels)
	q.ends = slices.Clone(p.ends)
	return &q
}

// visit hands out the piece's blocks; its first op and edge have indexes
// op and edge in the whole schedule.
func (p *textPiece) visit(w int, b *RankBlock, op, edge int, visit func(w int, b *RankBlock, op, edge int)) {
	o, d, l := 0, 0, 0
	for k, e := range p.ends {
		b.Rank = p.first + int32(k)
		b.Ops = p.ops[o:e.ops]
		b.DepStart = p.depStart[o+k : e.ops+k+1]
		b.Deps = p.deps[d:e.deps]
		b.Labels = p.labels[l:e.labels]
		visit(w, b, op+o, edge+d)
		o, d, l = e.ops, e.deps, e.labels
	}
}

// rankLine returns the offset of the first line at or after from, and
// before limit, that starts with "rank" and a blank; limit if there is
// none (or if r cannot be read: the sequential reading then reports it).
func rankLine(r io.ReaderAt, from, limit int64, buf []byte) int64 {
	const pat = "\nrank"
	// The window starts one byte early, to see the newline before from.
	pos := from - 1
	if from == 0 {
		if n, _ := r.ReadAt(buf[:6], 0); n >= 5 && isRankLine(buf[:n]) {
			return 0
		}
		pos = 0
	}
	win := min(len(buf), 4096) // grows: most rank lines are near
	for pos < limit {
		n, err := r.ReadAt(buf[:min(int64(win), limit-pos+int64(len(pat))+1)], pos)
		win = min(2*win, len(buf))
		if n == 0 {
			return limit
		}
		w := buf[:n]
		for i := 0; ; {
			j := bytes.Index(w[i:], []byte(pat))
			if j < 0 {
				break
			}
			i += j
			s := pos + int64(i) + 1 // the line's start
			if s >= limit {
				return limit
			}
			if i+6 <= len(w) {
				if isRankLine(w[i+1:]) {
					return s
				}
			} else if err == nil {
				break // read the next window from this newline on
			} else if isRankLine(w[i+1:]) { // at the end of the file
				return s
			}
			i++
		}
		if err != nil {
			return limit
		}
		// Go on from the last newline candidate that may straddle.
		next := pos + int64(n) - int64(len(pat))
		if next <= pos {
			next = pos + 1
		}
		pos = next
	}
	return limit
}

// isRankLine reports whether a line starts with "rank" and a blank.
func isRankLine(l []byte) bool {
	return len(l) >= 5 && string(l[:4]) == "rank" && (l[4] == ' ' || l[4] == '\t')
}

// ReadTextBlocks is ReadBinaryBlocks for the GOAL text form: r holds
// size bytes of text, name is used in errors, and an op beyond lim is an
// error (TextReader.SetLimits; the zero Limits bound nothing). It parses the text on up to
// GOMAXPROCS goroutines, cut at the lines that open a rank block, calls
// alloc once with the header (num_ranks, and the largest CPU and NIC
// numbers used plus one) and the totals, and then calls visit for every
// rank block, concurrently for different blocks, with the same contract as
// ReadBinaryBlocks: op and edge are the indexes of the block's first op and
// edge in the whole schedule, w numbers the calling goroutine below
// workers, and b is only valid during the call.
//
// The blocks and the errors are exactly those of a TextReader reading r
// from its start: if a piece does not parse, or the pieces do not join up,
// the text is read again from its start on one goroutine, and the first
// error of that reading is returned. An error of alloc is returned as it
// is.
func ReadTextBlocks(r io.ReaderAt, size int64, name string, lim Limits, alloc func(h Header, ops, edges, workers int) error, visit func(w int, b *RankBlock, op, edge int)) error {
	pieces := cutText(r, size, name, lim)
	if pieces == nil {
		whole := &textPiece{lo: 0, hi: size}
		whole.parse(r, name, lim, -1, 0, true)
		if whole.err != nil {
			return whole.err
		}
		pieces = []*textPiece{whole}
	}
	h := Header{NumRanks: pieces[0].numRanks, NumCPUs: 1, NumNICs: 1}
	ops, edges := 0, 0
	opBase := make([]int, len(pieces))
	edgeBase := make([]int, len(pieces))
	for i, p := range pieces {
		opBase[i], edgeBase[i] = ops, edges
		ops += len(p.ops)
		edges += len(p.deps)
		h.NumCPUs = max(h.NumCPUs, p.cpus)
		h.NumNICs = max(h.NumNICs, p.nics)
	}
	workers := max(1, min(runtime.GOMAXPROCS(0), len(pieces)))
	if err := alloc(h, ops, edges, workers); err != nil {
		return err
	}
	var next atomic.Int64
	parallel(workers, func(w int) {
		var b RankBlock
		for {
			i := int(next.Add(1) - 1)
			if i >= len(pieces) {
				return
			}
			pieces[i].visit(w, &b, opBase[i], edgeBase[i], visit)
			pieces[i] = nil // its storage can go
		}
	})
	return nil
}

// parallel runs f(0) .. f(workers-1) on as many goroutines and waits.
func parallel(workers int, f func(w int)) {
	var wg sync.WaitGroup
	for w := 1; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w)
		}()
	}
	f(0)
	wg.Wait()
}

// textCut is how a text is cut: the head before its first rank line,
// parsed, and n windows of textPieceSize bytes after it.
type textCut struct {
	r        io.ReaderAt
	size, b0 int64
	name     string
	lim      Limits
	n        int
	head     *textPiece
}

// newTextCut reads and parses the head of the size bytes of text in r,
// whose op sizes lim bounds; nil when the text is read sequentially
// instead: no line to cut at, shorter than two windows after the head, or
// a head without num_ranks or that does not parse.
func newTextCut(r io.ReaderAt, size int64, name string, lim Limits) *textCut {
	b0 := rankLine(r, 0, size, make([]byte, 1<<16))
	if b0 >= size || size-b0 < 2*textPieceSize {
		return nil // one piece: the sequential reading
	}
	head := &textPiece{lo: 0, hi: b0}
	head.parse(r, name, lim, -1, 0, false)
	if head.err != nil || head.numRanks < 0 {
		return nil
	}
	return &textCut{r: r, size: size, b0: b0, name: name, lim: lim, head: head,
		n: int((size - b0 + textPieceSize - 1) / textPieceSize)}
}

// window parses window k into p, from the first rank line in the window
// to the first after it. It returns false, p without blocks, when the
// window has no rank line: the piece before reads on through it.
func (c *textCut) window(p *textPiece, k int, buf []byte) bool {
	from, to := c.b0+int64(k)*textPieceSize, c.b0+int64(k+1)*textPieceSize
	p.lo, p.hi, p.err = from, c.size, nil
	if k > 0 {
		p.lo = rankLine(c.r, from, min(to, c.size), buf)
	}
	if p.lo >= min(to, c.size) {
		p.ends = p.ends[:0]
		return false
	}
	if k < c.n-1 {
		p.hi = rankLine(c.r, to, c.size, buf)
	}
	p.parse(c.r, c.name, c.lim, c.head.numRanks, -1, false)
	return true
}

// cutText parses r in pieces on all CPUs, with the op sizes bounded by lim,
// and returns them in order if they join up into a whole schedule that a
// sequential reading would give too; nil if they do not, or if the text
// has no line to cut at.
func cutText(r io.ReaderAt, size int64, name string, lim Limits) []*textPiece {
	c := newTextCut(r, size, name, lim)
	if c == nil {
		return nil
	}
	head, n := c.head, c.n
	pieces := make([]*textPiece, n)
	var next atomic.Int64
	var failed atomic.Bool
	parallel(max(1, min(runtime.GOMAXPROCS(0), n)), func(int) {
		buf := make([]byte, 1<<16)
		p := new(textPiece) // grows to the largest piece, kept as copies
		for !failed.Load() {
			k := int(next.Add(1) - 1)
			if k >= n {
				return
			}
			if !c.window(p, k, buf) {
				continue // no cut in its window: the piece before reads on
			}
			if p.err != nil {
				failed.Store(true)
				return
			}
			pieces[k] = p.keep()
		}
	})
	if failed.Load() {
		return nil
	}
	// Join: every piece starts with the rank the one before ends with.
	out := []*textPiece{head}
	want := head.next
	for _, p := range pieces {
		if p == nil || len(p.ends) == 0 {
			continue
		}
		if int(p.first) != want {
			return nil
		}
		want = p.next
		out = append(out, p)
	}
	if want != head.numRanks {
		return nil
	}
	return out
}

// ReadTextAt reads a whole GOAL text schedule of size bytes from r on all
// CPUs (ReadTextBlocks) into a Schedule allocated at its final size; name
// is used in errors. The schedule and its errors are ReadText's, except
// that a schedule too large for the in-memory form is refused as a whole.
func ReadTextAt(r io.ReaderAt, size int64, name string) (*Schedule, error) {
	return ReadTextAtLimits(r, size, name, Limits{})
}

// ReadTextAtLimits is ReadTextAt with the op sizes bounded by l: an op
// beyond them is a *LimitError at its line (TextReader.SetLimits).
func ReadTextAtLimits(r io.ReaderAt, size int64, name string, l Limits) (*Schedule, error) {
	var sb scheduleBuilder
	if err := ReadTextBlocks(r, size, name, l, sb.alloc, sb.visit); err != nil {
		return nil, err
	}
	return sb.s, nil
}
