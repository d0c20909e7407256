package tit

// This file writes a GOAL schedule as a SimGrid time-independent trace
// (TIT), in the syntax tit.go reads and SimGrid's replay takes.
//
// # Output
//
// One shared file: a # comment line, then the actions of rank 0, of rank
// 1, and so on, each line "RANK ACTION ARGS". Every rank has
//
//	RANK init                        sizes are counts of MPI_BYTE from here on
//	RANK isend PEER TAG BYTES        a send op
//	RANK irecv PEER TAG BYTES        a receive op
//	RANK compute FLOPS               a calc op: ns × host speed / 1e9 (none for 0 ns)
//	RANK wait SRC DST TAG            before an op that requires a send or receive
//	RANK waitall                     if some request was never waited for
//	RANK finalize
//
// in this order: init, the ops in a topological order of the rank's
// dependency graph (each preceded by its waits), waitall, finalize. A
// rank without ops still has init and finalize, so that the reader sees
// every rank.
//
// # Order
//
// The order is Kahn's: an op is ready once all its predecessors, by
// requires and irequires edges, have been written. Among the ready ops,
// the sends and receives that need no wait go first, lowest op index
// first; only when there is none is the lowest-indexed other ready op
// (a calc, or an op that needs a wait) written. This issues everything
// the graph allows before the rank blocks, as LogGOPSim starts every
// ready op, and keeps a receive that a peer needs from being stuck behind
// a wait. The order is a function of the schedule alone.
//
// An irequires edge needs only its predecessor to have been issued,
// which the order guarantees. A requires edge from a send or receive X
// puts a wait for X right before the first op that requires X. A requires
// edge from a calc needs nothing: compute blocks the rank.
//
// # Waits
//
// "wait SRC DST TAG" names no request: the reader (and SimGrid's request
// store) completes the oldest open request with that source, destination
// and tag (world ranks: a send's source is the rank, a receive's
// destination is). To wait for X, the writer waits for the open requests
// of X's (source, destination, tag) that are older than X, then for X:
// one wait line each, oldest first. MPI matches messages of one
// (source, destination, tag) in order, so the older ones are usually
// complete by then anyway; when they are not, the trace waits longer than
// the graph asks.
//
// # Approximations
//
// A TIT trace is one sequential timeline per rank: compute and wait
// block it, so an op written after them is issued after them even when
// the graph would start it earlier, and computations on different CPUs
// run one after the other. CPU and NIC numbers are dropped. The fixed
// order can deadlock where the graph does not: a wait blocks on a
// request whose completion needs a message the rank sends only after
// another wait. Tags are kept when all fit the format's 0..2^30; otherwise
// all tags are renumbered 0, 1, ... in increasing order, which keeps
// which send matches which receive. A receive from AnySource or with
// AnyTag has no TIT form: Write returns ErrWildcard, naming the rank
// and op.

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/gopsim/gopsim/goal"
)

// ErrWildcard is returned (wrapped) by Write for a wildcard receive.
var ErrWildcard = errors.New("trace: tit: a time-independent trace has no wildcard receives (any source, any tag)")

// Largest tag and count the TIT reader (titStream.action) accepts.
const (
	titMaxTag   = 1 << 30
	titMaxCount = 1 << 40
)

// Write writes s as a SimGrid time-independent trace to w: one shared
// file, rank after rank, in the form described at the top of this file.
// hostSpeed, in flop/s, turns calc ns into compute flops (0:
// DefaultHostSpeed); reading the trace with the same Options.HostSpeed
// gives back the same times.
func Write(w io.Writer, s *goal.Schedule, hostSpeed float64) error {
	if hostSpeed == 0 {
		hostSpeed = DefaultHostSpeed
	}
	if !(hostSpeed > 0) || math.IsInf(hostSpeed, 0) {
		return fmt.Errorf("trace: tit: host speed %v flop/s: must be positive", hostSpeed)
	}
	if !s.Complete() {
		return fmt.Errorf("trace: tit: schedule has %d of %d ranks", len(s.RankStart)-1, s.NumRanks)
	}
	tags, err := titTags(s)
	if err != nil {
		return err
	}
	tw := &titWriter{w: bufio.NewWriter(w), s: s, speed: hostSpeed, tags: tags}
	fmt.Fprintf(tw.w, "# SimGrid time-independent trace written by gopsim: %d ranks, %d ops, compute in flops at %g flop/s\n", s.NumRanks, len(s.Ops), hostSpeed)
	for r := 0; r < s.NumRanks; r++ {
		if err := tw.rank(int32(r)); err != nil {
			return err
		}
	}
	return tw.w.Flush()
}

// titTags returns the tag renumbering, nil to keep the tags, and rejects
// wildcards.
func titTags(s *goal.Schedule) (map[uint32]uint32, error) {
	big := false
	for r := 0; r < s.NumRanks; r++ {
		for i, op := range s.RankOps(r) {
			if op.Kind != goal.Send && op.Kind != goal.Recv {
				continue
			}
			if op.Kind == goal.Recv && (op.Peer == goal.AnySource || op.Tag == goal.AnyTag) {
				what := "from any source"
				if op.Peer != goal.AnySource {
					what = "with any tag"
				}
				g := s.RankStart[r] + int32(i)
				return nil, fmt.Errorf("rank %d op %d (%s): recv %s: %w", r, i, s.Label(g), what, ErrWildcard)
			}
			big = big || op.Tag > titMaxTag
		}
	}
	if !big {
		return nil, nil
	}
	// LogGOPSim lets a send's AnyTag match any receive; TIT cannot say so.
	var all []uint32
	for g, op := range s.Ops {
		if op.Kind == goal.Send && op.Tag == goal.AnyTag {
			r := s.RankOf(int32(g))
			return nil, fmt.Errorf("rank %d op %d (%s): send with any tag: %w", r, int32(g)-s.RankStart[r], s.Label(int32(g)), ErrWildcard)
		}
		if op.Kind == goal.Send || op.Kind == goal.Recv {
			all = append(all, op.Tag)
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	if len(all) > titMaxTag+1 {
		return nil, fmt.Errorf("trace: tit: %d distinct tags, more than the format's %d", len(all), titMaxTag+1)
	}
	m := make(map[uint32]uint32, len(all))
	for i, t := range all {
		m[t] = uint32(i)
	}
	return m, nil
}

type titWriter struct {
	w     *bufio.Writer
	s     *goal.Schedule
	speed float64
	tags  map[uint32]uint32
	line  []byte

	// per rank, reused
	indeg   []int32
	reqPred [][]int32 // requires-predecessors that are sends or receives, ascending
	reqSucc [][]int32 // the reverse of reqPred
	unwaitd []int32   // per op: requires-predecessors not yet waited for
	state   []uint8   // titOpNew, titOpReady, titOpDone
	waited  []bool
	free    titHeap // ready sends and receives that need no wait
	blocked titHeap // other ready ops; may hold ops since moved to free or written
	open    map[titKey][]int32
	nopen   int
}

const (
	titOpNew uint8 = iota
	titOpReady
	titOpDone
)

// titHeap is a min-heap of op indexes.
type titHeap []int32

func (h titHeap) Len() int           { return len(h) }
func (h titHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h titHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *titHeap) Push(x any)        { *h = append(*h, x.(int32)) }
func (h *titHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

func (tw *titWriter) key(r int32, op *goal.Op) titKey {
	tag := op.Tag
	if tw.tags != nil {
		tag = tw.tags[tag]
	}
	if op.Kind == goal.Send {
		return titKey{r, op.Peer, int32(tag)}
	}
	return titKey{op.Peer, r, int32(tag)}
}

func (tw *titWriter) rank(r int32) error {
	s := tw.s
	ops := s.RankOps(int(r))
	base := s.RankStart[r]
	n := len(ops)
	tw.indeg = resize(tw.indeg, n)
	tw.unwaitd = resize(tw.unwaitd, n)
	tw.state = resize(tw.state, n)
	tw.waited = resize(tw.waited, n)
	if cap(tw.reqPred) < n {
		tw.reqPred, tw.reqSucc = make([][]int32, n), make([][]int32, n)
	}
	tw.reqPred, tw.reqSucc = tw.reqPred[:n], tw.reqSucc[:n]
	for i := 0; i < n; i++ {
		tw.reqPred[i], tw.reqSucc[i] = tw.reqPred[i][:0], tw.reqSucc[i][:0]
	}
	for i := 0; i < n; i++ {
		comm := ops[i].Kind == goal.Send || ops[i].Kind == goal.Recv
		for _, d := range s.Deps[s.DepStart[base+int32(i)]:s.DepStart[base+int32(i)+1]] {
			succ := d.Succ()
			if succ < 0 || int(succ) >= n {
				return fmt.Errorf("trace: tit: rank %d op %d (%s): edge to op %d of %d", r, i, s.Label(base+int32(i)), succ, n)
			}
			tw.indeg[succ]++
			if comm && !d.Start() {
				tw.reqPred[succ] = append(tw.reqPred[succ], int32(i))
				tw.reqSucc[i] = append(tw.reqSucc[i], succ)
			}
		}
	}
	for i := 0; i < n; i++ {
		// Sorted, and once each: an edge may be given twice.
		slices.Sort(tw.reqPred[i])
		tw.reqPred[i] = slices.Compact(tw.reqPred[i])
		slices.Sort(tw.reqSucc[i])
		tw.reqSucc[i] = slices.Compact(tw.reqSucc[i])
		tw.unwaitd[i] = int32(len(tw.reqPred[i]))
	}
	tw.free, tw.blocked = tw.free[:0], tw.blocked[:0]
	tw.open, tw.nopen = map[titKey][]int32{}, 0

	tw.printf(r, "init")
	for i := 0; i < n; i++ {
		if tw.indeg[i] == 0 {
			tw.ready(ops, int32(i))
		}
	}
	written := 0
	for {
		i, ok := tw.next()
		if !ok {
			break
		}
		op := &ops[i]
		for _, x := range tw.reqPred[i] {
			if !tw.waited[x] {
				tw.wait(r, ops, x)
			}
		}
		switch op.Kind {
		case goal.Send, goal.Recv:
			if op.Size > titMaxCount {
				return fmt.Errorf("trace: tit: rank %d op %d (%s): %d bytes, more than the format's %d", r, i, s.Label(base+i), op.Size, int64(titMaxCount))
			}
			k := tw.key(r, op)
			action, peer := "isend", k.dst
			if op.Kind == goal.Recv {
				action, peer = "irecv", k.src
			}
			tw.printf(r, action, int64(peer), int64(k.tag), int64(op.Size))
			tw.open[k] = append(tw.open[k], i)
			tw.nopen++
		case goal.Calc:
			if op.Size > 0 {
				tw.line = strconv.AppendInt(tw.line[:0], int64(r), 10)
				tw.line = append(tw.line, " compute "...)
				tw.line = strconv.AppendFloat(tw.line, float64(op.Size)*tw.speed/1e9, 'f', -1, 64)
				tw.line = append(tw.line, '\n')
				tw.w.Write(tw.line)
			}
		default:
			return fmt.Errorf("trace: tit: rank %d op %d (%s): %v", r, i, s.Label(base+i), op.Kind)
		}
		written++
		for _, d := range s.Deps[s.DepStart[base+i]:s.DepStart[base+i+1]] {
			succ := d.Succ()
			if tw.indeg[succ]--; tw.indeg[succ] == 0 {
				tw.ready(ops, succ)
			}
		}
	}
	if written < n {
		for i := 0; i < n; i++ {
			if tw.state[i] != titOpDone {
				return fmt.Errorf("trace: tit: rank %d: dependency cycle through op %d (%s)", r, i, s.Label(base+int32(i)))
			}
		}
	}
	if tw.nopen > 0 {
		tw.printf(r, "waitall")
	}
	tw.printf(r, "finalize")
	return nil
}

func resize[T any](x []T, n int) []T {
	if cap(x) < n {
		return make([]T, n)
	}
	x = x[:n]
	clear(x)
	return x
}

// ready files op i, whose predecessors are all written.
func (tw *titWriter) ready(ops []goal.Op, i int32) {
	tw.state[i] = titOpReady
	if ops[i].Kind != goal.Calc && tw.unwaitd[i] == 0 {
		heap.Push(&tw.free, i)
	} else {
		heap.Push(&tw.blocked, i)
	}
}

// next pops the op to write next.
func (tw *titWriter) next() (int32, bool) {
	for {
		h := &tw.free
		if h.Len() == 0 {
			h = &tw.blocked
		}
		if h.Len() == 0 {
			return 0, false
		}
		i := heap.Pop(h).(int32)
		if tw.state[i] == titOpReady { // else moved to free and written
			tw.state[i] = titOpDone
			return i, true
		}
	}
}

// wait writes the waits that complete request x: those of the older open
// requests of its key first.
func (tw *titWriter) wait(r int32, ops []goal.Op, x int32) {
	k := tw.key(r, &ops[x])
	q := tw.open[k]
	for len(q) > 0 {
		y := q[0]
		q = q[1:]
		tw.printf(r, "wait", int64(k.src), int64(k.dst), int64(k.tag))
		tw.waited[y] = true
		tw.nopen--
		for _, succ := range tw.reqSucc[y] {
			if tw.unwaitd[succ]--; tw.unwaitd[succ] == 0 && tw.state[succ] == titOpReady && ops[succ].Kind != goal.Calc {
				heap.Push(&tw.free, succ)
			}
		}
		if y == x {
			break
		}
	}
	if len(q) == 0 {
		delete(tw.open, k)
	} else {
		tw.open[k] = q
	}
}

// printf writes "r action args...".
func (tw *titWriter) printf(r int32, action string, args ...int64) {
	tw.line = strconv.AppendInt(tw.line[:0], int64(r), 10)
	tw.line = append(tw.line, ' ')
	tw.line = append(tw.line, action...)
	for _, a := range args {
		tw.line = append(tw.line, ' ')
		tw.line = strconv.AppendInt(tw.line, a, 10)
	}
	tw.line = append(tw.line, '\n')
	tw.w.Write(tw.line)
}
