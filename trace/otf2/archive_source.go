package otf2

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/gopsim/gopsim/trace"
)

// ArchiveTrace is an OTF2 archive read natively as a trace.Source (and
// an UnsupportedReporter). OpenArchiveTrace reads every rank's location
// once, to check it and to count what cannot be modelled; OpenRank decodes
// the location again while its calls are read. Memory follows the ranks
// being converted (a chunk of events, 1 MiB with Score-P's default, and
// the calls between a nonblocking collective and its wait), not the trace.
type ArchiveTrace struct {
	Archive *Archive
	// Warnings lists, with counts, what the reader ignored or assumed.
	Warnings []string

	m           *model
	starts      []int64 // each rank's start: the end of its MPI_Init
	unsupported map[string]int64
}

// OpenArchiveTrace opens the archive whose anchor file is path as a
// trace. unsupported is "" (fail, listing the MPI calls that cannot be
// modelled) or "calc" (count their time as computation).
func OpenArchiveTrace(path, unsupported string) (*ArchiveTrace, error) {
	if unsupported != "" && unsupported != "calc" {
		return nil, fmt.Errorf("otf2: unsupported-call policy %q: expected calc or nothing", unsupported)
	}
	a, err := OpenArchive(path)
	if err != nil {
		return nil, err
	}
	m, err := newModel(a.Defs)
	if err != nil {
		return nil, fmt.Errorf("otf2: %s: %w: %v", strings.TrimSuffix(path, ".otf2")+".def", ErrArchive, err)
	}
	t := &ArchiveTrace{Archive: a, m: m, starts: make([]int64, len(m.locs))}
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
	t.unsupported = n.unsup
	for k, v := range n.warn {
		t.Warnings = append(t.Warnings, fmt.Sprintf("%s x%d", k, v))
	}
	sort.Strings(t.Warnings)
	if len(n.unsup) > 0 && unsupported == "" {
		return nil, fmt.Errorf("trace: otf2 %s: %w (use --unsupported=calc to count their time as computation): %s",
			path, trace.ErrUnsupported, countList(n.unsup))
	}
	return t, nil
}

func countList(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = fmt.Sprintf("%s x%d", k, m[k])
	}
	return strings.Join(keys, ", ")
}

// rankEvents opens rank r's events and its converter (counting into n,
// or not when n is nil).
func (t *ArchiveTrace) rankEvents(r int, n *counts) (*EventReader, *locConv, error) {
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
func (t *ArchiveTrace) scan(r int, n *counts) error {
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
func (t *ArchiveTrace) NumRanks() int { return len(t.m.locs) }

// Unsupported counts, by kind, the MPI calls that could not be modelled
// (their time counted as computation).
func (t *ArchiveTrace) Unsupported() map[string]int64 {
	out := make(map[string]int64, len(t.unsupported))
	for k, v := range t.unsupported {
		out[k] = v
	}
	return out
}

// OpenRank returns rank r's calls, decoded from its location's events as
// they are read.
func (t *ArchiveTrace) OpenRank(r int) (trace.RankStream, error) {
	if r < 0 || r >= len(t.m.locs) {
		return nil, fmt.Errorf("otf2: rank %d outside 0..%d", r, len(t.m.locs)-1)
	}
	er, l, err := t.rankEvents(r, nil)
	if err != nil {
		return nil, err
	}
	return &archiveStream{t: t, r: r, er: er, l: l}, nil
}

type archiveStream struct {
	t   *ArchiveTrace
	r   int
	er  *EventReader
	l   *locConv
	ev  Event
	eof bool
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
		l.pos = s.ev.Offset
		if err := l.event(&s.ev); err != nil {
			return err
		}
	}
	src := &l.out[l.head]
	done, cnt, rcnt := c.Done[:0], c.Counts[:0], c.RecvCounts[:0]
	*c = *src
	c.Done = append(done, src.Done...)
	c.Counts = append(cnt, src.Counts...)
	c.RecvCounts = append(rcnt, src.RecvCounts...)
	l.take(1)
	return nil
}

func (s *archiveStream) Comm(id int32) *trace.Comm {
	m := s.t.m
	if id < 0 || int(id) >= len(m.comms) {
		return nil
	}
	if m.self[id] {
		return &trace.Comm{ID: id, Members: []int32{int32(s.r)}}
	}
	return m.comms[id]
}

func (s *archiveStream) Name() string { return fmt.Sprintf("%s (rank %d)", s.t.Archive.Path, s.r) }
func (s *archiveStream) Start() int64 { return s.t.starts[s.r] }
func (s *archiveStream) Close() error { return s.er.Close() }
