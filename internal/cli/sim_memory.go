package cli

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/progress"
	"github.com/gopsim/gopsim/sim"
)

// simMemory holds the flags of `gopsim sim` that decide whether the
// schedule is held in memory or streamed from a spill file
// (sim.ReadProgramStream).
type simMemory struct {
	mode     string // auto, on, off
	spillDir string
	unit     int
	// recordPerOp is what the per-op record of a run in memory adds per
	// op (sim.RecordBytes; 0 without --critical-path, --timeline or
	// --paraver): --stream auto counts it.
	recordPerOp int64
	// recordShown is how many ranks the record is asked for when it is
	// asked for some only (a timeline without --critical-path; 0: all or
	// none): a streamed run keeps only theirs.
	recordShown int
}

func (m *simMemory) flags(fs *flag.FlagSet) {
	m.mode = "auto"
	fs.Func("stream", "`mode` for schedules larger than memory: auto (default: stream a schedule that would need more than 60 % of the memory allowed, GOMEMLIMIT or else the cgroup's limit or the machine's memory: a binary one by its program's size, with 96 bytes an op more for the per-op record of --critical-path, --timeline or --paraver (192 in ps with a timeline, which reads a copy in ns), a text one by 1.8 times its file's; a text one of 64 MiB or more in a file whose ranks are chains of ops (a traced program), which runs as fast streamed or faster, parsed on all CPUs; a binary one whose program needs more than 2 GiB and whose ranks are chains of ops, which run about as fast streamed; and a binary one whose timelines show some ranks only, without --critical-path, once the record of every op would exceed 64 MiB, since a streamed run keeps only theirs), on, or off; a streamed run keeps only the active window of each rank's ops in memory (docs/performance.md)", func(v string) error {
		switch v {
		case "auto", "on", "off":
			m.mode = v
			return nil
		case "true":
			m.mode = "on"
			return nil
		case "false":
			m.mode = "off"
			return nil
		}
		return fmt.Errorf("%q: expected auto, on or off", v)
	})
	fs.StringVar(&m.spillDir, "spill-dir", "", "`directory` of the spill file of a streamed run (default: the system's temporary directory); the file is unlinked at once and needs up to about 5 bytes per op (none for units kept in memory: see docs/performance.md); with --critical-path, --timeline or --paraver, the record of the run goes there too (96 bytes per op, twice that with parameters in fractions of a ns and a timeline, which reads a copy in ns; for timelines without --critical-path, only the pages of the ranks shown and of their messages' other ends), and --paraver sorts its trace there (about 35 bytes per line)")
	fs.IntVar(&m.unit, "stream-unit", 0, "ops a streamed run loads at a time (default 128)")
}

// memoryBudget returns the memory the process may use, in bytes, and what sets
// it: GOMEMLIMIT, else the cgroup's limit, else the machine's memory; 0 if
// none is known.
func memoryBudget() (int64, string) {
	if l := debug.SetMemoryLimit(-1); l != math.MaxInt64 {
		return l, "GOMEMLIMIT"
	}
	for _, f := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64)
		if err == nil && v > 0 && v < 1<<60 {
			return v, "the cgroup's memory limit"
		}
	}
	if f, err := os.Open("/proc/meminfo"); err == nil {
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				if err == nil {
					return kb << 10, "the machine's memory"
				}
			}
		}
	}
	return 0, ""
}

// autoStreamBytes is the size of a program in memory (sim.ProgramBytes)
// beyond which --stream auto streams a binary schedule whose ranks'
// programs are chains (autoStreamChain) even when memory would hold it.
// Measured (docs/performance.md, "Streamed by default beyond 2 GiB"):
// from there on a streamed run of an application trace takes about as
// long as one in memory (LAMMPS ×4096, 3.2 GiB: 18.8–22.2 s in memory,
// 16.9–23.7 s streamed in 0.28 GB; sweep3d ×4096, 4.3 GiB: 32.9–50.3 s
// against 31.8–38.5 s in 0.55 GB) and holds a tenth of the memory; below
// it streaming costs time (LAMMPS ×1024, 0.8 GiB: 3.5 s against 4.1 s).
// A variable so that tests can lower it.
var autoStreamBytes int64 = 2 << 30

// autoStreamChain is the least number of edges per op for which
// autoStreamBytes applies. An op without predecessors is ready at time 0,
// so a streamed run loads it at the start: a schedule with many holds
// most of its ops anyway and streams slower (Schedgen's collectives,
// whose receives are all free: 0.49 edges per op, the 1,048,576-rank
// recursive-doubling allreduce 8.6–11.6 s in 2.8 GB in memory, 26 s in
// 3.1 GB streamed). Traced programs are chains (LAMMPS 1.24, sweep3d 1.14).
const autoStreamChain = 0.9

// streamReason is the error autoStream's check stops an in-memory read
// with: why the schedule is streamed instead.
type streamReason struct{ why string }

func (e *streamReason) Error() string { return e.why }

// autoStreamRecordBytes is the size of the per-op record in memory
// beyond which --stream auto streams a binary schedule whose run records
// some ranks only (a timeline without --critical-path): a streamed run
// then keeps only their records, a run in memory every op's. Measured
// (docs/performance.md, "The streamed record in the pool"), --timeline of
// 8 ranks in memory against streamed: LAMMPS ×256 (470 MB of record)
// 1.5–2.0 s against 0.84–0.88 s, ×1024 16.9 s and 2.57 GB against 5.35 s
// and 110 MB; a 65,536-rank dissemination (201 MB) 0.96 s against 0.36
// s; a 16,384-rank allreduce iterated 35 times (1.5 GB) 9.34 s against
// 5.62 s. A variable so that tests can lower it.
var autoStreamRecordBytes int64 = 64 << 20

// autoStream returns the check of sim.ReadProgramIf for --stream auto: a
// *streamReason when streamWhy says to stream the program, held with a
// per-op record of recordPerOp bytes an op, or when that record is asked
// for shown ranks only, fewer than the program has, and would exceed
// autoStreamRecordBytes.
func autoStream(recordPerOp int64, shown int) func(sim.ProgramSize) error {
	return func(s sim.ProgramSize) error {
		what := fmt.Sprintf("%d ranks, %d ops and %d edges need", s.Ranks, s.Ops, s.Edges)
		need, needWhat := s.Bytes, what
		record := recordPerOp * int64(s.Ops)
		if recordPerOp > 0 {
			need += record
			needWhat = fmt.Sprintf("%d ranks, %d ops and %d edges, with the per-op record a critical path or a timeline reads (%d bytes an op), need", s.Ranks, s.Ops, s.Edges, recordPerOp)
		}
		if why := streamWhy(s, need, needWhat, s.Bytes, what); why != "" {
			return &streamReason{why}
		}
		if shown > 0 && shown < s.Ranks && record > autoStreamRecordBytes {
			return &streamReason{fmt.Sprintf("the timelines show %d of the %d ranks, and a run in memory would record all %d ops (%d MiB, more than %d MiB) where a streamed one keeps only the records they read", shown, s.Ranks, s.Ops, record>>20, autoStreamRecordBytes>>20)}
		}
		return nil
	}
}

// streamWhy applies --stream auto's two rules, for gopsim sim and gopsim
// sweep alike: it returns why to stream, or "" to hold. Held, everything
// needs need bytes (needWhat says what, ending in its verb), and one
// program prog bytes (progWhat); s gives the program's edges per op
// (Edges < 0: not known). It streams when need is more than 60 % of the
// memory budget (memoryBudget), or when prog is more than autoStreamBytes
// with at least autoStreamChain edges per op.
func streamWhy(s sim.ProgramSize, need int64, needWhat string, prog int64, progWhat string) string {
	limit, source := memoryBudget()
	if allowed := limit / 10 * 6; limit > 0 && need > allowed {
		return fmt.Sprintf("%s about %d MiB in memory, more than the %d MiB allowed (60 %% of %s)", needWhat, need>>20, allowed>>20, source)
	}
	if prog > autoStreamBytes && s.Edges >= 0 && float64(s.Edges) >= autoStreamChain*float64(s.Ops) {
		return fmt.Sprintf("%s about %d MiB in memory, more than %d MiB, and its ranks are chains of ops, which run about as fast streamed in a tenth of the memory", progWhat, prog>>20, autoStreamBytes>>20)
	}
	return ""
}

// open reads a binary schedule of size bytes from r: into memory, or
// streamed when asked or, in auto mode, when autoStream's check says so.
// reopen gives the file again from its start; nil for an input that can
// be read only once (a pipe), whose bytes read before the check are kept
// and given again, followed by the rest (replay).
// Notes and the spill pass's progress bar (popt) go to log.
// check refuses the streaming flags with --stream off, where they would
// have no effect (a negative unit is the stream reader's to refuse).
func (m *simMemory) check() error {
	if m.mode == "off" && (m.spillDir != "" || m.unit != 0) {
		return usageMistake(fmt.Errorf("--spill-dir and --stream-unit apply to a streamed run; --stream off does not stream"))
	}
	if m.spillDir != "" {
		// Checked now, not when the run first writes there, which can be
		// minutes into it.
		fi, err := os.Stat(m.spillDir)
		if err != nil {
			return fmt.Errorf("--spill-dir: %w", err)
		}
		if !fi.IsDir() {
			return fmt.Errorf("--spill-dir %s: not a directory", m.spillDir)
		}
	}
	return nil
}

func (m *simMemory) open(r io.Reader, size int64, reopen func() (io.Reader, func(), error), log io.Writer, popt progress.Options) (*sim.Program, error) {
	switch m.mode {
	case "on":
		return m.spill(r, size, log, popt, nil)
	case "off":
		return sim.ReadProgram(r)
	}
	check := autoStream(m.recordPerOp, m.recordShown)
	if reopen == nil {
		rec := &replay{r: r}
		r, reopen = rec, rec.again
		check = func(s sim.ProgramSize) error {
			err := autoStream(m.recordPerOp, m.recordShown)(s)
			if err == nil {
				rec.stop() // held: read on, nothing to give again
			}
			return err
		}
	}
	p, err := sim.ReadProgramIf(r, check)
	var why *streamReason
	if !errors.As(err, &why) {
		return p, err
	}
	if log != nil {
		fmt.Fprintf(log, "gopsim sim: %s; streaming it from a spill file (--stream off to refuse)\n", why)
	}
	r2, done, err := reopen()
	if err != nil {
		return nil, err
	}
	defer done()
	return m.spill(r2, size, log, popt, nil)
}

// replay keeps the bytes read through it from an input that can be read
// only once (a pipe), until stop: again gives them, then the rest of the
// input. sim.ReadProgramIf reads a binary schedule's chunks before it
// checks its size, so what is kept is the compressed file, which the
// reader holds at that point anyway; a schedule held is not kept.
type replay struct {
	r    io.Reader
	mu   sync.Mutex // the reader may be read from another goroutine
	kept bytes.Buffer
	off  bool
}

func (x *replay) Read(p []byte) (int, error) {
	n, err := x.r.Read(p)
	x.mu.Lock()
	if !x.off {
		x.kept.Write(p[:n])
	}
	x.mu.Unlock()
	return n, err
}

// stop drops what was kept and keeps nothing more.
func (x *replay) stop() {
	x.mu.Lock()
	x.off, x.kept = true, bytes.Buffer{}
	x.mu.Unlock()
}

// again gives the input from its start, as a reopen function does.
func (x *replay) again() (io.Reader, func(), error) {
	x.mu.Lock()
	x.off = true
	x.mu.Unlock()
	return io.MultiReader(&x.kept, x.r), func() { x.kept = bytes.Buffer{} }, nil
}

// autoStreamText is the size of a text schedule (in a regular file)
// beyond which --stream auto streams it, whatever the memory, if its
// ranks are chains (textChains, autoStreamChain): parsed on all CPUs a
// few pieces ahead of the spill (goal.TextStream), it runs as fast as in
// memory or faster, in a fraction of the memory. Measured
// (docs/performance.md, "Text schedules streamed on all CPUs"): LAMMPS
// ×256, 243 MB, 2.07 s and 400 MiB in memory, 1.32 s and 56 MiB
// streamed; sweep3d ×1024, 1.43 GB, 10.4 s and 2.08 GiB against 8.4 s
// and 470 MiB; a 131,072-rank recursive-doubling allreduce, 358 MB,
// 2.48 s and 567 MiB against 2.68 s and 579 MiB (a collective: every
// receive is posted at time 0, so every op is loaded; kept in memory).
var autoStreamText int64 = 64 << 20 // a variable for tests

// textSample is how much of a text textChains reads.
const textSample = 4 << 20

// textChains returns the edges per op of the rank blocks in the first
// textSample bytes of a text (the blocks read whole before the sample
// ends, or an error); ok is false without one. A collective's ranks are
// alike and a traced program's are chains from their start, so the head of
// the file tells which the schedule is (autoStreamChain).
func textChains(at io.ReaderAt, size int64, name string) (perOp float64, ok bool) {
	t := goal.NewTextReader(io.NewSectionReader(at, 0, min(size, textSample)), name)
	var b goal.RankBlock
	ops, edges := 0, 0
	for t.Next(&b) == nil {
		ops += len(b.Ops)
		edges += len(b.Deps)
	}
	if ops == 0 {
		return 0, false
	}
	return float64(edges) / float64(ops), true
}

// textPeak is how many times its size reading a text schedule into
// memory takes at its peak (parsed blocks, then the program; measured:
// 1.6 to 1.8 on Schedgen's collectives).
const textPeak = 1.8

// openText reads a text schedule of size bytes, r read sequentially or at
// at (nil if it cannot be): into memory, parsed on all CPUs, or streamed
// when asked or, in auto mode, when reading it would need more than 60 %
// of the memory budget.
func (m *simMemory) openText(r io.Reader, at io.ReaderAt, size int64, name string, log io.Writer, popt progress.Options) (*sim.Program, error) {
	stream := m.mode == "on"
	if m.mode == "auto" && at != nil {
		limit, source := memoryBudget()
		if need := int64(float64(size) * textPeak); limit > 0 && need > limit/10*6 {
			stream = true
			if log != nil {
				fmt.Fprintf(log, "gopsim sim: a text schedule of %d MiB needs about %d MiB in memory, more than the %d MiB allowed (60 %% of %s); streaming it from a spill file (--stream off to refuse)\n", size>>20, need>>20, limit/10*6>>20, source)
			}
		} else if size >= autoStreamText {
			if per, ok := textChains(at, size, name); ok && per >= autoStreamChain {
				stream = true
				if log != nil {
					fmt.Fprintf(log, "gopsim sim: a text schedule of %d MiB whose ranks are chains of ops (%.2f edges an op in its first blocks), parsed on all CPUs as it is spilled, runs as fast streamed as in memory or faster, in a fraction of the memory; streaming it from a spill file (--stream off to keep it in memory)\n", size>>20, per)
				}
			}
		}
	}
	switch {
	case stream && at != nil:
		return m.spillText(at, size, name, log, popt)
	case stream:
		return m.spill(r, size, log, popt, func(r io.Reader, opt sim.StreamOptions) (*sim.Program, error) {
			return sim.ReadTextProgramStream(r, name, opt)
		})
	case at != nil:
		return sim.ReadTextProgram(at, size, name)
	}
	return sim.ReadTextProgramFrom(r, name)
}

// spill reads the schedule in r, size bytes, into a streamed program with
// read (sim.ReadProgramStream when nil), with a progress bar of the bytes
// read.
func (m *simMemory) spill(r io.Reader, size int64, log io.Writer, popt progress.Options, read func(io.Reader, sim.StreamOptions) (*sim.Program, error)) (*sim.Program, error) {
	if read == nil {
		read = sim.ReadProgramStream
	}
	cr := &countingReader{r: r}
	return m.spillWith(size, log, popt, cr.n.Load, func(opt sim.StreamOptions) (*sim.Program, error) { return read(cr, opt) })
}

// spillText is spill for a text schedule that can be read at any offset:
// parsed on all CPUs (sim.ReadTextProgramStreamAt).
func (m *simMemory) spillText(at io.ReaderAt, size int64, name string, log io.Writer, popt progress.Options) (*sim.Program, error) {
	cr := &countingReaderAt{r: at}
	return m.spillWith(size, log, popt, func() int64 { return min(cr.n.Load(), size) }, func(opt sim.StreamOptions) (*sim.Program, error) {
		return sim.ReadTextProgramStreamAt(cr, size, name, opt)
	})
}

// spillWith runs read with the streaming options, drawing a bar of the
// size bytes of input as done counts them.
func (m *simMemory) spillWith(size int64, log io.Writer, popt progress.Options, done func() int64, read func(sim.StreamOptions) (*sim.Program, error)) (*sim.Program, error) {
	m.checkDir(log)
	bar := progress.NewWith(log, size, "bytes spilled", popt)
	stop := bar.Poll(done, 0)
	p, err := read(sim.StreamOptions{Dir: m.spillDir, Unit: m.unit})
	stop()
	if err != nil {
		bar.Abandon()
		return nil, err
	}
	bar.Finish()
	return p, nil
}

// countingReaderAt counts the bytes read through it (some twice: the
// text's cuts are looked for, then parsed), for a progress bar on another
// goroutine.
type countingReaderAt struct {
	r io.ReaderAt
	n atomic.Int64
}

func (c *countingReaderAt) ReadAt(b []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(b, off)
	c.n.Add(int64(n))
	return n, err
}

// countingReader counts the bytes read through it, for a progress bar
// on another goroutine.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n.Add(int64(n))
	return n, err
}

// checkDir warns when the spill file would go to a file system held in
// memory.
func (m *simMemory) checkDir(log io.Writer) {
	dir := m.spillDir
	if dir == "" {
		dir = os.TempDir()
	}
	if log != nil && inMemoryFS(dir) {
		fmt.Fprintf(log, "gopsim sim: warning: the spill file goes to %s, a file system in memory (tmpfs), where it takes the memory streaming saves; give --spill-dir on a disk\n", dir)
	}
}

// streamReport describes a streamed run in results.
type streamReport struct {
	SpillBytes  int64 `json:"spill_bytes"`
	Units       int   `json:"units"`
	UnitOps     int   `json:"unit_ops"`
	StoredUnits int   `json:"distinct_units_in_memory"`
	StoreBytes  int64 `json:"distinct_unit_bytes"`
	RepeatRanks int   `json:"ranks_repeating_a_block"`
	Loads       int64 `json:"units_loaded"`
	PagesGiven  int64 `json:"pages_given_back"`
	PeakOps     int64 `json:"peak_ops_in_memory"`
	PeakOpBytes int64 `json:"peak_op_record_bytes"`
}

func (m *simMemory) report(p *sim.Program) *streamReport {
	st, ok := p.Stream()
	if !ok {
		return nil
	}
	unit := m.unit
	if unit == 0 {
		unit = sim.DefaultStreamUnit
	}
	return &streamReport{SpillBytes: st.SpillBytes, Units: st.Units, UnitOps: unit, StoredUnits: st.StoredUnits, StoreBytes: st.StoreBytes, RepeatRanks: st.RepeatRanks, Loads: st.Loads, PagesGiven: st.Drops,
		PeakOps: st.PeakOps, PeakOpBytes: st.PeakBytes}
}

func (r *streamReport) text(w io.Writer) {
	if r == nil {
		return
	}
	fmt.Fprintf(w, "memory:     streamed: %d units of %d ops, %d distinct ones kept in memory (%d bytes), %d ranks spilled as repeats of an earlier rank's block, spill file %d bytes; at most %d op records (%d bytes) in memory at once; %d units loaded, %d pages of records finished and their memory reused\n",
		r.Units, r.UnitOps, r.StoredUnits, r.StoreBytes, r.RepeatRanks, r.SpillBytes, r.PeakOps, r.PeakOpBytes, r.Loads, r.PagesGiven)
}
