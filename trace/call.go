package trace

import (
	"fmt"
	"slices"
	"strings"
)

// Func is an MPI function, identified as in trace files (the Func*
// constants of funcs_gen.go), or FuncFlush.
type Func uint8

// FuncFlush marks a record that is not an MPI call: the tracer wrote its
// buffer to the file between two calls, from Start to End. That time is
// the tracer's, not the application's computation.
const FuncFlush Func = recFlush

type funcInfo struct {
	name  string
	class Class
}

func (f Func) info() (funcInfo, bool) {
	if f == FuncFlush {
		return funcInfo{"tracer flush", ClassFlush}, true
	}
	if int(f) < len(funcTable) && funcTable[f].name != "" {
		return funcTable[f], true
	}
	return funcInfo{}, false
}

// String is the MPI name, "MPI_Send".
func (f Func) String() string {
	if fi, ok := f.info(); ok {
		return fi.name
	}
	return fmt.Sprintf("Func(%d)", uint8(f))
}

// Class says what kind of call f is and so which fields of a Call it sets.
func (f Func) Class() Class {
	fi, _ := f.info()
	return fi.class
}

// Known reports whether f is an MPI function of this version of the
// format (or FuncFlush).
func (f Func) Known() bool {
	_, ok := f.info()
	return ok
}

// Funcs lists the MPI functions the tracer records, by id.
func Funcs() []Func {
	var out []Func
	for f := range funcTable {
		if funcTable[f].name != "" {
			out = append(out, Func(f))
		}
	}
	return out
}

// Class groups the functions by the fields their records set.
type Class uint8

// The classes, with the Call fields their records set besides Func, Start
// and End. Comm is set for every call made on a communicator.
const (
	ClassInit        Class = iota + 1 // MPI_Init, MPI_Init_thread: nothing (Header.Thread has the level)
	ClassFinalize                     // MPI_Finalize: nothing
	ClassAbort                        // MPI_Abort: Comm
	ClassSend                         // blocking send: Peer, Tag, Bytes, Type
	ClassIsend                        // nonblocking send: Peer, Tag, Bytes, Type, Request
	ClassRecv                         // MPI_Recv: Peer, Tag, Bytes of the message received (from its status), Type
	ClassIrecv                        // MPI_Irecv: Peer, Tag, Bytes as posted (AnySource, AnyTag, the buffer's size), Type, Request
	ClassSendrecv                     // Sendrecv(_replace): Peer, Tag, Bytes, Type sent; RecvPeer, RecvTag, RecvBytes, RecvType received
	ClassWait                         // Wait, Waitall, Waitany, Waitsome: Done
	ClassTest                         // Test*: Flag and Done, or Polls failed tests in a row
	ClassProbe                        // Probe, Iprobe: Peer, Tag, Bytes of the message found (Flag), or as asked for Polls failed probes
	ClassCancel                       // MPI_Cancel: Request
	ClassRequestFree                  // MPI_Request_free: Request
	ClassCollective                   // blocking collective: Bytes, Type, Root, Counts, RecvCounts as the function has them
	ClassICollective                  // nonblocking collective: as ClassCollective, and Request
	ClassCommNew                      // Comm_dup, Comm_split, ...: NewComm (None if this rank got MPI_COMM_NULL)
	ClassCommFree                     // MPI_Comm_free: Comm
	ClassFlush                        // FuncFlush: nothing
	ClassType                         // MPI_Type_commit, MPI_Type_free: Type.ID, the datatype committed or freed (0: a predefined one)
)

var classNames = [...]string{
	ClassInit: "init", ClassFinalize: "finalize", ClassAbort: "abort", ClassSend: "send", ClassIsend: "isend",
	ClassRecv: "recv", ClassIrecv: "irecv", ClassSendrecv: "sendrecv", ClassWait: "wait", ClassTest: "test",
	ClassProbe: "probe", ClassCancel: "cancel", ClassRequestFree: "request_free", ClassCollective: "collective",
	ClassICollective: "icollective", ClassCommNew: "comm_new", ClassCommFree: "comm_free", ClassFlush: "flush",
	ClassType: "type",
}

func (c Class) String() string {
	if int(c) < len(classNames) && classNames[c] != "" {
		return classNames[c]
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// Special values of ranks and tags. A field a record does not have is
// None; AnySource, AnyTag and ProcNull stand for MPI_ANY_SOURCE,
// MPI_ANY_TAG and MPI_PROC_NULL, Root for MPI_ROOT (an intercommunicator
// collective's root side).
const (
	None      = -1
	AnySource = -2
	AnyTag    = -2
	ProcNull  = -3
	Root      = -4
)

// Datatype is what the tracer records of an MPI datatype, in bytes: the
// data it holds and the span it covers (MPI_Type_size, MPI_Type_get_extent),
// and, for a derived datatype (format version 2), the id of its
// description (Reader.TypeDef) and the stride of the call's data.
type Datatype struct {
	Size, Extent int64
	// ID is the derived datatype's id in the rank's trace, 0 for a
	// predefined datatype (or a trace of version 1).
	ID uint32
	// Stride is, when the call's data (its count elements of the
	// datatype) is not one contiguous block, the distance in bytes
	// between the starts of consecutive blocks (TypeDef.Layout); 0 when
	// it is contiguous or not known.
	Stride int64
}

// ReqKind is the kind of operation a request belongs to.
type ReqKind uint8

// The request kinds.
const (
	ReqUnknown    ReqKind = iota // a request the tracer did not see created (persistent, matched probe, ...)
	ReqSend                      // Isend, Issend, Ibsend, Irsend
	ReqRecv                      // Irecv
	ReqCollective                // a nonblocking collective
)

func (k ReqKind) String() string {
	switch k {
	case ReqUnknown:
		return "unknown"
	case ReqSend:
		return "send"
	case ReqRecv:
		return "recv"
	case ReqCollective:
		return "collective"
	}
	return fmt.Sprintf("ReqKind(%d)", uint8(k))
}

// Completion is a request that a Wait* or Test* call completed.
type Completion struct {
	Request   uint64 // the id the call that created it has as Call.Request; 0 if unknown
	Kind      ReqKind
	Cancelled bool
	// Peer, Tag and Bytes are the message's: for a receive, the source
	// (world rank), tag and size it got, from its status; for a send,
	// those it was posted with; otherwise None, None, 0.
	Peer, Tag int32
	Bytes     int64
	// Func and Comm are those of the call that created the request (0 and
	// None if unknown).
	Func Func
	Comm int32
}

// Call is one record of a rank's trace: an MPI call (or a run of failed
// polls, or a FuncFlush). Fields a record does not have are None (ranks,
// tags, communicators), 0 or nil; Func.Class says which it has.
type Call struct {
	Func Func
	// Start and End are CLOCK_MONOTONIC in ns just before and just after
	// the PMPI call (the first and last call of a run of polls).
	Start, End int64
	// Polls is the number of calls the record stands for: 1, or the length
	// of a run of Test* or Iprobe calls that found nothing.
	Polls int64
	// Flag is the flag output of a Test* or Iprobe that found something.
	Flag bool

	Comm  int32    // communicator id (Reader.Comm)
	Peer  int32    // destination or source as a world rank, AnySource or ProcNull
	Tag   int32    // tag or AnyTag
	Bytes int64    // message or collective size; see the format and Class
	Type  Datatype // the datatype Bytes was counted in
	Root  int32    // root of a rooted collective, as a rank of Comm (Root or ProcNull on intercommunicators)

	// Request is the request the call created (Isend, Irecv, nonblocking
	// collectives) or acted on (Cancel, Request_free); 0 if none.
	Request uint64
	// Done lists the requests a Wait* or Test* call completed, in the
	// order MPI reported them.
	Done []Completion

	// The receive half of a Sendrecv.
	RecvPeer, RecvTag int32
	RecvBytes         int64
	RecvType          Datatype

	// Counts gives the bytes per rank of Comm of a v-collective: every
	// rank's block (Allgatherv, and Reduce_scatter's result blocks), the
	// root's receive (Gatherv) or send (Scatterv) blocks, what this rank
	// sends to each rank (Alltoallv). RecvCounts is what Alltoallv
	// receives from each rank.
	Counts, RecvCounts []int64

	NewComm int32 // the communicator a ClassCommNew call created
	Err     int32 // the MPI error code the call returned; 0 is MPI_SUCCESS
}

// String is a one-line description of the record, with the fields it has:
//
//	MPI_Isend t=1200+350 comm=0 peer=1 tag=7 bytes=800 type=8/8 req=3
func (c *Call) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s t=%d+%d", c.Func, c.Start, c.Duration())
	if c.Polls != 1 {
		fmt.Fprintf(&b, " polls=%d", c.Polls)
	}
	if c.Flag {
		b.WriteString(" flag")
	}
	if c.Comm != None {
		fmt.Fprintf(&b, " comm=%d", c.Comm)
	}
	if c.Peer != None {
		fmt.Fprintf(&b, " peer=%s", rankString(c.Peer))
	}
	if c.Tag != None {
		fmt.Fprintf(&b, " tag=%s", tagString(c.Tag))
	}
	if c.Bytes != 0 {
		fmt.Fprintf(&b, " bytes=%d", c.Bytes)
	}
	if c.Type != (Datatype{}) {
		fmt.Fprintf(&b, " type=%s", c.Type)
	}
	if c.Root != None {
		fmt.Fprintf(&b, " root=%s", rankString(c.Root))
	}
	if c.Request != 0 {
		fmt.Fprintf(&b, " req=%d", c.Request)
	}
	if len(c.Done) > 0 {
		b.WriteString(" done=[")
		for i, d := range c.Done {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%d:%s", d.Request, d.Kind)
			if d.Cancelled {
				b.WriteString(":cancelled")
			}
			if d.Peer != None {
				fmt.Fprintf(&b, ":peer=%s:tag=%s:bytes=%d", rankString(d.Peer), tagString(d.Tag), d.Bytes)
			}
		}
		b.WriteString("]")
	}
	if c.RecvPeer != None {
		fmt.Fprintf(&b, " rpeer=%s", rankString(c.RecvPeer))
	}
	if c.RecvTag != None {
		fmt.Fprintf(&b, " rtag=%s", tagString(c.RecvTag))
	}
	if c.RecvBytes != 0 {
		fmt.Fprintf(&b, " rbytes=%d", c.RecvBytes)
	}
	if c.RecvType != (Datatype{}) {
		fmt.Fprintf(&b, " rtype=%s", c.RecvType)
	}
	if len(c.Counts) > 0 {
		fmt.Fprintf(&b, " counts=%v", c.Counts)
	}
	if len(c.RecvCounts) > 0 {
		fmt.Fprintf(&b, " rcounts=%v", c.RecvCounts)
	}
	if c.NewComm != None {
		fmt.Fprintf(&b, " newcomm=%d", c.NewComm)
	}
	if c.Err != 0 {
		fmt.Fprintf(&b, " err=%d", c.Err)
	}
	return b.String()
}

func rankString(r int32) string {
	switch r {
	case AnySource:
		return "any"
	case ProcNull:
		return "null"
	case Root:
		return "root"
	}
	return fmt.Sprint(r)
}

func tagString(t int32) string {
	if t == AnyTag {
		return "any"
	}
	return fmt.Sprint(t)
}

// Duration is End - Start in ns.
func (c *Call) Duration() int64 { return c.End - c.Start }

// NewCall returns a record of f from start to end with every other field
// absent (None, 0 or nil, and Polls 1): the start of a Call to give a
// Writer.
func NewCall(f Func, start, end int64) Call {
	var c Call
	c.Reset(f)
	c.Start, c.End = start, end
	return c
}

// Reset makes c an empty record of f (as NewCall makes it), keeping its
// slices' storage: importers fill a reused Call from it.
func (c *Call) Reset(f Func) {
	*c = Call{
		Func: f, Polls: 1,
		Comm: None, Peer: None, Tag: None, Root: None, RecvPeer: None, RecvTag: None, NewComm: None,
		Done: c.Done[:0], Counts: c.Counts[:0], RecvCounts: c.RecvCounts[:0],
	}
}

// Clone returns a copy of c that shares no storage with it (Reader.Next
// reuses a Call's slices); empty slices become nil.
func (c *Call) Clone() Call {
	d := *c
	d.Done = cloneOrNil(c.Done)
	d.Counts = cloneOrNil(c.Counts)
	d.RecvCounts = cloneOrNil(c.RecvCounts)
	return d
}

func cloneOrNil[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return slices.Clone(s)
}

// Comm is a communicator: its id and its members as world ranks.
type Comm struct {
	ID int32
	// Members holds the world rank of each rank of the communicator.
	Members []int32
	// Remote is the remote group of an intercommunicator, nil otherwise.
	Remote []int32
	// Local marks an id that only this rank uses for the communicator: one
	// created by a call the tracer does not wrap. Other ids are agreed by
	// all members, so the same communicator has the same id in every rank,
	// and two communicators with the same id and the same members are the
	// same.
	Local bool
}

// Size is the number of members.
func (c *Comm) Size() int { return len(c.Members) }

// Inter reports whether c is an intercommunicator.
func (c *Comm) Inter() bool { return c.Remote != nil }

// Rank returns the rank in c of world rank w, or -1.
func (c *Comm) Rank(w int32) int {
	if w >= 0 && int(w) < len(c.Members) && c.Members[w] == w {
		return int(w) // members in world order (the world, its dups): no search
	}
	return slices.Index(c.Members, w)
}

// EndReason says how a trace ended.
type EndReason uint8

// The reasons.
const (
	EndFinalize EndReason = 1 // MPI_Finalize
	EndExit     EndReason = 2 // the process exited without MPI_Finalize
	EndAbort    EndReason = 3 // MPI_Abort
)

func (e EndReason) String() string {
	switch e {
	case EndFinalize:
		return "MPI_Finalize"
	case EndExit:
		return "exit without MPI_Finalize"
	case EndAbort:
		return "MPI_Abort"
	}
	return fmt.Sprintf("EndReason(%d)", uint8(e))
}
