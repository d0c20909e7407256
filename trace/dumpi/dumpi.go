package dumpi

// This file decodes DUMPI traces, the binary MPI traces of Sandia's
// sst-dumpi (libdumpi), which the DOE trace collections and SST/macro use.
// It reads what the reference reader, sst-dumpi's libundumpi, reads: the
// layout below is the same, written from its sources.
//
// # Layout
//
// A run is a text file PREFIX.meta (key=value lines: numprocs, fileprefix,
// version, ...) and one binary file per rank, PREFIX-NNNN.bin. All
// integers are big-endian; "i32 array" is an i32 count followed by that
// many elements, a "string" is an i32 length and that many bytes (a
// "name" in the header has an u16 length instead).
//
//	file    = magic stream header footer keyvals perflabels typesizes funcaddrs index
//	magic   = ff aa dd 'D' 'U' 'M' 'P' 'I'
//	stream  = i32 cpu-bias i32 wall-bias record* u16 end-of-stream
//	index   = magic [u64 typesizes] [u64 funcaddrs] [u64 perflabels]
//	          u64 header u64 stream u64 footer u64 keyvals           (the last bytes of the file)
//
// The index gives each section's offset (0 for none). Files written before
// 0.6.6 lack typesizes, older ones funcaddrs and perflabels too: a reader
// looks for the magic 64, 56, 48 or 40 bytes before the end to tell which
// entries there are. The header is u8 version[3], u64 start time
// (time(2)), name hostname, name username, i32 array mesh coordinates and,
// when the array is not empty, i32 array mesh size. The footer is u64
// 0xf007fee7 and two arrays without counts of one u32 per function and one
// for all (NumFuncs+1 entries): the calls made and the calls not
// recorded. The keyvals are i32 n and n pairs of names; the performance
// counter labels i32 n and n names; the datatype sizes i32 n and n i32
// sizes, by datatype number; the function addresses i32 n and n pairs of
// u64 and name (for the optional profiling of user functions).
//
// A record is
//
//	u16 function  u8 mask  [u16 thread]  [cpu times]  [wall times]  [perf]  arguments
//
// function is the call's number (dumpiFuncs, in the order of sst-dumpi's
// dumpi_function enumeration; NumFuncs+1 and +2 mark the entry to and
// exit from a profiled user function, with one u64 argument, its
// address). Mask bits: 0-1 statuses are recorded, 2 cpu times, 3 wall
// times, 6 thread, 7 performance counters. Times are u16 seconds (to
// which the stream's bias is added) and u32 nanoseconds, for the entry
// and then the exit. perf is an u8 count and, for each counter the label
// section names, two u64 (entry, exit).
//
// The arguments follow the function's layout in dumpiFuncs, field by
// field: i32 integers (counts, ranks, tags, requests), i16 handles
// (communicators, datatypes, groups, ...), u8 small enumerations (ops,
// thread levels, ...), i64, arrays of those with an i32 count, strings,
// and statuses: when mask bits 0-1 are set, an i32 count (0 for
// MPI_STATUS_IGNORE) and per status i32 bytes, i32 source, u8 cancelled,
// u8 error, i32 tag. Some arguments exist only at a collective's root
// (where the record's commrank equals its root). Handles are libdumpi's
// numbers, meaningful within a rank's file only: MPI_COMM_WORLD is 2, MPI_COMM_SELF
// 3, MPI_COMM_NULL 1, MPI_REQUEST_NULL 1, and MPI_ANY_SOURCE and
// MPI_ANY_TAG are -1, MPI_ROOT -2; other ranks and tags are the MPI
// library's values (MPI_PROC_NULL is then any other negative value).
//
// Versions 0.6.5 (32-bit tags) through 13.x (sst-dumpi's newest) share
// this layout, apart from two arrays of older files that the reader does
// not support (MPI_Type_struct before 0.6.9, MPI_Cart_get before 0.6.8:
// their records are errors).
//
// # Design notes
//
// Table-driven records. A record has no length: skipping one means
// decoding it. dumpiLayouts states the arguments of all 290 functions in
// one place, so the decoder reads every record the reference reader reads,
// whether or not the converter uses it, and an unknown function number is
// an error at its offset rather than a lost stream.
//
// Sections by offset. The index is at the end of the file, so a file is
// opened with an io.ReaderAt: header, footer and tables are read where
// the index says; the stream is then read in order through a buffer.
//
// Damage costs an error, not memory. Every array count is checked
// against the bytes left before the header, every offset against the
// file's size, and every error is a *FormatError with the offset of the
// record or field at fault.

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/gopsim/gopsim/trace"
	"io"
	"math"
	"strings"
)

// ErrDumpi is what errors about malformed DUMPI files unwrap to (with
// ErrFormat, through *FormatError).
var ErrDumpi = errors.New("trace: malformed DUMPI file")

// Magic starts (and, in its index, ends) every DUMPI file.
var Magic = []byte{0xff, 0xaa, 0xdd, 'D', 'U', 'M', 'P', 'I'}

// The DUMPI versions the reader accepts: MinVersion through major
// version MaxMajor.
var MinVersion = [3]uint8{0, 6, 5}

const MaxMajor = 13

// NumFuncs is the number of MPI functions DUMPI numbers (its
// DUMPI_ALL_FUNCTIONS).
const NumFuncs = 290

const (
	dumpiFuncEnter   = NumFuncs + 1
	dumpiFuncExit    = NumFuncs + 2
	dumpiEndOfStream = NumFuncs + 3
	dumpiFootMagic   = 0xf007fee7
)

// FuncName is the MPI name of DUMPI function number f.
func FuncName(f uint16) string {
	switch {
	case int(f) < len(dumpiFuncs):
		return dumpiFuncs[f].name
	case f == dumpiFuncEnter:
		return "function entry"
	case f == dumpiFuncExit:
		return "function exit"
	}
	return fmt.Sprintf("DUMPI function %d", f)
}

// File is one rank's DUMPI file: its header, footer and other
// sections, read when it is opened; Records reads its calls.
type File struct {
	Name      string
	Version   [3]uint8
	StartTime uint64 // when tracing started, seconds since 1970
	Hostname  string
	Username  string
	MeshCrd   []int32 // the node's position in the machine's mesh, if known
	MeshSize  []int32
	// CallCount and IgnoredCount give, by DUMPI function number (and at
	// NumFuncs, for all functions), the calls made and the calls made
	// but not recorded.
	CallCount, IgnoredCount []uint32
	Keyvals                 [][2]string
	PerfLabels              []string
	// TypeSizes gives the size in bytes of each datatype, by libdumpi's
	// datatype number (MPI_INT is 9).
	TypeSizes []int32
	FuncAddrs []FuncAddr

	r                 io.ReaderAt
	size              int64
	stream, header    int64 // section offsets
	cpuBias, wallBias int32
}

// FuncAddr names a profiled user function.
type FuncAddr struct {
	Addr uint64
	Name string
}

// Time is a time of a record: seconds and nanoseconds.
type Time struct {
	Sec  int64
	Nsec uint32
}

// Ns is the time in ns.
func (t Time) Ns() int64 { return t.Sec*1e9 + int64(t.Nsec) }

// Status is a recorded MPI_Status.
type Status struct {
	Bytes, Source, Tag int32
	Cancelled, Error   uint8
}

// ArgKind says which fields of a Arg hold its value.
type ArgKind uint8

// The argument kinds.
const (
	ArgInt      ArgKind = iota + 1 // Int: an i32, i16 handle, u8 or i64 value
	ArgInts                        // Ints: an array of them
	ArgInts2                       // Rows: an array of arrays (MPI_Group_range_incl's ranges)
	ArgString                      // Strs[0]
	ArgStrings                     // Strs (argv)
	ArgStrings2                    // Rows of strings flattened into Strs, with Rows giving each row's count
	ArgStatuses                    // Statuses; nil means MPI_STATUS_IGNORE or not recorded
)

// Arg is an argument of a record, by its MPI name.
type Arg struct {
	Name     string
	Kind     ArgKind
	Present  bool // false for an argument that only the root has, at another rank
	Int      int64
	Ints     []int64
	Rows     [][]int64
	Strs     []string
	Statuses []Status
}

// Record is one recorded MPI call (or the entry to or exit from a
// profiled user function).
type Record struct {
	Func   uint16 // DUMPI's number of the function (FuncName)
	Offset int64  // of the record in the file
	Mask   uint8
	Thread uint16
	// CPU and Wall are the entry and exit times, when Mask says they are
	// recorded.
	CPU, Wall [2]Time
	// Perf holds each counter's values at entry and exit.
	Perf [][2]uint64
	Args []Arg
}

// HasCPU and HasWall say which times the record has.
func (r *Record) HasCPU() bool  { return r.Mask&(1<<2) != 0 }
func (r *Record) HasWall() bool { return r.Mask&(1<<3) != 0 }

// Name is the MPI function's name.
func (r *Record) Name() string { return FuncName(r.Func) }

// Arg returns the argument called name, or nil.
func (r *Record) Arg(name string) *Arg {
	for i := range r.Args {
		if r.Args[i].Name == name {
			return &r.Args[i]
		}
	}
	return nil
}

// int returns a scalar argument's value (0 if absent).
func (r *Record) int(name string) int64 {
	if a := r.Arg(name); a != nil {
		return a.Int
	}
	return 0
}

func (r *Record) ints(name string) []int64 {
	if a := r.Arg(name); a != nil && a.Present {
		return a.Ints
	}
	return nil
}

func (r *Record) statuses(name string) []Status {
	if a := r.Arg(name); a != nil {
		return a.Statuses
	}
	return nil
}

// dumpiErr is a malformed file at byte off.
func dumpiErr(name string, off int64, format string, args ...any) error {
	return &trace.FormatError{File: name, Offset: off, Err: fmt.Errorf("%w: "+format, append([]any{ErrDumpi}, args...)...)}
}

// section reads fixed-size values at an offset, checking bounds.
type dumpiSection struct {
	f   *File
	off int64
	err error
	buf [8]byte
}

func (s *dumpiSection) read(n int) []byte {
	if s.err != nil {
		return s.buf[:n]
	}
	if s.off < 0 || s.off+int64(n) > s.f.size {
		s.err = dumpiErr(s.f.Name, s.off, "%w: section ends beyond the end of the file (%d bytes)", io.ErrUnexpectedEOF, s.f.size)
		return s.buf[:n]
	}
	if _, err := s.f.r.ReadAt(s.buf[:n], s.off); err != nil {
		s.err = dumpiErr(s.f.Name, s.off, "%v", err)
	}
	s.off += int64(n)
	return s.buf[:n]
}

func (s *dumpiSection) u8() uint8   { return s.read(1)[0] }
func (s *dumpiSection) u16() uint16 { return binary.BigEndian.Uint16(s.read(2)) }
func (s *dumpiSection) u32() uint32 { return binary.BigEndian.Uint32(s.read(4)) }
func (s *dumpiSection) u64() uint64 { return binary.BigEndian.Uint64(s.read(8)) }

// count reads an i32 count, at most max.
func (s *dumpiSection) count(what string, max int64) int {
	at := s.off
	n := int32(s.u32())
	if s.err == nil && (n < 0 || int64(n) > max) {
		s.err = dumpiErr(s.f.Name, at, "%s count %d", what, n)
	}
	if s.err != nil {
		return 0
	}
	return int(n)
}

// str reads a string with an u16 length.
func (s *dumpiSection) name() string {
	n := int(s.u16())
	if s.err != nil || s.off+int64(n) > s.f.size {
		if s.err == nil {
			s.err = dumpiErr(s.f.Name, s.off, "%w: name of %d bytes beyond the end of the file", io.ErrUnexpectedEOF, n)
		}
		return ""
	}
	b := make([]byte, n)
	if _, err := s.f.r.ReadAt(b, s.off); err != nil {
		s.err = dumpiErr(s.f.Name, s.off, "%v", err)
	}
	s.off += int64(n)
	return string(b)
}

// OpenFile reads the sections of a DUMPI file of size bytes: its
// index, header, footer, keyvals, counter labels, datatype sizes and
// function addresses. name is used in errors.
func OpenFile(r io.ReaderAt, size int64, name string) (*File, error) {
	f := &File{Name: name, r: r, size: size}
	s := &dumpiSection{f: f}
	magic := s.read(8)
	if s.err != nil || string(magic) != string(Magic) {
		return nil, dumpiErr(name, 0, "not a DUMPI file (no magic %x)", Magic)
	}
	// The index, from the end: the magic, then the optional entries
	// (sizes, addresses, perf labels: newer files have more of them), then
	// header, stream, footer and keyvals.
	const entries = 7      // sizes, addresses, perf labels, header, stream, footer, keyvals
	var idx [entries]int64 // by entry, 0 if absent
	found := false
	for opt := 3; opt >= 0 && !found; opt-- {
		at := size - 8*int64(1+4+opt)
		if at < 8 {
			continue
		}
		s.off = at
		if string(s.read(8)) != string(Magic) {
			continue
		}
		found = true
		for i := 3 - opt; i < entries; i++ {
			idx[i] = int64(s.u64())
		}
	}
	if s.err != nil {
		return nil, s.err
	}
	if !found {
		return nil, dumpiErr(name, max(size-40, 0), "no index at the end of the file (its magic is missing): truncated file?")
	}
	for i, o := range idx {
		if o < 0 || o >= size || (i == 3 || i == 4) && o < 8 {
			return nil, dumpiErr(name, size-8*int64(entries-i), "index entry %d: offset %d outside the file (%d bytes)", i, o, size)
		}
	}
	f.header, f.stream = idx[3], idx[4]
	// Header.
	s.off = f.header
	for i := range f.Version {
		f.Version[i] = s.u8()
	}
	if s.err == nil && !dumpiVersionOK(f.Version) {
		return nil, dumpiErr(name, f.header, "version %d.%d.%d: this reader reads %d.%d.%d to %d.x",
			f.Version[0], f.Version[1], f.Version[2], MinVersion[0], MinVersion[1], MinVersion[2], MaxMajor)
	}
	f.StartTime = s.u64()
	f.Hostname, f.Username = s.name(), s.name()
	n := s.count("mesh coordinate", 64)
	for range n {
		f.MeshCrd = append(f.MeshCrd, int32(s.u32()))
	}
	if n > 0 {
		m := s.count("mesh size", 64)
		for range m {
			f.MeshSize = append(f.MeshSize, int32(s.u32()))
		}
	}
	// Footer.
	if idx[5] > 0 {
		s.off = idx[5]
		if s.u64() != dumpiFootMagic && s.err == nil {
			return nil, dumpiErr(name, idx[5], "footer without its magic %#x", dumpiFootMagic)
		}
		f.CallCount, f.IgnoredCount = make([]uint32, NumFuncs+1), make([]uint32, NumFuncs+1)
		for i := range f.CallCount {
			f.CallCount[i] = s.u32()
		}
		for i := range f.IgnoredCount {
			f.IgnoredCount[i] = s.u32()
		}
	}
	if idx[6] > 0 {
		s.off = idx[6]
		n := s.count("keyval", size)
		for range n {
			f.Keyvals = append(f.Keyvals, [2]string{s.name(), s.name()})
		}
	}
	if idx[2] > 0 {
		s.off = idx[2]
		n := s.count("counter label", 256)
		for range n {
			f.PerfLabels = append(f.PerfLabels, s.name())
		}
	}
	if idx[0] > 0 {
		s.off = idx[0]
		n := s.count("datatype size", size/4)
		f.TypeSizes = make([]int32, n)
		for i := range f.TypeSizes {
			f.TypeSizes[i] = int32(s.u32())
		}
	}
	if idx[1] > 0 {
		s.off = idx[1]
		n := s.count("function address", size/10)
		for range n {
			f.FuncAddrs = append(f.FuncAddrs, FuncAddr{Addr: s.u64(), Name: s.name()})
		}
	}
	s.off = f.stream
	f.cpuBias, f.wallBias = int32(s.u32()), int32(s.u32())
	if s.err != nil {
		return nil, s.err
	}
	return f, nil
}

func dumpiVersionOK(v [3]uint8) bool {
	if v[0] > MaxMajor {
		return false
	}
	for i := range v {
		if v[i] != MinVersion[i] {
			return v[i] > MinVersion[i]
		}
	}
	return true
}

func dumpiHave(v [3]uint8, a, b, c uint8) bool {
	w := [3]uint8{a, b, c}
	for i := range v {
		if v[i] != w[i] {
			return v[i] > w[i]
		}
	}
	return true
}

// Records reads the records of a File in order.
type Records struct {
	f   *File
	br  *bufio.Reader
	off int64 // of the next byte br returns
	end bool
	err error
}

// Records returns a reader of the file's calls.
func (f *File) Records() *Records {
	start := f.stream + 8
	return &Records{f: f, br: bufio.NewReaderSize(io.NewSectionReader(f.r, start, f.size-start), 64<<10), off: start}
}

func (d *Records) fail(off int64, format string, args ...any) error {
	if d.err == nil {
		d.err = dumpiErr(d.f.Name, off, format, args...)
	}
	return d.err
}

func (d *Records) read(b []byte) error {
	if d.err != nil {
		return d.err
	}
	n, err := io.ReadFull(d.br, b)
	d.off += int64(n)
	if err != nil {
		return d.fail(d.off, "%w: the stream of calls is cut short", io.ErrUnexpectedEOF)
	}
	return nil
}

func (d *Records) u8() uint8 {
	var b [1]byte
	d.read(b[:])
	return b[0]
}

func (d *Records) u16() uint16 {
	var b [2]byte
	d.read(b[:])
	return binary.BigEndian.Uint16(b[:])
}

func (d *Records) u32() uint32 {
	var b [4]byte
	d.read(b[:])
	return binary.BigEndian.Uint32(b[:])
}

func (d *Records) u64() uint64 {
	var b [8]byte
	d.read(b[:])
	return binary.BigEndian.Uint64(b[:])
}

// count reads an i32 array length: one byte per element at least must
// remain in the stream.
func (d *Records) count(what string) int {
	at := d.off
	n := int32(d.u32())
	if d.err == nil && (n < 0 || int64(n) > d.f.header-d.off) {
		d.fail(at, "%s: count %d", what, n)
	}
	if d.err != nil {
		return 0
	}
	return int(n)
}

func (d *Records) str(what string) string {
	n := d.count(what)
	if d.err != nil {
		return ""
	}
	b := make([]byte, n)
	d.read(b)
	return strings.TrimRight(string(b), "\x00")
}

// Next reads the next record into r, reusing its slices, or returns
// io.EOF after the last. Errors are *FormatError with the byte offset.
func (d *Records) Next(r *Record) error {
	if d.err != nil {
		return d.err
	}
	if d.end {
		return io.EOF
	}
	at := d.off
	fn := d.u16()
	if d.err != nil {
		return d.err
	}
	if fn == dumpiEndOfStream || fn > dumpiEndOfStream {
		if fn != dumpiEndOfStream {
			return d.fail(at, "record of unknown function number %d", fn)
		}
		d.end = true
		return io.EOF
	}
	args := r.Args[:0]
	perf := r.Perf[:0]
	*r = Record{Func: fn, Offset: at, Args: args, Perf: perf}
	var layout []dumpiField
	switch {
	case int(fn) < len(dumpiFuncs):
		layout = dumpiFuncs[fn].fields
		if layout == nil {
			return d.fail(at, "record of %s, which DUMPI does not record and this reader cannot decode", FuncName(fn))
		}
	case fn == dumpiFuncEnter || fn == dumpiFuncExit:
		layout = dumpiAddrLayout
	}
	r.Mask = d.u8()
	if r.Mask&(1<<6) != 0 {
		r.Thread = d.u16()
	}
	if r.Mask&(1<<2) != 0 {
		r.CPU = d.times(d.f.cpuBias)
	}
	if r.Mask&(1<<3) != 0 {
		r.Wall = d.times(d.f.wallBias)
	}
	if r.Mask&(1<<7) != 0 {
		d.u8() // the count the writer saw; the labels section's count is the one read
		for range len(d.f.PerfLabels) {
			r.Perf = append(r.Perf, [2]uint64{d.u64(), d.u64()})
		}
	}
	if fn == 40 && !dumpiHave(d.f.Version, 0, 6, 9) || fn == 105 && !dumpiHave(d.f.Version, 0, 6, 8) {
		return d.fail(at, "%s records of DUMPI %d.%d.%d are not supported", FuncName(fn), d.f.Version[0], d.f.Version[1], d.f.Version[2])
	}
	var commrank, root int64
	for _, fd := range layout {
		a := Arg{Name: fd.name, Present: true}
		if fd.rootOnly && commrank != root {
			a.Present = false
			a.Kind = dumpiKindOf(fd.kind)
			r.Args = append(r.Args, a)
			continue
		}
		switch fd.kind {
		case 'i':
			a.Kind, a.Int = ArgInt, int64(int32(d.u32()))
		case 'h':
			a.Kind, a.Int = ArgInt, int64(int16(d.u16()))
		case 'b':
			a.Kind, a.Int = ArgInt, int64(d.u8())
		case 'l':
			a.Kind, a.Int = ArgInt, int64(d.u64())
		case 'I', 'H', 'B':
			a.Kind = ArgInts
			n := d.count(fd.name)
			for range n {
				switch fd.kind {
				case 'I':
					a.Ints = append(a.Ints, int64(int32(d.u32())))
				case 'H':
					a.Ints = append(a.Ints, int64(int16(d.u16())))
				default:
					a.Ints = append(a.Ints, int64(d.u8()))
				}
			}
		case 'J':
			a.Kind = ArgInts2
			n := d.count(fd.name)
			for range n {
				m := d.count(fd.name)
				row := make([]int64, m)
				for k := range row {
					row[k] = int64(int32(d.u32()))
				}
				a.Rows = append(a.Rows, row)
			}
		case 'c':
			a.Kind = ArgString
			a.Strs = append(a.Strs, d.str(fd.name))
		case 'C', 'A':
			a.Kind = ArgStrings
			var n int
			if fd.kind == 'A' {
				// argv: as many strings as argc says, without a count.
				n = int(r.int("argc"))
				if n < 0 || int64(n) > d.f.header-d.off {
					return d.fail(d.off, "argc %d", n)
				}
			} else {
				n = d.count(fd.name)
			}
			for range n {
				a.Strs = append(a.Strs, d.str(fd.name))
			}
		case 'D':
			a.Kind = ArgStrings2
			n := d.count(fd.name)
			for range n {
				m := d.count(fd.name)
				a.Rows = append(a.Rows, []int64{int64(m)})
				for range m {
					a.Strs = append(a.Strs, d.str(fd.name))
				}
			}
		case 'S':
			a.Kind = ArgStatuses
			if r.Mask&3 != 0 {
				n := d.count(fd.name)
				for range n {
					var st Status
					st.Bytes, st.Source = int32(d.u32()), int32(d.u32())
					st.Cancelled, st.Error = d.u8(), d.u8()
					st.Tag = int32(d.u32())
					a.Statuses = append(a.Statuses, st)
				}
			}
		}
		if d.err != nil {
			return d.err
		}
		switch fd.name {
		case "commrank", "oldcommrank":
			commrank = a.Int
		case "root":
			root = a.Int
		}
		r.Args = append(r.Args, a)
	}
	if d.err != nil {
		return d.err
	}
	if d.off > d.f.header {
		return d.fail(at, "record of %s runs into the header at byte %d", FuncName(fn), d.f.header)
	}
	return nil
}

func dumpiKindOf(k byte) ArgKind {
	switch k {
	case 'I', 'H', 'B':
		return ArgInts
	case 'J':
		return ArgInts2
	case 'c':
		return ArgString
	case 'C', 'A':
		return ArgStrings
	case 'D':
		return ArgStrings2
	case 'S':
		return ArgStatuses
	}
	return ArgInt
}

func (d *Records) times(bias int32) [2]Time {
	var t [2]Time
	for i := range t {
		t[i].Sec = int64(d.u16()) + int64(bias)
		t[i].Nsec = d.u32()
	}
	return t
}

// ---- the functions ----

// dumpiField is an argument of a layout: its MPI name and its encoding:
// i i32, h i16 handle, b u8, l i64, I H B arrays of those, J array of i32
// arrays, c string, C array of strings, A argv (argc strings, no count),
// D array of arrays of strings, S statuses; rootOnly: present only where
// commrank (or oldcommrank) equals root.
type dumpiField struct {
	name     string
	kind     byte
	rootOnly bool
}

type dumpiFunc struct {
	name   string
	fields []dumpiField // nil: not decodable
}

var dumpiAddrLayout = []dumpiField{{name: "fn", kind: 'l'}}

// dumpiFuncs lists the functions by DUMPI's number with their records'
// arguments, in order: "name:kind", with "?" after the kind for root-only
// arguments.
var dumpiFuncs = func() []dumpiFunc {
	out := make([]dumpiFunc, len(dumpiLayouts))
	for i, l := range dumpiLayouts {
		out[i].name = l[0]
		if l[1] == "!" {
			continue
		}
		out[i].fields = []dumpiField{}
		for _, w := range strings.Fields(l[1]) {
			name, kind, ok := strings.Cut(w, ":")
			if !ok || len(kind) < 1 || len(kind) > 2 || !strings.Contains("ihblIHBJcCADS", kind[:1]) {
				panic("dumpi layout " + l[0] + ": " + w)
			}
			out[i].fields = append(out[i].fields, dumpiField{name: name, kind: kind[0], rootOnly: len(kind) == 2})
		}
	}
	if len(out) != NumFuncs {
		panic(fmt.Sprint("dumpi: ", len(out), " functions"))
	}
	return out
}()

var _ = math.MaxInt32

var dumpiLayouts = [...][2]string{
	{"MPI_Send", "count:i datatype:h dest:i tag:i comm:h"},                                                                // 0
	{"MPI_Recv", "count:i datatype:h source:i tag:i comm:h status:S"},                                                     // 1
	{"MPI_Get_count", "status:S datatype:h count:i"},                                                                      // 2
	{"MPI_Bsend", "count:i datatype:h dest:i tag:i comm:h"},                                                               // 3
	{"MPI_Ssend", "count:i datatype:h dest:i tag:i comm:h"},                                                               // 4
	{"MPI_Rsend", "count:i datatype:h dest:i tag:i comm:h"},                                                               // 5
	{"MPI_Buffer_attach", "size:i"},                                                                                       // 6
	{"MPI_Buffer_detach", "size:i"},                                                                                       // 7
	{"MPI_Isend", "count:i datatype:h dest:i tag:i comm:h request:i"},                                                     // 8
	{"MPI_Ibsend", "count:i datatype:h dest:i tag:i comm:h request:i"},                                                    // 9
	{"MPI_Issend", "count:i datatype:h dest:i tag:i comm:h request:i"},                                                    // 10
	{"MPI_Irsend", "count:i datatype:h dest:i tag:i comm:h request:i"},                                                    // 11
	{"MPI_Irecv", "count:i datatype:h source:i tag:i comm:h request:i"},                                                   // 12
	{"MPI_Wait", "request:i status:S"},                                                                                    // 13
	{"MPI_Test", "request:i flag:i status:S"},                                                                             // 14
	{"MPI_Request_free", "request:i"},                                                                                     // 15
	{"MPI_Waitany", "count:i requests:I index:i status:S"},                                                                // 16
	{"MPI_Testany", "count:i requests:I index:i flag:i status:S"},                                                         // 17
	{"MPI_Waitall", "count:i requests:I statuses:S"},                                                                      // 18
	{"MPI_Testall", "count:i requests:I flag:i statuses:S"},                                                               // 19
	{"MPI_Waitsome", "count:i requests:I outcount:i indices:I statuses:S"},                                                // 20
	{"MPI_Testsome", "count:i requests:I outcount:i indices:I statuses:S"},                                                // 21
	{"MPI_Iprobe", "source:i tag:i comm:h flag:i status:S"},                                                               // 22
	{"MPI_Probe", "source:i tag:i comm:h status:S"},                                                                       // 23
	{"MPI_Cancel", "request:i"},                                                                                           // 24
	{"MPI_Test_cancelled", "status:S cancelled:i"},                                                                        // 25
	{"MPI_Send_init", "count:i datatype:h dest:i tag:i comm:h request:i"},                                                 // 26
	{"MPI_Bsend_init", "count:i datatype:h dest:i tag:i comm:h request:i"},                                                // 27
	{"MPI_Ssend_init", "count:i datatype:h dest:i tag:i comm:h request:i"},                                                // 28
	{"MPI_Rsend_init", "count:i datatype:h dest:i tag:i comm:h request:i"},                                                // 29
	{"MPI_Recv_init", "count:i datatype:h source:i tag:i comm:h request:i"},                                               // 30
	{"MPI_Start", "request:i"},                                                                                            // 31
	{"MPI_Startall", "count:i requests:I"},                                                                                // 32
	{"MPI_Sendrecv", "sendcount:i sendtype:h dest:i sendtag:i recvcount:i recvtype:h source:i recvtag:i comm:h status:S"}, // 33
	{"MPI_Sendrecv_replace", "count:i datatype:h dest:i sendtag:i source:i recvtag:i comm:h status:S"},                    // 34
	{"MPI_Type_contiguous", "count:i oldtype:h newtype:h"},                                                                // 35
	{"MPI_Type_vector", "count:i blocklength:i stride:i oldtype:h newtype:h"},                                             // 36
	{"MPI_Type_hvector", "count:i blocklength:i stride:i oldtype:h newtype:h"},                                            // 37
	{"MPI_Type_indexed", "count:i lengths:I indices:I oldtype:h newtype:h"},                                               // 38
	{"MPI_Type_hindexed", "count:i lengths:I indices:I oldtype:h newtype:h"},                                              // 39
	{"MPI_Type_struct", "count:i lengths:I indices:I oldtypes:H newtype:h"},                                               // 40
	{"MPI_Address", "address:i"},                                                                                          // 41
	{"MPI_Type_extent", "datatype:h extent:i"},                                                                            // 42
	{"MPI_Type_size", "datatype:h size:i"},                                                                                // 43
	{"MPI_Type_lb", "datatype:h lb:i"},                                                                                    // 44
	{"MPI_Type_ub", "datatype:h ub:i"},                                                                                    // 45
	{"MPI_Type_commit", "datatype:h"},                                                                                     // 46
	{"MPI_Type_free", "datatype:h"},                                                                                       // 47
	{"MPI_Get_elements", "status:S datatype:h elements:i"},                                                                // 48
	{"MPI_Pack", "incount:i datatype:h outcount:i positionin:i positionout:i comm:h"},                                     // 49
	{"MPI_Unpack", "incount:i positionin:i positionout:i outcount:i datatype:h comm:h"},                                   // 50
	{"MPI_Pack_size", "incount:i datatype:h comm:h size:i"},                                                               // 51
	{"MPI_Barrier", "comm:h"},                                                                                             // 52
	{"MPI_Bcast", "count:i datatype:h root:i comm:h"},                                                                     // 53
	{"MPI_Gather", "commrank:i sendcount:i sendtype:h root:i comm:h recvcount:i? recvtype:h?"},                            // 54
	{"MPI_Gatherv", "commrank:i commsize:i sendcount:i sendtype:h root:i comm:h recvcounts:I? displs:I? recvtype:h"},      // 55
	{"MPI_Scatter", "commrank:i recvcount:i recvtype:h root:i comm:h sendcount:i? sendtype:h?"},                           // 56
	{"MPI_Scatterv", "commrank:i commsize:i sendtype:h recvcount:i recvtype:h root:i comm:h sendcounts:I? displs:I?"},     // 57
	{"MPI_Allgather", "sendcount:i sendtype:h recvcount:i recvtype:h comm:h"},                                             // 58
	{"MPI_Allgatherv", "commsize:i sendcount:i sendtype:h recvcounts:I displs:I recvtype:h comm:h"},                       // 59
	{"MPI_Alltoall", "sendcount:i sendtype:h recvcount:i recvtype:h comm:h"},                                              // 60
	{"MPI_Alltoallv", "commsize:i sendcounts:I senddispls:I sendtype:h recvcounts:I recvdispls:I recvtype:h comm:h"},      // 61
	{"MPI_Reduce", "count:i datatype:h op:b root:i comm:h"},                                                               // 62
	{"MPI_Op_create", "commute:i op:b"},                                                                                   // 63
	{"MPI_Op_free", "op:b"},                                                                                               // 64
	{"MPI_Allreduce", "count:i datatype:h op:b comm:h"},                                                                   // 65
	{"MPI_Reduce_scatter", "commsize:i recvcounts:I datatype:h op:b comm:h"},                                              // 66
	{"MPI_Scan", "count:i datatype:h op:b comm:h"},                                                                        // 67
	{"MPI_Group_size", "group:h size:i"},                                                                                  // 68
	{"MPI_Group_rank", "group:h rank:i"},                                                                                  // 69
	{"MPI_Group_translate_ranks", "group1:h count:i ranks1:I group2:h ranks2:I"},                                          // 70
	{"MPI_Group_compare", "group1:h group2:h result:b"},                                                                   // 71
	{"MPI_Comm_group", "comm:h group:h"},                                                                                  // 72
	{"MPI_Group_union", "group1:h group2:h newgroup:h"},                                                                   // 73
	{"MPI_Group_intersection", "group1:h group2:h newgroup:h"},                                                            // 74
	{"MPI_Group_difference", "group1:h group2:h newgroup:h"},                                                              // 75
	{"MPI_Group_incl", "group:h count:i ranks:I newgroup:h"},                                                              // 76
	{"MPI_Group_excl", "group:h count:i ranks:I newgroup:h"},                                                              // 77
	{"MPI_Group_range_incl", "group:h count:i ranges:J newgroup:h"},                                                       // 78
	{"MPI_Group_range_excl", "group:h count:i ranges:J newgroup:h"},                                                       // 79
	{"MPI_Group_free", "group:h"},                                                                                         // 80
	{"MPI_Comm_size", "comm:h size:i"},                                                                                    // 81
	{"MPI_Comm_rank", "comm:h rank:i"},                                                                                    // 82
	{"MPI_Comm_compare", "comm1:h comm2:h result:b"},                                                                      // 83
	{"MPI_Comm_dup", "oldcomm:h newcomm:h"},                                                                               // 84
	{"MPI_Comm_create", "oldcomm:h group:h newcomm:h"},                                                                    // 85
	{"MPI_Comm_split", "oldcomm:h color:i key:i newcomm:h"},                                                               // 86
	{"MPI_Comm_free", "comm:h"},                                                                                           // 87
	{"MPI_Comm_test_inter", "comm:h inter:i"},                                                                             // 88
	{"MPI_Comm_remote_size", "comm:h size:i"},                                                                             // 89
	{"MPI_Comm_remote_group", "comm:h group:h"},                                                                           // 90
	{"MPI_Intercomm_create", "localcomm:h localleader:i remotecomm:h remoteleader:i tag:i newcomm:h"},                     // 91
	{"MPI_Intercomm_merge", "comm:h high:i newcomm:h"},                                                                    // 92
	{"MPI_Keyval_create", "key:h"},                                                                                        // 93
	{"MPI_Keyval_free", "key:h"},                                                                                          // 94
	{"MPI_Attr_put", "comm:h key:i"},                                                                                      // 95
	{"MPI_Attr_get", "comm:h key:i flag:i"},                                                                               // 96
	{"MPI_Attr_delete", "comm:h key:i"},                                                                                   // 97
	{"MPI_Topo_test", "comm:h topo:b"},                                                                                    // 98
	{"MPI_Cart_create", "oldcomm:h ndim:i dims:I periods:I reorder:i newcomm:h"},                                          // 99
	{"MPI_Dims_create", "nodes:i ndim:i dimsin:I dimsout:I"},                                                              // 100
	{"MPI_Graph_create", "numedges:i oldcomm:h nodes:i index:I edges:I reorder:i newcomm:h"},                              // 101
	{"MPI_Graphdims_get", "comm:h nodes:i edges:i"},                                                                       // 102
	{"MPI_Graph_get", "totedges:i totnodes:i comm:h maxindex:i maxedges:i index:I edges:I"},                               // 103
	{"MPI_Cartdim_get", "comm:h ndim:i"},                                                                                  // 104
	{"MPI_Cart_get", "ndim:i comm:h maxdims:i dims:I periods:I coords:I"},                                                 // 105
	{"MPI_Cart_rank", "ndim:i comm:h coords:I rank:i"},                                                                    // 106
	{"MPI_Cart_coords", "ndim:i comm:h rank:i maxdims:i coords:I"},                                                        // 107
	{"MPI_Graph_neighbors_count", "comm:h rank:i nneigh:i"},                                                               // 108
	{"MPI_Graph_neighbors", "nneigh:i comm:h rank:i maxneighbors:i neighbors:I"},                                          // 109
	{"MPI_Cart_shift", "comm:h direction:i displ:i source:i dest:i"},                                                      // 110
	{"MPI_Cart_sub", "ndim:i oldcomm:h remain_dims:I newcomm:h"},                                                          // 111
	{"MPI_Cart_map", "comm:h ndim:i dims:I period:I newrank:i"},                                                           // 112
	{"MPI_Graph_map", "numedges:i comm:h nodes:i index:I edges:I newrank:i"},                                              // 113
	{"MPI_Get_processor_name", "name:c resultlen:i"},                                                                      // 114
	{"MPI_Get_version", "version:i subversion:i"},                                                                         // 115
	{"MPI_Errhandler_create", "errhandler:h"},                                                                             // 116
	{"MPI_Errhandler_set", "comm:h errhandler:h"},                                                                         // 117
	{"MPI_Errhandler_get", "comm:h errhandler:h"},                                                                         // 118
	{"MPI_Errhandler_free", "errhandler:h"},                                                                               // 119
	{"MPI_Error_string", "errorcode:i errorstring:c resultlen:i"},                                                         // 120
	{"MPI_Error_class", "errorcode:i errorclass:i"},                                                                       // 121
	{"MPI_Wtime", ""},                   // 122
	{"MPI_Wtick", ""},                   // 123
	{"MPI_Init", "argc:i argv:A"},       // 124
	{"MPI_Finalize", ""},                // 125
	{"MPI_Initialized", "result:i"},     // 126
	{"MPI_Abort", "comm:h errorcode:i"}, // 127
	{"MPI_Pcontrol", "!"},               // 128
	{"MPI_Close_port", "portname:c"},    // 129
	{"MPI_Comm_accept", "portname:c info:h root:i oldcomm:h newcomm:h"},  // 130
	{"MPI_Comm_connect", "portname:c info:h root:i oldcomm:h newcomm:h"}, // 131
	{"MPI_Comm_disconnect", "comm:h"},                                    // 132
	{"MPI_Comm_get_parent", "parent:h"},                                  // 133
	{"MPI_Comm_join", "fd:i comm:h"},                                     // 134
	{"MPI_Comm_spawn", "oldcommrank:i root:i oldcomm:h newcomm:h command:c? argv:C? maxprocs:i? info:h? errcodes:I?"},                                // 135
	{"MPI_Comm_spawn_multiple", "totprocs:i oldcommrank:i root:i oldcomm:h newcomm:h count:i? commands:C? argvs:D? maxprocs:I? info:H? errcodes:I?"}, // 136
	{"MPI_Lookup_name", "servicename:c info:h portname:c"},                                                                                           // 137
	{"MPI_Open_port", "info:h portname:c"},                                                                             // 138
	{"MPI_Publish_name", "servicename:c info:h portname:c"},                                                            // 139
	{"MPI_Unpublish_name", "servicename:c info:h portname:c"},                                                          // 140
	{"MPI_Accumulate", "origincount:i origintype:h targetrank:i targetdisp:i targetcount:i targettype:h op:b win:h"},   // 141
	{"MPI_Get", "origincount:i origintype:h targetrank:i targetdisp:i targetcount:i targettype:h win:h"},               // 142
	{"MPI_Put", "origincount:i origintype:h targetrank:i targetdisp:i targetcount:i targettype:h win:h"},               // 143
	{"MPI_Win_complete", "win:h"},                                                                                      // 144
	{"MPI_Win_create", "size:i dispunit:i info:h comm:h win:h"},                                                        // 145
	{"MPI_Win_fence", "assertion:b win:h"},                                                                             // 146
	{"MPI_Win_free", "win:h"},                                                                                          // 147
	{"MPI_Win_get_group", "win:h group:h"},                                                                             // 148
	{"MPI_Win_lock", "locktype:b winrank:i assertion:b win:h"},                                                         // 149
	{"MPI_Win_post", "group:h assertion:b win:h"},                                                                      // 150
	{"MPI_Win_start", "group:h assertion:b win:h"},                                                                     // 151
	{"MPI_Win_test", "win:h flag:i"},                                                                                   // 152
	{"MPI_Win_unlock", "winrank:i win:h"},                                                                              // 153
	{"MPI_Win_wait", "win:h"},                                                                                          // 154
	{"MPI_Alltoallw", "commsize:i sendcounts:I senddispls:I sendtypes:H recvcounts:I recvdispls:I recvtypes:H comm:h"}, // 155
	{"MPI_Exscan", "count:i datatype:h op:b comm:h"},                                                                   // 156
	{"MPI_Add_error_class", "errorclass:i"},                                                                            // 157
	{"MPI_Add_error_code", "errorclass:i errorcode:i"},                                                                 // 158
	{"MPI_Add_error_string", "errorcode:i errorstring:c"},                                                              // 159
	{"MPI_Comm_call_errhandler", "comm:h errorcode:i"},                                                                 // 160
	{"MPI_Comm_create_keyval", "keyval:h"},                                                                             // 161
	{"MPI_Comm_delete_attr", "comm:h keyval:h"},                                                                        // 162
	{"MPI_Comm_free_keyval", "keyval:h"},                                                                               // 163
	{"MPI_Comm_get_attr", "comm:h keyval:h flag:i"},                                                                    // 164
	{"MPI_Comm_get_name", "comm:h name:c resultlen:i"},                                                                 // 165
	{"MPI_Comm_set_attr", "comm:h keyval:h"},                                                                           // 166
	{"MPI_Comm_set_name", "comm:h name:c"},                                                                             // 167
	{"MPI_File_call_errhandler", "file:h errorcode:i"},                                                                 // 168
	{"MPI_Grequest_complete", "request:i"},                                                                             // 169
	{"MPI_Grequest_start", "request:i"},                                                                                // 170
	{"MPI_Init_thread", "argc:i argv:A required:b provided:b"},                                                         // 171
	{"MPI_Is_thread_main", "flag:i"},                                                                                   // 172
	{"MPI_Query_thread", "supported:b"},                                                                                // 173
	{"MPI_Status_set_cancelled", "status:S flag:i"},                                                                    // 174
	{"MPI_Status_set_elements", "status:S datatype:h count:i"},                                                         // 175
	{"MPI_Type_create_keyval", "keyval:h"},                                                                             // 176
	{"MPI_Type_delete_attr", "datatype:h keyval:h"},                                                                    // 177
	{"MPI_Type_dup", "oldtype:h newtype:h"},                                                                            // 178
	{"MPI_Type_free_keyval", "keyval:h"},                                                                               // 179
	{"MPI_Type_get_attr", "datatype:h keyval:h flag:i"},                                                                // 180
	{"MPI_Type_get_contents", "numdatatypes:i numaddresses:i numintegers:i datatype:h maxintegers:i maxaddresses:i maxdatatypes:i arrintegers:I arraddresses:I arrdatatypes:H"}, // 181
	{"MPI_Type_get_envelope", "datatype:h numintegers:i numaddresses:i numdatatypes:i combiner:b"},                                                                              // 182
	{"MPI_Type_get_name", "datatype:h name:c resultlen:i"},                                                                                                                      // 183
	{"MPI_Type_set_attr", "datatype:h keyval:h"},                                                                                                                                // 184
	{"MPI_Type_set_name", "datatype:h name:c"},                                                                                                                                  // 185
	{"MPI_Type_match_size", "typeclass:b size:i datatype:h"},                                                                                                                    // 186
	{"MPI_Win_call_errhandler", "win:h errorcode:i"},                                                                                                                            // 187
	{"MPI_Win_create_keyval", "keyval:h"},                                                                                                                                       // 188
	{"MPI_Win_delete_attr", "win:h keyval:h"},                                                                                                                                   // 189
	{"MPI_Win_free_keyval", "keyval:h"},                                                                                                                                         // 190
	{"MPI_Win_get_attr", "win:h keyval:h flag:i"},                                                                                                                               // 191
	{"MPI_Win_get_name", "win:h name:c resultlen:i"},                                                                                                                            // 192
	{"MPI_Win_set_attr", "win:h keyval:h"},                                                                                                                                      // 193
	{"MPI_Win_set_name", "win:h name:c"},                                                                                                                                        // 194
	{"MPI_Alloc_mem", "size:i info:h"},                                                                                                                                          // 195
	{"MPI_Comm_create_errhandler", "errhandler:h"},                                                                                                                              // 196
	{"MPI_Comm_get_errhandler", "comm:h errhandler:h"},                                                                                                                          // 197
	{"MPI_Comm_set_errhandler", "comm:h errhandler:h"},                                                                                                                          // 198
	{"MPI_File_create_errhandler", "errhandler:h"},                                                                                                                              // 199
	{"MPI_File_get_errhandler", "file:h errhandler:h"},                                                                                                                          // 200
	{"MPI_File_set_errhandler", "file:h errhandler:h"},                                                                                                                          // 201
	{"MPI_Finalized", "flag:i"},                                                                                                                                                 // 202
	{"MPI_Free_mem", ""},                                                                                                                                                        // 203
	{"MPI_Get_address", "address:i"},                                                                                                                                            // 204
	{"MPI_Info_create", "info:h"},                                                                                                                                               // 205
	{"MPI_Info_delete", "info:h key:c"},                                                                                                                                         // 206
	{"MPI_Info_dup", "oldinfo:h newinfo:h"},                                                                                                                                     // 207
	{"MPI_Info_free", "info:h"},                                                                                                                                                 // 208
	{"MPI_Info_get", "info:h key:c valuelength:i value:c flag:i"},                                                                                                               // 209
	{"MPI_Info_get_nkeys", "info:h nkeys:i"},                                                                                                                                    // 210
	{"MPI_Info_get_nthkey", "info:h n:i key:c"},                                                                                                                                 // 211
	{"MPI_Info_get_valuelen", "info:h key:c valuelen:i flag:i"},                                                                                                                 // 212
	{"MPI_Info_set", "info:h key:c value:c"},                                                                                                                                    // 213
	{"MPI_Pack_external", "datarep:c incount:i intype:h outcount:i positionin:i positionout:i"},                                                                                 // 214
	{"MPI_Pack_external_size", "datarep:c incount:i datatype:h size:i"},                                                                                                         // 215
	{"MPI_Request_get_status", "request:i flag:i status:S"},                                                                                                                     // 216
	{"MPI_Type_create_darray", "size:i rank:i ndims:i gsizes:I distribs:B dargs:I psizes:I order:b oldtype:h newtype:h"}, // 217
	{"MPI_Type_create_hindexed", "count:i blocklengths:I displacements:I oldtype:h newtype:h"},                           // 218
	{"MPI_Type_create_hvector", "count:i blocklength:i stride:i oldtype:h newtype:h"},                                    // 219
	{"MPI_Type_create_indexed_block", "count:i blocklength:i displacments:I oldtype:h newtype:h"},                        // 220
	{"MPI_Type_create_resized", "oldtype:h lb:i extent:i newtype:h"},                                                     // 221
	{"MPI_Type_create_struct", "count:i blocklengths:I displacements:I oldtypes:H newtype:h"},                            // 222
	{"MPI_Type_create_subarray", "ndims:i sizes:I subsizes:I starts:I order:b oldtype:h newtype:h"},                      // 223
	{"MPI_Type_get_extent", "datatype:h lb:i extent:i"},                                                                  // 224
	{"MPI_Type_get_true_extent", "datatype:h lb:i extent:i"},                                                             // 225
	{"MPI_Unpack_external", "datarep:c insize:i positionin:i positionout:i outcount:i datatype:h"},                       // 226
	{"MPI_Win_create_errhandler", "errhandler:h"},                                                                        // 227
	{"MPI_Win_get_errhandler", "win:h errhandler:h"},                                                                     // 228
	{"MPI_Win_set_errhandler", "win:h errhandler:h"},                                                                     // 229
	{"MPI_File_open", "comm:h filename:c amode:b info:h file:h"},                                                         // 230
	{"MPI_File_close", "file:h"},                                                    // 231
	{"MPI_File_delete", "filename:c info:h"},                                        // 232
	{"MPI_File_set_size", "file:h size:l"},                                          // 233
	{"MPI_File_preallocate", "file:h size:l"},                                       // 234
	{"MPI_File_get_size", "file:h size:l"},                                          // 235
	{"MPI_File_get_group", "file:h group:h"},                                        // 236
	{"MPI_File_get_amode", "file:h amode:b"},                                        // 237
	{"MPI_File_set_info", "file:h info:h"},                                          // 238
	{"MPI_File_get_info", "file:h info:h"},                                          // 239
	{"MPI_File_set_view", "file:h offset:l hosttype:h filetype:h datarep:c info:h"}, // 240
	{"MPI_File_get_view", "file:h offset:l hosttype:h filetype:h datarep:c"},        // 241
	{"MPI_File_read_at", "file:h offset:l count:i datatype:h status:S"},             // 242
	{"MPI_File_read_at_all", "file:h offset:l count:i datatype:h status:S"},         // 243
	{"MPI_File_write_at", "file:h offset:l count:i datatype:h status:S"},            // 244
	{"MPI_File_write_at_all", "file:h offset:l count:i datatype:h status:S"},        // 245
	{"MPI_File_iread_at", "file:h offset:l count:i datatype:h request:i"},           // 246
	{"MPI_File_iwrite_at", "file:h offset:l count:i datatype:h request:i"},          // 247
	{"MPI_File_read", "file:h count:i datatype:h status:S"},                         // 248
	{"MPI_File_read_all", "file:h count:i datatype:h status:S"},                     // 249
	{"MPI_File_write", "file:h count:i datatype:h status:S"},                        // 250
	{"MPI_File_write_all", "file:h count:i datatype:h status:S"},                    // 251
	{"MPI_File_iread", "file:h count:i datatype:h request:i"},                       // 252
	{"MPI_File_iwrite", "file:h count:i datatype:h request:i"},                      // 253
	{"MPI_File_seek", "file:h offset:l whence:b"},                                   // 254
	{"MPI_File_get_position", "file:h offset:l"},                                    // 255
	{"MPI_File_get_byte_offset", "file:h offset:l bytes:l"},                         // 256
	{"MPI_File_read_shared", "file:h count:i datatype:h status:S"},                  // 257
	{"MPI_File_write_shared", "file:h count:i datatype:h status:S"},                 // 258
	{"MPI_File_iread_shared", "file:h count:i datatype:h request:i"},                // 259
	{"MPI_File_iwrite_shared", "file:h count:i datatype:h request:i"},               // 260
	{"MPI_File_read_ordered", "file:h count:i datatype:h status:S"},                 // 261
	{"MPI_File_write_ordered", "file:h count:i datatype:h status:S"},                // 262
	{"MPI_File_seek_shared", "file:h offset:l whence:b"},                            // 263
	{"MPI_File_get_position_shared", "file:h offset:l"},                             // 264
	{"MPI_File_read_at_all_begin", "file:h offset:l count:i datatype:h"},            // 265
	{"MPI_File_read_at_all_end", "file:h status:S"},                                 // 266
	{"MPI_File_write_at_all_begin", "file:h offset:l count:i datatype:h"},           // 267
	{"MPI_File_write_at_all_end", "file:h status:S"},                                // 268
	{"MPI_File_read_all_begin", "file:h count:i datatype:h"},                        // 269
	{"MPI_File_read_all_end", "file:h status:S"},                                    // 270
	{"MPI_File_write_all_begin", "file:h count:i datatype:h"},                       // 271
	{"MPI_File_write_all_end", "file:h status:S"},                                   // 272
	{"MPI_File_read_ordered_begin", "file:h count:i datatype:h"},                    // 273
	{"MPI_File_read_ordered_end", "file:h status:S"},                                // 274
	{"MPI_File_write_ordered_begin", "file:h count:i datatype:h"},                   // 275
	{"MPI_File_write_ordered_end", "file:h status:S"},                               // 276
	{"MPI_File_get_type_extent", "file:h datatype:h extent:i"},                      // 277
	{"MPI_Register_datarep", "name:c"},                                              // 278
	{"MPI_File_set_atomicity", "file:h flag:i"},                                     // 279
	{"MPI_File_get_atomicity", "file:h flag:i"},                                     // 280
	{"MPI_File_sync", "file:h"},                                                     // 281
	{"MPIO_Test", "request:i flag:i status:S"},                                      // 282
	{"MPIO_Wait", "request:i status:S"},                                             // 283
	{"MPIO_Testall", "count:i requests:I flag:i statuses:S"},                        // 284
	{"MPIO_Waitall", "count:i requests:I statuses:S"},                               // 285
	{"MPIO_Testany", "count:i requests:I flag:i index:i statuses:S"},                // 286
	{"MPIO_Waitany", "count:i requests:I index:i statuses:S"},                       // 287
	{"MPIO_Waitsome", "count:i requests:I outcount:i indices:I statuses:S"},         // 288
	{"MPIO_Testsome", "count:i requests:I outcount:i indices:I statuses:S"},         // 289
}
