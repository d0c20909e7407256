package otf2

// From OTF2 events to gopsim's calls, per location of an MPI process (the
// members of the MPI paradigm's COMM_LOCATIONS group, in rank order):
//
//   - An MPI region (Enter "MPI_X" ... Leave) is one call of MPI_X, from
//     the Enter to the Leave time (converted to ns with the clock
//     properties). Regions nested in it (PMPI calls, user code) are part
//     of it; user regions outside MPI are computation.
//   - MpiSend/MpiIsend give the peer, tag, size and request of a send,
//     MpiRecv those of a receive; MpiIrecvRequest opens a receive whose
//     source, tag and size the MpiIrecv event of its completion gives (the
//     converter fixes the receive then). MpiIsendComplete, MpiIrecv,
//     MpiRequestCancelled and NonBlockingCollectiveComplete inside a Wait*
//     or Test* are its completions; inside any other call they become a
//     Wait of their own right after it. Peers are ranks of the event's
//     communicator, turned into world ranks with its group.
//   - MpiCollectiveBegin/End give the communicator, root and the bytes
//     sent and received by this rank; the size the collective package
//     needs is derived from them with Score-P's counting rules (see
//     collective). v-collectives carry only totals: their blocks are taken
//     as equal.
//   - A nonblocking collective (MPI_Iallreduce, MPI_Ibcast, ...) recorded
//     as OTF2 3 does it, a NonBlockingCollectiveRequest in its region and
//     a NonBlockingCollectiveComplete in the Wait* or Test* that completes
//     it, is that collective's communication, started at the call and
//     completed at the wait: the complete event gives its communicator,
//     root and sizes, so the call waits in the stream until it is read.
//     Score-P 2 records the collective events inside the MPI_I* region
//     and no request: that call is modelled as the blocking collective.
//   - Calls that are local queries (MPI_Comm_rank, MPI_Type_size, ...)
//     count as computation, as with gopsim's own tracer. Other MPI
//     regions gopsim does not know (one-sided, I/O, ...) and nonblocking
//     collectives without collective events are unsupported, as is a
//     nonblocking collective whose request never completes. Events gopsim
//     does not use (metrics, threads, locations that are not MPI ranks)
//     are listed in the warnings.

import (
	"fmt"
	"math/bits"
	"strings"

	"github.com/gopsim/gopsim/collective"
	"github.com/gopsim/gopsim/trace"
)

// model is what the global definitions say, shared by the conversion of
// every location: ranks, communicators, regions, the clock.
type model struct {
	defs        *Definitions
	tps, offset uint64
	locs        []uint64       // location of each rank
	rankOf      map[uint64]int // rank of each location
	events      []uint64       // events each rank's location definition announces
	commIDs     map[uint32]int32
	comms       []*trace.Comm // by gopsim id; nil for self communicators
	self        []bool        // by gopsim id: a communicator of one rank, itself
	regions     map[uint32]*region
}

// region is what a region is to the converter.
type region struct {
	name  string
	mpi   bool       // its name starts with MPI_: an MPI call
	fn    trace.Func // the call, when known
	known bool
	local bool // a local query: computation
}

// nbcBlocking maps the nonblocking collectives to the blocking ones, for
// Score-P 2's MPI_I* regions with collective events and no request.
var nbcBlocking = map[trace.Func]trace.Func{
	trace.FuncIbarrier: trace.FuncBarrier, trace.FuncIbcast: trace.FuncBcast, trace.FuncIallreduce: trace.FuncAllreduce,
	trace.FuncIalltoall: trace.FuncAlltoall, trace.FuncIreduce: trace.FuncReduce, trace.FuncIallgather: trace.FuncAllgather,
}

// newModel maps locations to ranks and communicators to gopsim ids.
func newModel(d *Definitions) (*model, error) {
	if !d.HasClock {
		return nil, fmt.Errorf("no ClockProperties definition")
	}
	m := &model{defs: d, tps: d.Clock.TicksPerSecond, offset: d.Clock.GlobalOffset, rankOf: map[uint64]int{},
		commIDs: map[uint32]int32{}, regions: map[uint32]*region{}}
	if err := m.ranks(); err != nil {
		return nil, err
	}
	if err := m.communicators(); err != nil {
		return nil, err
	}
	for id := range d.Regions {
		m.addRegion(id, d.RegionName(id))
	}
	return m, nil
}

// funcs maps MPI function names to gopsim's.
var funcs = func() map[string]trace.Func {
	m := map[string]trace.Func{}
	for _, f := range trace.Funcs() {
		m[f.String()] = f
	}
	return m
}()

// addRegion classifies region id, named name.
func (m *model) addRegion(id uint32, name string) {
	f, known := funcs[name]
	m.regions[id] = &region{name: name, mpi: strings.HasPrefix(name, "MPI_"), fn: f, known: known,
		local: localCalls[name] || strings.HasPrefix(name, "MPI_Type_")}
}

// ranks finds the MPI processes: the COMM_LOCATIONS group of the MPI
// paradigm (or the only one) lists their locations in rank order.
func (m *model) ranks() error {
	var locs *Group
	n := 0
	for id := range m.defs.Groups {
		g := m.defs.Groups[id]
		if g.Type != GroupCommLocations {
			continue
		}
		n++
		if locs == nil || g.Paradigm == ParadigmMPI && locs.Paradigm != ParadigmMPI {
			locs = &g
		}
	}
	switch {
	case locs == nil:
		return fmt.Errorf("no COMM_LOCATIONS group: not a trace of an MPI program")
	case n > 1 && locs.Paradigm != ParadigmMPI:
		return fmt.Errorf("%d COMM_LOCATIONS groups, none of the MPI paradigm", n)
	}
	known := map[uint64]Location{}
	for _, l := range m.defs.Locations {
		known[l.ID] = l
	}
	for r, l := range locs.Members {
		if prev, dup := m.rankOf[l]; dup {
			return fmt.Errorf("location %d is rank %d and %d", l, prev, r)
		}
		d, ok := known[l]
		if !ok {
			return fmt.Errorf("rank %d: location %d is not defined", r, l)
		}
		m.rankOf[l] = r
		m.locs = append(m.locs, l)
		m.events = append(m.events, d.Events)
	}
	return nil
}

// communicators gives the world id 0 and the others 1, 2, ... in
// definition order.
func (m *model) communicators() error {
	d := m.defs
	world := len(m.locs)
	worldIdx := -1
	for i, c := range d.Comms {
		if g, ok := d.Groups[c.Group]; ok && g.Type == GroupCommGroup && c.Parent == Undefined && len(g.Members) == world {
			if worldIdx < 0 || d.Text(c.Name) == "MPI_COMM_WORLD" {
				worldIdx = i
			}
		}
	}
	next := int32(1)
	for i, c := range d.Comms {
		id := next
		if i == worldIdx {
			id = 0
		} else {
			next++
		}
		m.commIDs[c.ID] = id
	}
	m.comms = make([]*trace.Comm, next)
	m.self = make([]bool, next)
	for _, c := range d.Comms {
		id := m.commIDs[c.ID]
		g, ok := d.Groups[c.Group]
		switch {
		case !ok:
			return fmt.Errorf("communicator %d: group %d is not defined", c.ID, c.Group)
		case g.Type == GroupCommSelf:
			m.self[id] = true
		case g.Type == GroupCommGroup:
			cm := &trace.Comm{ID: id}
			for _, r := range g.Members {
				if r >= uint64(world) {
					return fmt.Errorf("communicator %d: member %d is not a rank (%d ranks)", c.ID, r, world)
				}
				cm.Members = append(cm.Members, int32(r))
			}
			m.comms[id] = cm
		default:
			return fmt.Errorf("communicator %d: group %d of type %d", c.ID, c.Group, g.Type)
		}
	}
	return nil
}

// ns converts a time in ticks to ns since the clock's global offset.
func (m *model) ns(t uint64) int64 {
	d := t - min(t, m.offset)
	hi, lo := bits.Mul64(d, 1e9)
	if hi >= m.tps {
		return 1 << 62
	}
	q, _ := bits.Div64(hi, lo, m.tps)
	return int64(min(q, 1<<62))
}

// localCalls lists MPI functions whose time counts as computation, as
// gopsim's tracer leaves them unwrapped: local queries and bookkeeping.
var localCalls = map[string]bool{
	"MPI_Initialized": true, "MPI_Finalized": true, "MPI_Comm_rank": true, "MPI_Comm_size": true,
	"MPI_Wtime": true, "MPI_Wtick": true, "MPI_Get_count": true, "MPI_Get_elements": true,
	"MPI_Get_processor_name": true, "MPI_Get_version": true, "MPI_Get_library_version": true,
	"MPI_Query_thread": true, "MPI_Is_thread_main": true, "MPI_Comm_group": true,
	"MPI_Comm_compare": true, "MPI_Comm_test_inter": true, "MPI_Comm_remote_size": true,
	"MPI_Comm_get_name": true, "MPI_Comm_set_name": true, "MPI_Comm_get_attr": true,
	"MPI_Comm_set_attr": true, "MPI_Comm_delete_attr": true, "MPI_Comm_create_keyval": true,
	"MPI_Comm_free_keyval": true, "MPI_Comm_set_errhandler": true, "MPI_Comm_get_errhandler": true,
	"MPI_Errhandler_free": true, "MPI_Error_string": true, "MPI_Error_class": true,
	"MPI_Op_create": true, "MPI_Op_free": true, "MPI_Attr_get": true, "MPI_Attr_put": true,
	"MPI_Get_address": true, "MPI_Address": true, "MPI_Pcontrol": true, "MPI_Buffer_attach": true,
	"MPI_Buffer_detach": true, "MPI_Info_create": true, "MPI_Info_free": true, "MPI_Info_set": true,
	"MPI_Info_get": true, "MPI_Cart_coords": true, "MPI_Cart_rank": true, "MPI_Cart_shift": true,
	"MPI_Cart_get": true, "MPI_Cartdim_get": true, "MPI_Dims_create": true, "MPI_Topo_test": true,
	"MPI_Group_incl": true, "MPI_Group_excl": true, "MPI_Group_free": true, "MPI_Group_size": true,
	"MPI_Group_rank": true, "MPI_Group_translate_ranks": true, "MPI_Group_union": true,
	"MPI_Group_intersection": true, "MPI_Group_difference": true, "MPI_Group_range_incl": true,
	"MPI_Group_compare": true, "MPI_Status_set_elements": true, "MPI_Request_get_status": true,
	"MPI_Alloc_mem": true, "MPI_Free_mem": true, "MPI_Comm_c2f": true, "MPI_Comm_f2c": true,
}

// counts are the warnings and the unsupported calls of a conversion.
type counts struct {
	warn, unsup map[string]int64
}

func newCounts() *counts { return &counts{warn: map[string]int64{}, unsup: map[string]int64{}} }

// ---- one location ----

// openCall is an MPI call being read: its region and the events in it.
type openCall struct {
	reg     *region
	start   int64
	send    *p2p
	recv    *p2p
	irecvRq uint64
	hasIrq  bool
	nbcRq   uint64
	hasNbc  bool
	done    []trace.Completion
	coll    *collData
	at      callAt // of the Enter event, for errors

	sendV, recvV p2p // the storage of send, recv and coll
	collV        collData
}

type p2p struct {
	comm, peer int32 // gopsim comm id, world rank
	tag        int32
	bytes      int64
	req        uint64
	hasReq     bool
}

type collData struct {
	comm       int32
	root       int32
	sent, recv int64
}

// locConv turns the events of one location into its calls. Calls leave
// from the front of out (ready says how many may); a nonblocking
// collective waits there, with the calls after it, until its completion
// gives its communicator and sizes.
type locConv struct {
	m      *model
	n      *counts // nil: do not count (the second pass of a streamed trace)
	rank   int
	cur    *openCall // nil or &call
	call   openCall
	depth  int
	isends map[uint64]trace.Completion
	irecvs map[uint64]trace.Completion
	nbc    map[uint64]int // request → index (from base) of its call in out
	unres  []int          // indices (from base) of the calls waiting for their completion, ascending
	out    []trace.Call   // the calls from out[head] on are still to leave
	at     []callAt       // where each call of out is
	head   int
	base   int // index of out[0] among the location's calls
	start  int64
	inited bool
	pos    int64                             // where the current event is (byte offset, line)
	evn    int64                             // the current event's number among the location's, from 1 (0: not counted)
	mkErr  func(pos int64, msg string) error // an error at a position
}

// callAt is where a call is: the event it starts with, by pos (byte
// offset, or line of otf2-print's output) and number (from 1; 0: not
// counted).
type callAt struct{ pos, n int64 }

// push adds call c, which starts at the event at, to out.
func (l *locConv) push(c trace.Call, at callAt) {
	l.out = append(l.out, c)
	l.at = append(l.at, at)
}

func newLocConv(m *model, n *counts, rank int, mkErr func(pos int64, msg string) error) *locConv {
	return &locConv{m: m, n: n, rank: rank, mkErr: mkErr, isends: map[uint64]trace.Completion{},
		irecvs: map[uint64]trace.Completion{}, nbc: map[uint64]int{}}
}

func (l *locConv) errf(format string, args ...any) error {
	return l.mkErr(l.pos, fmt.Sprintf(format, args...))
}

func (l *locConv) warn(s string) {
	if l.n != nil {
		l.n.warn[s]++
	}
}

// unsupported counts a call that cannot be modelled, named by what it is
// ("MPI_Put", "MPI_Iallreduce without collective events"): the policy
// (an error, or its time as computation) is Options.Unsupported's, and
// the messages that list these names say which applied.
func (l *locConv) unsupported(s string) {
	if l.n != nil {
		l.n.unsup[s]++
	}
}

// ready is the number of calls from out[head] on that may leave.
func (l *locConv) ready() int {
	if len(l.unres) > 0 {
		return l.unres[0] - l.base - l.head
	}
	return len(l.out) - l.head
}

// take lets the next k calls leave.
func (l *locConv) take(k int) {
	l.head += k
	if l.head >= 64 && l.head >= len(l.out)/2 {
		n := copy(l.out, l.out[l.head:])
		clear(l.out[n:])
		l.out = l.out[:n]
		l.at = l.at[:copy(l.at, l.at[l.head:])]
		l.base += l.head
		l.head = 0
	}
}

// event converts one event of the location.
func (l *locConv) event(ev *Event) error {
	t := l.m.ns(ev.Time)
	switch ev.Kind {
	case Enter:
		if l.cur != nil {
			l.depth++
			return nil
		}
		if reg, ok := l.m.regions[ev.Region]; ok && reg.mpi {
			l.call = openCall{reg: reg, start: t, at: callAt{l.pos, l.evn}}
			l.cur = &l.call
		}
	case Leave:
		if l.cur == nil {
			return nil
		}
		if l.depth > 0 {
			l.depth--
			return nil
		}
		if reg := l.m.regions[ev.Region]; reg != l.cur.reg && (reg == nil || reg.name != l.cur.reg.name) {
			name := ""
			if reg != nil {
				name = reg.name
			}
			return l.errf("Leave %q inside %q (regions not nested)", name, l.cur.reg.name)
		}
		c := l.cur
		l.cur = nil
		return l.endCall(c, t)
	case MpiSend, MpiIsend, MpiRecv:
		x, err := l.p2p(ev)
		if err != nil {
			return err
		}
		switch c := l.cur; {
		case c != nil && ev.Kind != MpiRecv && c.send == nil:
			c.sendV = x
			c.send = &c.sendV
		case c != nil && ev.Kind == MpiRecv && c.recv == nil:
			c.recv = &c.recvV
			c.recvV = x
		default:
			l.warn("OTF2 " + ev.Kind.String() + " outside an MPI call or a second one in a call: ignored")
		}
	case MpiIrecvRequest:
		if c := l.cur; c != nil && !c.hasIrq {
			c.irecvRq, c.hasIrq = ev.Request, true
		} else {
			l.warn("OTF2 MPI_IRECV_REQUEST outside an MPI call or a second one in a call: ignored")
		}
	case NonBlockingCollectiveRequest:
		if c := l.cur; c != nil && !c.hasNbc {
			c.nbcRq, c.hasNbc = ev.Request, true
		} else {
			l.warn("OTF2 NON_BLOCKING_COLLECTIVE_REQUEST outside an MPI call or a second one in a call: ignored")
		}
	case MpiIsendComplete, MpiIrecv, MpiRequestCancelled, NonBlockingCollectiveComplete:
		d, err := l.completion(ev)
		if err != nil {
			return err
		}
		if l.cur != nil {
			l.cur.done = append(l.cur.done, d)
		} else {
			c := trace.NewCall(trace.FuncWait, t, t)
			c.Done = []trace.Completion{d}
			l.push(c, callAt{l.pos, l.evn})
		}
	case MpiCollectiveEnd:
		x, err := l.coll(ev)
		if err != nil {
			return err
		}
		if c := l.cur; c != nil && c.coll == nil {
			c.collV = x
			c.coll = &c.collV
		} else {
			l.warn("OTF2 MPI_COLLECTIVE_END outside an MPI call or a second one in a call: ignored")
		}
	case MpiCollectiveBegin, MpiRequestTest, MeasurementOnOff, BufferFlush:
		// nothing to model: polls and tracer pauses are computation
	default:
		l.warn("OTF2 event " + recordName(ev) + ": ignored")
	}
	return nil
}

// commOf turns an OTF2 communicator into a gopsim id.
func (l *locConv) commOf(c uint32) (int32, error) {
	id, ok := l.m.commIDs[c]
	if !ok {
		return 0, l.errf("communicator %d is not defined", c)
	}
	return id, nil
}

// rankOf checks rank n of communicator comm and turns it into a world
// rank (world) or keeps it (a rank of comm).
func (l *locConv) rankOf(comm int32, n uint32, world bool) (int32, error) {
	size := len(l.m.locs)
	var members []int32
	if l.m.self[comm] {
		size, members = 1, []int32{int32(l.rank)}
	} else if c := l.m.comms[comm]; c != nil {
		size, members = len(c.Members), c.Members
	}
	if uint64(n) >= uint64(size) {
		return 0, l.errf("rank %d outside communicator of %d ranks", n, size)
	}
	if !world || members == nil {
		return int32(n), nil
	}
	return members[n], nil
}

func (l *locConv) p2p(ev *Event) (p2p, error) {
	x := p2p{req: ev.Request, hasReq: ev.Kind == MpiIsend || ev.Kind == MpiIrecv}
	var err error
	if x.comm, err = l.commOf(ev.Comm); err != nil {
		return x, err
	}
	if x.peer, err = l.rankOf(x.comm, ev.Peer, true); err != nil {
		return x, err
	}
	if ev.Tag > 1<<31-1 || ev.Bytes > 1<<62 {
		return x, l.errf("tag %d or length %d out of range", ev.Tag, ev.Bytes)
	}
	x.tag, x.bytes = int32(ev.Tag), int64(ev.Bytes)
	return x, nil
}

func (l *locConv) coll(ev *Event) (collData, error) {
	x := collData{root: trace.None}
	var err error
	if x.comm, err = l.commOf(ev.Comm); err != nil {
		return x, err
	}
	if ev.Root != Undefined {
		if x.root, err = l.rankOf(x.comm, ev.Root, false); err != nil {
			return x, err
		}
	}
	if ev.Sent > 1<<62 || ev.Recv > 1<<62 {
		return x, l.errf("%s: sent %d or received %d bytes out of range", ev.Kind, ev.Sent, ev.Recv)
	}
	x.sent, x.recv = int64(ev.Sent), int64(ev.Recv)
	return x, nil
}

// completion is the completion an event records.
func (l *locConv) completion(ev *Event) (trace.Completion, error) {
	unknown := trace.Completion{Kind: trace.ReqUnknown, Peer: trace.None, Tag: trace.None, Comm: trace.None}
	switch ev.Kind {
	case MpiIrecv:
		x, err := l.p2p(ev)
		if err != nil {
			return unknown, err
		}
		d := trace.Completion{Request: x.req, Kind: trace.ReqRecv, Peer: x.peer, Tag: x.tag, Bytes: x.bytes, Func: trace.FuncIrecv, Comm: x.comm}
		if _, ok := l.irecvs[x.req]; ok {
			delete(l.irecvs, x.req)
		} else {
			d.Request, d.Kind = 0, trace.ReqUnknown
		}
		return d, nil
	case NonBlockingCollectiveComplete:
		return l.nbcComplete(ev)
	}
	d := unknown
	if s, ok := l.isends[ev.Request]; ok {
		d = s
		delete(l.isends, ev.Request)
	} else if s, ok := l.irecvs[ev.Request]; ok {
		d = s
		delete(l.irecvs, ev.Request)
	}
	d.Cancelled = ev.Kind == MpiRequestCancelled
	return d, nil
}

// nbcComplete gives the nonblocking collective of the event's request
// its communicator and sizes, and returns its completion.
func (l *locConv) nbcComplete(ev *Event) (trace.Completion, error) {
	d := trace.Completion{Kind: trace.ReqUnknown, Peer: trace.None, Tag: trace.None, Comm: trace.None}
	i, ok := l.nbc[ev.Request]
	if !ok {
		l.warn("OTF2 NON_BLOCKING_COLLECTIVE_COMPLETE of a request no nonblocking collective started: a completion of an unknown request")
		return d, nil
	}
	delete(l.nbc, ev.Request)
	x, err := l.coll(ev)
	if err != nil {
		return d, err
	}
	call := &l.out[i-l.base]
	if err := l.collective(call, &x); err != nil {
		return d, err
	}
	for j, u := range l.unres {
		if u == i {
			l.unres = append(l.unres[:j], l.unres[j+1:]...)
			break
		}
	}
	return trace.Completion{Request: call.Request, Kind: trace.ReqCollective, Peer: trace.None, Tag: trace.None,
		Func: call.Func, Comm: call.Comm}, nil
}

// finish ends the location: a call left open, or a nonblocking
// collective never completed.
func (l *locConv) finish() error {
	if l.cur != nil {
		return l.mkErr(l.cur.at.pos, fmt.Sprintf("rank %d: %s entered and never left (trace cut short?)", l.rank, l.cur.reg.name))
	}
	for k := len(l.unres) - 1; k >= 0; k-- {
		i := l.unres[k] - l.base
		l.unsupported(l.out[i].Func.String() + " whose request no wait completes")
		l.out = append(l.out[:i], l.out[i+1:]...)
		l.at = append(l.at[:i], l.at[i+1:]...)
	}
	l.unres = l.unres[:0]
	return nil
}

// endCall turns a finished MPI region into a call.
func (l *locConv) endCall(c *openCall, end int64) error {
	reg := c.reg
	if !reg.known {
		if reg.local {
			return nil // computation
		}
		l.unsupported(reg.name)
		l.flushDone(c, end)
		return nil
	}
	f := reg.fn
	call := trace.NewCall(f, c.start, end)
	switch f.Class() {
	case trace.ClassInit:
		l.start, l.inited = end, true
	case trace.ClassSend, trace.ClassIsend:
		call.Peer = trace.ProcNull
		if x := c.send; x != nil {
			call.Comm, call.Peer, call.Tag, call.Bytes = x.comm, x.peer, x.tag, x.bytes
			call.Type = trace.Datatype{Size: 1, Extent: 1}
			if f.Class() == trace.ClassIsend {
				call.Request = x.req
				l.isends[x.req] = trace.Completion{Request: x.req, Kind: trace.ReqSend, Peer: x.peer, Tag: x.tag, Bytes: x.bytes, Func: f, Comm: x.comm}
			}
		}
	case trace.ClassRecv:
		call.Peer = trace.ProcNull
		if x := c.recv; x != nil {
			call.Comm, call.Peer, call.Tag, call.Bytes = x.comm, x.peer, x.tag, x.bytes
			call.Type = trace.Datatype{Size: 1, Extent: 1}
		}
	case trace.ClassIrecv:
		call.Peer = trace.ProcNull
		if c.hasIrq {
			// What was posted is not recorded: the completion says.
			call.Comm, call.Peer, call.Tag, call.Request = 0, trace.AnySource, trace.AnyTag, c.irecvRq
			call.Type = trace.Datatype{Size: 1, Extent: 1}
			l.irecvs[c.irecvRq] = trace.Completion{Request: c.irecvRq, Kind: trace.ReqRecv, Peer: trace.None, Tag: trace.None, Func: f, Comm: 0}
		}
	case trace.ClassSendrecv:
		call.Peer, call.RecvPeer = trace.ProcNull, trace.ProcNull
		if x := c.send; x != nil {
			call.Comm, call.Peer, call.Tag, call.Bytes = x.comm, x.peer, x.tag, x.bytes
		}
		if x := c.recv; x != nil {
			call.Comm, call.RecvPeer, call.RecvTag, call.RecvBytes = x.comm, x.peer, x.tag, x.bytes
		}
	case trace.ClassWait, trace.ClassTest:
		call.Done = c.done
		call.Flag = f.Class() == trace.ClassTest && len(c.done) > 0
		c.done = nil
	case trace.ClassCollective, trace.ClassICollective:
		ok, err := l.collectiveCall(c, &call)
		if err != nil || !ok {
			return err
		}
	}
	l.push(call, c.at)
	l.flushDone(c, end)
	return nil
}

// collectiveCall fills a collective call from its collective events:
// false when it has none (not modelled).
func (l *locConv) collectiveCall(c *openCall, call *trace.Call) (bool, error) {
	f := call.Func
	if f.Class() == trace.ClassICollective && c.coll == nil && c.hasNbc {
		// OTF2 3: the communicator and sizes come with the completion.
		call.Request = c.nbcRq
		l.nbc[c.nbcRq] = l.base + len(l.out)
		l.unres = append(l.unres, l.base+len(l.out))
		return true, nil
	}
	if c.coll == nil {
		l.unsupported(c.reg.name + " without collective events")
		l.flushDone(c, call.End)
		return false, nil
	}
	if blk, ok := nbcBlocking[f]; ok {
		// Score-P 2 records a nonblocking collective's data in its
		// region, without a request: modelled as the blocking call.
		l.warn(c.reg.name + " with collective events but no request: modelled as " + blk.String())
		call.Func = blk
	}
	return true, l.collective(call, c.coll)
}

// flushDone turns completions seen in a call that completes nothing
// into a Wait right after it.
func (l *locConv) flushDone(c *openCall, end int64) {
	if len(c.done) > 0 {
		w := trace.NewCall(trace.FuncWait, end, end)
		w.Done = c.done
		l.push(w, c.at)
	}
}

func ceilDiv(a, b int64) int64 {
	if b <= 0 {
		return a
	}
	return (a + b - 1) / b
}

// collective fills a collective call from its collective end (or
// nonblocking complete) event, with Score-P's counting rules read
// backwards (N the communicator's size; the in-place variants count one
// block less, which these rules do not see):
//
//	Barrier                      nothing
//	Bcast                        root sends N·b, everyone receives b: b = received (root: sent/N)
//	Gather, Reduce               everyone sends b, the root receives N·b: b = sent
//	Scatter                      the root sends N·b, everyone receives b: b = received
//	Allgather, Alltoall,
//	Allreduce,
//	Reduce_scatter_block         sent = N·b: b = sent/N
//	Scan                         sent + received = (N+1)·b
//	Exscan                       sent + received = (N-1)·b
//	Gatherv, Scatterv,
//	Allgatherv, Alltoallv,
//	Reduce_scatter               totals only: N equal blocks
func (l *locConv) collective(call *trace.Call, x *collData) error {
	call.Comm, call.Root = x.comm, trace.None
	call.Type = trace.Datatype{Size: 1, Extent: 1}
	n := int64(len(l.m.locs))
	me := int64(-1)
	if l.m.self[x.comm] {
		n, me = 1, 0
	} else if cm := l.m.comms[x.comm]; cm != nil {
		n, me = int64(len(cm.Members)), int64(cm.Rank(int32(l.rank)))
	}
	op, _ := collectiveOp(call.Func)
	if op.Rooted() {
		if x.root < 0 {
			return l.errf("%s without a root", call.Func)
		}
		call.Root = x.root
	}
	isRoot := me == int64(call.Root)
	equal := func(total int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = ceilDiv(total, n)
		}
		return out
	}
	var b int64
	switch op {
	case collective.Barrier:
	case collective.Bcast:
		b = x.recv
		if b == 0 && isRoot {
			b = ceilDiv(x.sent, n)
		}
	case collective.Gather, collective.Reduce:
		b = x.sent
		if b == 0 && isRoot {
			b = ceilDiv(x.recv, n-1)
		}
	case collective.Scatter:
		b = x.recv
		if b == 0 && isRoot {
			b = ceilDiv(x.sent, n-1)
		}
	case collective.Allgather, collective.Alltoall, collective.Allreduce:
		b = ceilDiv(x.sent, n)
	case collective.ReduceScatter:
		if call.Func == trace.FuncReduceScatter {
			call.Counts = equal(x.sent)
		} else {
			b = ceilDiv(x.sent, n)
		}
	case collective.Scan:
		b = ceilDiv(x.sent+x.recv, n+1)
	case collective.Exscan:
		b = ceilDiv(x.sent+x.recv, n-1)
	case collective.Gatherv:
		b = x.sent
		if isRoot {
			call.Counts = equal(x.recv)
		}
	case collective.Scatterv:
		b = x.recv
		if isRoot {
			call.Counts = equal(x.sent)
		}
	case collective.Allgatherv:
		call.Counts = equal(x.recv)
	case collective.Alltoallv:
		call.Counts, call.RecvCounts = equal(x.sent), equal(x.recv)
	default:
		l.unsupported(call.Func.String() + " (no collective operation known for it)")
	}
	call.Bytes = b
	return nil
}

// collectiveOp is the collective operation of an MPI collective function.
func collectiveOp(f trace.Func) (collective.Op, bool) {
	op, ok := collOps[f]
	return op, ok
}

var collOps = map[trace.Func]collective.Op{
	trace.FuncBarrier: collective.Barrier, trace.FuncIbarrier: collective.Barrier,
	trace.FuncBcast: collective.Bcast, trace.FuncIbcast: collective.Bcast,
	trace.FuncReduce: collective.Reduce, trace.FuncIreduce: collective.Reduce,
	trace.FuncAllreduce: collective.Allreduce, trace.FuncIallreduce: collective.Allreduce,
	trace.FuncAllgather: collective.Allgather, trace.FuncIallgather: collective.Allgather,
	trace.FuncAllgatherv: collective.Allgatherv, trace.FuncAlltoall: collective.Alltoall,
	trace.FuncIalltoall: collective.Alltoall, trace.FuncAlltoallv: collective.Alltoallv,
	trace.FuncGather: collective.Gather, trace.FuncGatherv: collective.Gatherv,
	trace.FuncScatter: collective.Scatter, trace.FuncScatterv: collective.Scatterv,
	trace.FuncReduceScatterBlock: collective.ReduceScatter, trace.FuncReduceScatter: collective.ReduceScatter,
	trace.FuncScan: collective.Scan, trace.FuncExscan: collective.Exscan,
}

// recordNames are the names otf2-print gives event records gopsim does
// not use, for the warnings.
var recordNames = map[uint8]string{
	31: "METRIC", 32: "PARAMETER_STRING", 33: "PARAMETER_INT64", 34: "PARAMETER_UINT64",
	35: "RMA_WIN_CREATE", 36: "RMA_WIN_DESTROY", 45: "RMA_WAIT_CHANGE", 46: "RMA_PUT",
	53: "THREAD_FORK", 54: "THREAD_JOIN", 55: "THREAD_TEAM_BEGIN", 56: "THREAD_TEAM_END",
	62: "THREAD_CREATE", 67: "CALLING_CONTEXT_LEAVE", 68: "CALLING_CONTEXT_SAMPLE",
	70: "IO_DESTROY_HANDLE", 83: "PROGRAM_BEGIN", 84: "PROGRAM_END",
}

// recordName names an event's record for the warnings.
func recordName(ev *Event) string {
	if ev.Kind != Other {
		return ev.Kind.String()
	}
	if s, ok := recordNames[ev.Record]; ok {
		return s
	}
	return fmt.Sprintf("record %d", ev.Record)
}
