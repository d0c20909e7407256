package trace

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gopsim/gopsim/collective"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// ErrUnsupported is returned (wrapped) when a trace has MPI calls the
// converter cannot model and ConvertOptions.Unsupported is not "calc".
var ErrUnsupported = errors.New("trace: unsupported MPI calls")

// ErrTooManyOps is returned (wrapped) when a rank's conversion would write
// more ops than ConvertOptions.MaxRankOps.
var ErrTooManyOps = errors.New("trace: too many ops")

// ConvertOptions control Convert. The zero value converts with the
// collective algorithms of the library the trace was recorded with,
// unscaled compute and an error on unsupported calls.
type ConvertOptions struct {
	// CollAlgo picks the algorithm per collective operation ("auto" or
	// absent: the choice of CollSelect's rules).
	CollAlgo map[collective.Op]string
	// CollSelect is whose default algorithm choice the collectives
	// follow: "openmpi" (collective.SelectOpenMPI), "mpich"
	// (collective.Select), or "auto"/"" for the library the trace names
	// (Library, else LibraryOf), MPICH's when it names none or another.
	CollSelect string
	// Library, when set, is the MPI library to assume for auto (an
	// MPI_Get_library_version line) instead of the one d names.
	Library string
	// ComputeScale multiplies the time between MPI calls (0 means 1):
	// 0.5 asks what a twice faster CPU would give.
	ComputeScale float64
	// NoCompute drops the time between MPI calls (a compute scale of 0).
	NoCompute bool
	// Unsupported is "" (an error listing every unsupported function with
	// its count) or "calc" (count the call's duration as computation).
	Unsupported string
	// ReduceNsPerByte adds reduction compute to the collectives (see
	// collective.Spec).
	ReduceNsPerByte float64
	// LibraryCosts, when set, are the MPI library's one-time costs, charged as
	// computation to the ranks that pay them (onetime.go): the first call
	// of each function, the first message with each peer, creating a
	// communicator. Nil charges none.
	LibraryCosts *sim.LibraryCosts
	// Workers is the number of ranks converted at once (0: GOMAXPROCS).
	// The blocks, the stats and the errors are the same for any number.
	Workers int
	// MaxRankOps, when positive, bounds the ops of each rank: a rank's
	// conversion stops at the call that would give it more, inside the
	// expansion of a collective when that is the call (a huge size that
	// an algorithm pipelines in segments is millions of ops), and Convert
	// returns an error wrapping ErrTooManyOps that names the rank and the
	// call. The bound is per rank, not on the whole trace, so that the
	// error is the same for any Workers: it depends on the rank's calls
	// alone. A trace of R ranks writes at most R·MaxRankOps ops.
	// 0: no bound.
	MaxRankOps int64
}

// Source is a trace to convert, in any format: per rank a stream of
// calls in the order the rank made them. A trace directory written by the
// tracer (*Dir) is one; the importers of other formats are others.
// Convert opens ranks from several goroutines at once and reads their
// streams concurrently, so OpenRank must be safe for concurrent use, and
// streams of different ranks must not share state they change.
type Source interface {
	NumRanks() int
	// OpenRank opens the calls of rank r (0 <= r < NumRanks).
	OpenRank(r int) (RankStream, error)
}

// RankStream is one rank's calls. Comm ids are those Source's calls use;
// every call's communicator must be defined when Next returns it.
type RankStream interface {
	// Next fills c with the next call, or returns io.EOF after the last.
	Next(c *Call) error
	// Comm returns the communicator with id, or nil.
	Comm(id int32) *Comm
	// Name names the stream in errors (a file name).
	Name() string
	// Where is the position in its file of the call Next returned last,
	// for errors: called once per error, it may build the Position then,
	// but Next must keep what it needs at no more than a store per call.
	Where() Position
	// Start is the time, in the calls' clock, where the rank's first
	// computation begins (the tracer: just after MPI_Init returned).
	Start() int64
	Close() error
}

// Position is where a call is in its trace file: a line of a text trace
// (Line), a record of a binary one (Record, Offset).
type Position struct {
	File string
	// Line is the call's line, from 1; 0 for a binary trace.
	Line int
	// Record is the call's record in File, from 1 (what a record is
	// depends on the format: Reader counts every record, communicator
	// definitions too); 0 when not known. Offset is the record's byte
	// offset in File, negative when it has none (calls held in memory).
	Record, Offset int64
	// End marks a call that no line or record of File holds, one the
	// importer adds at the end of the rank's calls (the MPI_Finalize of a
	// TIT trace without one, the last MPI_Waitall of a Chakra trace):
	// Line, or Record and Offset, then say what it follows (the rank's
	// last action, the file's last message).
	End bool
	// Note, when not empty, says more about the call than where it is in
	// File: which copy of File's rank made it, for a trace extrapolated
	// to more ranks (package extrapolation). String puts it in
	// parentheses after the place.
	Note string
}

// String is "file:line" for a text trace, "file: record N at byte O" for
// a binary one, else the file; for a call at the End, "file: end of file
// (implicit call after line N)" or "... after record N at byte O)". A
// Note follows in parentheses: "file:line (note)".
func (p Position) String() string {
	if p.Note != "" {
		return p.place() + " (" + p.Note + ")"
	}
	return p.place()
}

// place is String without the Note.
func (p Position) place() string {
	var at string
	switch {
	case p.Line > 0 && !p.End:
		return p.File + ":" + strconv.Itoa(p.Line)
	case p.Line > 0:
		at = "line " + strconv.Itoa(p.Line)
	case p.Record > 0 && p.Offset >= 0:
		at = fmt.Sprintf("record %d at byte %d", p.Record, p.Offset)
	case p.Record > 0:
		at = fmt.Sprintf("record %d", p.Record)
	}
	switch {
	case !p.End && at == "":
		return p.File
	case !p.End:
		return p.File + ": " + at
	case at == "":
		return p.File + ": end of file (implicit call)"
	}
	return p.File + ": end of file (implicit call after " + at + ")"
}

// OpenRank opens rank r's trace file: *Dir is a Source.
func (d *Dir) OpenRank(r int) (RankStream, error) { return d.Open(r) }

// Name is the file name the reader was opened with.
func (r *Reader) Name() string { return r.name }

// Where is the position of the record Next returned last.
func (r *Reader) Where() Position {
	return Position{File: r.name, Record: int64(r.records), Offset: r.callOff}
}

// Start is the header's T0: tracing started just after the library's
// MPI_Init returned (the traced MPI_Init's record ends after it).
func (r *Reader) Start() int64 { return r.h.T0 }

// ConvertStats describe a conversion.
type ConvertStats struct {
	Ranks       int
	Calls       int64            // MPI call records read (a run of polls counts once)
	Ops         int64            // GOAL ops written
	Calcs       int64            // of which computation between calls
	ComputeNs   int64            // total computation, after scaling (math.MaxInt64 when it would not fit)
	PerFunc     map[string]int64 // records per MPI function
	Unsupported map[string]int64 // records per function the converter could not model
	Collectives int64
	// CollRules is the selection the collectives followed ("openmpi" or
	// "mpich") and CollNote, when auto found no known library, says why
	// MPICH's was used.
	CollRules string
	CollNote  string
	// CollStandIns counts the collectives whose algorithm under
	// CollRules is not modelled, by "op/wanted -> used".
	CollStandIns map[string]int64
	// CollAlgorithms counts the collectives (one per rank and call) by
	// the algorithm that expanded them, "op/algorithm", the ones
	// communicator creation becomes included.
	CollAlgorithms map[string]int64
	// Strided counts the sends labelled non-contiguous ("stride<D>_...",
	// for log3P), point-to-point and inside collectives.
	Strided int64
	// LibraryNs is the time of the library's one-time costs charged
	// (ConvertOptions.LibraryCosts), over all ranks: LibraryFirstCalls first
	// calls, LibraryContacts first contacts with a peer (one per rank and
	// peer) and LibraryCommCreates communicators created (one per member).
	LibraryNs                                              int64
	LibraryFirstCalls, LibraryContacts, LibraryCommCreates int64
	// LibraryNote, when the one-time costs were measured with another
	// library than the trace names, says which two.
	LibraryNote string
}

// Convert turns the trace d into a GOAL schedule, handing the blocks to
// write one at a time in rank order. Ranks are converted on
// ConvertOptions.Workers goroutines while write takes the finished ones;
// the blocks, the stats and the first error (by rank) are those of
// converting the ranks one after the other. Point-to-point calls become
// sends and receives with their requests tracked through Wait and Test;
// every collective on any communicator is expanded by package collective;
// the time between MPI calls becomes calc ops.
//
// Non-contiguous data: a send whose datatype (a derived datatype the trace
// describes, Datatype.Stride) leaves the data in several blocks gets the
// GOAL label "stride" + the stride in bytes + "_" + its canonical label
// ("stride512_l7"), which log3P reads (sim.StrideOf) and the other models
// ignore; so do the sends of a collective called with such a datatype.
//
// Tags: a point-to-point message on communicator id c keeps its tag t as
// c<<24 | t (world: t), so that communicators do not mix; the k-th
// collective on communicator c uses tag 1<<31 | (c&0x7fff)<<16 | (k&0xffff).
func Convert(d Source, opt ConvertOptions, write func(*goal.RankBlock) error) (*ConvertStats, error) {
	if opt.ComputeScale == 0 {
		opt.ComputeScale = 1
	}
	if opt.ComputeScale < 0 || math.IsNaN(opt.ComputeScale) || math.IsInf(opt.ComputeScale, 0) {
		return nil, fmt.Errorf("trace: compute scale %v", opt.ComputeScale)
	}
	if opt.NoCompute {
		opt.ComputeScale = 0
	}
	switch opt.Unsupported {
	case "", "calc":
	default:
		return nil, fmt.Errorf("trace: unsupported-call policy %q: expected calc or nothing", opt.Unsupported)
	}
	if err := opt.LibraryCosts.Validate(); err != nil {
		return nil, fmt.Errorf("trace: the library's one-time costs: %w", err)
	}
	if opt.MaxRankOps < 0 {
		return nil, fmt.Errorf("trace: at most %d ops per rank: expected 0 (no bound) or more", opt.MaxRankOps)
	}
	algs := map[collective.Op]*collective.Algorithm{}
	for op, name := range opt.CollAlgo {
		if name == "" || name == "auto" {
			continue
		}
		a, err := collective.Lookup(op, name)
		if err != nil {
			return nil, err
		}
		algs[op] = a
	}
	rules, note, err := ResolveCollSelect(d, &opt)
	if err != nil {
		return nil, err
	}
	st := newStats(d.NumRanks())
	st.CollRules, st.CollNote = rules.String(), note
	if c, t := opt.LibraryCosts, LibraryOf(d); c != nil && c.Name != "" && t != "" && sim.LibraryName(c.Name) != sim.LibraryName(t) {
		st.LibraryNote = fmt.Sprintf("the one-time costs charged were measured with %s, the trace was made with %s", sim.LibraryName(c.Name), sim.LibraryName(t))
	}
	results := convertRanks(d, &opt, algs, rules)
	defer results.stop()
	for r := 0; r < d.NumRanks(); r++ {
		res := results.next(r)
		st.add(res.stats)
		if res.err != nil {
			return st, res.err
		}
		if len(st.Unsupported) > 0 && opt.Unsupported == "" {
			results.done(r, res)
			continue // keep reading to list every unsupported call
		}
		st.Ops += int64(len(res.blk.Ops))
		err := write(res.blk)
		results.done(r, res)
		if err != nil {
			return st, fmt.Errorf("rank %d: %w", r, err)
		}
	}
	if len(st.Unsupported) > 0 && opt.Unsupported == "" {
		return st, fmt.Errorf("%w (use --unsupported=calc to count their time as computation): %s", ErrUnsupported, countList(st.Unsupported))
	}
	return st, nil
}

func newStats(ranks int) *ConvertStats {
	return &ConvertStats{Ranks: ranks, PerFunc: map[string]int64{}, Unsupported: map[string]int64{}, CollStandIns: map[string]int64{}, CollAlgorithms: map[string]int64{}}
}

// add adds the counts of x, one rank's, to st.
func (st *ConvertStats) add(x *ConvertStats) {
	st.Calls += x.Calls
	st.Calcs += x.Calcs
	st.ComputeNs = addNs(st.ComputeNs, x.ComputeNs)
	st.Collectives += x.Collectives
	st.Strided += x.Strided
	st.LibraryNs += x.LibraryNs
	st.LibraryFirstCalls += x.LibraryFirstCalls
	st.LibraryContacts += x.LibraryContacts
	st.LibraryCommCreates += x.LibraryCommCreates
	for k, v := range x.PerFunc {
		st.PerFunc[k] += v
	}
	for k, v := range x.Unsupported {
		st.Unsupported[k] += v
	}
	for k, v := range x.CollStandIns {
		st.CollStandIns[k] += v
	}
	for k, v := range x.CollAlgorithms {
		st.CollAlgorithms[k] += v
	}
}

// rankResult is the conversion of one rank: its block (nil after an
// error), the counts of its calls, and its error.
type rankResult struct {
	blk   *goal.RankBlock
	stats *ConvertStats
	err   error
	lent  bool // blk is the worker's converter's own, not a copy
}

// rankConverter converts the ranks of a Source on several goroutines and
// hands the results out in rank order. Worker w converts ranks w, w+W,
// w+2W, ... with a converter of its own and hands out a copy of each
// block, in one of two blocks it reuses, so that it converts the next
// rank while Convert writes the last. A block of copyLimit ops and edges
// or more is not copied, which would double the memory of a large rank:
// the worker lends its converter's block and waits for it to be written.
type rankConverter struct {
	workers []rankWorker
	quit    chan struct{}
	wg      sync.WaitGroup
}

type rankWorker struct {
	out      chan rankResult
	spare    chan *goal.RankBlock // blocks for copies, back from Convert
	returned chan struct{}        // a lent block is written
}

// copyLimit is the size, in ops and edges, from which a converted rank is
// lent rather than copied.
var copyLimit = 1 << 16

func convertRanks(d Source, opt *ConvertOptions, algs map[collective.Op]*collective.Algorithm, rules collective.Rules) *rankConverter {
	n := d.NumRanks()
	w := opt.Workers
	if w <= 0 {
		w = runtime.GOMAXPROCS(0)
	}
	w = max(1, min(w, n))
	rc := &rankConverter{workers: make([]rankWorker, w), quit: make(chan struct{})}
	for i := range rc.workers {
		rw := &rc.workers[i]
		rw.out = make(chan rankResult, 1)
		rw.spare = make(chan *goal.RankBlock, 2)
		rw.spare <- new(goal.RankBlock)
		rw.spare <- new(goal.RankBlock)
		rw.returned = make(chan struct{}, 1)
		rc.wg.Add(1)
		go func(first int) {
			defer rc.wg.Done()
			cv := converter{opt: opt, algs: algs, rules: rules, world: n}
			lent := false
			for r := first; r < n; r += w {
				if lent {
					select {
					case <-rw.returned:
					case <-rc.quit:
						return
					}
				}
				res := cv.convert(d, r)
				if b := res.blk; b != nil && len(b.Ops)+len(b.Deps) < copyLimit {
					var c *goal.RankBlock
					select {
					case c = <-rw.spare:
					case <-rc.quit:
						return
					}
					c.Reset(b.Rank)
					c.Ops = append(c.Ops, b.Ops...)
					c.DepStart = append(c.DepStart, b.DepStart...)
					c.Deps = append(c.Deps, b.Deps...)
					c.Labels = append(c.Labels, b.Labels...)
					res.blk = c
				} else {
					res.lent = b != nil
				}
				lent = res.lent
				select {
				case rw.out <- res:
				case <-rc.quit:
					return
				}
				if res.err != nil {
					return
				}
			}
		}(i)
	}
	return rc
}

// next returns the result of rank r; ranks are asked for in order.
func (rc *rankConverter) next(r int) rankResult {
	return <-rc.workers[r%len(rc.workers)].out
}

// done gives res, rank r's result, back to its worker once written.
func (rc *rankConverter) done(r int, res rankResult) {
	rw := &rc.workers[r%len(rc.workers)]
	if res.lent {
		rw.returned <- struct{}{}
	} else {
		rw.spare <- res.blk
	}
}

// stop ends the workers and waits for them.
func (rc *rankConverter) stop() {
	close(rc.quit)
	rc.wg.Wait()
}

// convert converts rank r of d, with stats of its own. The block is
// cv's until the next call.
func (cv *converter) convert(d Source, r int) rankResult {
	cv.stats = newStats(0)
	res := rankResult{stats: cv.stats}
	rd, err := d.OpenRank(r)
	if err != nil {
		res.err = err
		return res
	}
	b, err := cv.rank(rd, int32(r))
	rd.Close()
	for a, n := range cv.perAlg {
		cv.stats.CollAlgorithms[a.Op.String()+"/"+a.Name] += n
		delete(cv.perAlg, a)
	}
	for f, n := range cv.perFunc {
		if n > 0 {
			cv.stats.PerFunc[Func(f).String()] += n
			cv.perFunc[f] = 0
		}
	}
	if err != nil {
		res.err = err
		return res
	}
	res.blk = b
	return res
}

func countList(m map[string]int64) string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s x%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// collOps maps MPI collective functions to the operation they perform.
var collOps = map[string]collective.Op{
	"MPI_Barrier": collective.Barrier, "MPI_Ibarrier": collective.Barrier,
	"MPI_Bcast": collective.Bcast, "MPI_Ibcast": collective.Bcast,
	"MPI_Reduce": collective.Reduce, "MPI_Ireduce": collective.Reduce,
	"MPI_Allreduce": collective.Allreduce, "MPI_Iallreduce": collective.Allreduce,
	"MPI_Allgather": collective.Allgather, "MPI_Iallgather": collective.Allgather,
	"MPI_Allgatherv": collective.Allgatherv, "MPI_Iallgatherv": collective.Allgatherv,
	"MPI_Alltoall": collective.Alltoall, "MPI_Ialltoall": collective.Alltoall,
	"MPI_Alltoallv": collective.Alltoallv, "MPI_Ialltoallv": collective.Alltoallv,
	"MPI_Gather": collective.Gather, "MPI_Igather": collective.Gather,
	"MPI_Gatherv": collective.Gatherv, "MPI_Igatherv": collective.Gatherv,
	"MPI_Scatter": collective.Scatter, "MPI_Iscatter": collective.Scatter,
	"MPI_Scatterv": collective.Scatterv, "MPI_Iscatterv": collective.Scatterv,
	"MPI_Reduce_scatter_block": collective.ReduceScatter, "MPI_Ireduce_scatter_block": collective.ReduceScatter,
	"MPI_Reduce_scatter": collective.ReduceScatter, "MPI_Ireduce_scatter": collective.ReduceScatter,
	"MPI_Scan": collective.Scan, "MPI_Iscan": collective.Scan,
	"MPI_Exscan": collective.Exscan, "MPI_Iexscan": collective.Exscan,
}

type converter struct {
	opt    *ConvertOptions
	algs   map[collective.Op]*collective.Algorithm
	rules  collective.Rules
	stats  *ConvertStats
	world  int
	b      goal.Builder
	ends   []int32
	labels []goal.Label // of the rank being converted, by op
	// perFunc counts the rank's records per function, added to
	// stats.PerFunc at the end of the rank: a map update per call cost 2 %
	// of gopsim extrapolate.
	perFunc [256]int64
	// perAlg counts the rank's collectives per algorithm, added to
	// stats.CollAlgorithms at the end of the rank.
	perAlg map[*collective.Algorithm]int64
}

// pred is an op the next op of the rank must follow: after its end, or
// (start) only after its start.
type pred struct {
	op    int32
	start bool
}

type request struct {
	ops    []int32 // the op (send, recv) or the ends of a nonblocking collective
	recv   bool
	cancel bool
}

type rankState struct {
	preds   []pred
	reqs    map[uint64]*request
	collSeq map[int32]uint32
	once    oneTime // the library's one-time costs paid
	prevEnd int64   // end of the previous call: computation starts here
	flushNs int64   // tracer flush time since prevEnd
	started bool
	// tooLong is set by compute to a scaled computation longer than a
	// calc holds (goal.MaxCalc); rank reports it.
	tooLong error
}

func (cv *converter) rank(rd RankStream, r int32) (*goal.RankBlock, error) {
	b := &cv.b
	b.Reset(r)
	cv.labels = cv.labels[:0]
	s := rankState{reqs: map[uint64]*request{}, collSeq: map[int32]uint32{}, prevEnd: rd.Start()}
	var c Call
	for {
		err := rd.Next(&c)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if c.Func == FuncFlush {
			s.flushNs += c.End - c.Start
			continue
		}
		cv.stats.Calls++
		name := c.Func.String()
		cv.perFunc[c.Func]++
		if c.Err != 0 {
			continue // a failed call moved no data
		}
		err = cv.call(rd, r, &s, &c, name)
		if err == nil && cv.opt.MaxRankOps > 0 && int64(b.NumOps()) > cv.opt.MaxRankOps {
			err = cv.tooManyOps("")
		}
		if err != nil || s.tooLong != nil {
			return nil, fmt.Errorf("%s: rank %d: %s at t=%d: %w", rd.Where(), r, name, c.Start, cmp.Or(err, s.tooLong))
		}
	}
	for _, q := range s.reqs {
		if q.cancel {
			cv.cancelUnknown(q, "MPI_Cancel of a request never completed (whether the cancel succeeded is not traced)")
		}
	}
	blk := b.Block()
	blk.Labels = append(blk.Labels[:0], cv.labels...)
	return blk, nil
}

// tooManyOps is the error of a call that gives the rank more ops than
// ConvertOptions.MaxRankOps; expanding, when set, names the collective
// algorithm that was stopped ("allgatherv/ring").
func (cv *converter) tooManyOps(expanding string) error {
	if expanding != "" {
		expanding = ", expanding " + expanding
	}
	return fmt.Errorf("%w: more than %d ops in the rank%s (the bound ConvertOptions.MaxRankOps sets: raise it, or 0 for none)", ErrTooManyOps, cv.opt.MaxRankOps, expanding)
}

// cancelUnknown handles a cancelled request whose outcome the trace does
// not say (no completion reported MPI_Test_cancelled): it is listed as
// unsupported under why, and with Unsupported "calc" modelled as
// cancelled, its operation a no-op, as a cancel that succeeded would be.
func (cv *converter) cancelUnknown(q *request, why string) {
	cv.stats.Unsupported[why]++
	if cv.opt.Unsupported == "calc" {
		cv.cancelled(q)
	}
}

// cancelled turns the operation of request q into a no-op: a receive that
// was cancelled matched no message, and a send that was cancelled was
// never matched, so neither side communicated.
func (cv *converter) cancelled(q *request) {
	for _, id := range q.ops {
		cv.b.Set(id, goal.Op{Kind: goal.Calc})
	}
}

// strided labels send op id as non-contiguous with stride bytes (nothing
// for 0: contiguous).
func (cv *converter) strided(id int32, stride int64) {
	if stride <= 0 {
		return
	}
	cv.labels = append(cv.labels, goal.Label{Op: id, Name: "stride" + strconv.FormatInt(stride, 10) + "_" + goal.CanonicalLabel(id)})
	cv.stats.Strided++
}

// compute emits the computation between the previous call and c, then
// the library's cost of a first call of c's function.
func (cv *converter) compute(s *rankState, c *Call) {
	cv.gap(s, c)
	cv.firstCall(s, c)
}

// gap emits the computation between the previous call and c.
func (cv *converter) gap(s *rankState, c *Call) {
	gap := c.Start - s.prevEnd - s.flushNs
	s.flushNs = 0
	s.prevEnd = c.End
	if gap <= 0 {
		return
	}
	t, err := goal.CalcSize(float64(gap) * cv.opt.ComputeScale)
	if err != nil {
		s.tooLong = fmt.Errorf("the computation before it, %d ns times the compute scale %g, is %w", gap, cv.opt.ComputeScale, err)
		return
	}
	if t == 0 {
		return
	}
	id := cv.b.Calc(t, 0)
	cv.follow(s, id)
	s.preds = append(s.preds[:0], pred{op: id})
	cv.stats.Calcs++
	cv.stats.ComputeNs = addNs(cv.stats.ComputeNs, int64(t))
}

// follow makes op id come after the rank's current predecessors.
func (cv *converter) follow(s *rankState, id int32) {
	for _, p := range s.preds {
		if p.start {
			cv.b.Irequires(id, p.op)
		} else {
			cv.b.Requires(id, p.op)
		}
	}
}

// join returns one op that stands for the rank's predecessors (a 0 ns
// calc when there are several or some are start-only), for constructs
// that take a plain list of ops to follow.
func (cv *converter) join(s *rankState) []int32 {
	switch {
	case len(s.preds) == 0:
		return nil
	case len(s.preds) == 1 && !s.preds[0].start:
		return []int32{s.preds[0].op}
	}
	id := cv.b.Calc(0, 0)
	cv.follow(s, id)
	s.preds = append(s.preds[:0], pred{op: id})
	return []int32{id}
}

func (cv *converter) p2pTag(comm, tag int32) (uint32, error) {
	if tag == AnyTag {
		return goal.AnyTag, nil
	}
	if tag < 0 || tag >= 1<<24 && comm != 0 {
		return 0, fmt.Errorf("tag %d on communicator %d does not fit gopsim's tag space (24 bits on communicators other than the world)", tag, comm)
	}
	if comm != 0 {
		if comm >= 128 {
			return 0, fmt.Errorf("point-to-point on communicator id %d: gopsim encodes up to 127 communicators in tags", comm)
		}
		return uint32(comm)<<24 | uint32(tag), nil
	}
	return uint32(tag), nil
}

func peerOf(p int32) int32 {
	if p == AnySource {
		return goal.AnySource
	}
	return p
}

func (cv *converter) call(rd RankStream, r int32, s *rankState, c *Call, name string) error {
	b := &cv.b
	switch c.Func.Class() {
	case ClassInit:
		s.prevEnd, s.flushNs = c.End, 0
		return nil
	case ClassCommNew:
		cv.compute(s, c)
		return cv.commNew(rd, r, s, c, name)
	case ClassFinalize, ClassCommFree, ClassFlush:
		cv.compute(s, c) // MPI_Comm_free is local
		return nil
	case ClassProbe:
		cv.compute(s, c) // the receive that follows does the waiting
		return nil
	case ClassType:
		return nil // local work: its time stays in the next computation gap
	}
	switch c.Func.Class() {
	case ClassSend, ClassIsend:
		cv.compute(s, c)
		if c.Peer == ProcNull {
			return nil
		}
		tag, err := cv.p2pTag(c.Comm, c.Tag)
		if err != nil {
			return err
		}
		cv.contact(s, r, c.Peer)
		id := b.Send(uint64(c.Bytes), c.Peer, tag, 0, 0)
		cv.strided(id, c.Type.Stride)
		cv.follow(s, id)
		if c.Func.Class() == ClassIsend {
			s.reqs[c.Request] = &request{ops: []int32{id}}
			s.preds = append(s.preds[:0], pred{op: id, start: true})
		} else {
			s.preds = append(s.preds[:0], pred{op: id})
		}
	case ClassRecv, ClassIrecv:
		cv.compute(s, c)
		if c.Peer == ProcNull {
			return nil
		}
		tag, err := cv.p2pTag(c.Comm, c.Tag)
		if err != nil {
			return err
		}
		cv.contact(s, r, c.Peer)
		id := b.Recv(uint64(c.Bytes), peerOf(c.Peer), tag, 0, 0)
		cv.follow(s, id)
		if c.Func.Class() == ClassIrecv {
			s.reqs[c.Request] = &request{ops: []int32{id}, recv: true}
			s.preds = append(s.preds[:0], pred{op: id, start: true})
		} else {
			s.preds = append(s.preds[:0], pred{op: id})
		}
	case ClassSendrecv:
		cv.compute(s, c)
		cv.contact(s, r, c.Peer, c.RecvPeer)
		var ids []int32
		if c.Peer != ProcNull {
			tag, err := cv.p2pTag(c.Comm, c.Tag)
			if err != nil {
				return err
			}
			ids = append(ids, b.Send(uint64(c.Bytes), c.Peer, tag, 0, 0))
			cv.strided(ids[0], c.Type.Stride)
		}
		if c.RecvPeer != ProcNull {
			tag, err := cv.p2pTag(c.Comm, c.RecvTag)
			if err != nil {
				return err
			}
			ids = append(ids, b.Recv(uint64(c.RecvBytes), peerOf(c.RecvPeer), tag, 0, 0))
		}
		for _, id := range ids {
			cv.follow(s, id)
		}
		if len(ids) > 0 {
			s.preds = s.preds[:0]
			for _, id := range ids {
				s.preds = append(s.preds, pred{op: id})
			}
		}
	case ClassWait, ClassTest:
		if c.Func.Class() == ClassTest && !c.Flag && len(c.Done) == 0 {
			// A run of failed polls: the application computed while it
			// polled; count the span as computation.
			return nil
		}
		cv.compute(s, c)
		for _, d := range c.Done {
			q := s.reqs[d.Request]
			if q == nil {
				// A request the tracer did not see created: persistent
				// requests (MPI_Start) and matched probes are not traced.
				cv.stats.Unsupported["completion of an untraced request (persistent or MPI_Mprobe)"]++
				continue
			}
			delete(s.reqs, d.Request)
			if d.Cancelled { // the operation never happened
				cv.cancelled(q)
				continue
			}
			if q.recv && d.Peer != None {
				op := b.Op(q.ops[0])
				tag, err := cv.p2pTag(d.Comm, d.Tag)
				if err != nil {
					return err
				}
				op.Peer, op.Tag, op.Size = d.Peer, tag, uint64(d.Bytes)
				b.Set(q.ops[0], op)
			}
			for _, id := range q.ops {
				s.preds = append(s.preds, pred{op: id})
			}
		}
	case ClassCancel:
		cv.compute(s, c)
		if q := s.reqs[c.Request]; q != nil {
			q.cancel = true
		}
	case ClassRequestFree:
		cv.compute(s, c)
		if q := s.reqs[c.Request]; q != nil && q.cancel {
			cv.cancelUnknown(q, "MPI_Request_free of a cancelled request (whether the cancel succeeded is not traced)")
		}
		delete(s.reqs, c.Request) // the operation completes; nobody waits for it
	case ClassCollective, ClassICollective:
		cv.compute(s, c)
		return cv.collective(rd, r, s, c, name)
	default:
		cv.stats.Unsupported[name]++
		if cv.opt.Unsupported == "calc" {
			return nil // its time stays in the next computation gap
		}
		cv.compute(s, c)
	}
	return nil
}

func (cv *converter) collective(rd RankStream, r int32, s *rankState, c *Call, name string) error {
	op, ok := collOps[name]
	if !ok {
		cv.stats.Unsupported[name]++
		return nil
	}
	ok, err := cv.expand(rd, r, s, c, name, op)
	if ok {
		cv.stats.Collectives++
	}
	return err
}

// expand emits collective op of call c (of MPI function name) on c.Comm,
// or reports false after counting it as unsupported.
func (cv *converter) expand(rd RankStream, r int32, s *rankState, c *Call, name string, op collective.Op) (bool, error) {
	comm := rd.Comm(c.Comm)
	if comm == nil {
		return false, fmt.Errorf("communicator %d not defined", c.Comm)
	}
	if comm.Inter() {
		cv.stats.Unsupported[name+" (intercommunicator)"]++
		return false, nil
	}
	if comm.Local {
		// Its id is this rank's own, not agreed with the other members, so
		// the members' messages could not be told apart from other calls.
		cv.stats.Unsupported[name+" (communicator created by an untraced call)"]++
		return false, nil
	}
	me := comm.Rank(r)
	if me < 0 {
		return false, fmt.Errorf("rank %d is not a member of communicator %d", r, c.Comm)
	}
	k := s.collSeq[c.Comm]
	s.collSeq[c.Comm] = k + 1
	spec := collective.Spec{
		Comm: collective.NewComm(comm.Members), Root: int(c.Root), Size: uint64(max(c.Bytes, 0)),
		Tag:             1<<31 | uint32(c.Comm&0x7fff)<<16 | k&0xffff,
		ReduceNsPerByte: cv.opt.ReduceNsPerByte, ElemSize: uint64(max(c.Type.Size, 0)),
		Block:  name == "MPI_Reduce_scatter_block" || name == "MPI_Ireduce_scatter_block",
		MaxOps: cv.opt.MaxRankOps,
	}
	if op.Rooted() && c.Root < 0 {
		return false, fmt.Errorf("root %d", c.Root)
	}
	toU := func(x []int64) []uint64 {
		if x == nil {
			return nil
		}
		out := make([]uint64, len(x))
		for i, v := range x {
			out[i] = uint64(max(v, 0))
		}
		return out
	}
	spec.Counts, spec.RecvCounts = toU(c.Counts), toU(c.RecvCounts)
	p := comm.Size()
	switch op {
	case collective.Gatherv, collective.Scatterv:
		if len(spec.Counts) == 0 { // a non-root knows only its own block
			spec.Counts = make([]uint64, p)
			spec.Counts[me] = spec.Size
		}
	case collective.ReduceScatter:
		if name == "MPI_Reduce_scatter" || name == "MPI_Ireduce_scatter" {
			// Unequal result blocks: modelled as equal blocks of the mean.
			var total uint64
			for _, x := range spec.Counts {
				total += x
			}
			spec.Size = (total + uint64(p) - 1) / uint64(p)
			spec.Counts = nil
		}
	}
	alg := cv.algs[op]
	var err error
	if alg == nil {
		ch, err := cv.rules.Choose(op, &spec)
		if err != nil {
			return false, err
		}
		alg = ch.Alg
		if ch.Wanted != "" {
			cv.stats.CollStandIns[op.String()+"/"+ch.Wanted+" -> "+alg.Name]++
		}
	} else if err = alg.Check(&spec); err != nil {
		return false, err
	}
	if cv.perAlg == nil {
		cv.perAlg = map[*collective.Algorithm]int64{}
	}
	cv.perAlg[alg]++
	slot := cv.contactSlot(s, r, comm.Members)
	after := cv.join(s)
	first := cv.b.NumOps()
	if cv.ends, err = alg.Emit(&cv.b, me, &spec, after, cv.ends); err != nil {
		if errors.Is(err, collective.ErrTooManyOps) {
			return false, cv.tooManyOps(op.String() + "/" + alg.Name)
		}
		return false, fmt.Errorf("--reduce-cost %g: %w", cv.opt.ReduceNsPerByte, err)
	}
	cv.contactEmitted(s, r, slot, first)
	if c.Type.Stride > 0 {
		for id := first; id < cv.b.NumOps(); id++ {
			if cv.b.Op(id).Kind == goal.Send {
				cv.strided(id, c.Type.Stride)
			}
		}
	}
	if c.Func.Class() == ClassICollective {
		s.reqs[c.Request] = &request{ops: append([]int32(nil), cv.ends...)}
		return true, nil
	}
	if len(cv.ends) > 0 {
		s.preds = s.preds[:0]
		for _, id := range cv.ends {
			s.preds = append(s.preds, pred{op: id})
		}
	}
	return true, nil
}

// Communicator creation. The call communicates as the MPI library does
// it, over the parent communicator c.Comm (docs/formats.md, "Communicator
// creation", gives the sources):
//
//   - MPI_Comm_split, MPI_Comm_split_type, MPI_Cart_sub, and MPI_Cart_create
//     when the grid leaves out some ranks of the parent: an allgather of
//     each rank's (color, key), 2 ints, then the context-id agreement;
//   - MPI_Comm_dup, MPI_Comm_create, MPI_Cart_create of the whole parent:
//     the context-id agreement alone.
//
// The context-id agreement follows the collective rules: MPICH's
// MPIR_Get_contextid_sparse is an allreduce (MPI_BAND) of its mask of free
// context ids, 64 ints and a flag; Open MPI's ompi_comm_nextcid two
// allreduces of one int (MPI_MAX of the candidate, MPI_MIN of the flag)
// and ompi_comm_activate a third. All are expanded as the collectives of
// the trace are.
const (
	splitInfoBytes = 2 * 4        // color and key
	contextIDBytes = (64 + 1) * 4 // MPIR_MAX_CONTEXT_MASK + 1 ints
	ompiCIDBytes   = 4            // one int
	ompiCIDRounds  = 3            // the candidate, the flag, the activation
)

func (cv *converter) commNew(rd RankStream, r int32, s *rankState, c *Call, name string) error {
	if c.Comm == None {
		// The trace does not say which communicator the parent was (an
		// OTF2 region without collective events, a parent an importer
		// could not follow): the call's measured time stands for it.
		cv.measured(s, c)
		return nil
	}
	split := false
	switch c.Func {
	case FuncCommSplit, FuncCommSplitType, FuncCartSub:
		split = true
	case FuncCartCreate:
		// MPICH copies the parent when the grid covers it and splits it
		// otherwise; a rank outside the grid gets MPI_COMM_NULL.
		parent, nc := rd.Comm(c.Comm), rd.Comm(c.NewComm)
		split = c.NewComm == None || parent == nil || nc == nil || nc.Size() != parent.Size()
	}
	x := Call{Func: FuncAllgather, Comm: c.Comm, Root: None, Bytes: splitInfoBytes, Type: Datatype{Size: 4, Extent: 4}} // ints
	if split {
		if ok, err := cv.expand(rd, r, s, &x, name, collective.Allgather); !ok || err != nil {
			return err // not modelled: counted once
		}
	}
	x.Func, x.Bytes = FuncAllreduce, contextIDBytes
	rounds := 1
	if cv.rules == collective.OpenMPI {
		x.Bytes, rounds = ompiCIDBytes, ompiCIDRounds
	}
	var ok bool
	var err error
	for i := 0; i < rounds; i++ {
		if ok, err = cv.expand(rd, r, s, &x, name, collective.Allreduce); !ok || err != nil {
			break // not modelled: counted once
		}
	}
	if ok && err == nil && cv.opt.LibraryCosts != nil {
		cv.charge(s, cv.opt.LibraryCosts.CommCreateNs)
		cv.stats.LibraryCommCreates++
	}
	return err
}

// measured emits the duration of call c as a calc (unscaled: it is not
// the application's computation) after the rank's predecessors.
func (cv *converter) measured(s *rankState, c *Call) {
	d := c.End - c.Start
	if d <= 0 {
		return
	}
	id := cv.b.Calc(uint64(d), 0)
	cv.follow(s, id)
	s.preds = append(s.preds[:0], pred{op: id})
	cv.stats.Calcs++
	cv.stats.ComputeNs = addNs(cv.stats.ComputeNs, d)
}

// addNs adds two non-negative totals of ns, stopping at math.MaxInt64
// instead of wrapping to a negative time: a summary of calcs near their
// limit (goal.MaxCalc) can exceed an int64.
func addNs(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
