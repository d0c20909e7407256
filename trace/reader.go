package trace

// This file decodes the per-rank files the tracer (trace/pmpi) writes.
// The tracer's header, trace/pmpi/gopsim_pmpi.h, has the same description.
//
// # Layout
//
// Integers are unsigned LEB128 varints ("uvarints", as encoding/binary's
// AppendUvarint writes them) unless said otherwise; a signed x is stored
// as the uvarint zigzag(x) = uint64(x<<1) ^ uint64(x>>63).
//
//	file    = magic version header record* end
//	magic   = 0x89 'G' 'P' 'T' 'R' '\r' '\n' 0x1a      (Magic)
//	version = uvarint                                (Version: 2; MinVersion 1)
//	header  = rank size flags t0 wall0 thread pid host library command
//	record  = call | comm | type | flush
//	call    = func mask start dur field*             (func 1..0xef)
//	comm    = 0xf0 id cflags csize member{csize} [rsize rmember{rsize}]
//	type    = 0xf2 id desc                          (version 2)
//	desc    = comb size lb extent [ni int{ni} na addr{na} nd desc{nd}]
//	flush   = 0xf1 start dur
//	end     = 0xff records reason
//
// Header: rank and size are the rank's MPI_COMM_WORLD rank and the world
// size (rank < size); flags is 0 in version 1; t0 is CLOCK_MONOTONIC in ns
// when the tracer started, just after the library's MPI_Init returned, and wall0
// CLOCK_REALTIME at the same moment; thread is the thread level MPI
// granted (0 single, 1 funneled, 2 serialized, 3 multiple); pid is the
// process id; host (the host name), library (the first line of
// MPI_Get_library_version) and command (the process's arguments,
// separated by spaces) are a uvarint length, at most 4096, and that many
// bytes (the tracer writes at most 1024).
//
// Call records. func is the MPI function (the Func constants, assigned in
// trace/pmpi/gen/spec.go and never reused). start is zigzag(start time -
// previous start time), where the previous start time is that of the
// previous call or flush record, or t0 for the first; dur is the end time
// minus the start time. Times are CLOCK_MONOTONIC in ns read just before
// and just after the PMPI call; the tracer's own work falls outside them,
// but for MPI_Init's record, which ends when the tracer has set itself up
// (after t0), so that its start-up is not the program's computation before
// its first call (since 2026-11-27; before, the record ended before t0).
// mask says which fields follow, in the order of its bits:
//
//	bit  field       encoding                    meaning
//	0    comm        uvarint                     communicator id (see comm records)
//	1    peer        zigzag                      destination or source as a world rank
//	2    tag         zigzag                      tag
//	3    bytes       uvarint                     bytes (see below)
//	4    type        uvarint size, zigzag extent the datatype those bytes are counted in
//	5    request     uvarint                     request created (Isend, Irecv, Ibcast, ...)
//	                                             or acted on (Cancel, Request_free); ids start at 1
//	6    done        uvarint n, n x completion   requests completed by Wait* or Test*
//	7    root        zigzag                      root as a rank of comm
//	8    polls       uvarint (>= 2)              calls this record stands for (absent: 1)
//	9    flag        (none)                      the flag of Test*, Iprobe was true
//	10   rpeer       zigzag                      Sendrecv: source as a world rank
//	11   rtag        zigzag                      Sendrecv: receive tag
//	12   rbytes      uvarint                     Sendrecv: bytes received
//	13   rtype       uvarint size, zigzag extent Sendrecv, Alltoallv: receive datatype
//	14   counts      uvarint n, n x uvarint      v-collectives: bytes per rank of comm
//	15   rcounts     uvarint n, n x uvarint      Alltoallv: bytes received per rank
//	16   newcomm     uvarint                     communicator created (Comm_dup, ...)
//	17   err         uvarint                     the MPI error code the call returned
//	18   dtype       uvarint                     version 2: type is a derived datatype: its type record's id
//	19   rdtype      uvarint                     version 2: the same for rtype
//
// Bits 20 and up are reserved (18 and up in version 1). Peers, roots and tags may be special:
// -2 is MPI_ANY_SOURCE (and MPI_ANY_TAG), -3 MPI_PROC_NULL, -4 MPI_ROOT.
// A call that returned an error has err and, for communication calls,
// nothing else.
//
// bytes is, per function: a send's message size (count times the size of
// its datatype); for Recv, Probe and Iprobe the size of the message
// received or found, from MPI_Get_count on the status (so the source and
// tag are the ones matched); for Irecv the posted size and source (the
// received ones are in its completion); for collectives the size the
// gopsim collective package calls Spec.Size: the buffer for Bcast,
// Reduce, Allreduce, Scan, Exscan and Reduce_scatter_block (its recvcount),
// the block each rank contributes for Allgather, Gather and Scatter, the
// block sent to each rank for Alltoall, and this rank's own block for
// Gatherv, Scatterv and Allgatherv, whose counts (at the root for Gatherv
// and Scatterv, everywhere for Allgatherv and Reduce_scatter) give every
// rank's block. Alltoallv has counts (sent to each rank) and rcounts.
//
// A completion is: uvarint id, a byte cflags, and if cflags bit 3 is set
// zigzag peer, zigzag tag and uvarint bytes, the source (world rank), tag
// and size of the message a receive got. cflags bits 0-1 give the request
// kind: 0 unknown (a request the tracer did not see created; id 0), 1
// send, 2 receive, 3 collective; bit 2 says the request was cancelled.
// Bits 4-7 are reserved.
//
// Polls. A call of Test, Testall, Testany, Testsome or Iprobe that finds
// nothing, followed by more such calls of the same function with the same
// comm, peer and tag and nothing else in between, is stored as one record:
// start of the first, end of the last, polls the number of calls. Such a
// record has no request fields.
//
// Comm records define a communicator before any record uses its id. id 0
// is MPI_COMM_WORLD and id 1 MPI_COMM_SELF, defined at the start. The
// tracer agrees on the id of a new communicator with its other members
// (the largest of their next free ids, by an MPI_Allreduce on the new
// communicator), so the same communicator has the same id in every rank
// and a rank never reuses an id. cflags bit 0 marks an intercommunicator
// (rsize and rmember, its remote group, follow), bit 1 an id local to
// the rank (a communicator created by a call the tracer does not wrap,
// registered on first use; 0x40000000 and up), bit 2 a communicator whose
// members are the world ranks 0..csize-1 (the members are then omitted).
// Members are world ranks in the order of their rank in the
// communicator: the first as a uvarint, each next one as zigzag(member -
// previous - 1), so consecutive ranks cost a byte each.
//
// Type records (version 2) describe a derived datatype before any record
// uses its id (ids start at 1, are the rank's own and never reused; a
// predefined datatype has none). The tracer writes one when
// MPI_Type_commit returns, or when a call first uses a derived datatype
// it has not seen (one from MPI_Type_dup, say), from
// MPI_Type_get_envelope and MPI_Type_get_contents: desc is the
// constructor comb (gopsim's codes, trace.Combiner: 0 named, 1 dup,
// 2 contiguous, 3 vector, 4 hvector, 5 indexed, 6 hindexed,
// 7 indexed_block, 8 hindexed_block, 9 struct, 10 subarray, 11 darray,
// 12 resized, 13 other), MPI_Type_size as a uvarint, the lower bound and
// extent of MPI_Type_get_extent as zigzags, and for every comb but named
// the integer (zigzag), address (zigzag) and datatype arguments of
// MPI_Type_get_contents in its order, each datatype a desc in turn. The
// order argument of subarray and darray is stored as 0 (C) or 1
// (Fortran). Descriptions nest at most 8 deep (deeper ones, and
// constructors not listed, are comb 13 with no arguments; readers accept
// 16). MPI_Type_commit records (type, dtype) and MPI_Type_free (dtype)
// are call records; the datatype constructors are not wrapped.
//
// Flush records note the time the tracer spent writing its buffer, which
// falls between calls and is not the application's computation.
//
// The end record counts the records before it (calls, comms, flushes) and
// gives the reason the trace ended: 1 MPI_Finalize, 2 exit without
// MPI_Finalize, 3 MPI_Abort. A file without it was cut short.
//
// # Design notes
//
// One file per rank, written by the rank alone: no coordination between
// ranks while tracing, and a rank's records are in the order it made the
// calls. The buffer is written whole when it fills, so the tracer costs a
// bounded amount of memory and one write per megabyte, and the flush
// records let a converter take that time out of the computation.
//
// Records, not columns. The tracer must encode a call in well under its
// budget of 200 ns, with no compression and no second pass, so a record
// is a few varints written in order. The mask costs one byte for most
// calls (the fields of point-to-point calls and of most collectives are
// bits 0-6) and absent fields cost nothing. Times are deltas: a start is
// a few bytes after the previous one and a duration rarely more than
// three. A point-to-point record takes 10 to 16 bytes.
//
// World ranks, not communicator ranks. A converter to GOAL needs world
// ranks, and the tracer knows the translation (it caches one table per
// communicator), so peers are stored as world ranks. Roots stay ranks of
// their communicator, as collective.Spec takes them.
//
// Agreed communicator ids. Matching the collectives of different ranks
// needs a name for a communicator that all its members share; the
// tracer's extra MPI_Allreduce when a communicator is created (rare
// compared to communication) gives it, where local counters would not.
//
// Datatypes as constructed, not as flattened. A type record keeps what
// MPI_Type_get_contents says (a vector's count, blocklength and stride,
// a subarray's sizes), once per datatype, not per call: it costs the
// tracer one MPI_Type_get_envelope per datatype handle it has not seen
// and a lookup per call, and leaves the reading (TypeDef.Layout, the
// stride log3P charges for) to Go, where it can change without tracing
// again.
//
// Strict decoding. The reader checks what a converter would otherwise
// have to: communicators are defined before use, peers are world ranks,
// counts have one entry per rank of their communicator, requests complete
// at most once and after they were created. Every count is read element
// by element, so a damaged length costs an error at the end of the file,
// not an allocation.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"time"

	"github.com/gopsim/gopsim/sim"
)

// Versions of the format, one line each. Readers accept MinVersion
// through Version.
//
//	1: the layout described at the top of reader.go, without type records and mask bits 18 and 19.
//	2: type records (0xf2) describe derived datatypes; mask bits 18 (dtype) and 19 (rdtype) name them.
const (
	Version    = 2
	MinVersion = 1
)

// Magic starts every trace file.
var Magic = []byte{0x89, 'G', 'P', 'T', 'R', '\r', '\n', 0x1a}

// ErrFormat is what every error about a malformed trace file unwraps to.
var ErrFormat = errors.New("trace: malformed trace file")

// FormatError is a malformed trace file. It unwraps to ErrFormat and to
// its cause (io.ErrUnexpectedEOF for a file cut short).
type FormatError struct {
	File   string // the file's name, if known
	Offset int64  // byte offset of the field at fault
	Err    error
}

func (e *FormatError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("trace: byte %d: %v", e.Offset, e.Err)
	}
	return fmt.Sprintf("trace: %s: byte %d: %v", e.File, e.Offset, e.Err)
}

func (e *FormatError) Unwrap() []error { return []error{ErrFormat, e.Err} }

// Record kinds beyond the function ids, and the mask bits.
const (
	maxFuncID = 0xef
	recComm   = 0xf0
	recFlush  = 0xf1
	recType   = 0xf2
	recEnd    = 0xff

	fComm    = 1 << 0
	fPeer    = 1 << 1
	fTag     = 1 << 2
	fBytes   = 1 << 3
	fType    = 1 << 4
	fRequest = 1 << 5
	fDone    = 1 << 6
	fRoot    = 1 << 7
	fPolls   = 1 << 8
	fFlag    = 1 << 9
	fRPeer   = 1 << 10
	fRTag    = 1 << 11
	fRBytes  = 1 << 12
	fRType   = 1 << 13
	fCounts  = 1 << 14
	fRCounts = 1 << 15
	fNewComm = 1 << 16
	fErr     = 1 << 17
	fDType   = 1 << 18 // version 2
	fRDType  = 1 << 19 // version 2
	// Bits a version does not define.
	fReserved1 = ^uint64(1<<18 - 1)
	fReserved  = ^uint64(1<<20 - 1)

	doneKind      = 0x03
	doneCancelled = 0x04
	doneStatus    = 0x08
	doneReserved  = 0xf0

	cflagInter    = 1
	cflagLocal    = 2
	cflagWorld    = 4
	cflagReserved = ^uint64(7)

	maxString    = 4096
	maxRanks     = 1 << 24 // world sizes beyond are rejected
	maxDur       = 1 << 62
	maxThreadL   = 3
	maxTypeArgs  = 1 << 24 // arguments per array of a datatype description
	maxTypeDepth = 16      // nesting of datatype descriptions (the tracer writes 8)
)

// Header is what a trace file states before its records.
type Header struct {
	Version int
	Rank    int   // the rank's MPI_COMM_WORLD rank
	Size    int   // MPI_COMM_WORLD's size
	T0      int64 // CLOCK_MONOTONIC in ns when tracing started, inside the traced MPI_Init (its record ends after T0)
	// Wall0 is the wall clock at T0 (ns since the Unix epoch): the ranks'
	// monotonic clocks are comparable on one node only.
	Wall0   int64
	Thread  int // thread level granted: 0 single, 1 funneled, 2 serialized, 3 multiple
	PID     int
	Host    string
	Library string // MPI_Get_library_version's first line
	Command string // the process's command line, arguments separated by spaces
}

// Time returns Wall0 as a time.Time.
func (h *Header) Time() time.Time { return time.Unix(0, h.Wall0) }

// pending is a request created and not yet completed.
type pending struct {
	fn        Func
	comm      int32
	peer, tag int32
	bytes     int64
	kind      ReqKind
}

// Reader reads one rank's trace file record by record.
type Reader struct {
	in   inbuf
	name string
	c    io.Closer
	off  int64
	h    Header

	prev    int64 // start time of the previous call or flush record
	records uint64
	comms   map[int32]*Comm
	order   []*Comm // in the order of definition
	types   map[uint32]*TypeDef
	torder  []*TypeDef // in the order of definition
	reqs    map[uint64]pending
	end     EndReason
	err     error   // sticky
	ident   []int32 // 0, 1, 2, ...: the members of world-like communicators
	// callOff is the byte offset of the call or flush record Next
	// returned last (records is its number).
	callOff int64
}

// NewReader reads the magic, version and header from r and returns a
// Reader for the records. name, if not empty, is the file name errors
// give.
func NewReader(r io.Reader, name string) (*Reader, error) {
	tr := &Reader{in: inbuf{rd: r, buf: make([]byte, inbufSize)}, name: name, comms: map[int32]*Comm{}, reqs: map[uint64]pending{},
		types: map[uint32]*TypeDef{}}
	if err := tr.readHeader(); err != nil {
		return nil, err
	}
	return tr, nil
}

// Open opens the trace file at path; Close closes it.
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	r, err := NewReader(f, path)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.c = f
	return r, nil
}

// Close closes the file Open opened; it does nothing for a NewReader.
func (r *Reader) Close() error {
	if r.c == nil {
		return nil
	}
	err := r.c.Close()
	r.c = nil
	return err
}

// Header returns the file's header.
func (r *Reader) Header() Header { return r.h }

// Comm returns the communicator id as defined so far in the file, or nil.
// Every id a record returned by Next uses is defined.
func (r *Reader) Comm(id int32) *Comm { return r.comms[id] }

// Comms returns the communicators defined so far, in the order of their
// definition; after the last record, the rank's communicator table.
func (r *Reader) Comms() []*Comm { return r.order }

// TypeDef returns the derived datatype with id as defined so far in the
// file, or nil. Every id a record returned by Next uses is defined.
func (r *Reader) TypeDef(id uint32) *TypeDef { return r.types[id] }

// TypeDefs returns the derived datatypes defined so far, in the order of
// their definition (none in a version 1 file).
func (r *Reader) TypeDefs() []*TypeDef { return r.torder }

// End returns how the trace ended, once Next has returned io.EOF.
func (r *Reader) End() EndReason { return r.end }

// Offset returns the number of bytes decoded so far.
func (r *Reader) Offset() int64 { return r.off }

func (r *Reader) fail(off int64, err error) error {
	return &FormatError{File: r.name, Offset: off, Err: err}
}

func (r *Reader) failf(off int64, format string, args ...any) error {
	return r.fail(off, fmt.Errorf(format, args...))
}

func (r *Reader) ioErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return r.fail(r.off, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("trace: reading %s at byte %d: %w", r.name, r.off, err)
}

func (r *Reader) byte1() (byte, error) {
	if in := &r.in; in.pos < in.end {
		c := in.buf[in.pos]
		in.pos++
		r.off++
		return c, nil
	}
	c, err := r.in.ReadByte()
	if err != nil {
		return 0, r.ioErr(err)
	}
	r.off++
	return c, nil
}

func (r *Reader) uv(what string) (uint64, error) {
	if in := &r.in; in.end-in.pos >= binary.MaxVarintLen64 {
		// The whole varint is in the buffer: decode it there. A varint
		// that overflows (n < 0) is reported below.
		if x, n := binary.Uvarint(in.buf[in.pos:in.end]); n > 0 {
			in.pos += n
			r.off += int64(n)
			return x, nil
		}
	}
	start := r.off
	var x uint64
	for i := 0; ; i++ {
		c, err := r.byte1()
		if err != nil {
			return 0, err
		}
		if i == 9 && c > 1 {
			return 0, r.failf(start, "%s: varint overflows 64 bits", what)
		}
		if c < 0x80 {
			return x | uint64(c)<<(7*i), nil
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
}

func (r *Reader) zz(what string) (int64, error) {
	u, err := r.uv(what)
	return int64(u>>1) ^ -int64(u&1), err
}

// uvMax reads a uvarint no larger than max.
func (r *Reader) uvMax(what string, max uint64) (uint64, error) {
	off := r.off
	v, err := r.uv(what)
	if err == nil && v > max {
		err = r.failf(off, "%s %d, more than %d", what, v, max)
	}
	return v, err
}

// int32Field reads a zigzag value that fits an int32.
func (r *Reader) int32Field(what string) (int32, int64, error) {
	off := r.off
	v, err := r.zz(what)
	if err != nil {
		return 0, off, err
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, off, r.failf(off, "%s %d outside int32", what, v)
	}
	return int32(v), off, nil
}

// rank reads a world rank: 0..size-1, or one of the specials allowed.
func (r *Reader) rank(what string, specials ...int32) (int32, error) {
	v, off, err := r.int32Field(what)
	if err != nil {
		return 0, err
	}
	if v >= 0 && int(v) < r.h.Size {
		return v, nil
	}
	for _, s := range specials {
		if v == s {
			return v, nil
		}
	}
	return 0, r.failf(off, "%s %d is not a world rank (size %d)", what, v, r.h.Size)
}

func (r *Reader) tag(what string) (int32, error) {
	v, off, err := r.int32Field(what)
	if err == nil && v < 0 && v != AnyTag {
		err = r.failf(off, "%s %d", what, v)
	}
	return v, err
}

func (r *Reader) str(what string) (string, error) {
	n, err := r.uvMax(what+" length", maxString)
	if err != nil {
		return "", err
	}
	b := make([]byte, n)
	k, err := io.ReadFull(&r.in, b)
	r.off += int64(k)
	if err != nil {
		return "", r.ioErr(err)
	}
	return string(b), nil
}

func (r *Reader) readHeader() error {
	var magic [8]byte
	n, err := io.ReadFull(&r.in, magic[:])
	r.off = int64(n)
	if string(magic[:n]) != string(Magic[:n]) || n == 0 {
		return r.failf(0, "bad magic % x: not a gopsim trace file", magic[:n])
	}
	if err != nil {
		return r.ioErr(err)
	}
	off := r.off
	v, err := r.uv("version")
	if err != nil {
		return err
	}
	if v < MinVersion || v > Version {
		return r.failf(off, "format version %d; this reader reads versions %d through %d", v, MinVersion, Version)
	}
	r.h.Version = int(v)
	rank, err := r.uv("rank")
	if err != nil {
		return err
	}
	off = r.off
	size, err := r.uvMax("size", maxRanks)
	if err != nil {
		return err
	}
	if rank >= size {
		return r.failf(off, "rank %d in a world of %d ranks", rank, size)
	}
	r.h.Rank, r.h.Size = int(rank), int(size)
	off = r.off
	flags, err := r.uv("flags")
	if err != nil {
		return err
	}
	if flags != 0 {
		return r.failf(off, "unknown header flags %#x in version %d", flags, v)
	}
	t0, err := r.uvMax("t0", math.MaxInt64)
	if err != nil {
		return err
	}
	wall, err := r.uvMax("wall0", math.MaxInt64)
	if err != nil {
		return err
	}
	thread, err := r.uvMax("thread level", maxThreadL)
	if err != nil {
		return err
	}
	pid, err := r.uvMax("pid", math.MaxInt32)
	if err != nil {
		return err
	}
	r.h.T0, r.h.Wall0, r.h.Thread, r.h.PID = int64(t0), int64(wall), int(thread), int(pid)
	if r.h.Host, err = r.str("host"); err != nil {
		return err
	}
	if r.h.Library, err = r.str("library"); err != nil {
		return err
	}
	r.h.Library = sim.LibraryName(r.h.Library)
	if r.h.Command, err = r.str("command"); err != nil {
		return err
	}
	r.prev = r.h.T0
	return nil
}

// Next fills c with the next call record (or FuncFlush record), reusing
// c's slices: Clone a Call to keep it past the next call of Next. Comm
// records are taken into the communicator table on the way. After the end
// record Next returns io.EOF; an error other than io.EOF is final, and a
// malformed file gives a *FormatError.
func (r *Reader) Next(c *Call) error {
	if r.err != nil {
		return r.err
	}
	for {
		done, err := r.next(c)
		if err != nil {
			r.err = err
			return err
		}
		if done {
			return nil
		}
	}
}

// next decodes one record; done is false for a comm record.
func (r *Reader) next(c *Call) (done bool, err error) {
	off := r.off
	k, err := r.in.ReadByte()
	if err == io.EOF {
		return false, r.failf(off, "%w: the file ends without an end record (the rank was killed, or is still running)", io.ErrUnexpectedEOF)
	}
	if err != nil {
		return false, r.ioErr(err)
	}
	r.off++
	switch {
	case k == recEnd:
		return false, r.readEnd(off)
	case k == recComm:
		r.records++
		return false, r.readComm()
	case k == recType && r.h.Version >= 2:
		r.records++
		return false, r.readType()
	case k == recFlush:
		c.Reset(FuncFlush)
		r.records++
		r.callOff = off
		return true, r.readTimes(c)
	case k == 0 || k > maxFuncID || !Func(k).Known():
		return false, r.failf(off, "unknown record kind %#02x", k)
	}
	c.Reset(Func(k))
	r.records++
	r.callOff = off
	return true, r.readCall(c, off)
}

func (r *Reader) readEnd(off int64) error {
	n, err := r.uv("record count")
	if err != nil {
		return err
	}
	if n != r.records {
		return r.failf(off, "the end record counts %d records, the file has %d", n, r.records)
	}
	roff := r.off
	reason, err := r.uv("end reason")
	if err != nil {
		return err
	}
	if reason < uint64(EndFinalize) || reason > uint64(EndAbort) {
		return r.failf(roff, "unknown end reason %d", reason)
	}
	if _, err := r.in.ReadByte(); err != io.EOF {
		if err != nil {
			return r.ioErr(err)
		}
		return r.failf(r.off, "data after the end record")
	}
	r.end = EndReason(reason)
	return io.EOF
}

func (r *Reader) readTimes(c *Call) error {
	d, err := r.zz("start")
	if err != nil {
		return err
	}
	dur, err := r.uvMax("duration", maxDur)
	if err != nil {
		return err
	}
	c.Start = r.prev + d
	c.End = c.Start + int64(dur)
	r.prev = c.Start
	return nil
}

func (r *Reader) members(what string, n int) ([]int32, error) {
	m := make([]int32, 0, min(n, 1024)) // n is checked, but not yet read
	for i := 0; i < n; i++ {
		off := r.off
		var w int64
		if i == 0 {
			u, err := r.uv(what)
			if err != nil {
				return nil, err
			}
			w = int64(min(u, math.MaxInt64))
		} else {
			d, err := r.zz(what)
			if err != nil {
				return nil, err
			}
			w = int64(m[i-1]) + 1 + d
		}
		if w < 0 || w >= int64(r.h.Size) {
			return nil, r.failf(off, "%s %d is not a world rank (size %d)", what, w, r.h.Size)
		}
		m = append(m, int32(w))
	}
	sorted := slices.Clone(m)
	slices.Sort(sorted)
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return nil, r.failf(r.off, "%s: world rank %d twice", what, sorted[i])
		}
	}
	return m, nil
}

// identity returns the members 0..n-1, sharing one slice between all the
// communicators of the file.
func (r *Reader) identity(n int) []int32 {
	if len(r.ident) < n {
		r.ident = make([]int32, n)
		for i := range r.ident {
			r.ident[i] = int32(i)
		}
	}
	return r.ident[:n:n]
}

func (r *Reader) readComm() error {
	off := r.off
	id, err := r.uvMax("communicator id", math.MaxInt32)
	if err != nil {
		return err
	}
	if r.comms[int32(id)] != nil {
		return r.failf(off, "communicator %d defined twice", id)
	}
	foff := r.off
	flags, err := r.uv("communicator flags")
	if err != nil {
		return err
	}
	if flags&cflagReserved != 0 {
		return r.failf(foff, "unknown communicator flags %#x", flags)
	}
	soff := r.off
	n, err := r.uvMax("communicator size", uint64(r.h.Size))
	if err != nil {
		return err
	}
	if n == 0 {
		return r.failf(soff, "empty communicator")
	}
	c := &Comm{ID: int32(id), Local: flags&cflagLocal != 0}
	if flags&cflagWorld != 0 {
		c.Members = r.identity(int(n))
	} else if c.Members, err = r.members("member", int(n)); err != nil {
		return err
	}
	if flags&cflagInter != 0 {
		roff := r.off
		rn, err := r.uvMax("remote group size", uint64(r.h.Size))
		if err != nil {
			return err
		}
		if rn == 0 {
			return r.failf(roff, "empty remote group")
		}
		if c.Remote, err = r.members("remote member", int(rn)); err != nil {
			return err
		}
	}
	r.comms[c.ID] = c
	r.order = append(r.order, c)
	return nil
}

func (r *Reader) commField(what string) (int32, *Comm, error) {
	off := r.off
	id, err := r.uvMax(what, math.MaxInt32)
	if err != nil {
		return 0, nil, err
	}
	cm := r.comms[int32(id)]
	if cm == nil {
		return 0, nil, r.failf(off, "%s %d used before its definition", what, id)
	}
	return int32(id), cm, nil
}

// field holds the names, for messages, of a call's field and of its parts,
// built once: building them on every call cost an allocation per call.
type field struct{ name, size, extent, length, id string }

func newField(name string) field {
	return field{name, name + " size", name + " extent", name + " length", name + " id"}
}

var (
	sendTypeField   = newField("datatype")
	recvTypeField   = newField("receive datatype")
	sendCountsField = newField("counts")
	recvCountsField = newField("receive counts")
)

func (r *Reader) datatype(f field) (Datatype, error) {
	size, err := r.uvMax(f.size, math.MaxInt64)
	if err != nil {
		return Datatype{}, err
	}
	ext, err := r.zz(f.extent)
	return Datatype{Size: int64(size), Extent: ext}, err
}

func (r *Reader) counts(dst []int64, f field, cm *Comm, off int64) ([]int64, error) {
	what := f.name
	if cm == nil {
		return nil, r.failf(off, "%s without a communicator", what)
	}
	want := len(cm.Members)
	if cm.Inter() {
		want = len(cm.Remote)
	}
	noff := r.off
	n, err := r.uv(f.length)
	if err != nil {
		return nil, err
	}
	if n != uint64(want) {
		return nil, r.failf(noff, "%d %s for a communicator of %d ranks", n, what, want)
	}
	for range n {
		v, err := r.uvMax(what, math.MaxInt64)
		if err != nil {
			return nil, err
		}
		dst = append(dst, int64(v))
	}
	return dst, nil
}

func (r *Reader) readCall(c *Call, off int64) error {
	moff := r.off
	m, err := r.uv("mask")
	if err != nil {
		return err
	}
	reserved := fReserved
	if r.h.Version < 2 {
		reserved = fReserved1
	}
	if m&reserved != 0 {
		return r.failf(moff, "unknown fields %#x in the mask of a version %d file", m&reserved, r.h.Version)
	}
	if err := r.readTimes(c); err != nil {
		return err
	}
	var cm *Comm
	if m&fComm != 0 {
		if c.Comm, cm, err = r.commField("communicator"); err != nil {
			return err
		}
	}
	if m&fPeer != 0 {
		if c.Peer, err = r.rank("peer", AnySource, ProcNull); err != nil {
			return err
		}
	}
	if m&fTag != 0 {
		if c.Tag, err = r.tag("tag"); err != nil {
			return err
		}
	}
	if m&fBytes != 0 {
		v, err := r.uvMax("bytes", math.MaxInt64)
		if err != nil {
			return err
		}
		c.Bytes = int64(v)
	}
	if m&fType != 0 {
		if c.Type, err = r.datatype(sendTypeField); err != nil {
			return err
		}
	}
	if m&fRequest != 0 {
		roff := r.off
		if c.Request, err = r.uv("request"); err != nil {
			return err
		}
		if c.Request == 0 {
			return r.failf(roff, "request id 0")
		}
	}
	if m&fDone != 0 {
		if err := r.readDone(c); err != nil {
			return err
		}
	}
	if m&fRoot != 0 {
		roff := r.off
		v, _, err := r.int32Field("root")
		if err != nil {
			return err
		}
		switch {
		case v == ProcNull || v == Root:
		case v < 0 || cm == nil || (!cm.Inter() && int(v) >= len(cm.Members)) || (cm.Inter() && int(v) >= len(cm.Remote)):
			return r.failf(roff, "root %d is not a rank of the call's communicator", v)
		}
		c.Root = v
	}
	if m&fPolls != 0 {
		poff := r.off
		if c.Polls, err = r.int64Field("polls"); err != nil {
			return err
		}
		if c.Polls < 2 {
			return r.failf(poff, "a run of %d polls", c.Polls)
		}
	}
	c.Flag = m&fFlag != 0
	if m&fRPeer != 0 {
		if c.RecvPeer, err = r.rank("receive peer", AnySource, ProcNull); err != nil {
			return err
		}
	}
	if m&fRTag != 0 {
		if c.RecvTag, err = r.tag("receive tag"); err != nil {
			return err
		}
	}
	if m&fRBytes != 0 {
		if c.RecvBytes, err = r.int64Field("receive bytes"); err != nil {
			return err
		}
	}
	if m&fRType != 0 {
		if c.RecvType, err = r.datatype(recvTypeField); err != nil {
			return err
		}
	}
	if m&fCounts != 0 {
		if c.Counts, err = r.counts(c.Counts, sendCountsField, cm, r.off); err != nil {
			return err
		}
	}
	if m&fRCounts != 0 {
		if c.RecvCounts, err = r.counts(c.RecvCounts, recvCountsField, cm, r.off); err != nil {
			return err
		}
	}
	if m&fNewComm != 0 {
		if c.NewComm, _, err = r.commField("new communicator"); err != nil {
			return err
		}
	}
	if m&fErr != 0 {
		eoff := r.off
		v, err := r.uvMax("error code", math.MaxInt32)
		if err != nil {
			return err
		}
		if v == 0 {
			return r.failf(eoff, "error code 0 (MPI_SUCCESS)")
		}
		c.Err = int32(v)
	}
	if m&fDType != 0 {
		if c.Type, err = r.typeField(sendTypeField, c.Type, c.Bytes, c.Counts); err != nil {
			return err
		}
	}
	if m&fRDType != 0 {
		if c.RecvType, err = r.typeField(recvTypeField, c.RecvType, c.RecvBytes, c.RecvCounts); err != nil {
			return err
		}
	}
	return r.track(c, off)
}

func (r *Reader) int64Field(what string) (int64, error) {
	v, err := r.uvMax(what, math.MaxInt64)
	return int64(v), err
}

func (r *Reader) readDone(c *Call) error {
	n, err := r.uv("completion count")
	if err != nil {
		return err
	}
	for range n {
		var d Completion
		ioff := r.off
		if d.Request, err = r.uv("completed request"); err != nil {
			return err
		}
		foff := r.off
		f, err := r.byte1()
		if err != nil {
			return err
		}
		if f&doneReserved != 0 {
			return r.failf(foff, "unknown completion flags %#02x", f)
		}
		d.Kind = ReqKind(f & doneKind)
		d.Cancelled = f&doneCancelled != 0
		if (d.Request == 0) != (d.Kind == ReqUnknown) {
			return r.failf(ioff, "completed request %d of kind %s", d.Request, d.Kind)
		}
		d.Peer, d.Tag, d.Comm = None, None, None
		status := d.Kind == ReqRecv && !d.Cancelled
		if (f&doneStatus != 0) != status {
			return r.failf(foff, "a completed %s request (cancelled %v) with status %v", d.Kind, d.Cancelled, f&doneStatus != 0)
		}
		if status {
			if d.Peer, err = r.rank("completion source", ProcNull); err != nil {
				return err
			}
			if d.Tag, err = r.tag("completion tag"); err != nil {
				return err
			}
			if d.Bytes, err = r.int64Field("completion bytes"); err != nil {
				return err
			}
		}
		c.Done = append(c.Done, d)
	}
	return nil
}

// track follows the requests: it fills the completions from the calls that
// created their requests and checks that each completes once.
func (r *Reader) track(c *Call, off int64) error {
	if c.Err != 0 {
		return nil
	}
	switch c.Func.Class() {
	case ClassIsend, ClassIrecv, ClassICollective:
		if c.Request == 0 {
			return nil // MPI_REQUEST_NULL
		}
		if _, dup := r.reqs[c.Request]; dup {
			return r.failf(off, "request %d created twice", c.Request)
		}
		p := pending{fn: c.Func, comm: c.Comm, peer: None, tag: None, kind: ReqCollective}
		switch c.Func.Class() {
		case ClassIsend:
			p.kind, p.peer, p.tag, p.bytes = ReqSend, c.Peer, c.Tag, c.Bytes
		case ClassIrecv:
			p.kind = ReqRecv
		}
		r.reqs[c.Request] = p
	case ClassCancel:
		if _, ok := r.reqs[c.Request]; c.Request != 0 && !ok {
			return r.failf(off, "%s of request %d, which is not pending", c.Func, c.Request)
		}
	case ClassRequestFree:
		if c.Request == 0 {
			return nil
		}
		if _, ok := r.reqs[c.Request]; !ok {
			return r.failf(off, "%s of request %d, which is not pending", c.Func, c.Request)
		}
		delete(r.reqs, c.Request)
	}
	for i := range c.Done {
		d := &c.Done[i]
		if d.Request == 0 {
			continue
		}
		p, ok := r.reqs[d.Request]
		if !ok {
			return r.failf(off, "request %d completed but not pending", d.Request)
		}
		if p.kind != d.Kind {
			return r.failf(off, "request %d created as %s completed as %s", d.Request, p.kind, d.Kind)
		}
		delete(r.reqs, d.Request)
		d.Func, d.Comm = p.fn, p.comm
		if d.Kind == ReqSend {
			d.Peer, d.Tag, d.Bytes = p.peer, p.tag, p.bytes
		}
	}
	return nil
}

// typeField reads the id of a call's derived datatype d and fills in d's
// ID and the Stride of the call's data: bytes of it, or the largest of
// counts (none without d's size: MPI_Type_free records only the id).
func (r *Reader) typeField(f field, d Datatype, bytes int64, counts []int64) (Datatype, error) {
	what := f.name
	off := r.off
	id, err := r.uvMax(f.id, math.MaxUint32)
	if err != nil {
		return d, err
	}
	def := r.types[uint32(id)]
	if def == nil {
		return d, r.failf(off, "%s %d used before its definition", what, id)
	}
	d.ID = uint32(id)
	if bytes == 0 && len(counts) > 0 {
		bytes = slices.Max(counts)
	}
	if d.Size > 0 {
		d.Stride = strideOf(def, bytes/d.Size)
	}
	return d, nil
}

// readType reads a type record: a derived datatype's id and description.
func (r *Reader) readType() error {
	off := r.off
	id, err := r.uvMax("datatype id", math.MaxUint32)
	if err != nil {
		return err
	}
	if id == 0 {
		return r.failf(off, "datatype id 0")
	}
	if r.types[uint32(id)] != nil {
		return r.failf(off, "datatype %d defined twice", id)
	}
	coff := r.off
	t, err := r.typeDesc(0)
	if err != nil {
		return err
	}
	if t.Combiner == CombinerNamed {
		return r.failf(coff, "datatype %d is a predefined datatype", id)
	}
	t.ID = uint32(id)
	t.element() // computed once, here
	r.types[t.ID] = t
	r.torder = append(r.torder, t)
	return nil
}

// typeDesc reads a datatype description nested depth levels deep.
func (r *Reader) typeDesc(depth int) (*TypeDef, error) {
	off := r.off
	if depth > maxTypeDepth {
		return nil, r.failf(off, "datatype description nested more than %d deep", maxTypeDepth)
	}
	comb, err := r.uvMax("datatype combiner", uint64(numCombiners-1))
	if err != nil {
		return nil, err
	}
	t := &TypeDef{Combiner: Combiner(comb)}
	size, err := r.uvMax("datatype size", math.MaxInt64)
	if err != nil {
		return nil, err
	}
	t.Size = int64(size)
	if t.LB, err = r.zz("datatype lower bound"); err != nil {
		return nil, err
	}
	if t.Extent, err = r.zz("datatype extent"); err != nil {
		return nil, err
	}
	if t.Combiner == CombinerNamed {
		return t, nil
	}
	n, err := r.uvMax("datatype integer count", maxTypeArgs)
	if err != nil {
		return nil, err
	}
	for range n {
		v, _, err := r.int32Field("datatype integer")
		if err != nil {
			return nil, err
		}
		t.Ints = append(t.Ints, int64(v))
	}
	if n, err = r.uvMax("datatype address count", maxTypeArgs); err != nil {
		return nil, err
	}
	for range n {
		v, err := r.zz("datatype address")
		if err != nil {
			return nil, err
		}
		t.Addrs = append(t.Addrs, v)
	}
	if n, err = r.uvMax("datatype count", maxTypeArgs); err != nil {
		return nil, err
	}
	for range n {
		sub, err := r.typeDesc(depth + 1)
		if err != nil {
			return nil, err
		}
		t.Types = append(t.Types, sub)
	}
	if t.Combiner == CombinerOther && (len(t.Ints) > 0 || len(t.Addrs) > 0 || len(t.Types) > 0) {
		return nil, r.failf(off, "a datatype of combiner %s with arguments", t.Combiner)
	}
	return t, nil
}
