package sim

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gopsim/gopsim/goal"
)

// ErrNoRecord is returned by CriticalPath for a result without per-op
// records: run with Options.Record.
var ErrNoRecord = errors.New("sim: the result has no per-op record (run with Options.Record)")

// StepKind is what a step of a critical path is.
type StepKind uint8

const (
	StepCalc    StepKind = iota + 1 // a calc's CPU work
	StepSend                        // a send's CPU overhead, or its NIC busy, or a rendezvous match
	StepRecv                        // a receive overhead at the receiver, or its NIC busy
	StepMessage                     // a message from its send's start to its delivery: o + L (+ congestion)
)

func (k StepKind) String() string {
	switch k {
	case StepCalc:
		return "calc"
	case StepSend:
		return "send"
	case StepRecv:
		return "recv"
	case StepMessage:
		return "message"
	}
	return fmt.Sprintf("StepKind(%d)", uint8(k))
}

// Classes is a time split into the classes of a critical path, in ns.
type Classes struct {
	Calc      int64 `json:"calc_ns"`      // calcs
	Overhead  int64 `json:"overhead_ns"`  // CPU overheads: o, (s-1)·O
	Latency   int64 `json:"latency_ns"`   // wire latency L
	Bandwidth int64 `json:"bandwidth_ns"` // (s-1)·G where it dominates a receive overhead; NICs busy (g + (s-1)·G)
	Wait      int64 `json:"wait_ns"`      // network congestion, or what the record does not explain
	Noise     int64 `json:"noise_ns"`     // OS noise and stragglers charged to CPU work
}

// Sum returns the total of the classes.
func (c Classes) Sum() int64 {
	return c.Calc + c.Overhead + c.Latency + c.Bandwidth + c.Wait + c.Noise
}

func (c *Classes) add(d Classes) {
	c.Calc += d.Calc
	c.Overhead += d.Overhead
	c.Latency += d.Latency
	c.Bandwidth += d.Bandwidth
	c.Wait += d.Wait
	c.Noise += d.Noise
}

// Step is one link of a critical path: an interval [Start, End] of the
// path, with what happened in it and how its length splits into classes.
type Step struct {
	Kind  StepKind
	Rank  int    // where it happened (for a message, the sender)
	Op    int32  // global op index: the calc, the send (send, message) or the receive (recv)
	Index int32  // the op's index within its rank
	Label string // the op's label
	Peer  int32  // the other end of a message (receiver of a send or message, sender of a recv); -1 for a calc
	Bytes uint64 // message size; 0 for a calc
	Start int64
	End   int64
	What  string // a short explanation
	Classes
}

// Path is the critical path of a run: the chain of ops and messages that
// determines the maximum finishing time. Its steps tile [0, Length] in
// time order, each starting where the previous one ended, and the
// classes (the path's and each step's) sum to the length.
type Path struct {
	Length int64 // the maximum finishing time, ns
	Rank   int   // the rank that finishes last (Result.MaxRank)
	Classes
	Steps []Step
}

// CriticalPath explains res.MaxTime: it walks back from the CPU work that
// ends last on rank res.MaxRank and, at each link, asks what decided that
// time:
//
//   - a calc or a send overhead ends Size (or o + (s-1)·O) plus its noise
//     after it started;
//   - an op started at its ready time (then the predecessor that resolved
//     it last: a requires predecessor's completion, an irequires
//     predecessor's start), or when its CPU, or for a send its NIC, became
//     free: the CPU work, or the NIC occupation (g + (s-1)·G), that ended
//     then on that resource;
//   - a receive completed at the end of its message's receive overhead
//     (o + max((s-1)·O, (s-1)·G) plus noise, from the time the receiver
//     took the message), or when it was posted if the message was already
//     there;
//   - the receiver took a message when it was delivered, or when its CPU
//     or receive NIC became free; a message is delivered o + L after its
//     send started, later under network congestion;
//   - a rendezvous send completes when it is matched: when its message is
//     taken by the receiver, or when the receive is posted.
//
// Ties go to the predecessor, then to the CPU before the NIC, then to the
// lowest op index, so the path is deterministic. Time the record cannot
// explain (it should not happen) becomes a Wait step saying so.
//
// res must come from p.Run with Options.Record and without error.
func CriticalPath(p *Program, res *Result) (*Path, error) {
	rec, tmax, rmax, scale := res.Record, res.MaxTime, res.MaxRank, res.scale
	switch {
	case scale > 1:
		rec, tmax, rmax = res.rawRec, res.rawMax, res.rawRank
	case scale == 0 && scaleOf(&res.Params) != 1:
		return nil, fmt.Errorf("sim: critical path: parameters with fractions of a ns need the Result of the run itself")
	default:
		scale = 1
	}
	if rec == nil {
		return nil, ErrNoRecord
	}
	if len(rec) != p.NumOps() {
		return nil, fmt.Errorf("sim: critical path: the record has %d ops, the program %d", len(rec), p.NumOps())
	}
	w := &critWalker{p: p, rec: rec, costs: newCostTable(&res.Params, scale), eager: res.Params.EagerLimit,
		nc: int32(p.NumCPUs), nn: int32(p.NumNICs), idx: make([]*critRank, p.NumRanks), t: tmax}
	path := &Path{Length: res.MaxTime, Rank: res.MaxRank}
	if tmax > 0 {
		c, err := w.first(rmax)
		if err != nil {
			return nil, err
		}
		if err := w.walk(c); err != nil {
			return nil, err
		}
	}
	slices.Reverse(w.steps)
	for i := range w.steps {
		st := &w.steps[i]
		if scale != 1 {
			// Rounded once: each step's ends, and its classes so that
			// they add up to its rounded length.
			splitNs(st.Start, scale, &st.Calc, &st.Overhead, &st.Latency, &st.Bandwidth, &st.Wait, &st.Noise)
			st.Start, st.End = toNs(st.Start, scale), toNs(st.End, scale)
		}
		st.Label = p.Label(st.Op)
		st.Index = p.OpInfo(st.Op).Index
		path.Classes.add(st.Classes)
	}
	path.Steps = w.steps
	return path, nil
}

// What the walk explains next, about op (a send for the message causes).
const (
	cEnd     = iota // the op's completion
	cStart          // its start
	cReady          // its ready time
	cCPU            // the end of a calc's or send's CPU work
	cRecvOH         // the end of the receive overhead of send op's message
	cArrive         // when the receiver took send op's message
	cDeliver        // when send op's message was delivered
	cMatch          // when rendezvous send op was matched
	cSendNIC        // the end of send op's NIC occupation
	cRecvNIC        // the end of the receiver's NIC occupation by send op's message
)

type critCause struct {
	what int
	op   int32
}

// critWork is a resource's busy interval on a rank: CPU c is resource c,
// send NIC n is nc+n, receive NIC n is nc+nn+n.
type critWork struct {
	end, start int64
	res        int32
	op         int32 // calc or send op; for the receiving side, the send op
	cause      int   // what explains its end
}

// critRank is what the walk needs of one rank: its resources' busy
// intervals sorted by (resource, end, op) and its ops' predecessors.
type critRank struct {
	work      []critWork
	predStart []int32
	preds     []Edge
}

type critWalker struct {
	p      *Program
	rec    []OpRecord
	costs  costTable
	eager  int64
	nc, nn int32
	idx    []*critRank
	t      int64 // the time explained so far: the path's steps cover [t, Length]
	steps  []Step

	// The ranks in idx and the entries their critRanks hold: past
	// critCacheEntries, idx is emptied (and a streamed program's record
	// pages given back), so that a path through many ranks of a large
	// schedule walks in bounded memory.
	cached  []int
	entries int
	free    []*critRank // emptied from idx, their work slices to reuse
	scratch []critWork  // sortWork's other buffer
}

// cmpWork orders work intervals by (resource, end, op).
func cmpWork(a, b critWork) int {
	if a.res != b.res {
		return int(a.res - b.res)
	}
	if a.end != b.end {
		if a.end < b.end {
			return -1
		}
		return 1
	}
	return int(a.op - b.op)
}

// sortWork sorts w, intervals on resources 0..nres-1 appended in op
// order, by cmpWork, with buf as the other buffer of the pass that
// groups them by resource; it returns the sorted slice and the buffer
// to keep. Within a resource, the intervals of a rank's ops in op order
// mostly end in order, so a group is sorted only when it is not already:
// a general sort of them all was most of a critical path's time on an
// application trace (docs/performance.md).
func sortWork(w, buf []critWork, nres int) ([]critWork, []critWork) {
	at := make([]int, nres+1)
	for _, c := range w {
		at[c.res+1]++
	}
	for i := 1; i <= nres; i++ {
		at[i] += at[i-1]
	}
	buf = slices.Grow(buf[:0], len(w))[:len(w)]
	fill := slices.Clone(at[:nres])
	for _, c := range w {
		buf[fill[c.res]] = c
		fill[c.res]++
	}
	for i := range nres {
		if g := buf[at[i]:at[i+1]]; !slices.IsSortedFunc(g, cmpWork) {
			slices.SortFunc(g, cmpWork)
		}
	}
	return buf, w
}

// critCacheEntries bounds the work intervals and predecessor edges the
// walk keeps, about 40 bytes each. A variable so that tests can vary it;
// paths do not depend on it.
var critCacheEntries = 1 << 21

func (w *critWalker) info(g int32) OpInfo { return w.p.OpInfo(g) }

func (w *critWalker) rank(r int) *critRank {
	if x := w.idx[r]; x != nil {
		return x
	}
	if w.entries > critCacheEntries {
		for _, c := range w.cached {
			w.free = append(w.free, w.idx[c])
			w.idx[c] = nil
		}
		w.cached, w.entries = w.cached[:0], 0
		w.p.ReleaseRecordPages()
	}
	var x *critRank
	if n := len(w.free); n > 0 {
		x, w.free = w.free[n-1], w.free[:n-1]
	} else {
		x = &critRank{}
	}
	x.predStart, x.preds = w.p.predsInto(r, x.predStart, x.preds)
	lo, hi := w.p.RankOps(r)
	x.work = slices.Grow(x.work[:0], 2*int(hi-lo)) // two intervals an op at most
	for g := lo; g < hi; g++ {
		in := w.info(g)
		rc := &w.rec[g]
		switch in.Kind {
		case goal.Calc:
			x.work = append(x.work, critWork{end: rc.CPUEnd, start: rc.Start, res: int32(in.CPU), op: g, cause: cCPU})
		case goal.Send:
			co := w.costs.of(in.Size)
			x.work = append(x.work,
				critWork{end: rc.CPUEnd, start: rc.Start, res: int32(in.CPU), op: g, cause: cCPU},
				critWork{end: rc.Start + co.g + co.G(bytesBeyondFirst(in.Size)), start: rc.Start, res: w.nc + int32(in.NIC), op: g, cause: cSendNIC})
		case goal.Recv:
			s := rc.Match
			if s < 0 || w.rec[s].Arrive < 0 {
				continue
			}
			sin := w.info(s)
			sr := &w.rec[s]
			co := w.costs.of(sin.Size)
			x.work = append(x.work,
				critWork{end: sr.RecvCPUEnd, start: sr.Arrive, res: int32(sin.CPU), op: s, cause: cRecvOH},
				critWork{end: sr.Arrive + co.g + co.G(bytesBeyondFirst(sin.Size)), start: sr.Arrive, res: w.nc + w.nn + int32(sin.NIC), op: s, cause: cRecvNIC})
		}
	}
	x.work, w.scratch = sortWork(x.work, w.scratch, int(w.nc+2*w.nn))
	w.idx[r] = x
	w.cached = append(w.cached, r)
	w.entries += len(x.work) + len(x.preds) + len(x.predStart)
	return x
}

// busy returns the cause of resource res of rank r becoming free at t:
// the work on it that ends at t and started before.
func (w *critWalker) busy(r int, res int32, t int64) (critCause, bool) {
	x := w.rank(r)
	i, _ := slices.BinarySearchFunc(x.work, critWork{res: res, end: t}, func(a, b critWork) int {
		if a.res != b.res {
			return int(a.res - b.res)
		}
		if a.end < b.end {
			return -1
		}
		if a.end > b.end {
			return 1
		}
		return 0
	})
	for ; i < len(x.work) && x.work[i].res == res && x.work[i].end == t; i++ {
		if x.work[i].start < t {
			return critCause{x.work[i].cause, x.work[i].op}, true
		}
	}
	return critCause{}, false
}

// first returns what ends last on rank r, at w.t: the CPU work that ends
// then (lowest op), else a rendezvous send matched then, else any op
// that completes then.
func (w *critWalker) first(r int) (critCause, error) {
	for c := int32(0); c < w.nc; c++ {
		if cause, ok := w.busy(r, c, w.t); ok {
			return cause, nil
		}
	}
	lo, hi := w.p.RankOps(r)
	for g := lo; g < hi; g++ {
		if rc := &w.rec[g]; rc.End == w.t && w.info(g).Kind == goal.Send && rc.CPUEnd < rc.End {
			return critCause{cMatch, g}, nil
		}
	}
	for g := lo; g < hi; g++ {
		if w.rec[g].End == w.t {
			return critCause{cEnd, g}, nil
		}
	}
	return critCause{}, fmt.Errorf("sim: critical path: nothing on rank %d ends at its finishing time %d ns (incomplete run?)", r, w.t)
}

// step records a step that ends at w.t and moves w.t to its start.
func (w *critWalker) step(st Step) {
	st.End = w.t
	st.Start = w.t - st.Classes.Sum()
	if st.Start < st.End || st.Kind == StepSend && st.What == whatRendezvous {
		w.steps = append(w.steps, st)
	}
	w.t = st.Start
}

const whatRendezvous = "rendezvous send completes when matched"

// gap makes the path jump to time t <= w.t, as a Wait step on op g that
// the record does not explain, if t < w.t.
func (w *critWalker) gap(g int32, t int64, why string) error {
	if t > w.t || t < 0 {
		return fmt.Errorf("sim: critical path: rank %d op %d: time %d ns beyond the %d ns being explained (%s)", w.info(g).Rank, g, t, w.t, why)
	}
	if t < w.t {
		in := w.info(g)
		w.step(Step{Kind: kindOf(in.Kind), Rank: in.Rank, Op: g, Peer: peerOf(in), Bytes: bytesOf(in),
			What: "unexplained wait: " + why, Classes: Classes{Wait: w.t - t}})
	}
	return nil
}

func kindOf(k goal.Kind) StepKind {
	switch k {
	case goal.Calc:
		return StepCalc
	case goal.Send:
		return StepSend
	}
	return StepRecv
}

func peerOf(in OpInfo) int32 {
	if in.Kind == goal.Calc {
		return -1
	}
	return in.Peer
}

func bytesOf(in OpInfo) uint64 {
	if in.Kind == goal.Calc {
		return 0
	}
	return in.Size
}

// walk explains w.t back to 0, starting from c.
func (w *critWalker) walk(c critCause) error {
	// Each link either moves w.t back or follows a dependency edge, a
	// match or a resource hand-over at the same time, which cannot cycle
	// in a finished run; the bound only guards against a corrupt record.
	limit := 8*int64(len(w.rec)) + 64
	for n := int64(0); w.t > 0; n++ {
		if n > limit {
			return fmt.Errorf("sim: critical path: no progress at %d ns (rank %d op %d): inconsistent record", w.t, w.info(c.op).Rank, c.op)
		}
		next, err := w.explain(c)
		if err != nil {
			return err
		}
		c = next
	}
	return nil
}

func (w *critWalker) explain(c critCause) (critCause, error) {
	g := c.op
	rc := &w.rec[g]
	in := w.info(g)
	switch c.what {
	case cEnd:
		if err := w.gap(g, rc.End, "completion"); err != nil {
			return c, err
		}
		switch in.Kind {
		case goal.Calc:
			return critCause{cCPU, g}, nil
		case goal.Send:
			if rc.End == rc.CPUEnd {
				return critCause{cCPU, g}, nil
			}
			return critCause{cMatch, g}, nil
		}
		s := rc.Match
		if s >= 0 && rc.End == w.rec[s].RecvCPUEnd && rc.Start <= w.rec[s].Arrive {
			return critCause{cRecvOH, s}, nil
		}
		return critCause{cStart, g}, nil

	case cStart:
		if err := w.gap(g, rc.Start, "start"); err != nil {
			return c, err
		}
		if rc.Start == rc.Ready {
			return critCause{cReady, g}, nil
		}
		if next, ok := w.busy(in.Rank, int32(in.CPU), w.t); ok {
			return next, nil
		}
		if in.Kind == goal.Send {
			if next, ok := w.busy(in.Rank, w.nc+int32(in.NIC), w.t); ok {
				return next, nil
			}
		}
		if err := w.gap(g, rc.Ready, "started after its ready time with its resources free"); err != nil {
			return c, err
		}
		return critCause{cReady, g}, nil

	case cReady:
		if err := w.gap(g, rc.Ready, "ready time"); err != nil {
			return c, err
		}
		x := w.rank(in.Rank)
		lo, _ := w.p.RankOps(in.Rank)
		best := critCause{op: -1}
		for _, e := range x.preds[x.predStart[g-lo]:x.predStart[g-lo+1]] {
			pr := &w.rec[e.Op]
			switch {
			case e.Start && pr.Start == w.t:
				if best.op < 0 || e.Op < best.op {
					best = critCause{cStart, e.Op}
				}
			case !e.Start && pr.End == w.t:
				if best.op < 0 || e.Op < best.op {
					best = critCause{cEnd, e.Op}
				}
			}
		}
		if best.op < 0 {
			return c, fmt.Errorf("sim: critical path: rank %d op %d: no predecessor gives its ready time %d ns", in.Rank, in.Index, rc.Ready)
		}
		return best, nil

	case cCPU:
		if err := w.gap(g, rc.CPUEnd, "CPU work"); err != nil {
			return c, err
		}
		st := Step{Kind: kindOf(in.Kind), Rank: in.Rank, Op: g, Peer: peerOf(in), Bytes: bytesOf(in)}
		work := rc.CPUEnd - rc.Start - rc.Noise
		if in.Kind == goal.Calc {
			st.What = fmt.Sprintf("calc %d ns", in.Size)
			st.Calc = work
		} else {
			st.What = "send overhead o + (s-1)·O"
			st.Overhead = work
		}
		st.Noise = rc.Noise
		w.step(st)
		return critCause{cStart, g}, nil

	case cRecvOH:
		if err := w.gap(g, rc.RecvCPUEnd, "receive overhead"); err != nil {
			return c, err
		}
		co := w.costs.of(in.Size)
		b := bytesBeyondFirst(in.Size)
		st := w.recvStep(g, in)
		st.Noise = rc.RecvNoise
		perO, perG := co.O(b), co.G(b)
		if perG > perO {
			st.What = "receive overhead o + (s-1)·G"
			st.Overhead, st.Bandwidth = co.o, perG
		} else {
			st.What = "receive overhead o + (s-1)·O"
			st.Overhead = co.o + perO
		}
		if d := rc.RecvCPUEnd - rc.Arrive - st.Classes.Sum(); d != 0 {
			st.Overhead += d // not expected: the engine charges exactly this
		}
		w.step(st)
		return critCause{cArrive, g}, nil

	case cArrive:
		if err := w.gap(g, rc.Arrive, "message taken"); err != nil {
			return c, err
		}
		if rc.Arrive == rc.Delivered {
			return critCause{cDeliver, g}, nil
		}
		q := int(in.Peer)
		if next, ok := w.busy(q, int32(in.CPU), w.t); ok {
			return next, nil
		}
		if next, ok := w.busy(q, w.nc+w.nn+int32(in.NIC), w.t); ok {
			return next, nil
		}
		if err := w.gap(g, rc.Delivered, "message taken after its delivery with the receiver free"); err != nil {
			return c, err
		}
		return critCause{cDeliver, g}, nil

	case cDeliver:
		if err := w.gap(g, rc.Delivered, "delivery"); err != nil {
			return c, err
		}
		co := w.costs.of(in.Size)
		base := rc.Start + co.o + co.L
		if base > w.t {
			return c, fmt.Errorf("sim: critical path: rank %d op %d: message delivered at %d ns, before its send's start + o + L = %d ns", in.Rank, in.Index, w.t, base)
		}
		st := Step{Kind: StepMessage, Rank: in.Rank, Op: g, Peer: in.Peer, Bytes: in.Size, What: "o + L"}
		st.Overhead, st.Latency, st.Wait = co.o, co.L, w.t-base
		if st.Wait > 0 {
			st.What = "o + L + network congestion"
		}
		w.step(st)
		return critCause{cStart, g}, nil

	case cMatch:
		r := rc.Match
		if r < 0 {
			return c, fmt.Errorf("sim: critical path: rank %d op %d: rendezvous send never matched", in.Rank, in.Index)
		}
		if err := w.gap(g, rc.End, "rendezvous match"); err != nil {
			return c, err
		}
		w.step(Step{Kind: StepSend, Rank: in.Rank, Op: g, Peer: in.Peer, Bytes: in.Size, What: whatRendezvous})
		if rc.Arrive >= w.rec[r].Start {
			return critCause{cArrive, g}, nil
		}
		return critCause{cStart, r}, nil

	case cSendNIC:
		co := w.costs.of(in.Size)
		end := rc.Start + co.g + co.G(bytesBeyondFirst(in.Size))
		if err := w.gap(g, end, "send NIC"); err != nil {
			return c, err
		}
		w.step(Step{Kind: StepSend, Rank: in.Rank, Op: g, Peer: in.Peer, Bytes: in.Size,
			What: "send NIC busy g + (s-1)·G", Classes: Classes{Bandwidth: end - rc.Start}})
		return critCause{cStart, g}, nil

	case cRecvNIC:
		co := w.costs.of(in.Size)
		end := rc.Arrive + co.g + co.G(bytesBeyondFirst(in.Size))
		if err := w.gap(g, end, "receive NIC"); err != nil {
			return c, err
		}
		st := w.recvStep(g, in)
		st.What = "receive NIC busy g + (s-1)·G"
		st.Bandwidth = end - rc.Arrive
		w.step(st)
		return critCause{cArrive, g}, nil
	}
	return c, fmt.Errorf("sim: critical path: internal error: cause %d", c.what)
}

// recvStep is a step at the receiver of send s's message, on its receive.
func (w *critWalker) recvStep(s int32, in OpInfo) Step {
	r := w.rec[s].Match
	st := Step{Kind: StepRecv, Rank: int(in.Peer), Op: r, Peer: int32(in.Rank), Bytes: in.Size}
	if r < 0 { // cannot happen for a message the receiver took in a finished run
		st.Op = s
	}
	return st
}
