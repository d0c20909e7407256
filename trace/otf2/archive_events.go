package otf2

// Events: a location's event file NAME/L.evt. Record ids and the
// attributes read (see archive_defs.go for the notation; "·" marks the
// six records without a length):
//
//	10 BufferFlush                    stop time u64
//	11 MeasurementOnOff               mode u8 (1 on, 2 off)
//	12 Enter ·                        region c
//	13 Leave ·                        region c
//	14 MpiSend                        receiver c, comm c, tag c, length c
//	15 MpiIsend                       receiver c, comm c, tag c, length c, request c
//	16 MpiIsendComplete ·             request c
//	17 MpiIrecvRequest ·              request c
//	18 MpiRecv                        sender c, comm c, tag c, length c
//	19 MpiIrecv                       sender c, comm c, tag c, length c, request c
//	20 MpiRequestTest ·               request c
//	21 MpiRequestCancelled ·          request c
//	22 MpiCollectiveBegin             (none)
//	23 MpiCollectiveEnd               operation u8, comm c, root c, sent c, received c
//	85 NonBlockingCollectiveRequest   request c
//	86 NonBlockingCollectiveComplete  operation u8, comm c, root c, sent c,
//	                                  received c, request c
//	87 CommCreate                     comm c
//	88 CommDestroy                    comm c
//
// Senders, receivers and roots are ranks of the event's communicator;
// lengths and sizes are bytes. Every other record (metrics, threads,
// RMA, I/O, calling contexts, ...) is an event of kind Other with its
// record id.

import (
	"fmt"
	"io"
	"os"
)

// Kind is the kind of an event.
type Kind uint8

// Event kinds: the OTF2 event records the decoder reads.
const (
	Other Kind = iota // a record gopsim does not use (Event.Record says which)
	BufferFlush
	MeasurementOnOff
	Enter
	Leave
	MpiSend
	MpiIsend
	MpiIsendComplete
	MpiIrecvRequest
	MpiRecv
	MpiIrecv
	MpiRequestTest
	MpiRequestCancelled
	MpiCollectiveBegin
	MpiCollectiveEnd
	NonBlockingCollectiveRequest
	NonBlockingCollectiveComplete
	CommCreate
	CommDestroy
	numKinds
)

// kindNames are the names otf2-print gives the records.
var kindNames = [numKinds]string{
	"OTHER", "BUFFER_FLUSH", "MEASUREMENT_ON_OFF", "ENTER", "LEAVE", "MPI_SEND", "MPI_ISEND",
	"MPI_ISEND_COMPLETE", "MPI_IRECV_REQUEST", "MPI_RECV", "MPI_IRECV", "MPI_REQUEST_TEST",
	"MPI_REQUEST_CANCELLED", "MPI_COLLECTIVE_BEGIN", "MPI_COLLECTIVE_END",
	"NON_BLOCKING_COLLECTIVE_REQUEST", "NON_BLOCKING_COLLECTIVE_COMPLETE", "COMM_CREATE", "COMM_DESTROY",
}

func (k Kind) String() string {
	if k < numKinds {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// recordKinds maps event record ids to kinds.
var recordKinds = [256]Kind{
	10: BufferFlush, 11: MeasurementOnOff, 12: Enter, 13: Leave, 14: MpiSend, 15: MpiIsend,
	16: MpiIsendComplete, 17: MpiIrecvRequest, 18: MpiRecv, 19: MpiIrecv, 20: MpiRequestTest,
	21: MpiRequestCancelled, 22: MpiCollectiveBegin, 23: MpiCollectiveEnd,
	85: NonBlockingCollectiveRequest, 86: NonBlockingCollectiveComplete, 87: CommCreate, 88: CommDestroy,
}

// bareRecords are the event records without a length.
var bareRecords = [256]bool{12: true, 13: true, 16: true, 17: true, 20: true, 21: true}

// CollectiveOp is an OTF2 collective operation (OTF2_CollectiveOp).
type CollectiveOp uint8

// The collective operations of MPI (OTF2_COLLECTIVE_OP_*).
const (
	OpBarrier CollectiveOp = iota
	OpBcast
	OpGather
	OpGatherv
	OpScatter
	OpScatterv
	OpAllgather
	OpAllgatherv
	OpAlltoall
	OpAlltoallv
	OpAlltoallw
	OpAllreduce
	OpReduce
	OpReduceScatter
	OpScan
	OpExscan
	OpReduceScatterBlock
	OpCreateHandle
	OpDestroyHandle
	OpAllocate
	OpDeallocate
	OpCreateHandleAndAllocate
	OpDestroyHandleAndDeallocate
)

var opNames = [...]string{"BARRIER", "BCAST", "GATHER", "GATHERV", "SCATTER", "SCATTERV", "ALLGATHER",
	"ALLGATHERV", "ALLTOALL", "ALLTOALLV", "ALLTOALLW", "ALLREDUCE", "REDUCE", "REDUCE_SCATTER", "SCAN",
	"EXSCAN", "REDUCE_SCATTER_BLOCK", "CREATE_HANDLE", "DESTROY_HANDLE", "ALLOCATE", "DEALLOCATE",
	"CREATE_HANDLE_AND_ALLOCATE", "DESTROY_HANDLE_AND_DEALLOCATE"}

// String is the name otf2-print gives the operation.
func (op CollectiveOp) String() string {
	if int(op) < len(opNames) {
		return opNames[op]
	}
	return fmt.Sprintf("CollectiveOp(%d)", uint8(op))
}

// Event is one event of a location. Which fields are set depends on Kind:
//
//	Enter, Leave                          Region
//	MpiSend, MpiRecv                      Peer, Comm, Tag, Bytes
//	MpiIsend, MpiIrecv                    Peer, Comm, Tag, Bytes, Request
//	MpiIsendComplete, MpiIrecvRequest,
//	MpiRequestTest, MpiRequestCancelled,
//	NonBlockingCollectiveRequest          Request
//	MpiCollectiveEnd                      Op, Comm, Root, Sent, Received
//	NonBlockingCollectiveComplete         Op, Comm, Root, Sent, Received, Request
//	CommCreate, CommDestroy               Comm
//	MeasurementOnOff                      On
//	Other                                 Record
//
// Region and Comm are global ids (the location's mapping tables applied);
// Peer and Root are ranks of Comm (Root is Undefined when there is none).
type Event struct {
	Kind    Kind
	Record  uint8  // the record id
	Time    uint64 // ticks of the global clock (clock offsets applied)
	Offset  int64  // byte offset of the record in its file
	Region  uint32
	Comm    uint32
	Peer    uint32
	Root    uint32
	Tag     uint32
	Bytes   uint64
	Sent    uint64
	Recv    uint64
	Request uint64
	Op      CollectiveOp
	On      bool
}

// EventReader streams the events of one location.
type EventReader struct {
	c      *chunks
	local  *Local
	f      io.Closer
	time   uint64
	timed  bool   // a timestamp was read in this chunk
	count  uint64 // events read
	chunk  int64  // file offset of the current chunk, for the event numbers
	expect uint64 // the number the next chunk's first event must have
}

// Events opens location loc's event file (with its definition file for
// the mappings and clock offsets).
func (a *Archive) Events(loc uint64) (*EventReader, error) {
	l, err := a.openLocal(loc)
	if err != nil {
		return nil, err
	}
	path := a.LocationFile(loc, ".evt")
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("otf2: %w", err)
	}
	r := NewEventReader(path, f, a.Anchor.ChunkSizeEvents, l)
	r.f = f
	return r, nil
}

// NewEventReader reads the events of an event file from r, in chunks of
// chunkSize bytes, applying the mappings and clock offsets of l (nil:
// none); name names the file in errors.
func NewEventReader(name string, r io.Reader, chunkSize uint64, l *Local) *EventReader {
	if l == nil {
		l = &Local{}
	}
	return &EventReader{c: newChunks(name, r, chunkSize), local: l, chunk: -1, expect: 1}
}

// Count is the number of events read so far.
func (r *EventReader) Count() uint64 { return r.count }

// Close closes the event file.
func (r *EventReader) Close() error {
	if r.f != nil {
		return r.f.Close()
	}
	return nil
}

// Next decodes the next event into ev. It returns io.EOF after the last
// one, and a *ArchiveError (with the file and byte offset) for bad input.
func (r *EventReader) Next(ev *Event) error {
	c := r.c
	for {
		id, err := c.marker()
		if err != nil {
			return err
		}
		if c.base != r.chunk {
			if err := r.newChunk(); err != nil {
				return err
			}
		}
		switch id {
		case markEndData:
			if r.count != c.last && r.count > 0 {
				return c.errf(c.off(), "%d events read, the chunk header announces %d", r.count, c.last)
			}
			return io.EOF
		case markTime:
			if r.time, err = c.fixed64(); err != nil {
				return err
			}
			r.timed = true
			continue
		case markAttrs:
			if _, err := c.record(id); err != nil {
				return err
			}
			continue
		}
		if !r.timed {
			return c.errf(c.off()-1, "event record %d before any timestamp in its chunk", id)
		}
		var x rec
		if bareRecords[id] {
			x, err = c.bare(id)
		} else {
			x, err = c.record(id)
		}
		if err != nil {
			return err
		}
		r.count++
		r.decode(&x, ev)
		return x.err
	}
}

// newChunk checks the event numbers of a chunk just loaded.
func (r *EventReader) newChunk() error {
	c := r.c
	if c.first != r.expect || c.last+1 < c.first {
		return c.errf(c.base+2, "chunk of events %d to %d: expected the next event to be number %d", c.first, c.last, r.expect)
	}
	r.chunk, r.timed = c.base, false
	r.expect = c.last + 1
	return nil
}

// decode fills ev from the record x.
func (r *EventReader) decode(x *rec, ev *Event) {
	*ev = Event{Kind: recordKinds[x.id], Record: x.id, Time: r.local.correct(r.time), Offset: x.start, Root: Undefined}
	switch ev.Kind {
	case BufferFlush:
		x.u64()
	case MeasurementOnOff:
		ev.On = x.u8() == 1
	case Enter, Leave:
		ev.Region = uint32(r.local.regions.get(uint64(x.u32c())))
	case MpiSend, MpiRecv, MpiIsend, MpiIrecv:
		ev.Peer, ev.Comm, ev.Tag, ev.Bytes = x.u32c(), r.comm(x.u32c()), x.u32c(), x.u64c()
		if ev.Kind == MpiIsend || ev.Kind == MpiIrecv {
			ev.Request = x.u64c()
		}
	case MpiIsendComplete, MpiIrecvRequest, MpiRequestTest, MpiRequestCancelled, NonBlockingCollectiveRequest:
		ev.Request = x.u64c()
	case MpiCollectiveEnd, NonBlockingCollectiveComplete:
		ev.Op, ev.Comm, ev.Root, ev.Sent, ev.Recv = CollectiveOp(x.u8()), r.comm(x.u32c()), x.u32c(), x.u64c(), x.u64c()
		if ev.Kind == NonBlockingCollectiveComplete {
			ev.Request = x.u64c()
		}
	case CommCreate, CommDestroy:
		ev.Comm = r.comm(x.u32c())
	}
}

func (r *EventReader) comm(local uint32) uint32 {
	return uint32(r.local.comms.get(uint64(local)))
}
