package otf2

// OTF2 traces (Score-P and other writers of the Open Trace Format 2): an
// anchor file NAME.otf2, the global definitions NAME.def and a directory
// NAME/ with the definitions and events of each location.
//
// How gopsim reads them: through `otf2-print -A ANCHOR`, the reference
// printer of the OTF2 library (Debian's otf2-tools package; `make
// otf2-deps` installs it), whose text output this file parses. gopsim has
// no native reader of the binary encoding: the printer validates the
// archive with the library that wrote it, and the text is a stable,
// documented rendering of every record. Without otf2-print, Open
// fails with ErrOTF2Print and an install hint. The whole printed trace is
// parsed into per-rank calls in memory (about 100 bytes per MPI call).
//
// Mapping, per location of an MPI process (the members of the global
// COMM_LOCATIONS group, in rank order):
//
//   - An MPI region (ENTER "MPI_X" ... LEAVE) is one call of MPI_X, from
//     the ENTER to the LEAVE timestamp (converted to ns with the clock
//     properties). Regions nested in it (PMPI calls, user code) are part
//     of it; user regions outside MPI are computation.
//   - MPI_SEND/MPI_ISEND give the peer, tag, size and request of a send,
//     MPI_RECV those of a receive; MPI_IRECV_REQUEST opens a receive
//     whose source, tag and size the MPI_IRECV event of its completion
//     gives (the converter fixes the receive then). MPI_ISEND_COMPLETE,
//     MPI_IRECV and MPI_REQUEST_CANCELLED inside a Wait* or Test* are its
//     completions; inside any other call they become a Wait of their own
//     right after it. Peers are ranks of the event's communicator, turned
//     into world ranks with its group.
//   - MPI_COLLECTIVE_BEGIN/END give the communicator, root and the bytes
//     sent and received by this rank; the size the collective package
//     needs is derived from them with Score-P's counting rules (otf2Size).
//     v-collectives carry only totals: their blocks are taken as equal.
//   - Calls that are local queries (MPI_Comm_rank, MPI_Type_size, ...)
//     count as computation, as with gopsim's own tracer. Other MPI
//     regions gopsim does not know (one-sided, I/O, ...) and nonblocking
//     collectives without collective events (the Score-P 2 of the sample
//     records none) are unsupported: Open fails and lists them,
//     unless Options.Unsupported is "calc", which counts their time
//     as computation. Events gopsim does not use (metrics, threads,
//     locations that are not MPI ranks) are listed in Warnings.

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"github.com/gopsim/gopsim/trace"
	"io"
	"math/bits"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/collective"
)

// ErrOTF2 is what errors about malformed OTF2 traces unwrap to, with
// ErrFormat.
var ErrOTF2 = errors.New("trace: malformed OTF2 trace")

// ErrOTF2Print is returned (wrapped) when otf2-print cannot be run.
var ErrOTF2Print = errors.New("trace: otf2: otf2-print, OTF2's reference printer, is not installed: install Debian's otf2-tools (apt-get install otf2-tools, or make otf2-deps) or Score-P's OTF2 and put otf2-print on PATH (or set GOPSIM_OTF2_PRINT)")

// FormatError is a malformed line of otf2-print's output. It unwraps to
// ErrFormat and ErrOTF2.
type FormatError struct {
	File string // the anchor file
	Line int    // line of otf2-print's output, from 1
	Err  error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("trace: otf2: %s: otf2-print output line %d: %v", e.File, e.Line, e.Err)
}

func (e *FormatError) Unwrap() []error { return []error{trace.ErrFormat, ErrOTF2, e.Err} }

// Options control the OTF2 importer. The zero value fails on MPI
// calls it cannot model.
type Options struct {
	// Unsupported is "" (Open fails, listing the calls it cannot model
	// with their counts) or "calc" (their time counts as computation;
	// Unsupported() lists them).
	Unsupported string
}

// Trace is an OTF2 trace read through otf2-print. It is a Source and
// an UnsupportedReporter.
type Trace struct {
	Anchor string // the anchor file
	// Warnings lists, with counts, what the reader ignored or assumed.
	Warnings []string

	ranks       []otf2Rank
	comms       []*trace.Comm // by gopsim id; nil for MPI_COMM_SELF-like ones
	self        []bool        // by gopsim id: a communicator of one rank, itself
	unsupported map[string]int64
}

type otf2Rank struct {
	calls []trace.Call
	start int64
}

// otf2PrintCmd is the printer to run: $GOPSIM_OTF2_PRINT or otf2-print.
func otf2PrintCmd() string {
	if p := os.Getenv("GOPSIM_OTF2_PRINT"); p != "" {
		return p
	}
	return "otf2-print"
}

// PrintAvailable reports whether otf2-print can be run.
func PrintAvailable() bool {
	_, err := exec.LookPath(otf2PrintCmd())
	return err == nil
}

// Open reads the OTF2 trace whose anchor file is path (NAME.otf2), or
// the only anchor file in the directory path, by running otf2-print on
// it and parsing its output.
func Open(path string, opt Options) (*Trace, error) {
	if err := trace.CheckUnsupportedPolicy(opt.Unsupported); err != nil {
		return nil, err
	}
	anchor, err := otf2Anchor(path)
	if err != nil {
		return nil, err
	}
	prog, err := exec.LookPath(otf2PrintCmd())
	if err != nil {
		return nil, fmt.Errorf("%w (%v)", ErrOTF2Print, err)
	}
	cmd := exec.Command(prog, "-A", anchor)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("trace: otf2: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("trace: otf2: running %s: %w", prog, err)
	}
	t, perr := ReadPrint(out, anchor, opt)
	if perr != nil {
		io.Copy(io.Discard, out) // let the printer finish
	}
	werr := cmd.Wait()
	if werr != nil {
		// The printer's own complaint says more than what it printed.
		msg := strings.TrimSpace(stderr.String())
		if lines := strings.Split(msg, "\n"); len(lines) > 4 {
			msg = strings.Join(lines[:4], "\n")
		}
		return nil, fmt.Errorf("%w: %s: otf2-print failed (%v)%s: %s", ErrOTF2, anchor, werr, otf2Damage(anchor), msg)
	}
	if perr != nil {
		return nil, perr
	}
	return t, nil
}

// otf2Anchor finds the anchor file named by path.
func otf2Anchor(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("trace: otf2: %w", err)
	}
	if !fi.IsDir() {
		return path, nil
	}
	m, _ := filepath.Glob(filepath.Join(path, "*.otf2"))
	switch len(m) {
	case 0:
		return "", fmt.Errorf("trace: otf2: %s: no anchor file (*.otf2)", path)
	case 1:
		return m[0], nil
	}
	return "", fmt.Errorf("trace: otf2: %s: several anchor files (%s): name one", path, strings.Join(m, ", "))
}

// Detect reports whether path is an OTF2 anchor file, or a directory
// with exactly one, judged by the name and the file's first bytes.
func Detect(path string) bool {
	anchor, err := otf2Anchor(path)
	if err != nil || !strings.HasSuffix(anchor, ".otf2") {
		return false
	}
	f, err := os.Open(anchor)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 16)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte("OTF2"))
}

// NumRanks is the number of MPI processes.
func (t *Trace) NumRanks() int { return len(t.ranks) }

// Unsupported counts, by kind, the MPI calls that could not be modelled
// (their time counted as computation).
func (t *Trace) Unsupported() map[string]int64 {
	out := make(map[string]int64, len(t.unsupported))
	for k, v := range t.unsupported {
		out[k] = v
	}
	return out
}

// OpenRank returns rank r's calls.
func (t *Trace) OpenRank(r int) (trace.RankStream, error) {
	if r < 0 || r >= len(t.ranks) {
		return nil, fmt.Errorf("trace: otf2: rank %d outside 0..%d", r, len(t.ranks)-1)
	}
	return &otf2Stream{t: t, r: r}, nil
}

type otf2Stream struct {
	t    *Trace
	r    int
	next int
	self *trace.Comm
}

func (s *otf2Stream) Next(c *trace.Call) error {
	calls := s.t.ranks[s.r].calls
	if s.next >= len(calls) {
		return io.EOF
	}
	src := &calls[s.next]
	done, counts, rcounts := c.Done[:0], c.Counts[:0], c.RecvCounts[:0]
	*c = *src
	c.Done = append(done, src.Done...)
	c.Counts = append(counts, src.Counts...)
	c.RecvCounts = append(rcounts, src.RecvCounts...)
	s.next++
	return nil
}

func (s *otf2Stream) Comm(id int32) *trace.Comm {
	if id < 0 || int(id) >= len(s.t.comms) {
		return nil
	}
	if s.t.self[id] {
		return &trace.Comm{ID: id, Members: []int32{int32(s.r)}}
	}
	return s.t.comms[id]
}

func (s *otf2Stream) Name() string { return fmt.Sprintf("%s (rank %d)", s.t.Anchor, s.r) }
func (s *otf2Stream) Start() int64 { return s.t.ranks[s.r].start }
func (s *otf2Stream) Close() error { return nil }

// ---- parsing otf2-print's output ----

// otf2Attr is one "Key: value" of a printed record.
type otf2Attr struct{ key, val string }

// splitOTF2Attrs splits the attribute text of a record line into its
// "Key: value" pairs. Values may hold ", " inside quotes or parentheses
// ("Receiver: 2 ("Master thread" <2>)") and in member lists; a new pair
// starts only at ", " followed by a key: a word starting with a letter or
// '#' (or "N Members") and ": ".
func splitOTF2Attrs(s string) []otf2Attr {
	var out []otf2Attr
	i := 0
	for i < len(s) {
		k := otf2KeyLen(s[i:])
		if k < 0 {
			// No key here: the text belongs to the previous value.
			if len(out) == 0 {
				out = append(out, otf2Attr{val: s[i:]})
				return out
			}
		}
		start := i
		if k >= 0 {
			start = min(i+k+2, len(s)) // "Key: " or "Key:" at the end
		}
		j := start
		depth, quoted := 0, false
		for ; j < len(s); j++ {
			switch ch := s[j]; {
			case quoted:
				if ch == '"' && (j+1 == len(s) || strings.IndexByte(" ,)", s[j+1]) >= 0) {
					quoted = false
				}
			case ch == '"':
				quoted = true
			case ch == '(':
				depth++
			case ch == ')':
				if depth > 0 {
					depth--
				}
			case ch == ',' && depth == 0 && strings.HasPrefix(s[j:], ", ") && otf2KeyLen(s[j+2:]) >= 0:
				goto end
			}
		}
	end:
		if k >= 0 {
			out = append(out, otf2Attr{key: s[i : i+k], val: strings.TrimSpace(s[start:j])})
		} else {
			out[len(out)-1].val += s[i:j]
		}
		i = j + 2
	}
	return out
}

// otf2KeyLen returns the length of the key s starts with ("Tag" in
// "Tag: 0"), or -1.
func otf2KeyLen(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i > 0 {
		if i >= len(s) || s[i] != ' ' {
			return -1
		}
		i++
	}
	if i >= len(s) || !(s[i] >= 'A' && s[i] <= 'Z' || s[i] >= 'a' && s[i] <= 'z' || s[i] == '#') {
		return -1
	}
	for ; i < len(s); i++ {
		ch := s[i]
		if ch == ':' {
			if i+1 < len(s) && s[i+1] == ' ' || i+1 == len(s) {
				return i
			}
			return -1
		}
		if !(ch >= 'A' && ch <= 'Z' || ch >= 'a' && ch <= 'z' || ch >= '0' && ch <= '9' || strings.IndexByte(" #._-", ch) >= 0) {
			return -1
		}
	}
	return -1
}

func otf2Get(attrs []otf2Attr, key string) (string, bool) {
	for _, a := range attrs {
		if a.key == key {
			return a.val, true
		}
	}
	return "", false
}

// otf2Uint parses the number a value starts with ("2" in `2 ("Master
// thread" <2>)`).
func otf2Uint(v string) (uint64, bool) {
	i := 0
	for i < len(v) && v[i] >= '0' && v[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, false
	}
	n, err := strconv.ParseUint(v[:i], 10, 64)
	return n, err == nil
}

// otf2Ref parses the definition id a value ends with ("0" in
// `"MPI_COMM_WORLD" <0>`).
func otf2Ref(v string) (uint64, bool) {
	v = strings.TrimRight(v, ")")
	if !strings.HasSuffix(v, ">") {
		return 0, false
	}
	i := strings.LastIndexByte(v, '<')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseUint(v[i+1:len(v)-1], 10, 64)
	return n, err == nil
}

// otf2Quoted returns the first quoted string of a value.
func otf2Quoted(v string) string {
	i := strings.IndexByte(v, '"')
	if i < 0 {
		return ""
	}
	j := strings.IndexByte(v[i+1:], '"')
	if j < 0 {
		return v[i+1:]
	}
	return v[i+1 : i+1+j]
}

type otf2Group struct {
	typ     string
	members []uint64 // world ranks (COMM_GROUP) or location ids (COMM_LOCATIONS)
}

type otf2CommDef struct {
	id     uint64
	name   string
	group  uint64
	parent bool
}

type otf2LocDef struct {
	id     uint64
	events uint64
	group  uint64
}

// otf2Loc is the state of one location while its events are read.
type otf2Loc struct {
	rank   int
	events uint64 // as the definition announces
	seen   uint64 // as printed
	cur    *otf2Call
	depth  int
	isends map[uint64]trace.Completion
	irecvs map[uint64]trace.Completion
	calls  []trace.Call
	start  int64
	inited bool
}

// otf2Call is an MPI call being read: its region and the events in it.
type otf2Call struct {
	name    string
	start   int64
	line    int
	send    *otf2P2P
	recv    *otf2P2P
	irecvRq uint64
	hasIrq  bool
	done    []trace.Completion
	coll    *otf2Coll
}

type otf2P2P struct {
	comm, peer int32 // gopsim comm id, world rank
	tag        int32
	bytes      int64
	req        uint64
	hasReq     bool
}

type otf2Coll struct {
	op         string
	comm       int32
	root       int32
	sent, recv int64
}

// otf2Parser reads otf2-print -A output.
type otf2Parser struct {
	name    string
	line    int
	section int // 0 anchor, 1 definitions, 2 events

	tps, offset uint64
	hasClock    bool
	groups      map[uint64]*otf2Group
	commDefs    []otf2CommDef
	locDefs     []otf2LocDef

	ready    bool
	locs     map[uint64]*otf2Loc
	commIDs  map[uint64]int32 // OTF2 comm id → gopsim id
	comms    []*trace.Comm
	self     []bool
	world    int
	unsup    map[string]int64
	warn     map[string]int64
	funcs    map[string]trace.Func
	coll2blk map[trace.Func]trace.Func
}

func (p *otf2Parser) errf(format string, args ...any) error {
	return &FormatError{File: p.name, Line: p.line, Err: fmt.Errorf(format, args...)}
}

// ReadPrint parses the output of `otf2-print -A ANCHOR` (the anchor
// information, the global definitions, then the events) into a trace;
// name names the trace in errors and calls. Errors give the line of the
// output at fault.
func ReadPrint(r io.Reader, name string, opt Options) (*Trace, error) {
	if err := trace.CheckUnsupportedPolicy(opt.Unsupported); err != nil {
		return nil, err
	}
	p := &otf2Parser{name: name, groups: map[uint64]*otf2Group{}, locs: map[uint64]*otf2Loc{},
		commIDs: map[uint64]int32{}, unsup: map[string]int64{}, warn: map[string]int64{}, funcs: map[string]trace.Func{}}
	for _, f := range trace.Funcs() {
		p.funcs[f.String()] = f
	}
	p.coll2blk = map[trace.Func]trace.Func{
		trace.FuncIbarrier: trace.FuncBarrier, trace.FuncIbcast: trace.FuncBcast, trace.FuncIallreduce: trace.FuncAllreduce,
		trace.FuncIalltoall: trace.FuncAlltoall, trace.FuncIreduce: trace.FuncReduce, trace.FuncIallgather: trace.FuncAllgather,
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<16), 1<<28)
	sawHeader := false
	for sc.Scan() {
		p.line++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "=== OTF2-PRINT ==="):
			sawHeader = true
			continue
		case strings.HasPrefix(line, "=== Global Definitions"):
			p.section = 1
			continue
		case strings.HasPrefix(line, "=== Events"):
			if err := p.setup(); err != nil {
				return nil, err
			}
			p.section = 2
			continue
		case strings.HasPrefix(line, "==ERROR=="), strings.HasPrefix(line, "==WARNING=="):
			return nil, p.errf("otf2-print reports: %s", line)
		case line == "" || strings.HasPrefix(line, "---") || line[0] == ' ' || line[0] == '\t':
			continue // blank, rule, or an attribute list under a record
		}
		if !sawHeader {
			return nil, p.errf("not otf2-print output (no \"=== OTF2-PRINT ===\" line first)")
		}
		var err error
		switch p.section {
		case 1:
			err = p.definition(line)
		case 2:
			err = p.event(line)
		}
		if err != nil {
			return nil, err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, p.errf("reading: %v", err)
	}
	if !sawHeader {
		return nil, p.errf("empty output: not an OTF2 trace")
	}
	if p.section < 2 {
		if err := p.setup(); err != nil {
			return nil, err
		}
	}
	t, err := p.finish()
	if err != nil {
		return nil, err
	}
	if len(t.unsupported) > 0 && opt.Unsupported == "" {
		return nil, fmt.Errorf("trace: otf2 %s: %w (use --unsupported=calc to count their time as computation): %s",
			name, trace.ErrUnsupported, trace.CountList(t.unsupported))
	}
	return t, nil
}

// fields2 splits a record line into its first field and the rest.
func fields2(line string) (string, string) {
	f := strings.Fields(line)
	if len(f) == 0 {
		return "", ""
	}
	return f[0], afterFields(line, 1)
}

// afterFields returns s after its first n blank-separated fields, without
// the blanks around.
func afterFields(s string, n int) string {
	s = strings.TrimLeft(s, " \t")
	for ; n > 0; n-- {
		i := strings.IndexAny(s, " \t")
		if i < 0 {
			return ""
		}
		s = strings.TrimLeft(s[i:], " \t")
	}
	return strings.TrimRight(s, " \t")
}

func (p *otf2Parser) definition(line string) error {
	kind, rest := fields2(line)
	if kind == "Definition" { // the column header
		return nil
	}
	var id uint64
	if kind != "CLOCK_PROPERTIES" {
		f := strings.Fields(rest)
		if len(f) == 0 {
			return nil // a definition without attributes: nothing we use
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err == nil {
			id = n
			rest = strings.TrimSpace(rest[len(f[0]):])
		}
	}
	attrs := splitOTF2Attrs(rest)
	switch kind {
	case "CLOCK_PROPERTIES":
		tps, ok1 := otf2UintAttr(attrs, "Ticks per Seconds")
		off, ok2 := otf2UintAttr(attrs, "Global Offset")
		if !ok1 || !ok2 || tps == 0 {
			return p.errf("CLOCK_PROPERTIES without ticks per second and global offset: %q", rest)
		}
		p.tps, p.offset, p.hasClock = tps, off, true
	case "GROUP":
		g := &otf2Group{}
		g.typ, _ = otf2Get(attrs, "Type")
		for _, a := range attrs {
			if !strings.HasSuffix(a.key, "Members") || g.typ != "COMM_LOCATIONS" && g.typ != "COMM_GROUP" {
				continue // other groups (of locations, regions, metrics): unused
			}
			for _, m := range splitMembers(a.val) {
				var v uint64
				var ok bool
				if g.typ == "COMM_LOCATIONS" {
					v, ok = otf2Ref(m)
				} else {
					v, ok = otf2Uint(m)
				}
				if !ok {
					return p.errf("GROUP %d: member %q", id, m)
				}
				g.members = append(g.members, v)
			}
		}
		p.groups[id] = g
	case "COMM":
		c := otf2CommDef{id: id}
		nv, _ := otf2Get(attrs, "Name")
		c.name = otf2Quoted(nv)
		gv, ok := otf2Get(attrs, "Group")
		if c.group, ok = otf2Ref(gv); !ok {
			return p.errf("COMM %d without a group: %q", id, rest)
		}
		pv, _ := otf2Get(attrs, "Parent")
		c.parent = pv != "" && pv != "UNDEFINED"
		p.commDefs = append(p.commDefs, c)
	case "LOCATION":
		l := otf2LocDef{id: id}
		l.events, _ = otf2UintAttr(attrs, "# Events")
		gv, _ := otf2Get(attrs, "Group")
		l.group, _ = otf2Ref(gv)
		p.locDefs = append(p.locDefs, l)
	}
	return nil
}

func otf2UintAttr(attrs []otf2Attr, key string) (uint64, bool) {
	v, ok := otf2Get(attrs, key)
	if !ok {
		return 0, false
	}
	return otf2Uint(v)
}

// splitMembers splits a member list at the commas between members.
func splitMembers(v string) []string {
	var out []string
	depth, quoted, start := 0, false, 0
	for i := 0; i < len(v); i++ {
		switch ch := v[i]; {
		case quoted:
			if ch == '"' {
				quoted = false
			}
		case ch == '"':
			quoted = true
		case ch == '(':
			depth++
		case ch == ')':
			depth--
		case ch == ',' && depth == 0:
			out = append(out, strings.TrimSpace(v[start:i]))
			start = i + 1
		}
	}
	if s := strings.TrimSpace(v[start:]); s != "" {
		out = append(out, s)
	}
	return out
}

// setup maps locations to ranks and communicators to gopsim ids once the
// definitions are read.
func (p *otf2Parser) setup() error {
	if p.ready {
		return nil
	}
	p.ready = true
	if !p.hasClock {
		return p.errf("no CLOCK_PROPERTIES definition before the events")
	}
	// Ranks: the COMM_LOCATIONS group lists the locations of the MPI
	// processes in rank order.
	var locs []uint64
	for _, g := range p.groups {
		if g.typ == "COMM_LOCATIONS" {
			if locs != nil {
				return p.errf("several COMM_LOCATIONS groups: more than one paradigm (only MPI is read)")
			}
			locs = g.members
		}
	}
	if locs == nil {
		return p.errf("no COMM_LOCATIONS group: not a trace of an MPI program")
	}
	known := map[uint64]otf2LocDef{}
	for _, l := range p.locDefs {
		known[l.id] = l
	}
	for r, l := range locs {
		if _, dup := p.locs[l]; dup {
			return p.errf("location %d is rank %d and %d", l, p.locs[l].rank, r)
		}
		d, ok := known[l]
		if !ok {
			return p.errf("rank %d: location %d is not defined", r, l)
		}
		p.locs[l] = &otf2Loc{rank: r, events: d.events, isends: map[uint64]trace.Completion{}, irecvs: map[uint64]trace.Completion{}}
	}
	p.world = len(locs)
	// Communicators: the world gets id 0, the others 1, 2, ... in
	// definition order.
	worldIdx := -1
	for i, c := range p.commDefs {
		if g := p.groups[c.group]; g != nil && g.typ == "COMM_GROUP" && !c.parent && len(g.members) == p.world {
			if worldIdx < 0 || c.name == "MPI_COMM_WORLD" {
				worldIdx = i
			}
		}
	}
	next := int32(1)
	for i, c := range p.commDefs {
		id := next
		if i == worldIdx {
			id = 0
		} else {
			next++
		}
		p.commIDs[c.id] = id
	}
	p.comms = make([]*trace.Comm, next)
	p.self = make([]bool, next)
	for _, c := range p.commDefs {
		id := p.commIDs[c.id]
		g := p.groups[c.group]
		switch {
		case g == nil:
			return p.errf("communicator %d: group %d is not defined", c.id, c.group)
		case g.typ == "COMM_SELF":
			p.self[id] = true
		case g.typ == "COMM_GROUP":
			cm := &trace.Comm{ID: id}
			for _, m := range g.members {
				if m >= uint64(p.world) {
					return p.errf("communicator %d: member %d is not a rank (%d ranks)", c.id, m, p.world)
				}
				cm.Members = append(cm.Members, int32(m))
			}
			p.comms[id] = cm
		default:
			return p.errf("communicator %d: group %d of type %s", c.id, c.group, g.typ)
		}
	}
	return nil
}

// ns converts a timestamp to ns since the clock's global offset.
func (p *otf2Parser) ns(t uint64) int64 {
	d := t - min(t, p.offset)
	hi, lo := bits.Mul64(d, 1e9)
	if hi >= p.tps {
		return 1 << 62
	}
	q, _ := bits.Div64(hi, lo, p.tps)
	return int64(min(q, 1<<62))
}

// commOf resolves a "Communicator:" value.
func (p *otf2Parser) commOf(v string) (int32, error) {
	ref, ok := otf2Ref(v)
	if !ok {
		return 0, p.errf("communicator %q", v)
	}
	id, ok := p.commIDs[ref]
	if !ok {
		return 0, p.errf("communicator %d is not defined", ref)
	}
	return id, nil
}

// rankOf turns a rank of communicator comm (the number a "Receiver:",
// "Sender:" or "Root:" value starts with) into a world rank (world) or
// keeps it (comm rank).
func (p *otf2Parser) rankOf(loc *otf2Loc, comm int32, v string, world bool) (int32, error) {
	n, ok := otf2Uint(v)
	if !ok {
		return 0, p.errf("rank %q", v)
	}
	size := p.world
	var members []int32
	if p.self[comm] {
		size, members = 1, []int32{int32(loc.rank)}
	} else if c := p.comms[comm]; c != nil {
		size, members = len(c.Members), c.Members
	}
	if n >= uint64(size) {
		return 0, p.errf("rank %d outside communicator of %d ranks", n, size)
	}
	if !world || members == nil {
		return int32(n), nil
	}
	return members[n], nil
}

func (p *otf2Parser) p2p(loc *otf2Loc, attrs []otf2Attr, peerKey string) (*otf2P2P, error) {
	var x otf2P2P
	cv, _ := otf2Get(attrs, "Communicator")
	var err error
	if x.comm, err = p.commOf(cv); err != nil {
		return nil, err
	}
	pv, _ := otf2Get(attrs, peerKey)
	if x.peer, err = p.rankOf(loc, x.comm, pv, true); err != nil {
		return nil, err
	}
	tag, ok1 := otf2UintAttr(attrs, "Tag")
	length, ok2 := otf2UintAttr(attrs, "Length")
	if !ok1 || !ok2 || tag > 1<<31-1 || length > 1<<62 {
		return nil, p.errf("tag or length missing or out of range")
	}
	x.tag, x.bytes = int32(tag), int64(length)
	x.req, x.hasReq = otf2UintAttr(attrs, "Request")
	return &x, nil
}

func (p *otf2Parser) event(line string) error {
	kind, rest := fields2(line)
	if kind == "Event" { // the column header
		return nil
	}
	loc, t, attrs, err := p.eventHead(kind, rest)
	if err != nil || loc == nil {
		return err
	}
	switch kind {
	case "ENTER":
		p.enter(loc, attrs, t)
	case "LEAVE":
		return p.leave(loc, attrs, t)
	case "MPI_SEND", "MPI_ISEND":
		return p.send(kind, loc, attrs)
	case "MPI_RECV":
		return p.recv(loc, attrs)
	case "MPI_IRECV_REQUEST":
		return p.irecvRequest(loc, attrs)
	case "MPI_ISEND_COMPLETE", "MPI_IRECV", "MPI_REQUEST_CANCELLED":
		return p.completion(kind, loc, attrs, t)
	case "MPI_COLLECTIVE_BEGIN":
	case "MPI_COLLECTIVE_END":
		return p.collectiveEnd(loc, attrs)
	case "MPI_REQUEST_TEST", "MEASUREMENT_ON_OFF", "BUFFER_FLUSH":
		// nothing to model: polls and tracer pauses are computation
	default:
		p.warn["OTF2 event "+kind+": ignored"]++
	}
	return nil
}

// eventHead parses an event's location and timestamp and splits its
// attributes; loc is nil for an event of a location that is not an MPI
// rank (ignored, with a warning).
func (p *otf2Parser) eventHead(kind, rest string) (loc *otf2Loc, t int64, attrs []otf2Attr, err error) {
	f := strings.Fields(rest)
	if len(f) < 2 {
		return nil, 0, nil, p.errf("event %s without location and timestamp", kind)
	}
	lid, err1 := strconv.ParseUint(f[0], 10, 64)
	ts, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return nil, 0, nil, p.errf("event %s: location %q, timestamp %q", kind, f[0], f[1])
	}
	rest = afterFields(rest, 2)
	loc = p.locs[lid]
	if loc == nil {
		p.warn["OTF2 events of locations that are not MPI ranks (threads, devices): ignored"]++
		return nil, 0, nil, nil
	}
	loc.seen++
	return loc, p.ns(ts), splitOTF2Attrs(rest), nil
}

// enter opens an MPI call at an ENTER of an MPI region outside any call;
// regions inside a call only nest.
func (p *otf2Parser) enter(loc *otf2Loc, attrs []otf2Attr, t int64) {
	rv, _ := otf2Get(attrs, "Region")
	name := otf2Quoted(rv)
	if loc.cur != nil {
		loc.depth++
		return
	}
	if strings.HasPrefix(name, "MPI_") {
		loc.cur = &otf2Call{name: name, start: t, line: p.line}
	}
}

// leave ends the open call at the LEAVE of its region.
func (p *otf2Parser) leave(loc *otf2Loc, attrs []otf2Attr, t int64) error {
	if loc.cur == nil {
		return nil
	}
	if loc.depth > 0 {
		loc.depth--
		return nil
	}
	rv, _ := otf2Get(attrs, "Region")
	if name := otf2Quoted(rv); name != loc.cur.name {
		return p.errf("LEAVE %q inside %q (regions not nested)", name, loc.cur.name)
	}
	c := loc.cur
	loc.cur = nil
	return p.endCall(loc, c, t)
}

// send records an MPI_SEND or MPI_ISEND event in the open call.
func (p *otf2Parser) send(kind string, loc *otf2Loc, attrs []otf2Attr) error {
	x, err := p.p2p(loc, attrs, "Receiver")
	if err != nil {
		return err
	}
	if kind == "MPI_ISEND" && !x.hasReq {
		return p.errf("MPI_ISEND without a request")
	}
	if c := loc.cur; c != nil && c.send == nil {
		c.send = x
	} else {
		p.warn["OTF2 "+kind+" outside an MPI call or a second one in a call: ignored"]++
	}
	return nil
}

// recv records an MPI_RECV event in the open call.
func (p *otf2Parser) recv(loc *otf2Loc, attrs []otf2Attr) error {
	x, err := p.p2p(loc, attrs, "Sender")
	if err != nil {
		return err
	}
	if c := loc.cur; c != nil && c.recv == nil {
		c.recv = x
	} else {
		p.warn["OTF2 MPI_RECV outside an MPI call or a second one in a call: ignored"]++
	}
	return nil
}

// irecvRequest records the request of an MPI_Irecv in the open call.
func (p *otf2Parser) irecvRequest(loc *otf2Loc, attrs []otf2Attr) error {
	rq, ok := otf2UintAttr(attrs, "Request")
	if !ok {
		return p.errf("MPI_IRECV_REQUEST without a request")
	}
	if c := loc.cur; c != nil && !c.hasIrq {
		c.irecvRq, c.hasIrq = rq, true
	} else {
		p.warn["OTF2 MPI_IRECV_REQUEST outside an MPI call or a second one in a call: ignored"]++
	}
	return nil
}

// completion records the completion of a request (MPI_ISEND_COMPLETE,
// MPI_IRECV, MPI_REQUEST_CANCELLED) in the open call, or outside a call
// as a wait of no duration at t.
func (p *otf2Parser) completion(kind string, loc *otf2Loc, attrs []otf2Attr, t int64) error {
	var d trace.Completion
	var err error
	if kind == "MPI_IRECV" {
		d, err = p.irecvCompletion(loc, attrs)
	} else {
		d, err = p.requestCompletion(kind, loc, attrs)
	}
	if err != nil {
		return err
	}
	if loc.cur != nil {
		loc.cur.done = append(loc.cur.done, d)
	} else {
		c := trace.NewCall(trace.FuncWait, t, t)
		c.Done = []trace.Completion{d}
		loc.calls = append(loc.calls, c)
	}
	return nil
}

// irecvCompletion is the completion an MPI_IRECV event gives: the
// message received, for the Irecv's request if the location posted it.
func (p *otf2Parser) irecvCompletion(loc *otf2Loc, attrs []otf2Attr) (trace.Completion, error) {
	x, err := p.p2p(loc, attrs, "Sender")
	if err != nil {
		return trace.Completion{}, err
	}
	if !x.hasReq {
		return trace.Completion{}, p.errf("MPI_IRECV without a request")
	}
	d := trace.Completion{Request: x.req, Kind: trace.ReqRecv, Peer: x.peer, Tag: x.tag, Bytes: x.bytes, Func: trace.FuncIrecv, Comm: x.comm}
	if _, ok := loc.irecvs[x.req]; ok {
		delete(loc.irecvs, x.req)
	} else {
		d.Request, d.Kind = 0, trace.ReqUnknown
	}
	return d, nil
}

// requestCompletion is the completion an MPI_ISEND_COMPLETE or
// MPI_REQUEST_CANCELLED event gives: that of the open request it names,
// or an unknown one.
func (p *otf2Parser) requestCompletion(kind string, loc *otf2Loc, attrs []otf2Attr) (trace.Completion, error) {
	rq, ok := otf2UintAttr(attrs, "Request")
	if !ok {
		return trace.Completion{}, p.errf("%s without a request", kind)
	}
	var d trace.Completion
	if s, ok := loc.isends[rq]; ok {
		d = s
		delete(loc.isends, rq)
	} else if s, ok := loc.irecvs[rq]; ok {
		d = s
		delete(loc.irecvs, rq)
	} else {
		d = trace.Completion{Request: 0, Kind: trace.ReqUnknown, Peer: trace.None, Tag: trace.None, Comm: trace.None}
	}
	d.Cancelled = kind == "MPI_REQUEST_CANCELLED"
	return d, nil
}

// collectiveEnd records an MPI_COLLECTIVE_END event (communicator, root,
// bytes sent and received) in the open call.
func (p *otf2Parser) collectiveEnd(loc *otf2Loc, attrs []otf2Attr) error {
	var x otf2Coll
	x.op, _ = otf2Get(attrs, "Operation")
	cv, _ := otf2Get(attrs, "Communicator")
	var err error
	if x.comm, err = p.commOf(cv); err != nil {
		return err
	}
	x.root = trace.None
	if rv, _ := otf2Get(attrs, "Root"); rv != "" && rv[0] >= '0' && rv[0] <= '9' {
		if x.root, err = p.rankOf(loc, x.comm, rv, false); err != nil {
			return err
		}
	}
	s, ok1 := otf2UintAttr(attrs, "Sent")
	r, ok2 := otf2UintAttr(attrs, "Received")
	if !ok1 || !ok2 || s > 1<<62 || r > 1<<62 {
		return p.errf("MPI_COLLECTIVE_END without sent and received bytes")
	}
	x.sent, x.recv = int64(s), int64(r)
	if c := loc.cur; c != nil && c.coll == nil {
		c.coll = &x
	} else {
		p.warn["OTF2 MPI_COLLECTIVE_END outside an MPI call or a second one in a call: ignored"]++
	}
	return nil
}

// otf2Local lists MPI functions whose time counts as computation, as
// gopsim's tracer leaves them unwrapped: local queries and bookkeeping.
var otf2Local = map[string]bool{
	"MPI_Initialized": true, "MPI_Finalized": true, "MPI_Comm_rank": true, "MPI_Comm_size": true,
	"MPI_Wtime": true, "MPI_Wtick": true, "MPI_Get_count": true, "MPI_Get_elements": true,
	"MPI_Get_processor_name": true, "MPI_Get_version": true, "MPI_Get_library_version": true,
	"MPI_Query_thread": true, "MPI_Is_thread_main": true, "MPI_Comm_group": true,
	"MPI_Comm_compare": true, "MPI_Comm_test_inter": true, "MPI_Comm_remote_size": true,
	"MPI_Comm_get_name": true, "MPI_Comm_set_name": true, "MPI_Comm_get_attr": true,
	"MPI_Comm_set_attr": true, "MPI_Comm_delete_attr": true, "MPI_Comm_create_keyval": true,
	"MPI_Comm_free_keyval": true, "MPI_Comm_set_errhandler": true, "MPI_Comm_get_errhandler": true,
	"MPI_Errhandler_free": true, "MPI_Error_string": true, "MPI_Error_class": true,
	"MPI_Op_create": true, "MPI_Op_free": true, "MPI_Attr_get": true, "MPI_Attr_put": true,
	"MPI_Get_address": true, "MPI_Address": true, "MPI_Pcontrol": true, "MPI_Buffer_attach": true,
	"MPI_Buffer_detach": true, "MPI_Info_create": true, "MPI_Info_free": true, "MPI_Info_set": true,
	"MPI_Info_get": true, "MPI_Cart_coords": true, "MPI_Cart_rank": true, "MPI_Cart_shift": true,
	"MPI_Cart_get": true, "MPI_Cartdim_get": true, "MPI_Dims_create": true, "MPI_Topo_test": true,
	"MPI_Group_incl": true, "MPI_Group_excl": true, "MPI_Group_free": true, "MPI_Group_size": true,
	"MPI_Group_rank": true, "MPI_Group_translate_ranks": true, "MPI_Group_union": true,
	"MPI_Group_intersection": true, "MPI_Group_difference": true, "MPI_Group_range_incl": true,
	"MPI_Group_compare": true, "MPI_Status_set_elements": true, "MPI_Request_get_status": true,
	"MPI_Alloc_mem": true, "MPI_Free_mem": true, "MPI_Comm_c2f": true, "MPI_Comm_f2c": true,
}

// otf2IsTypeCall reports whether name is a datatype constructor or
// query: computation too.
func otf2IsTypeCall(name string) bool {
	return strings.HasPrefix(name, "MPI_Type_")
}

// endCall turns a finished MPI region into a call.
func (p *otf2Parser) endCall(loc *otf2Loc, c *otf2Call, end int64) error {
	f, known := p.funcs[c.name]
	if !known {
		if otf2Local[c.name] || otf2IsTypeCall(c.name) {
			return nil // computation
		}
		p.unsup[c.name+" (not modelled: its time counted as computation)"]++
		return p.flushDone(loc, c, end)
	}
	call := trace.NewCall(f, c.start, end)
	switch f.Class() {
	case trace.ClassInit:
		loc.start, loc.inited = end, true
	case trace.ClassSend, trace.ClassIsend:
		call.Peer = trace.ProcNull
		if x := c.send; x != nil {
			call.Comm, call.Peer, call.Tag, call.Bytes = x.comm, x.peer, x.tag, x.bytes
			call.Type = trace.Datatype{Size: 1, Extent: 1}
			if f.Class() == trace.ClassIsend {
				call.Request = x.req
				loc.isends[x.req] = trace.Completion{Request: x.req, Kind: trace.ReqSend, Peer: x.peer, Tag: x.tag, Bytes: x.bytes, Func: f, Comm: x.comm}
			}
		}
	case trace.ClassRecv:
		call.Peer = trace.ProcNull
		if x := c.recv; x != nil {
			call.Comm, call.Peer, call.Tag, call.Bytes = x.comm, x.peer, x.tag, x.bytes
			call.Type = trace.Datatype{Size: 1, Extent: 1}
		}
	case trace.ClassIrecv:
		call.Peer = trace.ProcNull
		if c.hasIrq {
			// What was posted is not recorded: the completion says.
			call.Comm, call.Peer, call.Tag, call.Request = 0, trace.AnySource, trace.AnyTag, c.irecvRq
			call.Type = trace.Datatype{Size: 1, Extent: 1}
			loc.irecvs[c.irecvRq] = trace.Completion{Request: c.irecvRq, Kind: trace.ReqRecv, Peer: trace.None, Tag: trace.None, Func: f, Comm: 0}
		}
	case trace.ClassSendrecv:
		call.Peer, call.RecvPeer = trace.ProcNull, trace.ProcNull
		if x := c.send; x != nil {
			call.Comm, call.Peer, call.Tag, call.Bytes = x.comm, x.peer, x.tag, x.bytes
		}
		if x := c.recv; x != nil {
			call.Comm, call.RecvPeer, call.RecvTag, call.RecvBytes = x.comm, x.peer, x.tag, x.bytes
		}
	case trace.ClassWait, trace.ClassTest:
		call.Done = c.done
		call.Flag = f.Class() == trace.ClassTest && len(c.done) > 0
		c.done = nil
	case trace.ClassCollective, trace.ClassICollective:
		if c.coll == nil {
			p.unsup[c.name+" without collective events (not modelled: its time counted as computation)"]++
			return p.flushDone(loc, c, end)
		}
		if blk, ok := p.coll2blk[f]; ok {
			// Score-P records a nonblocking collective's data in its
			// region, without a request: modelled as the blocking call.
			p.warn[c.name+" with collective events but no request: modelled as "+blk.String()]++
			f = blk
			call.Func = f
		}
		if err := p.collective(loc, &call, c); err != nil {
			return err
		}
	}
	loc.calls = append(loc.calls, call)
	return p.flushDone(loc, c, end)
}

// flushDone turns completions seen in a call that completes nothing
// into a Wait right after it.
func (p *otf2Parser) flushDone(loc *otf2Loc, c *otf2Call, end int64) error {
	if len(c.done) > 0 {
		w := trace.NewCall(trace.FuncWait, end, end)
		w.Done = c.done
		loc.calls = append(loc.calls, w)
	}
	return nil
}

// otf2Ceil is ⌈a/b⌉ for b > 0.
func otf2Ceil(a, b int64) int64 {
	if b <= 0 {
		return a
	}
	return (a + b - 1) / b
}

// collective fills a collective call from its MPI_COLLECTIVE_END, with
// Score-P's counting rules read backwards (N the communicator's size; the
// in-place variants count one block less, which these rules do not see):
//
//	Barrier                      nothing
//	Bcast                        root sends N·b, everyone receives b: b = received (root: sent/N)
//	Gather, Reduce               everyone sends b, the root receives N·b: b = sent
//	Scatter                      the root sends N·b, everyone receives b: b = received
//	Allgather, Alltoall,
//	Allreduce,
//	Reduce_scatter_block         sent = N·b: b = sent/N
//	Scan                         sent + received = (N+1)·b
//	Exscan                       sent + received = (N-1)·b
//	Gatherv, Scatterv,
//	Allgatherv, Alltoallv,
//	Reduce_scatter               totals only: N equal blocks
func (p *otf2Parser) collective(loc *otf2Loc, call *trace.Call, c *otf2Call) error {
	x := c.coll
	call.Comm, call.Root = x.comm, trace.None
	call.Type = trace.Datatype{Size: 1, Extent: 1}
	n := int64(p.world)
	me := int64(-1)
	if p.self[x.comm] {
		n, me = 1, 0
	} else if cm := p.comms[x.comm]; cm != nil {
		n, me = int64(len(cm.Members)), int64(cm.Rank(int32(loc.rank)))
	}
	op, _ := trace.CollectiveOp(call.Func)
	if op.Rooted() {
		if x.root < 0 {
			return p.errf("%s (line %d) without a root", c.name, c.line)
		}
		call.Root = x.root
	}
	isRoot := me == int64(call.Root)
	equal := func(total int64) []int64 {
		out := make([]int64, n)
		for i := range out {
			out[i] = otf2Ceil(total, n)
		}
		return out
	}
	var b int64
	switch op {
	case collective.Barrier:
	case collective.Bcast:
		b = x.recv
		if b == 0 && isRoot {
			b = otf2Ceil(x.sent, n)
		}
	case collective.Gather, collective.Reduce:
		b = x.sent
		if b == 0 && isRoot {
			b = otf2Ceil(x.recv, n-1)
		}
	case collective.Scatter:
		b = x.recv
		if b == 0 && isRoot {
			b = otf2Ceil(x.sent, n-1)
		}
	case collective.Allgather, collective.Alltoall, collective.Allreduce:
		b = otf2Ceil(x.sent, n)
	case collective.ReduceScatter:
		if call.Func == trace.FuncReduceScatter {
			call.Counts = equal(x.sent)
		} else {
			b = otf2Ceil(x.sent, n)
		}
	case collective.Scan:
		b = otf2Ceil(x.sent+x.recv, n+1)
	case collective.Exscan:
		b = otf2Ceil(x.sent+x.recv, n-1)
	case collective.Gatherv:
		b = x.sent
		if isRoot {
			call.Counts = equal(x.recv)
		}
	case collective.Scatterv:
		b = x.recv
		if isRoot {
			call.Counts = equal(x.sent)
		}
	case collective.Allgatherv:
		call.Counts = equal(x.recv)
	case collective.Alltoallv:
		call.Counts, call.RecvCounts = equal(x.sent), equal(x.recv)
	default:
		p.unsup[c.name+" (no collective operation known for it)"]++
	}
	call.Bytes = b
	return nil
}

// finish checks that every rank's events were all printed and builds the
// trace.
func (p *otf2Parser) finish() (*Trace, error) {
	t := &Trace{Anchor: p.name, comms: p.comms, self: p.self, unsupported: p.unsup, ranks: make([]otf2Rank, p.world),
		Warnings: trace.CountLines(p.warn)}
	lids := make([]uint64, 0, len(p.locs))
	for lid := range p.locs {
		lids = append(lids, lid)
	}
	sort.Slice(lids, func(i, j int) bool { return lids[i] < lids[j] })
	for _, lid := range lids {
		loc := p.locs[lid]
		if loc.cur != nil {
			p.line = loc.cur.line
			return nil, p.errf("rank %d: %s entered and never left (trace cut short?)", loc.rank, loc.cur.name)
		}
		if loc.events > 0 && loc.seen != loc.events {
			return nil, p.errf("rank %d (location %d): otf2-print printed %d of the %d events its definition announces (a damaged or cut event file?)",
				loc.rank, lid, loc.seen, loc.events)
		}
		t.ranks[loc.rank] = otf2Rank{calls: loc.calls, start: loc.start}
		if !loc.inited && len(loc.calls) > 0 {
			t.ranks[loc.rank].start = loc.calls[0].Start
		}
	}
	return t, nil
}

// otf2Damage names the location files of the archive (NAME/N.evt and
// NAME/N.def beside NAME.otf2) that are empty, or missing while their
// partner is there, for the error of a failed otf2-print, whose own
// message does not say which location it could not read.
func otf2Damage(anchor string) string {
	dir := strings.TrimSuffix(anchor, filepath.Ext(anchor))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	have := map[string]bool{}
	for _, e := range ents {
		have[e.Name()] = true
	}
	var bad []string
	for _, e := range ents {
		name := e.Name()
		ext := filepath.Ext(name)
		if ext != ".evt" && ext != ".def" {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Size() == 0 {
			bad = append(bad, filepath.Join(dir, name)+" is empty")
		}
		partner := strings.TrimSuffix(name, ext) + map[string]string{".evt": ".def", ".def": ".evt"}[ext]
		if !have[partner] {
			bad = append(bad, filepath.Join(dir, partner)+" is missing")
		}
	}
	if len(bad) == 0 {
		return ""
	}
	sort.Strings(bad)
	if len(bad) > 5 {
		bad = append(bad[:5], "...")
	}
	return " (" + strings.Join(bad, "; ") + ")"
}
