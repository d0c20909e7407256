package sim

import (
	"fmt"
	"math"
)

// Time unit (docs/model.md). Every parameter is rounded once to a whole
// picosecond (ps per byte for G and O). When all the parameters a run uses
// are whole ns, the engine counts time in ns, as LogGOPSim does; otherwise
// in ps. Either way its arithmetic is exact integer arithmetic, and the
// times a Result gives are rounded once, on output, to the nearest ns
// (halves up). The engine's time unit is a tick: scale ticks per ns.

// MaxTime bounds every time the engine computes, in ticks: 2^60 ns
// (36.5 years) when it counts ns, 2^60 ps (13.3 days) when it counts ps.
// Each cost is bounded by it too (a larger one saturates at MaxTime+1), so
// that no sum of a time and a few costs can wrap before it is checked.
const MaxTime = 1 << 60

// tooLong is what a cost beyond MaxTime saturates at.
const tooLong = MaxTime + 1

// psOf rounds v (ns, or ns per byte) to whole picoseconds.
func psOf(v float64) int64 { return int64(math.Round(v * 1000)) }

// wholeNs reports whether v is a whole number of ns once rounded to ps.
func wholeNs(v float64) bool { return psOf(v)%1000 == 0 }

// ticksOf rounds v (ns, or ns per byte) to whole ps and returns it in
// ticks of 1/scale ns; with scale 1, v must be whole ns (wholeNs).
func ticksOf(v float64, scale int64) int64 {
	if scale == 1 {
		return psOf(v) / 1000
	}
	return psOf(v)
}

// toNs returns ticks t (t >= 0) in ns, rounded to the nearest, halves up;
// a negative t (a record's "never") is kept.
func toNs(t, scale int64) int64 {
	if scale == 1 || t < 0 {
		return t
	}
	return (t + scale/2) / scale
}

// scaleOf is the tick of a run with parameters p (its model's, ranges
// included): 1 (ns) when every time in them is whole ns, else 1000 (ps).
func scaleOf(p *Params) int64 {
	for _, v := range p.times() {
		if !wholeNs(v) {
			return 1000
		}
	}
	return 1
}

// times lists every time and per-byte cost in p: base, ranges and model
// sections.
func (p *Params) times() []float64 {
	t := []float64{p.L, p.Overhead, p.Gap, p.GapPerByte, p.OverheadPerByte}
	for _, r := range p.Ranges {
		t = append(t, r.L, r.Overhead, r.Gap, r.GapPerByte, r.OverheadPerByte)
	}
	if ab := p.AlphaBeta; ab != nil {
		t = append(t, ab.Alpha, ab.Beta)
	}
	if f := p.LogfP; f != nil {
		t = append(t, f.OBurst)
		if f.ORecv != nil {
			t = append(t, *f.ORecv)
		}
	}
	if pl := p.PLogP; pl != nil {
		t = append(t, pl.L)
		for _, pt := range pl.Points {
			t = append(t, pt.Os, pt.Or, pt.Gap)
		}
	}
	if l3 := p.Log3P; l3 != nil {
		for _, pt := range l3.Points {
			t = append(t, pt.Pack, pt.Unpack)
		}
	}
	return t
}

// perByte is a per-byte cost: ticks per byte, and the most bytes whose
// product stays within MaxTime.
type perByte struct {
	t, max int64
}

func newPerByte(t int64) perByte {
	if t <= 0 {
		return perByte{0, math.MaxInt64}
	}
	return perByte{t, MaxTime / t}
}

// of is b bytes' cost in ticks, tooLong when beyond MaxTime.
func (c perByte) of(b int64) int64 {
	if b > c.max {
		return tooLong
	}
	return b * c.t
}

// cost is the parameter set a message pays, in ticks: L, o and g, and G
// and O per byte.
type cost struct {
	L, o, g int64
	Gb, Ob  perByte
}

// G is the NIC time of b bytes beyond the first.
func (c *cost) G(b int64) int64 { return c.Gb.of(b) }

// O is the CPU time of b bytes beyond the first.
func (c *cost) O(b int64) int64 { return c.Ob.of(b) }

func newCost(l, o, g, G, O float64, scale int64) cost {
	return cost{L: ticksOf(l, scale), o: ticksOf(o, scale), g: ticksOf(g, scale),
		Gb: newPerByte(ticksOf(G, scale)), Ob: newPerByte(ticksOf(O, scale))}
}

// costTable resolves a message size to its cost: costs[0] is the base set,
// costs[i+1] is Ranges[i].
type costTable struct {
	costs []cost
	min   []uint64
	max   []uint64
}

func newCostTable(p *Params, scale int64) costTable {
	t := costTable{costs: []cost{newCost(p.L, p.Overhead, p.Gap, p.GapPerByte, p.OverheadPerByte, scale)}}
	for _, r := range p.Ranges {
		t.costs = append(t.costs, newCost(r.L, r.Overhead, r.Gap, r.GapPerByte, r.OverheadPerByte, scale))
		t.min = append(t.min, r.MinBytes)
		t.max = append(t.max, r.MaxBytes)
	}
	return t
}

// of returns the cost of a message of size bytes.
func (t *costTable) of(size uint64) *cost {
	if len(t.min) == 0 {
		return &t.costs[0]
	}
	lo, hi := 0, len(t.min) // first range with max >= size
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.max[m] < size {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.min) && t.min[lo] <= size {
		return &t.costs[lo+1]
	}
	return &t.costs[0]
}

// TimeError reports a time the engine cannot represent: a cost or a
// finishing time beyond MaxTime ticks. It names the op whose cost or end
// went beyond.
type TimeError struct {
	Rank  int
	Op    int // index within the rank
	Label string
	What  string // what went beyond, with the values involved
	Ps    bool   // the run counted ps (fractional parameters)
}

func (e *TimeError) Error() string {
	lim := fmt.Sprintf("%d ns (36.5 years)", int64(MaxTime))
	if e.Ps {
		lim = fmt.Sprintf("%d ns (13.3 days; the engine counts ps because a parameter has a fraction of a ns)", int64(MaxTime/1000))
	}
	return fmt.Sprintf("sim: rank %d op %d (%s): %s: beyond the largest time the engine represents, %s", e.Rank, e.Op, e.Label, e.What, lim)
}

// timePanic carries a *TimeError out of the event loop to engine.start.
type timePanic struct{ err *TimeError }

// tooLate stops the run: op g of rank r would end beyond MaxTime.
func (e *engine) tooLate(r, g int32, what string) {
	p := e.p
	panic(timePanic{&TimeError{Rank: int(r), Op: int(g - p.rankStart[r]), Label: p.label(int(r), g), What: what, Ps: e.scale != 1}})
}

// msgTooLate stops the run: the message of send g of rank r, handled at
// t (its start, or its arrival at the receiver) with cost co, would make
// a time beyond MaxTime. It names the per-byte cost that is too large, if
// one is.
func (e *engine) msgTooLate(r, g int32, t int64, co *cost, side string) {
	size := e.op(g).bytes()
	b := bytesBeyondFirst(size)
	what := fmt.Sprintf("%s %d bytes at %d ns", side, size, toNs(t, e.scale))
	for _, x := range []struct {
		name string
		c    perByte
	}{{"G", co.Gb}, {"O", co.Ob}} {
		if x.c.of(b) > MaxTime {
			what = fmt.Sprintf("%s %d bytes: (s-1)·%s = %d bytes × %g ns/byte", side, size, x.name, b, float64(x.c.t)/float64(e.scale))
		}
	}
	e.tooLate(r, g, what)
}

// recordNs returns the record rec, in ticks of 1/scale ns, in ns.
func recordNs(rec []OpRecord, scale int64) []OpRecord {
	out := make([]OpRecord, len(rec))
	for i := range rec {
		out[i] = opRecordNs(&rec[i], scale)
	}
	return out
}

// opRecordNs returns one op's record r, in ticks of 1/scale ns, in ns.
func opRecordNs(r *OpRecord, scale int64) OpRecord {
	out := OpRecord{Ready: toNs(r.Ready, scale), Start: toNs(r.Start, scale), CPUEnd: toNs(r.CPUEnd, scale),
		End: toNs(r.End, scale), Delivered: toNs(r.Delivered, scale), Arrive: toNs(r.Arrive, scale),
		RecvCPUEnd: toNs(r.RecvCPUEnd, scale), NICEnd: toNs(r.NICEnd, scale), RecvNICEnd: toNs(r.RecvNICEnd, scale),
		Match: r.Match}
	// Noise is the part of the CPU work beyond its length: rounded so
	// that CPUEnd - Noise is the work's rounded end.
	out.Noise = out.CPUEnd - toNs(r.CPUEnd-r.Noise, scale)
	out.RecvNoise = out.RecvCPUEnd - toNs(r.RecvCPUEnd-r.RecvNoise, scale)
	if r.RecvCPUEnd < 0 {
		out.RecvNoise = r.RecvNoise
	}
	if r.CPUEnd < 0 {
		out.Noise = r.Noise
	}
	return out
}

// splitNs rounds the parts of an interval that starts at t0 (ticks), in
// order, to ns so that they add up to the interval's rounded length:
// each part is the difference of its rounded end and start.
func splitNs(t0, scale int64, parts ...*int64) {
	round := func(t int64) int64 { // toNs, for any sign
		q := (t + scale/2) / scale
		if (t+scale/2)%scale < 0 {
			q--
		}
		return q
	}
	at := t0
	for _, p := range parts {
		next := at + *p
		*p = round(next) - round(at)
		at = next
	}
}
