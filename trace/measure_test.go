package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// measureBytes measures one rank's trace held in data.
func measureBytes(t *testing.T, data []byte) (RankTimes, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), "test.gpt")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return MeasureRank(r)
}

// TestMeasureSample checks the times of the sample trace against sums
// worked out by hand from its records (reader_test.go, sample).
func TestMeasureSample(t *testing.T) {
	h, comms, calls := sample()
	got, err := measureBytes(t, encode(t, h, comms, calls, EndFinalize))
	if err != nil {
		t.Fatal(err)
	}
	// MPI_Init 900,000..999,000; MPI_Finalize 3,000,000..3,100,000.
	// Inside MPI: Isend 300, Irecv 100, the failed Test run 89,300,
	// Waitall, Comm_split, Sendrecv and Alltoallv 100,000 each, Bcast 500,
	// ten calls of 100: 491,200 ns in 18 records. The flush: 4,900 ns.
	want := RankTimes{InitStart: 900_000, InitEnd: 999_000, FinalizeStart: 3_000_000, FinalizeEnd: 3_100_000,
		InMPI: 491_200, AsCompute: 89_300, Tracer: 4_900, Calls: 18}
	if got != want {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if got.Measured() != 2_001_000 || got.Whole() != 2_200_000 || got.Outside() != 2_001_000-491_200-4_900 {
		t.Errorf("measured %d, whole %d, outside %d", got.Measured(), got.Whole(), got.Outside())
	}
}

func TestMeasureCases(t *testing.T) {
	h := testHeader(0, 1)
	world := []*Comm{{ID: 0, Members: []int32{0}}, {ID: 1, Members: []int32{0}}}
	bar := func(s, e int64) Call { c := call(FuncBarrier, s, e); c.Comm = 0; return c }
	cases := []struct {
		name  string
		calls []Call
		end   EndReason
		want  RankTimes
		err   string // a substring of the error, "" for none
		isErr error
	}{
		{name: "overlapping calls count once",
			calls: []Call{call(FuncInit, 0, 100), bar(200, 500), bar(400, 700), bar(450, 600), call(FuncFinalize, 1000, 1200)},
			end:   EndFinalize,
			want:  RankTimes{InitStart: 0, InitEnd: 100, FinalizeStart: 1000, FinalizeEnd: 1200, InMPI: 500, Calls: 3}},
		{name: "calls before MPI_Init are outside",
			calls: []Call{bar(0, 50), call(FuncInitThread, 60, 100), bar(200, 300), call(FuncFinalize, 400, 410)},
			end:   EndFinalize,
			want:  RankTimes{InitStart: 60, InitEnd: 100, FinalizeStart: 400, FinalizeEnd: 410, InMPI: 100, Calls: 1}},
		{name: "records after MPI_Finalize are ignored",
			calls: []Call{call(FuncInit, 0, 100), call(FuncFinalize, 400, 410), call(FuncFlush, 420, 430)},
			end:   EndFinalize,
			want:  RankTimes{InitStart: 0, InitEnd: 100, FinalizeStart: 400, FinalizeEnd: 410}},
		{name: "without MPI_Init, from the stream's start",
			calls: []Call{bar(1_000_200, 1_000_300), call(FuncFinalize, 1_000_400, 1_000_500)},
			end:   EndFinalize,
			want:  RankTimes{InitStart: 1_000_000, InitEnd: 1_000_000, FinalizeStart: 1_000_400, FinalizeEnd: 1_000_500, NoInit: true, InMPI: 100, Calls: 1}},
		{name: "no MPI_Finalize", calls: []Call{call(FuncInit, 0, 100), bar(200, 300)}, end: EndExit,
			err: "no MPI_Finalize record in 2 records"},
		{name: "no timestamps", calls: []Call{call(FuncInit, 0, 0), bar(0, 0), call(FuncFinalize, 0, 0)}, end: EndFinalize,
			isErr: ErrNoTimestamps, err: "every one of its 3 records is at time 0"},
		{name: "MPI_Finalize before MPI_Init ended", calls: []Call{call(FuncInit, 0, 900), call(FuncFinalize, 500, 600)}, end: EndFinalize,
			err: "MPI_Finalize starts at 500 ns, before MPI_Init ended (900 ns)"},
		{name: "a call ends after MPI_Finalize started", calls: []Call{call(FuncInit, 0, 100), bar(200, 900), call(FuncFinalize, 500, 600)}, end: EndFinalize,
			err: "an MPI call ends at 900 ns, after MPI_Finalize started (500 ns)"},
		{name: "two MPI_Init", calls: []Call{call(FuncInit, 0, 100), call(FuncInit, 200, 300), call(FuncFinalize, 500, 600)}, end: EndFinalize,
			err: "record 2 (MPI_Init at t=200 ns): a second MPI_Init"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := h
			h.T0 = 1_000_000
			if tc.name != "without MPI_Init, from the stream's start" {
				h.T0 = 0
			}
			got, err := measureBytes(t, encode(t, h, world, tc.calls, tc.end))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("got  %+v\nwant %+v", got, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
			if tc.isErr != nil && !errors.Is(err, tc.isErr) {
				t.Errorf("error %v does not unwrap to %v", err, tc.isErr)
			}
		})
	}
}

// TestMeasureErrorNamesFile checks that Measure names the rank's file.
func TestMeasureErrorNamesFile(t *testing.T) {
	dir := t.TempDir()
	world := []*Comm{{ID: 0, Members: []int32{0, 1}}}
	for r := range 2 {
		calls := []Call{call(FuncInit, 0, 100), call(FuncFinalize, 500, 600)}
		end := EndFinalize
		if r == 1 {
			calls, end = calls[:1], EndAbort
		}
		world[0].Members = []int32{0, 1}
		if err := os.WriteFile(filepath.Join(dir, FileName(r)), encode(t, testHeader(r, 2), world, calls, end), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Measure(d)
	want := filepath.Join(dir, FileName(1)) + ": rank 1: no MPI_Finalize record"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
}

// lapFuncs are the MPI functions that the reader returns as calls.
func lapFuncs() map[string]bool {
	m := map[string]bool{}
	for _, f := range Funcs() {
		m[f.String()] = true
	}
	return m
}

// lapIndependent computes a liballprof rank file's times from its text
// alone: every line is NAME:START:...:END in µs ("-" for a time not
// recorded), and the times count from the file's first one.
func lapIndependent(t *testing.T, path string) RankTimes {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	known := lapFuncs()
	var out RankTimes
	var base float64
	haveBase := false
	ns := func(s string) int64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: time %q", path, s)
		}
		if !haveBase {
			base, haveBase = v, true
		}
		return int64(math.Round((v - base) * 1000))
	}
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimSpace(line), ":")
		if len(f) < 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "MPI_Init":
			out.InitEnd = ns(f[len(f)-1])
			out.InitStart = out.InitEnd
		case "MPI_Finalize":
			out.FinalizeStart = ns(f[1])
			out.FinalizeEnd = out.FinalizeStart
		default:
			s, e := ns(f[1]), ns(f[len(f)-1])
			// The reader returns the calls of known functions but
			// datatype commits (local work, computation to the converter).
			if known[f[0]] && f[0] != "MPI_Type_commit" && f[0] != "MPI_Type_free" {
				out.InMPI += e - s
				out.Calls++
			}
		}
	}
	return out
}

// TestMeasureLiballprof checks the times the liballprof reader gives
// against those computed from the text of the sample files.
func TestMeasureLiballprof(t *testing.T) {
	for _, name := range []string{"bcast-4", "sphot-4", "sweep3d-2x2", "vladimir-4"} {
		t.Run(name, func(t *testing.T) {
			l, err := OpenLiballprof(filepath.Join("testdata", "liballprof", name), LiballprofOptions{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := Measure(l)
			if err != nil {
				t.Fatal(err)
			}
			for r, g := range got {
				want := lapIndependent(t, l.Files[r])
				// Failed tests are computation for the converter; the text
				// does not say which tests failed.
				g.AsCompute = 0
				if g != want {
					t.Errorf("rank %d: got %+v\nwant %+v", r, g, want)
				}
				if g.Measured() <= 0 {
					t.Errorf("rank %d: measured %d ns", r, g.Measured())
				}
			}
		})
	}
}

// TestMeasureDumpi checks rank 0 of the DUMPI sample against dumpi2ascii's
// rendering of the same file ("MPI_X entering at walltime S.NNNNNNNNN").
func TestMeasureDumpi(t *testing.T) {
	d, err := OpenDumpi(filepath.Join("testdata", "dumpi", "sstdumpi-testtrace-0000", "testtrace.meta"), DumpiOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Measure(d)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", "dumpi", "sstdumpi-testtrace-0000", "testtrace-0000.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want RankTimes
	var base, start int64 = -1, 0
	known := lapFuncs()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) < 5 || w[3] != "walltime" || !strings.HasPrefix(w[0], "MPI_") {
			continue
		}
		sec, frac, _ := strings.Cut(strings.TrimSuffix(w[4], ","), ".")
		s, err1 := strconv.ParseInt(sec, 10, 64)
		n, err2 := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("time %q", w[4])
		}
		ts := s*1_000_000_000 + n
		if base < 0 {
			base = ts
		}
		ts -= base
		switch {
		case w[0] == "MPI_Init" && w[1] == "entering":
			want.InitStart = ts
		case w[0] == "MPI_Init":
			want.InitEnd = ts
		case w[0] == "MPI_Finalize" && w[1] == "entering":
			want.FinalizeStart = ts
		case w[0] == "MPI_Finalize":
			want.FinalizeEnd = ts
		case !known[w[0]]: // local queries (MPI_Comm_rank, ...): not calls
		case w[1] == "entering":
			start = ts
		default:
			want.InMPI += ts - start
			want.Calls++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if got[0] != want || want.Calls == 0 {
		t.Errorf("got  %+v\nwant %+v", got[0], want)
	}
}

// TestMeasureOTF2 checks the OTF2 sample against its otf2-print output,
// read here on its own: per location (= rank here) the ENTER and LEAVE
// events of MPI regions, ticks turned into ns since the clock's offset.
func TestMeasureOTF2(t *testing.T) {
	needOTF2Print(t)
	o, err := OpenOTF2(filepath.Join("testdata", "otf2", "sstmacro-otf2-10"), OTF2Options{Unsupported: "calc"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := Measure(o)
	if err != nil {
		t.Fatal(err)
	}
	// The calls the reader could not model (counted as computation with
	// "calc") are not calls; it names them first in its report.
	skip := map[string]bool{}
	for k := range o.Unsupported() {
		name, _, _ := strings.Cut(k, " ")
		skip[name] = true
	}
	if len(skip) == 0 {
		t.Fatal("the sample has unsupported calls; the reader reports none")
	}
	want := otf2Independent(t, filepath.Join("testdata", "otf2", "sstmacro-otf2-10.print.txt.gz"), len(got), skip)
	for r := range got {
		g, w := got[r], want[r]
		// The reader truncates each time to whole ns: sums of n calls may
		// differ by n ns.
		near := func(a, b, n int64) bool { return a-b <= n && b-a <= n }
		if !near(g.InitEnd, w.InitEnd, 1) || !near(g.FinalizeStart, w.FinalizeStart, 1) || !near(g.InitStart, w.InitStart, 1) ||
			!near(g.FinalizeEnd, w.FinalizeEnd, 1) || !near(g.InMPI, w.InMPI, 2*w.Calls) || g.Calls != w.Calls {
			t.Errorf("rank %d: got %+v\nwant %+v", r, g, w)
		}
	}
}

func otf2Independent(t *testing.T, path string, ranks int, skip map[string]bool) []RankTimes {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]RankTimes, ranks)
	enter := make([]int64, ranks)
	known := lapFuncs()
	var tps, off int64
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "CLOCK_PROPERTIES") {
			w := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == ',' || r == ':' })
			for i := range w[:len(w)-1] {
				switch {
				case w[i] == "Seconds":
					tps, _ = strconv.ParseInt(w[i+1], 10, 64)
				case w[i] == "Offset":
					off, _ = strconv.ParseInt(w[i+1], 10, 64)
				}
			}
			continue
		}
		w := strings.Fields(line)
		if len(w) < 5 || w[0] != "ENTER" && w[0] != "LEAVE" || !strings.HasPrefix(w[4], `"MPI_`) {
			continue
		}
		loc, _ := strconv.Atoi(w[1])
		ticks, _ := strconv.ParseInt(w[2], 10, 64)
		d := new(big.Int).Mul(big.NewInt(ticks-off), big.NewInt(1_000_000_000))
		ns := d.Quo(d, big.NewInt(tps)).Int64()
		name := strings.Trim(w[4], `"`)
		m := &out[loc]
		switch {
		case name == "MPI_Init" && w[0] == "ENTER":
			m.InitStart = ns
		case name == "MPI_Init":
			m.InitEnd = ns
			m.InMPI, m.Calls = 0, 0
		case name == "MPI_Finalize" && w[0] == "ENTER":
			m.FinalizeStart = ns
		case name == "MPI_Finalize":
			m.FinalizeEnd = ns
		case name == "MPI_Initialized" || name == "MPI_Finalized" || !known[name] || skip[name]:
		case w[0] == "ENTER":
			enter[loc] = ns
		default:
			m.InMPI += ns - enter[loc]
			m.Calls++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if tps == 0 {
		t.Fatal("no CLOCK_PROPERTIES")
	}
	return out
}
