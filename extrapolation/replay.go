package extrapolation

import (
	"io"
	"unsafe"

	"github.com/gopsim/gopsim/trace"
)

// Every copy of a template rank replays that rank's calls, K copies in
// all, so that the template's trace would be decoded K times: at 102,400
// ranks from a 4-rank trace, each rank file 25,600 times, which was 40 %
// of `gopsim extrapolate`'s CPU time. The first stream of a template rank
// records its calls instead (recorder), and once it has read them all,
// the later streams replay the recording (replay). The recordings of all
// template ranks together take at most replayBudget bytes; a template
// beyond it, or one whose trace ends in an error, is read from its trace
// by every copy, as before.

// replayBudget bounds the memory of the recordings, in bytes.
var replayBudget int64 = 256 << 20

// recording is a template rank's calls as its trace stream gave them.
type recording struct {
	calls []recCall
	name  string
	file  string // the file of the calls' positions
	start int64
	bytes int64
}

// recCall is one call and the communicators a converter asks the stream
// for right after it: those of the call (Comm) and of the communicator it
// creates (NewComm), as the stream defined them at that point.
type recCall struct {
	c             trace.Call
	comm, newComm *trace.Comm
	at            recPos // where the call is in its file, for errors
}

// recPos is a trace.Position without its file, the same for every call
// of a stream.
type recPos struct {
	line           int
	record, offset int64
	end            bool
}

// recCallBytes is the memory a recorded call takes.
func recCallBytes(c *trace.Call) int64 {
	return int64(unsafe.Sizeof(recCall{})) + int64(len(c.Done))*int64(unsafe.Sizeof(trace.Completion{})) +
		8*int64(len(c.Counts)+len(c.RecvCounts))
}

// openTemplate opens template rank r: a replay of its recording when
// there is one, else its trace stream, recording it when no other stream
// does and the budget allows.
func (x *Source) openTemplate(r int) (trace.RankStream, error) {
	x.recMu.Lock()
	if rec := x.recs[r]; rec != nil {
		x.recMu.Unlock()
		return &replay{rec: rec}, nil
	}
	record := !x.recTried[r] && x.recBytes < replayBudget
	x.recTried[r] = true
	x.recMu.Unlock()
	in, err := x.src.OpenRank(r)
	if err != nil || !record {
		return in, err
	}
	return &recorder{x: x, r: r, in: in, rec: &recording{name: in.Name(), start: in.Start()}}, nil
}

// reserve takes n bytes of the budget for a recording; false when they
// do not fit.
func (x *Source) reserve(n int64) bool {
	x.recMu.Lock()
	defer x.recMu.Unlock()
	if x.recBytes+n > replayBudget {
		return false
	}
	x.recBytes += n
	return true
}

// keep makes rec, complete, template rank r's recording; drop gives a
// recording's bytes back.
func (x *Source) keep(r int, rec *recording) {
	x.recMu.Lock()
	x.recs[r] = rec
	x.recMu.Unlock()
}

func (x *Source) drop(rec *recording) {
	x.recMu.Lock()
	x.recBytes -= rec.bytes
	x.recMu.Unlock()
}

// recorder passes a template rank's stream through and records it.
type recorder struct {
	x   *Source
	r   int
	in  trace.RankStream
	rec *recording // nil once given up or kept
}

func (s *recorder) Next(c *trace.Call) error {
	err := s.in.Next(c)
	rec := s.rec
	switch {
	case rec == nil:
	case err == io.EOF:
		s.x.keep(s.r, rec)
		s.rec = nil
	case err != nil:
		s.giveUp()
	default:
		n := recCallBytes(c)
		if !s.x.reserve(n) {
			s.giveUp()
			break
		}
		rec.bytes += n
		p := s.in.Where()
		rec.file = p.File
		rec.calls = append(rec.calls, recCall{c: c.Clone(), comm: s.in.Comm(c.Comm), newComm: s.in.Comm(c.NewComm),
			at: recPos{line: p.Line, record: p.Record, offset: p.Offset, end: p.End}})
	}
	return err
}

func (s *recorder) giveUp() {
	s.x.drop(s.rec)
	s.rec = nil
}

func (s *recorder) Comm(id int32) *trace.Comm { return s.in.Comm(id) }
func (s *recorder) Name() string              { return s.in.Name() }
func (s *recorder) Where() trace.Position     { return s.in.Where() }
func (s *recorder) Start() int64              { return s.in.Start() }

func (s *recorder) Close() error {
	if s.rec != nil { // closed before the end
		s.giveUp()
	}
	return s.in.Close()
}

// replay gives a recording's calls again.
type replay struct {
	rec *recording
	i   int      // the next call
	cur *recCall // the last call given
}

func (s *replay) Next(c *trace.Call) error {
	if s.i == len(s.rec.calls) {
		s.cur = nil
		return io.EOF
	}
	rc := &s.rec.calls[s.i]
	s.i++
	s.cur = rc
	// c's own storage, as a trace stream fills a reused Call: the copy's
	// stream rewrites its peers in place.
	done, counts, recvCounts := c.Done[:0], c.Counts[:0], c.RecvCounts[:0]
	*c = rc.c
	c.Done = append(done, rc.c.Done...)
	c.Counts = append(counts, rc.c.Counts...)
	c.RecvCounts = append(recvCounts, rc.c.RecvCounts...)
	return nil
}

// Comm returns the communicators of the last call given (its Comm and
// NewComm), as the recorded stream defined them then; nil for any other
// id, which no converter asks for.
func (s *replay) Comm(id int32) *trace.Comm {
	switch {
	case s.cur == nil || id < 0:
		return nil
	case id == s.cur.c.Comm:
		return s.cur.comm
	case id == s.cur.c.NewComm:
		return s.cur.newComm
	}
	return nil
}

func (s *replay) Name() string { return s.rec.name }

// Where is the recorded position of the call last given.
func (s *replay) Where() trace.Position {
	if s.cur == nil {
		return trace.Position{File: s.rec.name}
	}
	return trace.Position{File: s.rec.file, Line: s.cur.at.line, Record: s.cur.at.record, Offset: s.cur.at.offset, End: s.cur.at.end}
}
func (s *replay) Start() int64 { return s.rec.start }
func (s *replay) Close() error { return nil }
