package sweep

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// With Options.Stream, the points of one transformation of the schedule
// (compute_scale, extrapolate_factor) run on shares of one streamed
// program (sim.Program.Share): the schedule is spilled once, and each
// simulation keeps only its active window in memory, where each worker
// would otherwise compile a copy of its own. Without a transformation in
// the spec, the input is streamed from its file straight into the spill
// file and never held in memory; otherwise the schedule is read into
// memory to be transformed, and each transformation is spilled from it.

// transforms reports whether a point of the spec transforms the schedule.
func (s *Spec) transforms() bool {
	for id := range s.NumPoints() {
		if p := s.Point(id); p.ComputeScale != 1 || p.Extrapolate != 1 {
			return true
		}
	}
	return false
}

// limits are the op sizes a sweep of the points of shard sh reads its
// schedule with: the engine's (sim.Limits), so that an op beyond them is
// refused at its line before any point runs, as gopsim sim refuses it;
// but a calc is bounded only when a point keeps or scales up compute,
// since a compute_scale below 1 may bring a longer calc within the limit
// (a point for which it does not fails when it runs).
func (s *Spec) limits(sh Shard) goal.Limits {
	l := sim.Limits()
	for id := range s.NumPoints() {
		if sh.Has(id) && s.Point(id).ComputeScale >= 1 {
			return l
		}
	}
	l.Calc = 0
	return l
}

// readStreamed reads the schedule at path into a streamed program whose
// spill file goes to dir, and hashes its bytes. A text in a regular file
// is parsed on all CPUs (sim.ReadTextProgramStreamAt) and hashed by a
// second reading alongside; anything else is read once, hashed on the
// way.
func readStreamed(path, dir string) (*sim.Program, scheduleInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, scheduleInfo{}, err
	}
	defer f.Close()
	h := sha256.New()
	br := bufio.NewReaderSize(io.TeeReader(f, h), 1<<16)
	opt := sim.StreamOptions{Dir: dir}
	var p *sim.Program
	format := goal.FormatText
	if prefix, _ := br.Peek(len(goal.BinaryMagic)); goal.IsBinary(prefix) {
		format = goal.FormatBinary
		p, err = sim.ReadProgramStream(br, opt)
		if err == nil {
			// An op beyond the engine's sizes is refused before any
			// point runs, as the text readers refuse it at its line.
			if err = p.SizeError(); err != nil {
				p.Close()
			}
		}
		if err != nil {
			err = fmt.Errorf("%s: %w", path, err)
		}
	} else if fi, serr := f.Stat(); serr == nil && fi.Mode().IsRegular() {
		return readTextAt(f, fi.Size(), path, opt)
	} else {
		p, err = sim.ReadTextProgramStream(br, path, opt)
	}
	if err != nil {
		return nil, scheduleInfo{}, err
	}
	if _, err := io.Copy(io.Discard, br); err != nil {
		p.Close()
		return nil, scheduleInfo{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, scheduleInfo{path, hex.EncodeToString(h.Sum(nil)), format, p.NumRanks, p.NumOps()}, nil
}

// readTextAt parses the text of size bytes in f on all CPUs into a
// streamed program while another goroutine hashes the same bytes.
func readTextAt(f *os.File, size int64, path string, opt sim.StreamOptions) (*sim.Program, scheduleInfo, error) {
	type hashed struct {
		sum string
		err error
	}
	hc := make(chan hashed, 1)
	go func() {
		h := sha256.New()
		_, err := io.Copy(h, io.NewSectionReader(f, 0, size))
		hc <- hashed{hex.EncodeToString(h.Sum(nil)), err}
	}()
	p, err := sim.ReadTextProgramStreamAt(f, size, path, opt)
	hs := <-hc
	if err == nil && hs.err != nil {
		p.Close()
		err = fmt.Errorf("%s: %w", path, hs.err)
	}
	if err != nil {
		return nil, scheduleInfo{}, err
	}
	return p, scheduleInfo{path, hs.sum, goal.FormatText, p.NumRanks, p.NumOps()}, nil
}

// spill writes schedule s into a streamed program whose spill file goes
// to dir.
func spill(s *goal.Schedule, dir string) (*sim.Program, error) {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(goal.WriteBinary(pw, s)) }()
	p, err := sim.ReadProgramStream(pr, sim.StreamOptions{Dir: dir})
	pr.CloseWithError(io.ErrClosedPipe) // stops the writer if the reader gave up
	return p, err
}

// streamed holds the streamed programs of a sweep, one per
// transformation, for the workers to share; close closes them all.
type streamed struct {
	cache *schedCache
	dir   string
	mu    sync.Mutex
	progs map[schedKey]*streamedEntry
}

type streamedEntry struct {
	once sync.Once
	p    *sim.Program
	err  error
}

// share returns a share of the streamed program of transformation k,
// spilling it at the first call.
func (st *streamed) share(k schedKey) (*sim.Program, error) {
	st.mu.Lock()
	e := st.progs[k]
	if e == nil {
		e = &streamedEntry{}
		st.progs[k] = e
	}
	st.mu.Unlock()
	e.once.Do(func() {
		s, err := st.cache.get(k)
		if err != nil {
			e.err = err
			return
		}
		e.p, e.err = spill(s, st.dir)
	})
	if e.err != nil {
		return nil, e.err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return e.p.Share()
}

func (st *streamed) close() {
	for _, e := range st.progs {
		if e.p != nil {
			e.p.Close()
		}
	}
}
