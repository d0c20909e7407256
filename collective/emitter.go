package collective

import (
	"fmt"

	"github.com/gopsim/gopsim/goal"
)

// emitter is what an algorithm writes through. Most algorithms are a
// sequence of rounds (a blocking MPI_Sendrecv, a step of a tree): every op
// of a round requires every op of the previous round, as in a blocking MPI
// implementation where a step starts when the previous one completed. The
// first round requires the ops the call was given to start after, and the
// last round is what the call ends with.
//
// Algorithms that are not rounds (pipelines that keep several segments in
// flight) use the raw* methods and requires, then name their last ops with
// end.
type emitter struct {
	b     *goal.Builder
	s     *Spec
	me, p int
	prev  []int32 // ops of the last completed round (at first: the start)
	cur   []int32 // ops of the round being built
	err   error   // the first reduction longer than a calc holds (Emit returns it)
	// maxOps is Spec.MaxOps, or math.MaxInt64 for no bound: every op is
	// added through room, which stops the algorithm when b holds maxOps.
	maxOps int64
}

// tooManyOps is the panic with which room stops an algorithm, wherever it
// is in its loops; Emit recovers it and returns ErrTooManyOps. The loops
// of the algorithms (over ranks, rounds and segments) need no checks of
// their own, as long as they add ops through the emitter's methods (send,
// recv, reduce, calc, raw*), never through e.b (TestEmitMaxOps).
type tooManyOps struct{}

// room is called before every op the emitter adds: it stops the algorithm
// when b already holds e.maxOps ops.
func (e *emitter) room() {
	if int64(e.b.NumOps()) >= e.maxOps {
		panic(tooManyOps{})
	}
}

// calc adds a calc of t ns, with no dependencies and outside any round.
func (e *emitter) calc(t uint64) int32 {
	e.room()
	return e.b.Calc(t, e.s.CPU)
}

// world is the world rank of comm rank i.
func (e *emitter) world(i int) int32 { return e.s.Comm.World(i) }

func (e *emitter) inRound(id int32) int32 {
	for _, p := range e.prev {
		e.b.Requires(id, p)
	}
	e.cur = append(e.cur, id)
	return id
}

// send adds to the current round a send of size bytes to comm rank peer.
func (e *emitter) send(peer int, size uint64) int32 { return e.inRound(e.rawSend(peer, size)) }

// recv adds to the current round a receive of size bytes from comm rank peer.
func (e *emitter) recv(peer int, size uint64) int32 { return e.inRound(e.rawRecv(peer, size)) }

// reduce charges the combination of size received bytes: with a positive
// Spec.ReduceNsPerByte it adds a calc op to the round that requires in and
// takes in's place among the round's ends; otherwise it adds nothing. It
// returns the op that has the combined data (the calc, or in).
func (e *emitter) reduce(size uint64, in int32) int32 {
	t := e.reduceTime(size)
	if t == 0 {
		return in
	}
	c := e.calc(t)
	e.b.Requires(c, in)
	for i, id := range e.cur {
		if id == in {
			e.cur[i] = c
			return c
		}
	}
	e.cur = append(e.cur, c)
	return c
}

// reduceTime is the compute time of combining size bytes, in ns. One
// longer than a calc holds (goal.CalcSize) is recorded in e.err, for Emit
// to return, and counts as 0.
func (e *emitter) reduceTime(size uint64) uint64 {
	if e.s.ReduceNsPerByte <= 0 || size == 0 {
		return 0
	}
	t, err := goal.CalcSize(float64(size) * e.s.ReduceNsPerByte)
	if err != nil && e.err == nil {
		e.err = fmt.Errorf("combining %d bytes at the reduction cost %g ns/byte is %w", size, e.s.ReduceNsPerByte, err)
	}
	return t
}

// atRoot0 runs steps with e's spec rooted at rank 0, as an allreduce made
// of a reduce and a broadcast runs them, then restores the spec.
func (e *emitter) atRoot0(steps ...func(*emitter)) {
	s := *e.s
	s.Root = 0
	orig := e.s
	e.s = &s
	for _, step := range steps {
		step(e)
	}
	e.s = orig
}

// next closes the current round; an empty round changes nothing.
func (e *emitter) next() {
	if len(e.cur) == 0 {
		return
	}
	e.prev, e.cur = append(e.prev[:0], e.cur...), e.cur[:0]
}

// rawSend appends a send with no dependencies and outside any round.
func (e *emitter) rawSend(peer int, size uint64) int32 {
	e.room()
	return e.b.Send(size, e.world(peer), e.s.Tag, e.s.CPU, e.s.NIC)
}

// rawRecv appends a receive with no dependencies and outside any round.
func (e *emitter) rawRecv(peer int, size uint64) int32 {
	e.room()
	return e.b.Recv(size, e.world(peer), e.s.Tag, e.s.CPU, e.s.NIC)
}

// rawReduce appends the calc of combining size bytes after in, outside any
// round; it returns in when there is no reduction cost.
func (e *emitter) rawReduce(size uint64, in int32) int32 {
	t := e.reduceTime(size)
	if t == 0 {
		return in
	}
	c := e.calc(t)
	e.b.Requires(c, in)
	return c
}

// requires records succ requires pred; a negative pred is ignored.
func (e *emitter) requires(succ, pred int32) {
	if pred >= 0 {
		e.b.Requires(succ, pred)
	}
}

// requiresStart makes succ require the ops the call starts after (or the
// last completed round).
func (e *emitter) requiresStart(succ int32) {
	for _, p := range e.prev {
		e.b.Requires(succ, p)
	}
}

// end adds ops to the current round without dependencies, so that they are
// among the call's ends (or the next round's predecessors).
func (e *emitter) end(ids ...int32) {
	for _, id := range ids {
		if id >= 0 {
			e.cur = append(e.cur, id)
		}
	}
}
