package tit

// This file reads SimGrid's time-independent traces (TIT), the input of
// SimGrid's MPI replay (smpirun -replay; examples/smpi/replay) and the
// output of its -trace-ti tracing.
//
// # Format
//
// A trace is text, one action per line: the rank (SimGrid's actor name,
// which the MPI replay numbers from 0), the action and its arguments,
// separated by blanks. Blank lines and lines starting with # are
// skipped. It comes either as one shared file holding the lines of all
// ranks, or as an index file that names one trace file per rank, rank i
// on line i (smpirun -trace-ti writes a file per rank and such an index).
// A file whose lines all have one word is an index; relative names in it
// are looked up next to the index, or, failing that, by their base name
// there (SimGrid resolves them from its working directory).
//
// The actions, as SimGrid's replay (src/smpi/internals/smpi_replay.cpp)
// reads them; [x] is optional, counts are in elements of the datatype,
// P is the number of ranks, comp a number of flops:
//
//	init [x]                                 start; with an argument the default datatype is
//	                                         MPI_DOUBLE, otherwise MPI_BYTE
//	finalize
//	send|isend PEER TAG COUNT [DT]           also ssend, issend (SimGrid's tracer writes them,
//	recv|irecv PEER TAG COUNT [DT]           its replay does not read them); a negative COUNT
//	                                         receives a message of any size
//	sendRecv SCOUNT DEST RCOUNT SRC [DT DT]  tags 0
//	wait SRC DST TAG                         completes the oldest open request from SRC to DST
//	                                         with TAG (world ranks)
//	test SRC DST TAG                         completes nothing (see below)
//	waitall [n]                              completes every open request
//	barrier
//	bcast COUNT [ROOT [DT]]
//	reduce COUNT COMP [ROOT [DT]]            COMP flops of reduction follow the collective
//	allreduce COUNT COMP [DT]
//	scan|exscan COUNT COMP [DT]
//	alltoall SCOUNT RCOUNT [DT DT]
//	alltoallv SBUF SCOUNTS*P RBUF RCOUNTS*P [DT DT]
//	gather SCOUNT RCOUNT [ROOT [DT DT]]
//	allgather SCOUNT RCOUNT [DT DT]
//	gatherv SCOUNT RCOUNTS*P [ROOT [DT DT]]
//	allgatherv SCOUNT RCOUNTS*P [DT DT] [DISPLS*P]
//	scatter SCOUNT RCOUNT [ROOT [DT DT]]
//	scatterv SCOUNTS*P RCOUNT [ROOT [DT DT]]
//	reducescatter RCOUNTS*P COMP [DT]
//	compute FLOPS                            computation
//	sleep SECONDS                            idle time
//	location FILE LINE                       source location: ignored
//	comm_size N, comm_split ..., comm_dup    ignored, as by SimGrid: every collective is on
//	                                         MPI_COMM_WORLD
//
// DT is SimGrid's datatype number (smpi_datatype.cpp: 0 MPI_DOUBLE, 1
// MPI_INT, 2 MPI_CHAR, ..., 6 MPI_BYTE, ...) with its size on x86-64
// Linux (titTypeSizes). Numbers may be written as floats (1e6), as
// SimGrid reads them.
//
// # Conversion
//
// A TIT trace has no times: each rank gets a clock that starts at 0,
// compute and the reduction flops of reduce, allreduce, scan, exscan and
// reducescatter advance it by flops / HostSpeed (Options, default
// 1e9 flop/s), sleep by its seconds; MPI calls take no time of their own
// (the simulator computes it). Requests are followed as SimGrid does: a
// wait completes the oldest open request with its (source, destination,
// tag). A test completes nothing: in SimGrid a test that succeeds
// completes its request, which gopsim cannot know without simulating, so
// the request is completed by a later wait or waitall, or stays open (as
// SimGrid's replay completes every open request when a rank ends).
// Computation after a rank's last MPI action is kept by an MPI_Finalize
// at its end (errors place it at the end of the file, after the line of
// that action). An action the reader does not know is an error, as in
// SimGrid.

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
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/trace"
)

// Options control the TIT importer.
type Options struct {
	// HostSpeed is the speed, in flop/s, that turns the flops of compute
	// actions into time; 0 means 1e9 (1 Gflop/s).
	HostSpeed float64
}

// DefaultHostSpeed is Options.HostSpeed's default, in flop/s.
const DefaultHostSpeed = 1e9

// Trace is a SimGrid time-independent trace. It is a Source.
type Trace struct {
	Path   string   // the file given: a shared trace or an index
	Files  []string // the trace files: one shared file, or one per rank
	Shared bool     // one file holds the lines of all ranks

	fsys   fs.FS
	names  []string // Files in fsys
	nranks int
	speed  float64
	world  *trace.Comm
	// lines holds a shared file's lines by rank, read in one pass by
	// splitShared: OpenRank then reads its rank's lines alone, instead of
	// the whole file (which made a conversion quadratic in the ranks).
	lines []rankLines
	// cutLine is the shared file's last line when the file ends inside
	// it (no newline after it), else 0.
	cutLine int
}

// rankLines are one rank's lines of a shared file.
type rankLines struct {
	data []byte  // the lines, each ending in '\n'
	nos  []int32 // their line numbers in the file
}

// check reads every action once: the files of an index one by one, a
// shared file's lines (split by rank, order giving each line's rank) in
// the file's order, with a state per rank.
func (t *Trace) check(order []int32) error {
	if !t.Shared {
		for r := 0; r < t.nranks; r++ {
			s, err := t.open(r)
			if err != nil {
				return err
			}
			err = drainTIT(s)
			s.Close()
			if err != nil {
				return err
			}
		}
		return nil
	}
	return t.checkShared(order)
}

// checkShared reads a shared file's actions in the file's order (order
// gives the rank of each line), so that the first bad line is reported.
func (t *Trace) checkShared(order []int32) error {
	ranks := make([]*titStream, t.nranks)
	for r := range ranks {
		s, err := t.open(r)
		if err != nil {
			return err
		}
		ranks[r] = s
	}
	var c trace.Call
	for _, r := range order {
		s := ranks[r]
		fields, err := s.sc.next()
		if err != nil {
			return err // none: the lines were scanned once already
		}
		if _, err := s.action(fields[1], fields[2:], &c); err != nil {
			return err
		}
	}
	return nil
}

func drainTIT(s *titStream) error {
	var c trace.Call
	for {
		err := s.Next(&c)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// Open opens the TIT trace at path, a shared trace file, an index of
// per-rank files (or of one line naming a shared file, as SimGrid takes
// it), or a directory holding one index, and reads it once to check every
// line.
func Open(path string, opt Options) (*Trace, error) {
	dir := filepath.Dir(path)
	t, err := OpenFS(os.DirFS(dir), filepath.Base(path), opt)
	if err != nil {
		return nil, err
	}
	t.Path = path
	trace.DiskPaths(t.Files, dir, t.names)
	return t, nil
}

// OpenFS is Open on a file system.
func OpenFS(fsys fs.FS, name string, opt Options) (*Trace, error) {
	if opt.HostSpeed == 0 {
		opt.HostSpeed = DefaultHostSpeed
	}
	if !(opt.HostSpeed > 0) || math.IsInf(opt.HostSpeed, 0) {
		return nil, fmt.Errorf("trace: tit: host speed %v flop/s: must be positive", opt.HostSpeed)
	}
	t := &Trace{Path: name, fsys: fsys, speed: opt.HostSpeed}
	if st, err := fs.Stat(fsys, name); err == nil && st.IsDir() {
		if name, err = findIndex(fsys, name); err != nil {
			return nil, err
		}
	}
	var order []int32
	index, err := titIndex(fsys, name)
	if err != nil {
		return nil, err
	}
	if len(index) == 1 {
		// SimGrid's convention: an index of one line names a shared file
		// (of one rank or more).
		name, index = index[0], nil
	}
	if index == nil {
		t.Shared, t.names = true, []string{name}
		if order, err = t.splitShared(); err != nil {
			return nil, err
		}
	} else {
		t.names, t.nranks = index, len(index)
	}
	t.Files = append([]string(nil), t.names...)
	t.world = &trace.Comm{ID: 0, Members: make([]int32, t.nranks)}
	for i := range t.world.Members {
		t.world.Members[i] = int32(i)
	}
	if err := t.check(order); err != nil {
		return nil, err
	}
	return t, nil
}

// titIndex returns the files an index names, or nil if name is a trace.
func titIndex(fsys fs.FS, name string) ([]string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("trace: tit: %w", err)
	}
	defer f.Close()
	sc := newTITScanner(f, name)
	var lines []string
	var nos []int
	for {
		fields, err := sc.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(fields) != 1 {
			return nil, nil
		}
		lines, nos = append(lines, string(fields[0].text)), append(nos, sc.line)
	}
	if len(lines) == 0 {
		return nil, &trace.TextFormatError{File: name, Line: max(sc.line, 1), Err: errors.New("tit: no actions and no trace files")}
	}
	dir := path.Dir(name)
	files := make([]string, len(lines))
	for i, l := range lines {
		cands := []string{path.Join(dir, l), path.Join(dir, path.Base(l))}
		if path.IsAbs(l) || filepath.IsAbs(l) {
			cands = []string{path.Join(dir, path.Base(l))}
		}
		found := false
		for _, c := range cands {
			if st, err := fs.Stat(fsys, c); err == nil && !st.IsDir() {
				files[i], found = c, true
				break
			}
		}
		if !found {
			return nil, &trace.TextFormatError{File: name, Line: nos[i], Col: 1, Incomplete: nos[i] == sc.cutLine,
				Err: fmt.Errorf("tit: trace file of rank %d %q not found (looked for %s)", i, l, strings.Join(cands, " and "))}
		}
		if st, err := fs.Stat(fsys, files[i]); err == nil && st.Size() == 0 {
			return nil, &trace.TextFormatError{File: name, Line: nos[i], Col: 1, Err: fmt.Errorf("tit: trace file of rank %d %q is empty (truncated?)", i, files[i])}
		}
	}
	return files, nil
}

// splitShared reads a shared file once: it sets the number of ranks
// (the largest rank plus one) and t.lines, and returns the rank of each
// line in the file's order.
func (t *Trace) splitShared() ([]int32, error) {
	f, err := t.fsys.Open(t.names[0])
	if err != nil {
		return nil, fmt.Errorf("trace: tit: %w", err)
	}
	defer f.Close()
	sc := newTITScanner(f, t.names[0])
	byRank := map[int]*rankLines{}
	var order []int32
	n := 0
	for {
		fields, err := sc.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		r, err := sc.rank(fields)
		if err != nil {
			return nil, err
		}
		n = max(n, r+1)
		rl := byRank[r]
		if rl == nil {
			rl = &rankLines{}
			byRank[r] = rl
		}
		rl.data = append(append(rl.data, sc.sc.Bytes()...), '\n') // the rank's scanner gets cutLine instead
		rl.nos = append(rl.nos, int32(sc.line))
		order = append(order, int32(r))
	}
	if n == 0 {
		return nil, &trace.TextFormatError{File: t.names[0], Line: max(sc.line, 1), Err: errors.New("tit: no actions")}
	}
	if len(byRank) < n {
		for r := range n {
			if byRank[r] == nil {
				return nil, &trace.TextFormatError{File: t.names[0], Line: max(sc.line, 1), Err: fmt.Errorf("tit: rank %d has no actions, but rank %d has: a rank's lines are missing", r, n-1)}
			}
		}
	}
	t.nranks, t.lines, t.cutLine = n, make([]rankLines, n), sc.cutLine
	for r, rl := range byRank {
		t.lines[r] = *rl
	}
	return order, nil
}

// Detect reports whether path looks like a TIT trace or index: its first
// line that is not blank or a comment is "RANK ACTION ..." with an action
// of the format, or the name of a file that is one; or path is a
// directory holding such an index.
func Detect(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		return len(indexFiles(os.DirFS(path), ".")) > 0
	}
	return sniffTIT(os.DirFS(filepath.Dir(path)), filepath.Base(path), true) != titNone
}

// findIndex returns the index file in directory dir of fsys: there must be
// one.
func findIndex(fsys fs.FS, dir string) (string, error) {
	idx := indexFiles(fsys, dir)
	switch len(idx) {
	case 0:
		return "", fmt.Errorf("trace: tit: %s: a directory without an index file (a file naming a trace file on each line): give the trace file", dir)
	case 1:
		return idx[0], nil
	}
	for i := range idx {
		idx[i] = path.Base(idx[i])
	}
	return "", fmt.Errorf("trace: tit: %s: a directory with %d index files (%s): give one", dir, len(idx), strings.Join(idx, ", "))
}

// indexFiles lists the TIT index files directly in directory dir of fsys,
// by name.
func indexFiles(fsys fs.FS, dir string) []string {
	ents, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if !e.Type().IsRegular() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if p := path.Join(dir, e.Name()); sniffTIT(fsys, p, true) == titIndexFile {
			out = append(out, p)
		}
	}
	return out
}

// What sniffTIT found.
const (
	titNone      = iota
	titTraceFile // "RANK ACTION ..." lines
	titIndexFile // a file naming a trace file on its first line
)

// sniffTIT tells from the first line that is not blank or a comment
// whether name is a trace file or, with follow, an index naming one.
func sniffTIT(fsys fs.FS, name string, follow bool) int {
	f, err := fsys.Open(name)
	if err != nil {
		return titNone
	}
	defer f.Close()
	head := make([]byte, 4096)
	n, _ := io.ReadFull(f, head)
	for _, line := range bytes.Split(head[:n], []byte("\n")) {
		w := strings.Fields(string(line))
		if len(w) == 0 || strings.HasPrefix(w[0], "#") {
			continue
		}
		if len(w) == 1 && follow {
			dir := path.Dir(name)
			for _, c := range []string{path.Join(dir, w[0]), path.Join(dir, path.Base(w[0]))} {
				if sniffTIT(fsys, c, false) == titTraceFile {
					return titIndexFile
				}
			}
			return titNone
		}
		if len(w) < 2 {
			return titNone
		}
		if _, err := strconv.Atoi(w[0]); err != nil {
			return titNone
		}
		if _, ok := titActions[w[1]]; ok {
			return titTraceFile
		}
		return titNone
	}
	return titNone
}

// NumRanks is the number of ranks.
func (t *Trace) NumRanks() int { return t.nranks }

// OpenRank opens rank r's actions.
func (t *Trace) OpenRank(r int) (trace.RankStream, error) { return t.open(r) }

func (t *Trace) open(r int) (*titStream, error) {
	if r < 0 || r >= t.nranks {
		return nil, fmt.Errorf("trace: tit: rank %d outside 0..%d", r, t.nranks-1)
	}
	if t.Shared {
		return t.openShared(r), nil
	}
	name := t.names[r]
	f, err := t.fsys.Open(name)
	if err != nil {
		return nil, fmt.Errorf("trace: tit: %w", err)
	}
	file := name
	if len(t.Files) > 0 {
		file = t.Files[0]
		if !t.Shared {
			file = t.Files[r]
		}
	}
	s := t.state(r, newTITScanner(f, file))
	s.f = f
	return s, nil
}

// openShared opens rank r's lines of a shared file, split by
// splitShared.
func (t *Trace) openShared(r int) *titStream {
	file := t.names[0]
	if len(t.Files) > 0 {
		file = t.Files[0]
	}
	data := t.lines[r].data
	// A buffer the size of the rank's lines, not 64 KiB: check holds
	// every rank's stream at once (4,096 ranks: 256 MiB).
	sc := newTITScannerSize(bytes.NewReader(data), file, min(len(data)+1, 64*1024))
	sc.nos, sc.cutLine = t.lines[r].nos, t.cutLine
	s := t.state(r, sc)
	s.f = io.NopCloser(nil)
	return s
}

// state is a new stream of rank r's actions read by sc.
func (t *Trace) state(r int, sc *titScanner) *titStream {
	return &titStream{
		sc: sc, rank: int32(r), nranks: int32(t.nranks), shared: t.Shared, speed: t.speed,
		dtype: 1, pending: map[titKey][]uint64{}, reqs: map[uint64]*titReq{},
		world: t.world, self: &trace.Comm{ID: 1, Members: []int32{int32(r)}},
	}
}

// ---- scanning ----

type titField struct {
	text []byte
	col  int
}

type titScanner struct {
	sc     *bufio.Scanner
	file   string
	line   int
	fields []titField
	// nos, for a rank's lines of a shared file, are their line numbers
	// in the file.
	nos  []int32
	read int // lines read
	last int // the line of the action next returned last
	// cutLine is the line, when next returned it, that ends the file
	// without a newline (0: none).
	cutLine int
	ls      trace.LineScanner
}

func newTITScanner(r io.Reader, file string) *titScanner {
	return newTITScannerSize(r, file, 64*1024)
}

// newTITScannerSize is newTITScanner with a first buffer of size bytes
// (it grows to 256 MiB, the longest line).
func newTITScannerSize(r io.Reader, file string, size int) *titScanner {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, size), 256<<20)
	s := &titScanner{sc: sc, file: file}
	sc.Split(s.ls.Split)
	return s
}

// next returns the fields of the next line that is not blank or a
// comment, or io.EOF.
func (s *titScanner) next() ([]titField, error) {
	for s.sc.Scan() {
		s.line++
		if s.read++; s.nos != nil && s.read <= len(s.nos) {
			s.line = int(s.nos[s.read-1])
		}
		b := s.sc.Bytes()
		s.fields = s.fields[:0]
		for i := 0; i < len(b); {
			for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r') {
				i++
			}
			j := i
			for j < len(b) && b[j] != ' ' && b[j] != '\t' && b[j] != '\r' {
				j++
			}
			if j > i {
				s.fields = append(s.fields, titField{text: b[i:j], col: i + 1})
			}
			i = j
		}
		if len(s.fields) == 0 || s.fields[0].text[0] == '#' {
			continue
		}
		if s.ls.Unterminated {
			s.cutLine = s.line
		}
		s.last = s.line
		return s.fields, nil
	}
	if err := s.sc.Err(); err != nil {
		s.line++
		return nil, &trace.TextFormatError{File: s.file, Line: s.line, Err: fmt.Errorf("tit: %w", err)}
	}
	return nil, io.EOF
}

// errf is the error of the current line at field f (nil: the whole
// line). On a last line without its newline, an error at its last field
// or about the whole line is one a cut explains: Incomplete.
func (s *titScanner) errf(f *titField, format string, args ...any) error {
	return s.errCut(f, true, format, args...)
}

// errCut is errf; cut false for an error no cut explains (too many
// fields).
func (s *titScanner) errCut(f *titField, cut bool, format string, args ...any) error {
	col := 0
	if f != nil {
		col = f.col
	}
	e := &trace.TextFormatError{File: s.file, Line: s.line, Col: col, Err: fmt.Errorf("tit: "+format, args...)}
	if cut && s.line == s.cutLine && len(s.fields) > 0 && (f == nil || f.col >= s.fields[len(s.fields)-1].col) {
		e.Incomplete = true
	}
	return e
}

// rank parses the line's rank.
func (s *titScanner) rank(fields []titField) (int, error) {
	r, err := strconv.Atoi(string(fields[0].text))
	if err != nil || r < 0 || r >= 1<<22 {
		return 0, s.errf(&fields[0], "rank %q: expected a number from 0", fields[0].text)
	}
	if len(fields) < 2 {
		return 0, s.errf(nil, "rank %d: no action", r)
	}
	return r, nil
}

// ---- actions ----

// titTypeSizes gives the size in bytes of SimGrid's predefined datatypes
// by number (smpi_datatype.cpp), as on x86-64 Linux.
var titTypeSizes = [...]int64{
	0: 8, 1: 4, 2: 1, 3: 2, 4: 8, 5: 4, 6: 1, 7: 8, // double int char short long float byte long_long
	8: 1, 9: 1, 10: 2, 11: 4, 12: 8, 13: 8, 14: 16, 15: 4, // signed_char uchar ushort unsigned ulong ull long_double wchar
	16: 1, 17: 1, 18: 2, 19: 4, 20: 8, 21: 1, 22: 2, 23: 4, 24: 8, // c_bool int8..int64 uint8..uint64
	25: 8, 26: 16, 27: 32, 28: 8, 29: 8, // c complex float, double, long double; aint; offset
	30: 8, 31: 16, 32: 16, 33: 8, 34: 8, 35: 8, 36: 16, 37: 16, // float_int long_int double_int short_int 2int 2float 2double 2long
	38: 4, 39: 4, 40: 8, 41: 16, 42: 8, 43: 16, 44: 16, // real real4 real8 real16 complex8 complex16 complex32
	45: 4, 46: 2, 47: 4, 48: 8, 49: 16, 50: 32, 51: 1, 52: 8, 53: 16, 54: 32, // integer1..16 long_double_int cxx_bool cxx complexes
	55: 0, 56: 0, 57: 1, 58: 8, 59: 8, // ub lb packed ptr count
}

type titAction uint8

const (
	titInit titAction = iota + 1
	titFinalize
	titSend
	titIsend
	titRecv
	titIrecv
	titSendRecv
	titWait
	titWaitAll
	titTest
	titBarrier
	titBcast
	titReduce
	titAllreduce
	titScan
	titAlltoall
	titAlltoallv
	titGather
	titAllgather
	titGatherv
	titAllgatherv
	titScatter
	titScatterv
	titReduceScatter
	titCompute
	titSleep
	titIgnore
)

type titInfo struct {
	act      titAction
	fn       trace.Func
	min, max int // numbers of arguments, without the per-rank arrays (see titArgs)
}

var titActions = map[string]titInfo{
	"init":          {titInit, trace.FuncInit, 0, 1},
	"finalize":      {titFinalize, trace.FuncFinalize, 0, 0},
	"send":          {titSend, trace.FuncSend, 3, 4},
	"ssend":         {titSend, trace.FuncSsend, 3, 4},
	"isend":         {titIsend, trace.FuncIsend, 3, 4},
	"issend":        {titIsend, trace.FuncIssend, 3, 4},
	"recv":          {titRecv, trace.FuncRecv, 3, 4},
	"irecv":         {titIrecv, trace.FuncIrecv, 3, 4},
	"sendRecv":      {titSendRecv, trace.FuncSendrecv, 4, 6},
	"wait":          {titWait, trace.FuncWait, 3, 3},
	"waitall":       {titWaitAll, trace.FuncWaitall, 0, 1},
	"test":          {titTest, trace.FuncTest, 3, 3},
	"barrier":       {titBarrier, trace.FuncBarrier, 0, 0},
	"bcast":         {titBcast, trace.FuncBcast, 1, 3},
	"reduce":        {titReduce, trace.FuncReduce, 2, 4},
	"allreduce":     {titAllreduce, trace.FuncAllreduce, 2, 3},
	"scan":          {titScan, trace.FuncScan, 2, 3},
	"exscan":        {titScan, trace.FuncExscan, 2, 3},
	"alltoall":      {titAlltoall, trace.FuncAlltoall, 2, 4},
	"alltoallv":     {titAlltoallv, trace.FuncAlltoallv, 2, 4},
	"gather":        {titGather, trace.FuncGather, 2, 5},
	"allgather":     {titAllgather, trace.FuncAllgather, 2, 4},
	"gatherv":       {titGatherv, trace.FuncGatherv, 1, 4},
	"allgatherv":    {titAllgatherv, trace.FuncAllgatherv, 1, -1},
	"scatter":       {titScatter, trace.FuncScatter, 2, 5},
	"scatterv":      {titScatterv, trace.FuncScatterv, 1, 4},
	"reducescatter": {titReduceScatter, trace.FuncReduceScatter, 1, 2},
	"compute":       {titCompute, 0, 1, 1},
	"sleep":         {titSleep, 0, 1, 1},
	"location":      {titIgnore, 0, 2, 2},
	"comm_size":     {titIgnore, 0, 0, -1},
	"comm_split":    {titIgnore, 0, 0, -1},
	"comm_dup":      {titIgnore, 0, 0, -1},
}

type titKey struct{ src, dst, tag int32 }

type titReq struct {
	key  titKey
	kind trace.ReqKind
	fn   trace.Func
}

// titStream is one rank's actions as calls.
type titStream struct {
	f      io.Closer
	sc     *titScanner
	rank   int32
	nranks int32
	shared bool
	speed  float64

	clock   float64 // ns
	last    float64 // the end of the last call returned
	dtype   int64   // the default datatype's size
	nextReq uint64
	pending map[titKey][]uint64 // open requests by (src, dst, tag), oldest first
	reqs    map[uint64]*titReq  // open requests by id
	order   []uint64            // open requests in creation order (may hold completed ones)
	ended   bool
	// implicit: the call last given is the MPI_Finalize added after the
	// last action.
	implicit bool

	world, self *trace.Comm
	args        []titField
}

func (s *titStream) Comm(id int32) *trace.Comm {
	switch id {
	case 0:
		return s.world
	case 1:
		return s.self
	}
	return nil
}

func (s *titStream) Name() string { return s.sc.file }
func (s *titStream) Start() int64 { return 0 }

// Where is the line of the action the call last given came from; for
// the MPI_Finalize added after the last action, the end of the file,
// after that action's line.
func (s *titStream) Where() trace.Position {
	if s.implicit {
		return trace.Position{File: s.sc.file, Line: s.sc.last, End: true}
	}
	return trace.Position{File: s.sc.file, Line: s.sc.line}
}
func (s *titStream) Close() error { return s.f.Close() }

func (s *titStream) Next(c *trace.Call) error {
	if s.ended {
		return io.EOF
	}
	for {
		fields, err := s.sc.next()
		if err == io.EOF {
			s.ended = true
			if s.clock > s.last {
				// Computation after the last action.
				*c = trace.NewCall(trace.FuncFinalize, int64(math.Round(s.clock)), int64(math.Round(s.clock)))
				s.implicit = true
				return nil
			}
			return io.EOF
		}
		if err != nil {
			return err
		}
		r, err := s.sc.rank(fields)
		if err != nil {
			return err
		}
		if int32(r) != s.rank {
			if s.shared {
				continue
			}
			return s.sc.errf(&fields[0], "rank %d in the trace file of rank %d", r, s.rank)
		}
		ok, err := s.action(fields[1], fields[2:], c)
		if err != nil {
			return err
		}
		if ok {
			s.last = float64(c.End) // the reduction flops of a collective come after it
			return nil
		}
	}
}

// num parses a number as SimGrid does (a double, truncated for integers).
func (s *titStream) num(f *titField, what string) (float64, error) {
	v, err := strconv.ParseFloat(string(f.text), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, s.sc.errf(f, "%s %q is not a number", what, f.text)
	}
	return v, nil
}

func (s *titStream) int(f *titField, what string, lo, hi int64) (int64, error) {
	v, err := s.num(f, what)
	if err != nil {
		return 0, err
	}
	v = math.Trunc(v)
	if v < float64(lo) || v > float64(hi) {
		return 0, s.sc.errf(f, "%s %v outside %d..%d", what, v, lo, hi)
	}
	return int64(v), nil
}

func (s *titStream) count(f *titField) (int64, error) { return s.int(f, "count", 0, 1<<40) }

// dt returns the size of the datatype in args[i], or the default.
func (s *titStream) dt(args []titField, i int) (int64, error) {
	if i >= len(args) {
		return s.dtype, nil
	}
	id, err := strconv.Atoi(string(args[i].text))
	if err != nil || id < 0 || id >= len(titTypeSizes) {
		return 0, s.sc.errf(&args[i], "datatype %q: expected a SimGrid datatype number 0..%d", args[i].text, len(titTypeSizes)-1)
	}
	return titTypeSizes[id], nil
}

func (s *titStream) peer(f *titField, what string) (int32, error) {
	v, err := s.int(f, what, 0, int64(s.nranks)-1)
	return int32(v), err
}

func (s *titStream) root(args []titField, i int) (int32, error) {
	if i >= len(args) {
		return 0, nil
	}
	return s.peer(&args[i], "root")
}

// counts parses n counts from args[i:] in elements of size bytes.
func (s *titStream) counts(args []titField, i int, size int64, dst []int64) ([]int64, error) {
	for k := 0; k < int(s.nranks); k++ {
		v, err := s.count(&args[i+k])
		if err != nil {
			return nil, err
		}
		dst = append(dst, v*size)
	}
	return dst, nil
}

func (s *titStream) flops(f *titField) error {
	v, err := s.num(f, "flops")
	if err != nil {
		return err
	}
	if v < 0 || v > 1e30 {
		return s.sc.errf(f, "flops %v", v)
	}
	s.clock += v / s.speed * 1e9
	return s.clockInRange(f)
}

// maxClock bounds a rank's clock, ns: the times of calls are int64.
const maxClock = 1 << 63

// clockInRange refuses, at f, the flops or seconds that took the clock
// to maxClock or beyond, where a call's time cannot be written (it
// would wrap, and the computation be lost).
func (s *titStream) clockInRange(f *titField) error {
	if s.clock >= maxClock {
		return s.sc.errf(f, "the rank's clock reaches %v ns here, beyond the %d ns a call's time holds", s.clock, int64(math.MaxInt64))
	}
	return nil
}

func (s *titStream) newReq(key titKey, kind trace.ReqKind, fn trace.Func) uint64 {
	s.nextReq++
	s.reqs[s.nextReq] = &titReq{key: key, kind: kind, fn: fn}
	s.pending[key] = append(s.pending[key], s.nextReq)
	s.order = append(s.order, s.nextReq)
	return s.nextReq
}

func (s *titStream) complete(id uint64, c *trace.Call) {
	q := s.reqs[id]
	delete(s.reqs, id)
	p := s.pending[q.key]
	for i, x := range p {
		if x == id {
			s.pending[q.key] = append(p[:i:i], p[i+1:]...)
			break
		}
	}
	if len(s.pending[q.key]) == 0 {
		delete(s.pending, q.key)
	}
	c.Done = append(c.Done, trace.Completion{Request: id, Kind: q.kind, Peer: trace.None, Tag: trace.None, Func: q.fn, Comm: 0})
}

// action turns one action into c; it returns whether c is a call.
func (s *titStream) action(name titField, args []titField, c *trace.Call) (bool, error) {
	info, ok := titActions[string(name.text)]
	if !ok {
		return false, s.sc.errf(&name, "unknown action %q", name.text)
	}
	if err := s.checkArgs(name, info, args); err != nil {
		return false, err
	}
	n := len(args)
	if s.clock > 1<<62 { // before the conversion, which would wrap beyond 2^63
		return false, s.sc.errf(&name, "time %v ns out of range", s.clock)
	}
	t := int64(math.Round(s.clock))
	c.Reset(info.fn)
	c.Start, c.End = t, t
	if info.fn.Class() == trace.ClassCollective {
		c.Comm = 0
	}
	var err error
	switch info.act {
	case titInit:
		if n > 0 {
			s.dtype = titTypeSizes[0] // MPI_DOUBLE
		}
	case titFinalize:
	case titSend, titIsend, titRecv, titIrecv:
		err = s.p2p(info, args, c)
	case titSendRecv:
		err = s.sendRecv(args, c)
	case titWait, titTest:
		err = s.waitOrTest(info, args, c)
	case titWaitAll:
		err = s.waitAll(args, c)
	case titBarrier:
	case titBcast:
		err = s.bcast(args, c)
	case titReduce, titAllreduce, titScan:
		err = s.reduce(info, args, c)
	case titAlltoall, titAllgather:
		err = s.alltoall(args, c)
	case titGather, titScatter:
		err = s.gatherScatter(info, args, c)
	case titAlltoallv:
		err = s.alltoallv(args, c)
	case titGatherv:
		err = s.gatherv(args, c)
	case titAllgatherv:
		err = s.allgatherv(args, c)
	case titScatterv:
		err = s.scatterv(args, c)
	case titReduceScatter:
		err = s.reduceScatter(args, c)
	case titCompute:
		return false, s.flops(&args[0])
	case titSleep:
		return false, s.sleep(args)
	case titIgnore:
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// sendRecv parses sendRecv: SCOUNT DST RCOUNT SRC [DT DT].
func (s *titStream) sendRecv(args []titField, c *trace.Call) error {
	scnt, err := s.count(&args[0])
	if err != nil {
		return err
	}
	if c.Peer, err = s.peer(&args[1], "destination"); err != nil {
		return err
	}
	rcnt, err := s.count(&args[2])
	if err != nil {
		return err
	}
	if c.RecvPeer, err = s.peer(&args[3], "source"); err != nil {
		return err
	}
	s1, err := s.dt(args, 4)
	if err != nil {
		return err
	}
	s2, err := s.dt(args, 5)
	if err != nil {
		return err
	}
	c.Comm, c.Tag, c.RecvTag = 0, 0, 0
	c.Bytes, c.Type, c.RecvBytes, c.RecvType = scnt*s1, trace.Datatype{Size: s1, Extent: s1}, rcnt*s2, trace.Datatype{Size: s2, Extent: s2}
	return nil
}

// waitOrTest parses wait and test: SRC DST TAG; a wait completes the
// oldest open request of that message.
func (s *titStream) waitOrTest(info titInfo, args []titField, c *trace.Call) error {
	var err error
	var k titKey
	if k.src, err = s.peer(&args[0], "source"); err != nil {
		return err
	}
	if k.dst, err = s.peer(&args[1], "destination"); err != nil {
		return err
	}
	tag, err := s.int(&args[2], "tag", 0, 1<<30)
	if err != nil {
		return err
	}
	k.tag = int32(tag)
	if info.act == titWait {
		if p := s.pending[k]; len(p) > 0 {
			s.complete(p[0], c)
		}
	}
	return nil
}

// waitAll parses waitall [COUNT]: it completes every open request.
func (s *titStream) waitAll(args []titField, c *trace.Call) error {
	n := len(args)
	if n > 0 {
		if _, err := s.int(&args[0], "count", 0, 1<<40); err != nil {
			return err
		}
	}
	for _, id := range s.order {
		if s.reqs[id] != nil {
			s.complete(id, c)
		}
	}
	s.order = s.order[:0]
	return nil
}

// reduce parses reduce, allreduce, scan and exscan: COUNT COMP [ROOT]
// [DT]; the reduction's flops advance the clock after the call.
func (s *titStream) reduce(info titInfo, args []titField, c *trace.Call) error {
	cnt, err := s.count(&args[0])
	if err != nil {
		return err
	}
	dti := 2
	if info.act == titReduce {
		if c.Root, err = s.root(args, 2); err != nil {
			return err
		}
		dti = 3
	}
	size, err := s.dt(args, dti)
	if err != nil {
		return err
	}
	c.Bytes, c.Type = cnt*size, trace.Datatype{Size: size, Extent: size}
	if err := s.flops(&args[1]); err != nil {
		return err
	}
	return nil
}

// alltoall parses alltoall and allgather: SCOUNT RCOUNT [DT [DT]].
func (s *titStream) alltoall(args []titField, c *trace.Call) error {
	scnt, err := s.count(&args[0])
	if err != nil {
		return err
	}
	if _, err := s.count(&args[1]); err != nil {
		return err
	}
	size, err := s.dt(args, 2)
	if err != nil {
		return err
	}
	if _, err := s.dt(args, 3); err != nil {
		return err
	}
	c.Bytes, c.Type = scnt*size, trace.Datatype{Size: size, Extent: size}
	return nil
}

// gatherScatter parses gather and scatter: SCOUNT RCOUNT [ROOT [DT DT]].
func (s *titStream) gatherScatter(info titInfo, args []titField, c *trace.Call) error {
	scnt, err := s.count(&args[0])
	if err != nil {
		return err
	}
	rcnt, err := s.count(&args[1])
	if err != nil {
		return err
	}
	if c.Root, err = s.root(args, 2); err != nil {
		return err
	}
	s1, err := s.dt(args, 3)
	if err != nil {
		return err
	}
	s2, err := s.dt(args, 4)
	if err != nil {
		return err
	}
	if info.act == titGather {
		c.Bytes, c.Type = scnt*s1, trace.Datatype{Size: s1, Extent: s1}
	} else {
		c.Bytes, c.Type = rcnt*s2, trace.Datatype{Size: s2, Extent: s2}
	}
	return nil
}

// alltoallv parses alltoallv: SBUF SCOUNTS*P RBUF RCOUNTS*P [DT DT].
func (s *titStream) alltoallv(args []titField, c *trace.Call) error {
	var err error
	P := int(s.nranks)
	// SBUF SCOUNTS*P RBUF RCOUNTS*P [DT DT]
	if _, err := s.count(&args[0]); err != nil {
		return err
	}
	if _, err := s.count(&args[1+P]); err != nil {
		return err
	}
	s1, err := s.dt(args, 2+2*P)
	if err != nil {
		return err
	}
	s2, err := s.dt(args, 3+2*P)
	if err != nil {
		return err
	}
	if c.Counts, err = s.counts(args, 1, s1, c.Counts); err != nil {
		return err
	}
	if c.RecvCounts, err = s.counts(args, 2+P, s2, c.RecvCounts); err != nil {
		return err
	}
	c.Type, c.RecvType = trace.Datatype{Size: s1, Extent: s1}, trace.Datatype{Size: s2, Extent: s2}
	return nil
}

// gatherv parses gatherv: SCOUNT RCOUNTS*P [ROOT [DT DT]].
func (s *titStream) gatherv(args []titField, c *trace.Call) error {
	return s.rootedV(args, c, false)
}

// rootedV parses gatherv (SCOUNT RCOUNTS*P [ROOT [DT DT]]) or, with
// scatter, scatterv (SCOUNTS*P RCOUNT [ROOT [DT DT]]): the single count
// gives the call's bytes in its own datatype, the P counts the per-rank
// blocks in the other one.
func (s *titStream) rootedV(args []titField, c *trace.Call, scatter bool) error {
	P := int(s.nranks)
	one, many := 0, 1 // where the single count and the P counts are
	if scatter {
		one, many = P, 0
	}
	cnt, err := s.count(&args[one])
	if err != nil {
		return err
	}
	if c.Root, err = s.root(args, 1+P); err != nil {
		return err
	}
	s1, err := s.dt(args, 2+P)
	if err != nil {
		return err
	}
	s2, err := s.dt(args, 3+P)
	if err != nil {
		return err
	}
	own, other := s1, s2 // gatherv sends in the first datatype
	if scatter {
		own, other = s2, s1
	}
	if c.Counts, err = s.counts(args, many, other, c.Counts); err != nil {
		return err
	}
	c.Bytes, c.Type = cnt*own, trace.Datatype{Size: own, Extent: own}
	return nil
}

// allgatherv parses allgatherv: SCOUNT RCOUNTS*P, then DT DT DISPLS*P,
// or DISPLS*P, or [DT DT].
func (s *titStream) allgatherv(args []titField, c *trace.Call) error {
	var err error
	P := int(s.nranks)
	n := len(args)
	// SCOUNT RCOUNTS*P, then as SimGrid tells them apart by their
	// number: DT DT DISPLS*P, or DISPLS*P, or [DT DT].
	scnt, err := s.count(&args[0])
	if err != nil {
		return err
	}
	d1, d2, disp := 1+P, 2+P, -1
	switch {
	case n > 1+2*P:
		disp = 3 + P
	case n > P+3:
		d1, d2, disp = n, n, 1+P
	}
	if disp >= 0 && disp+P > n {
		return s.sc.errf(&args[n-1], "allgatherv: %d arguments: displacements incomplete", n)
	}
	if disp >= 0 && disp+P < n {
		return s.sc.errCut(&args[disp+P], false, "allgatherv: %d arguments, too many", n)
	}
	s1, err := s.dt(args, d1)
	if err != nil {
		return err
	}
	s2, err := s.dt(args, d2)
	if err != nil {
		return err
	}
	if disp >= 0 {
		for k := 0; k < P; k++ {
			if _, err := s.int(&args[disp+k], "displacement", 0, 1<<40); err != nil {
				return err
			}
		}
	}
	if c.Counts, err = s.counts(args, 1, s2, c.Counts); err != nil {
		return err
	}
	c.Bytes, c.Type = scnt*s1, trace.Datatype{Size: s1, Extent: s1}
	return nil
}

// scatterv parses scatterv: SCOUNTS*P RCOUNT [ROOT [DT DT]].
func (s *titStream) scatterv(args []titField, c *trace.Call) error {
	return s.rootedV(args, c, true)
}

// reduceScatter parses reducescatter: RCOUNTS*P COMP [DT].
func (s *titStream) reduceScatter(args []titField, c *trace.Call) error {
	var err error
	P := int(s.nranks)
	// RCOUNTS*P COMP [DT]
	size, err := s.dt(args, 1+P)
	if err != nil {
		return err
	}
	if c.Counts, err = s.counts(args, 0, size, c.Counts); err != nil {
		return err
	}
	c.Bytes, c.Type = c.Counts[s.rank], trace.Datatype{Size: size, Extent: size}
	if err := s.flops(&args[P]); err != nil {
		return err
	}
	return nil
}

// sleep parses sleep SECONDS: it advances the clock.
func (s *titStream) sleep(args []titField) error {
	v, err := s.num(&args[0], "seconds")
	if err != nil {
		return err
	}
	if v < 0 || v > 1e9 {
		return s.sc.errf(&args[0], "sleep %v s", v)
	}
	s.clock += v * 1e9 // at most 1e18 ns: the next action's check holds it
	return nil
}

// p2p parses send, isend, recv and irecv: PEER TAG COUNT [DT].
func (s *titStream) p2p(info titInfo, args []titField, c *trace.Call) error {
	var err error
	var size int64
	if c.Peer, err = s.peer(&args[0], "peer"); err != nil {
		return err
	}
	tag, err := s.int(&args[1], "tag", 0, 1<<30)
	if err != nil {
		return err
	}
	recv := info.act == titRecv || info.act == titIrecv
	cnt, err := s.int(&args[2], "count", -1<<40, 1<<40)
	if err != nil {
		return err
	}
	if cnt < 0 && !recv {
		return s.sc.errf(&args[2], "count %d", cnt)
	}
	if size, err = s.dt(args, 3); err != nil {
		return err
	}
	c.Comm, c.Tag, c.Bytes, c.Type = 0, int32(tag), max(cnt, 0)*size, trace.Datatype{Size: size, Extent: size}
	key := titKey{s.rank, c.Peer, c.Tag}
	if recv {
		key = titKey{c.Peer, s.rank, c.Tag}
	}
	switch info.act {
	case titIsend:
		c.Request = s.newReq(key, trace.ReqSend, info.fn)
	case titIrecv:
		c.Request = s.newReq(key, trace.ReqRecv, info.fn)
	}
	return nil
}

// bcast parses bcast: COUNT [ROOT [DT]].
func (s *titStream) bcast(args []titField, c *trace.Call) error {
	cnt, err := s.count(&args[0])
	if err != nil {
		return err
	}
	if c.Root, err = s.root(args, 1); err != nil {
		return err
	}
	size, err := s.dt(args, 2)
	if err != nil {
		return err
	}
	c.Bytes, c.Type = cnt*size, trace.Datatype{Size: size, Extent: size}
	return nil
}

// checkArgs checks the number of an action's arguments; the v-collectives
// have per-rank arrays besides.
func (s *titStream) checkArgs(name titField, info titInfo, args []titField) error {
	P := int(s.nranks)
	n := len(args)
	extra := 0
	switch info.act {
	case titAlltoallv:
		extra = 2 * P
	case titGatherv, titAllgatherv, titScatterv, titReduceScatter:
		extra = P
	}
	if n < info.min+extra || info.max >= 0 && n > info.max+extra {
		want := fmt.Sprintf("%d", info.min+extra)
		if info.max < 0 {
			want = fmt.Sprintf("at least %d", info.min+extra)
		} else if info.max != info.min {
			want = fmt.Sprintf("%d to %d", info.min+extra, info.max+extra)
		}
		at := &name // too few: the last argument there is; too many: the first extra one
		switch {
		case n >= info.min+extra:
			at = &args[info.max+extra]
		case n > 0:
			at = &args[n-1]
		}
		return s.sc.errCut(at, n < info.min+extra, "%s: %d arguments, expected %s", name.text, n, want)
	}
	return nil
}
