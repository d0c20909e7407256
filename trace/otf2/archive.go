package otf2

// The OTF2 archive, decoded natively (no OTF2 library, no otf2-print).
//
// Layout. An archive NAME is
//
//	NAME.otf2      the anchor file: version, chunk sizes, counts, creator
//	NAME.def       the global definitions: strings, regions, locations,
//	               groups, communicators, the clock
//	NAME/L.def     per location L: mapping tables (the location's own ids
//	               of regions, communicators, ... → global ids) and clock
//	               offsets (the location's clock → the global clock)
//	NAME/L.evt     per location L: its events, in time order
//
// Buffer files. Every file is a sequence of chunks. Event files cut into
// chunks of the anchor's event chunk size, definition files into chunks of
// its definition chunk size; the last chunk may be shorter. A chunk starts
// with a header:
//
//	0x03           the chunk header marker
//	order          one byte: 0x42 in every archive seen, written on
//	               little-endian machines; the decoder reads only this order
//	first, last    two uint64 (8 bytes each, in that order), event files:
//	               the numbers of the chunk's first and last event, counted
//	               from 1 across the file; definition files: 1 and 0
//
// (the anchor file has the marker and the order byte only). Then come
// records, until one of the bytes
//
//	0x00           end of this chunk: the data goes on in the next chunk,
//	               which starts at the next multiple of the chunk size (the
//	               rest of this one is padding)
//	0x02           end of the data (the byte after it, 0x01, and any bytes
//	               after that are not read)
//
// A record is its id byte, its length (one byte, or 0xff followed by a
// uint64 of 8 bytes), then its attributes, which fill exactly that length.
// A reader skips a record it does not know by its length, and reads the
// attributes it knows in order: versions only ever append attributes, so a
// record shorter than this decoder expects is an older version of it (its
// missing attributes take their documented defaults), and a longer one
// has newer attributes after the known ones, skipped. Six event records of
// OTF2 1.0 whose only attribute is a compressed integer omit their length
// (the integer's first byte says how long it is): Enter (12), Leave (13),
// MpiIsendComplete (16), MpiIrecvRequest (17), MpiRequestTest (20) and
// MpiRequestCancelled (21). In event files two more ids are not events:
//
//	0x05           a timestamp, uint64 of 8 bytes, in ticks of the location's
//	               clock: the time of the events that follow it, up to the
//	               next timestamp (each chunk starts with one before its
//	               first event)
//	0x06           the attribute list of the next event (length-prefixed;
//	               skipped: gopsim uses no additional attributes)
//
// Encodings of attributes:
//
//	uint8          one byte
//	uint64 fixed   8 bytes, little endian (timestamps, a few others)
//	compressed     uint32, uint64 and int64 values (definition references,
//	               ranks, sizes, requests, counts): one byte n, the number of
//	               value bytes that follow (0 for zero; at most 4 or 8), then
//	               the value's low n bytes, little endian; n = 0xff is the
//	               all-ones "undefined" value (OTF2_UNDEFINED_UINT32 ...)
//	string         bytes up to a NUL
//
// The anchor file is not chunked beyond its header and uses fixed-size
// integers: "OTF2" NUL; two bytes 3, 2 (the anchor layout, the same in all
// archives seen); the version major, minor, bugfix (one byte each); the event
// and the definition chunk sizes (uint64); the substrate (1: POSIX files)
// and the compression (1: none), one byte each; the number of locations and
// of global definitions (uint64); the machine name, the creator and the
// description (strings); the number of properties (uint32) and as many
// name, value string pairs; the trace id (uint64); the numbers of snapshots
// and thumbnails (uint32); then 0x02.
//
// Versions. The layout above is that of OTF2 2.x and 3.x (Score-P 2 to 9,
// Debian's otf2 3.0); archives of other major versions are refused with
// ErrArchiveVersion, naming the file and the offset of the version. Anchors of
// compressed (zlib) or SIONlib archives are refused the same way.
//
// Design notes. The decoder reads one chunk at a time into one buffer
// (1 MiB with Score-P's default) and decodes events from it into a value
// Event the caller passes: memory follows one location, not the trace,
// and the event loop allocates nothing. Times are corrected to the global
// clock with the location's clock offsets (linear between consecutive
// offsets, as OTF2's reader does), and references are mapped to global
// ids with the location's mapping tables, so that an event says what
// otf2-print prints for it.

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gopsim/gopsim/trace"
)

// ErrArchive is what errors about malformed OTF2 archives unwrap to.
var ErrArchive = errors.New("otf2: malformed OTF2 archive")

// ErrArchiveVersion is what errors about archives of an OTF2 version (or a
// substrate or compression) the decoder does not read unwrap to.
var ErrArchiveVersion = errors.New("otf2: unsupported OTF2 archive")

// MinMajor and MaxMajor are the OTF2 major versions the decoder reads.
const (
	MinMajor = 2
	MaxMajor = 3
)

// ArchiveError is a malformed or unsupported part of an archive file. It
// unwraps to ErrArchive (or ErrArchiveVersion) and, when there is one, the cause.
type ArchiveError struct {
	File   string // the file
	Offset int64  // byte offset in the file; -1 for what the definitions say together (no rank group, ...)
	Msg    string
	Err    error // ErrArchive or ErrArchiveVersion, or nil for ErrArchive
}

func (e *ArchiveError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("otf2: %s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("otf2: %s: byte %d: %s", e.File, e.Offset, e.Msg)
}

// Unwrap gives ErrArchive (or ErrArchiveVersion), and ErrOTF2 and
// trace.ErrFormat as all errors about malformed traces.
func (e *ArchiveError) Unwrap() []error {
	err := e.Err
	if err == nil {
		err = ErrArchive
	}
	return []error{err, ErrOTF2, trace.ErrFormat}
}

// Version is an OTF2 version.
type Version struct{ Major, Minor, Bugfix uint8 }

func (v Version) String() string { return fmt.Sprintf("%d.%d.%d", v.Major, v.Minor, v.Bugfix) }

// Property is a name = value property of the anchor file.
type Property struct{ Name, Value string }

// Anchor is the content of an archive's anchor file.
type Anchor struct {
	Version               Version
	ChunkSizeEvents       uint64
	ChunkSizeDefs         uint64
	Substrate             uint8 // 1: POSIX files
	Compression           uint8 // 1: none
	NumLocations          uint64
	NumGlobalDefs         uint64
	Machine               string
	Creator               string
	Description           string
	Properties            []Property
	TraceID               uint64
	Snapshots, Thumbnails uint32
}

// Archive is an opened OTF2 archive: its anchor and global definitions.
// Events streams one location's events.
type Archive struct {
	Path   string // the anchor file
	Anchor Anchor
	Defs   *Definitions
}

// maxChunk bounds the chunk sizes an anchor may announce: the decoder
// holds one chunk in memory (Score-P's largest is 16 MiB).
const maxChunk = 1 << 28

// OpenArchive reads the anchor file path (NAME.otf2) and the global definitions
// (NAME.def) beside it.
func OpenArchive(path string) (*Archive, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("otf2: %w", err)
	}
	a := &Archive{Path: path}
	if a.Anchor, err = DecodeAnchor(path, data); err != nil {
		return nil, err
	}
	defPath := strings.TrimSuffix(path, filepath.Ext(path)) + ".def"
	f, err := os.Open(defPath)
	if err != nil {
		return nil, fmt.Errorf("otf2: global definitions: %w", err)
	}
	defer f.Close()
	if a.Defs, err = DecodeGlobalDefs(defPath, f, a.Anchor.ChunkSizeDefs); err != nil {
		return nil, err
	}
	return a, nil
}

// LocationFile is the path of location loc's file with extension ext
// (".evt" or ".def").
func (a *Archive) LocationFile(loc uint64, ext string) string {
	dir := strings.TrimSuffix(a.Path, filepath.Ext(a.Path))
	return filepath.Join(dir, fmt.Sprintf("%d%s", loc, ext))
}

// anchorMagic starts every anchor file after its header bytes.
var anchorMagic = []byte("OTF2\x00")

// DecodeAnchor decodes the bytes of an anchor file; name names it in
// errors.
func DecodeAnchor(name string, data []byte) (Anchor, error) {
	var an Anchor
	d := &fixedDec{name: name, b: data}
	if len(data) < 2 || data[0] != markChunk {
		return an, d.errf(0, "not an OTF2 anchor file (no chunk header 0x03 first)")
	}
	if data[1] != orderLittle {
		return an, d.versionErr(1, fmt.Sprintf("byte order 0x%02x: only 0x%02x (archives written on little-endian machines) is read", data[1], orderLittle))
	}
	d.off = 2
	if !bytes.HasPrefix(data[2:], anchorMagic) {
		return an, d.errf(2, "not an OTF2 anchor file (no \"OTF2\" after the header)")
	}
	d.off += int64(len(anchorMagic))
	d.u8()
	d.u8() // the anchor layout: 3, 2 in all archives seen
	verOff := d.off
	an.Version = Version{d.u8(), d.u8(), d.u8()}
	if d.err != nil {
		return an, d.err
	}
	if an.Version.Major < MinMajor || an.Version.Major > MaxMajor {
		return an, d.versionErr(verOff, fmt.Sprintf("OTF2 version %s: this decoder reads versions %d.x to %d.x", an.Version, MinMajor, MaxMajor))
	}
	csOff := d.off
	an.ChunkSizeEvents, an.ChunkSizeDefs = d.u64(), d.u64()
	subOff := d.off
	an.Substrate, an.Compression = d.u8(), d.u8()
	an.NumLocations, an.NumGlobalDefs = d.u64(), d.u64()
	an.Machine, an.Creator, an.Description = d.str(), d.str(), d.str()
	n := d.u32()
	for i := uint32(0); i < n && d.err == nil; i++ {
		an.Properties = append(an.Properties, Property{d.str(), d.str()})
	}
	an.TraceID = d.u64()
	an.Snapshots, an.Thumbnails = d.u32(), d.u32()
	if d.err != nil {
		return an, d.err
	}
	switch {
	case an.ChunkSizeEvents < 64 || an.ChunkSizeEvents > maxChunk || an.ChunkSizeDefs < 64 || an.ChunkSizeDefs > maxChunk:
		return an, d.errf(csOff, fmt.Sprintf("chunk sizes %d and %d bytes: expected 64 B to %d MiB", an.ChunkSizeEvents, an.ChunkSizeDefs, maxChunk>>20))
	case an.Substrate != 1:
		return an, d.versionErr(subOff, fmt.Sprintf("file substrate %d: only 1 (POSIX files) is read, not SIONlib or in-memory archives", an.Substrate))
	case an.Compression != 1:
		return an, d.versionErr(subOff+1, fmt.Sprintf("compression %d: only 1 (none) is read, not zlib-compressed archives", an.Compression))
	}
	return an, nil
}

// fixedDec decodes the fixed-size integers and strings of an anchor file.
// The first error sticks; later reads return zeros.
type fixedDec struct {
	name string
	b    []byte
	off  int64
	err  error
}

func (d *fixedDec) errf(off int64, msg string) error {
	return &ArchiveError{File: d.name, Offset: off, Msg: msg}
}

func (d *fixedDec) versionErr(off int64, msg string) error {
	return &ArchiveError{File: d.name, Offset: off, Msg: msg, Err: ErrArchiveVersion}
}

func (d *fixedDec) take(n int64, what string) []byte {
	if d.err != nil {
		return nil
	}
	if int64(len(d.b))-d.off < n {
		d.err = d.errf(d.off, fmt.Sprintf("file ends inside %s (%d bytes expected, %d left)", what, n, int64(len(d.b))-d.off))
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *fixedDec) u8() uint8 {
	if p := d.take(1, "a byte"); p != nil {
		return p[0]
	}
	return 0
}

func (d *fixedDec) u32() uint32 {
	if p := d.take(4, "a uint32"); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *fixedDec) u64() uint64 {
	if p := d.take(8, "a uint64"); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

func (d *fixedDec) str() string {
	if d.err != nil {
		return ""
	}
	i := bytes.IndexByte(d.b[d.off:], 0)
	if i < 0 {
		d.err = d.errf(d.off, "file ends inside a string (no NUL)")
		return ""
	}
	s := string(d.b[d.off : d.off+int64(i)])
	d.off += int64(i) + 1
	return s
}

// ---- buffer files: chunks and records ----

const (
	markEndChunk = 0x00
	markEndData  = 0x02
	markChunk    = 0x03
	markTime     = 0x05
	markAttrs    = 0x06
	orderLittle  = 0x42
	chunkHeader  = 2 + 8 + 8
)

// chunks reads a buffer file chunk by chunk into one reused buffer.
type chunks struct {
	name  string
	r     io.Reader
	size  int
	buf   []byte
	n     int   // valid bytes in buf
	pos   int   // next byte to decode in buf
	base  int64 // file offset of buf[0]
	next  int64 // file offset of the next chunk
	done  bool  // the end-of-data marker was read
	first uint64
	last  uint64
}

func newChunks(name string, r io.Reader, size uint64) *chunks {
	return &chunks{name: name, r: r, size: int(size)}
}

func (c *chunks) errf(off int64, format string, args ...any) error {
	return &ArchiveError{File: c.name, Offset: off, Msg: fmt.Sprintf(format, args...)}
}

// load reads the next chunk and its header. It returns io.EOF when the
// file has no more bytes.
func (c *chunks) load() error {
	n, err := c.fill()
	if err != nil {
		return fmt.Errorf("otf2: %s: %w", c.name, err)
	}
	c.base, c.n, c.pos = c.next, n, 0
	c.next += int64(n)
	if n == 0 {
		return io.EOF
	}
	if n < chunkHeader {
		return c.errf(c.base, "chunk of %d bytes: shorter than its %d-byte header (file cut short?)", n, chunkHeader)
	}
	if c.buf[0] != markChunk {
		return c.errf(c.base, "chunk starts with 0x%02x, not the chunk header 0x03 (not an OTF2 buffer file, or a chunk size other than the anchor's %d bytes)", c.buf[0], c.size)
	}
	if c.buf[1] != orderLittle {
		return &ArchiveError{File: c.name, Offset: c.base + 1, Err: ErrArchiveVersion,
			Msg: fmt.Sprintf("byte order 0x%02x: only 0x%02x (archives written on little-endian machines) is read", c.buf[1], orderLittle)}
	}
	c.first = binary.LittleEndian.Uint64(c.buf[2:])
	c.last = binary.LittleEndian.Uint64(c.buf[10:])
	c.pos = chunkHeader
	return nil
}

// fill reads the next chunk: up to the chunk size, into a buffer that
// grows to what the file holds (a small file does not cost a whole chunk).
func (c *chunks) fill() (int, error) {
	n := 0
	for {
		if n == len(c.buf) {
			if len(c.buf) >= c.size {
				return n, nil
			}
			nb := make([]byte, min(c.size, max(4096, 2*len(c.buf))))
			copy(nb, c.buf[:n])
			c.buf = nb
		}
		m, err := io.ReadFull(c.r, c.buf[n:])
		n += m
		switch err {
		case nil:
		case io.EOF, io.ErrUnexpectedEOF:
			return n, nil
		default:
			return n, err
		}
	}
}

// marker returns the next record id or marker, past the ends of chunks:
// markEndData at the end of the data, or an error.
func (c *chunks) marker() (byte, error) {
	for {
		if c.done {
			return markEndData, nil
		}
		if c.pos >= c.n {
			if c.n > 0 && c.pos == c.n && c.n < c.size {
				return 0, c.errf(c.base+int64(c.n), "file ends without its end-of-data marker 0x02 (file cut short?)")
			}
			if err := c.load(); err != nil {
				if err == io.EOF {
					return 0, c.errf(c.next, "file ends without its end-of-data marker 0x02 (file cut short?)")
				}
				return 0, err
			}
			continue
		}
		b := c.buf[c.pos]
		switch b {
		case markEndChunk:
			c.pos = c.n // skip the padding
			if c.n < c.size {
				return 0, c.errf(c.base+int64(c.n), "last chunk ends with 0x00 (more chunks announced) but the file ends here (file cut short?)")
			}
			continue
		case markEndData:
			c.done = true
			return markEndData, nil
		case markChunk:
			return 0, c.errf(c.off(), "chunk header 0x03 in the middle of a chunk")
		}
		c.pos++
		return b, nil
	}
}

// cut is the hint for data that runs past the end of a short (last)
// chunk.
func (c *chunks) cut() string {
	if c.n < c.size {
		return " (file cut short?)"
	}
	return ""
}

// off is the file offset of the next byte.
func (c *chunks) off() int64 { return c.base + int64(c.pos) }

// record returns the body of a length-prefixed record whose id was just
// read, and its file offset.
func (c *chunks) record(id byte) (rec, error) {
	start := c.off() - 1
	if c.pos >= c.n {
		return rec{}, c.errf(start, "record %d: chunk ends before its length", id)
	}
	l := uint64(c.buf[c.pos])
	c.pos++
	if l == 0xff {
		if c.n-c.pos < 8 {
			return rec{}, c.errf(start, "record %d: chunk ends inside its 8-byte length", id)
		}
		l = binary.LittleEndian.Uint64(c.buf[c.pos:])
		c.pos += 8
	}
	if l > uint64(c.n-c.pos) {
		return rec{}, c.errf(start, "record %d of %d bytes runs past the end of its chunk (%d bytes left)%s", id, l, c.n-c.pos, c.cut())
	}
	r := rec{c: c, b: c.buf[c.pos : c.pos+int(l)], base: c.off(), id: id, start: start}
	c.pos += int(l)
	return r, nil
}

// bare returns a record without a length: its one compressed integer.
func (c *chunks) bare(id byte) (rec, error) {
	start := c.off() - 1
	if c.pos >= c.n {
		return rec{}, c.errf(start, "record %d: chunk ends before its attribute", id)
	}
	n := int(c.buf[c.pos])
	if n == 0xff {
		n = 0
	}
	n++
	if n > c.n-c.pos {
		return rec{}, c.errf(start, "record %d: its attribute of %d bytes runs past the end of its chunk%s", id, n, c.cut())
	}
	r := rec{c: c, b: c.buf[c.pos : c.pos+n], base: c.off(), id: id, start: start}
	c.pos += n
	return r, nil
}

// fixed64 reads the 8-byte value after a timestamp marker.
func (c *chunks) fixed64() (uint64, error) {
	if c.n-c.pos < 8 {
		return 0, c.errf(c.off()-1, "timestamp: chunk ends inside its 8 bytes%s", c.cut())
	}
	v := binary.LittleEndian.Uint64(c.buf[c.pos:])
	c.pos += 8
	return v, nil
}

// rec decodes the attributes of one record. The first error sticks;
// reads past the end of the record fail, and has tells whether an
// attribute of a newer version is there.
type rec struct {
	c     *chunks
	b     []byte
	pos   int
	base  int64 // file offset of b[0]
	start int64 // file offset of the record id
	id    byte
	err   error
}

func (r *rec) fail(what string) {
	if r.err == nil {
		r.err = r.c.errf(r.base+int64(r.pos), "record %d (at byte %d): %s", r.id, r.start, what)
	}
}

// has reports whether attributes are left in the record.
func (r *rec) has() bool { return r.err == nil && r.pos < len(r.b) }

func (r *rec) u8() uint8 {
	if r.err != nil {
		return 0
	}
	if r.pos >= len(r.b) {
		r.fail("attribute past the end of the record")
		return 0
	}
	r.pos++
	return r.b[r.pos-1]
}

// u64c reads a compressed integer of at most max bytes.
func (r *rec) compressed(max int) uint64 {
	n := int(r.u8())
	if r.err != nil {
		return 0
	}
	if n == 0xff {
		if max == 4 {
			return 0xffffffff
		}
		return ^uint64(0)
	}
	if n > max {
		r.pos--
		r.fail(fmt.Sprintf("compressed integer of %d bytes (at most %d)", n, max))
		return 0
	}
	if n > len(r.b)-r.pos {
		r.pos--
		r.fail("compressed integer past the end of the record")
		return 0
	}
	var v uint64
	for i := n - 1; i >= 0; i-- {
		v = v<<8 | uint64(r.b[r.pos+i])
	}
	r.pos += n
	return v
}

func (r *rec) u32c() uint32 { return uint32(r.compressed(4)) }
func (r *rec) u64c() uint64 { return r.compressed(8) }

func (r *rec) u64() uint64 {
	if r.err != nil {
		return 0
	}
	if len(r.b)-r.pos < 8 {
		r.fail("8-byte attribute past the end of the record")
		return 0
	}
	r.pos += 8
	return binary.LittleEndian.Uint64(r.b[r.pos-8:])
}

func (r *rec) str() string {
	if r.err != nil {
		return ""
	}
	i := bytes.IndexByte(r.b[r.pos:], 0)
	if i < 0 {
		r.fail("string without its NUL inside the record")
		return ""
	}
	s := string(r.b[r.pos : r.pos+i])
	r.pos += i + 1
	return s
}

// Undefined is OTF2's undefined value of 32-bit references and ranks
// (OTF2_UNDEFINED_UINT32: no root, no parent).
const Undefined = 0xffffffff
