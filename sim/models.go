package sim

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/topology"
)

// Model selects the member of the LogP family that the engine simulates
// (docs/models.md). The zero value is LogGOPS, LogGOPSim's model.
type Model uint8

const (
	// LogGOPS is LogGOPSim's model: L, o, g, G, O and the eager limit S
	// (docs/model.md). The default, LogGOPSim-exact.
	LogGOPS Model = iota
	// LogGP drops O and the rendezvous switch: every message is eager
	// and the CPU pays o per message, whatever its size.
	LogGP
	// LogP ignores message size: a message costs o at both ends, g on
	// both NICs and L on the wire. Size ranges and S are ignored.
	LogP
	// AlphaBeta is Hockney's model: a message of s bytes takes α + s·β,
	// and the sender's CPU does nothing else meanwhile; receiving is
	// free. Parameters: Params.AlphaBeta.
	AlphaBeta
	// LogGPS adds a request-to-send / clear-to-send handshake to messages
	// above S: the data leaves only once the receive is posted, and a
	// message costs 2L + 4o more than an eager one.
	LogGPS
	// LogfP is LogGOPS where the first f messages of a burst pay no g
	// on a NIC (Params.LogfP).
	LogfP
	// PLogP has size-dependent send and receive overheads and gaps,
	// o_s(s), o_r(s) and g(s), interpolated from a table (Params.PLogP).
	PLogP
	// Log3P is LogGOPS plus the middleware cost of packing and unpacking
	// non-contiguous messages, l_mw(s, d) by size and stride
	// (Params.Log3P); a send is non-contiguous when its GOAL label is
	// "stride" followed by the stride in bytes (StrideOf).
	Log3P
	numModels
)

var modelNames = [numModels]string{"loggops", "loggp", "logp", "alphabeta", "loggps", "logfp", "plogp", "log3p"}

// ErrModel is wrapped by errors about an unknown model name.
var ErrModel = errors.New("sim: unknown model")

// Models returns every model, LogGOPS first.
func Models() []Model {
	m := make([]Model, numModels)
	for i := range m {
		m[i] = Model(i)
	}
	return m
}

// String returns the model's name as ParseModel reads it ("loggops", ...).
func (m Model) String() string {
	if m < numModels {
		return modelNames[m]
	}
	return "model(" + strconv.Itoa(int(m)) + ")"
}

// Title returns the model's name as the literature writes it.
func (m Model) Title() string {
	switch m {
	case LogGOPS:
		return "LogGOPS"
	case LogGP:
		return "LogGP"
	case LogP:
		return "LogP"
	case AlphaBeta:
		return "alpha-beta (Hockney)"
	case LogGPS:
		return "LogGPS"
	case LogfP:
		return "LogfP"
	case PLogP:
		return "PLogP"
	case Log3P:
		return "log3P"
	}
	return m.String()
}

// ParseModel returns the model named name (case-insensitive).
func ParseModel(name string) (Model, error) {
	for i, n := range modelNames {
		if strings.EqualFold(name, n) {
			return Model(i), nil
		}
	}
	return 0, fmt.Errorf("%w %q: want one of %s", ErrModel, name, strings.Join(modelNames[:], ", "))
}

// AlphaBetaParams are Hockney's parameters: a message of s bytes takes
// Alpha + s·Beta ns.
type AlphaBetaParams struct {
	Alpha float64 `json:"alpha_ns"`
	Beta  float64 `json:"beta_ns_per_byte"`
}

// LogfPParams are LogfP's parameters beyond LogGOPS's.
type LogfPParams struct {
	// F is f: a NIC takes up to f small messages (at most SmallBytes)
	// at once; the (f+1)-th waits until the first has passed its gap
	// g + (s-1)G. 1 is LogGOPS. Larger messages occupy the NIC alone, as
	// in LogGOPS.
	F int64 `json:"f"`
	// OBurst is the extra CPU overhead of the first message of a burst
	// (the paper's o(P) = o_min + o_max/P, with o the o_min and OBurst the
	// o_max: P messages cost P·o + OBurst).
	OBurst float64 `json:"o_burst_ns"`
	// ORecv, when not nil, replaces o at the receiver (the paper's round
	// trips charge no receive overhead on InfiniBand: 0).
	ORecv *float64 `json:"o_recv_ns,omitempty"`
	// SmallBytes, when not nil, is the largest message that counts as
	// small (the f messages at once); nil means S.
	SmallBytes *uint64 `json:"small_bytes,omitempty"`
}

// PLogPParams are PLogP's parameters: the wire latency L and a table of
// the send overhead o_s, the receive overhead o_r and the gap g by message
// size, linearly interpolated between the sizes given and extrapolated
// beyond the last two (constant below the first, and for one point).
type PLogPParams struct {
	L      float64      `json:"L_ns"`
	Points []PLogPPoint `json:"points"`
}

// PLogPPoint is one size of a PLogP table.
type PLogPPoint struct {
	Size uint64  `json:"s_bytes"`
	Os   float64 `json:"os_ns"`
	Or   float64 `json:"or_ns"`
	Gap  float64 `json:"g_ns"`
}

// Log3PParams are log3P's middleware costs: the time to pack a
// non-contiguous message at the sender and to unpack it at the receiver,
// by size and stride. Per stride, the costs are linearly interpolated in
// the size as PLogP's are; between two strides of the table, linearly in
// the stride; outside them, the nearest stride's.
type Log3PParams struct {
	Points []Log3PPoint `json:"points"`
}

// Log3PPoint is one (size, stride) of a log3P table.
type Log3PPoint struct {
	Size   uint64  `json:"s_bytes"`
	Stride uint64  `json:"stride_bytes"`
	Pack   float64 `json:"pack_ns"`
	Unpack float64 `json:"unpack_ns"`
}

// ModelParams returns p with the parameters of model m filled in where p
// has none: the defaults that docs/models.md derives from the LogGOPS
// parameters (alpha = L + 2o and beta = G of 1-byte messages; f = 1; a
// PLogP table of LogGP's costs; an empty log3P table). Sections of other models are dropped, so that a result
// echoes what its model used.
func (p Params) ModelParams(m Model) Params {
	q := p
	q.AlphaBeta, q.LogfP, q.PLogP, q.Log3P = nil, nil, nil, nil
	switch m {
	case AlphaBeta:
		ab := AlphaBetaParams{Alpha: p.L + 2*p.Overhead, Beta: p.GapPerByte}
		for _, r := range p.Ranges {
			if r.MinBytes <= 1 && 1 <= r.MaxBytes {
				ab = AlphaBetaParams{Alpha: r.L + 2*r.Overhead, Beta: r.GapPerByte}
			}
		}
		if p.AlphaBeta != nil {
			ab = *p.AlphaBeta
		}
		q.AlphaBeta = &ab
	case LogfP:
		f := LogfPParams{F: 1}
		if p.LogfP != nil {
			f = *p.LogfP
		}
		q.LogfP = &f
	case PLogP:
		if p.PLogP != nil {
			pl := *p.PLogP
			q.PLogP = &pl
		} else {
			q.PLogP = defaultPLogP(&p)
		}
	case Log3P:
		l3 := Log3PParams{Points: []Log3PPoint{}}
		if p.Log3P != nil {
			l3 = *p.Log3P
		}
		q.Log3P = &l3
	}
	return q
}

// defaultPLogP is the PLogP table that gives LogGP's costs (without the
// rendezvous switch): o_s = o + (s-1)O, o_r = o + (s-1)max(O, G) and
// g = g + (s-1)G, with a step at each size range's ends.
func defaultPLogP(p *Params) *PLogPParams {
	t := &PLogPParams{L: p.L}
	point := func(s uint64, o, O, g, G float64) PLogPPoint {
		b := float64(max(s, 1) - 1)
		return PLogPPoint{Size: s, Os: o + b*O, Or: o + b*max(O, G), Gap: g + b*G}
	}
	base := func(s uint64) PLogPPoint {
		return point(s, p.Overhead, p.OverheadPerByte, p.Gap, p.GapPerByte)
	}
	add := func(pt PLogPPoint) {
		if n := len(t.Points); n == 0 || t.Points[n-1].Size < pt.Size {
			t.Points = append(t.Points, pt)
		}
	}
	next := uint64(1) // smallest size not yet covered
	for _, r := range p.Ranges {
		if r.MinBytes > next {
			add(base(next))
			add(base(r.MinBytes - 1))
		}
		rp := func(s uint64) PLogPPoint { return point(s, r.Overhead, r.OverheadPerByte, r.Gap, r.GapPerByte) }
		add(rp(max(r.MinBytes, 1)))
		if r.MaxBytes > max(r.MinBytes, 1) {
			add(rp(min(r.MaxBytes, MaxMessage)))
		}
		next = r.MaxBytes + 1
		if r.L != p.L {
			// PLogP has one L: fold a range's extra latency into o_s.
			d := r.L - p.L
			for i := range t.Points {
				if s := t.Points[i].Size; s >= r.MinBytes && s <= r.MaxBytes {
					t.Points[i].Os += d
				}
			}
		}
		if next > MaxMessage {
			return t
		}
	}
	add(base(next))
	add(base(next + 65536)) // the slope, extrapolated
	return t
}

// validateModels checks the model sections of p.
func (p *Params) validateModels() error {
	bad := func(v float64) bool { return !(v >= 0 && v <= MaxParam) }
	if ab := p.AlphaBeta; ab != nil {
		if bad(ab.Alpha) || bad(ab.Beta) {
			return fmt.Errorf("sim: alphabeta: alpha_ns=%g, beta_ns_per_byte=%g: want 0..%d", ab.Alpha, ab.Beta, int64(MaxParam))
		}
	}
	if f := p.LogfP; f != nil {
		if f.F < 1 || f.F > maxLogfPF {
			return fmt.Errorf("sim: logfp: f=%d outside 1..%d", f.F, maxLogfPF)
		}
		if bad(f.OBurst) || f.ORecv != nil && bad(*f.ORecv) {
			return fmt.Errorf("sim: logfp: o_burst_ns and o_recv_ns must be in 0..%d", int64(MaxParam))
		}
	}
	if pl := p.PLogP; pl != nil {
		if bad(pl.L) {
			return fmt.Errorf("sim: plogp: L_ns=%g outside 0..%d", pl.L, int64(MaxParam))
		}
		if len(pl.Points) == 0 {
			return fmt.Errorf("sim: plogp: no points (want [{\"s_bytes\", \"os_ns\", \"or_ns\", \"g_ns\"}, ...])")
		}
		for i, pt := range pl.Points {
			if i > 0 && pt.Size <= pl.Points[i-1].Size {
				return fmt.Errorf("sim: plogp: point %d (%d bytes) not above point %d (%d bytes); sizes must ascend", i, pt.Size, i-1, pl.Points[i-1].Size)
			}
			if pt.Size > MaxMessage || bad(pt.Os) || bad(pt.Or) || bad(pt.Gap) {
				return fmt.Errorf("sim: plogp: point %d (%d bytes): size above %d or a value outside 0..%d ns", i, pt.Size, int64(MaxMessage), int64(MaxParam))
			}
		}
	}
	if l3 := p.Log3P; l3 != nil {
		for i, pt := range l3.Points {
			if pt.Size > MaxMessage || pt.Stride > MaxMessage || bad(pt.Pack) || bad(pt.Unpack) {
				return fmt.Errorf("sim: log3p: point %d (%d bytes, stride %d bytes): size or stride above %d or a cost outside 0..%d ns",
					i, pt.Size, pt.Stride, int64(MaxMessage), int64(MaxParam))
			}
			for _, q := range l3.Points[:i] {
				if q.Size == pt.Size && q.Stride == pt.Stride {
					return fmt.Errorf("sim: log3p: point %d repeats %d bytes at stride %d bytes", i, pt.Size, pt.Stride)
				}
			}
		}
	}
	return nil
}

// maxLogfPF bounds f (the engine keeps f clocks per NIC).
const maxLogfPF = 1 << 12

// modelsString formats the model sections of p, "" if none.
func (p Params) modelsString() string {
	var s []string
	if ab := p.AlphaBeta; ab != nil {
		s = append(s, fmt.Sprintf("alpha=%g ns, beta=%g ns/byte", ab.Alpha, ab.Beta))
	}
	if f := p.LogfP; f != nil {
		x := fmt.Sprintf("f=%d, o_burst=%g ns", f.F, f.OBurst)
		if f.ORecv != nil {
			x += fmt.Sprintf(", o_recv=%g ns", *f.ORecv)
		}
		if f.SmallBytes != nil {
			x += fmt.Sprintf(", small=%d bytes", *f.SmallBytes)
		}
		s = append(s, x)
	}
	if pl := p.PLogP; pl != nil {
		x := fmt.Sprintf("PLogP L=%g ns", pl.L)
		for _, pt := range pl.Points {
			x += fmt.Sprintf("; %d bytes: os=%g ns, or=%g ns, g=%g ns", pt.Size, pt.Os, pt.Or, pt.Gap)
		}
		s = append(s, x)
	}
	if l3 := p.Log3P; l3 != nil {
		x := fmt.Sprintf("log3P %d points", len(l3.Points))
		for _, pt := range l3.Points {
			x += fmt.Sprintf("; %d bytes stride %d: pack=%g ns, unpack=%g ns", pt.Size, pt.Stride, pt.Pack, pt.Unpack)
		}
		s = append(s, x)
	}
	return strings.Join(s, "; ")
}

// StrideOf reports whether an op label marks a non-contiguous message for
// log3P, and its stride in bytes: "stride" followed by decimal digits,
// alone or before an underscore and anything ("stride1024",
// "stride1024_halo_x"). Schedgen and gopsim's generators never write such
// labels, so they stay contiguous.
func StrideOf(label string) (uint64, bool) {
	rest, ok := strings.CutPrefix(label, "stride")
	if !ok {
		return 0, false
	}
	digits, _, _ := strings.Cut(rest, "_")
	if digits == "" {
		return 0, false
	}
	d, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || d > MaxMessage {
		return 0, false
	}
	return d, true
}

// interp is a piecewise-linear function of the size, in whole ticks.
type interp struct {
	x []uint64
	y []int64
}

func newInterp(x []uint64, y []float64, scale int64) interp {
	f := interp{x: x, y: make([]int64, len(y))}
	for i, v := range y {
		f.y[i] = ticksOf(v, scale)
	}
	return f
}

// at returns f(s): linear between the points, constant below the first,
// extrapolated along the last segment above the last (never below 0),
// rounded to the nearest tick; tooLong beyond MaxTime.
func (f *interp) at(s uint64) int64 {
	n := len(f.x)
	if n == 1 || s <= f.x[0] {
		return f.y[0]
	}
	i, _ := slices.BinarySearch(f.x, s) // f.x[i-1] < s <= f.x[i]
	if i == n {
		i = n - 1
	}
	x0, x1, y0, y1 := f.x[i-1], f.x[i], f.y[i-1], f.y[i]
	dy := y1 - y0
	neg := dy < 0
	if neg {
		dy = -dy
	}
	// y0 + dy·(s-x0)/(x1-x0), rounded, in 128 bits.
	hi, lo := bits.Mul64(uint64(dy), s-x0)
	den := x1 - x0
	lo, c := bits.Add64(lo, den/2, 0)
	hi += c
	if hi >= den {
		if neg {
			return 0
		}
		return tooLong
	}
	q, _ := bits.Div64(hi, lo, den)
	if q > MaxTime {
		q = tooLong
	}
	if neg {
		return max(y0-int64(q), 0)
	}
	return min(y0+int64(q), tooLong)
}

// mwTable is log3P's l_mw(s, d): per distinct stride, pack and unpack
// interpolants over the size.
type mwTable struct {
	strides      []uint64
	pack, unpack []interp
}

func newMWTable(l3 *Log3PParams, scale int64) mwTable {
	pts := slices.Clone(l3.Points)
	slices.SortFunc(pts, func(a, b Log3PPoint) int {
		if a.Stride != b.Stride {
			if a.Stride < b.Stride {
				return -1
			}
			return 1
		}
		if a.Size < b.Size {
			return -1
		}
		if a.Size > b.Size {
			return 1
		}
		return 0
	})
	var t mwTable
	for i := 0; i < len(pts); {
		j := i
		var x []uint64
		var p, u []float64
		for ; j < len(pts) && pts[j].Stride == pts[i].Stride; j++ {
			x, p, u = append(x, pts[j].Size), append(p, pts[j].Pack), append(u, pts[j].Unpack)
		}
		t.strides = append(t.strides, pts[i].Stride)
		t.pack = append(t.pack, newInterp(x, p, scale))
		t.unpack = append(t.unpack, newInterp(x, u, scale))
		i = j
	}
	return t
}

// at returns the pack and unpack times of s bytes at stride d.
func (t *mwTable) at(s, d uint64) (pack, unpack int64) {
	n := len(t.strides)
	if n == 0 {
		return 0, 0
	}
	i, _ := slices.BinarySearch(t.strides, d)
	switch {
	case i < n && t.strides[i] == d, i == 0:
		i = min(i, n-1)
		return t.pack[i].at(s), t.unpack[i].at(s)
	case i == n:
		return t.pack[n-1].at(s), t.unpack[n-1].at(s)
	}
	d0, d1 := t.strides[i-1], t.strides[i]
	w := float64(d-d0) / float64(d1-d0)
	lerp := func(a, b int64) int64 { return int64(math.Round(float64(a) + w*float64(b-a))) }
	return lerp(t.pack[i-1].at(s), t.pack[i].at(s)), lerp(t.unpack[i-1].at(s), t.unpack[i].at(s))
}

// msgCost is what one message costs under a model, in ticks: the sender's
// CPU and NIC occupation, the time from the send's start to the arrival
// at the receiver, and the receiver's CPU and NIC occupation.
type msgCost struct {
	sendCPU, sendNIC, flight, recvCPU, recvNIC int64
}

// Phases of a message under LogGPS (gpsPhase), by send op.
const (
	phData uint8 = iota // an eager message, or the data of a rendezvous
	phRTS               // request to send, travelling to the receiver or waiting there
	phCTS               // clear to send, travelling back to the sender
	phRdv               // rendezvous data, its receive matched at the RTS
)

// modelState is what a run of a model other than LogGOPS (and LogGP and
// LogP, which are LogGOPS with other costs) keeps. The engine runs
// loopModels instead of loop when engine.m is not nil, a choice made once
// per run, so that LogGOPS's event loop has no model checks.
type modelState struct {
	kind Model

	alpha int64   // AlphaBeta: ticks
	beta  perByte // AlphaBeta

	plL            int64 // PLogP
	plOs, plOr, pg interp

	// Log3P: the sends labelled with a stride, ascending, and their
	// pack and unpack costs (a table of the labelled ops, not one entry
	// per op, so that a streamed run keeps no state per op).
	strideOps []int32
	mwCost    [][2]int64

	// LogfP: per (rank, NIC) f drain times for sending and as many for
	// receiving (the oldest at head), the last drain time; per (rank,
	// CPU) the end of its last send overhead.
	f             int32
	oBurst, oRecv int64
	hasORecv      bool
	small         uint64 // largest small message
	ring          []int64
	head          []int32
	dlast         []int64
	lastSend      []int64

	// LogGPS: a started send keeps its phase and matched receive in
	// its record's tm (gpsState), not beside it.
	handshake bool
}

// Under LogGPS, a send that has started no longer needs its ready time:
// its record's tm holds match<<2 | phase, the receive matched at its
// request to send and the phase its message is in. A streamed run thus
// keeps this state only while the send's record is loaded.
func gpsPhase(o *opRec) uint8            { return uint8(o.tm & 3) }
func gpsMatch(o *opRec) int32            { return int32(o.tm >> 2) }
func setGPS(o *opRec, ph uint8, r int32) { o.tm = int64(r)<<2 | int64(ph) }

// loopModels is engine.loop for the models with their own engine path
// (engine.m not nil): the same loop, with the models' send, receive and
// arrival.
func (e *engine) loopModels() {
	for {
		if e.hook {
			e.hooks()
		}
		var ev event
		if e.useHeap {
			if e.heap.len() == 0 {
				return
			}
			ev = e.heap.pop()
		} else {
			if e.radix.len() == 0 {
				return
			}
			ev = e.radix.pop()
			e.prefetchNext()
		}
		e.events++
		if invariants && ev.time < e.now {
			panic(fmt.Sprintf("sim: clock went back from %d ns to %d ns", e.now, ev.time))
		}
		e.now = ev.time
		w := e.waits
		if ev.key&keyArrival != 0 {
			e.arrivalModel(ev)
		} else {
			switch e.op(ev.op).kind() {
			case goal.Calc:
				e.calc(ev)
			case goal.Send:
				e.sendModel(ev)
			case goal.Recv:
				if e.m.handshake { // LogGPS
					e.recvModel(ev)
				} else {
					e.recv(ev)
				}
			}
		}
		if ev.key&keyWaited != 0 && e.waits == w {
			e.unguard(ev)
		}
		e.flush()
	}
}

// setModel prepares the engine for opt.Model. LogGP and LogP change the
// cost table only and run on the LogGOPS path.
func (e *engine) setModel(opt *Options) error {
	p := &opt.Params
	switch opt.Model {
	case LogGOPS:
		return nil
	case LogGP:
		for i := range e.costs.costs {
			e.costs.costs[i].Ob = newPerByte(0)
		}
		e.eager = math.MaxInt64
		return nil
	case LogP:
		e.costs = costTable{costs: []cost{newCost(p.L, p.Overhead, p.Gap, 0, 0, e.scale)}}
		e.eager = math.MaxInt64
		return nil
	}
	if opt.Model >= numModels {
		return fmt.Errorf("sim: model %d unknown", opt.Model)
	}
	mp := p.ModelParams(opt.Model)
	m := &modelState{kind: opt.Model}
	e.m = m
	nops := int(e.nops)
	switch opt.Model {
	case AlphaBeta:
		m.alpha, m.beta = ticksOf(mp.AlphaBeta.Alpha, e.scale), newPerByte(ticksOf(mp.AlphaBeta.Beta, e.scale))
		e.eager = math.MaxInt64
	case PLogP:
		pl := mp.PLogP
		x := make([]uint64, len(pl.Points))
		var os, or, g []float64
		for i, pt := range pl.Points {
			x[i] = pt.Size
			os, or, g = append(os, pt.Os), append(or, pt.Or), append(g, pt.Gap)
		}
		m.plL = ticksOf(pl.L, e.scale)
		m.plOs, m.plOr, m.pg = newInterp(x, os, e.scale), newInterp(x, or, e.scale), newInterp(x, g, e.scale)
		e.eager = math.MaxInt64
	case Log3P:
		if err := e.strideTable(m, newMWTable(mp.Log3P, e.scale)); err != nil {
			return err
		}
	case LogfP:
		f := mp.LogfP
		m.f = int32(f.F)
		m.oBurst = ticksOf(f.OBurst, e.scale)
		if f.ORecv != nil {
			m.oRecv, m.hasORecv = ticksOf(*f.ORecv, e.scale), true
		}
		m.small = uint64(p.EagerLimit)
		if f.SmallBytes != nil {
			m.small = *f.SmallBytes
		}
		nics := int64(e.p.NumRanks) * int64(e.nn) * 2 // send and receive
		if nics*int64(m.f) > MaxResourceSlots {
			return fmt.Errorf("sim: logfp: f=%d needs %d NIC clocks for %d ranks; the limit is %d", m.f, nics*int64(m.f), e.p.NumRanks, int64(MaxResourceSlots))
		}
		m.ring = make([]int64, nics*int64(m.f))
		m.head = make([]int32, nics)
		m.dlast = make([]int64, nics)
		m.lastSend = make([]int64, int64(e.p.NumRanks)*int64(e.nc))
		for i := range m.lastSend {
			m.lastSend[i] = -1
		}
	case LogGPS:
		// Sequence numbers: a start per op, and up to three arrivals
		// (RTS, CTS, data) per send, below 2^32.
		if 4*int64(nops) >= 1<<32 {
			return fmt.Errorf("sim: loggps: %d ops; the handshake takes at most %d", nops, (1<<32)/4-1)
		}
		m.handshake = true
	}
	return nil
}

// strideTable fills m's table of the sends labelled with a stride and
// their pack and unpack costs under t. A streamed program reads the
// labelled ops' sizes from its spill file.
func (e *engine) strideTable(m *modelState, t mwTable) error {
	for g, name := range e.p.labels {
		if _, ok := StrideOf(name); ok {
			m.strideOps = append(m.strideOps, g)
		}
	}
	slices.Sort(m.strideOps)
	ops := m.strideOps[:0]
	for _, g := range m.strideOps {
		in, err := e.p.opInfo(g)
		if err != nil {
			return err
		}
		if in.Kind != goal.Send {
			continue
		}
		d, _ := StrideOf(e.p.labels[g])
		pk, up := t.at(in.Size, d)
		ops = append(ops, g)
		m.mwCost = append(m.mwCost, [2]int64{pk, up})
	}
	m.strideOps = ops
	return nil
}

// cost returns what message g of size bytes costs under the model.
func (e *engine) cost(g int32, size uint64) msgCost {
	m := e.m
	switch m.kind {
	case AlphaBeta:
		x := m.alpha + m.beta.of(int64(size))
		return msgCost{sendCPU: x, sendNIC: x, flight: x}
	case PLogP:
		os, gap := m.plOs.at(size), m.pg.at(size)
		return msgCost{sendCPU: os, sendNIC: gap, flight: os + m.plL, recvCPU: m.plOr.at(size), recvNIC: gap}
	}
	b := bytesBeyondFirst(size)
	co := e.costs.of(size)
	c := msgCost{sendCPU: co.o + co.O(b), sendNIC: co.g + co.G(b), flight: co.o + co.L,
		recvCPU: co.o + max(co.O(b), co.G(b)), recvNIC: co.g + co.G(b)}
	switch m.kind {
	case Log3P:
		if len(m.strideOps) > 0 {
			if i, ok := slices.BinarySearch(m.strideOps, g); ok {
				mw := m.mwCost[i]
				c.sendCPU += mw[0]
				c.flight += mw[0]
				c.recvCPU += mw[1]
			}
		}
	case LogfP:
		if m.hasORecv {
			c.recvCPU += m.oRecv - co.o
		}
	}
	return c
}

// nicSlot returns the index of (rank r, NIC n, direction) in the LogfP
// arrays: dir 0 sends, 1 receives.
func (e *engine) nicSlot(r, n int32, dir int32) int64 {
	return (int64(r)*int64(e.nn)+int64(n))*2 + int64(dir)
}

// gapQueue charges a message that occupies NIC slot k for busy ns from
// t, under LogfP: the NIC drains its messages one after the other, each
// for busy, and takes a new one while fewer than f are waiting (all f
// slots when the message is not small: the NIC takes it alone). It
// returns the time the NIC may take the next message.
func (e *engine) gapQueue(k int64, t, busy int64, small bool) int64 {
	m := e.m
	f := int64(m.f)
	d := max(m.dlast[k], t) + busy
	m.dlast[k] = d
	ring := m.ring[k*f : (k+1)*f]
	if !small {
		for i := range ring {
			ring[i] = d
		}
		return d
	}
	h := m.head[k]
	ring[h] = d
	h++
	if h == int32(f) {
		h = 0
	}
	m.head[k] = h
	return ring[h] // the drain time f messages back
}

// ctlCPU charges CPU work of length ns on rank r from t (a control
// message's overhead) with noise and the breakdown; it returns its end.
func (e *engine) ctlCPU(r, t, length int64, send bool) int64 {
	x := e.x
	if x == nil {
		return t + length
	}
	n := x.charge(int32(r), t, length)
	if x.bd != nil {
		b := &x.bd[r]
		if send {
			b.SendOverhead += length
		} else {
			b.RecvOverhead += length
		}
		b.Noise += n
	}
	return t + length + n
}

// sendModel is engine.send under the models.
func (e *engine) sendModel(ev event) {
	o := e.op(ev.op)
	c, n := e.cpuNIC(ev.op)
	cpu, nic := e.clock(ev.rank, c), e.clock(ev.rank, e.nc+n)
	if free := max(*cpu, *nic); free > ev.time {
		e.wait(ev, free)
		return
	}
	t := ev.time
	size := o.bytes()
	o.pend = stStarted
	e.started(ev.rank, ev.op, t)
	m := e.m
	if m.kind == LogGPS && int64(size) > e.eager {
		// Request to send: a control message of the smallest size.
		co := e.costs.of(0)
		*cpu = e.ctlCPU(int64(ev.rank), t, co.o, true)
		*nic = t + co.g
		if max(*cpu, *nic, t+co.o+co.L) > MaxTime {
			e.tooLate(ev.rank, ev.op, fmt.Sprintf("request to send at %d ns", toNs(t, e.scale)))
		}
		if x := e.x; x != nil && x.recOn {
			x.record(ev.op).Start = t
		}
		setGPS(o, phRTS, 0)
		e.push(event{time: t + co.o + co.L, key: e.seq<<32 | keyArrival | uint64(uint32(o.peer)), op: ev.op, rank: ev.rank})
		e.seq++
		return // completes when its data has left (arrivalModel, phCTS)
	}
	mc := e.cost(ev.op, size)
	cpuEnd := t + mc.sendCPU
	if m.kind == LogfP {
		k := e.nicSlot(ev.rank, n, 0)
		ls := &m.lastSend[int64(ev.rank)*int64(e.nc)+int64(c)]
		if m.oBurst > 0 && t >= m.dlast[k] && t != *ls { // first of a burst
			cpuEnd += m.oBurst
			mc.flight += m.oBurst
		}
		if x := e.x; x != nil {
			cpuEnd = e.sendHooks(ev, t, size, cpuEnd, mc.sendNIC)
		}
		e.modelCheck(ev.rank, ev.op, t, "send", cpuEnd, t+mc.sendNIC, t+mc.flight)
		*ls = cpuEnd
		*cpu = cpuEnd
		*nic = e.gapQueue(k, t, mc.sendNIC, size <= m.small)
		e.modelCheck(ev.rank, ev.op, t, "send", m.dlast[k], *nic, 0)
	} else {
		if x := e.x; x != nil {
			cpuEnd = e.sendHooks(ev, t, size, cpuEnd, mc.sendNIC)
		}
		e.modelCheck(ev.rank, ev.op, t, "send", cpuEnd, t+mc.sendNIC, t+mc.flight)
		*cpu = cpuEnd
		*nic = t + mc.sendNIC
	}
	e.push(event{time: t + mc.flight, key: e.seq<<32 | keyArrival | uint64(uint32(o.peer)), op: ev.op, rank: ev.rank})
	e.seq++
	if int64(size) <= e.eager {
		if m.handshake {
			setGPS(o, phData, 0)
		}
		e.completed(ev.rank, ev.op, cpuEnd)
	} else {
		o.tm = cpuEnd
	}
}

// recvModel is engine.recv under LogGPS.
func (e *engine) recvModel(ev event) {
	o := e.op(ev.op)
	t := ev.time
	o.pend = stStarted
	e.started(ev.rank, ev.op, t)
	rk := &e.ranks[ev.rank]
	if e.x != nil && e.x.recOn {
		e.x.record(ev.op).Start = t
	}
	s, ok := e.unexpected.take(&rk.unexp, ev.rank, o.peer, o.tag)
	if !ok {
		e.posted.push(&rk.posted, ev.rank, o.peer, o.tag, ev.op)
		return
	}
	if e.x != nil && e.x.recOn {
		e.x.matched(s.op, ev.op)
	}
	if so := e.op(s.op); gpsPhase(so) == phRTS {
		// The request waited here: clear to send now, from this rank.
		setGPS(so, phRTS, ev.op)
		e.clearToSend(ev.rank, s.src, s.op, t)
		return
	}
	e.completed(ev.rank, ev.op, t)
	if e.win != nil {
		e.win.finish(e.p, s.op)
	}
}

// clearToSend sends the CTS of rendezvous send g of rank s from its
// receiver q, whose receive is posted and matched, from time t on.
func (e *engine) clearToSend(q, s, g int32, t int64) {
	c, n := e.cpuNIC(g)
	cpu, nic := e.clock(q, c), e.clock(q, e.nc+n)
	co := e.costs.of(0)
	tc := max(t, *cpu, *nic)
	*cpu = e.ctlCPU(int64(q), tc, co.o, true)
	*nic = tc + co.g
	e.modelCheck(s, g, tc, "clear to send for", *cpu, *nic, tc+co.o+co.L)
	setGPS(e.op(g), phCTS, gpsMatch(e.op(g)))
	e.push(event{time: tc + co.o + co.L, key: e.seq<<32 | keyArrival | uint64(uint32(s)), op: g, rank: q})
	e.seq++
}

// takePosted removes and returns the oldest receive of rank q that
// matches a message from src with tag: first among the receives posted at
// time 0 and kept implicitly, then in the posted queue.
func (e *engine) takePosted(q int32, src int32, tag uint32) (int32, bool) {
	rk := &e.ranks[q]
	if rk.icur < rk.iend {
		if g, ok := e.takeImplicit(q, rk, src, tag); ok {
			return g, true
		}
	}
	m, ok := e.posted.take(&rk.posted, q, src, tag)
	return m.op, ok
}

// arrivalModel is engine.arrival under the models. For LogGPS the send's
// phase says what arrives: an eager message or rendezvous data at the
// receiver, an RTS at the receiver, a CTS back at the sender.
func (e *engine) arrivalModel(ev event) {
	o := e.op(ev.op)
	q := int32(ev.key & keyRank)
	c, n := e.cpuNIC(ev.op)
	cpu, nic := e.clock(q, c), e.clock(q, e.nc+e.nn+n)
	m := e.m
	ph := phData
	if m.handshake {
		ph = gpsPhase(o)
	}
	at := ev.time
	if e.x != nil && (ph == phData || ph == phRdv) {
		if at = e.deliver(ev); at == topology.Never {
			e.waits++
			return
		}
	}
	if free := max(at, *cpu, *nic); free > ev.time {
		e.waitArrival(ev, at, free)
		return
	}
	t := ev.time
	size := o.bytes()
	switch ph {
	case phRTS, phCTS:
		co := e.costs.of(0)
		cpuEnd := e.ctlCPU(int64(q), t, co.o, false)
		e.modelCheck(ev.rank, ev.op, t, "handshake of", cpuEnd, t+co.g, 0)
		*cpu = cpuEnd
		*nic = t + co.g
		if ph == phCTS {
			e.sendData(ev.rank, q, ev.op, cpuEnd)
			return
		}
		r, ok := e.takePosted(q, ev.rank, o.tag)
		if !ok {
			e.unexpected.push(&e.ranks[q].unexp, q, ev.rank, o.tag, ev.op)
			return
		}
		if e.x != nil && e.x.recOn {
			e.x.matched(ev.op, r)
		}
		setGPS(o, phRTS, r)
		e.clearToSend(q, ev.rank, ev.op, cpuEnd)
		return
	}
	mc := e.cost(ev.op, size)
	cpuEnd := t + mc.recvCPU
	if e.x != nil {
		cpuEnd = e.arrivalHooks(ev, q, t, cpuEnd, mc.recvNIC)
	}
	e.modelCheck(ev.rank, ev.op, t, "receive of the message of", cpuEnd, t+mc.recvNIC, 0)
	*cpu = cpuEnd
	if m.kind == LogfP {
		*nic = e.gapQueue(e.nicSlot(q, n, 1), t, mc.recvNIC, size <= m.small)
		e.modelCheck(ev.rank, ev.op, t, "receive of the message of", m.dlast[e.nicSlot(q, n, 1)], *nic, 0)
	} else {
		*nic = t + mc.recvNIC
	}
	if ph == phRdv {
		e.completed(q, gpsMatch(o), cpuEnd)
		if e.win != nil {
			e.win.finish(e.p, ev.op)
		}
		return
	}
	r, ok := e.takePosted(q, ev.rank, o.tag)
	if !ok {
		e.unexpected.push(&e.ranks[q].unexp, q, ev.rank, o.tag, ev.op)
		return
	}
	if e.x != nil && e.x.recOn {
		e.x.matched(ev.op, r)
	}
	if int64(size) > e.eager {
		e.rendezvousMatched(ev.rank, ev.op, t)
	}
	e.completed(q, r, cpuEnd)
	if e.win != nil {
		e.win.finish(e.p, ev.op)
	}
}

// sendData sends the data of rendezvous send g from its rank s, whose
// CTS arrived from receiver q and was processed by t.
func (e *engine) sendData(q, s, g int32, t int64) {
	c, n := e.cpuNIC(g)
	cpu, nic := e.clock(s, c), e.clock(s, e.nc+n)
	size := e.op(g).bytes()
	mc := e.cost(g, size)
	td := max(t, *cpu, *nic)
	cpuEnd := td + mc.sendCPU
	if e.x != nil {
		cpuEnd = e.sendHooks(event{time: td, op: g, rank: s}, td, size, cpuEnd, mc.sendNIC)
	}
	e.modelCheck(s, g, td, "rendezvous data of", cpuEnd, td+mc.sendNIC, td+mc.flight)
	*cpu = cpuEnd
	*nic = td + mc.sendNIC
	setGPS(e.op(g), phRdv, gpsMatch(e.op(g)))
	e.push(event{time: td + mc.flight, key: e.seq<<32 | keyArrival | uint64(uint32(q)), op: g, rank: s})
	e.seq++
	e.completed(s, g, cpuEnd)
}

// modelCheck stops the run if a time of the message of send g (rank r),
// handled at t, is beyond MaxTime.
func (e *engine) modelCheck(r, g int32, t int64, side string, a, b, c int64) {
	if max(a, b, c) > MaxTime {
		e.msgTooLate(r, g, t, e.costs.of(e.op(g).bytes()), side)
	}
}
