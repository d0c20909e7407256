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
// most one chunk (a Writer also holds two batches of copied blocks that
// another goroutine encodes). A chunk is an independent zstd frame that names its
// first rank and its length, so a reader can skip chunks, or decode them
// in parallel, without decompressing what comes before; its size, 1 MiB
// decompressed, is large enough for zstd to find the repetition between
// ranks and small enough to keep memory low. The explicit end marker
// makes a file cut at a chunk boundary an error rather than a shorter
// schedule, and rank_count checks that chunks do not go missing.
//
// Whole schedules. ReadBinary (and ReadBinaryBlocks) hold all the
// compressed chunks, a small fraction of the schedule they decode to, and
// make two passes over them, each decompressing the chunks on all CPUs:
// the first counts every chunk's ops and edges from the count fields and
// the varints' final bytes alone, so that the schedule's slices can be
// allocated at their final size, and the second decodes each chunk
// straight into its place. Growing the slices instead would copy them
// again and again and, for a while, need twice their size. Decompressing
// twice is cheap: chunks of a collective decompress at several GB/s.
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
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

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
	case h.NumRanks < 1 || h.NumRanks > MaxRanks:
		return fmt.Errorf("%d ranks, want 1..%d", h.NumRanks, MaxRanks)
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
//
// WriteRank checks a block and copies it into a batch; encoding the
// batch's blocks into chunks, compressing and writing them happen on
// another goroutine while the caller builds the next batch, so a
// generator and the encoder use two cores. The bytes written are the same
// as if all was done in line: the same chunks, in order.
type Writer struct {
	// Set at the start.
	w         io.Writer
	h         Header
	batchSize int // ops, edges and blocks in a full batch; tests lower it
	bigBlock  int // ops and edges of a block encoded in line, not copied

	// The caller's, and the encoder's, each on cache lines of their own:
	// the caller writes its fields on every block, and so does the
	// encoder (which reads h on every block too).
	_     [64]byte
	next  int // rank that WriteRank expects
	work  []int32
	err   error // sticky: a failed write, seen after the encoder finished
	done  bool
	fill  *writeBatch   // blocks copied by WriteRank, not yet handed over
	spare *writeBatch   // the other batch, owned by the encoder while busy
	busy  chan struct{} // closed when the encoder finishes its batch; nil if idle

	// Owned by the encoder while busy.
	_           [64]byte
	enc         *zstd.Encoder
	raw         []byte // the current chunk, decompressed
	comp        []byte
	first       int   // first rank of the current chunk
	encoded     int   // ranks appended to chunks so far
	encErr      error // the encoder's first error
	chunkTarget int   // binChunkTarget; tests lower it
	_           [64]byte
}

// writeBatch is rank blocks copied for the encoder, back to back in flat
// slices, so that a batch of many small blocks costs no allocation per
// block once the slices have grown.
type writeBatch struct {
	blocks   []batchBlock
	ops      []Op
	depStart []int32 // each block's DepStart, len(its ops)+1 entries
	deps     []Dep
	labels   []Label
	size     int // ops, edges and blocks in the batch
}

// batchBlock is where a block of a writeBatch ends in its slices.
type batchBlock struct {
	rank              int32
	ops, deps, labels int // end indexes
}

// add appends a copy of block b.
func (x *writeBatch) add(b *RankBlock) {
	x.ops = append(x.ops, b.Ops...)
	x.depStart = append(x.depStart, b.DepStart...)
	x.deps = append(x.deps, b.Deps...)
	x.labels = append(x.labels, b.Labels...)
	x.blocks = append(x.blocks, batchBlock{rank: b.Rank, ops: len(x.ops), deps: len(x.deps), labels: len(x.labels)})
	x.size += len(b.Ops) + len(b.Deps) + 1
}

// reset empties the batch and keeps its storage.
func (x *writeBatch) reset() {
	x.blocks, x.ops, x.depStart, x.deps, x.labels = x.blocks[:0], x.ops[:0], x.depStart[:0], x.deps[:0], x.labels[:0]
	x.size = 0
}

// binBatchSize is the ops, edges and blocks of a full batch. A hand-over
// costs a goroutine's wake-up, tens of µs on a busy machine: with batches
// of 4,096, writing a 1,048,576-rank allreduce (126 M ops, edges and
// blocks) gained nothing from the second core; 65,536 gains 1.45x, with
// two batches of about 2 MB.
const binBatchSize = 1 << 16

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
	bw := &Writer{w: w, h: h, enc: enc, chunkTarget: binChunkTarget, batchSize: binBatchSize,
		bigBlock: binBatchSize, fill: &writeBatch{}, spare: &writeBatch{}}
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

// write writes p to the underlying writer; it is the encoder's, or the
// caller's while the encoder is idle.
func (w *Writer) write(p []byte) error {
	if _, err := w.w.Write(p); err != nil {
		w.encErr = fmt.Errorf("goal: writing binary schedule: %w", err)
		return w.encErr
	}
	return nil
}

// WriteRank writes block b, which must be the next rank: ranks come in
// order 0..NumRanks-1. b must pass b.Validate and use CPUs and NICs below
// the header's counts. It keeps no reference to b. An error in writing
// an earlier block may be returned by a later call, or by Close.
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
	if len(b.Ops)+len(b.Deps) >= w.bigBlock {
		// Copying a large block would double the memory it takes: it is
		// encoded here, once the blocks before it are.
		if err := w.handOver(); err != nil {
			return err
		}
		if err := w.wait(); err != nil {
			return err
		}
		w.next++
		w.encodeBlock(b)
		return w.wait()
	}
	w.fill.add(b)
	w.next++
	if w.fill.size >= w.batchSize {
		return w.handOver()
	}
	return nil
}

// wait waits for the encoder to finish its batch, and makes its error the
// writer's.
func (w *Writer) wait() error {
	if w.busy != nil {
		<-w.busy
		w.busy = nil
	}
	if w.encErr != nil && w.err == nil {
		w.err = w.encErr
	}
	return w.err
}

// handOver waits for the encoder, then starts it on the filled batch, if
// it holds any block.
func (w *Writer) handOver() error {
	if err := w.wait(); err != nil {
		return err
	}
	if len(w.fill.blocks) == 0 {
		return nil
	}
	w.fill, w.spare = w.spare, w.fill
	batch := w.spare
	done := make(chan struct{})
	w.busy = done
	go func() {
		defer close(done)
		w.encode(batch)
	}()
	return nil
}

// encode appends the blocks of batch to chunks, writing each chunk once
// it reaches the target size, and empties the batch. It stops at the
// first error, which it leaves in encErr.
func (w *Writer) encode(x *writeBatch) {
	defer x.reset()
	var b RankBlock
	var ops, ds, deps, labels int
	for _, bb := range x.blocks {
		b.Rank = bb.rank
		b.Ops = x.ops[ops:bb.ops]
		b.DepStart = x.depStart[ds : ds+bb.ops-ops+1]
		b.Deps = x.deps[deps:bb.deps]
		b.Labels = x.labels[labels:bb.labels]
		ds += bb.ops - ops + 1
		ops, deps, labels = bb.ops, bb.deps, bb.labels
		if !w.encodeBlock(&b) {
			return
		}
	}
}

// encodeBlock appends block b to the current chunk and writes the chunk
// once it reaches the target size. It reports false, with the error in
// encErr, if that fails.
func (w *Writer) encodeBlock(b *RankBlock) bool {
	start := len(w.raw)
	w.raw = w.appendBlock(w.raw, b)
	if int64(len(w.raw)-start) > binMaxBlockRaw {
		w.raw = w.raw[:start]
		w.encErr = fmt.Errorf("goal: binary writer: rank %d: encoding larger than %d bytes", b.Rank, int64(binMaxBlockRaw))
		return false
	}
	w.encoded++
	if len(w.raw) >= w.chunkTarget {
		return w.flush() == nil
	}
	return true
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
	h = binary.AppendUvarint(h, uint64(w.encoded-w.first))
	if err := w.write(h); err != nil {
		return err
	}
	if err := w.write(w.comp); err != nil {
		return err
	}
	w.raw = w.raw[:0]
	w.first = w.encoded
	return nil
}

// Close writes the last chunk and the end marker. It fails if not all
// ranks have been written. It does not close the underlying writer, but
// it returns only once the Writer's goroutine has stopped writing to it:
// a caller that gives up on a schedule half written calls Close too
// (which then fails) before it uses or closes the underlying writer.
func (w *Writer) Close() error {
	if w.err != nil || w.done {
		return w.err
	}
	if w.next < w.h.NumRanks {
		if err := w.wait(); err != nil {
			return err
		}
		return fmt.Errorf("goal: binary writer: Close after %d of %d ranks", w.next, w.h.NumRanks)
	}
	if err := w.handOver(); err != nil {
		return err
	}
	if err := w.wait(); err != nil {
		return err
	}
	if w.flush() != nil || w.write([]byte{0}) != nil {
		return w.wait()
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
			bw.Close() // fails, once the writer's goroutine has stopped
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
	dec *zstd.Decoder
	chunkDecoder

	comp []byte
	left int // ranks of the current chunk still to decode
	next int // next rank
	work []int32
	err  error    // sticky
	rep  *repeats // RememberBlocks's, nil without
}

// chunkDecoder decodes the rank blocks of one decompressed chunk.
type chunkDecoder struct {
	h        Header
	raw      []byte // the chunk, decompressed
	pos      int    // next byte of raw
	chunkOff int64  // file offset of the chunk
	backward bool   // the last block decoded has an edge that does not go forward
}

// newZstdDecoder returns a decoder for the frames of a binary schedule. A
// frame is decoded whole into its destination, which is also its window:
// a window limit would only refuse large chunks, not save memory.
func newZstdDecoder() (*zstd.Decoder, error) {
	dec, err := zstd.NewReader(nil,
		zstd.WithDecoderConcurrency(1),
		zstd.WithDecoderMaxMemory(binMaxChunkRaw),
		zstd.WithDecoderMaxWindow(binMaxChunkRaw),
		zstd.WithDecodeAllCapLimit(true))
	if err != nil {
		return nil, fmt.Errorf("goal: binary reader: %w", err)
	}
	return dec, nil
}

// NewReader reads the magic, version and header from r and returns a
// Reader for the rank blocks.
func NewReader(r io.Reader) (*Reader, error) {
	dec, err := newZstdDecoder()
	if err != nil {
		return nil, err
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

// failRaw returns a BinaryError at offset pos of the chunk's decompressed
// data.
func (d *chunkDecoder) failRaw(pos int, format string, args ...any) error {
	return &BinaryError{Offset: d.chunkOff, RawOffset: int64(pos), Err: fmt.Errorf(format, args...)}
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
	case f[0] < 1 || f[0] > MaxRanks:
		return r.failf(offs[0], "%d ranks, want 1..%d", f[0], MaxRanks)
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
	var err error
	if r.work, err = r.block(b, int32(r.next), r.left == 1, r.work); err != nil {
		return err
	}
	r.next++
	r.left--
	return nil
}

// block decodes the next rank block of the chunk, that of rank, into b and
// validates it; last says whether it is the chunk's last one. work is
// Validate's scratch space, returned for reuse.
func (d *chunkDecoder) block(b *RankBlock, rank int32, last bool, work []int32) ([]int32, error) {
	start := d.pos
	if err := d.decodeBlock(b, rank); err != nil {
		return work, err
	}
	if last && d.pos != len(d.raw) {
		return work, d.failRaw(d.pos, "%d bytes after the chunk's last rank block", len(d.raw)-d.pos)
	}
	// decodeBlock guarantees the other rules of Validate; with forward
	// edges only, there is no cycle either.
	if d.backward {
		var cyc, edge int32
		if work, cyc, edge = b.cycle(work); cyc >= 0 {
			return work, &BinaryError{Offset: d.chunkOff, RawOffset: int64(start),
				Err: &BlockError{Rank: b.Rank, Op: cyc, Edge: edge, Msg: "dependency cycle through this op"}}
		}
	}
	return work, nil
}

// binFrame is a chunk as read from the file, still compressed.
type binFrame struct {
	off   int64 // file offset of its comp_len field
	first int   // first rank
	ranks int   // rank_count
	comp  []byte
	size  int // decompressed size, as its zstd header states
	// ops and edges count the chunk's ops and dependency edges; they are
	// set by ReadBinaryBlocks's counting pass.
	ops, edges int
	// With repeats (ReadBinaryBlocksRepeats), per rank block: its ops,
	// edges and digest from the counting pass, and the earlier rank whose
	// block it repeats, -1 if none.
	blockOps, blockEdges []int32
	digest               [][blockDigest]byte
	same                 []int32
}

// readChunk reads and decompresses the next chunk, or the end marker.
func (r *Reader) readChunk() error {
	f, err := r.nextFrame(r.comp)
	if err != nil {
		return err
	}
	r.comp = f.comp
	if r.raw, err = f.decompress(r.dec, r.raw); err != nil {
		return err
	}
	r.chunkOff = f.off
	r.pos = 0
	r.left = f.ranks
	return nil
}

// nextFrame reads the next chunk, compressed, into buf's storage, or the
// end marker: then it returns io.EOF. The chunk must start at rank r.next.
func (r *Reader) nextFrame(buf []byte) (binFrame, error) {
	off := r.off
	n, err := r.uvarint("comp_len")
	if err != nil {
		return binFrame{}, err
	}
	if n == 0 {
		if r.next < r.h.NumRanks {
			return binFrame{}, r.fail(off, fmt.Errorf("end marker after %d of %d ranks: %w", r.next, r.h.NumRanks, io.ErrUnexpectedEOF))
		}
		return binFrame{}, io.EOF
	}
	if r.next == r.h.NumRanks {
		return binFrame{}, r.failf(off, "chunk after the last rank")
	}
	if n > binMaxChunkComp || n > math.MaxInt {
		return binFrame{}, r.failf(off, "chunk of %d bytes, more than %d", n, uint64(binMaxChunkComp))
	}
	fieldOff := r.off
	first, err := r.uvarint("first_rank")
	if err != nil {
		return binFrame{}, err
	}
	if first != uint64(r.next) {
		return binFrame{}, r.failf(fieldOff, "chunk starts at rank %d, expected rank %d", first, r.next)
	}
	fieldOff = r.off
	count, err := r.uvarint("rank_count")
	if err != nil {
		return binFrame{}, err
	}
	if count == 0 || count > uint64(r.h.NumRanks-r.next) {
		return binFrame{}, r.failf(fieldOff, "chunk of %d ranks from rank %d, want 1..%d", count, r.next, r.h.NumRanks-r.next)
	}
	comp, err := r.readComp(buf, int(n))
	if err != nil {
		return binFrame{}, err
	}
	var zh zstd.Header
	if err := zh.Decode(comp); err != nil {
		return binFrame{}, r.failf(off, "zstd frame header: %w", err)
	}
	switch {
	case zh.Skippable || !zh.HasFCS:
		return binFrame{}, r.failf(off, "zstd frame without content size")
	case zh.DictionaryID != 0:
		return binFrame{}, r.failf(off, "zstd frame with dictionary %d", zh.DictionaryID)
	case zh.FrameContentSize > binMaxChunkRaw || zh.FrameContentSize > n*binMaxRatio || zh.FrameContentSize > math.MaxInt:
		return binFrame{}, r.failf(off, "zstd frame of %d bytes claims %d bytes of content", n, zh.FrameContentSize)
	}
	return binFrame{off: off, first: int(first), ranks: int(count), comp: comp, size: int(zh.FrameContentSize)}, nil
}

// decompress decompresses f into dst's storage.
func (f *binFrame) decompress(dec *zstd.Decoder, dst []byte) ([]byte, error) {
	if cap(dst) < f.size {
		dst = make([]byte, 0, f.size)
	}
	raw, err := dec.DecodeAll(f.comp, dst[:0])
	if err == nil && len(raw) != f.size {
		err = fmt.Errorf("%d bytes of content, %d declared", len(raw), f.size)
	}
	if err != nil {
		return dst[:0], &BinaryError{Offset: f.off, RawOffset: -1, Err: fmt.Errorf("zstd: %w", err)}
	}
	return raw, nil
}

// readComp reads the n bytes of a compressed chunk into buf's storage.
// Unless buf has room, it reads in growing pieces, so that a large n at
// the end of a short file costs no more than the bytes that are there.
func (r *Reader) readComp(buf []byte, n int) ([]byte, error) {
	if cap(buf) >= n {
		buf = buf[:n]
		m, err := io.ReadFull(r.br, buf)
		r.off += int64(m)
		if err != nil {
			return buf, r.ioErr(err)
		}
		return buf, nil
	}
	buf = buf[:0]
	for len(buf) < n {
		step := min(n-len(buf), max(len(buf), 64<<10))
		buf = slices.Grow(buf, step)
		m, err := io.ReadFull(r.br, buf[len(buf):len(buf)+step])
		buf = buf[:len(buf)+m]
		r.off += int64(m)
		if err != nil {
			return buf, r.ioErr(err)
		}
	}
	return buf, nil
}

// rawUvarint reads a uvarint at d.raw[d.pos:].
func (d *chunkDecoder) rawUvarint() (uint64, bool) {
	if d.pos < len(d.raw) {
		if c := d.raw[d.pos]; c < 0x80 {
			d.pos++
			return uint64(c), true
		}
	}
	v, n := binary.Uvarint(d.raw[d.pos:])
	if n <= 0 {
		return 0, false
	}
	d.pos += n
	return v, true
}

// badVarint describes a failed rawUvarint at pos.
func (d *chunkDecoder) badVarint(pos int, what string) error {
	if _, n := binary.Uvarint(d.raw[pos:]); n == 0 {
		return &BinaryError{Offset: d.chunkOff, RawOffset: int64(pos),
			Err: fmt.Errorf("chunk data ends inside %s: %w", what, io.ErrUnexpectedEOF)}
	}
	return d.failRaw(pos, "%s: varint overflows 64 bits", what)
}

// indexColumn decodes the cpu (bit binCPU) or nic (bit binNIC) column:
// one value below limit for each op whose flags have the bit.
func (d *chunkDecoder) indexColumn(b *RankBlock, flags []byte, bit byte, what string, limit int, rank int32) error {
	for i, f := range flags {
		if f&bit == 0 {
			continue
		}
		p := d.pos
		v, ok := d.rawUvarint()
		if !ok {
			return d.badVarint(p, what)
		}
		if v >= uint64(limit) {
			return d.failRaw(p, "rank %d, op %d: %s %d, the header has %d %ss", rank, i, what, v, limit, what)
		}
		if bit == binCPU {
			b.Ops[i].CPU = uint16(v)
		} else {
			b.Ops[i].NIC = uint16(v)
		}
	}
	return nil
}

// uvarintAt reads a uvarint at raw[pos:] and returns it with the position
// after it, or with -1 if there is none. The one- and two-byte cases are
// inlined.
func uvarintAt(raw []byte, pos int) (uint64, int) {
	if uint(pos+1) < uint(len(raw)) {
		c := uint64(raw[pos])
		if c < 0x80 {
			return c, pos + 1
		}
		if c2 := uint64(raw[pos+1]); c2 < 0x80 {
			return c&0x7f | c2<<7, pos + 2
		}
	}
	return uvarintLong(raw, pos)
}

func uvarintLong(raw []byte, pos int) (uint64, int) {
	if pos > len(raw) {
		return 0, -1
	}
	v, n := binary.Uvarint(raw[pos:])
	if n <= 0 {
		return 0, -1
	}
	return v, pos + n
}

// decodeBlock decodes the rank block of rank at d.raw[d.pos:] into b. It
// guarantees every rule of Validate except the absence of cycles, and
// sets d.backward if an edge goes to the same or an earlier op, without
// which there can be none.
func (d *chunkDecoder) decodeBlock(b *RankBlock, rank int32) error {
	b.Reset(rank)
	raw := d.raw
	p := d.pos
	n, pos := uvarintAt(raw, p)
	if pos < 0 {
		return d.badVarint(p, "op_count")
	}
	if n > uint64(len(raw)-pos)/binMinOpBytes {
		return d.failRaw(p, "rank %d: %d ops in %d remaining bytes", rank, n, len(raw)-pos)
	}
	nops := int(n)
	fpos := pos
	flags := raw[fpos : fpos+nops]
	pos += nops
	b.Ops = slices.Grow(b.Ops, nops)[:nops]
	ops := b.Ops
	all := byte(0) // the union of the flags
	for i, f := range flags {
		k := Kind(f & binKindMask)
		if k == 0 || f&binReserved != 0 || f&(binTag|binAnyTag) == binTag|binAnyTag ||
			f&binAnySource != 0 && k != Recv || k == Calc && f&(binTag|binAnyTag|binNIC) != 0 {
			return d.failRaw(fpos+i, "rank %d, op %d: bad opflags %#02x", rank, i, f)
		}
		all |= f
	}
	var v uint64
	for i, f := range flags {
		p = pos
		if v, pos = uvarintAt(raw, pos); pos < 0 {
			return d.badVarint(p, "size")
		}
		// Field by field: an Op built aside and copied would be written
		// in small pieces and read back whole, which stalls the CPU.
		o := &ops[i]
		o.Size = v
		o.Peer = -int32(f >> 4 & 1) // AnySource
		o.Tag = -uint32(f >> 3 & 1) // AnyTag
		o.CPU, o.NIC, o.Kind = 0, 0, Kind(f&binKindMask)
	}
	numRanks := uint64(d.h.NumRanks)
	for i, f := range flags {
		if f&binKindMask == byte(Calc) || f&binAnySource != 0 {
			continue
		}
		p = pos
		if v, pos = uvarintAt(raw, pos); pos < 0 {
			return d.badVarint(p, "peer")
		}
		if v >= numRanks {
			return d.failRaw(p, "rank %d, op %d: relative peer %d, want 0..%d", rank, i, v, numRanks-1)
		}
		peer := uint64(rank) + v // (rank + v) mod numRanks: both are below it
		if peer >= numRanks {
			peer -= numRanks
		}
		ops[i].Peer = int32(peer)
	}
	if all&binTag != 0 {
		for i, f := range flags {
			if f&binTag == 0 {
				continue
			}
			p = pos
			if v, pos = uvarintAt(raw, pos); pos < 0 {
				return d.badVarint(p, "tag")
			}
			if v > MaxTag {
				return d.failRaw(p, "rank %d, op %d: tag %d, more than %d", rank, i, v, uint64(MaxTag))
			}
			ops[i].Tag = uint32(v)
		}
	}
	if all&(binCPU|binNIC) != 0 {
		d.pos = pos
		if err := d.indexColumn(b, flags, binCPU, "cpu", d.h.NumCPUs, rank); err != nil {
			return err
		}
		if err := d.indexColumn(b, flags, binNIC, "nic", d.h.NumNICs, rank); err != nil {
			return err
		}
		pos = d.pos
	}
	b.DepStart = slices.Grow(b.DepStart, nops+1)[:nops+1]
	ds := b.DepStart
	ds[0] = 0
	edges := uint64(0)
	for i := 0; i < nops; i++ {
		p = pos
		if v, pos = uvarintAt(raw, pos); pos < 0 {
			return d.badVarint(p, "succ_count")
		}
		// Each edge takes a byte: their number is below len(raw), 2^32.
		if edges += v; v > uint64(len(raw)-pos) || edges > uint64(len(raw)-pos) || edges > math.MaxInt32 {
			return d.failRaw(p, "rank %d, op %d: %d edges, %d in all, in %d remaining bytes", rank, i, v, edges, len(raw)-pos)
		}
		ds[i+1] = int32(edges)
	}
	b.Deps = slices.Grow(b.Deps, int(edges))[:edges]
	deps := b.Deps
	backward := false
	e := 0
	for i := 0; i < nops; i++ {
		for end := int(ds[i+1]); e < end; e++ {
			p = pos
			if v, pos = uvarintAt(raw, pos); pos < 0 {
				return d.badVarint(p, "edge")
			}
			z := v >> 1
			succ := int64(i) + (int64(z>>1) ^ -int64(z&1))
			if succ < 0 || succ >= int64(nops) {
				return d.failRaw(p, "rank %d, op %d: successor op %d outside 0..%d", rank, i, succ, nops-1)
			}
			backward = backward || succ <= int64(i)
			deps[e] = MakeDep(int32(succ), v&1 != 0)
		}
	}
	d.backward = backward
	p = pos
	nl, pos := uvarintAt(raw, pos)
	if pos < 0 {
		return d.badVarint(p, "label_count")
	}
	if nl > n || nl > uint64(len(raw)-pos)/2 {
		return d.failRaw(p, "rank %d: %d labels for %d ops in %d remaining bytes", rank, nl, n, len(raw)-pos)
	}
	next := uint64(0) // lowest op index the next label may have
	for j := uint64(0); j < nl; j++ {
		p = pos
		gap, q := uvarintAt(raw, pos)
		if q < 0 {
			return d.badVarint(p, "label gap")
		}
		if gap >= n-next { // next < n: one label per op at most
			return d.failRaw(p, "rank %d: label of op %d or later, the rank has %d ops", rank, next, n)
		}
		op := next + gap
		p = q
		ln, q := uvarintAt(raw, q)
		if q < 0 {
			return d.badVarint(p, "label length")
		}
		if ln > uint64(len(raw)-q) {
			return &BinaryError{Offset: d.chunkOff, RawOffset: int64(p),
				Err: fmt.Errorf("rank %d, op %d: label of %d bytes beyond the chunk data: %w", rank, op, ln, io.ErrUnexpectedEOF)}
		}
		b.Labels = append(b.Labels, Label{Op: int32(op), Name: string(raw[q : q+int(ln)])})
		pos = q + int(ln)
		next = op + 1
	}
	d.pos = pos
	return nil
}

// ReadBinary reads a whole schedule in the binary form. The schedule's
// NumCPUs and NumNICs are the header's, which may exceed the largest
// ones used. Its slices are allocated at their final size: the chunks
// are counted first, then decoded in parallel straight into place.
func ReadBinary(r io.Reader) (*Schedule, error) {
	var sb scheduleBuilder
	if err := ReadBinaryBlocks(r, sb.alloc, sb.visit); err != nil {
		return nil, err
	}
	return sb.s, nil
}

// scheduleBuilder builds a Schedule at its final size from the rank
// blocks of ReadBinaryBlocks or ReadTextBlocks.
type scheduleBuilder struct {
	s  *Schedule
	mu sync.Mutex // guards s.Labels
}

func (sb *scheduleBuilder) alloc(h Header, ops, edges, _ int) error {
	if ops > math.MaxInt32 || edges > math.MaxInt32 {
		return fmt.Errorf("goal: %d ops and %d edges: %w", ops, edges, ErrTooLarge)
	}
	s := &Schedule{NumRanks: h.NumRanks, NumCPUs: h.NumCPUs, NumNICs: h.NumNICs,
		RankStart: make([]int32, h.NumRanks+1), DepStart: make([]int32, ops+1)}
	if ops > 0 {
		s.Ops = make([]Op, ops)
	}
	if edges > 0 {
		s.Deps = make([]Dep, edges)
	}
	sb.s = s
	return nil
}

func (sb *scheduleBuilder) visit(_ int, b *RankBlock, op, edge int) {
	s := sb.s
	copy(s.Ops[op:], b.Ops)
	ds := s.DepStart[op+1 : op+len(b.Ops)+1]
	for i := range ds {
		ds[i] = int32(edge) + b.DepStart[i+1]
	}
	copy(s.Deps[edge:], b.Deps)
	s.RankStart[b.Rank+1] = int32(op + len(b.Ops))
	if len(b.Labels) > 0 {
		sb.mu.Lock()
		if s.Labels == nil {
			s.Labels = make(map[int32]string)
		}
		for _, l := range b.Labels {
			s.Labels[int32(op)+l.Op] = l.Name
		}
		sb.mu.Unlock()
	}
}

// ReadBinaryBlocks reads a whole schedule in the binary form and hands
// out its rank blocks for the caller to store: it reads the compressed
// chunks, counts their ops and edges (decompressing them on up to
// GOMAXPROCS goroutines), calls alloc once with the header and the
// totals, and then decodes the chunks again, in parallel, calling visit
// for every rank block. op and edge are the indexes the block's first op
// and first edge have in the whole schedule, ranks in order: the blocks
// tile [0, ops) and [0, edges) in rank order, so visit can copy each into
// place. visit is called concurrently for different blocks, and b is only
// valid during the call. Blocks pass Validate, as with Reader.Next.
//
// The decoding goroutines are numbered 0 .. workers-1, and alloc is told
// their number; w is the number of the one calling visit, and calls with
// the same w never overlap. A caller that totals something over all
// blocks can keep one sum per goroutine and add them up afterwards,
// rather than contend for one counter on every block.
//
// On a malformed file it returns the error that a Reader would return
// first, and visit may have seen some blocks; an error of alloc is
// returned as it is.
func ReadBinaryBlocks(r io.Reader, alloc func(h Header, ops, edges, workers int) error, visit func(w int, b *RankBlock, op, edge int)) error {
	return readBinaryBlocks(r, alloc, visit, nil)
}

// BlockRepeat is a rank block equal byte for byte to the block of an
// earlier rank, Same: decoded, it is Same's block with every peer p of a
// send or receive (not AnySource) moved to p+Rank-Same modulo the number
// of ranks. Op and Edge are the indexes its first op and first edge have
// in the schedule, SameOp and SameEdge those of Same's block.
type BlockRepeat struct {
	Rank, Same       int32
	Op, Edge         int
	SameOp, SameEdge int
}

// ReadBinaryBlocksRepeats is ReadBinaryBlocks, but visit is called only
// for the first of the rank blocks that are equal byte for byte (the
// binary form stores peers relative to the rank, so a schedule made of
// copies has few distinct blocks); once every such block has been
// visited, repeat is called for each of the others, concurrently on the
// same goroutines (w as for visit). Blocks are told equal by their
// SHA-256 digests, computed in the counting pass.
func ReadBinaryBlocksRepeats(r io.Reader, alloc func(h Header, ops, edges, workers int) error, visit func(w int, b *RankBlock, op, edge int), repeat func(w int, x BlockRepeat)) error {
	return readBinaryBlocks(r, alloc, visit, repeat)
}

// blockDigest is the bytes of a block's digest kept (a SHA-256 prefix).
const blockDigest = 16

func readBinaryBlocks(r io.Reader, alloc func(h Header, ops, edges, workers int) error, visit func(w int, b *RankBlock, op, edge int), repeat func(w int, x BlockRepeat)) error {
	br, err := NewReader(r)
	if err != nil {
		return err
	}
	var (
		frames []binFrame
		tail   error // what ended the chunks if not the end marker
	)
	for {
		f, err := br.nextFrame(nil)
		if err == io.EOF {
			break
		}
		if err != nil {
			tail = err
			break
		}
		frames = append(frames, f)
		br.next = f.first + f.ranks
	}
	workers := make([]binWorker, max(1, min(runtime.GOMAXPROCS(0), len(frames))))
	for i := range workers {
		workers[i].id = i
	}
	workers[0].dec = br.dec
	// Count. A chunk that cannot be counted is malformed; the decoder
	// then finds the error, in file order.
	failed := parallelFrames(workers, len(frames), func(w *binWorker, i int) error {
		f := &frames[i]
		var err error
		if w.raw, err = f.decompress(w.dec, w.raw); err != nil {
			return err
		}
		var ok bool
		if repeat != nil {
			ok = f.digestChunk(w.raw)
		} else {
			f.ops, f.edges, ok = countChunk(w.raw, f.ranks)
		}
		if !ok {
			return errCount
		}
		return nil
	})
	if failed >= 0 || tail != nil {
		return firstError(&workers[0], br.h, frames, tail)
	}
	ops, edges := 0, 0
	opBase := make([]int, len(frames))
	edgeBase := make([]int, len(frames))
	for i := range frames {
		opBase[i], edgeBase[i] = ops, edges
		ops += frames[i].ops
		edges += frames[i].edges
	}
	if err := alloc(br.h, ops, edges, len(workers)); err != nil {
		return err
	}
	var repeated map[int32]bool
	if repeat != nil {
		repeated = markRepeats(frames)
	}
	var errs []error
	if len(frames) > 0 {
		errs = make([]error, len(frames))
	}
	failed = parallelFrames(workers, len(frames), func(w *binWorker, i int) error {
		f := &frames[i]
		var err error
		if w.raw, err = f.decompress(w.dec, w.raw); err != nil {
			return err
		}
		d := chunkDecoder{h: br.h, raw: w.raw, chunkOff: f.off}
		op, edge := opBase[i], edgeBase[i]
		opEnd, edgeEnd := op+f.ops, edge+f.edges
		for k := 0; k < f.ranks; k++ {
			if f.same != nil && f.same[k] >= 0 {
				// A repeat, whose extent the counting pass found.
				end, _, _, _ := skimBlock(d.raw, d.pos)
				d.pos = end
				op += int(f.blockOps[k])
				edge += int(f.blockEdges[k])
				continue
			}
			if w.work, err = d.block(&w.b, int32(f.first+k), k == f.ranks-1, w.work); err != nil {
				return err
			}
			if op+len(w.b.Ops) > opEnd || edge+len(w.b.Deps) > edgeEnd {
				return errCount
			}
			visit(w.id, &w.b, op, edge)
			op += len(w.b.Ops)
			edge += len(w.b.Deps)
		}
		if op != opEnd || edge != edgeEnd {
			return errCount
		}
		return nil
	}, errs...)
	if failed >= 0 {
		if errs[failed] == errCount {
			return &BinaryError{Offset: frames[failed].off, RawOffset: -1, Err: errCount}
		}
		return errs[failed]
	}
	if len(repeated) > 0 {
		callRepeats(workers, frames, opBase, edgeBase, repeated, repeat)
	}
	return nil
}

// digestChunk counts the ops and edges of f's rank blocks in raw, its
// decompressed chunk, per block and in all, and digests each block's
// bytes (countChunk's reading). ok is false if raw does not have that
// structure.
func (f *binFrame) digestChunk(raw []byte) bool {
	f.blockOps, f.blockEdges = make([]int32, f.ranks), make([]int32, f.ranks)
	f.digest = make([][blockDigest]byte, f.ranks)
	f.ops, f.edges = 0, 0
	pos := 0
	for k := range f.ranks {
		end, n, e, ok := skimBlock(raw, pos)
		if !ok {
			return false
		}
		sum := sha256.Sum256(raw[pos:end])
		copy(f.digest[k][:], sum[:])
		f.blockOps[k], f.blockEdges[k] = int32(n), int32(e)
		f.ops += n
		f.edges += e
		pos = end
	}
	return pos == len(raw)
}

// markRepeats sets, for every rank block of frames, the earlier rank whose
// block has the same digest, or -1 (binFrame.same), and returns the ranks
// that some later block repeats.
func markRepeats(frames []binFrame) map[int32]bool {
	first := map[[blockDigest]byte]int32{}
	repeated := map[int32]bool{}
	for i := range frames {
		f := &frames[i]
		f.same = make([]int32, f.ranks)
		for k := range f.ranks {
			if q, ok := first[f.digest[k]]; ok {
				f.same[k] = q
				repeated[q] = true
			} else {
				first[f.digest[k]] = int32(f.first + k)
				f.same[k] = -1
			}
		}
		f.digest = nil
	}
	return repeated
}

// callRepeats calls repeat for every repeated block of frames, frame by
// frame on the workers' goroutines; repeated are the ranks repeated.
func callRepeats(workers []binWorker, frames []binFrame, opBase, edgeBase []int, repeated map[int32]bool, repeat func(w int, x BlockRepeat)) {
	type start struct{ op, edge int }
	leaders := make(map[int32]start, len(repeated)) // where the repeated blocks start
	for i := range frames {
		f := &frames[i]
		op, edge := opBase[i], edgeBase[i]
		for k := range f.ranks {
			if r := int32(f.first + k); repeated[r] {
				leaders[r] = start{op, edge}
			}
			op += int(f.blockOps[k])
			edge += int(f.blockEdges[k])
		}
	}
	parallelFrames(workers, len(frames), func(w *binWorker, i int) error {
		f := &frames[i]
		op, edge := opBase[i], edgeBase[i]
		for k := range f.ranks {
			if q := f.same[k]; q >= 0 {
				s := leaders[q]
				repeat(w.id, BlockRepeat{Rank: int32(f.first + k), Same: q, Op: op, Edge: edge, SameOp: s.op, SameEdge: s.edge})
			}
			op += int(f.blockOps[k])
			edge += int(f.blockEdges[k])
		}
		return nil
	})
}

// errCount is a chunk that the counting pass does not understand, or
// whose decoded blocks disagree with the count. The decoder reports such a
// chunk's fault precisely, so a user never sees errCount unless the two
// disagree, which would be a bug.
var errCount = errors.New("chunk structure not understood (goal's counting pass disagrees with its decoder)")

// binWorker is what one goroutine of ReadBinaryBlocks decodes with.
type binWorker struct {
	id   int // index in the workers
	dec  *zstd.Decoder
	raw  []byte
	b    RankBlock
	work []int32
	// Workers are adjacent in a slice, and each writes its own b and work
	// on every block: without a cache line between them, the last line of
	// one and the first of the next bounced between the cores, and two
	// goroutines decoded a broadcast's 131,072 small blocks no faster than
	// one.
	_ [64]byte
}

// parallelFrames calls f for frames 0..n-1 on len(workers) goroutines and
// returns the lowest index for which f failed, or -1. errs, if given, has
// room for the error of every frame. Frames beyond a failed one may be
// skipped.
func parallelFrames(workers []binWorker, n int, f func(w *binWorker, i int) error, errs ...error) int {
	var (
		next   atomic.Int64
		failed atomic.Int64 // lowest failed frame, n if none
		wg     sync.WaitGroup
	)
	failed.Store(int64(n))
	work := func(w *binWorker) {
		for {
			i := int(next.Add(1) - 1)
			if i >= n || int64(i) > failed.Load() {
				return
			}
			if err := f(w, i); err != nil {
				if errs != nil {
					errs[i] = err
				}
				for {
					old := failed.Load()
					if int64(i) >= old || failed.CompareAndSwap(old, int64(i)) {
						break
					}
				}
			}
		}
	}
	for k := 1; k < len(workers); k++ {
		wg.Add(1)
		go func(w *binWorker) {
			defer wg.Done()
			if w.dec == nil {
				var err error
				if w.dec, err = newZstdDecoder(); err != nil {
					return // the other workers take the frames
				}
			}
			work(w)
		}(&workers[k])
	}
	work(&workers[0])
	wg.Wait()
	if f := int(failed.Load()); f < n {
		return f
	}
	return -1
}

// firstError is the error a Reader meets first in a file whose chunks are
// frames, followed by tail (nil for the end marker): it decodes the
// frames in order until one fails.
func firstError(w *binWorker, h Header, frames []binFrame, tail error) error {
	for i := range frames {
		f := &frames[i]
		var err error
		if w.raw, err = f.decompress(w.dec, w.raw); err != nil {
			return err
		}
		d := chunkDecoder{h: h, raw: w.raw, chunkOff: f.off}
		for k := 0; k < f.ranks; k++ {
			if w.work, err = d.block(&w.b, int32(f.first+k), k == f.ranks-1, w.work); err != nil {
				return err
			}
		}
	}
	if tail != nil {
		return tail
	}
	return &BinaryError{Offset: 0, RawOffset: -1, Err: errCount}
}

// countChunk counts the ops and dependency edges of the ranks rank blocks
// in raw, a decompressed chunk, reading only the fields that say how long
// the others are. ok is false if raw does not have that structure; the
// decoder then says what is wrong.
func countChunk(raw []byte, ranks int) (ops, edges int, ok bool) {
	pos := 0
	for ; ranks > 0; ranks-- {
		var n, e int
		if pos, n, e, ok = skimBlock(raw, pos); !ok {
			return 0, 0, false
		}
		ops += n
		edges += e
	}
	return ops, edges, pos == len(raw)
}

// skimBlock finds the end of the rank block at raw[pos:] from the fields
// that say how long the others are, and counts its ops and dependency
// edges. ok is false if raw does not have that structure.
func skimBlock(raw []byte, pos int) (end, ops, edges int, ok bool) {
	n, p, ok := skimUvarint(raw, pos)
	if !ok || n > uint64(len(raw)-p)/binMinOpBytes {
		return 0, 0, 0, false
	}
	pos = p + int(n)
	vals := int(n) // sizes
	for _, f := range raw[p:pos] {
		if f&binKindMask != byte(Calc) && f&binAnySource == 0 {
			vals++ // peer
		}
		vals += int(f>>2&1 + f>>5&1 + f>>6&1) // tag, cpu, nic
	}
	if pos, ok = skipUvarints(raw, pos, vals); !ok {
		return 0, 0, 0, false
	}
	e := uint64(0)
	for i := uint64(0); i < n; i++ {
		var v uint64
		if v, pos, ok = skimUvarint(raw, pos); !ok {
			return 0, 0, 0, false
		}
		if e += v; v > uint64(len(raw)) || e > uint64(len(raw)) {
			return 0, 0, 0, false
		}
	}
	if pos, ok = skipUvarints(raw, pos, int(e)); !ok {
		return 0, 0, 0, false
	}
	nl, p2, ok := skimUvarint(raw, pos)
	if !ok || nl > uint64(len(raw)) {
		return 0, 0, 0, false
	}
	pos = p2
	for j := uint64(0); j < nl; j++ {
		if pos, ok = skipUvarints(raw, pos, 1); !ok {
			return 0, 0, 0, false
		}
		var ln uint64
		if ln, pos, ok = skimUvarint(raw, pos); !ok || ln > uint64(len(raw)-pos) {
			return 0, 0, 0, false
		}
		pos += int(ln)
	}
	return pos, int(n), int(e), true
}

// skimUvarint reads a uvarint at raw[pos:] and returns it with the
// position after it.
func skimUvarint(raw []byte, pos int) (uint64, int, bool) {
	if pos < len(raw) && raw[pos] < 0x80 {
		return uint64(raw[pos]), pos + 1, true
	}
	if pos > len(raw) {
		return 0, pos, false
	}
	v, n := binary.Uvarint(raw[pos:])
	if n <= 0 {
		return 0, pos, false
	}
	return v, pos + n, true
}

// skipUvarints returns the position after the k uvarints at raw[pos:]:
// after their k-th final byte (one below 0x80), 8 bytes at a time where
// it can.
func skipUvarints(raw []byte, pos, k int) (int, bool) {
	for k >= 8 && pos+8 <= len(raw) {
		w := binary.LittleEndian.Uint64(raw[pos:])
		c := bits.OnesCount64(^w & 0x8080808080808080)
		if c > k {
			break
		}
		k -= c
		pos += 8
	}
	for ; k > 0; pos++ {
		if pos >= len(raw) {
			return pos, false
		}
		if raw[pos] < 0x80 {
			k--
		}
	}
	return pos, true
}
