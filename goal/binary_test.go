package goal

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// binBlock is one rank of a test schedule: its ops, the successors of
// each op (succ[i] for op i; may be shorter than ops) and its labels.
type binBlock struct {
	ops    []Op
	succ   [][]Dep
	labels []Label
}

// binSchedule builds a schedule from blocks, one per rank.
func binSchedule(tb testing.TB, blocks ...binBlock) *Schedule {
	tb.Helper()
	s := NewSchedule(len(blocks))
	var b RankBlock
	for r, bb := range blocks {
		b.Reset(int32(r))
		b.Ops = append(b.Ops, bb.ops...)
		b.DepStart = append(b.DepStart, 0)
		for i := range bb.ops {
			if i < len(bb.succ) {
				b.Deps = append(b.Deps, bb.succ[i]...)
			}
			b.DepStart = append(b.DepStart, int32(len(b.Deps)))
		}
		b.Labels = append(b.Labels, bb.labels...)
		if _, err := b.Validate(len(blocks), nil); err != nil {
			tb.Fatalf("test schedule: %v", err)
		}
		if err := s.AppendRank(&b); err != nil {
			tb.Fatalf("test schedule: %v", err)
		}
	}
	return s
}

// binEncode encodes s with chunks of about chunkTarget raw bytes.
func binEncode(tb testing.TB, s *Schedule, chunkTarget int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{NumRanks: s.NumRanks, NumCPUs: s.NumCPUs, NumNICs: s.NumNICs})
	if err != nil {
		tb.Fatal(err)
	}
	if chunkTarget > 0 {
		w.chunkTarget = chunkTarget
	}
	var b RankBlock
	for r := 0; r < s.NumRanks; r++ {
		s.Block(r, &b)
		if err := w.WriteRank(&b); err != nil {
			tb.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func binSend(size uint64, peer int32, tag uint32) Op {
	return Op{Kind: Send, Size: size, Peer: peer, Tag: tag}
}

func binRecv(size uint64, peer int32, tag uint32) Op {
	return Op{Kind: Recv, Size: size, Peer: peer, Tag: tag}
}

func binCalc(size uint64) Op { return Op{Kind: Calc, Size: size} }

func binDeps(ds ...Dep) []Dep { return ds }

// binSmall returns small schedules that cover the fields of the format.
func binSmall(tb testing.TB) []struct {
	name string
	s    *Schedule
} {
	many := make([]binBlock, 40)
	for r := range many {
		p := int32(len(many))
		many[r] = binBlock{
			ops: []Op{
				binSend(uint64(r)*1000, (int32(r)+1)%p, uint32(r)),
				binRecv(uint64(r)*1000, (int32(r)+p-1)%p, uint32(r)),
				binCalc(uint64(r)),
			},
			succ:   [][]Dep{nil, binDeps(MakeDep(2, false))},
			labels: []Label{{Op: int32(r % 3), Name: fmt.Sprintf("op-%d", r)}},
		}
	}
	cpus := binSchedule(tb,
		binBlock{ops: []Op{
			{Kind: Send, Size: 8, Peer: 1, CPU: 3, NIC: 2},
			{Kind: Calc, Size: 100, CPU: 1},
			{Kind: Recv, Size: 8, Peer: AnySource, Tag: AnyTag, NIC: 1},
		}},
		binBlock{ops: []Op{
			{Kind: Recv, Size: 8, Peer: 0, CPU: 2},
			{Kind: Send, Size: 8, Peer: 0, NIC: 1},
		}},
	)
	wideHeader := binSchedule(tb, binBlock{ops: []Op{binCalc(1)}})
	wideHeader.NumCPUs, wideHeader.NumNICs = 7, MaxNIC+1
	return []struct {
		name string
		s    *Schedule
	}{
		{"one rank", binSchedule(tb, binBlock{ops: []Op{binCalc(5)}})},
		{"ranks without ops", binSchedule(tb,
			binBlock{}, binBlock{ops: []Op{binSend(1, 0, 0), binRecv(1, 0, 0)}}, binBlock{}, binBlock{})},
		{"wildcards and big fields", binSchedule(tb,
			binBlock{ops: []Op{
				binRecv(math.MaxUint64, AnySource, AnyTag),
				binRecv(0, AnySource, 7),
				binRecv(1, 1, AnyTag),
				binSend(1<<40, 1, MaxTag),
				binSend(3, 1, AnyTag),
				binCalc(math.MaxUint64),
			}},
			binBlock{ops: []Op{binRecv(3, 0, 1<<31), binSend(0, 0, 0)}})},
		{"cpus and nics", cpus},
		{"header counts above the ops", wideHeader},
		{"edges", binSchedule(tb,
			binBlock{
				ops: []Op{binCalc(1), binCalc(2), binSend(3, 1, 0), binRecv(4, 1, 0), binCalc(5)},
				succ: [][]Dep{
					binDeps(MakeDep(4, false), MakeDep(1, true), MakeDep(2, false)), // not in order
					nil,
					binDeps(MakeDep(3, true)),
					nil,
					binDeps(MakeDep(1, false)), // a successor before its predecessor
				},
			},
			binBlock{
				ops:  []Op{binRecv(3, 0, 0), binSend(4, 0, 0)},
				succ: [][]Dep{nil, binDeps(MakeDep(0, true))},
			})},
		{"labels", binSchedule(tb,
			binBlock{
				ops: []Op{binCalc(1), binCalc(2), binCalc(3), binCalc(4), binCalc(5)},
				labels: []Label{
					{Op: 0, Name: ""}, {Op: 1, Name: "l2"}, {Op: 3, Name: "bcast/round 3 ✓"},
					{Op: 4, Name: strings.Repeat("x", 300)},
				},
			},
			binBlock{ops: []Op{binCalc(1)}, labels: []Label{{Op: 0, Name: "only"}}})},
		{"many ranks", binSchedule(tb, many...)},
	}
}

func TestBinaryRoundTrip(t *testing.T) {
	for _, tc := range binSmall(t) {
		for _, chunk := range []int{0, 1, 64} {
			t.Run(fmt.Sprintf("%s/chunk=%d", tc.name, chunk), func(t *testing.T) {
				data := binEncode(t, tc.s, chunk)
				if !IsBinary(data) {
					t.Fatalf("IsBinary(% x...) = false", data[:8])
				}
				got, err := ReadBinary(bytes.NewReader(data))
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, tc.s) {
					t.Errorf("round trip changed the schedule:\ngot  %+v\nwant %+v", got, tc.s)
				}
				var buf bytes.Buffer
				if err := WriteBinary(&buf, tc.s); err != nil {
					t.Fatal(err)
				}
				if got, err := ReadBinary(&buf); err != nil || !reflect.DeepEqual(got, tc.s) {
					t.Errorf("WriteBinary round trip: %v, %+v", err, got)
				}
			})
		}
	}
}

func TestBinaryReaderStream(t *testing.T) {
	s := binSmall(t)[len(binSmall(t))-1].s
	data := binEncode(t, s, 100)
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h != (Header{NumRanks: s.NumRanks, NumCPUs: 1, NumNICs: 1}) {
		t.Errorf("Header() = %+v", h)
	}
	var b, want RankBlock
	for rank := 0; rank < s.NumRanks; rank++ {
		if err := r.Next(&b); err != nil {
			t.Fatalf("rank %d: %v", rank, err)
		}
		s.Block(rank, &want)
		if !reflect.DeepEqual(b.Ops, want.Ops) || !reflect.DeepEqual(b.Deps, want.Deps) ||
			!reflect.DeepEqual(b.DepStart, want.DepStart) || !reflect.DeepEqual(b.Labels, want.Labels) || b.Rank != want.Rank {
			t.Fatalf("rank %d: got %+v, want %+v", rank, b, want)
		}
	}
	for range 2 {
		if err := r.Next(&b); err != io.EOF {
			t.Fatalf("Next after the last rank = %v, want io.EOF", err)
		}
	}
}

func TestIsBinary(t *testing.T) {
	for _, tc := range []struct {
		name   string
		prefix []byte
		want   bool
	}{
		{"magic", BinaryMagic, true},
		{"magic and more", append(append([]byte(nil), BinaryMagic...), 1, 2, 3), true},
		{"short", BinaryMagic[:7], false},
		{"text", []byte("num_ranks 4\n"), false},
		{"empty", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsBinary(tc.prefix); got != tc.want {
				t.Errorf("IsBinary(%q) = %v, want %v", tc.prefix, got, tc.want)
			}
		})
	}
}

// binFile assembles a file from header fields and chunks given as their
// decompressed content; a chunk of nil content is the end marker.
type binChunk struct {
	first, count uint64
	raw          []byte
	comp         []byte // if set, the frame itself
}

func binFile(tb testing.TB, version uint64, header [4]uint64, chunks ...binChunk) []byte {
	tb.Helper()
	enc, err := zstd.NewWriter(nil, zstd.WithSingleSegment(true))
	if err != nil {
		tb.Fatal(err)
	}
	out := append([]byte(nil), BinaryMagic...)
	out = binary.AppendUvarint(out, version)
	for _, v := range header {
		out = binary.AppendUvarint(out, v)
	}
	for _, c := range chunks {
		if c.raw == nil && c.comp == nil {
			out = append(out, 0)
			continue
		}
		comp := c.comp
		if comp == nil {
			comp = enc.EncodeAll(c.raw, nil)
		}
		out = binary.AppendUvarint(out, uint64(len(comp)))
		out = binary.AppendUvarint(out, c.first)
		out = binary.AppendUvarint(out, c.count)
		out = append(out, comp...)
	}
	return out
}

// binUV concatenates uvarints and raw bytes (given as []byte) into chunk content.
func binUV(vs ...any) []byte {
	var out []byte
	for _, v := range vs {
		switch v := v.(type) {
		case int:
			out = binary.AppendUvarint(out, uint64(v))
		case uint64:
			out = binary.AppendUvarint(out, v)
		case []byte:
			out = append(out, v...)
		case string:
			out = append(out, v...)
		default:
			panic(fmt.Sprintf("binUV: %T", v))
		}
	}
	return out
}

func TestBinaryReject(t *testing.T) {
	h2 := [4]uint64{2, 1, 1, 0}
	end := binChunk{}
	emptyRank := binUV(0, 0) // no ops, no labels
	// A zstd frame header that claims 1 GiB of content, then nothing.
	huge := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x80 | 0x20, 0, 0, 0, 0x40} // single segment, 4-byte FCS
	bad := func(op []byte) []byte { return binUV(1, op, 0) }
	for _, tc := range []struct {
		name    string
		data    []byte
		want    string // in the message
		eof     bool   // wraps io.ErrUnexpectedEOF
		offset  int64  // BinaryError.Offset, -1 not to check
		rawOff  int64  // BinaryError.RawOffset
		blkErr  bool   // wraps a *BlockError
		noMagic bool
	}{
		{name: "empty", data: nil, want: "unexpected EOF", eof: true, offset: 0, rawOff: -1},
		{name: "text", data: []byte("num_ranks 2\nrank 0 {\n}\n"), want: "bad magic", offset: 0, rawOff: -1},
		{name: "png", data: []byte("\x89PNG\r\n\x1a\n\x00"), want: "bad magic", offset: 0, rawOff: -1},
		{name: "version 0", data: binFile(t, 0, h2), want: "format version 0; this reader reads versions 1 through 1", offset: 8, rawOff: -1},
		{name: "version 2", data: binFile(t, 2, h2), want: "format version 2; this reader reads versions 1 through 1", offset: 8, rawOff: -1},
		{name: "version huge", data: binFile(t, 1<<40, h2), want: "format version 1099511627776", offset: 8, rawOff: -1},
		{name: "too many ranks", data: binFile(t, 1, [4]uint64{1 << 31, 1, 1, 0}), want: "2147483648 ranks", offset: 9, rawOff: -1},
		{name: "no cpus", data: binFile(t, 1, [4]uint64{2, 0, 1, 0}), want: "0 cpus", offset: 10, rawOff: -1},
		{name: "too many nics", data: binFile(t, 1, [4]uint64{2, 1, 1<<16 + 1, 0}), want: "65537 nics", offset: 11, rawOff: -1},
		{name: "flags", data: binFile(t, 1, [4]uint64{2, 1, 1, 4}), want: "unknown header flags 0x4", offset: 12, rawOff: -1},
		{name: "varint overflow", data: append(append([]byte(nil), BinaryMagic...), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), want: "overflows", offset: 8, rawOff: -1},
		{name: "no end marker", data: binFile(t, 1, h2, binChunk{0, 2, binUV(emptyRank, emptyRank), nil}), want: "unexpected EOF", eof: true, offset: -1, rawOff: -1},
		{name: "early end marker", data: binFile(t, 1, h2, binChunk{0, 1, emptyRank, nil}, end), want: "end marker after 1 of 2 ranks", eof: true, offset: -1, rawOff: -1},
		{name: "chunk after the last rank", data: binFile(t, 1, h2, binChunk{0, 2, binUV(emptyRank, emptyRank), nil}, binChunk{2, 1, emptyRank, nil}, end), want: "chunk after the last rank", offset: -1, rawOff: -1},
		{name: "chunk skips a rank", data: binFile(t, 1, h2, binChunk{1, 1, emptyRank, nil}, end), want: "chunk starts at rank 1, expected rank 0", offset: 14, rawOff: -1},
		{name: "chunk of no ranks", data: binFile(t, 1, h2, binChunk{0, 0, emptyRank, nil}, end), want: "chunk of 0 ranks", offset: 15, rawOff: -1},
		{name: "chunk of too many ranks", data: binFile(t, 1, h2, binChunk{0, 3, emptyRank, nil}, end), want: "chunk of 3 ranks", offset: 15, rawOff: -1},
		{name: "not zstd", data: binFile(t, 1, h2, binChunk{0, 2, nil, []byte("hello, world")}, end), want: "zstd frame header", offset: 13, rawOff: -1},
		{name: "zstd claims too much", data: binFile(t, 1, h2, binChunk{0, 2, nil, huge}, end), want: "claims 1073741824 bytes", offset: 13, rawOff: -1},
		{name: "zstd content cut", data: binFile(t, 1, h2, binChunk{0, 2, nil, (func() []byte {
			enc, _ := zstd.NewWriter(nil, zstd.WithSingleSegment(true))
			c := enc.EncodeAll(bytes.Repeat([]byte("abcdefgh"), 1000), nil)
			return c[:len(c)-6]
		})()}, end), want: "zstd:", eof: true, offset: 13, rawOff: -1},
		{name: "short chunk data", data: binFile(t, 1, h2, binChunk{0, 2, emptyRank, nil}, end), want: "chunk data ends inside op_count", eof: true, offset: 13, rawOff: 2},
		{name: "trailing chunk data", data: binFile(t, 1, h2, binChunk{0, 2, binUV(emptyRank, emptyRank, 0), nil}, end), want: "1 bytes after the chunk's last rank block", offset: 13, rawOff: 4},
		{name: "too many ops", data: binFile(t, 1, h2, binChunk{0, 2, binUV(5, 3, 1, 0, 0, 0), nil}, end), want: "5 ops in", offset: 13, rawOff: 0},
		{name: "kind 0", data: binFile(t, 1, h2, binChunk{0, 2, binUV(bad(binUV(0, 1, 0)), emptyRank), nil}, end), want: "bad opflags 0x0", offset: 13, rawOff: 1},
		{name: "reserved bit", data: binFile(t, 1, h2, binChunk{0, 2, binUV(bad(binUV(0x83, 1, 0)), emptyRank), nil}, end), want: "bad opflags", offset: 13, rawOff: 1},
		{name: "tag and AnyTag", data: binFile(t, 1, h2, binChunk{0, 2, binUV(bad(binUV(0x0d, 1, 1, 5, 0)), emptyRank), nil}, end), want: "bad opflags", offset: 13, rawOff: 1},
		{name: "AnySource on send", data: binFile(t, 1, h2, binChunk{0, 2, binUV(bad(binUV(0x11, 1, 0)), emptyRank), nil}, end), want: "bad opflags", offset: 13, rawOff: 1},
		{name: "calc with nic", data: binFile(t, 1, h2, binChunk{0, 2, binUV(bad(binUV(0x43, 1, 1, 0)), emptyRank), nil}, end), want: "bad opflags", offset: 13, rawOff: 1},
		{name: "peer", data: binFile(t, 1, h2, binChunk{0, 2, binUV(bad(binUV(1, 1, 2, 0)), emptyRank), nil}, end), want: "relative peer 2, want 0..1", offset: 13, rawOff: 3},
		{name: "tag", data: binFile(t, 1, h2, binChunk{0, 2, binUV(bad(binUV(5, 1, 1, uint64(math.MaxUint32), 0)), emptyRank), nil}, end), want: "tag 4294967295", offset: 13, rawOff: 4},
		{name: "cpu", data: binFile(t, 1, h2, binChunk{0, 2, binUV(bad(binUV(0x23, 1, 1, 0)), emptyRank), nil}, end), want: "cpu 1, the header has 1 cpus", offset: 13, rawOff: 3},
		{name: "nic", data: binFile(t, 1, h2, binChunk{0, 2, binUV(bad(binUV(0x41, 1, 1, 2, 0)), emptyRank), nil}, end), want: "nic 2, the header has 1 nics", offset: 13, rawOff: 4},
		{name: "successor", data: binFile(t, 1, h2, binChunk{0, 2, binUV(bad(binUV(3, 1, 1, 2<<1)), emptyRank), nil}, end), want: "successor op 1 outside 0..0", offset: 13, rawOff: 4},
		{name: "cycle", data: binFile(t, 1, h2, binChunk{0, 2, binUV(2, 3, 3, 1, 1, 1, 1, 2<<1, 1<<1|1, 0, emptyRank), nil}, end), want: "dependency cycle", blkErr: true, offset: 13, rawOff: 0},
		{name: "too many edges", data: binFile(t, 1, h2, binChunk{0, 2, binUV(bad(binUV(3, 1, 100, 0, 0)), emptyRank), nil}, end), want: "100 edges", offset: 13, rawOff: 3},
		{name: "label beyond the ops", data: binFile(t, 1, h2, binChunk{0, 2, binUV(1, 3, 1, 0, 1, 1, 1, "x", emptyRank), nil}, end), want: "label of op 0 or later", offset: 13, rawOff: 5},
		{name: "two labels of the last op", data: binFile(t, 1, h2, binChunk{0, 2, binUV(2, 3, 3, 1, 1, 0, 0, 2, 1, 1, "x", 0, 1, "y", emptyRank), nil}, end), want: "label of op 2 or later", offset: 13, rawOff: 11},
		{name: "more labels than ops", data: binFile(t, 1, h2, binChunk{0, 2, binUV(1, 3, 1, 0, 2, 0, 1, "x", 0, 1, "y", emptyRank), nil}, end), want: "2 labels for 1 ops", offset: 13, rawOff: 4},
		{name: "label too long", data: binFile(t, 1, h2, binChunk{0, 2, binUV(1, 3, 1, 0, 1, 0, 50, "x", emptyRank), nil}, end), want: "label of 50 bytes", eof: true, offset: 13, rawOff: 6},
		{name: "chunk length overflow", data: append(binFile(t, 1, h2), 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f), want: "chunk of", offset: 13, rawOff: -1},
		{name: "chunk length beyond the file", data: append(binFile(t, 1, h2), 0xff, 0xff, 0xff, 0x0f, 0, 2, 1, 2, 3), want: "unexpected EOF", eof: true, offset: 22, rawOff: -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ReadBinary(bytes.NewReader(tc.data))
			if err == nil {
				t.Fatalf("ReadBinary succeeded: %+v", s)
			}
			if !errors.Is(err, ErrBinary) {
				t.Errorf("error %q does not wrap ErrBinary", err)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not contain %q", err, tc.want)
			}
			if got := errors.Is(err, io.ErrUnexpectedEOF); got != tc.eof {
				t.Errorf("error %q: wraps io.ErrUnexpectedEOF = %v, want %v", err, got, tc.eof)
			}
			var berr *BlockError
			if got := errors.As(err, &berr); got != tc.blkErr {
				t.Errorf("error %q: wraps *BlockError = %v, want %v", err, got, tc.blkErr)
			}
			var be *BinaryError
			if !errors.As(err, &be) {
				t.Fatalf("error %q is not a *BinaryError", err)
			}
			if tc.offset >= 0 && be.Offset != tc.offset || be.RawOffset != tc.rawOff {
				t.Errorf("error %q at offset %d, raw offset %d; want %d, %d", err, be.Offset, be.RawOffset, tc.offset, tc.rawOff)
			}
		})
	}
}

// binSmallFile is a multi-chunk encoding of a few ranks.
func binSmallFile(tb testing.TB) ([]byte, *Schedule) {
	tb.Helper()
	s := binSchedule(tb,
		binBlock{ops: []Op{binSend(10, 1, 3), binRecv(10, 2, AnyTag), binCalc(7)}, succ: [][]Dep{nil, binDeps(MakeDep(2, false))},
			labels: []Label{{Op: 1, Name: "r"}}},
		binBlock{ops: []Op{binRecv(10, 0, 3), {Kind: Send, Size: 1, Peer: 2, CPU: 1, NIC: 1}}, succ: [][]Dep{binDeps(MakeDep(1, true))}},
		binBlock{ops: []Op{{Kind: Send, Size: 10, Peer: 0, Tag: 4}, binRecv(1, AnySource, 0)}},
	)
	return binEncode(tb, s, 8), s
}

func TestBinaryTruncated(t *testing.T) {
	data, want := binSmallFile(t)
	for n := 0; n < len(data); n++ {
		s, err := ReadBinary(bytes.NewReader(data[:n]))
		if err == nil {
			t.Fatalf("cut at %d of %d bytes: ReadBinary succeeded: %+v", n, len(data), s)
		}
		if !errors.Is(err, ErrBinary) || !errors.Is(err, io.ErrUnexpectedEOF) {
			t.Errorf("cut at %d of %d bytes: error %q does not wrap ErrBinary and io.ErrUnexpectedEOF", n, len(data), err)
		}
	}
	if s, err := ReadBinary(bytes.NewReader(data)); err != nil || !reflect.DeepEqual(s, want) {
		t.Fatalf("whole file: %v", err)
	}
}

func TestBinaryCorrupted(t *testing.T) {
	data, want := binSmallFile(t)
	for i := range data {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			t.Run(fmt.Sprintf("byte %d^%#x", i, x), func(t *testing.T) {
				c := bytes.Clone(data)
				c[i] ^= x
				s, err := ReadBinary(bytes.NewReader(c))
				switch {
				case err != nil && !errors.Is(err, ErrBinary):
					t.Errorf("error %q does not wrap ErrBinary", err)
				case err == nil && i >= len(BinaryMagic)+5:
					// Past the header, zstd's checksum and the structure catch every change.
					t.Errorf("corrupted file read without error")
				case err == nil && reflect.DeepEqual(s, want):
					t.Errorf("corrupted file read as the original")
				}
			})
		}
	}
}

func TestBinaryWriterErrors(t *testing.T) {
	s := binSmall(t)[len(binSmall(t))-1].s
	block := func(r int) *RankBlock {
		var b RankBlock
		s.Block(r, &b)
		return &b
	}
	h := Header{NumRanks: s.NumRanks, NumCPUs: 1, NumNICs: 1}
	for _, tc := range []struct {
		name string
		h    Header
		run  func(w *Writer) error
		want string
	}{
		{name: "no cpus", h: Header{NumRanks: 1}, want: "0 cpus"},
		{name: "negative ranks", h: Header{NumRanks: -1, NumCPUs: 1, NumNICs: 1}, want: "-1 ranks"},
		{name: "too many nics", h: Header{NumRanks: 1, NumCPUs: 1, NumNICs: MaxNIC + 2}, want: "65537 nics"},
		{name: "rank out of order", h: h, run: func(w *Writer) error { return w.WriteRank(block(1)) },
			want: "rank 1 written where rank 0 was expected"},
		{name: "rank twice", h: h, run: func(w *Writer) error {
			if err := w.WriteRank(block(0)); err != nil {
				return err
			}
			return w.WriteRank(block(0))
		}, want: "rank 0 written where rank 1 was expected"},
		{name: "Close before all ranks", h: h, run: func(w *Writer) error {
			if err := w.WriteRank(block(0)); err != nil {
				return err
			}
			return w.Close()
		}, want: "Close after 1 of 40 ranks"},
		{name: "rank beyond the header", h: Header{NumRanks: 1, NumCPUs: 1, NumNICs: 1}, run: func(w *Writer) error {
			b := RankBlock{Rank: 0, DepStart: []int32{0}}
			if err := w.WriteRank(&b); err != nil {
				return err
			}
			b.Rank = 1
			return w.WriteRank(&b)
		}, want: "rank 1 written to a schedule of 1 ranks"},
		{name: "invalid block", h: Header{NumRanks: 1, NumCPUs: 1, NumNICs: 1}, run: func(w *Writer) error {
			return w.WriteRank(&RankBlock{Ops: []Op{binSend(1, 1, 0)}, DepStart: []int32{0, 0}})
		}, want: "peer rank 1 outside 0..0"},
		{name: "cpu beyond the header", h: Header{NumRanks: 1, NumCPUs: 2, NumNICs: 1}, run: func(w *Writer) error {
			return w.WriteRank(&RankBlock{Ops: []Op{{Kind: Calc, CPU: 2}}, DepStart: []int32{0, 0}})
		}, want: "cpu 2 or nic 0 beyond the header's 2 cpus"},
		{name: "WriteRank after Close", h: Header{NumRanks: 1, NumCPUs: 1, NumNICs: 1}, run: func(w *Writer) error {
			if err := w.WriteRank(&RankBlock{DepStart: []int32{0}}); err != nil {
				return err
			}
			if err := w.Close(); err != nil {
				return err
			}
			return w.WriteRank(&RankBlock{DepStart: []int32{0}})
		}, want: "WriteRank after Close"},
		{name: "no ranks", h: Header{NumRanks: 0, NumCPUs: 1, NumNICs: 1}, want: "0 ranks, want 1.."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w, err := NewWriter(io.Discard, tc.h)
			if err == nil {
				if tc.run == nil {
					t.Fatalf("NewWriter(%+v) succeeded", tc.h)
				}
				err = tc.run(w)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// binFailWriter fails after n bytes.
type binFailWriter struct{ n int }

var errBinTest = errors.New("disk full")

func (w *binFailWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		n := w.n
		w.n = 0
		return n, errBinTest
	}
	w.n -= len(p)
	return len(p), nil
}

func TestBinaryWriterIOError(t *testing.T) {
	data, s := binSmallFile(t)
	for n := 0; n < len(data); n++ {
		w := &binFailWriter{n: n}
		bw, err := NewWriter(w, Header{NumRanks: s.NumRanks, NumCPUs: s.NumCPUs, NumNICs: s.NumNICs})
		if err == nil {
			bw.chunkTarget = 8
			bw.batchSize = 1 + n%3 // a write fails on the encoder's goroutine
			var b RankBlock
			for r := 0; r < s.NumRanks && err == nil; r++ {
				s.Block(r, &b)
				err = bw.WriteRank(&b)
			}
			if err == nil {
				err = bw.Close()
			}
			if err2 := bw.Close(); err2 != err {
				t.Errorf("fail after %d bytes: Close again = %v, want %v", n, err2, err)
			}
		}
		if !errors.Is(err, errBinTest) {
			t.Errorf("fail after %d bytes: error %v", n, err)
		}
	}
}

// TestBinaryWriterBatches checks that the bytes a Writer writes do not
// depend on how its blocks are batched for the encoder's goroutine: they
// are those of encoding every block in line (binEncodeUnchecked), for
// batches of one block up to the whole schedule, chunks of a few bytes up
// to the default, and large blocks (here: 5 or 20 ops and edges or more)
// encoded in line between batches. A caller's block may change after
// WriteRank.
func TestBinaryWriterBatches(t *testing.T) {
	scheds := map[string]*Schedule{
		"dissemination": binDissemination(t, 64, 1024),
		"bcast":         binBinomialBcast(t, 100, 8),
		"stencil":       binStencil(t, 6, 3, true),
	}
	for name, s := range scheds {
		for _, chunk := range []int{8, 300, binChunkTarget} {
			want := binEncodeUnchecked(t, s, chunk)
			for _, batch := range []int{1, 2, 7, 100, binBatchSize} {
				for _, big := range []int{5, 20, binBatchSize} {
					var buf bytes.Buffer
					w, err := NewWriter(&buf, Header{NumRanks: s.NumRanks, NumCPUs: s.NumCPUs, NumNICs: s.NumNICs})
					if err != nil {
						t.Fatal(err)
					}
					w.chunkTarget, w.batchSize, w.bigBlock = chunk, batch, big
					var b RankBlock
					for r := 0; r < s.NumRanks; r++ {
						s.Block(r, &b)
						if err := w.WriteRank(&b); err != nil {
							t.Fatal(err)
						}
						for i := range b.Ops {
							b.Ops[i].Size++ // the caller reuses its block
						}
					}
					if err := w.Close(); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(buf.Bytes(), want) {
						t.Errorf("%s, chunks of %d bytes, batches of %d, blocks of %d in line: %d bytes differ from the %d written in line", name, chunk, batch, big, buf.Len(), len(want))
					}
				}
			}
		}
	}
}

// TestBinaryWriterCloseIncomplete checks that Close of a writer given up
// half way fails, and only returns once the encoder's goroutine is done
// with the underlying writer (the race detector sees the reads after it).
func TestBinaryWriterCloseIncomplete(t *testing.T) {
	s := binDissemination(t, 64, 1024)
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{NumRanks: s.NumRanks, NumCPUs: 1, NumNICs: 1})
	if err != nil {
		t.Fatal(err)
	}
	w.chunkTarget, w.batchSize = 8, 1
	var b RankBlock
	for r := 0; r < 40; r++ {
		s.Block(r, &b)
		if err := w.WriteRank(&b); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err == nil || !strings.Contains(err.Error(), "40 of 64 ranks") {
		t.Fatalf("Close after 40 of 64 ranks: %v", err)
	}
	n := buf.Len()
	if n == 0 {
		t.Fatal("nothing written for 40 ranks in chunks of 8 bytes")
	}
	buf.Reset()
	if err := w.Close(); err == nil || buf.Len() != 0 {
		t.Fatalf("Close again: %v, %d bytes written", err, buf.Len())
	}
}

func TestBinaryWriteIncomplete(t *testing.T) {
	s := NewSchedule(2)
	if err := WriteBinary(io.Discard, s); err == nil || !strings.Contains(err.Error(), "0 of 2 ranks") {
		t.Errorf("WriteBinary of an incomplete schedule: %v", err)
	}
}

// binDissemination is a dissemination barrier of p ranks: in round k,
// rank r sends size bytes to r+2^k and receives them from r-2^k (mod p),
// and its round-k send requires its round-(k-1) receive.
func binDissemination(tb testing.TB, p int, size uint64) *Schedule {
	s := NewSchedule(p)
	var b RankBlock
	for r := 0; r < p; r++ {
		b.Reset(int32(r))
		for k := 0; 1<<k < p; k++ {
			d := 1 << k
			b.Ops = append(b.Ops, binSend(size, int32((r+d)%p), uint32(k)), binRecv(size, int32((r-d%p+p)%p), uint32(k)))
		}
		b.DepStart = append(b.DepStart, 0)
		for i := range b.Ops {
			if i%2 == 1 && i+1 < len(b.Ops) {
				b.Deps = append(b.Deps, MakeDep(int32(i+1), false))
			}
			b.DepStart = append(b.DepStart, int32(len(b.Deps)))
		}
		if err := s.AppendRank(&b); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// binBinomialBcast is a binomial-tree broadcast of size bytes from rank 0
// of p ranks: a rank receives from its parent, then sends to its children,
// each send requiring the receive.
func binBinomialBcast(tb testing.TB, p int, size uint64) *Schedule {
	s := NewSchedule(p)
	var b RankBlock
	for r := 0; r < p; r++ {
		b.Reset(int32(r))
		mask := 1
		for ; mask < p; mask <<= 1 {
			if r&mask != 0 {
				b.Ops = append(b.Ops, binRecv(size, int32(r-mask), 0))
				break
			}
		}
		for mask >>= 1; mask > 0; mask >>= 1 {
			if r+mask < p {
				b.Ops = append(b.Ops, binSend(size, int32(r+mask), 0))
			}
		}
		b.DepStart = append(b.DepStart, 0)
		for i := range b.Ops {
			if i == 0 && r != 0 {
				for j := 1; j < len(b.Ops); j++ {
					b.Deps = append(b.Deps, MakeDep(int32(j), false))
				}
			}
			b.DepStart = append(b.DepStart, int32(len(b.Deps)))
		}
		if err := s.AppendRank(&b); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// binRingAllreduce is a ring allreduce of size bytes on p ranks: 2(p-1)
// steps, each a send to r+1, a receive from r-1 and, in the first p-1
// steps, a reduction; every step waits for the previous one.
func binRingAllreduce(tb testing.TB, p int, size uint64) *Schedule {
	s := NewSchedule(p)
	var b RankBlock
	seg := size / uint64(p)
	for r := 0; r < p; r++ {
		b.Reset(int32(r))
		b.DepStart = append(b.DepStart, 0)
		for step := 0; step < 2*(p-1); step++ {
			b.Ops = append(b.Ops, binSend(seg, int32((r+1)%p), 0), binRecv(seg, int32((r+p-1)%p), 0))
			if step < p-1 {
				b.Ops = append(b.Ops, binCalc(seg/4))
			}
		}
		for i := range b.Ops {
			// Each op requires its predecessor in program order: a chain.
			if i+1 < len(b.Ops) {
				b.Deps = append(b.Deps, MakeDep(int32(i+1), false))
			}
			b.DepStart = append(b.DepStart, int32(len(b.Deps)))
		}
		if err := s.AppendRank(&b); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// binStencil is a trace-like schedule: a 3D stencil on nx^3 ranks
// (not periodic), iters iterations of a compute phase (of random length
// if noisy) followed by a halo exchange with tag it, and every tenth
// iteration a recursive-doubling allreduce of 8 bytes.
func binStencil(tb testing.TB, nx, iters int, noisy bool) *Schedule {
	p := nx * nx * nx
	s := NewSchedule(p)
	rng := rand.New(rand.NewPCG(1, 2))
	var b RankBlock
	type edge struct{ from, to int32 }
	var edges []edge
	var nbrs, prev, last []int32
	for r := 0; r < p; r++ {
		b.Reset(int32(r))
		x, y, z := r%nx, r/nx%nx, r/(nx*nx)
		nbrs = nbrs[:0]
		for _, d := range [][3]int{{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}} {
			a, b, c := x+d[0], y+d[1], z+d[2]
			if a >= 0 && b >= 0 && c >= 0 && a < nx && b < nx && c < nx {
				nbrs = append(nbrs, int32(a+b*nx+c*nx*nx))
			}
		}
		edges, prev = edges[:0], prev[:0]
		for it := 0; it < iters; it++ {
			dur := uint64(100000)
			if noisy {
				dur += uint64(rng.IntN(20000))
			}
			c := int32(len(b.Ops))
			b.Ops = append(b.Ops, binCalc(dur))
			for _, q := range prev {
				edges = append(edges, edge{q, c})
			}
			prev = prev[:0]
			for _, n := range nbrs {
				i := int32(len(b.Ops))
				b.Ops = append(b.Ops, binRecv(8<<12, n, uint32(it)), binSend(8<<12, n, uint32(it)))
				edges = append(edges, edge{c, i}, edge{c, i + 1})
				prev = append(prev, i, i+1)
			}
			if it%10 != 9 {
				continue
			}
			last = append(last[:0], prev...)
			for m := 1; m < p; m <<= 1 {
				if q := r ^ m; q < p {
					i := int32(len(b.Ops))
					b.Ops = append(b.Ops, binSend(8, int32(q), 1<<20), binRecv(8, int32(q), 1<<20), binCalc(50))
					for _, l := range last {
						edges = append(edges, edge{l, i}, edge{l, i + 1})
					}
					edges = append(edges, edge{i, i + 2}, edge{i + 1, i + 2})
					last = append(last[:0], i+2)
				}
			}
			prev = append(prev[:0], last...)
		}
		// Group the edges by predecessor, keeping their order.
		b.DepStart = append(b.DepStart, make([]int32, len(b.Ops)+1)...)
		for _, e := range edges {
			b.DepStart[e.from+1]++
		}
		for i := range b.Ops {
			b.DepStart[i+1] += b.DepStart[i]
		}
		b.Deps = append(b.Deps, make([]Dep, len(edges))...)
		fill := append([]int32(nil), b.DepStart[:len(b.Ops)]...)
		for _, e := range edges {
			b.Deps[fill[e.from]] = MakeDep(e.to, false)
			fill[e.from]++
		}
		if err := s.AppendRank(&b); err != nil {
			tb.Fatal(err)
		}
	}
	return s
}

// binBytesPerOp is the file size per op of s.
func binBytesPerOp(tb testing.TB, s *Schedule) (float64, int) {
	var buf bytes.Buffer
	if err := WriteBinary(&buf, s); err != nil {
		tb.Fatal(err)
	}
	return float64(buf.Len()) / float64(s.NumOps()), buf.Len()
}

func TestBinarySize(t *testing.T) {
	for _, tc := range []struct {
		name string
		s    *Schedule
	}{
		{"dissemination 4096", binDissemination(t, 4096, 1024)},
		{"dissemination 3000", binDissemination(t, 3000, 1024)},
		{"binomial bcast 4096", binBinomialBcast(t, 4096, 1024)},
		{"ring allreduce 256", binRingAllreduce(t, 256, 1<<20)},
		{"stencil 8^3", binStencil(t, 8, 100, false)},
		{"stencil 8^3 noisy", binStencil(t, 8, 100, true)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			perOp, size := binBytesPerOp(t, tc.s)
			t.Logf("%d ops, %d bytes, %.4f bytes/op", tc.s.NumOps(), size, perOp)
			if perOp > 3 {
				t.Errorf("%.3f bytes/op, want at most 3", perOp)
			}
			got, err := ReadBinary(bytes.NewReader(binEncode(t, tc.s, 0)))
			if err != nil || !reflect.DeepEqual(got, tc.s) {
				t.Errorf("round trip: %v", err)
			}
		})
	}
}

// TestBinaryLargeRank writes a rank whose encoding is larger than a
// chunk and than zstd's window.
func TestBinaryLargeRank(t *testing.T) {
	if testing.Short() {
		t.Skip("large schedule")
	}
	const n = 1_500_000
	b := RankBlock{Ops: make([]Op, n), DepStart: make([]int32, n+1), Deps: make([]Dep, n-1)}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range b.Ops {
		b.Ops[i] = binCalc(uint64(rng.IntN(1 << 20)))
		if i+1 < n {
			b.Deps[i] = MakeDep(int32(i+1), i%2 == 0)
			b.DepStart[i+1] = int32(i + 1)
		} else {
			b.DepStart[i+1] = int32(i)
		}
	}
	s := NewSchedule(2)
	if err := s.AppendRank(&b); err != nil {
		t.Fatal(err)
	}
	b = RankBlock{Rank: 1, Ops: []Op{binCalc(1)}, DepStart: []int32{0, 0}}
	if err := s.AppendRank(&b); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{NumRanks: 2, NumCPUs: 1, NumNICs: 1})
	if err != nil {
		t.Fatal(err)
	}
	s.Block(0, &b)
	if err := w.WriteRank(&b); err != nil {
		t.Fatal(err)
	}
	if err := w.wait(); err != nil { // the encoder has the chunk
		t.Fatal(err)
	}
	if len(w.raw) != 0 {
		t.Fatalf("rank 0 of %d bytes not flushed", len(w.raw))
	}
	if w.comp[4]&(1<<5) == 0 || binary.LittleEndian.Uint32(w.comp[5:]) <= 8<<20 {
		t.Fatalf("want a single-segment zstd frame larger than the window, got a header of % x", w.comp[:9])
	}
	s.Block(1, &b)
	if err := w.WriteRank(&b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d bytes, %.3f bytes/op", buf.Len(), float64(buf.Len())/n)
	got, err := ReadBinary(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Fatal("round trip changed the schedule")
	}
}

func BenchmarkBinaryEncode(b *testing.B) {
	s := binDissemination(b, 4096, 1024)
	var buf bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		buf.Reset()
		if err := WriteBinary(&buf, s); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(buf.Len())/float64(s.NumOps()), "file-B/goalop")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.NumOps()), "ns/goalop")
}

// BenchmarkBinaryDecode streams the rank blocks through one RankBlock.
func BenchmarkBinaryDecode(b *testing.B) {
	s := binDissemination(b, 4096, 1024)
	data := binEncode(b, s, 0)
	var blk RankBlock
	b.ReportAllocs()
	for b.Loop() {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			b.Fatal(err)
		}
		for {
			err := r.Next(&blk)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(data))/float64(s.NumOps()), "file-B/goalop")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.NumOps()), "ns/goalop")
}

// BenchmarkReadBinary builds the whole Schedule.
func BenchmarkReadBinary(b *testing.B) {
	s := binDissemination(b, 4096, 1024)
	data := binEncode(b, s, 0)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadBinary(bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(data))/float64(s.NumOps()), "file-B/goalop")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(s.NumOps()), "ns/goalop")
}

// TestReadBinaryParallel reads files of many chunks, with labels, edges in
// both directions and errors in several chunks, with GOMAXPROCS 1, 2 and
// 4: ReadBinary decodes chunks in parallel, and must give the schedule, or
// the error, that a Reader gives.
func TestReadBinaryParallel(t *testing.T) {
	const p = 300
	blocks := make([]binBlock, p)
	for r := range blocks {
		blocks[r] = binBlock{
			ops: []Op{
				binRecv(uint64(r), int32((r+p-1)%p), uint32(r%7)),
				binCalc(uint64(r) * 3),
				binSend(uint64(r)+70000, int32((r+1)%p), uint32(r%7)),
				{Kind: Send, Size: 5, Peer: int32((r + 2) % p), CPU: uint16(r % 3), NIC: uint16(r % 2)},
				binRecv(5, AnySource, AnyTag),
			},
			succ: [][]Dep{binDeps(MakeDep(1, false), MakeDep(3, true)), binDeps(MakeDep(2, false)), nil, nil, binDeps(MakeDep(2, false))},
		}
		if r%5 == 0 {
			blocks[r].labels = []Label{{Op: 1, Name: fmt.Sprintf("calc-%d", r)}, {Op: 4, Name: ""}}
		}
	}
	s := binSchedule(t, blocks...)
	s.NumCPUs, s.NumNICs = 3, 2
	good := binEncode(t, s, 200) // many chunks
	if n := bytes.Count(good, []byte{0x28, 0xb5, 0x2f, 0xfd}); n < 20 {
		t.Fatalf("%d zstd frames; the test wants many chunks", n)
	}
	// Cycles in ranks 250 and 120, in different chunks: the Reader meets
	// rank 120's first.
	bad := *s
	bad.Deps = slices.Clone(s.Deps)
	bad.Deps[bad.DepStart[bad.RankStart[250]+4]] = MakeDep(4, false) // op 4 requires itself
	bad.Deps[bad.DepStart[bad.RankStart[120]+1]] = MakeDep(0, false) // 0 -> 1 -> 0
	badData := binEncodeUnchecked(t, &bad, 200)
	cut := good[:len(good)*2/3]
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, tc := range []struct {
		name string
		data []byte
	}{{"good", good}, {"cycle", badData}, {"cut", cut}} {
		want, wantErr := readBinarySequential(bytes.NewReader(tc.data))
		for _, procs := range []int{1, 2, 4} {
			runtime.GOMAXPROCS(procs)
			got, err := ReadBinary(bytes.NewReader(tc.data))
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s, GOMAXPROCS %d: ReadBinary gives %v, a Reader %v", tc.name, procs, err, wantErr)
			}
		}
		if tc.name == "good" && (wantErr != nil || !reflect.DeepEqual(want, s)) {
			t.Fatalf("good file: %v", wantErr)
		}
		if tc.name != "good" && wantErr == nil {
			t.Fatalf("%s: no error", tc.name)
		}
		if tc.name == "cycle" && !strings.Contains(wantErr.Error(), "rank 120") {
			t.Fatalf("cycle: %v, want rank 120's", wantErr)
		}
	}
}

// binEncodeUnchecked encodes s like binEncode, but without the Writer's
// validation, so that a test can write a schedule that readers reject.
func binEncodeUnchecked(tb testing.TB, s *Schedule, chunkTarget int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Header{NumRanks: s.NumRanks, NumCPUs: s.NumCPUs, NumNICs: s.NumNICs})
	if err != nil {
		tb.Fatal(err)
	}
	w.chunkTarget = chunkTarget
	var b RankBlock
	for r := 0; r < s.NumRanks; r++ {
		s.Block(r, &b)
		w.raw = w.appendBlock(w.raw, &b)
		w.next++
		w.encoded++
		if len(w.raw) >= w.chunkTarget {
			if err := w.flush(); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}
