package dumpi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/internal/tracetest"
)

const dumpiGolden = "testdata/sstdumpi-testtrace-0000"

// dumpiRef is what the reference tool's text dump (dumpi2ascii -a) says
// of a file.
type dumpiRef struct {
	header  map[string]string
	calls   []dumpiRefCall
	footer  map[string][2]uint32 // function -> called, ignored
	keyvals int
	perf    int
	sizes   map[int]int32
	names   map[int]string // datatype names
}

type dumpiRefCall struct {
	line        int
	name        string
	enter, exit [2]string // wall, cpu as printed
	thread      string
	args        []dumpiRefArg
}

type dumpiRefArg struct {
	line             int
	typ, name, value string
	n                int // the [n] after the name, -1 if none
}

var (
	dumpiRefEnter  = regexp.MustCompile(`^(\S+) (entering|returning) at walltime ([0-9.]+), cputime ([0-9.]+) seconds in thread ([0-9]+)\.$`)
	dumpiRefArgRE  = regexp.MustCompile(`^(\S+) ([A-Za-z_][A-Za-z_0-9]*)(?:\[([0-9]+)\])?=(.*)$`)
	dumpiRefCalled = regexp.MustCompile(`^(\S+) called ([0-9]+) times and ignored ([0-9]+) times$`)
	dumpiRefSize   = regexp.MustCompile(`^Datatype ([0-9]+) \((\S+)\) has size (-?[0-9]+)$`)
)

// readDumpiRef parses a dumpi2ascii -a dump.
func readDumpiRef(t *testing.T, path string) *dumpiRef {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ref := &dumpiRef{header: map[string]string{}, footer: map[string][2]uint32{}, sizes: map[int]int32{}, names: map[int]string{}}
	sc := bufio.NewScanner(f)
	var cur *dumpiRefCall
	no := 0
	for sc.Scan() {
		no++
		line := sc.Text()
		if m := dumpiRefEnter.FindStringSubmatch(line); m != nil {
			if m[2] == "entering" {
				ref.calls = append(ref.calls, dumpiRefCall{line: no, name: m[1], enter: [2]string{m[3], m[4]}, thread: m[5]})
				cur = &ref.calls[len(ref.calls)-1]
			} else {
				if cur == nil || cur.name != m[1] {
					t.Fatalf("%s:%d: %s returns, not entered", path, no, m[1])
				}
				cur.exit = [2]string{m[3], m[4]}
				cur = nil
			}
			continue
		}
		if cur != nil {
			m := dumpiRefArgRE.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("%s:%d: not an argument: %q", path, no, line)
			}
			a := dumpiRefArg{line: no, typ: m[1], name: m[2], value: m[4], n: -1}
			if m[3] != "" {
				a.n, _ = strconv.Atoi(m[3])
			}
			cur.args = append(cur.args, a)
			continue
		}
		switch m := dumpiRefCalled.FindStringSubmatch(line); {
		case m != nil:
			c, _ := strconv.ParseUint(m[2], 10, 32)
			i, _ := strconv.ParseUint(m[3], 10, 32)
			ref.footer[m[1]] = [2]uint32{uint32(c), uint32(i)}
			continue
		}
		if m := dumpiRefSize.FindStringSubmatch(line); m != nil {
			i, _ := strconv.Atoi(m[1])
			s, _ := strconv.Atoi(m[3])
			ref.sizes[i], ref.names[i] = int32(s), m[2]
			continue
		}
		if v, ok := strings.CutPrefix(line, "Total keyvals: "); ok {
			ref.keyvals, _ = strconv.Atoi(v)
			continue
		}
		if v, ok := strings.CutPrefix(line, "Performance counters: "); ok {
			ref.perf, _ = strconv.Atoi(v)
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			ref.header[k] = v
			continue
		}
		t.Fatalf("%s:%d: unexpected line %q", path, no, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return ref
}

func openDumpiPath(t testing.TB, path string) *File {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(bytes.NewReader(data), int64(len(data)), path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func dumpiTimeString(t Time) string { return fmt.Sprintf("%d.%09d", t.Sec, t.Nsec) }

// checkDumpiArg compares a decoded argument with the dump's rendering.
func checkDumpiArg(ref dumpiRefArg, a *Arg) error {
	v := ref.value
	switch {
	case ref.typ == "MPI_Status" || ref.typ == "MPI_Status*":
		if a.Kind != ArgStatuses {
			return fmt.Errorf("kind %d, want statuses", a.Kind)
		}
		if v == "<IGNORED>" {
			if a.Statuses != nil {
				return fmt.Errorf("statuses %v, want ignored", a.Statuses)
			}
			return nil
		}
		var got []string
		for _, s := range a.Statuses {
			got = append(got, fmt.Sprintf("{bytes=%d, cancelled=%d, source=%d, tag=%d, error=%d}", s.Bytes, s.Cancelled, s.Source, s.Tag, s.Error))
		}
		if g := "[" + strings.Join(got, ", ") + "]"; g != v {
			return fmt.Errorf("statuses %s, want %s", g, v)
		}
	case ref.typ == "string" || ref.typ == "char*":
		if ref.n >= 0 {
			var q []string
			for _, s := range a.Strs {
				q = append(q, strconv.Quote(s))
			}
			if g := "[" + strings.Join(q, ", ") + "]"; g != v || len(a.Strs) != ref.n {
				return fmt.Errorf("strings %s, want [%d]=%s", g, ref.n, v)
			}
			return nil
		}
		if len(a.Strs) != 1 || strconv.Quote(a.Strs[0]) != v && a.Strs[0] != v {
			return fmt.Errorf("string %q, want %s", a.Strs, v)
		}
	case strings.HasPrefix(v, "["):
		// An array, or a request printed as [n].
		inner := strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
		var want []int64
		for _, f := range strings.Split(inner, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			x, err := strconv.ParseInt(strings.Fields(f)[0], 10, 64)
			if err != nil {
				return fmt.Errorf("cannot read %q", v)
			}
			want = append(want, x)
		}
		got := a.Ints
		if a.Kind == ArgInt {
			got = []int64{a.Int}
		}
		if !slices.Equal(got, want) {
			return fmt.Errorf("%v, want %v", got, want)
		}
	default:
		x, err := strconv.ParseInt(strings.Fields(v)[0], 10, 64)
		if err != nil {
			return fmt.Errorf("cannot read %q", v)
		}
		if a.Kind != ArgInt || a.Int != x {
			return fmt.Errorf("%d (kind %d), want %d", a.Int, a.Kind, x)
		}
	}
	return nil
}

// TestDumpiGolden decodes the sample that sst-dumpi ships with its
// dumpi2ascii rendering and compares every section, call, time and
// argument with the rendering.
func TestDumpiGolden(t *testing.T) {
	ref := readDumpiRef(t, filepath.Join(dumpiGolden, "testtrace-0000.txt"))
	f := openDumpiPath(t, filepath.Join(dumpiGolden, "testtrace-0000.bin"))
	// Header.
	if got := fmt.Sprintf("%d.%d.%d", f.Version[0], f.Version[1], f.Version[2]); got != ref.header["version"] {
		t.Errorf("version %s, want %s", got, ref.header["version"])
	}
	// dumpi2ascii printed the start time with ctime(3) in the time zone
	// of the machine it ran on (US Pacific, UTC-8 in February).
	if got := time.Unix(int64(f.StartTime), 0).In(time.FixedZone("PST", -8*3600)).Format(time.ANSIC); got != ref.header["starttime"] {
		t.Errorf("start time %s, want %s", got, ref.header["starttime"])
	}
	for k, got := range map[string]string{"hostname": f.Hostname, "username": f.Username, "meshdim": strconv.Itoa(len(f.MeshCrd)),
		"meshsize": fmt.Sprint(f.MeshSize), "meshcrd": fmt.Sprint(f.MeshCrd)} {
		want := ref.header[k]
		if k == "meshsize" || k == "meshcrd" {
			got = strings.ReplaceAll(got, " ", ", ")
		}
		if got != want {
			t.Errorf("%s %q, want %q", k, got, want)
		}
	}
	// Calls.
	recs := f.Records()
	var rec Record
	for i := 0; ; i++ {
		err := recs.Next(&rec)
		if err == io.EOF {
			if i != len(ref.calls) {
				t.Errorf("%d records, the dump has %d calls", i, len(ref.calls))
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if i >= len(ref.calls) {
			t.Fatalf("record %d (%s): the dump has only %d calls", i, rec.Name(), len(ref.calls))
		}
		rc := ref.calls[i]
		where := fmt.Sprintf("dump line %d, record at byte %d", rc.line, rec.Offset)
		if rec.Name() != rc.name {
			t.Fatalf("%s: %s, want %s", where, rec.Name(), rc.name)
		}
		if !rec.HasWall() || !rec.HasCPU() {
			t.Errorf("%s: mask %#x: no times", where, rec.Mask)
		}
		got := [2][2]string{{dumpiTimeString(rec.Wall[0]), dumpiTimeString(rec.CPU[0])}, {dumpiTimeString(rec.Wall[1]), dumpiTimeString(rec.CPU[1])}}
		if got[0] != rc.enter || got[1] != rc.exit {
			t.Errorf("%s: times %v, want %v %v", where, got, rc.enter, rc.exit)
		}
		if strconv.Itoa(int(rec.Thread)) != rc.thread {
			t.Errorf("%s: thread %d, want %s", where, rec.Thread, rc.thread)
		}
		var names []string
		for _, a := range rec.Args {
			names = append(names, a.Name)
		}
		var refNames []string
		for _, a := range rc.args {
			refNames = append(refNames, a.name)
		}
		if !slices.Equal(names, refNames) {
			t.Errorf("%s: arguments %v, want %v", where, names, refNames)
			continue
		}
		for k, a := range rc.args {
			if err := checkDumpiArg(a, &rec.Args[k]); err != nil {
				t.Errorf("dump line %d: %s %s: %v", a.line, rc.name, a.name, err)
			}
		}
	}
	// Footer, keyvals, counters, datatype sizes.
	if len(ref.footer) != NumFuncs+1 {
		t.Fatalf("the dump's footer has %d functions", len(ref.footer))
	}
	for fn := 0; fn <= NumFuncs; fn++ {
		name := FuncName(uint16(fn))
		if fn == NumFuncs {
			name = "MPI_ALL_FUNCTIONS"
		}
		want, ok := ref.footer[name]
		if !ok {
			t.Errorf("function %d is %s, not in the dump's footer", fn, name)
			continue
		}
		if got := [2]uint32{f.CallCount[fn], f.IgnoredCount[fn]}; got != want {
			t.Errorf("%s: called/ignored %v, want %v", name, got, want)
		}
	}
	if len(f.Keyvals) != ref.keyvals || len(f.PerfLabels) != ref.perf {
		t.Errorf("%d keyvals, %d counters; want %d, %d", len(f.Keyvals), len(f.PerfLabels), ref.keyvals, ref.perf)
	}
	if len(f.TypeSizes) != len(ref.sizes) {
		t.Errorf("%d datatype sizes, want %d", len(f.TypeSizes), len(ref.sizes))
	}
	for i, s := range f.TypeSizes {
		if s != ref.sizes[i] {
			t.Errorf("datatype %d (%s): size %d, want %d", i, ref.names[i], s, ref.sizes[i])
		}
	}
}

// TestDumpiGoldenIsRankZero: the golden sample is rank 0 of the 4-rank
// run of sstmacro-testtrace-4 (its directory holds the run's other files
// too, from the same snapshot).
func TestDumpiGoldenIsRankZero(t *testing.T) {
	a, err := os.ReadFile(filepath.Join(dumpiGolden, "testtrace-0000.bin"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile("testdata/sstmacro-testtrace-4/testtrace-0000.bin")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Fatal("the golden sample is no longer rank 0 of sstmacro-testtrace-4")
	}
	// Alone, it is one file of a 4-rank run: an error that says so.
	_, err = OpenFS(fstest.MapFS{"testtrace-0000.bin": {Data: a}}, "testtrace-0000.bin", Options{})
	if err == nil || !strings.Contains(err.Error(), "MPI_COMM_WORLD has 4 ranks, but the trace has files for 1") {
		t.Fatalf("err = %v", err)
	}
}

// ---- synthetic DUMPI files ----

// dumpiWriter writes DUMPI files for tests: version 1.0.0, wall and cpu
// times, statuses recorded.
type dumpiWriter struct {
	buf      bytes.Buffer
	sizes    []int32
	t        uint32 // ns since the start, advanced by each record
	noStatus bool
	noFooter bool // small files for the fuzzer
}

func newDumpiWriter() *dumpiWriter {
	w := &dumpiWriter{sizes: []int32{0, 0, 1, 1, 1, 1, 4, 2, 2, 4, 4, 8, 8, 4, 8, 16, 8, 8, 8, 1, 0, 0, 8, 12, 12, 6, 8, 20}}
	w.buf.Write(Magic)
	w.u32(0) // cpu bias
	w.u32(0) // wall bias
	return w
}

func (w *dumpiWriter) u8(v uint8)   { w.buf.WriteByte(v) }
func (w *dumpiWriter) u16(v uint16) { w.buf.Write(binary.BigEndian.AppendUint16(nil, v)) }
func (w *dumpiWriter) u32(v uint32) { w.buf.Write(binary.BigEndian.AppendUint32(nil, v)) }
func (w *dumpiWriter) u64(v uint64) { w.buf.Write(binary.BigEndian.AppendUint64(nil, v)) }

// call writes a record of fn with vals for its layout's arguments in
// order: int64 for scalars, []int64 for arrays, []string, string,
// []Status (nil: none), or nil for an absent root-only argument.
func (w *dumpiWriter) call(fn string, vals ...any) {
	id := -1
	for i, f := range dumpiFuncs {
		if f.name == fn {
			id = i
		}
	}
	if id < 0 {
		panic(fn)
	}
	w.u16(uint16(id))
	mask := uint8(1<<2 | 1<<3 | 1<<6)
	if !w.noStatus {
		mask |= 3
	}
	w.u8(mask)
	w.u16(0)      // thread
	for range 2 { // cpu, then wall: entry, exit
		for k := uint32(0); k < 2; k++ {
			t := w.t + k*2 // ns
			w.u16(uint16(t / 1e9))
			w.u32(t % 1e9)
		}
	}
	w.t += 10
	fields := dumpiFuncs[id].fields
	if len(vals) != len(fields) {
		panic(fmt.Sprintf("%s: %d values for %d fields", fn, len(vals), len(fields)))
	}
	for i, fd := range fields {
		v := vals[i]
		if v == nil {
			continue
		}
		switch fd.kind {
		case 'i':
			w.u32(uint32(v.(int)))
		case 'h':
			w.u16(uint16(v.(int)))
		case 'b':
			w.u8(uint8(v.(int)))
		case 'l':
			w.u64(uint64(v.(int)))
		case 'I':
			a := v.([]int)
			w.u32(uint32(len(a)))
			for _, x := range a {
				w.u32(uint32(x))
			}
		case 'H':
			a := v.([]int)
			w.u32(uint32(len(a)))
			for _, x := range a {
				w.u16(uint16(x))
			}
		case 'A':
			for _, s := range v.([]string) {
				w.u32(uint32(len(s)))
				w.buf.WriteString(s)
			}
		case 'S':
			if w.noStatus {
				continue
			}
			ss := v.([]Status)
			w.u32(uint32(len(ss)))
			for _, s := range ss {
				w.u32(uint32(s.Bytes))
				w.u32(uint32(s.Source))
				w.u8(s.Cancelled)
				w.u8(s.Error)
				w.u32(uint32(s.Tag))
			}
		default:
			panic(fmt.Sprintf("kind %c", fd.kind))
		}
	}
}

// bytes ends the stream and writes the other sections and the index.
func (w *dumpiWriter) bytes() []byte {
	w.u16(dumpiEndOfStream)
	header := w.buf.Len()
	w.buf.Write([]byte{1, 0, 0})
	w.u64(1700000000)
	for _, s := range []string{"host", "user"} {
		w.u16(uint16(len(s)))
		w.buf.WriteString(s)
	}
	w.u32(0) // mesh
	footer := 0
	if !w.noFooter {
		footer = w.buf.Len()
		w.u64(dumpiFootMagic)
		for range 2 * (NumFuncs + 1) {
			w.u32(0)
		}
	}
	w.u32(0) // keyvals
	perf := w.buf.Len()
	w.u32(0)
	sizes := w.buf.Len()
	w.u32(uint32(len(w.sizes)))
	for _, s := range w.sizes {
		w.u32(uint32(s))
	}
	addrs := w.buf.Len()
	w.u32(0)
	w.buf.Write(Magic)
	for _, o := range []int{sizes, addrs, perf, header, 8, footer, 0} {
		w.u64(uint64(o))
	}
	return slices.Clone(w.buf.Bytes())
}

// dumpiFS writes a trace of one file per rank.
func dumpiFS(ranks ...*dumpiWriter) fstest.MapFS {
	fsys := fstest.MapFS{"t.meta": {Data: []byte(fmt.Sprintf("numprocs=%d\nfileprefix=t\nversion=1\n", len(ranks)))}}
	for r, w := range ranks {
		fsys[fmt.Sprintf("t-%04d.bin", r)] = &fstest.MapFile{Data: w.bytes()}
	}
	return fsys
}

// dumpiCalls opens a synthetic trace and returns every rank's calls,
// printed.
func dumpiCalls(t *testing.T, fsys fstest.MapFS, opt Options) ([][]string, *Trace) {
	t.Helper()
	d, err := OpenFS(fsys, "t.meta", opt)
	if err != nil {
		t.Fatal(err)
	}
	return tracetest.StreamStrings(t, d), d
}

func TestDumpiCalls(t *testing.T) {
	st := func(src, tag, bytes int) []Status {
		return []Status{{Bytes: int32(bytes), Source: int32(src), Tag: int32(tag)}}
	}
	tests := []struct {
		name  string
		ranks func() []*dumpiWriter
		want  [][]string
	}{{
		name: "point to point with statuses and requests",
		ranks: func() []*dumpiWriter {
			w0, w1 := newDumpiWriter(), newDumpiWriter()
			w0.call("MPI_Init", 0, []string{})
			w0.call("MPI_Isend", 10, 14, 1, 7, 2, 5)                                     // 10 doubles to 1, tag 7, request 5
			w0.call("MPI_Irecv", 3, 9, -1, -1, 2, 6)                                     // 3 ints from any, any tag, request 6
			w0.call("MPI_Waitall", 2, []int{5, 6}, append(st(9, 9, 9), st(1, 8, 12)...)) // send's status is garbage
			w0.call("MPI_Finalize")
			w1.call("MPI_Init", 0, []string{})
			w1.call("MPI_Recv", 10, 14, 0, 7, 2, st(0, 7, 80))
			w1.call("MPI_Send", 3, 9, 0, 8, 2)
			w1.call("MPI_Finalize")
			return []*dumpiWriter{w0, w1}
		},
		want: [][]string{{
			"MPI_Init t=0+2",
			"MPI_Isend t=10+2 comm=0 peer=1 tag=7 bytes=80 type=8/8 req=1",
			"MPI_Irecv t=20+2 comm=0 peer=1 tag=8 bytes=12 type=4/4 req=2",
			"MPI_Waitall t=30+2 done=[1:send 2:recv:peer=1:tag=8:bytes=12]",
			"MPI_Finalize t=40+2",
		}, {
			"MPI_Init t=0+2",
			"MPI_Recv t=10+2 comm=0 peer=0 tag=7 bytes=80 type=8/8",
			"MPI_Send t=20+2 comm=0 peer=0 tag=8 bytes=12 type=4/4",
			"MPI_Finalize t=30+2",
		}},
	}, {
		name: "split and collectives on the halves",
		ranks: func() []*dumpiWriter {
			var ws []*dumpiWriter
			for r := 0; r < 4; r++ {
				w := newDumpiWriter()
				w.call("MPI_Comm_split", 2, r%2, -r, 4) // color r%2, key -r: reversed order
				w.call("MPI_Bcast", 1, 9, 0, 4)
				w.call("MPI_Send", 1, 9, 0, 3, 4) // to rank 0 of the half: world 2 or 3
				w.call("MPI_Recv", 1, 9, 1, 3, 4, []Status(nil))
				w.call("MPI_Comm_free", 4)
				ws = append(ws, w)
			}
			return ws
		},
		want: [][]string{{
			"MPI_Comm_split t=0+2 comm=0 newcomm=2",
			"MPI_Bcast t=10+2 comm=2 bytes=4 type=4/4 root=0 members=[2 0]",
			"MPI_Send t=20+2 comm=2 peer=2 tag=3 bytes=4 type=4/4 members=[2 0]",
			"MPI_Recv t=30+2 comm=2 peer=0 tag=3 bytes=4 type=4/4 members=[2 0]",
			"MPI_Comm_free t=40+2 comm=2 members=[2 0]",
		}, nil, nil, nil},
	}, {
		name: "Comm_create from a group, Cart_create and Cart_sub",
		ranks: func() []*dumpiWriter {
			var ws []*dumpiWriter
			for r := 0; r < 4; r++ {
				w := newDumpiWriter()
				w.call("MPI_Comm_group", 2, 3)
				w.call("MPI_Group_incl", 3, 2, []int{3, 1}, 4)
				nc := 1
				if r == 3 || r == 1 {
					nc = 4
				}
				w.call("MPI_Comm_create", 2, 4, nc)
				if nc == 4 {
					w.call("MPI_Barrier", 4)
				}
				w.call("MPI_Cart_create", 2, 2, []int{2, 2}, []int{0, 0}, 0, 5)
				w.call("MPI_Cart_sub", 2, 5, []int{0, 1}, 6) // rows
				w.call("MPI_Allreduce", 1, 14, 3, 6)
				ws = append(ws, w)
			}
			return ws
		},
		want: [][]string{{
			"MPI_Comm_create t=20+2 comm=0",
			"MPI_Cart_create t=30+2 comm=0 newcomm=3",
			"MPI_Cart_sub t=40+2 comm=3 newcomm=4 members=[0 1 2 3]",
			"MPI_Allreduce t=50+2 comm=4 bytes=8 type=8/8 members=[0 1]",
		}, {
			"MPI_Comm_create t=20+2 comm=0 newcomm=2",
			"MPI_Barrier t=30+2 comm=2 members=[3 1]",
			"MPI_Cart_create t=40+2 comm=0 newcomm=3",
			"MPI_Cart_sub t=50+2 comm=3 newcomm=4 members=[0 1 2 3]",
			"MPI_Allreduce t=60+2 comm=4 bytes=8 type=8/8 members=[0 1]",
		}, nil, nil},
	}, {
		name: "persistent requests and Waitsome",
		ranks: func() []*dumpiWriter {
			w0, w1 := newDumpiWriter(), newDumpiWriter()
			w0.call("MPI_Send_init", 2, 9, 1, 4, 2, 7)
			w0.call("MPI_Recv_init", 2, 9, 1, 5, 2, 8)
			for range 2 {
				w0.call("MPI_Startall", 2, []int{7, 8})
				w0.call("MPI_Waitsome", 2, []int{7, 8}, 2, []int{1, 0}, append(st(1, 5, 8), st(0, 0, 0)...))
			}
			w0.call("MPI_Request_free", 7)
			w1.call("MPI_Sendrecv", 2, 9, 0, 5, 2, 9, 0, 4, 2, st(0, 4, 8))
			w1.call("MPI_Sendrecv", 2, 9, 0, 5, 2, 9, 0, 4, 2, st(0, 4, 8))
			return []*dumpiWriter{w0, w1}
		},
		want: [][]string{{
			"MPI_Isend t=20+2 comm=0 peer=1 tag=4 bytes=8 type=4/4 req=1",
			"MPI_Irecv t=20+2 comm=0 peer=1 tag=5 bytes=8 type=4/4 req=2",
			"MPI_Waitsome t=30+2 done=[2:recv:peer=1:tag=5:bytes=8 1:send]",
			"MPI_Isend t=40+2 comm=0 peer=1 tag=4 bytes=8 type=4/4 req=3",
			"MPI_Irecv t=40+2 comm=0 peer=1 tag=5 bytes=8 type=4/4 req=4",
			"MPI_Waitsome t=50+2 done=[4:recv:peer=1:tag=5:bytes=8 3:send]",
			"MPI_Request_free t=60+2",
		}, nil},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, _ := dumpiCalls(t, dumpiFS(tc.ranks()...), Options{})
			for r, want := range tc.want {
				if want == nil {
					continue
				}
				if !slices.Equal(got[r], want) {
					t.Errorf("rank %d:\n got  %s\n want %s", r, strings.Join(got[r], "\n      "), strings.Join(want, "\n      "))
				}
			}
		})
	}
}

// TestDumpiWildcardsWithoutStatuses: without statuses, a wildcard
// receive gets the message it is matched with, not a collective's.
func TestDumpiWildcardsWithoutStatuses(t *testing.T) {
	var ws []*dumpiWriter
	for r := 0; r < 3; r++ {
		w := newDumpiWriter()
		w.noStatus = true
		if r == 0 {
			w.call("MPI_Irecv", 1, 9, -1, -1, 2, 5)
			w.call("MPI_Irecv", 1, 9, -1, -1, 2, 6)
			w.call("MPI_Waitall", 2, []int{5, 6}, []Status(nil))
		} else {
			w.t += uint32(100 * r) // rank 1 sends first
			w.call("MPI_Send", 1, 9, 0, 10+r, 2)
		}
		w.call("MPI_Barrier", 2)
		ws = append(ws, w)
	}
	got, _ := dumpiCalls(t, dumpiFS(ws...), Options{})
	want := []string{
		"MPI_Irecv t=0+2 comm=0 peer=1 tag=11 bytes=4 type=4/4 req=1",
		"MPI_Irecv t=10+2 comm=0 peer=2 tag=12 bytes=4 type=4/4 req=2",
		"MPI_Waitall t=20+2 done=[1:recv 2:recv]",
		"MPI_Barrier t=30+2 comm=0",
	}
	if !slices.Equal(got[0], want) {
		t.Fatalf("rank 0:\n got  %s\n want %s", strings.Join(got[0], "\n      "), strings.Join(want, "\n      "))
	}
}

func TestDumpiUnsupported(t *testing.T) {
	w0, w1 := newDumpiWriter(), newDumpiWriter()
	for _, w := range []*dumpiWriter{w0, w1} {
		w.call("MPI_Win_fence", 0, 1)
		w.call("MPI_Win_fence", 0, 1)
		w.call("MPI_Intercomm_create", 2, 0, 2, 1, 9, 4)
		w.call("MPI_Barrier", 4)
		w.call("MPI_Barrier", 2)
	}
	fsys := dumpiFS(w0, w1)
	_, err := OpenFS(fsys, "t.meta", Options{})
	if !errors.Is(err, trace.ErrUnsupported) {
		t.Fatalf("err = %v", err)
	}
	if n := strings.Count(err.Error(), "trace:"); n != 1 || !strings.Contains(err.Error(), ": unsupported MPI calls (use --unsupported=calc") {
		t.Errorf("err = %q: want \"trace:\" once (%d) and then \"unsupported MPI calls\"", err, n)
	}
	for _, s := range []string{"MPI_Win_fence (one-sided communication) x4", "MPI_Intercomm_create (intercommunicators and dynamic processes) x2",
		"MPI_Barrier (on a communicator whose members the trace does not tell: an intercommunicator (MPI_Intercomm_create)) x2"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error does not list %q:\n%v", s, err)
		}
	}
	got, d := dumpiCalls(t, fsys, Options{Unsupported: "calc"})
	if want := []string{"MPI_Barrier t=40+2 comm=0"}; !slices.Equal(got[0], want) {
		t.Errorf("calls %q, want %q", got[0], want)
	}
	if u := d.Unsupported(); u["MPI_Win_fence (one-sided communication)"] != 4 {
		t.Errorf("unsupported %v", u)
	}
}

func TestDumpiErrors(t *testing.T) {
	good := func() *dumpiWriter {
		w := newDumpiWriter()
		w.call("MPI_Send", 1, 9, 0, 1, 2)
		return w
	}
	tests := []struct {
		name string
		fsys func() fstest.MapFS
		want string
	}{
		{"no files", func() fstest.MapFS { return fstest.MapFS{"t.meta": {Data: []byte("numprocs=2\nfileprefix=t\n")}} }, "0 rank files for 2 ranks (missing ranks [0 1])"},
		{"bad meta", func() fstest.MapFS { return fstest.MapFS{"t.meta": {Data: []byte("numprocs 2\n")}} }, "t.meta:1: dumpi: expected key=value"},
		{"not dumpi", func() fstest.MapFS {
			fs := dumpiFS(good())
			fs["t-0000.bin"].Data = []byte("hello, world, this is not a DUMPI file at all, not at all")
			return fs
		}, "byte 0: trace: malformed DUMPI file: not a DUMPI file"},
		{"truncated", func() fstest.MapFS {
			fs := dumpiFS(good())
			fs["t-0000.bin"].Data = fs["t-0000.bin"].Data[:100]
			return fs
		}, "no index at the end of the file"},
		{"peer outside", func() fstest.MapFS {
			w := newDumpiWriter()
			w.call("MPI_Send", 1, 9, 5, 1, 2)
			return dumpiFS(w)
		}, "MPI_Send: dest 5 outside a communicator of 1 ranks"},
		{"bad datatype", func() fstest.MapFS {
			w := newDumpiWriter()
			w.call("MPI_Send", 1, 99, 0, 1, 2)
			return dumpiFS(w)
		}, "byte 16: trace: malformed DUMPI file: MPI_Send: datatype 99: not in the file's size table (28 types)"},
		{"huge array", func() fstest.MapFS {
			w := newDumpiWriter()
			w.call("MPI_Waitall", 1, []int{1}, []Status{})
			fs := dumpiFS(w)
			data := fs["t-0000.bin"].Data
			binary.BigEndian.PutUint32(data[16+2+1+2+24+4:], 0x7fffffff) // the requests' count
			return fs
		}, "requests: count 2147483647"},
		{"unknown function", func() fstest.MapFS {
			fs := dumpiFS(good())
			binary.BigEndian.PutUint16(fs["t-0000.bin"].Data[16:], 999)
			return fs
		}, "byte 16: trace: malformed DUMPI file: record of unknown function number 999"},
		{"Pcontrol", func() fstest.MapFS {
			fs := dumpiFS(good())
			binary.BigEndian.PutUint16(fs["t-0000.bin"].Data[16:], 128)
			return fs
		}, "record of MPI_Pcontrol, which DUMPI does not record"},
		{"version", func() fstest.MapFS {
			fs := dumpiFS(good())
			data := fs["t-0000.bin"].Data
			idx := len(data) - 32
			h := binary.BigEndian.Uint64(data[idx:])
			data[h] = 14
			return fs
		}, "version 14.0.0: this reader reads 0.6.5 to 13.x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := OpenFS(tc.fsys(), "t.meta", Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestDumpiSamples(t *testing.T) {
	var lines []string
	for _, p := range []string{"sstdumpi-testtrace-0000", "sstmacro-testtrace-4", "sstmacro-testbgp-7"} {
		d, err := Open(filepath.Join("testdata", p), Options{})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, tracetest.SampleSummary(t, p, d))
	}
	tracetest.CheckSamples(t, "testdata/samples.golden", lines)
}

// TestDumpiDamaged cuts the samples short and changes bytes: every
// damaged file gives an error with its byte offset, or converts.
func TestDumpiDamaged(t *testing.T) {
	for _, dir := range []string{"sstmacro-testtrace-4", "sstmacro-testbgp-7"} {
		files := tracetest.SampleFiles(t, filepath.Join("testdata", dir))
		for _, victim := range files {
			if !strings.HasSuffix(victim, "1.bin") {
				continue
			}
			orig, err := os.ReadFile(filepath.Join("testdata", dir, victim))
			if err != nil {
				t.Fatal(err)
			}
			for i, data := range tracetest.Damaged(orig, 60) {
				fsys := fstest.MapFS{}
				for _, f := range files {
					b, _ := os.ReadFile(filepath.Join("testdata", dir, f))
					fsys[f] = &fstest.MapFile{Data: b}
				}
				fsys[victim] = &fstest.MapFile{Data: data}
				what := fmt.Sprintf("%s/%s damage %d (%d bytes)", dir, victim, i, len(data))
				d, err := OpenFS(fsys, "", Options{Unsupported: "calc"})
				if err == nil {
					err = tracetest.ConvertAll(d)
				}
				tracetest.CheckDamage(t, what, err)
				if len(data) < len(orig) && err == nil {
					t.Errorf("%s: a file cut short converts", what)
				}
			}
		}
	}
}

func FuzzDumpi(f *testing.F) {
	// Small seeds (without the footer's 2.3 KB): the fuzzer's
	// minimization of large inputs takes most of its time.
	data, err := os.ReadFile("testdata/sstmacro-testtrace-4/testtrace-0001.bin")
	if err != nil {
		f.Fatal(err)
	}
	df, err := OpenFile(bytes.NewReader(data), int64(len(data)), "seed")
	if err != nil {
		f.Fatal(err)
	}
	sample := newDumpiWriter()
	sample.noFooter = true
	sample.buf.Write(data[df.stream+8 : df.header-2]) // the sample's records
	f.Add(sample.bytes())
	w := newDumpiWriter()
	w.noFooter = true
	w.call("MPI_Comm_split", 2, 0, 0, 4)
	w.call("MPI_Irecv", 1, 9, -1, -1, 4, 5)
	w.call("MPI_Waitall", 1, []int{5}, []Status{{Bytes: 4}})
	w.call("MPI_Gatherv", 0, 1, 1, 9, 0, 4, []int{1}, []int{0}, 9)
	w.call("MPI_Comm_group", 4, 3)
	w.call("MPI_Group_incl", 3, 1, []int{0}, 4)
	w.call("MPI_Comm_create", 4, 4, 5)
	w.call("MPI_Send_init", 1, 9, 0, 1, 5, 6)
	w.call("MPI_Start", 6)
	w.call("MPI_Wait", 6, []Status(nil))
	f.Add(w.bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		df, err := OpenFile(bytes.NewReader(data), int64(len(data)), "f")
		if err == nil {
			recs := df.Records()
			var r Record
			for recs.Next(&r) == nil {
			}
		}
		fsys := fstest.MapFS{"t-0.bin": {Data: data}}
		d, err := OpenFS(fsys, "t-0.bin", Options{Unsupported: "calc"})
		if err == nil && d.NumRanks() <= 256 { // the converter's cost grows with the ranks
			err = tracetest.ConvertAll(d)
		}
		if err != nil && errors.Is(err, trace.ErrFormat) {
			var fe *trace.FormatError
			var te *trace.TextFormatError
			if !errors.As(err, &fe) && !errors.As(err, &te) {
				t.Fatalf("%v: no offset", err)
			}
		}
	})
}

// TestDumpiConvertErrorWhere: a conversion error names the call by its
// record in the rank's .bin file and the record's byte offset.
func TestDumpiConvertErrorWhere(t *testing.T) {
	d, err := Open(filepath.Join("testdata", "sstmacro-testtrace-4"), Options{Unsupported: "calc"})
	if err != nil {
		t.Fatal(err)
	}
	msg, pos := tracetest.ConvertWhere(t, d, 5)
	re := regexp.MustCompile(`^testdata/sstmacro-testtrace-4/[^:]+-0000\.bin: record \d+ at byte \d+: rank 0: MPI_\w+ at t=\d+: trace: too many ops`)
	if !re.MatchString(msg) || pos.Record <= 0 || pos.Offset <= 0 {
		t.Errorf("err = %s (position %+v)\nwant a match for %s", msg, pos, re)
	}
}
