package dumpi

// The DUMPI importer: a run's files (see dumpi.go) as a Source.
//
// Calls keep their times (wall clock, or CPU time where the trace has no
// wall clock), peers (translated to world ranks), tags and sizes (count
// times the datatype's size from the file's size table). Receives take
// the source, tag and size of their recorded status; where statuses were
// not recorded, a wildcard receive gets the message it is matched with
// across the ranks (resolveWildcards). Requests are followed through all
// Wait and Test functions with the index or indices they returned;
// persistent requests (Send_init, Recv_init, ..., Start, Startall) become
// a nonblocking call at each start. MPI_Alltoallw becomes an Alltoallv
// with each peer's block in bytes.
//
// Communicators: libdumpi numbers communicators, groups and requests per
// process. Communicators made by Comm_dup, Comm_split, Comm_create (with
// the group built by Comm_group and Group_incl, _excl, _range_incl,
// _range_excl, _union, _intersection, _difference), Cart_create (the
// first ranks of the old communicator, as without reordering), Cart_sub
// and Graph_create get their members and agreed ids (trace.ResolveComms).
// Intercommunicators (Intercomm_create, _merge, Comm_spawn, ...) do not:
// calls on them are unsupported, as are one-sided communication, MPI-IO
// and generalized requests. Open lists unsupported calls with their
// counts unless Unsupported is "calc". Calls without communication
// (MPI_Comm_rank, MPI_Type_*, ...) are dropped and their time counts as
// computation; so are the records of profiled user functions.

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
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

// Options control the DUMPI importer.
type Options struct {
	// Unsupported is "" (Open fails, listing the calls it cannot
	// model with their counts) or "calc" (their time counts as
	// computation; Unsupported() lists them).
	Unsupported string
}

// Trace is a DUMPI trace: a .meta file and one .bin file per rank. It is
// a Source.
type Trace struct {
	Meta  map[string]string // the .meta file's keys, if there is one
	Files []string          // by rank, as opened (for messages)

	fsys        fs.FS
	names       []string
	opt         Options
	comms       *trace.CommTable
	recvs       [][]trace.P2PMatch
	unsupported map[string]int64
}

var dumpiBinRE = regexp.MustCompile(`^(.+)-([0-9]+)\.bin$`)

// Open opens the DUMPI trace at path: its .meta file, one of its
// .bin files, or the directory that holds them. Without a .meta file the
// files PREFIX-NNNN.bin found are the ranks. It reads every file once to
// check it and to work out the communicators; OpenRank reads a rank's
// calls.
func Open(path string, opt Options) (*Trace, error) {
	fsys, dir, name, err := trace.DiskFS(path)
	if err != nil {
		return nil, err
	}
	d, err := OpenFS(fsys, name, opt)
	if err != nil {
		return nil, err
	}
	trace.DiskPaths(d.Files, dir, d.names)
	return d, nil
}

// OpenFS is Open on a file system: name is the .meta file, a
// .bin file, or "" for the trace in the root directory.
func OpenFS(fsys fs.FS, name string, opt Options) (*Trace, error) {
	if err := trace.CheckUnsupportedPolicy(opt.Unsupported); err != nil {
		return nil, err
	}
	d := &Trace{fsys: fsys, opt: opt, unsupported: map[string]int64{}}
	if err := d.find(name); err != nil {
		return nil, err
	}
	d.Files = slices.Clone(d.names)
	if err := d.scan(); err != nil {
		return nil, err
	}
	if len(d.unsupported) > 0 && opt.Unsupported == "" {
		return nil, trace.UnsupportedCalls("trace: dumpi "+d.names[0], d.unsupported)
	}
	return d, nil
}

// find sets the rank files.
func (d *Trace) find(name string) error {
	dir, prefix, meta, err := d.locate(name)
	if err != nil {
		return err
	}
	numprocs := -1
	if meta != "" {
		if prefix, numprocs, err = d.readMeta(meta); err != nil {
			return err
		}
	}
	return d.rankFiles(dir, prefix, numprocs)
}

// locate finds what name (a .meta file, a .bin file, or "" for the root
// directory) names: the directory, and the .meta file or the files'
// prefix.
func (d *Trace) locate(name string) (dir, prefix, meta string, err error) {
	dir = "."
	switch {
	case name == "":
		prefix, meta, err = d.locateInRoot()
	case strings.HasSuffix(name, ".meta"):
		dir, meta = path.Dir(name), name
	default:
		dir = path.Dir(name)
		m := dumpiBinRE.FindStringSubmatch(path.Base(name))
		if m == nil {
			return "", "", "", fmt.Errorf("trace: dumpi: %s: expected PREFIX.meta or PREFIX-NNNN.bin", name)
		}
		prefix = m[1]
		if _, err := fs.Stat(d.fsys, path.Join(dir, prefix+".meta")); err == nil {
			meta = path.Join(dir, prefix+".meta")
		}
	}
	return dir, prefix, meta, err
}

// locateInRoot finds the one trace in the root directory: its .meta file,
// or without one the prefix of its .bin files.
func (d *Trace) locateInRoot() (prefix, meta string, err error) {
	ents, err := fs.ReadDir(d.fsys, ".")
	if err != nil {
		return "", "", fmt.Errorf("trace: dumpi: %w", err)
	}
	var metas []string
	prefixes := map[string]bool{}
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".meta") && !e.IsDir() {
			metas = append(metas, e.Name())
		}
		if m := dumpiBinRE.FindStringSubmatch(e.Name()); m != nil && !e.IsDir() {
			prefixes[m[1]] = true
		}
	}
	switch {
	case len(metas) == 1:
		return "", metas[0], nil
	case len(metas) > 1:
		return "", "", fmt.Errorf("trace: dumpi: the directory holds several traces (%s): name one's .meta file", strings.Join(metas, ", "))
	case len(prefixes) == 1:
		for p := range prefixes {
			prefix = p
		}
		return prefix, "", nil
	case len(prefixes) == 0:
		return "", "", errors.New("trace: dumpi: no DUMPI files (PREFIX.meta, PREFIX-NNNN.bin) in the directory")
	}
	var ps []string
	for p := range prefixes {
		ps = append(ps, p)
	}
	sort.Strings(ps)
	return "", "", fmt.Errorf("trace: dumpi: the directory holds several traces (%s): name one", strings.Join(ps, ", "))
}

// readMeta reads the .meta file into d.Meta and returns the files'
// prefix and numprocs (-1 if not given).
func (d *Trace) readMeta(meta string) (prefix string, numprocs int, err error) {
	numprocs = -1
	data, err := fs.ReadFile(d.fsys, meta)
	if err != nil {
		return "", 0, fmt.Errorf("trace: dumpi: %w", err)
	}
	d.Meta = map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			return "", 0, &trace.TextFormatError{File: meta, Line: i + 1, Err: errors.New("dumpi: expected key=value")}
		}
		d.Meta[k] = v
	}
	prefix = d.Meta["fileprefix"]
	if prefix == "" {
		prefix = strings.TrimSuffix(path.Base(meta), ".meta")
	}
	prefix = path.Base(prefix)
	if v, ok := d.Meta["numprocs"]; ok {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 1<<22 {
			return "", 0, fmt.Errorf("trace: dumpi: %s: numprocs=%s", meta, v)
		}
		numprocs = n
	}
	return prefix, numprocs, nil
}

// rankFiles sets d.names to the files PREFIX-NNNN.bin in dir, one per
// rank of numprocs (or up to the highest rank found, for -1).
func (d *Trace) rankFiles(dir, prefix string, numprocs int) error {
	ents, err := fs.ReadDir(d.fsys, dir)
	if err != nil {
		return fmt.Errorf("trace: dumpi: %w", err)
	}
	files := map[int]string{}
	for _, e := range ents {
		m := dumpiBinRE.FindStringSubmatch(e.Name())
		if m == nil || m[1] != prefix || e.IsDir() {
			continue
		}
		r, err := strconv.Atoi(m[2])
		if err != nil || r > 1<<22 {
			continue
		}
		if old, dup := files[r]; dup {
			return fmt.Errorf("trace: dumpi: rank %d has two files: %s and %s", r, old, e.Name())
		}
		files[r] = path.Join(dir, e.Name())
	}
	n := numprocs
	if n < 0 {
		for r := range files {
			n = max(n, r+1)
		}
	}
	if n <= 0 {
		return fmt.Errorf("trace: dumpi: no files %s-NNNN.bin in %s", prefix, dir)
	}
	d.names = make([]string, n)
	var missing []int
	for r := range d.names {
		f, ok := files[r]
		if !ok && len(missing) < 10 {
			missing = append(missing, r)
		}
		d.names[r] = f
	}
	if len(missing) > 0 {
		return fmt.Errorf("trace: dumpi: %s: %d rank files for %d ranks (missing ranks %v)", path.Join(dir, prefix), len(files), n, missing)
	}
	for r := range files {
		if r >= n {
			return fmt.Errorf("trace: dumpi: %s: a file for rank %d, but numprocs=%d", files[r], r, n)
		}
	}
	return nil
}

// Detect reports whether path is a DUMPI trace: a .meta file with
// numprocs and fileprefix, a file that starts with DUMPI's magic, or a
// directory holding either.
func Detect(path string) bool {
	fi, err := os.Stat(path)
	if err != nil {
		return false
	}
	if fi.IsDir() {
		ents, err := os.ReadDir(path)
		if err != nil {
			return false
		}
		for _, e := range ents {
			if !e.IsDir() && (strings.HasSuffix(e.Name(), ".meta") || dumpiBinRE.MatchString(e.Name())) && Detect(filepath.Join(path, e.Name())) {
				return true
			}
		}
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if len(head) >= 8 && string(head[:8]) == string(Magic) {
		return true
	}
	s := string(head)
	return strings.HasSuffix(path, ".meta") && strings.Contains(s, "numprocs=") && strings.Contains(s, "fileprefix=")
}

// NumRanks is the number of ranks.
func (d *Trace) NumRanks() int { return len(d.names) }

// Unsupported counts the calls OpenRank drops because they cannot be
// modelled (with Unsupported "calc"; otherwise Open failed on them).
func (d *Trace) Unsupported() map[string]int64 { return trace.CopyCounts(d.unsupported) }

func (d *Trace) openFile(r int) (*File, fs.File, error) {
	f, err := d.fsys.Open(d.names[r])
	if err != nil {
		return nil, nil, fmt.Errorf("trace: dumpi: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("trace: dumpi: %w", err)
	}
	ra, ok := f.(io.ReaderAt)
	if !ok {
		data, err := io.ReadAll(f)
		if err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("trace: dumpi: %w", err)
		}
		ra = strings.NewReader(string(data))
	}
	df, err := OpenFile(ra, fi.Size(), d.Files[r])
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return df, f, nil
}

// scan reads every rank's records: it checks them, counts unsupported
// calls, collects how each rank made its communicators and its
// point-to-point calls, then resolves communicators and receives.
func (d *Trace) scan() error {
	n := len(d.names)
	specs := make([][]trace.CommSpec, n)
	usage := make([]map[int32]map[string]int64, n)
	p2p := make([][]dumpiP2P, n)
	for r := range d.names {
		df, f, err := d.openFile(r)
		if err != nil {
			return err
		}
		st := newDumpiState(df, r, n)
		recs := df.Records()
		var rec Record
		for {
			err := recs.Next(&rec)
			if err == io.EOF {
				break
			}
			if err != nil {
				f.Close()
				return err
			}
			if err := st.record(&rec); err != nil {
				f.Close()
				return err
			}
		}
		f.Close()
		for k, v := range st.skipped {
			d.unsupported[k] += v
		}
		specs[r], usage[r], p2p[r] = st.specs, st.usage, st.p2p
	}
	d.comms = trace.ResolveComms(n, specs)
	for r := range usage {
		for li, fns := range usage[r] {
			if c, why := d.comms.Comm(r, li); c.Local {
				for fn, k := range fns {
					d.unsupported[fn+" (on a communicator whose members the trace does not tell: "+why+")"] += k
				}
			}
		}
	}
	events := make([][]trace.P2PEvent, n)
	for r := range p2p {
		for _, e := range p2p[r] {
			c, _ := d.comms.Comm(r, e.li)
			if c.Local {
				continue
			}
			ev := trace.P2PEvent{Send: e.send, Comm: c.ID, Tag: e.tag, T: e.t}
			switch {
			case e.peer == trace.AnySource:
				ev.Peer = trace.AnySource
			case e.peer >= 0 && int(e.peer) < len(c.Members):
				ev.Peer = c.Members[e.peer]
			case e.send:
				continue
			default:
				ev.Peer = -100 // matches nothing; kept to number the receives
			}
			events[r] = append(events[r], ev)
		}
	}
	d.recvs = trace.ResolveWildcards(events)
	return nil
}

// OpenRank opens rank r's calls.
func (d *Trace) OpenRank(r int) (trace.RankStream, error) {
	if r < 0 || r >= len(d.names) {
		return nil, fmt.Errorf("trace: dumpi: rank %d outside 0..%d", r, len(d.names)-1)
	}
	df, f, err := d.openFile(r)
	if err != nil {
		return nil, err
	}
	st := newDumpiState(df, r, len(d.names))
	st.table, st.recvs = d.comms, d.recvs[r]
	s := &dumpiStream{f: f, recs: df.Records(), st: st}
	// The first record's time is the origin.
	if err := s.fill(); err != nil && err != io.EOF {
		f.Close()
		return nil, err
	}
	return s, nil
}

// ---- the decoding state of one rank ----

// dumpiP2P is a point-to-point call of the first pass.
type dumpiP2P struct {
	send      bool
	li        int32
	peer, tag int32 // peer as a rank of the communicator, or AnySource; tag or AnyTag
	t         float64
}

type dumpiReq struct {
	id      uint64
	kind    trace.ReqKind
	fn      trace.Func
	li      int32
	comm    int32 // agreed id (second pass)
	ev      int   // first pass: the receive's event in p2p
	persist *dumpiPersist
}

// dumpiPersist is a persistent request: the call each start makes.
type dumpiPersist struct {
	fn    trace.Func
	li    int32
	peer  int32 // rank of the communicator, ProcNull, AnySource
	tag   int32
	bytes int64
	typ   trace.Datatype
}

type dumpiGroup struct {
	base    int32 // Comm_group: the communicator's ranks
	op      byte  // 'c' Comm_group, 'i' incl, 'e' excl, 'u', 'n', 'd' set operations; 0 unknown
	a, b    *dumpiGroup
	ranks   []int64
	unknown string
}

// dumpiState decodes one rank's records into calls, the same way in
// both passes (the second with the resolved communicators and receives).
type dumpiState struct {
	f            *File
	file         string
	rank, nranks int32
	table        *trace.CommTable // nil in the first pass
	recvs        []trace.P2PMatch // second pass: what the receives got
	nrecv        int

	comms  map[int64]int32 // communicator handle -> index in specs
	specs  []trace.CommSpec
	seq    map[int32]int32
	cart   map[int32][]int64 // a cartesian communicator's dimensions
	groups map[int64]*dumpiGroup
	reqs   map[int64]*dumpiReq
	next   uint64
	p2p    []dumpiP2P

	skipped map[string]int64
	usage   map[int32]map[string]int64

	world, self *trace.Comm // first pass
	t0          int64       // the first record's start (ns)
	haveT0      bool
	wrap        int64 // 65536 s per wrap of the 16-bit seconds
	lastSec     int64
	out         []trace.Call // calls of the current record
}

func newDumpiState(f *File, r, n int) *dumpiState {
	st := &dumpiState{
		f: f, file: f.Name, rank: int32(r), nranks: int32(n),
		comms: map[int64]int32{}, seq: map[int32]int32{}, cart: map[int32][]int64{},
		groups: map[int64]*dumpiGroup{}, reqs: map[int64]*dumpiReq{},
		skipped: map[string]int64{}, usage: map[int32]map[string]int64{},
	}
	st.world, st.self = &trace.Comm{ID: 0, Members: make([]int32, n)}, &trace.Comm{ID: 1, Members: []int32{int32(r)}}
	for i := range st.world.Members {
		st.world.Members[i] = int32(i)
	}
	st.comms[2] = 0 // MPI_COMM_WORLD
	st.comms[3] = 1 // MPI_COMM_SELF
	st.specs = []trace.CommSpec{{Origin: trace.OriginWorld, Idx: -1, Size: -1}, {Origin: trace.OriginSelf, Idx: -1, Size: -1}}
	return st
}

func (st *dumpiState) errf(rec *Record, format string, args ...any) error {
	return dumpiErr(st.file, rec.Offset, "%s: "+format, append([]any{rec.Name()}, args...)...)
}

// comm returns the index of the communicator with handle h, making an
// unknown one for a handle never created.
func (st *dumpiState) comm(h int64) int32 {
	if li, ok := st.comms[h]; ok {
		return li
	}
	li := int32(len(st.specs))
	st.specs = append(st.specs, trace.CommSpec{Origin: trace.OriginUnknown, Idx: -1, Size: -1,
		Why: fmt.Sprintf("the trace does not show how the communicator with handle %d was created", h)})
	st.comms[h] = li
	return li
}

// newComm notes a communicator-creating call on parent that returned
// handle h (1, MPI_COMM_NULL, for none).
func (st *dumpiState) newComm(parent int32, h int64, spec trace.CommSpec) int32 {
	spec.Parent, spec.Seq, spec.Idx, spec.Size = parent, st.seq[parent], -1, -1
	st.seq[parent]++
	if h == 1 || h == 0 {
		return -1
	}
	li := int32(len(st.specs))
	st.specs = append(st.specs, spec)
	st.comms[h] = li
	return li
}

// times returns the record's start and end in ns from the first record.
func (st *dumpiState) times(rec *Record) (int64, int64) {
	var t [2]Time
	switch {
	case rec.HasWall():
		t = rec.Wall
	case rec.HasCPU():
		t = rec.CPU
	default:
		return 0, 0
	}
	var ns [2]int64
	for i := range t {
		// 16-bit seconds wrap every 18 hours.
		if st.haveT0 && t[i].Sec+st.wrap < st.lastSec-32768 {
			st.wrap += 65536
		}
		sec := t[i].Sec + st.wrap
		st.lastSec = max(st.lastSec, sec)
		ns[i] = sec*1e9 + int64(t[i].Nsec)
	}
	if !st.haveT0 {
		st.t0, st.haveT0 = ns[0], true
	}
	return ns[0] - st.t0, ns[1] - st.t0
}

// typeSize is the size of datatype dt.
func (st *dumpiState) typeSize(rec *Record, dt int64) (trace.Datatype, error) {
	if dt >= 0 && dt < int64(len(st.f.TypeSizes)) {
		s := int64(max(st.f.TypeSizes[dt], 0))
		return trace.Datatype{Size: s, Extent: s}, nil
	}
	if dt >= 0 && dt < int64(len(dumpiBuiltinSizes)) {
		s := dumpiBuiltinSizes[dt]
		return trace.Datatype{Size: s, Extent: s}, nil
	}
	return trace.Datatype{}, st.errf(rec, "datatype %d: not in the file's size table (%d types)", dt, len(st.f.TypeSizes))
}

// dumpiBuiltinSizes are the sizes of libdumpi's predefined datatypes on
// x86-64, for files without a size table (before 0.6.6).
var dumpiBuiltinSizes = [...]int64{0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20}

func (st *dumpiState) bytes(rec *Record, count int64, dt int64) (int64, trace.Datatype, error) {
	t, err := st.typeSize(rec, dt)
	if err != nil {
		return 0, t, err
	}
	if count < 0 {
		return 0, t, st.errf(rec, "count %d", count)
	}
	return count * t.Size, t, nil
}

// dumpiUnsupported lists the calls that have no counterpart in the
// converter, with the reason.
var dumpiUnsupported = func() map[string]string {
	m := map[string]string{}
	for _, f := range []string{"MPI_Accumulate", "MPI_Get", "MPI_Put", "MPI_Win_complete", "MPI_Win_create", "MPI_Win_fence",
		"MPI_Win_free", "MPI_Win_lock", "MPI_Win_post", "MPI_Win_start", "MPI_Win_test", "MPI_Win_unlock", "MPI_Win_wait"} {
		m[f] = "one-sided communication"
	}
	for _, f := range []string{"MPI_Intercomm_create", "MPI_Intercomm_merge", "MPI_Comm_spawn", "MPI_Comm_spawn_multiple",
		"MPI_Comm_accept", "MPI_Comm_connect", "MPI_Comm_join", "MPI_Comm_disconnect", "MPI_Comm_get_parent",
		"MPI_Open_port", "MPI_Close_port", "MPI_Publish_name", "MPI_Unpublish_name", "MPI_Lookup_name"} {
		m[f] = "intercommunicators and dynamic processes"
	}
	for _, f := range []string{"MPI_Grequest_start", "MPI_Grequest_complete"} {
		m[f] = "generalized requests"
	}
	for i, f := range dumpiLayouts {
		if strings.HasPrefix(f[0], "MPI_File_") && !strings.Contains(f[0], "errhandler") || strings.HasPrefix(f[0], "MPIO_") || f[0] == "MPI_Register_datarep" {
			m[dumpiLayouts[i][0]] = "MPI-IO"
		}
	}
	return m
}()

// dumpiFuncOf maps DUMPI's functions to the calls they become.
var dumpiFuncOf = map[string]trace.Func{
	"MPI_Init": trace.FuncInit, "MPI_Init_thread": trace.FuncInitThread, "MPI_Finalize": trace.FuncFinalize, "MPI_Abort": trace.FuncAbort,
	"MPI_Send": trace.FuncSend, "MPI_Bsend": trace.FuncBsend, "MPI_Ssend": trace.FuncSsend, "MPI_Rsend": trace.FuncRsend,
	"MPI_Isend": trace.FuncIsend, "MPI_Ibsend": trace.FuncIbsend, "MPI_Issend": trace.FuncIssend, "MPI_Irsend": trace.FuncIrsend,
	"MPI_Recv": trace.FuncRecv, "MPI_Irecv": trace.FuncIrecv, "MPI_Sendrecv": trace.FuncSendrecv, "MPI_Sendrecv_replace": trace.FuncSendrecvReplace,
	"MPI_Wait": trace.FuncWait, "MPI_Waitall": trace.FuncWaitall, "MPI_Waitany": trace.FuncWaitany, "MPI_Waitsome": trace.FuncWaitsome,
	"MPI_Test": trace.FuncTest, "MPI_Testall": trace.FuncTestall, "MPI_Testany": trace.FuncTestany, "MPI_Testsome": trace.FuncTestsome,
	"MPI_Iprobe": trace.FuncIprobe, "MPI_Probe": trace.FuncProbe, "MPI_Cancel": trace.FuncCancel, "MPI_Request_free": trace.FuncRequestFree,
	"MPI_Barrier": trace.FuncBarrier, "MPI_Bcast": trace.FuncBcast, "MPI_Reduce": trace.FuncReduce, "MPI_Allreduce": trace.FuncAllreduce,
	"MPI_Allgather": trace.FuncAllgather, "MPI_Allgatherv": trace.FuncAllgatherv, "MPI_Gather": trace.FuncGather, "MPI_Gatherv": trace.FuncGatherv,
	"MPI_Scatter": trace.FuncScatter, "MPI_Scatterv": trace.FuncScatterv, "MPI_Alltoall": trace.FuncAlltoall, "MPI_Alltoallv": trace.FuncAlltoallv,
	"MPI_Alltoallw": trace.FuncAlltoallv, "MPI_Reduce_scatter": trace.FuncReduceScatter, "MPI_Scan": trace.FuncScan, "MPI_Exscan": trace.FuncExscan,
	"MPI_Comm_dup": trace.FuncCommDup, "MPI_Comm_split": trace.FuncCommSplit, "MPI_Comm_create": trace.FuncCommCreate,
	"MPI_Cart_create": trace.FuncCartCreate, "MPI_Cart_sub": trace.FuncCartSub, "MPI_Graph_create": trace.FuncCommCreate, "MPI_Comm_free": trace.FuncCommFree,
}

// persistent requests: the call each start makes.
var dumpiStartFunc = map[string]trace.Func{
	"MPI_Send_init": trace.FuncIsend, "MPI_Bsend_init": trace.FuncIbsend, "MPI_Ssend_init": trace.FuncIssend, "MPI_Rsend_init": trace.FuncIrsend, "MPI_Recv_init": trace.FuncIrecv,
}

// record decodes one record into st.out (the calls it becomes).
func (st *dumpiState) record(rec *Record) error {
	st.out = st.out[:0]
	start, end := st.times(rec)
	name := rec.Name()
	if int(rec.Func) >= NumFuncs {
		return nil // entry to or exit from a user function
	}
	if why, ok := dumpiUnsupported[name]; ok {
		st.unsupported(rec, name, why)
		return nil
	}
	if pf, ok := dumpiStartFunc[name]; ok {
		return st.persistInit(rec, pf)
	}
	if done, err := st.local(rec, name, start, end); done {
		return err
	}
	fn, ok := dumpiFuncOf[name]
	if !ok {
		return nil // a call without communication: its time is computation
	}
	c := trace.NewCall(fn, start, end)
	if done, err := st.control(rec, &c); done {
		return err
	}
	return st.onComm(rec, &c, name)
}

// unsupported counts a call the converter cannot model; the
// intercommunicator it makes, if any, is an unknown communicator.
func (st *dumpiState) unsupported(rec *Record, name, why string) {
	st.skipped[name+" ("+why+")"]++
	// The intercommunicator it makes has no members the converter
	// could use.
	arg := map[string]string{"MPI_Comm_get_parent": "parent", "MPI_Comm_join": "comm"}[name]
	if arg == "" {
		arg = "newcomm"
	}
	if a := rec.Arg(arg); a != nil && why == "intercommunicators and dynamic processes" && a.Int > 3 {
		st.comms[a.Int] = int32(len(st.specs))
		st.specs = append(st.specs, trace.CommSpec{Origin: trace.OriginUnknown, Idx: -1, Size: -1, Why: "an intercommunicator (" + name + ")"})
	}
}

// local handles the calls that start persistent requests or keep the
// rank's books (groups, the world's size); done says whether rec was one.
func (st *dumpiState) local(rec *Record, name string, start, end int64) (done bool, err error) {
	switch name {
	case "MPI_Start":
		return true, st.start(rec, start, end, []int64{rec.int("request")})
	case "MPI_Startall":
		return true, st.start(rec, start, end, rec.ints("requests"))
	case "MPI_Comm_group":
		st.groups[rec.int("group")] = &dumpiGroup{op: 'c', base: st.comm(rec.int("comm"))}
	case "MPI_Group_incl", "MPI_Group_excl":
		op := byte('i')
		if name == "MPI_Group_excl" {
			op = 'e'
		}
		st.groups[rec.int("newgroup")] = &dumpiGroup{op: op, a: st.group(rec.int("group")), ranks: slices.Clone(rec.ints("ranks"))}
	case "MPI_Group_range_incl", "MPI_Group_range_excl":
		op := byte('i')
		if name == "MPI_Group_range_excl" {
			op = 'e'
		}
		g := st.group(rec.int("group"))
		ranks, err := dumpiRanges(rec.Arg("ranges"))
		if err != nil {
			return true, st.errf(rec, "%v", err)
		}
		st.groups[rec.int("newgroup")] = &dumpiGroup{op: op, a: g, ranks: ranks}
	case "MPI_Group_union", "MPI_Group_intersection", "MPI_Group_difference":
		op := map[string]byte{"MPI_Group_union": 'u', "MPI_Group_intersection": 'n', "MPI_Group_difference": 'd'}[name]
		st.groups[rec.int("newgroup")] = &dumpiGroup{op: op, a: st.group(rec.int("group1")), b: st.group(rec.int("group2"))}
	case "MPI_Group_free":
		delete(st.groups, rec.int("group"))
	case "MPI_Comm_size":
		if rec.int("comm") == 2 && rec.int("size") != int64(st.nranks) {
			return true, st.errf(rec, "MPI_COMM_WORLD has %d ranks, but the trace has files for %d", rec.int("size"), st.nranks)
		}
	default:
		return false, nil
	}
	return true, nil
}

// control handles the calls that are not communication on a
// communicator (init, finalize, abort, communicator creation and release,
// completions, cancels); done says whether c was one.
func (st *dumpiState) control(rec *Record, c *trace.Call) (done bool, err error) {
	switch c.Func.Class() {
	case trace.ClassInit, trace.ClassFinalize:
	case trace.ClassAbort:
		c.Comm = st.agreed(st.comm(rec.int("comm")))
	case trace.ClassCommNew:
		return true, st.commNew(rec, c)
	case trace.ClassCommFree:
		li := st.comm(rec.int("comm"))
		c.Comm = st.agreed(li)
		delete(st.comms, rec.int("comm"))
	case trace.ClassWait, trace.ClassTest:
		return true, st.complete(rec, c)
	case trace.ClassCancel, trace.ClassRequestFree:
		h := rec.int("request")
		if q := st.reqs[h]; q != nil {
			c.Request = q.id
			if c.Func == trace.FuncRequestFree {
				delete(st.reqs, h)
			}
		}
	default:
		return false, nil
	}
	st.out = append(st.out, *c)
	return true, nil
}

// onComm handles a collective or point-to-point call on a communicator:
// in the first pass it counts the communicator's use, in the second it
// skips calls on communicators left unresolved.
func (st *dumpiState) onComm(rec *Record, c *trace.Call, name string) error {
	li := st.comm(rec.int("comm"))
	if st.table == nil {
		u := st.usage[li]
		if u == nil {
			u = map[string]int64{}
			st.usage[li] = u
		}
		u[name]++
	}
	var cm *trace.Comm
	size := int32(-1)
	switch {
	case st.table == nil && li == 0:
		cm, size = st.world, st.nranks // first pass: check what can be
	case st.table == nil && li == 1:
		cm, size = st.self, 1
	case st.table != nil:
		var why string
		cm, why = st.table.Comm(int(st.rank), li)
		if cm.Local {
			st.skipped[name+" (on a communicator whose members the trace does not tell: "+why+")"]++
			return nil
		}
		c.Comm, size = cm.ID, int32(cm.Size())
	}
	if c.Func.Class() == trace.ClassCollective {
		if err := st.collective(rec, c, size); err != nil {
			return err
		}
		st.out = append(st.out, *c)
		return nil
	}
	return st.p2pCall(rec, c, li, cm)
}

// agreed is communicator li's agreed id in the second pass, or None.
func (st *dumpiState) agreed(li int32) int32 {
	if st.table == nil {
		return trace.None
	}
	if c, _ := st.table.Comm(int(st.rank), li); !c.Local {
		return c.ID
	}
	return trace.None
}

func (st *dumpiState) group(h int64) *dumpiGroup {
	if g := st.groups[h]; g != nil {
		return g
	}
	switch h {
	case 2:
		return &dumpiGroup{op: 'i'} // MPI_GROUP_EMPTY: no ranks of nothing
	}
	return &dumpiGroup{unknown: fmt.Sprintf("group handle %d not made by Comm_group or a Group_ function", h)}
}

// dumpiRanges expands MPI_Group_range_incl's (first, last, stride)
// triplets.
func dumpiRanges(a *Arg) ([]int64, error) {
	if a == nil {
		return nil, nil
	}
	var out []int64
	for _, t := range a.Rows {
		if len(t) != 3 || t[2] == 0 {
			return nil, fmt.Errorf("range %v: expected first, last, stride", t)
		}
		for x := t[0]; t[2] > 0 && x <= t[1] || t[2] < 0 && x >= t[1]; x += t[2] {
			out = append(out, x)
			if len(out) > 1<<22 {
				return nil, fmt.Errorf("range %v too long", t)
			}
		}
	}
	return out, nil
}

// deps adds the communicators g is built from.
func (g *dumpiGroup) deps(into []int32) []int32 {
	switch {
	case g == nil:
	case g.op == 'c':
		if !slices.Contains(into, g.base) {
			into = append(into, g.base)
		}
	default:
		into = g.a.deps(into)
		into = g.b.deps(into)
	}
	return into
}

// eval returns the group's world ranks.
func (g *dumpiGroup) eval(get func(li int32) []int32) ([]int32, error) {
	if g.unknown != "" {
		return nil, errors.New(g.unknown)
	}
	switch g.op {
	case 'c':
		m := get(g.base)
		if m == nil {
			return nil, errors.New("the group's communicator is unresolved")
		}
		return m, nil
	case 'i', 'e':
		var a []int32
		if g.a != nil {
			var err error
			if a, err = g.a.eval(get); err != nil {
				return nil, err
			}
		}
		if g.op == 'i' {
			out := make([]int32, 0, len(g.ranks))
			for _, k := range g.ranks {
				if k < 0 || k >= int64(len(a)) {
					return nil, fmt.Errorf("rank %d outside a group of %d", k, len(a))
				}
				out = append(out, a[k])
			}
			return out, nil
		}
		drop := map[int64]bool{}
		for _, k := range g.ranks {
			if k < 0 || k >= int64(len(a)) {
				return nil, fmt.Errorf("rank %d outside a group of %d", k, len(a))
			}
			drop[k] = true
		}
		var out []int32
		for k, w := range a {
			if !drop[int64(k)] {
				out = append(out, w)
			}
		}
		return out, nil
	case 'u', 'n', 'd':
		a, err := g.a.eval(get)
		if err != nil {
			return nil, err
		}
		b, err := g.b.eval(get)
		if err != nil {
			return nil, err
		}
		var out []int32
		for _, w := range a {
			if in := slices.Contains(b, w); g.op == 'u' || g.op == 'n' && in || g.op == 'd' && !in {
				out = append(out, w)
			}
		}
		if g.op == 'u' {
			for _, w := range b {
				if !slices.Contains(a, w) {
					out = append(out, w)
				}
			}
		}
		return out, nil
	}
	return nil, errors.New("unknown group")
}

// commNew handles the communicator-creating calls.
func (st *dumpiState) commNew(rec *Record, c *trace.Call) error {
	name := rec.Name()
	parent := st.comm(rec.int("oldcomm"))
	nh := rec.int("newcomm")
	spec := trace.CommSpec{Name: name}
	switch name {
	case "MPI_Comm_dup":
		spec.Origin = trace.OriginDup
	case "MPI_Comm_split":
		spec.Origin, spec.Color, spec.Key = trace.OriginSplit, rec.int("color"), rec.int("key")
	case "MPI_Comm_create":
		g := st.group(rec.int("group"))
		spec.Origin, spec.Deps = trace.OriginExplicit, g.deps(nil)
		spec.Members = func(get func(int32) []int32) ([]int32, error) { return g.eval(get) }
	case "MPI_Cart_create", "MPI_Graph_create":
		n := int64(1)
		if name == "MPI_Cart_create" {
			for _, x := range rec.ints("dims") {
				if x <= 0 || n*x > 1<<22 {
					return st.errf(rec, "dims %v", rec.ints("dims"))
				}
				n *= x
			}
		} else {
			n = rec.int("nodes")
		}
		spec.Origin = trace.OriginExplicit
		spec.Members = func(get func(int32) []int32) ([]int32, error) {
			m := get(parent)
			if n < 0 || n > int64(len(m)) {
				return nil, fmt.Errorf("%d ranks from a communicator of %d", n, len(m))
			}
			return m[:n], nil
		}
	case "MPI_Cart_sub":
		dims, ok := st.cart[parent]
		remain := rec.ints("remain_dims")
		if !ok || len(remain) != len(dims) {
			spec.Origin, spec.Why = trace.OriginUnknown, "MPI_Cart_sub of a communicator that MPI_Cart_create did not make in the trace"
			break
		}
		me := st.rank
		spec.Origin = trace.OriginExplicit
		spec.Members = func(get func(int32) []int32) ([]int32, error) { return dumpiCartSub(get(parent), dims, remain, me) }
	}
	li := st.newComm(parent, nh, spec)
	if name == "MPI_Cart_create" && li >= 0 {
		st.cart[li] = slices.Clone(rec.ints("dims"))
	}
	if name == "MPI_Cart_sub" && li >= 0 {
		if dims, ok := st.cart[parent]; ok {
			var sub []int64
			for i, r := range rec.ints("remain_dims") {
				if r != 0 && i < len(dims) {
					sub = append(sub, dims[i])
				}
			}
			st.cart[li] = sub
		}
	}
	c.Comm = st.agreed(parent)
	if li >= 0 {
		c.NewComm = st.agreed(li)
	}
	st.out = append(st.out, *c)
	return nil
}

// dumpiCartSub returns the members of the Cart_sub communicator of world
// rank me, from its cartesian parent's members and dimensions.
func dumpiCartSub(m []int32, dims, remain []int64, me int32) ([]int32, error) {
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	if m == nil || n != int64(len(m)) {
		return nil, fmt.Errorf("a grid of %v for %d ranks", dims, len(m))
	}
	i := int64(slices.Index(m, me))
	if i < 0 {
		return nil, fmt.Errorf("rank %d is not in the grid", me)
	}
	coord := func(j int64) []int64 {
		c := make([]int64, len(dims))
		for k := len(dims) - 1; k >= 0; k-- {
			c[k] = j % dims[k]
			j /= dims[k]
		}
		return c
	}
	mine := coord(i)
	var out []int32
	for j := int64(0); j < n; j++ {
		cj := coord(j)
		same := true
		for k := range dims {
			if remain[k] == 0 && cj[k] != mine[k] {
				same = false
				break
			}
		}
		if same {
			out = append(out, m[j])
		}
	}
	return out, nil
}

// peer translates rank v of the call's communicator (of size members in
// the second pass; size < 0 in the first) into a world rank.
func (st *dumpiState) peer(rec *Record, what string, v int64, cm *trace.Comm, recv bool) (int32, error) {
	switch {
	case recv && v == -1:
		return trace.AnySource, nil
	case v < 0:
		return trace.ProcNull, nil
	case v > 1<<24:
		return 0, st.errf(rec, "%s %d", what, v)
	case cm == nil:
		return int32(v), nil
	case v >= int64(cm.Size()):
		return 0, st.errf(rec, "%s %d outside a communicator of %d ranks", what, v, cm.Size())
	}
	return cm.Members[v], nil
}

func (st *dumpiState) tagOf(rec *Record, v int64, recv bool) (int32, error) {
	switch {
	case recv && v == -1:
		return trace.AnyTag, nil
	case v < 0 || v > 1<<30:
		return 0, st.errf(rec, "tag %d", v)
	}
	return int32(v), nil
}

func (st *dumpiState) newReq(h int64, q *dumpiReq) uint64 {
	st.next++
	q.id = st.next
	st.reqs[h] = q
	return q.id
}

// p2pCall handles sends, receives, probes.
func (st *dumpiState) p2pCall(rec *Record, c *trace.Call, li int32, cm *trace.Comm) error {
	var err error
	fn := c.Func
	switch fn.Class() {
	case trace.ClassSend, trace.ClassIsend:
		if c.Peer, err = st.peer(rec, "dest", rec.int("dest"), cm, false); err != nil {
			return err
		}
		if c.Tag, err = st.tagOf(rec, rec.int("tag"), false); err != nil {
			return err
		}
		if c.Bytes, c.Type, err = st.bytes(rec, rec.int("count"), rec.int("datatype")); err != nil {
			return err
		}
		st.noteSend(li, rec.int("dest"), c.Tag, c.Start)
		if fn.Class() == trace.ClassIsend {
			c.Request = st.newReq(rec.int("request"), &dumpiReq{kind: trace.ReqSend, fn: fn, li: li, comm: c.Comm})
		}
	case trace.ClassRecv, trace.ClassIrecv, trace.ClassProbe:
		if c.Peer, err = st.peer(rec, "source", rec.int("source"), cm, true); err != nil {
			return err
		}
		if c.Tag, err = st.tagOf(rec, rec.int("tag"), true); err != nil {
			return err
		}
		if fn.Class() != trace.ClassProbe {
			if c.Bytes, c.Type, err = st.bytes(rec, rec.int("count"), rec.int("datatype")); err != nil {
				return err
			}
		}
		ss := rec.statuses("status")
		if fn.Class() != trace.ClassIrecv && len(ss) == 1 {
			st.fromStatus(ss[0], cm, &c.Peer, &c.Tag, &c.Bytes)
		}
		if fn == trace.FuncIprobe {
			c.Flag = rec.int("flag") != 0
		}
		if fn.Class() == trace.ClassProbe {
			break
		}
		ev := st.noteRecv(li, rec.int("source"), rec.int("tag"), &c.Peer, &c.Tag, c.Start, ss)
		if fn.Class() == trace.ClassIrecv {
			c.Request = st.newReq(rec.int("request"), &dumpiReq{kind: trace.ReqRecv, fn: fn, li: li, comm: c.Comm, ev: ev})
		}
	case trace.ClassSendrecv:
		if c.Peer, err = st.peer(rec, "dest", rec.int("dest"), cm, false); err != nil {
			return err
		}
		if c.Tag, err = st.tagOf(rec, rec.int("sendtag"), false); err != nil {
			return err
		}
		if c.RecvPeer, err = st.peer(rec, "source", rec.int("source"), cm, true); err != nil {
			return err
		}
		if c.RecvTag, err = st.tagOf(rec, rec.int("recvtag"), true); err != nil {
			return err
		}
		if fn == trace.FuncSendrecvReplace {
			if c.Bytes, c.Type, err = st.bytes(rec, rec.int("count"), rec.int("datatype")); err != nil {
				return err
			}
			c.RecvBytes, c.RecvType = c.Bytes, c.Type
		} else {
			if c.Bytes, c.Type, err = st.bytes(rec, rec.int("sendcount"), rec.int("sendtype")); err != nil {
				return err
			}
			if c.RecvBytes, c.RecvType, err = st.bytes(rec, rec.int("recvcount"), rec.int("recvtype")); err != nil {
				return err
			}
		}
		st.noteSend(li, rec.int("dest"), c.Tag, c.Start)
		ss := rec.statuses("status")
		if len(ss) == 1 {
			st.fromStatus(ss[0], cm, &c.RecvPeer, &c.RecvTag, &c.RecvBytes)
		}
		st.noteRecv(li, rec.int("source"), rec.int("recvtag"), &c.RecvPeer, &c.RecvTag, c.Start, ss)
	}
	st.out = append(st.out, *c)
	return nil
}

// fromStatus takes a receive's source, tag and size from its status, if
// they are plausible.
func (st *dumpiState) fromStatus(s Status, cm *trace.Comm, peer, tag *int32, bytes *int64) {
	if s.Source < 0 || s.Tag < 0 || s.Bytes < 0 || cm == nil || int(s.Source) >= cm.Size() {
		return
	}
	*peer, *tag, *bytes = cm.Members[s.Source], s.Tag, int64(s.Bytes)
}

func (st *dumpiState) noteSend(li int32, dest int64, tag int32, t int64) {
	if st.table == nil && dest >= 0 {
		st.p2p = append(st.p2p, dumpiP2P{send: true, li: li, peer: int32(dest), tag: tag, t: float64(t + st.t0)})
	}
}

// noteRecv notes a receive (first pass: its event, with the source and
// tag of its status if recorded) or gives it the source and tag it got
// (second pass). It returns the event's index in the first pass.
func (st *dumpiState) noteRecv(li int32, src, tag int64, peer, tg *int32, t int64, ss []Status) int {
	if src < -1 {
		return -1 // MPI_PROC_NULL
	}
	if st.table == nil {
		e := dumpiP2P{li: li, peer: int32(src), tag: int32(tag), t: float64(t + st.t0)}
		if src == -1 {
			e.peer = trace.AnySource
		}
		if tag == -1 {
			e.tag = trace.AnyTag
		}
		if len(ss) == 1 && ss[0].Source >= 0 && ss[0].Tag >= 0 {
			e.peer, e.tag = ss[0].Source, ss[0].Tag
		}
		st.p2p = append(st.p2p, e)
		return len(st.p2p) - 1
	}
	if st.nrecv < len(st.recvs) && (*peer == trace.AnySource || *tg == trace.AnyTag) {
		if m := st.recvs[st.nrecv]; m.Peer != trace.None {
			*peer, *tg = m.Peer, m.Tag
		}
	}
	st.nrecv++
	return -1
}

// collective fills a collective call; size is the communicator's (-1 in
// the first pass).
func (st *dumpiState) collective(rec *Record, c *trace.Call, size int32) error {
	var err error
	name := rec.Name()
	switch name {
	case "MPI_Bcast", "MPI_Reduce", "MPI_Allreduce", "MPI_Scan", "MPI_Exscan":
		if c.Bytes, c.Type, err = st.bytes(rec, rec.int("count"), rec.int("datatype")); err != nil {
			return err
		}
	case "MPI_Allgather", "MPI_Alltoall", "MPI_Gather":
		if c.Bytes, c.Type, err = st.bytes(rec, rec.int("sendcount"), rec.int("sendtype")); err != nil {
			return err
		}
	case "MPI_Scatter":
		if c.Bytes, c.Type, err = st.bytes(rec, rec.int("recvcount"), rec.int("recvtype")); err != nil {
			return err
		}
	case "MPI_Allgatherv":
		if c.Bytes, c.Type, err = st.bytes(rec, rec.int("sendcount"), rec.int("sendtype")); err != nil {
			return err
		}
		if c.Counts, err = st.counts(rec, "recvcounts", rec.int("recvtype"), size, c.Counts); err != nil {
			return err
		}
	case "MPI_Gatherv":
		if c.Bytes, c.Type, err = st.bytes(rec, rec.int("sendcount"), rec.int("sendtype")); err != nil {
			return err
		}
		if rec.int("commrank") == rec.int("root") {
			if c.Counts, err = st.counts(rec, "recvcounts", rec.int("recvtype"), size, c.Counts); err != nil {
				return err
			}
		}
	case "MPI_Scatterv":
		if c.Bytes, c.Type, err = st.bytes(rec, rec.int("recvcount"), rec.int("recvtype")); err != nil {
			return err
		}
		if rec.int("commrank") == rec.int("root") {
			if c.Counts, err = st.counts(rec, "sendcounts", rec.int("sendtype"), size, c.Counts); err != nil {
				return err
			}
		}
	case "MPI_Alltoallv":
		if c.Counts, err = st.counts(rec, "sendcounts", rec.int("sendtype"), size, c.Counts); err != nil {
			return err
		}
		if c.RecvCounts, err = st.counts(rec, "recvcounts", rec.int("recvtype"), size, c.RecvCounts); err != nil {
			return err
		}
	case "MPI_Alltoallw":
		for _, dir := range []string{"send", "recv"} {
			counts, types := rec.ints(dir+"counts"), rec.ints(dir+"types")
			if len(types) != len(counts) || size >= 0 && len(counts) != int(size) {
				return st.errf(rec, "%d %scounts and %d %stypes for a communicator of %d ranks", len(counts), dir, len(types), dir, size)
			}
			out := make([]int64, len(counts))
			for i := range counts {
				if out[i], _, err = st.bytes(rec, counts[i], types[i]); err != nil {
					return err
				}
			}
			if dir == "send" {
				c.Counts = out
			} else {
				c.RecvCounts = out
			}
		}
	case "MPI_Reduce_scatter":
		if c.Counts, err = st.counts(rec, "recvcounts", rec.int("datatype"), size, c.Counts); err != nil {
			return err
		}
		c.Type, _ = st.typeSize(rec, rec.int("datatype"))
		if me := st.meIn(c); me >= 0 && me < len(c.Counts) {
			c.Bytes = c.Counts[me]
		}
	}
	switch name {
	case "MPI_Bcast", "MPI_Reduce", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv":
		root := rec.int("root")
		if root < 0 || size >= 0 && root >= int64(size) {
			return st.errf(rec, "root %d outside a communicator of %d ranks (collectives on intercommunicators are not supported)", root, size)
		}
		c.Root = int32(root)
	}
	return nil
}

// meIn is the rank's rank in the call's communicator (second pass), or -1.
func (st *dumpiState) meIn(c *trace.Call) int {
	if st.table == nil {
		return -1
	}
	for _, cm := range st.table.Comms[st.rank] {
		if cm.ID == c.Comm {
			return cm.Rank(st.rank)
		}
	}
	return -1
}

func (st *dumpiState) counts(rec *Record, name string, dt int64, size int32, dst []int64) ([]int64, error) {
	v := rec.ints(name)
	if size >= 0 && len(v) != int(size) {
		return nil, st.errf(rec, "%d %s for a communicator of %d ranks", len(v), name, size)
	}
	t, err := st.typeSize(rec, dt)
	if err != nil {
		return nil, err
	}
	for _, x := range v {
		if x < 0 {
			return nil, st.errf(rec, "%s: count %d", name, x)
		}
		dst = append(dst, x*t.Size)
	}
	return dst, nil
}

// persistInit notes a persistent request.
func (st *dumpiState) persistInit(rec *Record, fn trace.Func) error {
	li := st.comm(rec.int("comm"))
	p := &dumpiPersist{fn: fn, li: li}
	var err error
	if fn == trace.FuncIrecv {
		v := rec.int("source")
		switch {
		case v == -1:
			p.peer = trace.AnySource
		case v < 0:
			p.peer = trace.ProcNull
		default:
			p.peer = int32(v)
		}
		if p.tag, err = st.tagOf(rec, rec.int("tag"), true); err != nil {
			return err
		}
	} else {
		if v := rec.int("dest"); v < 0 {
			p.peer = trace.ProcNull
		} else {
			p.peer = int32(v)
		}
		if p.tag, err = st.tagOf(rec, rec.int("tag"), false); err != nil {
			return err
		}
	}
	if p.bytes, p.typ, err = st.bytes(rec, rec.int("count"), rec.int("datatype")); err != nil {
		return err
	}
	st.reqs[rec.int("request")] = &dumpiReq{persist: p, kind: trace.ReqSend, li: li}
	return nil
}

// start makes the calls of MPI_Start(all).
func (st *dumpiState) start(rec *Record, start, end int64, handles []int64) error {
	for _, h := range handles {
		q := st.reqs[h]
		if q == nil || q.persist == nil {
			continue
		}
		p := q.persist
		c := trace.NewCall(p.fn, start, end)
		li := p.li
		name := p.fn.String()
		if st.table == nil {
			u := st.usage[li]
			if u == nil {
				u = map[string]int64{}
				st.usage[li] = u
			}
			u[name+" (MPI_Start)"]++
		}
		var cm *trace.Comm
		if st.table != nil {
			var why string
			cm, why = st.table.Comm(int(st.rank), li)
			if cm.Local {
				st.skipped[name+" (MPI_Start) (on a communicator whose members the trace does not tell: "+why+")"]++
				continue
			}
			c.Comm = cm.ID
		}
		var err error
		recv := p.fn == trace.FuncIrecv
		peer := int64(p.peer)
		if p.peer == trace.AnySource {
			peer = -1
		} else if p.peer == trace.ProcNull {
			peer = -2
		}
		if c.Peer, err = st.peer(rec, "peer", peer, cm, recv); err != nil {
			return err
		}
		c.Tag, c.Bytes, c.Type = p.tag, p.bytes, p.typ
		st.next++
		c.Request = st.next
		q.id, q.fn, q.comm = st.next, p.fn, c.Comm
		q.kind = trace.ReqSend
		if recv {
			q.kind = trace.ReqRecv
			tag := int64(p.tag)
			if p.tag == trace.AnyTag {
				tag = -1
			}
			q.ev = st.noteRecv(li, peer, tag, &c.Peer, &c.Tag, start, nil)
		} else {
			st.noteSend(li, peer, p.tag, start)
		}
		st.out = append(st.out, c)
	}
	return nil
}

// complete handles the Wait and Test functions.
func (st *dumpiState) complete(rec *Record, c *trace.Call) error {
	var handles []int64
	var ss []Status
	name := rec.Name()
	switch name {
	case "MPI_Wait", "MPI_Test":
		if name == "MPI_Wait" || rec.int("flag") != 0 {
			handles, ss = []int64{rec.int("request")}, rec.statuses("status")
		}
	case "MPI_Waitall", "MPI_Testall":
		if name == "MPI_Waitall" || rec.int("flag") != 0 {
			handles, ss = rec.ints("requests"), rec.statuses("statuses")
		}
	case "MPI_Waitany", "MPI_Testany":
		reqs, i := rec.ints("requests"), rec.int("index")
		if (name == "MPI_Waitany" || rec.int("flag") != 0) && i >= 0 && i < int64(len(reqs)) {
			handles, ss = []int64{reqs[i]}, rec.statuses("status")
		}
	case "MPI_Waitsome", "MPI_Testsome":
		reqs, idx := rec.ints("requests"), rec.ints("indices")
		out := rec.int("outcount")
		for j, i := range idx {
			if int64(j) < out && i >= 0 && i < int64(len(reqs)) {
				handles = append(handles, reqs[i])
			}
		}
		ss = rec.statuses("statuses")
	}
	if len(ss) != len(handles) {
		ss = nil
	}
	for k, h := range handles {
		q := st.reqs[h]
		if q == nil || q.id == 0 {
			continue // MPI_REQUEST_NULL, an inactive persistent request, or one not seen created
		}
		d := trace.Completion{Request: q.id, Kind: q.kind, Peer: trace.None, Tag: trace.None, Func: q.fn, Comm: q.comm}
		if ss != nil && q.kind == trace.ReqRecv {
			s := ss[k]
			if st.table == nil {
				if q.ev >= 0 && s.Source >= 0 && s.Tag >= 0 {
					st.p2p[q.ev].peer, st.p2p[q.ev].tag = s.Source, s.Tag
				}
			} else if cm, _ := st.table.Comm(int(st.rank), q.li); !cm.Local && s.Source >= 0 && int(s.Source) < cm.Size() && s.Tag >= 0 && s.Bytes >= 0 {
				d.Peer, d.Tag, d.Bytes = cm.Members[s.Source], s.Tag, int64(s.Bytes)
			}
		}
		c.Done = append(c.Done, d)
		if q.persist != nil {
			q.id = 0 // inactive until the next start
		} else {
			delete(st.reqs, h)
		}
	}
	if c.Func.Class() == trace.ClassTest {
		c.Flag = len(c.Done) > 0
	}
	st.out = append(st.out, *c)
	return nil
}

// ---- the stream ----

type dumpiStream struct {
	f     fs.File
	recs  *Records
	st    *dumpiState
	rec   Record
	nrec  int64 // records read
	out   []trace.Call
	ended bool
}

// fill decodes records until one gives calls.
func (s *dumpiStream) fill() error {
	for len(s.out) == 0 {
		if s.ended {
			return io.EOF
		}
		err := s.recs.Next(&s.rec)
		if err == io.EOF {
			s.ended = true
			return io.EOF
		}
		if err != nil {
			return err
		}
		s.nrec++
		if err := s.st.record(&s.rec); err != nil {
			return err
		}
		for _, c := range s.st.out {
			s.out = append(s.out, c.Clone())
		}
	}
	return nil
}

func (s *dumpiStream) Next(c *trace.Call) error {
	if err := s.fill(); err != nil {
		return err
	}
	*c = s.out[0]
	s.out = s.out[1:]
	return nil
}

func (s *dumpiStream) Comm(id int32) *trace.Comm {
	for _, c := range s.st.table.Comms[s.st.rank] {
		if c.ID == id {
			return c
		}
	}
	return nil
}

func (s *dumpiStream) Name() string { return s.st.file }

// Where is the record the call last given came from (a record gives one
// call, or none, or a few: an MPI_Waitall's completions one by one).
func (s *dumpiStream) Where() trace.Position {
	return trace.Position{File: s.st.file, Record: s.nrec, Offset: s.rec.Offset}
}

// Start is 0: times count from the first record's start.
func (s *dumpiStream) Start() int64 { return 0 }

func (s *dumpiStream) Close() error { return s.f.Close() }
