package sweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gopsim/gopsim/extrapolation"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/internal/lockfile"
	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/sim"
)

// Shard is one of Count disjoint slices of a sweep: the points whose id
// modulo Count is Index (0 <= Index < Count). Striding rather than
// contiguous blocks spreads every grid dimension, and so the slow points,
// over all shards. The zero value is the whole sweep.
type Shard struct{ Index, Count int }

// ParseShard reads "I/N" with 0 <= I < N, as $SLURM_ARRAY_TASK_ID/
// $SLURM_ARRAY_TASK_COUNT give it for a job array --array=0-(N-1).
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	idx, err1 := strconv.Atoi(strings.TrimSpace(i))
	cnt, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("sweep: shard %q: expected I/N, e.g. 0/4", s)
	}
	sh := Shard{idx, cnt}
	return sh, sh.valid()
}

func (sh Shard) valid() error {
	if sh.Count < 1 || sh.Index < 0 || sh.Index >= sh.Count {
		return fmt.Errorf("sweep: shard %d/%d: expected I/N with N >= 1 and 0 <= I < N (shards count from 0, as in --array=0-%d)", sh.Index, sh.Count, max(sh.Count-1, 0))
	}
	return nil
}

func (sh Shard) norm() Shard {
	if sh.Count == 0 {
		return Shard{0, 1}
	}
	return sh
}

func (sh Shard) String() string { sh = sh.norm(); return fmt.Sprintf("%d/%d", sh.Index, sh.Count) }

// Has reports whether point id belongs to the shard.
func (sh Shard) Has(id int) bool { sh = sh.norm(); return id%sh.Count == sh.Index }

// size is the number of points of the shard among n.
func (sh Shard) size(n int) int {
	sh = sh.norm()
	if sh.Index >= n {
		return 0
	}
	return (n-sh.Index-1)/sh.Count + 1
}

// ShardOutput is the default result file of a shard: out with
// "-shard-I-of-N" before its extension; out itself for the whole sweep.
func ShardOutput(out string, sh Shard) string {
	sh = sh.norm()
	if sh.Count == 1 {
		return out
	}
	ext := filepath.Ext(out)
	return fmt.Sprintf("%s-shard-%d-of-%d%s", strings.TrimSuffix(out, ext), sh.Index, sh.Count, ext)
}

// Options configure Run. The zero value runs the whole sweep on all cores
// into the spec's output, silently.
type Options struct {
	// Output is the result CSV; "" means the spec's output, for a shard
	// with ShardOutput's suffix.
	Output  string
	Workers int // simulations at once; 0 means GOMAXPROCS
	Shard   Shard
	// Sort rewrites the CSV in point order once every point is done, so
	// that the file is byte-identical whatever order points finished in.
	Sort bool
	// Progress, when not nil, receives a progress line (rate and ETA)
	// rewritten in place with \r: give it a terminal.
	Progress io.Writer
	// OnProgress, when not nil, is called with the points done (those
	// already in the CSV included) and the shard's points, once before
	// the first simulation and after each row is written, from the
	// goroutine that called Run.
	OnProgress func(done, total int)
	// Log, when not nil, receives warnings: a torn final line dropped, a
	// note on size ranges.
	Log io.Writer
	// SyncInterval is how often the CSV is fsynced while rows are
	// appended; 0 means every second. It is always fsynced at the end.
	SyncInterval time.Duration
	// Tool names the program in the meta file, e.g. "gopsim 0.1.0".
	Tool string
	// Stream runs the points on shares of one streamed program per
	// transformation of the schedule (stream.go): memory follows each
	// simulation's active window instead of a compiled copy of the
	// schedule per worker; results are the same. SpillDir is where the
	// spill files go ("" is os.TempDir()).
	Stream   bool
	SpillDir string
}

// Summary tells what Run did.
type Summary struct {
	Output  string
	Points  int // points of the shard (all points without a shard)
	Already int // rows that were in the CSV before the run
	Ran     int // points simulated by this run
	Wall    time.Duration
}

// testHookRan, when set by a test, is called after each simulation.
var testHookRan func(id int)

// Run simulates the points of spec (of opt.Shard) that the output CSV
// does not hold yet, appending a row to it as each finishes, on
// opt.Workers cores; the schedule is read once and shared.
//
// Resuming: rows already in the CSV are checked against the spec (point
// id and every parameter; a mismatch is an error naming the line) and
// skipped. Each row is appended with a single write of the whole line to
// a file opened with O_APPEND, so killing the process at any moment loses
// no row already written; a final line without its newline (a write cut
// short by a crash) is dropped with a warning before appending. The meta
// file (MetaPath) must agree on the input's SHA-256, the base parameters
// and the shard.
//
// A point whose simulation fails stops the sweep with an error naming
// it; the rows of the points finished meanwhile are kept.
func Run(ctx context.Context, spec *Spec, opt Options) (Summary, error) {
	start := time.Now()
	sh := opt.Shard.norm()
	if err := sh.valid(); err != nil {
		return Summary{}, err
	}
	out := opt.Output
	if out == "" {
		out = ShardOutput(spec.OutputPath(), sh)
	}
	logw := opt.Log
	if logw == nil {
		logw = io.Discard
	}
	sum := Summary{Output: out, Points: sh.size(spec.NumPoints())}
	// A missing directory is an error, as for every output of gopsim,
	// and before the schedule is read.
	if st, err := os.Stat(filepath.Dir(out)); err != nil {
		return sum, fmt.Errorf("sweep: output %s: its directory: %w", out, err)
	} else if !st.IsDir() {
		return sum, fmt.Errorf("sweep: output %s: %s is not a directory", out, filepath.Dir(out))
	}

	var (
		sched *goal.Schedule
		info  scheduleInfo
		st    *streamed
		err   error
	)
	if opt.Stream {
		st = &streamed{dir: opt.SpillDir, progs: map[schedKey]*streamedEntry{}}
		defer st.close()
	}
	if opt.Stream && !spec.transforms() {
		var p *sim.Program
		if p, info, err = readStreamed(spec.InputPath(), opt.SpillDir); err != nil {
			return sum, err
		}
		e := &streamedEntry{p: p}
		e.once.Do(func() {})
		st.progs[schedKey{computeScale: 1, factor: 1}] = e
	} else if sched, info, err = readSchedule(spec.InputPath(), spec.limits(sh)); err != nil {
		return sum, err
	}
	ns := noiseSpec{cosched: spec.NoiseCosched, dist: spec.NoiseDist, alpha: spec.NoiseAlpha}
	if path := spec.NoiseTracePath(); path != "" {
		if ns.trace, err = noise.ReadTraceFile(path); err != nil {
			return sum, err
		}
	}
	lock, err := lockOutput(out)
	if err != nil {
		return sum, err
	}
	defer lock.Release()
	rf, err := readResults(out, spec)
	if err != nil {
		return sum, err
	}
	meta := newMeta(spec, info, sh, opt.Tool)
	metaPath := MetaPath(out)
	if len(rf.rows) > 0 {
		old, err := readMeta(metaPath)
		if err != nil {
			return sum, err
		}
		if old != nil {
			if err := meta.agrees(old, metaPath); err != nil {
				return sum, err
			}
		}
	}
	done := newBitset(spec.NumPoints())
	where := map[int]record{}
	for _, r := range rf.rows {
		if !sh.Has(r.id) {
			return sum, fmt.Errorf("%s: %w: point %d belongs to shard %d/%d, not %s", r.where(), ErrMismatch, r.id, r.id%sh.Count, sh.Count, sh)
		}
		if done.has(r.id) {
			return sum, fmt.Errorf("%s: %w: point %d is also at line %d", r.where(), ErrDuplicate, r.id, where[r.id].num)
		}
		done.set(r.id)
		where[r.id] = r
	}
	where = nil
	sum.Already = len(rf.rows)
	for _, n := range meta.Notes {
		fmt.Fprintf(logw, "sweep: note: %s\n", n)
	}
	f, err := openResults(out, rf, logw)
	if err != nil {
		return sum, err
	}
	if err := meta.write(metaPath); err != nil {
		f.Close()
		return sum, err
	}

	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, sum.Points-sum.Already))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	results := make(chan Row, workers)
	var (
		next     atomic.Int64
		errOnce  sync.Once
		firstErr error
		wg       sync.WaitGroup
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err })
		cancel()
	}
	cache := newSchedCache(sched, workers+1)
	cache.grid = spec.ExtrapolateGrid
	if st != nil {
		st.cache = cache
	}
	n := spec.NumPoints()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := worker{st: st}
			defer w.close()
			for ctx.Err() == nil {
				id := sh.Index + int(next.Add(1)-1)*sh.Count
				if id >= n {
					return
				}
				if done.has(id) {
					continue
				}
				p := spec.Point(id)
				row, err := w.simulate(cache, &ns, &p)
				if err != nil {
					fail(fmt.Errorf("%s: point %d (%s): %w", spec.InputPath(), id, Describe(&p), err))
					return
				}
				if testHookRan != nil {
					testHookRan(id)
				}
				results <- row
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	prog := progress{w: opt.Progress, total: sum.Points, before: sum.Already, done: sum.Already, start: time.Now()}
	if opt.OnProgress != nil {
		opt.OnProgress(prog.done, prog.total)
	}
	syncEvery := opt.SyncInterval
	if syncEvery <= 0 {
		syncEvery = time.Second
	}
	lastSync := time.Now()
	var werr error
	for row := range results {
		if werr != nil {
			continue // drain the workers
		}
		if _, werr = f.Write(row.line()); werr != nil {
			werr = fmt.Errorf("%s: %w", out, werr)
			fail(werr)
			continue
		}
		sum.Ran++
		prog.done++
		if opt.OnProgress != nil {
			opt.OnProgress(prog.done, prog.total)
		}
		now := time.Now()
		if now.Sub(lastSync) >= syncEvery {
			if werr = f.Sync(); werr != nil {
				fail(werr)
			}
			lastSync = now
		}
		prog.update(now, false)
	}
	prog.update(time.Now(), true)
	if err := f.Sync(); err != nil && werr == nil {
		werr = err
	}
	if err := f.Close(); err != nil && werr == nil {
		werr = err
	}
	sum.Wall = time.Since(start)
	switch {
	case firstErr != nil:
		return sum, firstErr
	case werr != nil:
		return sum, werr
	case ctx.Err() != nil:
		return sum, fmt.Errorf("interrupted after %d of %d points (run again to resume): %w", sum.Already+sum.Ran, sum.Points, context.Cause(ctx))
	}
	if opt.Sort {
		if err := SortResults(out, spec); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// Describe formats a point's dimensions as name=value pairs; the noise
// dimensions only when they add noise (not 0, or a straggler factor of
// 1), extrapolate_factor only when it is not 1.
func Describe(p *Point) string {
	var b strings.Builder
	for _, d := range Dims {
		v := d.get(p)
		if (isNoiseDim(d) || d.Name == "extrapolate_factor") && (v == 0 || v == 1 && (d.Name == "straggler_factor" || d.Name == "extrapolate_factor")) {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(d.Name + "=" + d.Format(v))
	}
	return b.String()
}

// openResults opens the CSV for appending: a torn final line is cut away
// first, and a new or empty file gets the header.
func openResults(path string, rf *resultFile, logw io.Writer) (*os.File, error) {
	if len(rf.torn) > 0 {
		line := 1
		if rf.size > 0 {
			line = len(rf.rows) + 2
		}
		fmt.Fprintf(logw, "sweep: warning: %s:%d: dropping a torn final line (%d bytes without a newline: a write was cut short)\n", path, line, len(rf.torn))
		if err := os.Truncate(path, rf.size); err != nil {
			return nil, err
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o666)
	if err != nil {
		return nil, err
	}
	if rf.size == 0 {
		if _, err := f.Write([]byte(headerLine())); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, err
		}
		syncDir(path)
	}
	return f, nil
}

// LockPath is the lock file of a result CSV: a run holds it while it
// appends rows (and merge while it replaces the file), so that a second
// run into the same CSV stops at once, naming the first.
func LockPath(csv string) string { return csv + ".lock" }

// lockOutput checks that out is a regular file (or absent: the CSV is
// read back to resume, so a FIFO or a device cannot be one) and takes the
// lock of the file it names (through symbolic links).
func lockOutput(out string) (*lockfile.Lock, error) {
	if st, err := os.Stat(out); err == nil && !st.Mode().IsRegular() {
		return nil, fmt.Errorf("sweep: output %s is not a regular file (%v): a sweep reads its CSV back to resume, so it must be a file", out, st.Mode().Type())
	}
	if real, err := filepath.EvalSymlinks(out); err == nil {
		out = real // two names of one CSV share its lock
	}
	l, err := lockfile.Acquire(LockPath(out))
	if err != nil {
		return nil, fmt.Errorf("sweep: %w", err)
	}
	return l, nil
}

// noiseSpec is what the spec's [noise] table gives every point.
type noiseSpec struct {
	trace   *noise.Trace
	cosched bool
	dist    string
	alpha   float64
}

// config returns the noise configuration of point p: its settings, with
// random detours only when it has a mean interval.
func (ns *noiseSpec) config(p *Point) noise.Config {
	c := ns.settings(p)
	if c.MeanIntervalNs <= 0 {
		c.Dist, c.MeanIntervalNs, c.MeanDurNs = "", 0, 0
	}
	if c.Dist != "pareto" {
		c.Alpha = 0
	}
	return c
}

// settings returns the noise settings of point p as the spec gives them,
// the [noise] table's dist and alpha included whether or not p has random
// detours: what Spec.checkNoise holds against noise.Unused.
func (ns *noiseSpec) settings(p *Point) noise.Config {
	n := p.Noise
	return noise.Config{Seed: uint64(n.Seed), Trace: ns.trace, Cosched: ns.cosched,
		PeriodNs: n.PeriodNs, PeriodDurNs: n.PeriodLenNs,
		Dist: ns.dist, MeanIntervalNs: n.IntervalNs, MeanDurNs: n.LengthNs, Alpha: ns.alpha,
		StragglerFraction: n.StragglerFraction, Factor: n.StragglerFactor}
}

// worker is one goroutine's state: the schedule it compiled last, which
// the points that share its transformation run again without compiling.
type worker struct {
	key  schedKey
	prog *sim.Program
	st   *streamed // with Options.Stream: prog is a share of one of its programs
}

// close releases the worker's share of a streamed program.
func (w *worker) close() {
	if w.st != nil && w.prog != nil {
		w.prog.Close()
	}
}

// simulate runs one point.
func (w *worker) simulate(c *schedCache, ns *noiseSpec, p *Point) (Row, error) {
	k := schedKey{computeScale: p.ComputeScale, factor: p.Extrapolate}
	if w.st != nil && (w.prog == nil || w.key != k) {
		w.close()
		w.prog = nil
		q, err := w.st.share(k)
		if err != nil {
			return Row{}, err
		}
		w.prog, w.key = q, k
	}
	if w.prog == nil || w.key != k {
		s, err := c.get(k)
		if err != nil {
			return Row{}, err
		}
		if !s.Complete() {
			return Row{}, fmt.Errorf("sim: schedule has %d of %d ranks", len(s.RankStart)-1, s.NumRanks)
		}
		if w.prog, err = sim.Compile(s); err != nil {
			return Row{}, err
		}
		w.key = k
	}
	opt := sim.Options{Params: p.Params}
	if cfg := ns.config(p); cfg.Enabled() {
		m, err := noise.New(cfg, w.prog.NumRanks)
		if err != nil {
			return Row{}, err
		}
		opt.Noise = m
	}
	res, err := w.prog.Run(opt)
	if err != nil {
		return Row{}, err
	}
	row := Row{Point: *p, MaxTime: res.MaxTime, MaxRank: res.MaxRank, Events: res.Events}
	if opt.Noise != nil {
		for r := range w.prog.NumRanks {
			row.NoiseNs += opt.Noise.Absorbed(r)
		}
	}
	return row, nil
}

// schedKey names a transformation of the schedule; points with equal keys
// share one transformed copy.
type schedKey struct {
	computeScale float64
	factor       int
}

// schedCache holds the transformed schedules in use, at most cap of them
// (the least recently used goes first; a worker still using it keeps it).
type schedCache struct {
	base    *goal.Schedule
	grid    []int // the spec's extrapolate_grid
	cap     int
	mu      sync.Mutex
	entries map[schedKey]*schedEntry
	order   []schedKey // least recently used first
}

type schedEntry struct {
	once sync.Once
	s    *goal.Schedule
	err  error
}

func newSchedCache(base *goal.Schedule, cap int) *schedCache {
	return &schedCache{base: base, cap: cap, entries: map[schedKey]*schedEntry{}}
}

func (c *schedCache) get(k schedKey) (*goal.Schedule, error) {
	if k.computeScale == 1 && k.factor == 1 {
		return c.base, nil
	}
	c.mu.Lock()
	e := c.entries[k]
	if e == nil {
		e = &schedEntry{}
		c.entries[k] = e
	} else {
		c.order = slices.DeleteFunc(c.order, func(o schedKey) bool { return o == k })
	}
	c.order = append(c.order, k)
	for len(c.order) > c.cap {
		delete(c.entries, c.order[0])
		c.order = c.order[1:]
	}
	c.mu.Unlock()
	e.once.Do(func() { e.s, e.err = c.transform(k) })
	return e.s, e.err
}

// transform returns the base schedule extrapolated, then with its compute
// scaled, as k says.
func (c *schedCache) transform(k schedKey) (*goal.Schedule, error) {
	s := c.base
	if k.factor != 1 {
		big := goal.NewSchedule(s.NumRanks * k.factor)
		big.NumCPUs, big.NumNICs = s.NumCPUs, s.NumNICs
		if err := extrapolation.Schedule(s, extrapolation.ScheduleOptions{Factor: k.factor, Grid: c.grid}, big.AppendRank); err != nil {
			return nil, fmt.Errorf("extrapolate_factor %d: %w", k.factor, err)
		}
		s = big
	}
	if k.computeScale == 1 {
		return s, nil
	}
	return ScaleCompute(s, k.computeScale)
}

// ScaleCompute returns a copy of s whose calc ops take f times as long,
// rounded to the nearest ns (halves away from zero); the copy shares
// everything but the ops with s.
func ScaleCompute(s *goal.Schedule, f float64) (*goal.Schedule, error) {
	if !(f >= 0) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("sweep: compute_scale %v is not a factor", f)
	}
	c := *s
	c.Ops = slices.Clone(s.Ops)
	for i := range c.Ops {
		op := &c.Ops[i]
		if op.Kind != goal.Calc {
			continue
		}
		v := math.Round(float64(op.Size) * f)
		if v >= math.MaxInt64 {
			return nil, fmt.Errorf("sweep: compute_scale %v: a calc op of %d ns would take %.0f ns", f, op.Size, v)
		}
		op.Size = uint64(v)
	}
	return &c, nil
}

// progress draws "sweep: 120/400 points (30.0%), 45.2 points/s, ETA 6s".
type progress struct {
	w                   io.Writer
	total, before, done int
	start, last         time.Time
}

func (p *progress) update(now time.Time, final bool) {
	if p.w == nil || (!final && now.Sub(p.last) < 250*time.Millisecond) {
		return
	}
	p.last = now
	ran := p.done - p.before
	rate := float64(ran) / max(now.Sub(p.start).Seconds(), 1e-9)
	eta := "-"
	if ran > 0 && p.done < p.total {
		eta = time.Duration(float64(p.total-p.done) / rate * 1e9).Round(time.Second).String()
	}
	fmt.Fprintf(p.w, "\rsweep: %d/%d points (%.1f%%), %.1f points/s, ETA %s\x1b[K", p.done, p.total, 100*float64(p.done)/float64(max(p.total, 1)), rate, eta)
	if final {
		fmt.Fprintln(p.w)
	}
}

// SortResults rewrites a result CSV of spec in point order, through a
// temporary file that is fsynced and renamed over it.
func SortResults(path string, spec *Spec) error {
	rf, err := readResults(path, spec)
	if err != nil {
		return err
	}
	if len(rf.torn) > 0 {
		return fmt.Errorf("%s:%d: a torn final line: run the sweep again to repair it", path, len(rf.rows)+2)
	}
	slices.SortStableFunc(rf.rows, func(a, b record) int { return a.id - b.id })
	for i := 1; i < len(rf.rows); i++ {
		if rf.rows[i].id == rf.rows[i-1].id {
			return fmt.Errorf("%s: %w: point %d at lines %d and %d", path, ErrDuplicate, rf.rows[i].id, rf.rows[i-1].num, rf.rows[i].num)
		}
	}
	return writeRows(path, rf.rows)
}

// writeRows writes the header and rows to path durably
// (atomicfile.Write: a temporary file fsynced and renamed over path).
func writeRows(path string, rows []record) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if _, err := io.WriteString(w, headerLine()); err != nil {
			return err
		}
		for _, r := range rows {
			if _, err := w.Write(r.line); err != nil {
				return err
			}
		}
		return nil
	})
}

// syncDir fsyncs the directory holding path, so that a new name in it
// survives a crash; where directories cannot be synced it does nothing.
func syncDir(path string) {
	if d, err := os.Open(filepath.Dir(path)); err == nil {
		d.Sync()
		d.Close()
	}
}

// ErrDuplicate is wrapped by errors about a point that has two rows.
var ErrDuplicate = errors.New("sweep: point given twice")
