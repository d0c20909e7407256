package goal

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// Reading a text schedule on several cores, in order and in bounded memory.
//
// TextStream cuts the text as ReadTextBlocks does (textblocks.go) and
// parses the pieces on all CPUs, but at most a few pieces ahead of the
// caller, who takes the blocks in order. A worker takes a token before it
// claims the next piece and the caller gives it back when it has handed
// out the piece's last block, so the pieces parsed and not yet handed out
// are bounded and the piece the caller waits for always has a worker.
//
// The blocks handed out are exactly a TextReader's, and so is the first
// error: a piece is handed out only if it parsed and starts with the rank
// its predecessor ends with. Otherwise, and at the end of the text, one
// TextReader reads on from the start of that piece, counting lines from
// the file's start, and the blocks it returns that were already handed out
// are skipped.

// TextStream reads a GOAL text schedule from an io.ReaderAt on all CPUs
// and hands out its rank blocks in order, as a TextReader reading it from
// its start would: the same blocks and the same first error. It holds a
// few pieces of about a MiB each, whatever the size of the text. Close it
// to stop its goroutines.
type TextStream struct {
	r    io.ReaderAt
	size int64
	name string
	lim  Limits

	seq  *TextReader // reading on sequentially (small text, or after a piece failed)
	skip int         // blocks below this rank that seq returns were handed out already

	cut     *textCut
	head    *textPiece // cut.head
	n       int        // cut.n: the windows
	results []chan *textPiece
	tokens  chan struct{}
	free    chan *textPiece
	stop    chan struct{}
	wg      sync.WaitGroup
	claimed atomic.Int64

	k    int        // next window to take
	cur  *textPiece // the piece being handed out
	blk  int        // its next block
	o    blockEnd   // where that block starts
	want int        // the rank the next block must have
	// lastLo and lastFirst are where the last piece handed out starts and
	// its first rank: the end of the text is read again from there.
	lastLo    int64
	lastFirst int
	done      atomic.Int64
	handed    int // blocks handed out from pieces (tests)
}

// textAhead is how many pieces per worker may be parsed before the caller
// takes them.
const textAhead = 2

// NewTextStream returns a stream of the rank blocks of the size bytes of
// GOAL text in r; name is used in errors, and an op beyond lim is an
// error (TextReader.SetLimits; the zero Limits bound nothing).
func NewTextStream(r io.ReaderAt, size int64, name string, lim Limits) *TextStream {
	s := &TextStream{r: r, size: size, name: name, lim: lim}
	c := newTextCut(r, size, name, lim)
	if c == nil {
		s.sequential(0, 0, -1, 0)
		return s
	}
	// The head's blocks (a text may open one before its first rank line)
	// come first.
	s.cut, s.head, s.n, s.cur = c, c.head, c.n, c.head
	workers := max(1, min(runtime.GOMAXPROCS(0), s.n))
	s.results = make([]chan *textPiece, s.n)
	for i := range s.results {
		s.results[i] = make(chan *textPiece, 1)
	}
	s.tokens = make(chan struct{}, workers*textAhead)
	s.free = make(chan *textPiece, workers*textAhead+1)
	s.stop = make(chan struct{})
	for range workers {
		s.wg.Add(1)
		go s.work()
	}
	return s
}

// work parses windows in order of claim, each after taking a token.
func (s *TextStream) work() {
	defer s.wg.Done()
	buf := make([]byte, 1<<16)
	for {
		select {
		case <-s.stop:
			return
		default:
		}
		select {
		case s.tokens <- struct{}{}:
		case <-s.stop:
			return
		}
		k := int(s.claimed.Add(1) - 1)
		if k >= s.n {
			return
		}
		var p *textPiece
		select {
		case p = <-s.free:
		default:
			p = new(textPiece)
		}
		s.cut.window(p, k, buf)
		s.results[k] <- p // buffered: never blocks
	}
}

// NumRanks is the num_ranks of the text, or -1 while it is not known
// (once Next has returned a block, it is).
func (s *TextStream) NumRanks() int {
	if s.seq != nil {
		return s.seq.NumRanks()
	}
	return s.head.numRanks
}

// Consumed is about how many bytes of the text have been handed out, for
// a progress bar: safe to call from any goroutine.
func (s *TextStream) Consumed() int64 { return s.done.Load() }

// Next fills b with the next rank block. It returns io.EOF after the last
// one, or the first error a TextReader would give.
func (s *TextStream) Next(b *RankBlock) error {
	for s.seq == nil {
		if s.cur != nil && s.blk < len(s.cur.ends) {
			s.handOut(b)
			return nil
		}
		if s.cur != nil {
			s.release()
		}
		if s.k == s.n {
			// The end: what a sequential reading says there (missing
			// blocks, or nothing), from the last piece on.
			s.resume(s.lastLo, s.lastFirst)
			break
		}
		p := <-s.results[s.k]
		s.k++
		if len(p.ends) == 0 && p.err == nil {
			s.recycle(p)
			continue
		}
		if p.err != nil || int(p.first) != s.want {
			lo := p.lo
			s.recycle(p)
			s.resume(lo, s.want)
			break
		}
		s.cur, s.blk, s.o = p, 0, blockEnd{}
		s.lastLo, s.lastFirst = p.lo, int(p.first)
		s.done.Store(p.lo)
	}
	for {
		if err := s.seq.Next(b); err != nil {
			if err == io.EOF {
				s.done.Store(s.size)
			}
			return err
		}
		if int(b.Rank) >= s.skip {
			return nil
		}
	}
}

// handOut copies the current piece's next block into b.
func (s *TextStream) handOut(b *RankBlock) {
	p, k, e := s.cur, s.blk, s.cur.ends[s.blk]
	b.Reset(p.first + int32(k))
	b.Ops = append(b.Ops, p.ops[s.o.ops:e.ops]...)
	b.DepStart = append(b.DepStart, p.depStart[s.o.ops+k:e.ops+k+1]...)
	b.Deps = append(b.Deps, p.deps[s.o.deps:e.deps]...)
	b.Labels = append(b.Labels, p.labels[s.o.labels:e.labels]...)
	s.blk, s.o = k+1, e
	s.want = int(b.Rank) + 1
	s.handed++
}

// release gives back the token and the storage of the piece handed out
// (the head has neither).
func (s *TextStream) release() {
	if s.cur != s.head {
		s.recycle(s.cur)
	}
	s.cur = nil
}

// recycle gives back a piece taken from the results, and its token.
func (s *TextStream) recycle(p *textPiece) {
	<-s.tokens
	select {
	case s.free <- p:
	default:
	}
}

// resume stops the workers and reads on from offset lo with one
// TextReader that expects rank first there, skipping the blocks below
// s.want, which were handed out.
func (s *TextStream) resume(lo int64, first int) {
	s.stopWorkers()
	s.sequential(lo, s.lines(lo), first, s.want)
	if lo > 0 { // past the head, which a reading from 0 reads itself
		s.seq.numRanks, s.seq.numRanksLine = s.head.numRanks, s.head.numLine
	}
}

// sequential reads on from offset lo, the start of line num+1, expecting
// rank next (-1: the start of the file), skipping blocks below skip.
func (s *TextStream) sequential(lo int64, num, next, skip int) {
	t := newTextReader(bufio.NewReaderSize(io.NewSectionReader(s.r, lo, s.size-lo), 1<<16), s.name)
	t.SetLimits(s.lim)
	t.num = num
	if next >= 0 {
		t.next = next
	}
	s.seq, s.skip = t, skip
}

// lines counts the newlines in the first lo bytes of the text.
func (s *TextStream) lines(lo int64) int {
	buf := make([]byte, 1<<20)
	n := 0
	for off := int64(0); off < lo; {
		m, err := s.r.ReadAt(buf[:min(int64(len(buf)), lo-off)], off)
		n += bytes.Count(buf[:m], []byte{'\n'})
		off += int64(m)
		if err != nil || m == 0 {
			break
		}
	}
	return n
}

// Close stops the stream's goroutines. Next must not be called after it.
func (s *TextStream) Close() { s.stopWorkers() }

// stopWorkers stops the workers, once.
func (s *TextStream) stopWorkers() {
	if s.stop == nil {
		return
	}
	close(s.stop)
	s.wg.Wait()
	s.stop = nil
}
