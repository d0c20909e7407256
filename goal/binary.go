package goal

// This file implements the binary form of a GOAL schedule: the same
// content as the text form (ranks, ops, dependency edges and labels),
// compact, checksummed and quick to decode.
//
// # Layout
//
// Integers are unsigned varints ("uvarints", as encoding/binary's
// AppendUvarint writes them) unless said otherwise, and
// zigzag(x) = uint64(x<<1) ^ uint64(x>>63) maps a signed x to one.
//
//	file    = magic version header chunk* end
//	magic   = 0x89 'G' 'O' 'A' 'L' '\r' '\n' 0x1a      (BinaryMagic)
//	version = uvarint                                (BinaryVersion)
//	header  = num_ranks num_cpus num_nics flags      (uvarints)
//	chunk   = comp_len first_rank rank_count frame   (comp_len > 0)
//	end     = 0x00                                   (comp_len 0)
//
// num_ranks is at most MaxRanks; num_cpus and num_nics, the CPUs and NICs
// of every rank, are in 1..65536, and every op's cpu (nic) is below
// num_cpus (num_nics). flags is reserved and 0 in version 1; a reader
// rejects bits it does not know.
//
// A chunk holds the rank blocks of ranks first_rank through
// first_rank+rank_count-1, back to back, in one zstd frame (RFC 8878) of
// comp_len bytes. The chunks of a file cover ranks 0..num_ranks-1 in
// order, each holding at least one rank, and the end marker follows the
// last. The frame states its content size, at most 2^32 bytes, and has no
// dictionary. Writers make it a single segment (which always states its
// size) with a content checksum, and end a chunk once its decompressed
// size reaches 1 MiB.
//
// Inside a frame, a rank block of rank r stores its ops column by
// column, each column in op order:
//
//	block   = op_count opflags{op_count} size{op_count} peer* tag* cpu* nic*
//	          succ_count{op_count} edge* label_count label*
//	label   = gap name_len name
//
// opflags is one byte per op:
//
//	bits 0-1  kind: 1 send, 2 recv, 3 calc
//	bit 2     tag follows
//	bit 3     tag is AnyTag
//	bit 4     peer is AnySource (recv only)
//	bit 5     cpu follows
//	bit 6     nic follows (not on calc)
//	bit 7     reserved, 0
//
// Writers set bits 2, 5 and 6 only for a nonzero tag (other than AnyTag),
// cpu and nic; an absent one is 0. Bits 2 and 3 exclude each other, and
// calc has neither a tag nor a nic.
//
// size is the op's size. peer holds one value for each send, and for each
// recv without bit 4: its peer relative to its own rank r,
// uvarint((peer - r) mod num_ranks). A calc has no peer. tag, cpu and nic
// hold a value for each op with bit 2, 5 and 6. succ_count is the number
// of the op's dependency edges (those it is the predecessor of), and edge
// holds the edges of op 0, then op 1, and so on, each as
// uvarint(zigzag(succ - op) << 1 | irequires): succ and op are indexes
// within the block and irequires is 1 for an irequires edge. An op's
// edges keep their order.
//
// The labels are the exceptions to CanonicalLabel, by increasing op index:
// gap is the op index minus one minus the previous exception's (minus 0
// for the first), and name is name_len bytes, possibly 0 (an op without a
// label).
//
// # Design notes
//
// Chunks. A schedule can be much larger than memory allows to hold twice,
// so writers and readers stream it rank block by rank block and hold at
// most one chunk. A chunk is an independent zstd frame that names its
// first rank and its length, so a reader can skip chunks, or decode them
// in parallel, without decompressing what comes before; its size, 1 MiB
// decompressed, is large enough for zstd to find the repetition between
// ranks and small enough to keep memory low. The explicit end marker
// makes a file cut at a chunk boundary an error rather than a shorter
// schedule, and rank_count checks that chunks do not go missing.
//
// Relative peers. Collectives are built from rank-symmetric patterns: in
// a ring, in a dissemination barrier or in pairwise exchange, every rank
// talks to r+d for the same distances d. Stored relative to the own rank,
// the peers are the same in every rank, so whole rank blocks are byte for
// byte alike and zstd stores a repeated block as one back reference;
// absolute peers would make every block different and cost about
// log2(num_ranks) bits per op even after compression. The reduction mod
// num_ranks keeps the value below num_ranks, so a left neighbour is
// num_ranks-1 in every rank, not a negative number.
//
// Edges next to their predecessor, relative to it. GOAL edges almost
// always join nearby ops (a send that waits for the previous receive), so
// succ - op is small, and zigzag lets it be negative: the text form allows
// a successor defined before its predecessor.
//
// Columns, not rows. Within a block each field of the ops is a column,
// so zstd sees runs of like values: a tag or a size that changes from one
// iteration to the next breaks the repetition of one column instead of
// every op. On a trace-like schedule (a 3D stencil on 512 ranks, 100
// iterations with per-iteration tags and a periodic allreduce) columns
// take 0.04 bytes per op against 0.50 for op-by-op rows, and 0.30 against
// 0.78 with random compute times; on collectives both are far below a
// byte (a dissemination barrier of 4096 ranks: 0.002 bytes per op). A
// block is still decoded in one pass over its bytes, each column filling
// one field of the ops already in the RankBlock, with no other buffer.
//
// Flags instead of fields. Wildcards, nonzero tags, cpus and nics are
// rare in most schedules, so a bit in opflags replaces them; the usual op
// is opflags, size, peer, succ_count and one edge: five to seven bytes
// before compression.
//
// Bounded decoding. Every count is checked against the bytes that remain
// before anything is allocated for it: an op takes at least 3 bytes
// (opflags, size, succ_count), an edge 1 and a label 2. Compressed chunks
// are read in growing pieces, so a large comp_len costs memory only when
// the bytes are there; and no zstd frame decompresses to more than 2^15
// times its size (a block of 4 bytes yields at most 128 KiB), so a frame
// that claims more is rejected before its content size is allocated. A
// reader thus allocates at most about 2^15 times what it has read.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/klauspost/compress/zstd"
)

// Versions of the binary form, one line each. Readers accept
// MinBinaryVersion through BinaryVersion.
//
//	1: the layout described at the top of binary.go.
const (
	BinaryVersion    = 1
	MinBinaryVersion = 1
)

// BinaryMagic starts every binary GOAL file. Its first byte is not text
// and its line endings and ^Z catch files mangled by text conversions,
// as in PNG.
var BinaryMagic = []byte{0x89, 'G', 'O', 'A', 'L', '\r', '\n', 0x1a}

// ErrBinary is what every error about a malformed binary schedule
// unwraps to.
var ErrBinary = errors.New("goal: malformed binary schedule")

// IsBinary reports whether prefix, the first bytes of a file, starts with
// BinaryMagic.
func IsBinary(prefix []byte) bool {
	return len(prefix) >= len(BinaryMagic) && string(prefix[:len(BinaryMagic)]) == string(BinaryMagic)
}

const (
	binChunkTarget = 1 << 20 // a writer ends a chunk once its raw size reaches this
	binMaxChunkRaw = 1 << 32 // largest decompressed chunk
	// binMaxChunkComp is the largest compressed chunk: zstd adds at most 3
	// bytes per 128 KiB block and a few bytes per frame.
	binMaxChunkComp = binMaxChunkRaw + binMaxChunkRaw>>10
	binMaxBlockRaw  = binMaxChunkRaw - binChunkTarget // largest encoded rank block
	binMaxRatio     = 1 << 15                         // zstd's largest decompressed/compressed ratio
	binMinOpBytes   = 3                               // opflags, size, succ_count
)

// opflags bits.
const (
	binKindMask  = 0x03
	binTag       = 0x04
	binAnyTag    = 0x08
	binAnySource = 0x10
	binCPU       = 0x20
	binNIC       = 0x40
	binReserved  = 0x80
)

// Header is what a binary schedule states before its rank blocks.
type Header struct {
	NumRanks int
	NumCPUs  int // CPUs per rank, 1..MaxCPU+1; every op's CPU is below
	NumNICs  int // NICs per rank, 1..MaxNIC+1; every op's NIC is below
}

func (h Header) check() error {
	switch {
	case h.NumRanks < 0 || h.NumRanks > MaxRanks:
		return fmt.Errorf("%d ranks, want 0..%d", h.NumRanks, MaxRanks)
	case h.NumCPUs < 1 || h.NumCPUs > MaxCPU+1:
		return fmt.Errorf("%d cpus, want 1..%d", h.NumCPUs, MaxCPU+1)
	case h.NumNICs < 1 || h.NumNICs > MaxNIC+1:
		return fmt.Errorf("%d nics, want 1..%d", h.NumNICs, MaxNIC+1)
	}
	return nil
}

// BinaryError is a malformed binary schedule. It unwraps to ErrBinary and
// to its cause: io.ErrUnexpectedEOF for a file that ends too soon, a
// *BlockError for a rank block that breaks a rule of Validate, a zstd
// error for a damaged frame.
type BinaryError struct {
	// Offset is the file offset of the field at fault or, if the fault is
	// in a zstd frame or in its decompressed data, of the chunk (its
	// comp_len field).
	Offset int64
	// RawOffset is the offset in the chunk's decompressed data for a fault
	// found there, -1 otherwise.
	RawOffset int64
	Err       error
}

func (e *BinaryError) Error() string {
	if e.RawOffset >= 0 {
		return fmt.Sprintf("goal: binary schedule: chunk at byte %d, decompressed byte %d: %v", e.Offset, e.RawOffset, e.Err)
	}
	return fmt.Sprintf("goal: binary schedule: byte %d: %v", e.Offset, e.Err)
}

func (e *BinaryError) Unwrap() []error { return []error{ErrBinary, e.Err} }

// Writer writes a schedule in the binary form, rank block by rank block.
type Writer struct {
	w     io.Writer
	h     Header
	enc   *zstd.Encoder
	raw   []byte // the current chunk, decompressed
	comp  []byte
	first int // first rank of the current chunk
	next  int // rank that WriteRank expects
	work  []int32
	err   error // sticky: a failed write
	done  bool

	chunkTarget int // binChunkTarget; tests lower it
}

// NewWriter writes the magic, version and header h to w and returns a
// Writer for the rank blocks.
func NewWriter(w io.Writer, h Header) (*Writer, error) {
	if err := h.check(); err != nil {
		return nil, fmt.Errorf("goal: binary header: %w", err)
	}
	// A window of one chunk: a chunk rarely exceeds it, and zstd's history
	// buffer, twice the window, is allocated per encoder.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithWindowSize(binChunkTarget),
		zstd.WithSingleSegment(true), zstd.WithEncoderCRC(true))
	if err != nil {
		return nil, fmt.Errorf("goal: binary writer: %w", err)
	}
	bw := &Writer{w: w, h: h, enc: enc, chunkTarget: binChunkTarget}
	buf := append([]byte(nil), BinaryMagic...)
	buf = binary.AppendUvarint(buf, BinaryVersion)
	buf = binary.AppendUvarint(buf, uint64(h.NumRanks))
	buf = binary.AppendUvarint(buf, uint64(h.NumCPUs))
	buf = binary.AppendUvarint(buf, uint64(h.NumNICs))
	buf = binary.AppendUvarint(buf, 0) // flags
	if err := bw.write(buf); err != nil {
		return nil, err
	}
	return bw, nil
}

func (w *Writer) write(p []byte) error {
	if _, err := w.w.Write(p); err != nil {
		w.err = fmt.Errorf("goal: writing binary schedule: %w", err)
		return w.err
	}
	return nil
}

// WriteRank writes block b, which must be the next rank: ranks come in
// order 0..NumRanks-1. b must pass b.Validate and use CPUs and NICs below
// the header's counts.
func (w *Writer) WriteRank(b *RankBlock) error {
	if w.err != nil {
		return w.err
	}
	switch {
	case w.done:
		return errors.New("goal: binary writer: WriteRank after Close")
	case w.next >= w.h.NumRanks:
		return fmt.Errorf("goal: binary writer: rank %d written to a schedule of %d ranks", b.Rank, w.h.NumRanks)
	case int(b.Rank) != w.next:
		return fmt.Errorf("goal: binary writer: rank %d written where rank %d was expected", b.Rank, w.next)
	}
	var berr *BlockError
	if w.work, berr = b.Validate(w.h.NumRanks, w.work); berr != nil {
		return fmt.Errorf("goal: binary writer: %w", berr)
	}
	for i := range b.Ops {
		op := &b.Ops[i]
		if int(op.CPU) >= w.h.NumCPUs || int(op.NIC) >= w.h.NumNICs {
			return fmt.Errorf("goal: binary writer: %w", &BlockError{Rank: b.Rank, Op: int32(i), Edge: -1,
				Msg: fmt.Sprintf("cpu %d or nic %d beyond the header's %d cpus and %d nics", op.CPU, op.NIC, w.h.NumCPUs, w.h.NumNICs)})
		}
	}
	start := len(w.raw)
	w.raw = w.appendBlock(w.raw, b)
	if int64(len(w.raw)-start) > binMaxBlockRaw {
		w.raw = w.raw[:start]
		return fmt.Errorf("goal: binary writer: rank %d: encoding larger than %d bytes", b.Rank, int64(binMaxBlockRaw))
	}
	w.next++
	if len(w.raw) >= w.chunkTarget {
		return w.flush()
	}
	return nil
}

// appendBlock appends the encoding of block b to dst.
func (w *Writer) appendBlock(dst []byte, b *RankBlock) []byte {
	n := int64(w.h.NumRanks)
	dst = binary.AppendUvarint(dst, uint64(len(b.Ops)))
	for i := range b.Ops {
		op := &b.Ops[i]
		f := byte(op.Kind)
		switch op.Tag {
		case 0:
		case AnyTag:
			f |= binAnyTag
		default:
			f |= binTag
		}
		if op.Peer == AnySource {
			f |= binAnySource
		}
		if op.CPU != 0 {
			f |= binCPU
		}
		if op.NIC != 0 {
			f |= binNIC
		}
		dst = append(dst, f)
	}
	for i := range b.Ops {
		dst = binary.AppendUvarint(dst, b.Ops[i].Size)
	}
	for i := range b.Ops {
		if op := &b.Ops[i]; op.Kind != Calc && op.Peer != AnySource {
			d := (int64(op.Peer) - int64(b.Rank)) % n
			if d < 0 {
				d += n
			}
			dst = binary.AppendUvarint(dst, uint64(d))
		}
	}
	for i := range b.Ops {
		if t := b.Ops[i].Tag; t != 0 && t != AnyTag {
			dst = binary.AppendUvarint(dst, uint64(t))
		}
	}
	for i := range b.Ops {
		if c := b.Ops[i].CPU; c != 0 {
			dst = binary.AppendUvarint(dst, uint64(c))
		}
	}
	for i := range b.Ops {
		if c := b.Ops[i].NIC; c != 0 {
			dst = binary.AppendUvarint(dst, uint64(c))
		}
	}
	for i := range b.Ops {
		dst = binary.AppendUvarint(dst, uint64(b.DepStart[i+1]-b.DepStart[i]))
	}
	for i := range b.Ops {
		for _, d := range b.Deps[b.DepStart[i]:b.DepStart[i+1]] {
			delta := int64(d.Succ()) - int64(i)
			v := (uint64(delta<<1) ^ uint64(delta>>63)) << 1
			if d.Start() {
				v |= 1
			}
			dst = binary.AppendUvarint(dst, v)
		}
	}
	dst = binary.AppendUvarint(dst, uint64(len(b.Labels)))
	prev := int32(-1)
	for _, l := range b.Labels {
		dst = binary.AppendUvarint(dst, uint64(l.Op-prev-1))
		dst = binary.AppendUvarint(dst, uint64(len(l.Name)))
		dst = append(dst, l.Name...)
		prev = l.Op
	}
	return dst
}

// flush writes the current chunk.
func (w *Writer) flush() error {
	if len(w.raw) == 0 {
		return nil
	}
	w.comp = w.enc.EncodeAll(w.raw, w.comp[:0])
	var hdr [3 * binary.MaxVarintLen64]byte
	h := binary.AppendUvarint(hdr[:0], uint64(len(w.comp)))
	h = binary.AppendUvarint(h, uint64(w.first))
	h = binary.AppendUvarint(h, uint64(w.next-w.first))
	if err := w.write(h); err != nil {
		return err
	}
	if err := w.write(w.comp); err != nil {
		return err
	}
	w.raw = w.raw[:0]
	w.first = w.next
	return nil
}

// Close writes the last chunk and the end marker. It fails if not all
// ranks have been written. It does not close the underlying writer.
func (w *Writer) Close() error {
	if w.err != nil || w.done {
		return w.err
	}
	if w.next < w.h.NumRanks {
		return fmt.Errorf("goal: binary writer: Close after %d of %d ranks", w.next, w.h.NumRanks)
	}
	if err := w.flush(); err != nil {
		return err
	}
	if err := w.write([]byte{0}); err != nil {
		return err
	}
	w.done = true
	return nil
}

// WriteBinary writes schedule s, which must be complete, in the binary
// form.
func WriteBinary(w io.Writer, s *Schedule) error {
	if !s.Complete() {
		return fmt.Errorf("goal: WriteBinary: %d of %d ranks in the schedule", len(s.RankStart)-1, s.NumRanks)
	}
	bw, err := NewWriter(w, Header{NumRanks: s.NumRanks, NumCPUs: max(s.NumCPUs, 1), NumNICs: max(s.NumNICs, 1)})
	if err != nil {
		return err
	}
	var b RankBlock
	for r := 0; r < s.NumRanks; r++ {
		s.Block(r, &b)
		if err := bw.WriteRank(&b); err != nil {
			return err
		}
	}
	return bw.Close()
}

// Reader reads a schedule in the binary form, rank block by rank block.
// It buffers its input, so it may read past the end of the schedule.
type Reader struct {
	br  *bufio.Reader
	off int64 // bytes consumed from br
	h   Header
	dec *zstd.Decoder

	comp     []byte
	raw      []byte // the current chunk, decompressed
	pos      int    // next byte of raw
	chunkOff int64  // file offset of the current chunk
	left     int    // ranks of the current chunk still to decode
	next     int    // next rank
	work     []int32
	err      error // sticky
}

// NewReader reads the magic, version and header from r and returns a
// Reader for the rank blocks.
func NewReader(r io.Reader) (*Reader, error) {
	// A frame is decoded whole into r.raw, which is also its window: a
	// window limit would only refuse large chunks, not save memory.
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(binMaxChunkRaw),
		zstd.WithDecoderMaxWindow(binMaxChunkRaw),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, fmt.Errorf("goal: binary reader: %w", err)
	}
	br := &Reader{br: bufio.NewReader(r), dec: dec}
	if err := br.readHeader(); err != nil {
		return nil, err
	}
	return br, nil
}

// fail returns a BinaryError at file offset off.
func (r *Reader) fail(off int64, err error) error {
	return &BinaryError{Offset: off, RawOffset: -1, Err: err}
}

func (r *Reader) failf(off int64, format string, args ...any) error {
	return r.fail(off, fmt.Errorf(format, args...))
}

// failRaw returns a BinaryError at offset pos of the current chunk's
// decompressed data.
func (r *Reader) failRaw(pos int, format string, args ...any) error {
	return &BinaryError{Offset: r.chunkOff, RawOffset: int64(pos), Err: fmt.Errorf(format, args...)}
}

// ioErr turns an error from the underlying reader into the error to
// return: inside the file, an end is unexpected.
func (r *Reader) ioErr(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return r.fail(r.off, io.ErrUnexpectedEOF)
	}
	return fmt.Errorf("goal: reading binary schedule at byte %d: %w", r.off, err)
}

// uvarint reads a uvarint from the file.
func (r *Reader) uvarint(what string) (uint64, error) {
	start := r.off
	var x uint64
	for i := 0; ; i++ {
		c, err := r.br.ReadByte()
		if err != nil {
			return 0, r.ioErr(err)
		}
		r.off++
		if i == binary.MaxVarintLen64-1 && c > 1 {
			return 0, r.failf(start, "%s: varint overflows 64 bits", what)
		}
		if c < 0x80 {
			return x | uint64(c)<<(7*i), nil
		}
		x |= uint64(c&0x7f) << (7 * i)
	}
}

func (r *Reader) readHeader() error {
	var magic [8]byte
	n, err := io.ReadFull(r.br, magic[:])
	if !IsBinary(magic[:n]) {
		if string(magic[:n]) == string(BinaryMagic[:n]) && err != nil { // a cut magic
			r.off = int64(n)
			return r.ioErr(err)
		}
		return r.failf(0, "bad magic % x: not a binary GOAL schedule", magic[:n])
	}
	r.off = int64(n)
	off := r.off
	v, err := r.uvarint("version")
	if err != nil {
		return err
	}
	if v < MinBinaryVersion || v > BinaryVersion {
		return r.failf(off, "format version %d; this reader reads versions %d through %d", v, MinBinaryVersion, BinaryVersion)
	}
	var f [4]uint64
	offs := [4]int64{}
	for i, what := range [...]string{"num_ranks", "num_cpus", "num_nics", "flags"} {
		offs[i] = r.off
		if f[i], err = r.uvarint(what); err != nil {
			return err
		}
	}
	switch {
	case f[0] > MaxRanks:
		return r.failf(offs[0], "%d ranks, more than %d", f[0], MaxRanks)
	case f[1] < 1 || f[1] > MaxCPU+1:
		return r.failf(offs[1], "%d cpus, want 1..%d", f[1], MaxCPU+1)
	case f[2] < 1 || f[2] > MaxNIC+1:
		return r.failf(offs[2], "%d nics, want 1..%d", f[2], MaxNIC+1)
	case f[3] != 0:
		return r.failf(offs[3], "unknown header flags %#x in version %d", f[3], v)
	}
	r.h = Header{NumRanks: int(f[0]), NumCPUs: int(f[1]), NumNICs: int(f[2])}
	return nil
}

// Header returns the header of the schedule.
func (r *Reader) Header() Header { return r.h }

// Next fills b with the next rank block, reusing its storage. After the
// last rank and the end marker it returns io.EOF. Every block passes
// b.Validate and uses CPUs and NICs below the header's counts; an error
// other than io.EOF is final, and a malformed file gives a *BinaryError.
func (r *Reader) Next(b *RankBlock) error {
	if r.err != nil {
		return r.err
	}
	if err := r.nextBlock(b); err != nil {
		r.err = err
		return err
	}
	return nil
}

func (r *Reader) nextBlock(b *RankBlock) error {
	if r.left == 0 {
		if err := r.readChunk(); err != nil {
			return err
		}
	}
	start := r.pos
	if err := r.decodeBlock(b, int32(r.next)); err != nil {
		return err
	}
	r.next++
	r.left--
	if r.left == 0 && r.pos != len(r.raw) {
		return r.failRaw(r.pos, "%d bytes after the chunk's last rank block", len(r.raw)-r.pos)
	}
	var berr *BlockError
	if r.work, berr = b.Validate(r.h.NumRanks, r.work); berr != nil {
		return &BinaryError{Offset: r.chunkOff, RawOffset: int64(start), Err: berr}
	}
	return nil
}

// readChunk reads and decompresses the next chunk, or the end marker.
func (r *Reader) readChunk() error {
	off := r.off
	n, err := r.uvarint("comp_len")
	if err != nil {
		return err
	}
	if n == 0 {
		if r.next < r.h.NumRanks {
			return r.fail(off, fmt.Errorf("end marker after %d of %d ranks: %w", r.next, r.h.NumRanks, io.ErrUnexpectedEOF))
		}
		return io.EOF
	}
	if r.next == r.h.NumRanks {
		return r.failf(off, "chunk after the last rank")
	}
	if n > binMaxChunkComp || n > math.MaxInt {
		return r.failf(off, "chunk of %d bytes, more than %d", n, uint64(binMaxChunkComp))
	}
	fieldOff := r.off
	first, err := r.uvarint("first_rank")
	if err != nil {
		return err
	}
	if first != uint64(r.next) {
		return r.failf(fieldOff, "chunk starts at rank %d, expected rank %d", first, r.next)
	}
	fieldOff = r.off
	count, err := r.uvarint("rank_count")
	if err != nil {
		return err
	}
	if count == 0 || count > uint64(r.h.NumRanks-r.next) {
		return r.failf(fieldOff, "chunk of %d ranks from rank %d, want 1..%d", count, r.next, r.h.NumRanks-r.next)
	}
	if err := r.readComp(int(n)); err != nil {
		return err
	}
	var zh zstd.Header
	if err := zh.Decode(r.comp); err != nil {
		return r.failf(off, "zstd frame header: %w", err)
	}
	switch {
	case zh.Skippable || !zh.HasFCS:
		return r.failf(off, "zstd frame without content size")
	case zh.DictionaryID != 0:
		return r.failf(off, "zstd frame with dictionary %d", zh.DictionaryID)
	case zh.FrameContentSize > binMaxChunkRaw || zh.FrameContentSize > n*binMaxRatio || zh.FrameContentSize > math.MaxInt:
		return r.failf(off, "zstd frame of %d bytes claims %d bytes of content", n, zh.FrameContentSize)
	}
	size := int(zh.FrameContentSize)
	if cap(r.raw) < size {
		r.raw = make([]byte, 0, size)
	}
	r.raw, err = r.dec.DecodeAll(r.comp, r.raw[:0])
	if err == nil && len(r.raw) != size {
		err = fmt.Errorf("%d bytes of content, %d declared", len(r.raw), size)
	}
	if err != nil {
		r.raw = r.raw[:0]
		return r.failf(off, "zstd: %w", err)
	}
	r.chunkOff = off
	r.pos = 0
	r.left = int(count)
	return nil
}

// readComp reads the n bytes of a compressed chunk into r.comp. Unless
// earlier chunks made room, it reads in growing pieces, so that a large n
// at the end of a short file costs no more than the bytes that are there.
func (r *Reader) readComp(n int) error {
	if cap(r.comp) >= n {
		r.comp = r.comp[:n]
		m, err := io.ReadFull(r.br, r.comp)
		r.off += int64(m)
		if err != nil {
			return r.ioErr(err)
		}
		return nil
	}
	r.comp = r.comp[:0]
	for len(r.comp) < n {
		step := min(n-len(r.comp), max(len(r.comp), 64<<10))
		r.comp = slices.Grow(r.comp, step)
		m, err := io.ReadFull(r.br, r.comp[len(r.comp):len(r.comp)+step])
		r.comp = r.comp[:len(r.comp)+m]
		r.off += int64(m)
		if err != nil {
			return r.ioErr(err)
		}
	}
	return nil
}

// rawUvarint reads a uvarint at r.raw[r.pos:].
func (r *Reader) rawUvarint() (uint64, bool) {
	if r.pos < len(r.raw) {
		if c := r.raw[r.pos]; c < 0x80 {
			r.pos++
			return uint64(c), true
		}
	}
	v, n := binary.Uvarint(r.raw[r.pos:])
	if n <= 0 {
		return 0, false
	}
	r.pos += n
	return v, true
}

// badVarint describes a failed rawUvarint at pos.
func (r *Reader) badVarint(pos int, what string) error {
	if _, n := binary.Uvarint(r.raw[pos:]); n == 0 {
		return &BinaryError{Offset: r.chunkOff, RawOffset: int64(pos),
			Err: fmt.Errorf("chunk data ends inside %s: %w", what, io.ErrUnexpectedEOF)}
	}
	return r.failRaw(pos, "%s: varint overflows 64 bits", what)
}

// indexColumn decodes the cpu (bit binCPU) or nic (bit binNIC) column:
// one value below limit for each op whose flags have the bit.
func (r *Reader) indexColumn(b *RankBlock, flags []byte, bit byte, what string, limit int, rank int32) error {
	for i, f := range flags {
		if f&bit == 0 {
			continue
		}
		p := r.pos
		v, ok := r.rawUvarint()
		if !ok {
			return r.badVarint(p, what)
		}
		if v >= uint64(limit) {
			return r.failRaw(p, "rank %d, op %d: %s %d, the header has %d %ss", rank, i, what, v, limit, what)
		}
		if bit == binCPU {
			b.Ops[i].CPU = uint16(v)
		} else {
			b.Ops[i].NIC = uint16(v)
		}
	}
	return nil
}

// decodeBlock decodes the rank block of rank at r.raw[r.pos:] into b.
func (r *Reader) decodeBlock(b *RankBlock, rank int32) error {
	b.Reset(rank)
	p := r.pos
	n, ok := r.rawUvarint()
	if !ok {
		return r.badVarint(p, "op_count")
	}
	if n > uint64(len(r.raw)-r.pos)/binMinOpBytes {
		return r.failRaw(p, "rank %d: %d ops in %d remaining bytes", rank, n, len(r.raw)-r.pos)
	}
	nops := int(n)
	fpos := r.pos
	flags := r.raw[fpos : fpos+nops]
	r.pos += nops
	b.Ops = slices.Grow(b.Ops, nops)[:nops]
	for i, f := range flags {
		op := Op{Kind: Kind(f & binKindMask)}
		if op.Kind == 0 || f&binReserved != 0 || f&(binTag|binAnyTag) == binTag|binAnyTag ||
			f&binAnySource != 0 && op.Kind != Recv || op.Kind == Calc && f&(binTag|binAnyTag|binNIC) != 0 {
			return r.failRaw(fpos+i, "rank %d, op %d: bad opflags %#02x", rank, i, f)
		}
		if f&binAnySource != 0 {
			op.Peer = AnySource
		}
		if f&binAnyTag != 0 {
			op.Tag = AnyTag
		}
		b.Ops[i] = op
	}
	for i := range b.Ops {
		p = r.pos
		if b.Ops[i].Size, ok = r.rawUvarint(); !ok {
			return r.badVarint(p, "size")
		}
	}
	numRanks := uint64(r.h.NumRanks)
	var v uint64
	for i, f := range flags {
		if f&binKindMask == byte(Calc) || f&binAnySource != 0 {
			continue
		}
		p = r.pos
		if v, ok = r.rawUvarint(); !ok {
			return r.badVarint(p, "peer")
		}
		if v >= numRanks {
			return r.failRaw(p, "rank %d, op %d: relative peer %d, want 0..%d", rank, i, v, numRanks-1)
		}
		b.Ops[i].Peer = int32((uint64(rank) + v) % numRanks)
	}
	for i, f := range flags {
		if f&binTag == 0 {
			continue
		}
		p = r.pos
		if v, ok = r.rawUvarint(); !ok {
			return r.badVarint(p, "tag")
		}
		if v > MaxTag {
			return r.failRaw(p, "rank %d, op %d: tag %d, more than %d", rank, i, v, uint64(MaxTag))
		}
		b.Ops[i].Tag = uint32(v)
	}
	if err := r.indexColumn(b, flags, binCPU, "cpu", r.h.NumCPUs, rank); err != nil {
		return err
	}
	if err := r.indexColumn(b, flags, binNIC, "nic", r.h.NumNICs, rank); err != nil {
		return err
	}
	b.DepStart = slices.Grow(b.DepStart, nops+1)
	b.DepStart = append(b.DepStart, 0)
	edges := uint64(0)
	for i := 0; i < nops; i++ {
		p = r.pos
		if v, ok = r.rawUvarint(); !ok {
			return r.badVarint(p, "succ_count")
		}
		// Each edge takes a byte: their number is below len(r.raw), 2^32.
		if edges += v; v > uint64(len(r.raw)-r.pos) || edges > uint64(len(r.raw)-r.pos) || edges > math.MaxInt32 {
			return r.failRaw(p, "rank %d, op %d: %d edges, %d in all, in %d remaining bytes", rank, i, v, edges, len(r.raw)-r.pos)
		}
		b.DepStart = append(b.DepStart, int32(edges))
	}
	b.Deps = slices.Grow(b.Deps, int(edges))
	for i := 0; i < nops; i++ {
		for e := b.DepStart[i]; e < b.DepStart[i+1]; e++ {
			p = r.pos
			if v, ok = r.rawUvarint(); !ok {
				return r.badVarint(p, "edge")
			}
			z := v >> 1
			succ := int64(i) + (int64(z>>1) ^ -int64(z&1))
			if succ < 0 || succ >= int64(nops) {
				return r.failRaw(p, "rank %d, op %d: successor op %d outside 0..%d", rank, i, succ, nops-1)
			}
			b.Deps = append(b.Deps, MakeDep(int32(succ), v&1 != 0))
		}
	}
	p = r.pos
	nl, ok := r.rawUvarint()
	if !ok {
		return r.badVarint(p, "label_count")
	}
	if nl > n || nl > uint64(len(r.raw)-r.pos)/2 {
		return r.failRaw(p, "rank %d: %d labels for %d ops in %d remaining bytes", rank, nl, n, len(r.raw)-r.pos)
	}
	next := uint64(0) // lowest op index the next label may have
	for j := uint64(0); j < nl; j++ {
		p = r.pos
		gap, ok := r.rawUvarint()
		if !ok {
			return r.badVarint(p, "label gap")
		}
		if gap >= n-next { // next < n: one label per op at most
			return r.failRaw(p, "rank %d: label of op %d or later, the rank has %d ops", rank, next, n)
		}
		op := next + gap
		p = r.pos
		ln, ok := r.rawUvarint()
		if !ok {
			return r.badVarint(p, "label length")
		}
		if ln > uint64(len(r.raw)-r.pos) {
			return &BinaryError{Offset: r.chunkOff, RawOffset: int64(p),
				Err: fmt.Errorf("rank %d, op %d: label of %d bytes beyond the chunk data: %w", rank, op, ln, io.ErrUnexpectedEOF)}
		}
		b.Labels = append(b.Labels, Label{Op: int32(op), Name: string(r.raw[r.pos : r.pos+int(ln)])})
		r.pos += int(ln)
		next = op + 1
	}
	return nil
}

// ReadBinary reads a whole schedule in the binary form. The schedule's
// NumCPUs and NumNICs are the header's, which may exceed the largest
// ones used.
func ReadBinary(r io.Reader) (*Schedule, error) {
	br, err := NewReader(r)
	if err != nil {
		return nil, err
	}
	h := br.Header()
	s, err := collect(br.Next, func() int { return h.NumRanks }, "goal: binary schedule")
	if err != nil {
		return nil, err
	}
	if s.NumCPUs > h.NumCPUs || s.NumNICs > h.NumNICs { // Next checks every op; this is a safety net
		return nil, fmt.Errorf("goal: binary schedule uses %d cpus and %d nics, its header declares %d and %d: %w",
			s.NumCPUs, s.NumNICs, h.NumCPUs, h.NumNICs, ErrBinary)
	}
	s.NumCPUs, s.NumNICs = h.NumCPUs, h.NumNICs
	return s, nil
}
