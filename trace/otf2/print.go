package otf2

// The text of otf2-print, OTF2's reference printer (`otf2-print -A
// ANCHOR`), read into the decoder's definitions and events: the same
// converter (archive_convert.go) turns them into calls, so that the
// schedule of an archive read natively and through the printer can be
// compared, event for event (the tests do, on every sample). The printer
// prints the global definitions, then every location's events merged by
// time, one record a line: "KIND  LOCATION  TIMESTAMP  Key: value, ...",
// with references as `"name" <id>`.

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/trace"
)

// ErrOTF2 is what errors about malformed otf2-print output unwrap to,
// with trace.ErrFormat.
var ErrOTF2 = errors.New("trace: malformed OTF2 trace")

// FormatError is a malformed line of otf2-print's output. It unwraps to
// trace.ErrFormat and ErrOTF2.
type FormatError struct {
	File string // the anchor file
	Line int    // line of otf2-print's output, from 1
	Err  error
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("trace: otf2: %s: otf2-print output line %d: %v", e.File, e.Line, e.Err)
}

func (e *FormatError) Unwrap() []error { return []error{trace.ErrFormat, ErrOTF2, e.Err} }

// otf2PrintCmd is the printer to run: $GOPSIM_OTF2_PRINT or otf2-print.
func otf2PrintCmd() string {
	if p := os.Getenv("GOPSIM_OTF2_PRINT"); p != "" {
		return p
	}
	return "otf2-print"
}

// PrintAvailable reports whether otf2-print can be run (gopsim does not
// need it: the tests compare the native reader with it).
func PrintAvailable() bool {
	_, err := exec.LookPath(otf2PrintCmd())
	return err == nil
}

// ReadPrint parses the output of `otf2-print -A ANCHOR` (the anchor
// information, the global definitions, then the events) into a trace, in
// memory; name names the trace in errors and calls. Errors give the line
// of the output at fault. Open reads archives natively; ReadPrint reads
// what OTF2's own library prints of one, the tests' oracle.
func ReadPrint(r io.Reader, name string, opt Options) (*Trace, error) {
	if err := trace.CheckUnsupportedPolicy(opt.Unsupported); err != nil {
		return nil, err
	}
	p := &printParser{name: name, locs: map[uint64]*locConv{}, seen: map[uint64]uint64{}, n: newCounts(),
		defs: &Definitions{Strings: map[uint32]string{}, Regions: map[uint32]Region{}, Groups: map[uint32]Group{}}}
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
		return nil, trace.UnsupportedCalls("trace: otf2 "+name, t.unsupported)
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

// printParser reads otf2-print -A output into the decoder's definitions
// and events, which the converter shared with the native reader turns
// into calls.
type printParser struct {
	name    string
	line    int
	section int // 0 anchor, 1 definitions, 2 events
	defs    *Definitions
	m       *model
	locs    map[uint64]*locConv
	seen    map[uint64]uint64 // events printed per location
	n       *counts
}

func (p *printParser) errf(format string, args ...any) error {
	return &FormatError{File: p.name, Line: p.line, Err: fmt.Errorf(format, args...)}
}

// printGroupTypes and printKinds are otf2-print's names.
var printGroupTypes = map[string]uint8{"LOCATIONS": GroupLocations, "REGIONS": GroupRegions, "METRIC": GroupMetric,
	"COMM_LOCATIONS": GroupCommLocations, "COMM_GROUP": GroupCommGroup, "COMM_SELF": GroupCommSelf}

var printKinds = func() map[string]Kind {
	m := map[string]Kind{}
	for k := Kind(1); k < numKinds; k++ {
		m[k.String()] = k
	}
	return m
}()

var printRecords = func() map[string]uint8 {
	m := map[string]uint8{}
	for id, name := range recordNames {
		m[name] = id
	}
	return m
}()

var printOps = func() map[string]CollectiveOp {
	m := map[string]CollectiveOp{}
	for i, name := range opNames {
		m[name] = CollectiveOp(i)
	}
	return m
}()

// ref32 is a printed reference ("MPI_COMM_WORLD" <0>) as a 32-bit id.
func ref32(v string) (uint32, bool) {
	n, ok := otf2Ref(v)
	return uint32(n), ok && n <= Undefined
}

func (p *printParser) definition(line string) error {
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
	d := p.defs
	// name records a printed "name" <id> reference's string.
	name := func(key string) uint32 {
		v, _ := otf2Get(attrs, key)
		ref, ok := ref32(v)
		if !ok {
			return Undefined
		}
		d.Strings[ref] = otf2Quoted(v)
		return ref
	}
	switch kind {
	case "CLOCK_PROPERTIES":
		tps, ok1 := otf2UintAttr(attrs, "Ticks per Seconds")
		off, ok2 := otf2UintAttr(attrs, "Global Offset")
		if !ok1 || !ok2 || tps == 0 {
			return p.errf("CLOCK_PROPERTIES without ticks per second and global offset: %q", rest)
		}
		d.Clock, d.HasClock = Clock{TicksPerSecond: tps, GlobalOffset: off}, true
	case "REGION":
		d.Regions[uint32(id)] = Region{Name: name("Name"), Canonical: Undefined}
	case "GROUP":
		return p.group(uint32(id), attrs)
	case "COMM":
		c := Comm{ID: uint32(id), Name: name("Name"), Parent: Undefined}
		gv, _ := otf2Get(attrs, "Group")
		var ok bool
		if c.Group, ok = ref32(gv); !ok {
			return p.errf("COMM %d without a group: %q", id, rest)
		}
		if pv, _ := otf2Get(attrs, "Parent"); pv != "" && pv != "UNDEFINED" {
			c.Parent, _ = ref32(pv)
		}
		d.Comms = append(d.Comms, c)
	case "LOCATION":
		l := Location{ID: id}
		l.Events, _ = otf2UintAttr(attrs, "# Events")
		gv, _ := otf2Get(attrs, "Group")
		l.Group, _ = ref32(gv)
		d.Locations = append(d.Locations, l)
	}
	return nil
}

func (p *printParser) group(id uint32, attrs []otf2Attr) error {
	tv, _ := otf2Get(attrs, "Type")
	g := Group{Type: printGroupTypes[tv]}
	if pv, _ := otf2Get(attrs, "Paradigm"); pv != "" {
		if n, ok := otf2Ref(pv); ok {
			g.Paradigm = uint8(n)
		} else if pv == "MPI" {
			g.Paradigm = ParadigmMPI
		}
	}
	for _, a := range attrs {
		if !strings.HasSuffix(a.key, "Members") || g.Type != GroupCommLocations && g.Type != GroupCommGroup {
			continue // other groups (of locations, regions, metrics): unused
		}
		for _, m := range splitMembers(a.val) {
			var v uint64
			var ok bool
			if g.Type == GroupCommLocations {
				v, ok = otf2Ref(m)
			} else {
				v, ok = otf2Uint(m)
			}
			if !ok {
				return p.errf("GROUP %d: member %q", id, m)
			}
			g.Members = append(g.Members, v)
		}
	}
	p.defs.Groups[id] = g
	return nil
}

// setup maps locations to ranks and communicators to gopsim ids once the
// definitions are read.
func (p *printParser) setup() error {
	if p.m != nil {
		return nil
	}
	if !p.defs.HasClock {
		return p.errf("no CLOCK_PROPERTIES definition before the events")
	}
	m, err := newModel(p.defs)
	if err != nil {
		return p.errf("%v", err)
	}
	p.m = m
	for r, l := range m.locs {
		p.locs[l] = newLocConv(m, p.n, r, func(pos int64, msg string) error {
			return &FormatError{File: p.name, Line: int(pos), Err: errors.New(msg)}
		})
	}
	return nil
}

// event turns a printed event into the decoder's Event and converts it.
func (p *printParser) event(line string) error {
	kind, rest := fields2(line)
	if kind == "Event" { // the column header
		return nil
	}
	f := strings.Fields(rest)
	if len(f) < 2 {
		return p.errf("event %s without location and timestamp", kind)
	}
	lid, err1 := strconv.ParseUint(f[0], 10, 64)
	ts, err2 := strconv.ParseUint(f[1], 10, 64)
	if err1 != nil || err2 != nil {
		return p.errf("event %s: location %q, timestamp %q", kind, f[0], f[1])
	}
	loc := p.locs[lid]
	if loc == nil {
		p.n.warn["OTF2 events of locations that are not MPI ranks (threads, devices): ignored"]++
		return nil
	}
	p.seen[lid]++
	ev := Event{Kind: printKinds[kind], Record: printRecords[kind], Time: ts, Root: Undefined}
	if ev.Kind == Other {
		p.n.warn["OTF2 event "+kind+": ignored"]++
		return nil
	}
	if err := p.attributes(&ev, kind, splitOTF2Attrs(afterFields(rest, 2))); err != nil {
		return err
	}
	loc.pos = int64(p.line)
	return loc.event(&ev)
}

// attributes fills the fields of ev its kind has from a printed event.
func (p *printParser) attributes(ev *Event, kind string, attrs []otf2Attr) error {
	uintAttr := func(key string) uint64 {
		n, _ := otf2UintAttr(attrs, key)
		return n
	}
	need := func(keys ...string) error {
		for _, k := range keys {
			if _, ok := otf2UintAttr(attrs, k); !ok {
				return p.errf("%s without %s", kind, strings.ToLower(k))
			}
		}
		return nil
	}
	ref := func(key string) (uint32, error) {
		v, _ := otf2Get(attrs, key)
		n, ok := ref32(v)
		if !ok {
			return 0, p.errf("%s: %s %q", kind, strings.ToLower(key), v)
		}
		return n, nil
	}
	var err error
	switch ev.Kind {
	case Enter, Leave:
		if ev.Region, err = ref("Region"); err == nil && p.m.regions[ev.Region] == nil {
			// A region the definitions did not print: its name is here.
			v, _ := otf2Get(attrs, "Region")
			p.m.addRegion(ev.Region, otf2Quoted(v))
		}
	case MpiSend, MpiIsend, MpiRecv, MpiIrecv:
		peer := "Receiver"
		if ev.Kind == MpiRecv || ev.Kind == MpiIrecv {
			peer = "Sender"
		}
		if err = need(peer, "Tag", "Length"); err != nil {
			return err
		}
		if ev.Kind == MpiIsend || ev.Kind == MpiIrecv {
			if err = need("Request"); err != nil {
				return err
			}
		}
		ev.Peer, ev.Tag, ev.Bytes, ev.Request = uint32(uintAttr(peer)), uint32(uintAttr("Tag")), uintAttr("Length"), uintAttr("Request")
		ev.Comm, err = ref("Communicator")
	case MpiIsendComplete, MpiIrecvRequest, MpiRequestTest, MpiRequestCancelled, NonBlockingCollectiveRequest:
		if err = need("Request"); err != nil {
			return err
		}
		ev.Request = uintAttr("Request")
	case MpiCollectiveEnd, NonBlockingCollectiveComplete:
		if err = need("Sent", "Received"); err != nil {
			return err
		}
		ov, _ := otf2Get(attrs, "Operation")
		ev.Op = printOps[ov]
		if rv, _ := otf2Get(attrs, "Root"); rv != "" && rv[0] >= '0' && rv[0] <= '9' {
			ev.Root = uint32(min(uintAttr("Root"), Undefined))
		}
		ev.Sent, ev.Recv, ev.Request = uintAttr("Sent"), uintAttr("Received"), uintAttr("Request")
		ev.Comm, err = ref("Communicator")
	case CommCreate, CommDestroy:
		ev.Comm, _ = ref("Communicator")
	}
	return err
}

// finish checks that every rank's events were all printed and builds the
// trace.
func (p *printParser) finish() (*Trace, error) {
	m := p.m
	t := &Trace{Anchor: p.name, m: m, mem: make([][]trace.Call, len(m.locs)), memLines: make([][]callAt, len(m.locs)), starts: make([]int64, len(m.locs)),
		unsupported: p.n.unsup, Warnings: trace.CountLines(p.n.warn)}
	for r, lid := range m.locs {
		loc := p.locs[lid]
		if err := loc.finish(); err != nil {
			return nil, err
		}
		if want := m.events[r]; want > 0 && p.seen[lid] != want {
			return nil, p.errf("rank %d (location %d): otf2-print printed %d of the %d events its definition announces (a damaged or cut event file?)",
				r, lid, p.seen[lid], want)
		}
		t.mem[r], t.memLines[r] = loc.out, loc.at
		t.starts[r] = loc.start
		if !loc.inited && len(loc.out) > 0 {
			t.starts[r] = loc.out[0].Start
		}
	}
	return t, nil
}
