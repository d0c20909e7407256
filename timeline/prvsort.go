package timeline

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"slices"
)

// The .prv body is sorted by time over all shown ranks. Held in memory,
// its records would grow with the run (about three per op), so WritePRV
// formats and sorts each rank's lines alone, appends them with their sort
// keys to a scratch file (Options.TempDir, removed at once), and merges
// the ranks' sorted runs from the file: memory follows one rank's lines
// and a read buffer per rank, and the merge reads nothing but the file
// (a line formatted while its rank is read finds the run's records and
// the schedule's ops where they are cheap to read, rank by rank).
// Records of different ranks never compare equal (the task is part of
// the order), so the merge gives exactly the stable sort of all the
// records in generation order.

// prvKeySize is a record's key in the scratch file: time (int64), task,
// thread (int32), kind, whether end is 0 (bytes), and the length of its
// line (uint16).
const prvKeySize = 8 + 4 + 4 + 1 + 1 + 2

func (x *prvRec) putKey(b []byte, n int) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(x.time))
	le.PutUint32(b[8:], uint32(x.task))
	le.PutUint32(b[12:], uint32(x.thread))
	b[16] = x.kind
	b[17] = 0
	if x.end != 0 {
		b[17] = 1
	}
	le.PutUint16(b[18:], uint16(n))
}

// getKey reads a key: the record's ordering fields (end is 0 or 1) and
// its line's length.
func (x *prvRec) getKey(b []byte) int {
	le := binary.LittleEndian
	x.time = int64(le.Uint64(b[0:]))
	x.task = int32(le.Uint32(b[8:]))
	x.thread = int32(le.Uint32(b[12:]))
	x.kind = b[16]
	x.end = int64(b[17])
	return int(le.Uint16(b[18:]))
}

// comparePrv is the order of the .prv body: time, record type, task,
// thread, and an op's end before the next op's start.
func comparePrv(a, b prvRec) int {
	switch {
	case a.time != b.time:
		return cmpInt64(a.time, b.time)
	case a.kind != b.kind:
		return int(a.kind) - int(b.kind)
	case a.task != b.task:
		return int(a.task - b.task)
	case a.thread != b.thread:
		return int(a.thread - b.thread)
	case a.kind == 2 && (a.end == 0) != (b.end == 0):
		if a.end == 0 {
			return -1
		}
		return 1
	}
	return 0
}

// prvRuns is the scratch file of the ranks' sorted lines.
type prvRuns struct {
	f    *os.File
	w    *bufio.Writer
	off  int64
	runs [][2]int64 // per shown rank: first byte and records
	key  []byte
}

func newPrvRuns(dir string) (*prvRuns, error) {
	f, err := os.CreateTemp(dir, "gopsim-paraver-*")
	if err != nil {
		return nil, fmt.Errorf("timeline: scratch file for sorting the .prv: %w", err)
	}
	if err := os.Remove(f.Name()); err != nil {
		f.Close()
		return nil, fmt.Errorf("timeline: scratch file for sorting the .prv: %w", err)
	}
	return &prvRuns{f: f, w: bufio.NewWriterSize(f, 256<<10), key: make([]byte, prvKeySize)}, nil
}

// add sorts one rank's records, whose lines are text[x.at:x.at+x.n],
// and appends them as its run.
func (s *prvRuns) add(recs []prvRec, text []byte) error {
	slices.SortStableFunc(recs, comparePrv)
	start := s.off
	for i := range recs {
		x := &recs[i]
		x.putKey(s.key, int(x.n))
		if _, err := s.w.Write(s.key); err != nil {
			return fmt.Errorf("timeline: scratch file for sorting the .prv: %w", err)
		}
		if _, err := s.w.Write(text[x.at : x.at+x.n]); err != nil {
			return fmt.Errorf("timeline: scratch file for sorting the .prv: %w", err)
		}
		s.off += prvKeySize + int64(x.n)
	}
	s.runs = append(s.runs, [2]int64{start, int64(len(recs))})
	return nil
}

func (s *prvRuns) close() { s.f.Close() }

// mergeBuffer is the memory the merge reads the runs through, shared
// among them (between 512 bytes and 64 KiB a run).
const mergeBuffer = 32 << 20

// mergeHead is the next record of one run.
type mergeHead struct {
	x    prvRec
	line []byte
	left int64
	r    *bufio.Reader
}

// next reads the head's next record.
func (h *mergeHead) next(key []byte) error {
	if _, err := io.ReadFull(h.r, key); err != nil {
		return fmt.Errorf("timeline: reading back the .prv scratch file: %w", err)
	}
	n := h.x.getKey(key)
	h.line = grow(h.line, n)
	if _, err := io.ReadFull(h.r, h.line); err != nil {
		return fmt.Errorf("timeline: reading back the .prv scratch file: %w", err)
	}
	h.left--
	return nil
}

func grow(b []byte, n int) []byte {
	if cap(b) >= n {
		return b[:n]
	}
	return make([]byte, n, max(n, 64))
}

// merge writes the lines of the runs to w, in order.
func (s *prvRuns) merge(w io.Writer) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("timeline: scratch file for sorting the .prv: %w", err)
	}
	size := min(max(mergeBuffer/max(len(s.runs), 1), 512), 64<<10)
	heads := make([]mergeHead, 0, len(s.runs))
	key := make([]byte, prvKeySize)
	for i, run := range s.runs {
		if run[1] == 0 {
			continue
		}
		end := s.off
		if i+1 < len(s.runs) {
			end = s.runs[i+1][0]
		}
		h := mergeHead{left: run[1], r: bufio.NewReaderSize(io.NewSectionReader(s.f, run[0], end-run[0]), size)}
		if err := h.next(key); err != nil {
			return err
		}
		heads = append(heads, h)
	}
	less := func(i, j int) bool { return comparePrv(heads[i].x, heads[j].x) < 0 }
	down := func(i int) {
		for {
			m := i
			if l := 2*i + 1; l < len(heads) && less(l, m) {
				m = l
			}
			if r := 2*i + 2; r < len(heads) && less(r, m) {
				m = r
			}
			if m == i {
				return
			}
			heads[i], heads[m] = heads[m], heads[i]
			i = m
		}
	}
	for i := len(heads)/2 - 1; i >= 0; i-- {
		down(i)
	}
	for len(heads) > 0 {
		h := &heads[0]
		if _, err := w.Write(h.line); err != nil {
			return err
		}
		if h.left == 0 {
			heads[0] = heads[len(heads)-1]
			heads = heads[:len(heads)-1]
		} else if err := h.next(key); err != nil {
			return err
		}
		down(0)
	}
	return nil
}
