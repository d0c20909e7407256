package otf2

// OTF2 traces (Score-P and other writers of the Open Trace Format 2): an
// anchor file NAME.otf2, the global definitions NAME.def and a directory
// NAME/ with the definitions and events of each location.
//
// How gopsim reads them: natively. Open decodes the archive
// (archive.go specifies the binary format; archive_defs.go and
// archive_events.go the records read) and converts each MPI rank's
// events into calls (archive_convert.go says how, and what cannot be
// modelled). No OTF2 library or tool is needed. Open reads every rank's
// location once, to check it and to count what cannot be modelled; then
// OpenRank decodes a location again while the converter reads its calls,
// so memory follows the ranks being converted, not the trace. ReadPrint
// (print.go) reads otf2-print's text of an archive into the same
// definitions and events, for the tests to compare.

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gopsim/gopsim/trace"
)

// Options control the OTF2 importer. The zero value fails on MPI
// calls it cannot model.
type Options struct {
	// Unsupported is "" (Open fails, listing the calls it cannot model
	// with their counts) or "calc" (their time counts as computation;
	// Unsupported() lists them).
	Unsupported string
}

// Trace is an OTF2 trace. It is a trace.Source and a
// trace.UnsupportedReporter.
type Trace struct {
	Anchor string // the anchor file
	// Warnings lists, with counts, what the reader ignored or assumed.
	Warnings []string
	// Archive is the archive Open decoded (nil for ReadPrint).
	Archive *Archive

	m           *model
	starts      []int64        // each rank's start: the end of its MPI_Init
	mem         [][]trace.Call // each rank's calls, from ReadPrint
	memLines    [][]callAt     // where each call of mem is: its line in the print
	unsupported map[string]int64
}

// Open reads the OTF2 trace whose anchor file is path (NAME.otf2), or
// the only anchor file in the directory path.
func Open(path string, opt Options) (*Trace, error) {
	if err := trace.CheckUnsupportedPolicy(opt.Unsupported); err != nil {
		return nil, err
	}
	anchor, err := otf2Anchor(path)
	if err != nil {
		return nil, err
	}
	a, err := OpenArchive(anchor)
	if err != nil {
		return nil, err
	}
	m, err := newModel(a.Defs)
	if err != nil {
		def := strings.TrimSuffix(anchor, filepath.Ext(anchor)) + ".def"
		return nil, &ArchiveError{File: def, Offset: -1, Msg: err.Error()}
	}
	t := &Trace{Anchor: anchor, Archive: a, m: m, starts: make([]int64, len(m.locs))}
	n := newCounts()
	for r := range m.locs {
		if err := t.scan(r, n); err != nil {
			return nil, err
		}
	}
	for _, l := range a.Defs.Locations {
		if _, ok := m.rankOf[l.ID]; !ok && l.Events > 0 {
			n.warn["OTF2 events of locations that are not MPI ranks (threads, devices): ignored"] += int64(l.Events)
		}
	}
	t.unsupported, t.Warnings = n.unsup, trace.CountLines(n.warn)
	if len(n.unsup) > 0 && opt.Unsupported == "" {
		return nil, trace.UnsupportedCalls("trace: otf2 "+anchor, n.unsup)
	}
	return t, nil
}

// otf2Anchor finds the anchor file named by path.
func otf2Anchor(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("trace: otf2: %w", err)
	}
	if !fi.IsDir() {
		return path, nil
	}
	m, _ := filepath.Glob(filepath.Join(path, "*.otf2"))
	switch len(m) {
	case 0:
		return "", fmt.Errorf("trace: otf2: %s: no anchor file (*.otf2)", path)
	case 1:
		return m[0], nil
	}
	return "", fmt.Errorf("trace: otf2: %s: several anchor files (%s): name one", path, strings.Join(m, ", "))
}

// Detect reports whether path is an OTF2 anchor file, or a directory
// with exactly one, judged by the name and the file's first bytes.
func Detect(path string) bool {
	anchor, err := otf2Anchor(path)
	if err != nil || !strings.HasSuffix(anchor, ".otf2") {
		return false
	}
	f, err := os.Open(anchor)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte("OTF2"))
}

// Unsupported counts, by kind, the MPI calls that could not be modelled
// (their time counted as computation).
func (t *Trace) Unsupported() map[string]int64 { return trace.CopyCounts(t.unsupported) }

// rankEvents opens rank r's events and its converter (counting into n,
// or not when n is nil).
func (t *Trace) rankEvents(r int, n *counts) (*EventReader, *locConv, error) {
	er, err := t.Archive.Events(t.m.locs[r])
	if err != nil {
		return nil, nil, err
	}
	file := er.c.name
	l := newLocConv(t.m, n, r, func(pos int64, msg string) error {
		return &ArchiveError{File: file, Offset: pos, Msg: msg}
	})
	return er, l, nil
}

// scan reads rank r's events once: it checks them, counts what cannot be
// modelled and finds the rank's start.
func (t *Trace) scan(r int, n *counts) error {
	er, l, err := t.rankEvents(r, n)
	if err != nil {
		return err
	}
	defer er.Close()
	var ev Event
	first, seen := int64(-1), false
	for {
		err := er.Next(&ev)
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		l.pos = ev.Offset
		if err := l.event(&ev); err != nil {
			return err
		}
		if k := l.ready(); k > 0 {
			if !seen {
				first, seen = l.out[l.head].Start, true
			}
			l.take(k)
		}
	}
	if err := l.finish(); err != nil {
		return err
	}
	if k := l.ready(); k > 0 && !seen {
		first, seen = l.out[l.head].Start, true
	}
	if want := t.m.events[r]; want > 0 && er.Count() != want {
		return &ArchiveError{File: er.c.name, Offset: er.c.off(),
			Msg: fmt.Sprintf("rank %d: %d events in the file, its location definition announces %d", r, er.Count(), want)}
	}
	switch {
	case l.inited:
		t.starts[r] = l.start
	case seen:
		t.starts[r] = first
	}
	return nil
}

// NumRanks is the number of MPI processes.
func (t *Trace) NumRanks() int { return len(t.m.locs) }

// OpenRank returns rank r's calls: decoded from its location's events as
// they are read (Open), or from memory (ReadPrint).
func (t *Trace) OpenRank(r int) (trace.RankStream, error) {
	if r < 0 || r >= len(t.m.locs) {
		return nil, fmt.Errorf("trace: otf2: rank %d outside 0..%d", r, len(t.m.locs)-1)
	}
	if t.mem != nil {
		return &memStream{rankComms: rankComms{t.m, r}, t: t, calls: t.mem[r], at: t.memLines[r]}, nil
	}
	er, l, err := t.rankEvents(r, nil)
	if err != nil {
		return nil, err
	}
	return &archiveStream{rankComms: rankComms{t.m, r}, t: t, er: er, l: l}, nil
}

// rankComms gives a rank's stream its communicators.
type rankComms struct {
	m *model
	r int
}

func (s rankComms) Comm(id int32) *trace.Comm {
	if id < 0 || int(id) >= len(s.m.comms) {
		return nil
	}
	if s.m.self[id] {
		return &trace.Comm{ID: id, Members: []int32{int32(s.r)}}
	}
	return s.m.comms[id]
}

// copyCall copies src into c, reusing c's slices.
func copyCall(c, src *trace.Call) {
	done, cnt, rcnt := c.Done[:0], c.Counts[:0], c.RecvCounts[:0]
	*c = *src
	c.Done = append(done, src.Done...)
	c.Counts = append(cnt, src.Counts...)
	c.RecvCounts = append(rcnt, src.RecvCounts...)
}

// memStream is a rank's calls read by ReadPrint.
type memStream struct {
	rankComms
	t     *Trace
	calls []trace.Call
	at    []callAt // where each call is: its line
	next  int
}

func (s *memStream) Next(c *trace.Call) error {
	if s.next >= len(s.calls) {
		return io.EOF
	}
	copyCall(c, &s.calls[s.next])
	s.next++
	return nil
}

func (s *memStream) Name() string { return fmt.Sprintf("%s (rank %d)", s.t.Anchor, s.r) }

// Where is the line of otf2-print's output where the call last given
// starts (its Enter event).
func (s *memStream) Where() trace.Position {
	p := trace.Position{File: s.t.Anchor}
	if s.next > 0 {
		p.Line = int(s.at[s.next-1].pos)
	}
	return p
}
func (s *memStream) Start() int64 { return s.t.starts[s.r] }
func (s *memStream) Close() error { return nil }

// archiveStream is a rank's calls, decoded as they are read.
type archiveStream struct {
	rankComms
	t   *Trace
	er  *EventReader
	l   *locConv
	ev  Event
	eof bool
	at  callAt // of the call given last
}

func (s *archiveStream) Next(c *trace.Call) error {
	l := s.l
	for l.ready() == 0 {
		if s.eof {
			return io.EOF
		}
		err := s.er.Next(&s.ev)
		if err == io.EOF {
			s.eof = true
			if err := l.finish(); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		l.pos, l.evn = s.ev.Offset, int64(s.er.Count())
		if err := l.event(&s.ev); err != nil {
			return err
		}
	}
	copyCall(c, &l.out[l.head])
	s.at = l.at[l.head]
	l.take(1)
	return nil
}

func (s *archiveStream) Name() string { return fmt.Sprintf("%s (rank %d)", s.t.Anchor, s.r) }

// Where is the event the call last given starts with (its Enter): its
// number among the rank's events and its byte offset in the event file.
func (s *archiveStream) Where() trace.Position {
	return trace.Position{File: s.er.c.name, Record: s.at.n, Offset: s.at.pos}
}
func (s *archiveStream) Start() int64 { return s.t.starts[s.r] }
func (s *archiveStream) Close() error { return s.er.Close() }
