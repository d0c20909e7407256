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
// sorts each rank's records alone, appends them to a scratch file
// (Options.TempDir, removed at once), and merges the ranks' sorted runs
// from the file: memory follows one rank's records and a read buffer per
// rank. Records of different ranks never compare equal (the task is part
// of the order), so the merge gives exactly the stable sort of all the
// records in generation order.

// prvRecSize is a prvRec in the scratch file: time, end, val (int64),
// task, thread (int32), kind (byte).
const prvRecSize = 8 + 8 + 8 + 4 + 4 + 1

func (x *prvRec) put(b []byte) {
	le := binary.LittleEndian
	le.PutUint64(b[0:], uint64(x.time))
	le.PutUint64(b[8:], uint64(x.end))
	le.PutUint64(b[16:], uint64(x.val))
	le.PutUint32(b[24:], uint32(x.task))
	le.PutUint32(b[28:], uint32(x.thread))
	b[32] = x.kind
}

func (x *prvRec) get(b []byte) {
	le := binary.LittleEndian
	x.time = int64(le.Uint64(b[0:]))
	x.end = int64(le.Uint64(b[8:]))
	x.val = int64(le.Uint64(b[16:]))
	x.task = int32(le.Uint32(b[24:]))
	x.thread = int32(le.Uint32(b[28:]))
	x.kind = b[32]
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

// prvRuns is the scratch file of the ranks' sorted records.
type prvRuns struct {
	f    *os.File
	w    *bufio.Writer
	off  int64
	runs [][2]int64 // per shown rank: first byte and records
	buf  []byte
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
	return &prvRuns{f: f, w: bufio.NewWriterSize(f, 256<<10), buf: make([]byte, prvRecSize)}, nil
}

// add sorts one rank's records and appends them as its run.
func (s *prvRuns) add(recs []prvRec) error {
	slices.SortStableFunc(recs, comparePrv)
	s.runs = append(s.runs, [2]int64{s.off, int64(len(recs))})
	for i := range recs {
		recs[i].put(s.buf)
		if _, err := s.w.Write(s.buf); err != nil {
			return fmt.Errorf("timeline: scratch file for sorting the .prv: %w", err)
		}
	}
	s.off += int64(len(recs)) * prvRecSize
	return nil
}

func (s *prvRuns) close() { s.f.Close() }

// mergeBuffer is the memory the merge reads the runs through, shared
// among them (between 512 bytes and 64 KiB a run).
const mergeBuffer = 32 << 20

// merge calls fn with every record of the runs, in order.
func (s *prvRuns) merge(fn func(x *prvRec) error) error {
	if err := s.w.Flush(); err != nil {
		return fmt.Errorf("timeline: scratch file for sorting the .prv: %w", err)
	}
	size := min(max(mergeBuffer/max(len(s.runs), 1), 512), 64<<10)
	type head struct {
		x    prvRec
		left int64
		r    *bufio.Reader
	}
	heads := make([]head, 0, len(s.runs))
	b := make([]byte, prvRecSize)
	next := func(h *head) error {
		if _, err := io.ReadFull(h.r, b); err != nil {
			return fmt.Errorf("timeline: reading back the .prv scratch file: %w", err)
		}
		h.x.get(b)
		h.left--
		return nil
	}
	for _, run := range s.runs {
		if run[1] == 0 {
			continue
		}
		h := head{left: run[1], r: bufio.NewReaderSize(io.NewSectionReader(s.f, run[0], run[1]*prvRecSize), size)}
		if err := next(&h); err != nil {
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
		if err := fn(&h.x); err != nil {
			return err
		}
		if h.left == 0 {
			heads[0] = heads[len(heads)-1]
			heads = heads[:len(heads)-1]
		} else if err := next(h); err != nil {
			return err
		}
		down(0)
	}
	return nil
}
