package liballprof

// This file reads the text traces of liballprof, the PMPI tracer of
// LogGOPSim's Schedgen (also written by htor's "PMPI Tracer" and its
// "collprof" variant): one file per rank, named like
// pmpi-trace-rank-0.txt (Schedgen finds the other ranks by replacing the
// number after the last "-").
//
// # Format
//
// Lines starting with # are comments (the tracer writes a header and a
// clock difference to rank 0). Every other line is one MPI call:
//
//	MPI_Send:1237666053149864.000000:11251872:4500:11,8,8:1:7000:0,0,4:1237666053150082.000000
//
// that is the function's name, the time it was entered, one field per
// argument of its C prototype, in order, and the time it returned, all
// separated by ':'. Times are MPI_Wtime in µs (integers, or with six
// decimals in older versions); MPI_Init has "-" for its start and
// MPI_Finalize "-" for its end. An argument is printed by its type:
//
//	pointer, array, MPI_Request*, MPI_Status*,   the address, a decimal number (so a request
//	MPI_Comm* (new communicators)                 or a new communicator is known by the address
//	                                              of the variable that holds it)
//	int, MPI_Aint                                 the value
//	MPI_Datatype                                  id,size,extent: the tracer's number of a
//	                                              predefined type (or the handle), MPI_Type_size,
//	                                              MPI_Type_extent
//	MPI_Comm                                      handle,rank,size: the handle, the caller's rank
//	                                              in it and its size
//	MPI_Op                                        the tracer's number of a predefined op, or the handle
//	int *sendcounts, *recvcounts, *displs, ...    two fields: the address, then one value per rank
//	                                              of the call's communicator, separated by ','
//
// lapLayouts below lists, per function, the arguments as the reader takes
// them (the MPI standard's C prototypes); a line with a different number
// of fields is an error with its line and column.
//
// # Conversion
//
// Times are multiplied by TimeMult (default 1000, µs to ns, as Schedgen's
// --timemult). Point-to-point calls keep their peers (translated to world
// ranks), tags and sizes (count times MPI_Type_size). The values of
// MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_PROC_NULL, MPI_ROOT and MPI_UNDEFINED
// are those of the MPI library that was traced: MPICH's if the
// communicator handles are MPICH's (0x44000000 is its MPI_COMM_WORLD),
// Open MPI's otherwise, or as Options.MPI says.
//
// Requests are known by the address of the MPI_Request variable: a Wait
// completes the request last created at its address; a Waitall of n
// requests at address a completes those at a, a+s, ..., a+(n-1)s, with the
// stride s (8 for C handles, 4 for Fortran integers) that matches more
// pending requests. liballprof records neither statuses nor the index a
// Waitany or Waitsome returned, nor the flag of a Test: Waitany and
// Waitsome complete the oldest pending request of their array, Test*
// calls complete nothing (a request a successful Test completed and no
// Wait names stays open, as in Schedgen). A receive from MPI_ANY_SOURCE
// or with MPI_ANY_TAG gets the source and tag of the message it is
// matched with across the ranks (see resolveWildcards): left a wildcard,
// it could take in the simulation a message of a collective.
//
// Collectives on any communicator become collective calls (Schedgen
// ignores those on sub-communicators, and Alltoallv, Gather(v),
// Scatter(v), Allgatherv and Exscan altogether). Communicators: the trace
// shows, at each use, a communicator's handle and the caller's rank and
// size in it, and the communicator-creating calls (Comm_split with its
// color and key, Comm_dup, Cart_create, Comm_create, ...) but not which
// handle they returned, nor anyone's members. The reader links each
// created communicator to the next new handle the rank uses, in creation
// order (and forgets a handle when MPI_Comm_free frees the variable that
// held it); it then computes members exactly for Comm_split and Comm_dup,
// from the ranks' positions for the others when they form one
// communicator, and checks every rank's position and size against them.
// The first new handle of the world's size (where the rank has its world
// rank) is MPI_COMM_WORLD. Calls on a communicator whose members cannot
// be told are unsupported, as are MPI functions the reader does not model
// (one-sided, I/O, persistent requests, intercommunicators, ...):
// Open lists them with their counts unless Unsupported is
// "calc". Calls without communication (MPI_Comm_rank, MPI_Type_*,
// MPI_Wtime, ...) are dropped and their time counts as computation, as in
// gopsim's own tracer.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/trace"
)

// Options control the liballprof importer. The zero value is
// Schedgen's conversion: µs to ns, an error on unsupported calls, the MPI
// library detected.
type Options struct {
	// TimeMult multiplies the trace's times (µs) into the converter's ns;
	// 0 means 1000, Schedgen's --timemult default.
	TimeMult float64
	// Unsupported is "" (Open fails, listing the calls it cannot
	// model with their counts) or "calc" (their time counts as
	// computation; Unsupported() lists them).
	Unsupported string
	// MPI is the traced library, whose constants (MPI_ANY_SOURCE,
	// MPI_PROC_NULL, ...) the trace holds: "openmpi", "mpich", or ""
	// to tell from the communicator handles.
	MPI string
}

// Trace is a liballprof trace: one text file per rank. It is a
// Source.
type Trace struct {
	Files []string // by rank, as opened (for messages)
	MPI   string   // the library whose constants the reader used: "openmpi" or "mpich"
	// Warnings lists what the reader had to assume about the trace.
	Warnings []string

	fsys        fs.FS
	names       []string // by rank, in fsys
	opt         Options
	consts      lapConsts
	comms       *trace.CommTable
	wild        [][]trace.P2PMatch
	unsupported map[string]int64
}

var lapFileRE = regexp.MustCompile(`^(.*-)([0-9]+)(\.[A-Za-z0-9]+)?$`)

// Open opens the liballprof trace at path: a directory with the
// rank files of one trace, or one of the files (the others have the same
// name with another rank number). It reads every file once to check it
// and to work out the communicators; OpenRank reads a rank's calls.
func Open(path string, opt Options) (*Trace, error) {
	fsys, dir, name, err := trace.DiskFS(path)
	if err != nil {
		return nil, err
	}
	l, err := OpenFS(fsys, name, opt)
	if err != nil {
		return nil, err
	}
	trace.DiskPaths(l.Files, dir, l.names)
	return l, nil
}

// OpenFS is Open on a file system: name is a rank
// file, or "" for the trace that is the root directory's.
func OpenFS(fsys fs.FS, name string, opt Options) (*Trace, error) {
	if opt.TimeMult == 0 {
		opt.TimeMult = 1000
	}
	if !(opt.TimeMult > 0) || math.IsInf(opt.TimeMult, 0) {
		return nil, fmt.Errorf("trace: liballprof: time multiplier %v: must be positive", opt.TimeMult)
	}
	if err := trace.CheckUnsupportedPolicy(opt.Unsupported); err != nil {
		return nil, err
	}
	l := &Trace{fsys: fsys, opt: opt, unsupported: map[string]int64{}}
	var err error
	if l.names, err = lapRankFiles(fsys, name); err != nil {
		return nil, err
	}
	l.Files = slices.Clone(l.names)
	if err := l.scan(); err != nil {
		return nil, err
	}
	if len(l.unsupported) > 0 && opt.Unsupported == "" {
		return nil, trace.UnsupportedCalls("trace: liballprof "+lapTraceName(l.Files), l.unsupported)
	}
	return l, nil
}

func lapTraceName(files []string) string {
	if len(files) == 0 {
		return ""
	}
	return files[0]
}

// lapRankFiles finds the rank files: those of name's trace, or the one
// trace in the root directory.
func lapRankFiles(fsys fs.FS, name string) ([]string, error) {
	dir := "."
	var want *[2]string
	if name != "" {
		dir = path.Dir(name)
		m := lapFileRE.FindStringSubmatch(path.Base(name))
		if m == nil {
			return nil, fmt.Errorf("trace: liballprof: %s: not a rank file name (PREFIX-RANK[.EXT], e.g. pmpi-trace-rank-0.txt)", name)
		}
		want = &[2]string{m[1], m[3]}
	}
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("trace: liballprof: %w", err)
	}
	type set struct {
		prefix, ext string
		files       map[int]string
	}
	sets := map[[2]string]*set{}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		m := lapFileRE.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		k := [2]string{m[1], m[3]}
		if want != nil && k != *want {
			continue
		}
		r, err := strconv.Atoi(m[2])
		if err != nil || r > 1<<22 {
			continue
		}
		s := sets[k]
		if s == nil {
			s = &set{prefix: m[1], ext: m[3], files: map[int]string{}}
			sets[k] = s
		}
		if old, dup := s.files[r]; dup {
			return nil, fmt.Errorf("trace: liballprof: rank %d has two files: %s and %s", r, old, e.Name())
		}
		s.files[r] = path.Join(dir, e.Name())
	}
	var found []*set
	for _, s := range sets {
		if f, ok := s.files[0]; ok && (want != nil || sniffLiballprof(fsys, f)) {
			found = append(found, s)
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("trace: liballprof: %s: no liballprof rank files (PREFIX-0.txt, PREFIX-1.txt, ...)", dir)
	case 1:
	default:
		var names []string
		for _, s := range found {
			names = append(names, s.prefix+"N"+s.ext)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("trace: liballprof: %s holds several traces (%s): name a file of one", dir, strings.Join(names, ", "))
	}
	s := found[0]
	n := 0
	for r := range s.files {
		n = max(n, r+1)
	}
	files := make([]string, n)
	var missing []int
	for r := range files {
		f, ok := s.files[r]
		if !ok && len(missing) < 10 {
			missing = append(missing, r)
		}
		files[r] = f
	}
	if len(missing) > 0 {
		return nil, lapMissingError(fmt.Sprintf("trace: liballprof: %s: %d rank files for ranks 0..%d (missing %v)", path.Join(dir, s.prefix+"N"+s.ext), len(s.files), n-1, missing))
	}
	return files, nil
}

// lapComplete refuses a rank file without calls (empty) or without the
// MPI_Finalize line the tracer writes last (cut short: the program died,
// or the file was truncated), which would convert into a rank that does
// nothing, or stops half-way, and a schedule that deadlocks or lies. cut
// says the file ends inside its last line (no newline after it).
func lapComplete(file string, rank, calls int, finalized bool, lines int, cut bool) error {
	switch {
	case calls == 0:
		return &trace.TextFormatError{File: file, Line: max(lines, 1), Err: fmt.Errorf("liballprof: the rank file of rank %d has no MPI calls: empty or truncated", rank)}
	case !finalized:
		return &trace.TextFormatError{File: file, Line: max(lines, 1), Incomplete: cut, Err: fmt.Errorf("liballprof: the rank file of rank %d ends before MPI_Finalize: truncated, or the program did not finish", rank)}
	}
	return nil
}

// lapMissingError is the error about a trace whose rank files have gaps:
// still a liballprof trace, so that opening it names them.
type lapMissingError string

func (e lapMissingError) Error() string { return string(e) }

// Detect reports whether path is a liballprof trace: a rank file,
// or a directory holding the rank files of one trace, whose first line
// that is not blank is the tracer's comment or an MPI call.
func Detect(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		_, err := lapRankFiles(os.DirFS(path), "")
		var missing lapMissingError
		return err == nil || errors.As(err, &missing)
	}
	return lapFileRE.MatchString(filepath.Base(path)) && sniffLiballprof(os.DirFS(filepath.Dir(path)), filepath.Base(path))
}

var lapCallRE = regexp.MustCompile(`^P?MPI_[A-Za-z0-9_]+:`)

func sniffLiballprof(fsys fs.FS, name string) bool {
	f, err := fsys.Open(name)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	for _, line := range bytes.Split(head[:n], []byte("\n")) {
		line = bytes.TrimSpace(line)
		switch {
		case len(line) == 0:
			continue
		case bytes.HasPrefix(line, []byte("# collprof")), bytes.HasPrefix(line, []byte("# htor's PMPI")), bytes.HasPrefix(line, []byte("# liballprof")):
			return true
		case line[0] == '#':
			continue
		}
		return lapCallRE.Match(line)
	}
	return false
}

// NumRanks is the number of rank files.
func (l *Trace) NumRanks() int { return len(l.names) }

// Unsupported counts the calls that OpenRank drops because they cannot be
// modelled (with Unsupported "calc"; otherwise Open failed on
// them), by function and reason.
func (l *Trace) Unsupported() map[string]int64 { return trace.CopyCounts(l.unsupported) }

// OpenRank opens rank r's calls.
func (l *Trace) OpenRank(r int) (trace.RankStream, error) {
	if r < 0 || r >= len(l.names) {
		return nil, fmt.Errorf("trace: liballprof: rank %d outside 0..%d", r, len(l.names)-1)
	}
	f, err := l.fsys.Open(l.names[r])
	if err != nil {
		return nil, fmt.Errorf("trace: liballprof: %w", err)
	}
	s := &lapStream{f: f, st: l.newState(r)}
	s.st.table, s.st.wild = l.comms, l.wild[r]
	s.sc = newLapScanner(f)
	return s, nil
}

// ---- the MPI library's constants ----

type lapConsts struct {
	anySource, anyTag, procNull, root, undefined int64
}

var (
	lapOpenMPI = lapConsts{anySource: -1, anyTag: -1, procNull: -2, root: -4, undefined: -32766}
	lapMPICH   = lapConsts{anySource: -2, anyTag: -1, procNull: -1, root: -3, undefined: -32766}
)

// lapIsMPICHHandle: MPICH's communicator handles are integers with the
// kind 0x1 in bits 26-29 (MPI_COMM_WORLD is 0x44000000).
func lapIsMPICHHandle(h uint64) bool {
	return h <= math.MaxUint32 && h&0x3c000000 == 0x04000000 && h>>30 != 0
}

// ---- scanning ----

type lapScanner struct {
	sc   *bufio.Scanner
	line int
	// cutLine is the line, when next returned it, that ends the file
	// without a newline (0: none).
	cutLine int
	ls      trace.LineScanner
}

func newLapScanner(r io.Reader) *lapScanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 256<<20)
	s := &lapScanner{sc: sc}
	sc.Split(s.ls.Split)
	return s
}

// incomplete marks err, the error of line b (the one next returned
// last), Incomplete when the file ends inside b and err is what a cut
// explains: at b's last field (fields missing, or the last one cut), or
// about the whole line.
func (s *lapScanner) incomplete(err error, b []byte) error {
	var te *trace.TextFormatError
	if s.cutLine == 0 || s.cutLine != s.line || !errors.As(err, &te) || te.Line != s.line {
		return err
	}
	if last := bytes.LastIndexByte(b, ':') + 2; te.Col == 0 || te.Col >= last {
		te.Incomplete = true
	}
	return err
}

// next returns the next line that is not blank or a comment, or io.EOF.
func (s *lapScanner) next() ([]byte, error) {
	for s.sc.Scan() {
		s.line++
		b := bytes.TrimRight(s.sc.Bytes(), " \t\r")
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		if s.ls.Unterminated {
			s.cutLine = s.line
		}
		return b, nil
	}
	if err := s.sc.Err(); err != nil {
		s.line++
		return nil, err
	}
	return nil, io.EOF
}

// scan reads every rank file: it checks them, counts the unsupported
// calls and collects how each rank made its communicators, then resolves
// the communicators.
func (l *Trace) scan() error {
	if err := l.chooseConsts(); err != nil {
		return err
	}
	specs := make([][]trace.CommSpec, len(l.names))
	p2p := make([][]lapP2P, len(l.names))
	usage := make([]map[int32]map[string]int64, len(l.names))
	var maxComm int64 // the largest communicator size seen
	for r := range l.names {
		st, err := l.scanRank(r, &maxComm)
		if err != nil {
			return err
		}
		for fn, n := range st.skipped {
			l.unsupported[fn] += n
		}
		specs[r], usage[r], p2p[r] = st.comms.specs, st.usage, st.p2p
		for _, w := range st.comms.warnings {
			if len(l.Warnings) < 20 {
				l.Warnings = append(l.Warnings, fmt.Sprintf("%s: %s", l.Files[r], w))
			}
		}
	}
	l.comms = trace.ResolveComms(len(l.names), specs)
	l.wild = trace.ResolveWildcards(l.p2pEvents(p2p))
	for r := range usage {
		for li, fns := range usage[r] {
			if c, why := l.comms.Comm(r, li); c.Local {
				for fn, n := range fns {
					l.unsupported[fn+" (on a communicator whose members the trace does not tell: "+why+")"] += n
				}
			}
		}
	}
	return nil
}

// chooseConsts sets the MPI library's constants: those asked for, or
// detected from rank 0's first communicator handle.
func (l *Trace) chooseConsts() error {
	switch l.opt.MPI {
	case "openmpi":
		l.consts, l.MPI = lapOpenMPI, "openmpi"
	case "mpich":
		l.consts, l.MPI = lapMPICH, "mpich"
	case "":
		h, err := l.firstHandle()
		if err != nil {
			return err
		}
		l.consts, l.MPI = lapOpenMPI, "openmpi"
		if lapIsMPICHHandle(h) {
			l.consts, l.MPI = lapMPICH, "mpich"
		}
	default:
		return fmt.Errorf("trace: liballprof: MPI library %q: expected openmpi, mpich or nothing", l.opt.MPI)
	}
	return nil
}

// scanRank reads rank r's file once, checking every line, and returns
// its state: communicators, point-to-point events, calls skipped.
// maxComm is the largest communicator size seen so far: one larger than
// the world means the last ranks' files are missing.
func (l *Trace) scanRank(r int, maxComm *int64) (*lapState, error) {
	f, err := l.fsys.Open(l.names[r])
	if err != nil {
		return nil, fmt.Errorf("trace: liballprof: %w", err)
	}
	defer f.Close()
	st := l.newState(r)
	sc := newLapScanner(f)
	var c trace.Call
	calls, finalized := 0, false
	for {
		b, err := sc.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &trace.TextFormatError{File: l.Files[r], Line: sc.line, Err: err}
		}
		calls++
		finalized = finalized || bytes.HasPrefix(b, []byte("MPI_Finalize:")) || bytes.HasPrefix(b, []byte("PMPI_Finalize:"))
		if _, err := st.line(b, sc.line, &c); err != nil {
			return nil, sc.incomplete(err, b)
		}
		*maxComm = max(*maxComm, st.a.comm.size, st.a.comm2.size)
	}
	if err := lapComplete(l.Files[r], r, calls, finalized, sc.line, sc.cutLine > 0 && sc.cutLine == sc.line); err != nil {
		return nil, err
	}
	if *maxComm > int64(len(l.names)) {
		return nil, l.missingRanks(r, *maxComm)
	}
	return st, nil
}

// missingRanks is the error of rank r's file holding a communicator of
// maxComm ranks, more than the files: the files of the last ranks are
// missing (those before are checked by name).
func (l *Trace) missingRanks(r int, maxComm int64) error {
	missing := fmt.Sprintf("ranks %d..%d", len(l.names), maxComm-1)
	if m := lapFileRE.FindStringSubmatch(path.Base(l.names[0])); m != nil {
		missing = fmt.Sprintf("%s%d%s", m[1], len(l.names), m[3])
		if maxComm > int64(len(l.names))+1 {
			missing += fmt.Sprintf(" to %s%d%s", m[1], maxComm-1, m[3])
		}
	}
	return fmt.Errorf("trace: liballprof: %s has a communicator of %d ranks, but there are rank files for ranks 0..%d only (missing %s)", l.Files[r], maxComm, len(l.names)-1, missing)
}

// p2pEvents turns the ranks' point-to-point calls into the events
// trace.ResolveWildcards matches: world ranks, agreed communicators,
// the library's wildcards as gopsim's.
func (l *Trace) p2pEvents(p2p [][]lapP2P) [][]trace.P2PEvent {
	events := make([][]trace.P2PEvent, len(l.names))
	for r := range p2p {
		for _, e := range p2p[r] {
			c, _ := l.comms.Comm(r, e.li)
			if c.Local {
				continue
			}
			ev := trace.P2PEvent{Send: e.send, Comm: c.ID, Tag: int32(e.tag), T: e.t}
			switch {
			case !e.send && e.peer == l.consts.anySource:
				ev.Peer = trace.AnySource
			case e.peer >= 0 && int(e.peer) < len(c.Members):
				ev.Peer = c.Members[e.peer]
			case e.send:
				continue
			default:
				ev.Peer = -100 // matches nothing; kept to number the receives
			}
			if !e.send && e.tag == l.consts.anyTag {
				ev.Tag = trace.AnyTag
			}
			events[r] = append(events[r], ev)
		}
	}
	return events
}

// firstHandle is the first communicator handle in rank 0's file, or 0.
func (l *Trace) firstHandle() (uint64, error) {
	f, err := l.fsys.Open(l.names[0])
	if err != nil {
		return 0, fmt.Errorf("trace: liballprof: %w", err)
	}
	defer f.Close()
	st := l.newState(0)
	sc := newLapScanner(f)
	for {
		b, err := sc.next()
		if err != nil {
			return 0, nil // the full scan reports it
		}
		var ln lapLine
		if st.split(b, sc.line, &ln) != nil {
			return 0, nil
		}
		info, ok := lapLayouts[ln.fn]
		if !ok {
			continue
		}
		var a lapArgs
		if st.parseArgs(&ln, info, &a) != nil {
			return 0, nil
		}
		if a.has&(1<<lapComm) != 0 {
			return a.comm.handle, nil
		}
	}
}

func (l *Trace) newState(r int) *lapState {
	return &lapState{
		file: l.Files[r], rank: int32(r), nranks: int32(len(l.names)), mult: l.opt.TimeMult,
		consts: &l.consts, calc: l.opt.Unsupported == "calc",
		comms:   lapComms{rank: int32(r), nranks: int32(len(l.names)), live: map[uint64]int32{}, seq: map[int32]int32{}},
		reqs:    map[uint64]*lapRequest{},
		skipped: map[string]int64{}, usage: map[int32]map[string]int64{},
	}
}

// ---- the per-function argument layouts ----

// lapRole is an argument's role; its kind decides how it is printed.
type lapRole uint8

const (
	lapPtr     lapRole = iota // an address or an output the reader ignores: one number
	lapCount                  // count
	lapSCount                 // sendcount
	lapRCount                 // recvcount
	lapType                   // datatype (id,size,extent)
	lapSType                  // sendtype
	lapRType                  // recvtype
	lapDest                   // destination rank in comm
	lapSrc                    // source rank in comm
	lapTag                    // tag
	lapSTag                   // sendtag
	lapRTag                   // recvtag
	lapRoot                   // root rank in comm
	lapComm                   // communicator (handle,rank,size)
	lapComm2                  // a second communicator (Comm_compare)
	lapOp                     // reduction op
	lapReq                    // address of a request
	lapReqs                   // address of an array of requests
	lapN                      // number of requests
	lapSCounts                // sendcounts (address, then values)
	lapRCounts                // recvcounts
	lapDispls                 // displacements (address, then values), ignored
	lapColor                  // Comm_split color (or Comm_split_type's type)
	lapKey                    // Comm_split key
	lapNewComm                // address of the new communicator's variable
	lapCommPtr                // address of a communicator's variable (Comm_free)
	lapInt                    // another int, ignored
	lapNumRoles
)

// lapRoles names the roles in the layouts.
var lapRoles = map[string]lapRole{
	"ptr": lapPtr, "count": lapCount, "scount": lapSCount, "rcount": lapRCount,
	"type": lapType, "stype": lapSType, "rtype": lapRType,
	"dest": lapDest, "src": lapSrc, "tag": lapTag, "stag": lapSTag, "rtag": lapRTag, "root": lapRoot,
	"comm": lapComm, "comm2": lapComm2, "op": lapOp, "req": lapReq, "reqs": lapReqs, "n": lapN,
	"scounts": lapSCounts, "rcounts": lapRCounts, "displs": lapDispls,
	"color": lapColor, "key": lapKey, "newcomm": lapNewComm, "commptr": lapCommPtr, "int": lapInt,
}

type lapFuncInfo struct {
	fn    trace.Func // 0: a call without communication, dropped
	roles []lapRole
}

// lapLayouts gives, per function, its arguments in the order liballprof
// prints them (the C prototypes of the MPI standard). "ptr" stands for
// buffers and outputs the reader does not need, "int" for other integers.
var lapLayouts = func() map[string]lapFuncInfo {
	m := map[string]lapFuncInfo{}
	add := func(fn trace.Func, layout string, names ...string) {
		var roles []lapRole
		for _, w := range strings.Fields(layout) {
			r, ok := lapRoles[w]
			if !ok {
				panic("liballprof layout: role " + w)
			}
			roles = append(roles, r)
		}
		for _, n := range names {
			m[n] = lapFuncInfo{fn: fn, roles: roles}
		}
	}
	add(trace.FuncInit, "ptr ptr", "MPI_Init")                        // argc, argv
	add(trace.FuncInitThread, "ptr ptr int ptr", "MPI_Init_thread")   // argc, argv, required, provided
	add(trace.FuncFinalize, "", "MPI_Finalize")                       //
	add(trace.FuncAbort, "comm int", "MPI_Abort")                     // comm, errorcode
	add(trace.FuncSend, "ptr count type dest tag comm", "MPI_Send")   // buf, count, datatype, dest, tag, comm
	add(trace.FuncBsend, "ptr count type dest tag comm", "MPI_Bsend") //
	add(trace.FuncSsend, "ptr count type dest tag comm", "MPI_Ssend")
	add(trace.FuncRsend, "ptr count type dest tag comm", "MPI_Rsend")
	add(trace.FuncIsend, "ptr count type dest tag comm req", "MPI_Isend") // ..., request
	add(trace.FuncIbsend, "ptr count type dest tag comm req", "MPI_Ibsend")
	add(trace.FuncIssend, "ptr count type dest tag comm req", "MPI_Issend")
	add(trace.FuncIrsend, "ptr count type dest tag comm req", "MPI_Irsend")
	add(trace.FuncRecv, "ptr count type src tag comm ptr", "MPI_Recv")   // buf, count, datatype, source, tag, comm, status
	add(trace.FuncIrecv, "ptr count type src tag comm req", "MPI_Irecv") // ..., request
	// sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, status
	add(trace.FuncSendrecv, "ptr scount stype dest stag ptr rcount rtype src rtag comm ptr", "MPI_Sendrecv")
	// buf, count, datatype, dest, sendtag, source, recvtag, comm, status
	add(trace.FuncSendrecvReplace, "ptr count type dest stag src rtag comm ptr", "MPI_Sendrecv_replace")
	add(trace.FuncWait, "req ptr", "MPI_Wait")                    // request, status
	add(trace.FuncWaitall, "n reqs ptr", "MPI_Waitall")           // count, requests, statuses
	add(trace.FuncWaitany, "n reqs ptr ptr", "MPI_Waitany")       // count, requests, index, status
	add(trace.FuncWaitsome, "n reqs ptr ptr ptr", "MPI_Waitsome") // incount, requests, outcount, indices, statuses
	add(trace.FuncTest, "req ptr ptr", "MPI_Test")                // request, flag, status
	add(trace.FuncTestall, "n reqs ptr ptr", "MPI_Testall")       // count, requests, flag, statuses
	add(trace.FuncTestany, "n reqs ptr ptr ptr", "MPI_Testany")   // count, requests, index, flag, status
	add(trace.FuncTestsome, "n reqs ptr ptr ptr", "MPI_Testsome") // incount, requests, outcount, indices, statuses
	add(trace.FuncIprobe, "src tag comm ptr ptr", "MPI_Iprobe")   // source, tag, comm, flag, status
	add(trace.FuncProbe, "src tag comm ptr", "MPI_Probe")         // source, tag, comm, status
	add(trace.FuncCancel, "req", "MPI_Cancel")                    // request
	add(trace.FuncRequestFree, "req", "MPI_Request_free")         // request
	add(trace.FuncBarrier, "comm", "MPI_Barrier")                 // comm
	add(trace.FuncBcast, "ptr count type root comm", "MPI_Bcast") // buffer, count, datatype, root, comm
	add(trace.FuncReduce, "ptr ptr count type op root comm", "MPI_Reduce")
	add(trace.FuncAllreduce, "ptr ptr count type op comm", "MPI_Allreduce") // sendbuf, recvbuf, count, datatype, op, comm
	add(trace.FuncScan, "ptr ptr count type op comm", "MPI_Scan")
	add(trace.FuncExscan, "ptr ptr count type op comm", "MPI_Exscan")
	// sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm
	add(trace.FuncAllgather, "ptr scount stype ptr rcount rtype comm", "MPI_Allgather")
	add(trace.FuncAlltoall, "ptr scount stype ptr rcount rtype comm", "MPI_Alltoall")
	// sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm
	add(trace.FuncAllgatherv, "ptr scount stype ptr rcounts displs rtype comm", "MPI_Allgatherv")
	// sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm
	add(trace.FuncGather, "ptr scount stype ptr rcount rtype root comm", "MPI_Gather")
	add(trace.FuncScatter, "ptr scount stype ptr rcount rtype root comm", "MPI_Scatter")
	// sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm
	add(trace.FuncGatherv, "ptr scount stype ptr rcounts displs rtype root comm", "MPI_Gatherv")
	// sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm
	add(trace.FuncScatterv, "ptr scounts displs stype ptr rcount rtype root comm", "MPI_Scatterv")
	// sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm
	add(trace.FuncAlltoallv, "ptr scounts displs stype ptr rcounts displs rtype comm", "MPI_Alltoallv")
	// sendbuf, recvbuf, recvcounts, datatype, op, comm
	add(trace.FuncReduceScatter, "ptr ptr rcounts type op comm", "MPI_Reduce_scatter")
	add(trace.FuncReduceScatterBlock, "ptr ptr count type op comm", "MPI_Reduce_scatter_block")
	add(trace.FuncIbarrier, "comm req", "MPI_Ibarrier")
	add(trace.FuncIbcast, "ptr count type root comm req", "MPI_Ibcast")
	add(trace.FuncIreduce, "ptr ptr count type op root comm req", "MPI_Ireduce")
	add(trace.FuncIallreduce, "ptr ptr count type op comm req", "MPI_Iallreduce")
	add(trace.FuncIallgather, "ptr scount stype ptr rcount rtype comm req", "MPI_Iallgather")
	add(trace.FuncIalltoall, "ptr scount stype ptr rcount rtype comm req", "MPI_Ialltoall")
	add(trace.FuncCommDup, "comm newcomm", "MPI_Comm_dup")                            // comm, newcomm
	add(trace.FuncCommSplit, "comm color key newcomm", "MPI_Comm_split")              // comm, color, key, newcomm
	add(trace.FuncCommCreate, "comm ptr newcomm", "MPI_Comm_create")                  // comm, group, newcomm
	add(trace.FuncCartCreate, "comm int ptr ptr int newcomm", "MPI_Cart_create")      // comm_old, ndims, dims, periods, reorder, comm_cart
	add(trace.FuncCartSub, "comm ptr newcomm", "MPI_Cart_sub")                        // comm, remain_dims, newcomm
	add(trace.FuncCommSplitType, "comm color key ptr newcomm", "MPI_Comm_split_type") // comm, split_type, key, info, newcomm
	add(trace.FuncCommFree, "commptr", "MPI_Comm_free")                               // comm
	add(0, "comm ptr", "MPI_Comm_rank", "MPI_Comm_size", "MPI_Comm_group",            // comm, output
		"MPI_Comm_test_inter", "MPI_Comm_remote_size", "MPI_Cartdim_get", "MPI_Comm_remote_group")
	add(0, "comm comm2 ptr", "MPI_Comm_compare")                    // comm1, comm2, result
	add(0, "comm int ptr ptr ptr", "MPI_Cart_get")                  // comm, maxdims, dims, periods, coords
	add(0, "comm ptr ptr", "MPI_Cart_rank")                         // comm, coords, rank
	add(0, "comm int int ptr", "MPI_Cart_coords")                   // comm, rank, maxdims, coords
	add(0, "comm int int ptr ptr", "MPI_Cart_shift")                // comm, direction, disp, source, dest
	add(0, "comm int ptr ptr", "MPI_Attr_get", "MPI_Comm_get_attr") // comm, keyval, attribute, flag
	return m
}()

// lapLocal lists the calls without communication whose layout the reader
// does not need: dropped, their time counts as computation.
var lapLocal = map[string]bool{
	"MPI_Wtime": true, "MPI_Wtick": true, "MPI_Get_count": true, "MPI_Get_elements": true,
	"MPI_Get_processor_name": true, "MPI_Get_version": true, "MPI_Initialized": true, "MPI_Finalized": true,
	"MPI_Query_thread": true, "MPI_Is_thread_main": true, "MPI_Pcontrol": true, "MPI_Address": true,
	"MPI_Get_address": true, "MPI_Pack": true, "MPI_Unpack": true, "MPI_Pack_size": true,
	"MPI_Buffer_attach": true, "MPI_Buffer_detach": true, "MPI_Op_create": true, "MPI_Op_free": true,
	"MPI_Errhandler_create": true, "MPI_Errhandler_get": true, "MPI_Errhandler_set": true, "MPI_Errhandler_free": true,
	"MPI_Error_string": true, "MPI_Error_class": true, "MPI_Keyval_create": true, "MPI_Keyval_free": true,
	"MPI_Attr_put": true, "MPI_Attr_delete": true, "MPI_Dims_create": true, "MPI_Topo_test": true,
	"MPI_Graphdims_get": true, "MPI_Graph_get": true, "MPI_Graph_neighbors_count": true, "MPI_Graph_neighbors": true,
	"MPI_Cart_map": true, "MPI_Graph_map": true, "MPI_Comm_get_name": true, "MPI_Comm_set_name": true,
	"MPI_Comm_set_attr": true, "MPI_Comm_delete_attr": true, "MPI_Comm_create_keyval": true, "MPI_Comm_free_keyval": true,
	"MPI_Comm_get_errhandler": true, "MPI_Comm_set_errhandler": true, "MPI_Comm_create_errhandler": true,
	"MPI_Alloc_mem": true, "MPI_Free_mem": true, "MPI_Request_get_status": true, "MPI_Test_cancelled": true,
	"MPI_Status_set_cancelled": true, "MPI_Status_set_elements": true, "MPI_Add_error_class": true,
	"MPI_Add_error_code": true, "MPI_Add_error_string": true,
}

func lapIsLocal(fn string) bool {
	return lapLocal[fn] || strings.HasPrefix(fn, "MPI_Type_") || strings.HasPrefix(fn, "MPI_Group_") || strings.HasPrefix(fn, "MPI_Info_")
}

// ---- one line ----

// lapLine is a line split into fields: the function, then [start, args..., end].
type lapLine struct {
	no     int
	fn     string
	fields [][]byte
	cols   []int // 1-based column of each field
}

type lapTypeArg struct {
	size, extent int64
}

type lapCommRef struct {
	handle     uint64
	rank, size int64
}

// lapArgs holds a call's arguments by role.
type lapArgs struct {
	has                   uint64 // bit per role present
	count, scount, rcount int64
	typ, styp, rtyp       lapTypeArg
	dest, src             int64
	tag, stag, rtag       int64
	root, color, key, n   int64
	comm, comm2           lapCommRef
	req, reqs             uint64
	newcomm, commptr      uint64
	scounts, rcounts      []int64
}

// lapP2P is a point-to-point call of the first pass, on communicator li
// of the rank, with peer and tag as the trace has them.
type lapP2P struct {
	send      bool
	li        int32
	peer, tag int64
	t         float64
}

type lapRequest struct {
	id   uint64
	kind trace.ReqKind
	fn   trace.Func
	comm int32
}

// lapState is the decoding state of one rank, the same in both passes.
type lapState struct {
	file         string
	rank, nranks int32
	mult         float64
	consts       *lapConsts
	calc         bool
	table        *trace.CommTable // nil in the first pass

	base     float64 // the first time in the file (µs)
	haveBase bool
	t0       float64 // the current call's start (µs)

	p2p   []lapP2P         // first pass: the point-to-point calls
	wild  []trace.P2PMatch // second pass: what the receives got
	nwild int

	comms   lapComms
	li      int32 // the current call's communicator
	reqs    map[uint64]*lapRequest
	nextReq uint64

	skipped map[string]int64           // unsupported calls
	usage   map[int32]map[string]int64 // communication calls per communicator (first pass)
	a       lapArgs
	ln      lapLine
}

func (st *lapState) errf(ln *lapLine, field int, format string, args ...any) error {
	col := 0
	if field >= 0 && field < len(ln.cols) {
		col = ln.cols[field]
	}
	return &trace.TextFormatError{File: st.file, Line: ln.no, Col: col, Err: fmt.Errorf("%s: "+format, append([]any{ln.fn}, args...)...)}
}

// split splits a line into ln.
func (st *lapState) split(b []byte, no int, ln *lapLine) error {
	ln.no, ln.fields, ln.cols = no, ln.fields[:0], ln.cols[:0]
	i := bytes.IndexByte(b, ':')
	if i < 0 || !lapCallRE.Match(b[:i+1]) {
		return &trace.TextFormatError{File: st.file, Line: no, Col: 1, Err: errors.New("expected an MPI call: MPI_Name:start:arguments...:end")}
	}
	ln.fn = string(b[:i])
	if strings.HasPrefix(ln.fn, "PMPI_") {
		ln.fn = ln.fn[1:]
	}
	pos := i + 1
	for {
		j := bytes.IndexByte(b[pos:], ':')
		if j < 0 {
			ln.fields, ln.cols = append(ln.fields, b[pos:]), append(ln.cols, pos+1)
			break
		}
		ln.fields, ln.cols = append(ln.fields, b[pos:pos+j]), append(ln.cols, pos+1)
		pos += j + 1
	}
	if len(ln.fields) < 2 {
		return &trace.TextFormatError{File: st.file, Line: no, Col: len(b) + 1, Err: fmt.Errorf("%s: expected start and end times", ln.fn)}
	}
	return nil
}

// time parses field i as a time; dash allows "-".
func (st *lapState) time(ln *lapLine, i int, dash bool) (float64, bool, error) {
	f := ln.fields[i]
	if dash && len(f) == 1 && f[0] == '-' {
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(string(trimFracZeros(f)), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > 1e17 {
		return 0, false, st.errf(ln, i, "time %q is not a number of µs", f)
	}
	return v, true, nil
}

// trimFracZeros drops a fraction of zeros: "1237666046950106.000000"
// becomes "1237666046950106", the same value. collprof prints µs with six
// decimals that are always zero, and strconv.ParseFloat takes its slow
// exact path (0.6 µs instead of 30 ns) on such 22-digit numbers, and even
// on "1237666046950106.0": that was 60 % of extrapolating a trace.
func trimFracZeros(f []byte) []byte {
	i := bytes.IndexByte(f, '.')
	if i < 0 {
		return f
	}
	digits := f[:i]
	if len(digits) > 0 && (digits[0] == '-' || digits[0] == '+') {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return f
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return f
		}
	}
	for _, c := range f[i+1:] {
		if c != '0' {
			return f
		}
	}
	return f[:i]
}

func (st *lapState) ns(ln *lapLine, i int, us float64) (int64, error) {
	if !st.haveBase {
		st.base, st.haveBase = us, true
	}
	v := math.Round((us - st.base) * st.mult)
	if math.Abs(v) > 1<<62 {
		return 0, st.errf(ln, i, "time %v µs is out of range after multiplying by %v", us, st.mult)
	}
	return int64(v), nil
}

// times sets the call's start and end.
func (st *lapState) times(ln *lapLine, c *trace.Call) error {
	last := len(ln.fields) - 1
	t0, ok0, err := st.time(ln, 0, ln.fn == "MPI_Init" || ln.fn == "MPI_Init_thread")
	if err != nil {
		return err
	}
	t1, ok1, err := st.time(ln, last, ln.fn == "MPI_Finalize")
	if err != nil {
		return err
	}
	switch {
	case !ok0:
		t0 = t1
	case !ok1:
		t1 = t0
	}
	st.t0 = t0
	if c.Start, err = st.ns(ln, 0, t0); err != nil {
		return err
	}
	if c.End, err = st.ns(ln, last, t1); err != nil {
		return err
	}
	return nil
}

func parseI64(f []byte) (int64, bool) {
	v, err := strconv.ParseInt(string(f), 10, 64)
	return v, err == nil
}

func parseU64(f []byte) (uint64, bool) {
	if v, err := strconv.ParseUint(string(f), 10, 64); err == nil {
		return v, true
	}
	// Some handles are printed signed.
	v, err := strconv.ParseInt(string(f), 10, 64)
	return uint64(v), err == nil
}

// parseArgs parses the argument fields by the function's layout.
func (st *lapState) parseArgs(ln *lapLine, info lapFuncInfo, a *lapArgs) error {
	scounts, rcounts := a.scounts[:0], a.rcounts[:0]
	*a = lapArgs{scounts: scounts, rcounts: rcounts}
	want := 2
	for _, r := range info.roles {
		want++
		if r == lapSCounts || r == lapRCounts || r == lapDispls {
			want++
		}
	}
	if len(ln.fields) != want {
		return st.errf(ln, min(len(ln.fields), want)-1, "%d fields, expected %d (start, %d arguments, end)", len(ln.fields), want, len(info.roles))
	}
	i := 1
	for _, r := range info.roles {
		a.has |= 1 << r
		next, err := st.parseArg(ln, i, r, a)
		if err != nil {
			return err
		}
		i = next
	}
	return nil
}

// parseArg parses the argument of role r in field i of ln into a and
// returns the index of the next argument's field.
func (st *lapState) parseArg(ln *lapLine, i int, r lapRole, a *lapArgs) (int, error) {
	f := ln.fields[i]
	bad := func(what string) error { return st.errf(ln, i, "%s %q", what, f) }
	switch r {
	case lapPtr, lapInt:
		if _, ok := parseU64(f); !ok {
			return 0, bad("expected a number, got")
		}
	case lapCount, lapSCount, lapRCount, lapN:
		v, ok := parseI64(f)
		if !ok || v < 0 || v > 1<<40 {
			return 0, bad("count")
		}
		*a.countArg(r) = v
	case lapDest, lapSrc, lapTag, lapSTag, lapRTag, lapRoot, lapColor, lapKey:
		v, ok := parseI64(f)
		if !ok || v < math.MinInt32 || v > math.MaxInt32 {
			return 0, bad("expected an int, got")
		}
		*a.intArg(r) = v
	case lapType, lapSType, lapRType:
		t, ok := parseLapType(f)
		if !ok {
			return 0, bad("expected a datatype (id,size,extent), got")
		}
		*a.typeArg(r) = t
	case lapComm, lapComm2:
		c, ok := parseLapComm(f)
		if !ok {
			return 0, bad("expected a communicator (handle,rank,size), got")
		}
		if r == lapComm {
			a.comm = c
		} else {
			a.comm2 = c
		}
	case lapOp:
		if _, ok := parseU64(f); !ok {
			return 0, bad("expected an op, got")
		}
	case lapReq, lapReqs, lapNewComm, lapCommPtr:
		v, ok := parseU64(f)
		if !ok {
			return 0, bad("expected an address, got")
		}
		*a.addr(r) = v
	case lapSCounts, lapRCounts, lapDispls:
		if _, ok := parseU64(f); !ok {
			return 0, bad("expected the array's address, got")
		}
		i++
		if r != lapDispls {
			if err := st.parseCounts(ln, i, r, a); err != nil {
				return 0, err
			}
		}
	}
	return i + 1, nil
}

// countArg is the field of a that holds a count argument of role r.
func (a *lapArgs) countArg(r lapRole) *int64 {
	switch r {
	case lapCount:
		return &a.count
	case lapSCount:
		return &a.scount
	case lapRCount:
		return &a.rcount
	}
	return &a.n
}

// intArg is the field of a that holds an int argument of role r.
func (a *lapArgs) intArg(r lapRole) *int64 {
	switch r {
	case lapDest:
		return &a.dest
	case lapSrc:
		return &a.src
	case lapTag:
		return &a.tag
	case lapSTag:
		return &a.stag
	case lapRTag:
		return &a.rtag
	case lapRoot:
		return &a.root
	case lapColor:
		return &a.color
	}
	return &a.key
}

// typeArg is the field of a that holds a datatype argument of role r.
func (a *lapArgs) typeArg(r lapRole) *lapTypeArg {
	switch r {
	case lapType:
		return &a.typ
	case lapSType:
		return &a.styp
	}
	return &a.rtyp
}

// addr is the field of a that holds an address argument of role r.
func (a *lapArgs) addr(r lapRole) *uint64 {
	switch r {
	case lapReq:
		return &a.req
	case lapReqs:
		return &a.reqs
	case lapNewComm:
		return &a.newcomm
	}
	return &a.commptr
}

// parseLapType parses a datatype argument: id,size,extent.
func parseLapType(f []byte) (lapTypeArg, bool) {
	var t lapTypeArg
	p := bytes.Split(f, []byte(","))
	if len(p) != 3 {
		return t, false
	}
	_, ok1 := parseU64(p[0])
	size, ok2 := parseI64(p[1])
	ext, ok3 := parseU64(p[2])
	if !ok1 || !ok2 || !ok3 || size < 0 || size > 1<<40 {
		return t, false
	}
	t.size = size
	if ext <= 1<<40 {
		t.extent = int64(ext) // garbage extents (unset for Fortran types) are dropped
	}
	return t, true
}

// parseLapComm parses a communicator argument: handle,rank,size.
func parseLapComm(f []byte) (lapCommRef, bool) {
	var c lapCommRef
	p := bytes.Split(f, []byte(","))
	if len(p) != 3 {
		return c, false
	}
	var ok1, ok2, ok3 bool
	c.handle, ok1 = parseU64(p[0])
	c.rank, ok2 = parseI64(p[1])
	c.size, ok3 = parseI64(p[2])
	if !ok1 || !ok2 || !ok3 || c.size < 0 || c.size > 1<<24 || c.rank >= c.size || c.rank < 0 && c.size > 0 {
		return c, false
	}
	return c, true
}

// parseCounts parses the comma-separated counts of an array argument of
// role r (lapSCounts or lapRCounts) in field i of ln into a.
func (st *lapState) parseCounts(ln *lapLine, i int, r lapRole, a *lapArgs) error {
	f := ln.fields[i]
	vals := a.rcounts
	if r == lapSCounts {
		vals = a.scounts
	}
	for len(f) > 0 {
		j := bytes.IndexByte(f, ',')
		if j < 0 {
			j = len(f)
		}
		v, ok := parseI64(f[:j])
		if !ok {
			return st.errf(ln, i, "count %q", f[:j])
		}
		vals = append(vals, v)
		if len(vals) > 1<<24 {
			return st.errf(ln, i, "too many counts")
		}
		f = f[min(j+1, len(f)):]
	}
	if r == lapSCounts {
		a.scounts = vals
	} else {
		a.rcounts = vals
	}
	return nil
}

// line decodes one line. It returns whether c is a call to return.
func (st *lapState) line(b []byte, no int, c *trace.Call) (bool, error) {
	ln := &st.ln
	if err := st.split(b, no, ln); err != nil {
		return false, err
	}
	info, ok := lapLayouts[ln.fn]
	c.Reset(0)
	if !ok {
		if err := st.times(ln, c); err != nil {
			return false, err
		}
		if !lapIsLocal(ln.fn) {
			st.skipped[ln.fn]++
		}
		return false, nil
	}
	if err := st.parseArgs(ln, info, &st.a); err != nil {
		return false, err
	}
	c.Reset(info.fn)
	if err := st.times(ln, c); err != nil {
		return false, err
	}
	a := &st.a
	// Communicators: every use, in both passes, so that the local
	// numbering is the same.
	li := int32(-1)
	if a.has&(1<<lapComm) != 0 {
		li = st.comms.use(a.comm)
	}
	if a.has&(1<<lapComm2) != 0 {
		st.comms.use(a.comm2)
	}
	st.li = li
	if info.fn == 0 {
		return false, nil
	}
	switch info.fn.Class() {
	case trace.ClassCommNew:
		return st.commNew(ln, info.fn, li, c)
	case trace.ClassCommFree:
		st.comms.free(a.commptr)
		c.Comm = trace.None
		return true, nil
	case trace.ClassInit:
		return true, nil
	case trace.ClassAbort:
		c.Comm = trace.None
		if st.table != nil {
			if comm, _ := st.table.Comm(int(st.rank), li); !comm.Local {
				c.Comm = comm.ID
			}
		}
		return true, nil
	}
	if li >= 0 && st.table == nil {
		// First pass: count the communication per communicator, to
		// report calls on communicators that cannot be resolved.
		u := st.usage[li]
		if u == nil {
			u = map[string]int64{}
			st.usage[li] = u
		}
		u[ln.fn]++
	}
	var comm *trace.Comm
	if li >= 0 && st.table != nil {
		var why string
		comm, why = st.table.Comm(int(st.rank), li)
		if comm.Local {
			st.skipped[ln.fn+" (on a communicator whose members the trace does not tell: "+why+")"]++
			return false, nil
		}
		c.Comm = comm.ID
	}
	return st.call(ln, info.fn, comm, c)
}

// world translates a rank of comm (size s) into a world rank; comm is
// nil in the first pass.
func (st *lapState) peer(ln *lapLine, field int, what string, v int64, comm *trace.Comm, recv bool) (int32, error) {
	size := st.a.comm.size
	switch {
	case v == st.consts.procNull:
		return trace.ProcNull, nil
	case recv && v == st.consts.anySource:
		return trace.AnySource, nil
	case v < 0 || v >= size:
		return 0, st.errf(ln, field, "%s %d outside a communicator of %d ranks", what, v, size)
	}
	if comm == nil {
		return int32(v), nil
	}
	if int(size) != comm.Size() {
		return 0, st.errf(ln, field, "communicator of %d ranks, but %d members", size, comm.Size())
	}
	return comm.Members[v], nil
}

func (st *lapState) tag(ln *lapLine, field int, v int64, recv bool) (int32, error) {
	switch {
	case recv && v == st.consts.anyTag:
		return trace.AnyTag, nil
	case v < 0:
		return 0, st.errf(ln, field, "tag %d", v)
	}
	return int32(v), nil
}

// fieldOf returns the index of the field of role r (for messages).
func fieldOf(fn string, r lapRole) int {
	info := lapLayouts[fn]
	i := 1
	for _, x := range info.roles {
		if x == r {
			return i
		}
		i++
		if x == lapSCounts || x == lapRCounts || x == lapDispls {
			i++
		}
	}
	return -1
}

func mulBytes(n int64, t lapTypeArg) int64 { return n * t.size } // both at most 2^40

func scaled(counts []int64, t lapTypeArg) []int64 {
	out := make([]int64, len(counts))
	for i, v := range counts {
		out[i] = max(v, 0) * t.size
	}
	return out
}

// sent notes a message to rank dest of the call's communicator (first
// pass).
func (st *lapState) sent(dest, tag int64) {
	if st.table == nil && dest != st.consts.procNull {
		st.p2p = append(st.p2p, lapP2P{send: true, li: st.li, peer: dest, tag: tag, t: st.t0})
	}
}

// recvd notes a receive (first pass) or gives a wildcard receive the
// source and tag it got (second pass).
func (st *lapState) recvd(peer, tag *int32, src, tg int64) {
	if src == st.consts.procNull {
		return
	}
	if st.table == nil {
		st.p2p = append(st.p2p, lapP2P{li: st.li, peer: src, tag: tg, t: st.t0})
		return
	}
	if st.nwild < len(st.wild) && (*peer == trace.AnySource || *tag == trace.AnyTag) {
		if m := st.wild[st.nwild]; m.Peer != trace.None {
			*peer, *tag = m.Peer, m.Tag
		}
	}
	st.nwild++
}

func (st *lapState) newReq(addr uint64, kind trace.ReqKind, fn trace.Func, comm int32) uint64 {
	st.nextReq++
	st.reqs[addr] = &lapRequest{id: st.nextReq, kind: kind, fn: fn, comm: comm}
	return st.nextReq
}

func (q *lapRequest) completion() trace.Completion {
	return trace.Completion{Request: q.id, Kind: q.kind, Peer: trace.None, Tag: trace.None, Func: q.fn, Comm: q.comm}
}

// call fills c for a call of class send, recv, wait, collective, ...
func (st *lapState) call(ln *lapLine, fn trace.Func, comm *trace.Comm, c *trace.Call) (bool, error) {
	a := &st.a
	f := func(r lapRole) int { return fieldOf(ln.fn, r) }
	var err error
	switch fn.Class() {
	case trace.ClassFinalize:
	case trace.ClassAbort:
	case trace.ClassSend, trace.ClassIsend:
		if c.Peer, err = st.peer(ln, f(lapDest), "dest", a.dest, comm, false); err != nil {
			return false, err
		}
		if c.Tag, err = st.tag(ln, f(lapTag), a.tag, false); err != nil {
			return false, err
		}
		c.Bytes, c.Type = mulBytes(a.count, a.typ), trace.Datatype{Size: a.typ.size, Extent: a.typ.extent}
		st.sent(a.dest, a.tag)
		if fn.Class() == trace.ClassIsend {
			c.Request = st.newReq(a.req, trace.ReqSend, fn, c.Comm)
		}
	case trace.ClassRecv, trace.ClassIrecv:
		if c.Peer, err = st.peer(ln, f(lapSrc), "source", a.src, comm, true); err != nil {
			return false, err
		}
		if c.Tag, err = st.tag(ln, f(lapTag), a.tag, true); err != nil {
			return false, err
		}
		st.recvd(&c.Peer, &c.Tag, a.src, a.tag)
		c.Bytes, c.Type = mulBytes(a.count, a.typ), trace.Datatype{Size: a.typ.size, Extent: a.typ.extent}
		if fn.Class() == trace.ClassIrecv {
			c.Request = st.newReq(a.req, trace.ReqRecv, fn, c.Comm)
		}
	case trace.ClassSendrecv:
		if c.Peer, err = st.peer(ln, f(lapDest), "dest", a.dest, comm, false); err != nil {
			return false, err
		}
		if c.Tag, err = st.tag(ln, f(lapSTag), a.stag, false); err != nil {
			return false, err
		}
		if c.RecvPeer, err = st.peer(ln, f(lapSrc), "source", a.src, comm, true); err != nil {
			return false, err
		}
		if c.RecvTag, err = st.tag(ln, f(lapRTag), a.rtag, true); err != nil {
			return false, err
		}
		st.sent(a.dest, a.stag)
		st.recvd(&c.RecvPeer, &c.RecvTag, a.src, a.rtag)
		if fn == trace.FuncSendrecvReplace {
			c.Bytes, c.Type = mulBytes(a.count, a.typ), trace.Datatype{Size: a.typ.size, Extent: a.typ.extent}
			c.RecvBytes, c.RecvType = c.Bytes, c.Type
		} else {
			c.Bytes, c.Type = mulBytes(a.scount, a.styp), trace.Datatype{Size: a.styp.size, Extent: a.styp.extent}
			c.RecvBytes, c.RecvType = mulBytes(a.rcount, a.rtyp), trace.Datatype{Size: a.rtyp.size, Extent: a.rtyp.extent}
		}
	case trace.ClassProbe:
		if c.Peer, err = st.peer(ln, f(lapSrc), "source", a.src, comm, true); err != nil {
			return false, err
		}
		if c.Tag, err = st.tag(ln, f(lapTag), a.tag, true); err != nil {
			return false, err
		}
	case trace.ClassWait:
		switch fn {
		case trace.FuncWait:
			if q := st.reqs[a.req]; q != nil {
				c.Done = append(c.Done, q.completion())
				delete(st.reqs, a.req)
			}
		case trace.FuncWaitall:
			for _, addr := range st.arrayReqs(a.reqs, a.n) {
				c.Done = append(c.Done, st.reqs[addr].completion())
				delete(st.reqs, addr)
			}
		default: // Waitany, Waitsome: the oldest pending request of the array
			if addr, ok := st.oldest(a.reqs, a.n); ok {
				c.Done = append(c.Done, st.reqs[addr].completion())
				delete(st.reqs, addr)
			}
		}
	case trace.ClassTest:
		// liballprof does not record the flag: a test that completed
		// nothing.
	case trace.ClassCancel, trace.ClassRequestFree:
		if q := st.reqs[a.req]; q != nil {
			c.Request = q.id
			if fn == trace.FuncRequestFree {
				delete(st.reqs, a.req)
			}
		}
	case trace.ClassCollective, trace.ClassICollective:
		if err := st.collective(ln, fn, comm, c); err != nil {
			return false, err
		}
		if fn.Class() == trace.ClassICollective {
			c.Request = st.newReq(a.req, trace.ReqCollective, fn, c.Comm)
		}
	default:
		return false, st.errf(ln, -1, "no conversion (a bug)")
	}
	return true, nil
}

func (st *lapState) collective(ln *lapLine, fn trace.Func, comm *trace.Comm, c *trace.Call) error {
	a := &st.a
	size := a.comm.size
	me := a.comm.rank
	switch fn {
	case trace.FuncBcast, trace.FuncIbcast, trace.FuncReduce, trace.FuncIreduce, trace.FuncGather, trace.FuncGatherv, trace.FuncScatter, trace.FuncScatterv:
		if a.root < 0 || a.root >= size {
			if a.root == st.consts.root || a.root == st.consts.procNull {
				return st.errf(ln, fieldOf(ln.fn, lapRoot), "root %d: collectives on intercommunicators are not supported", a.root)
			}
			return st.errf(ln, fieldOf(ln.fn, lapRoot), "root %d outside a communicator of %d ranks", a.root, size)
		}
		c.Root = int32(a.root)
	}
	counts := func(r lapRole, v []int64) error {
		if int64(len(v)) != size {
			return st.errf(ln, fieldOf(ln.fn, r)+1, "%d counts for a communicator of %d ranks", len(v), size)
		}
		return nil
	}
	switch fn {
	case trace.FuncBarrier, trace.FuncIbarrier:
	case trace.FuncBcast, trace.FuncIbcast, trace.FuncReduce, trace.FuncIreduce, trace.FuncAllreduce, trace.FuncIallreduce, trace.FuncScan, trace.FuncExscan, trace.FuncReduceScatterBlock:
		c.Bytes, c.Type = mulBytes(a.count, a.typ), trace.Datatype{Size: a.typ.size, Extent: a.typ.extent}
	case trace.FuncAllgather, trace.FuncIallgather, trace.FuncAlltoall, trace.FuncIalltoall, trace.FuncGather:
		c.Bytes, c.Type = mulBytes(a.scount, a.styp), trace.Datatype{Size: a.styp.size, Extent: a.styp.extent}
	case trace.FuncScatter:
		c.Bytes, c.Type = mulBytes(a.rcount, a.rtyp), trace.Datatype{Size: a.rtyp.size, Extent: a.rtyp.extent}
	case trace.FuncAllgatherv:
		if err := counts(lapRCounts, a.rcounts); err != nil {
			return err
		}
		c.Bytes, c.Type = mulBytes(a.scount, a.styp), trace.Datatype{Size: a.styp.size, Extent: a.styp.extent}
		c.Counts = append(c.Counts, scaled(a.rcounts, a.rtyp)...)
	case trace.FuncGatherv:
		c.Bytes, c.Type = mulBytes(a.scount, a.styp), trace.Datatype{Size: a.styp.size, Extent: a.styp.extent}
		if me == a.root {
			if err := counts(lapRCounts, a.rcounts); err != nil {
				return err
			}
			c.Counts = append(c.Counts, scaled(a.rcounts, a.rtyp)...)
		}
	case trace.FuncScatterv:
		c.Bytes, c.Type = mulBytes(a.rcount, a.rtyp), trace.Datatype{Size: a.rtyp.size, Extent: a.rtyp.extent}
		if me == a.root {
			if err := counts(lapSCounts, a.scounts); err != nil {
				return err
			}
			c.Counts = append(c.Counts, scaled(a.scounts, a.styp)...)
		}
	case trace.FuncAlltoallv:
		if err := counts(lapSCounts, a.scounts); err != nil {
			return err
		}
		if err := counts(lapRCounts, a.rcounts); err != nil {
			return err
		}
		c.Type, c.RecvType = trace.Datatype{Size: a.styp.size, Extent: a.styp.extent}, trace.Datatype{Size: a.rtyp.size, Extent: a.rtyp.extent}
		c.Counts = append(c.Counts, scaled(a.scounts, a.styp)...)
		c.RecvCounts = append(c.RecvCounts, scaled(a.rcounts, a.rtyp)...)
	case trace.FuncReduceScatter:
		if err := counts(lapRCounts, a.rcounts); err != nil {
			return err
		}
		c.Type = trace.Datatype{Size: a.typ.size, Extent: a.typ.extent}
		c.Counts = append(c.Counts, scaled(a.rcounts, a.typ)...)
		if me >= 0 && me < size {
			c.Bytes = c.Counts[me]
		}
	default:
		return st.errf(ln, -1, "no conversion (a bug)")
	}
	return nil
}

// arrayReqs returns the addresses of the pending requests of an array of
// n requests at addr, in array order, with the stride (8 or 4 bytes) that
// finds more of them.
func (st *lapState) arrayReqs(addr uint64, n int64) []uint64 {
	var best []uint64
	for _, stride := range []uint64{8, 4} {
		var found []uint64
		for k := int64(0); k < n; k++ {
			a := addr + uint64(k)*stride
			if st.reqs[a] != nil {
				found = append(found, a)
			}
		}
		if len(found) > len(best) {
			best = found
		}
	}
	return best
}

// oldest returns the address of the oldest pending request of an array.
func (st *lapState) oldest(addr uint64, n int64) (uint64, bool) {
	var best uint64
	var id uint64
	for _, a := range st.arrayReqs(addr, n) {
		if q := st.reqs[a]; id == 0 || q.id < id {
			best, id = a, q.id
		}
	}
	return best, id != 0
}

// commNew handles a communicator-creating call on communicator li.
func (st *lapState) commNew(ln *lapLine, fn trace.Func, li int32, c *trace.Call) (bool, error) {
	a := &st.a
	var spec trace.CommSpec
	switch fn {
	case trace.FuncCommDup:
		spec = trace.CommSpec{Origin: trace.OriginDup}
	case trace.FuncCommSplit:
		spec = trace.CommSpec{Origin: trace.OriginSplit, Color: a.color, Key: a.key}
		if a.color == st.consts.undefined {
			spec.Origin = 0 // MPI_UNDEFINED: no communicator for this rank
		}
	default:
		spec = trace.CommSpec{Origin: trace.OriginObserved}
	}
	spec.Name = ln.fn
	st.comms.create(li, spec, a.newcomm)
	c.Comm = trace.None
	if st.table != nil && li >= 0 {
		if comm, _ := st.table.Comm(int(st.rank), li); !comm.Local {
			c.Comm = comm.ID
		}
	}
	return true, nil
}

// ---- communicators of one rank ----

// lapComms follows one rank's communicator handles (see the file
// comment): it numbers the communicators the rank has in the order it
// first uses them and describes how each was made.
type lapComms struct {
	rank, nranks int32
	live         map[uint64]int32 // handle -> communicator
	insts        []lapInst
	specs        []trace.CommSpec
	pending      []lapPending
	seq          map[int32]int32 // creation calls so far per parent
	worldSeen    bool
	warnings     []string
}

type lapInst struct {
	handle     uint64
	rank, size int64
	addr       uint64 // the variable the creating call wrote it to
}

type lapPending struct {
	spec trace.CommSpec
	addr uint64
}

// use returns the communicator that a use of handle with the caller at
// rank of size stands for.
func (t *lapComms) use(ref lapCommRef) int32 {
	if li, ok := t.live[ref.handle]; ok && t.insts[li].rank == ref.rank && t.insts[li].size == ref.size {
		return li
	}
	var spec trace.CommSpec
	var addr uint64
	switch {
	case len(t.pending) > 0:
		spec, addr = t.pending[0].spec, t.pending[0].addr
		t.pending = t.pending[1:]
	case ref.size == int64(t.nranks) && (ref.rank == int64(t.rank) || !t.worldSeen):
		// MPI_COMM_WORLD; the file's rank number is the world rank even
		// where the trace shows another (bcast-4's files all show 0).
		spec = trace.CommSpec{Origin: trace.OriginWorld}
		if ref.rank != int64(t.rank) {
			t.warnings = append(t.warnings, fmt.Sprintf("MPI_COMM_WORLD (handle %d) shows rank %d; the file's rank, %d, is used", ref.handle, ref.rank, t.rank))
		}
		t.worldSeen = true
	case ref.size == 1 && ref.rank == 0:
		spec = trace.CommSpec{Origin: trace.OriginSelf}
	default:
		spec = trace.CommSpec{Origin: trace.OriginUnknown, Why: fmt.Sprintf("the trace does not show how the communicator with handle %d (rank %d of %d) was created", ref.handle, ref.rank, ref.size)}
	}
	spec.Idx, spec.Size = int32(ref.rank), int32(ref.size)
	if spec.Origin == trace.OriginWorld {
		spec.Idx = -1
	}
	li := int32(len(t.specs))
	t.specs = append(t.specs, spec)
	t.insts = append(t.insts, lapInst{handle: ref.handle, rank: ref.rank, size: ref.size, addr: addr})
	t.live[ref.handle] = li
	return li
}

// create notes a communicator-creating call on communicator parent that
// stores the new communicator at addr; spec.kind 0 means the rank gets
// none (a split with MPI_UNDEFINED).
func (t *lapComms) create(parent int32, spec trace.CommSpec, addr uint64) {
	if parent < 0 {
		return
	}
	spec.Parent, spec.Seq = parent, t.seq[parent]
	t.seq[parent]++
	if spec.Origin == 0 {
		return
	}
	t.pending = append(t.pending, lapPending{spec: spec, addr: addr})
}

// free forgets the handle created into the variable at addr.
func (t *lapComms) free(addr uint64) {
	for h, li := range t.live {
		if t.insts[li].addr == addr && addr != 0 {
			delete(t.live, h)
		}
	}
}

// ---- the stream ----

type lapStream struct {
	f    fs.File
	sc   *lapScanner
	st   *lapState
	done bool
}

func (s *lapStream) Next(c *trace.Call) error {
	if s.done {
		return io.EOF
	}
	for {
		b, err := s.sc.next()
		if err == io.EOF {
			s.done = true
			return io.EOF
		}
		if err != nil {
			return &trace.TextFormatError{File: s.st.file, Line: s.sc.line, Err: err}
		}
		ok, err := s.st.line(b, s.sc.line, c)
		if err != nil {
			return s.sc.incomplete(err, b)
		}
		if ok {
			return nil
		}
	}
}

func (s *lapStream) Comm(id int32) *trace.Comm {
	if s.st.table == nil {
		return nil
	}
	for _, c := range s.st.table.Comms[s.st.rank] {
		if c.ID == id {
			return c
		}
	}
	return nil
}

func (s *lapStream) Name() string { return s.st.file }

// Where is the line of the call last given.
func (s *lapStream) Where() trace.Position { return trace.Position{File: s.st.file, Line: s.sc.line} }

// Start is the time of the first call (times count from the file's first
// time).
func (s *lapStream) Start() int64 { return 0 }

func (s *lapStream) Close() error { return s.f.Close() }

// Library is the library the user said the trace was taken with
// (Options.MPI: "Open MPI" or "MPICH"), or "": the constants
// the reader detects tell MPICH's handles from others, which does not
// name a library.
func (l *Trace) Library() string {
	switch l.opt.MPI {
	case "openmpi":
		return "Open MPI"
	case "mpich":
		return "MPICH"
	}
	return ""
}
