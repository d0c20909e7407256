package liballprof

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/internal/tracetest"
)

// lapFS is a liballprof trace of one file per rank.
// lapFS makes a trace of rank files t-R.txt; a rank whose lines do not
// end with MPI_Finalize gets lapFinalize, as the tracer writes it last.
func lapFS(ranks ...[]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for r, lines := range ranks {
		if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], "MPI_Finalize:") {
			lines = append(slices.Clone(lines), lapFinalize)
		}
		fsys[fmt.Sprintf("t-%d.txt", r)] = &fstest.MapFile{Data: []byte("# collprof 0.9 output file\n" + strings.Join(lines, "\n") + "\n")}
	}
	return fsys
}

// lapFinalize is the MPI_Finalize lapFS adds.
const lapFinalize = "MPI_Finalize:99999:-"

// trimFinalize drops from got the MPI_Finalize that lapFS added to ranks.
func trimFinalize(ranks, got [][]string) {
	for r := range got {
		added := r < len(ranks) && (len(ranks[r]) == 0 || !strings.HasPrefix(ranks[r][len(ranks[r])-1], "MPI_Finalize:"))
		if n := len(got[r]); added && n > 0 && strings.HasPrefix(got[r][n-1], "MPI_Finalize t=") {
			got[r] = got[r][:n-1]
		}
	}
}

func TestLiballprofSamples(t *testing.T) {
	var lines []string
	for _, p := range []string{"bcast-4", "sphot-4", "sweep3d-2x2", "vladimir-4"} {
		l, err := Open(filepath.Join("testdata", p), Options{})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, tracetest.SampleSummary(t, p, l))
		if p == "bcast-4" && len(l.Warnings) != 3 {
			t.Errorf("bcast-4: warnings %q, want 3 (ranks 1-3 show rank 0 in MPI_COMM_WORLD)", l.Warnings)
		}
	}
	tracetest.CheckSamples(t, "testdata/samples.golden", lines)
}

func TestLiballprofCalls(t *testing.T) {
	split := func(r int) []string {
		idx := map[int]int{0: 1, 1: 1, 2: 0, 3: 0}[r] // color r%2, key -r
		h := fmt.Sprintf("33,%d,2", idx)
		lines := []string{
			"MPI_Init:-:1:2:0",
			fmt.Sprintf("MPI_Comm_split:1:7,%d,4:%d:%d:800:2", r, r%2, -r),
			fmt.Sprintf("MPI_Comm_size:3:%s:1:4", h),
			fmt.Sprintf("MPI_Bcast:5:100:1:2,4,4:0:%s:6", h),
		}
		switch r {
		case 0:
			lines = append(lines, "MPI_Send:6:100:1:2,4,4:0:5:33,1,2:7") // to rank 0 of [2 0]
		case 2:
			lines = append(lines, "MPI_Recv:6:100:1:2,4,4:1:5:33,0,2:0:7")
		}
		return append(lines,
			"MPI_Comm_free:7:800:8",
			fmt.Sprintf("MPI_Comm_split:9:7,%d,4:%d:%d:800:10", r, r%2, -r), // the same again, the handle reused
			fmt.Sprintf("MPI_Barrier:11:%s:12", h))
	}
	tests := []struct {
		name  string
		opt   Options
		ranks [][]string
		want  [][]string
	}{{
		name: "point to point, requests, a wildcard receive",
		ranks: [][]string{{
			"MPI_Init:-:1:2:10",
			"MPI_Comm_rank:11:9,0,2:5:12",
			"MPI_Isend:20:100:4:11,8,8:1:7:9,0,2:5000:21",
			"MPI_Irecv:22:100:2:2,4,4:-1:-1:9,0,2:5008:23",
			"MPI_Waitall:30:2:5000:0:40",
			"MPI_Sendrecv:41:0:1:2,4,4:-2:0:0:1:2,4,4:-2:0:9,0,2:0:42",
			"MPI_Finalize:50:-",
		}, {
			"MPI_Init:-:1:2:10",
			"MPI_Recv:20:100:4:11,8,8:0:7:9,1,2:0:25",
			"MPI_Send:26:100:2:2,4,4:0:3:9,1,2:27",
			"MPI_Finalize:50:-",
		}},
		want: [][]string{{
			"MPI_Init t=0+0",
			"MPI_Isend t=10000+1000 comm=0 peer=1 tag=7 bytes=32 type=8/8 req=1",
			"MPI_Irecv t=12000+1000 comm=0 peer=1 tag=3 bytes=8 type=4/4 req=2",
			"MPI_Waitall t=20000+10000 done=[1:send 2:recv]",
			"MPI_Sendrecv t=31000+1000 comm=0 peer=null tag=0 bytes=4 type=4/4 rpeer=null rtag=0 rbytes=4 rtype=4/4",
			"MPI_Finalize t=40000+0",
		}, {
			"MPI_Init t=0+0",
			"MPI_Recv t=10000+5000 comm=0 peer=0 tag=7 bytes=32 type=8/8",
			"MPI_Send t=16000+1000 comm=0 peer=0 tag=3 bytes=8 type=4/4",
			"MPI_Finalize t=40000+0",
		}},
	}, {
		name:  "sub-communicators of Comm_split, freed and made again",
		ranks: [][]string{split(0), split(1), split(2), split(3)},
		want: [][]string{{
			"MPI_Init t=0+0",
			"MPI_Comm_split t=1000+1000 comm=0",
			"MPI_Bcast t=5000+1000 comm=2 bytes=4 type=4/4 root=0 members=[2 0]",
			"MPI_Send t=6000+1000 comm=2 peer=2 tag=5 bytes=4 type=4/4 members=[2 0]",
			"MPI_Comm_free t=7000+1000",
			"MPI_Comm_split t=9000+1000 comm=0",
			"MPI_Barrier t=11000+1000 comm=4 members=[2 0]",
		}, {
			"MPI_Init t=0+0",
			"MPI_Comm_split t=1000+1000 comm=0",
			"MPI_Bcast t=5000+1000 comm=3 bytes=4 type=4/4 root=0 members=[3 1]",
			"MPI_Comm_free t=7000+1000",
			"MPI_Comm_split t=9000+1000 comm=0",
			"MPI_Barrier t=11000+1000 comm=5 members=[3 1]",
		}, {
			"MPI_Init t=0+0",
			"MPI_Comm_split t=1000+1000 comm=0",
			"MPI_Bcast t=5000+1000 comm=2 bytes=4 type=4/4 root=0 members=[2 0]",
			"MPI_Recv t=6000+1000 comm=2 peer=0 tag=5 bytes=4 type=4/4 members=[2 0]",
			"MPI_Comm_free t=7000+1000",
			"MPI_Comm_split t=9000+1000 comm=0",
			"MPI_Barrier t=11000+1000 comm=4 members=[2 0]",
		}, nil},
	}, {
		name: "collectives Schedgen skips, a Fortran Waitall",
		ranks: [][]string{{
			"MPI_Alltoallv:1:100:200:1,2:300:0,1:11,8,8:400:500:1,3:600:0,1:11,8,8:5,0,2:2",
			"MPI_Gatherv:3:100:2:11,8,8:200:300:2,3:400:0,2:11,8,8:0:5,0,2:4",
			"MPI_Exscan:5:1:2:4:2,4,4:3:5,0,2:6",
			"MPI_Reduce_scatter:7:1:2:300:3,1:2,4,4:3:5,0,2:8",
			"MPI_Irecv:9:100:1:2,4,4:1:8:5,0,2:1000:9",
			"MPI_Irecv:9:100:1:2,4,4:1:9:5,0,2:1004:9",
			"MPI_Waitall:10:2:1000:0:11",
		}, {
			"MPI_Alltoallv:1:100:200:3,4:300:0,3:11,8,8:400:500:2,4:600:0,2:11,8,8:5,1,2:2",
			"MPI_Gatherv:3:100:3:11,8,8:200:300:0,0:400:0,0:11,8,8:0:5,1,2:4",
			"MPI_Exscan:5:1:2:4:2,4,4:3:5,1,2:6",
			"MPI_Reduce_scatter:7:1:2:300:3,1:2,4,4:3:5,1,2:8",
			"MPI_Send:9:100:1:2,4,4:0:8:5,1,2:9",
			"MPI_Send:9:100:1:2,4,4:0:9:5,1,2:9",
		}},
		want: [][]string{{
			"MPI_Alltoallv t=0+1000 comm=0 type=8/8 rtype=8/8 counts=[8 16] rcounts=[8 24]",
			"MPI_Gatherv t=2000+1000 comm=0 bytes=16 type=8/8 root=0 counts=[16 24]",
			"MPI_Exscan t=4000+1000 comm=0 bytes=16 type=4/4",
			"MPI_Reduce_scatter t=6000+1000 comm=0 bytes=12 type=4/4 counts=[12 4]",
			"MPI_Irecv t=8000+0 comm=0 peer=1 tag=8 bytes=4 type=4/4 req=1",
			"MPI_Irecv t=8000+0 comm=0 peer=1 tag=9 bytes=4 type=4/4 req=2",
			"MPI_Waitall t=9000+1000 done=[1:recv 2:recv]",
		}, {
			"MPI_Alltoallv t=0+1000 comm=0 type=8/8 rtype=8/8 counts=[24 32] rcounts=[16 32]",
			"MPI_Gatherv t=2000+1000 comm=0 bytes=24 type=8/8 root=0",
			"MPI_Exscan t=4000+1000 comm=0 bytes=16 type=4/4",
			"MPI_Reduce_scatter t=6000+1000 comm=0 bytes=4 type=4/4 counts=[12 4]",
			"MPI_Send t=8000+0 comm=0 peer=0 tag=8 bytes=4 type=4/4",
			"MPI_Send t=8000+0 comm=0 peer=0 tag=9 bytes=4 type=4/4",
		}},
	}, {
		name: "rooted and v-collectives at the root and elsewhere",
		ranks: [][]string{{
			"MPI_Gather:1:100:2:11,8,8:200:2:11,8,8:0:5,0,2:2",
			"MPI_Scatter:3:100:2:11,8,8:200:2:11,8,8:0:5,0,2:4",
			"MPI_Scatterv:5:100:300:1,2:400:0,1:11,8,8:200:1:11,8,8:0:5,0,2:6",
			"MPI_Allgatherv:7:100:1:2,4,4:200:300:1,2:400:0,1:2,4,4:5,0,2:8",
		}, {
			"MPI_Gather:1:100:2:11,8,8:200:0:11,8,8:0:5,1,2:2",
			"MPI_Scatter:3:100:0:11,8,8:200:2:11,8,8:0:5,1,2:4",
			"MPI_Scatterv:5:100:300:0,0:400:0,0:11,8,8:200:2:11,8,8:0:5,1,2:6",
			"MPI_Allgatherv:7:100:2:2,4,4:200:300:1,2:400:0,1:2,4,4:5,1,2:8",
		}},
		want: [][]string{{
			"MPI_Gather t=0+1000 comm=0 bytes=16 type=8/8 root=0",
			"MPI_Scatter t=2000+1000 comm=0 bytes=16 type=8/8 root=0",
			"MPI_Scatterv t=4000+1000 comm=0 bytes=8 type=8/8 root=0 counts=[8 16]",
			"MPI_Allgatherv t=6000+1000 comm=0 bytes=4 type=4/4 counts=[4 8]",
		}, {
			"MPI_Gather t=0+1000 comm=0 bytes=16 type=8/8 root=0",
			"MPI_Scatter t=2000+1000 comm=0 bytes=16 type=8/8 root=0",
			"MPI_Scatterv t=4000+1000 comm=0 bytes=16 type=8/8 root=0",
			"MPI_Allgatherv t=6000+1000 comm=0 bytes=8 type=4/4 counts=[4 8]",
		}},
	}, {
		name: "MPICH constants, time multiplier",
		opt:  Options{TimeMult: 1},
		ranks: [][]string{{
			"MPI_Send:1:0:1:2,4,4:-1:0:1140850688,0,2:2",
			"MPI_Recv:3:0:1:2,4,4:-2:-1:1140850688,0,2:0:4",
		}, {
			"MPI_Send:3:0:1:2,4,4:0:6:1140850688,1,2:4",
		}},
		want: [][]string{{
			"MPI_Send t=0+1 comm=0 peer=null tag=0 bytes=4 type=4/4",
			"MPI_Recv t=2+1 comm=0 peer=1 tag=6 bytes=4 type=4/4",
		}, nil},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			l, err := OpenFS(lapFS(tc.ranks...), "", tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			got := tracetest.StreamStrings(t, l)
			trimFinalize(tc.ranks, got)
			for r, want := range tc.want {
				if want != nil && !slices.Equal(got[r], want) {
					t.Errorf("rank %d:\n got  %s\n want %s", r, strings.Join(got[r], "\n      "), strings.Join(want, "\n      "))
				}
			}
		})
	}
}

func TestLiballprofUnsupported(t *testing.T) {
	ranks := [][]string{{
		"MPI_Put:1:0:1:2,4,4:1:0:1:2,4,4:3:2",
		"MPI_Cart_sub:3:5,0,2:100:200:4",
		"MPI_Barrier:5:6,0,1:6",
		"MPI_Barrier:7:5,0,2:8",
	}, {
		"MPI_Put:1:0:1:2,4,4:1:0:1:2,4,4:3:2",
		"MPI_Cart_sub:3:5,1,2:100:200:4",
		"MPI_Barrier:5:6,0,1:6",
		"MPI_Barrier:7:5,1,2:8",
	}}
	_, err := OpenFS(lapFS(ranks...), "t-0.txt", Options{})
	if !errors.Is(err, trace.ErrUnsupported) {
		t.Fatalf("err = %v", err)
	}
	if want := "trace: liballprof t-0.txt: unsupported MPI calls (use --unsupported=calc"; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %q, want it to start %q (\"trace:\" once)", err, want)
	}
	for _, s := range []string{"MPI_Put x2", "MPI_Barrier (on a communicator whose members the trace does not tell: the ranks' positions in the communicator MPI_Cart_sub made do not tell its members) x2"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("the error does not list %q:\n%v", s, err)
		}
	}
	l, err := OpenFS(lapFS(ranks...), "t-0.txt", Options{Unsupported: "calc"})
	if err != nil {
		t.Fatal(err)
	}
	got := tracetest.StreamStrings(t, l)
	trimFinalize(ranks, got)
	if want := []string{"MPI_Cart_sub t=2000+1000 comm=0", "MPI_Barrier t=6000+1000 comm=0"}; !slices.Equal(got[0], want) {
		t.Errorf("calls %q, want %q", got[0], want)
	}
	if u := l.Unsupported(); u["MPI_Put"] != 2 || len(u) != 2 {
		t.Errorf("unsupported %v", u)
	}
}

func TestLiballprofErrors(t *testing.T) {
	tests := []struct {
		name  string
		fsys  fstest.MapFS
		name0 string
		want  string
	}{
		{"fields", lapFS([]string{"MPI_Send:1:2"}), "", "t-0.txt:2:12: MPI_Send: 2 fields, expected 8 (start, 6 arguments, end)"},
		{"not a call", lapFS([]string{"hello"}), "t-0.txt", "t-0.txt:2:1: expected an MPI call"},
		{"time", lapFS([]string{"MPI_Barrier:x:5,0,1:2"}), "", `t-0.txt:2:13: MPI_Barrier: time "x" is not a number of µs`},
		{"datatype", lapFS([]string{"MPI_Send:1:0:1:2,4:0:0:5,0,1:2"}), "", `t-0.txt:2:16: MPI_Send: expected a datatype (id,size,extent), got "2,4"`},
		{"communicator", lapFS([]string{"MPI_Barrier:1:5,3,2:2"}), "", `t-0.txt:2:15: MPI_Barrier: expected a communicator (handle,rank,size), got "5,3,2"`},
		{"dest", lapFS([]string{"MPI_Send:1:0:1:2,4,4:3:0:5,0,1:2"}), "", "t-0.txt:2:22: MPI_Send: dest 3 outside a communicator of 1 ranks"},
		{"counts", lapFS([]string{"MPI_Allgatherv:1:0:1:2,4,4:0:1:1,1,1:0:1:2,4,4:5,0,1:2"}), "", "MPI_Allgatherv: 3 counts for a communicator of 1 ranks"},
		{"missing rank", fstest.MapFS{"t-0.txt": {Data: []byte("MPI_Init:-:1:2:3\n")}, "t-2.txt": {Data: []byte("\n")}}, "", "2 rank files for ranks 0..2 (missing [1])"},
		{"no trace", fstest.MapFS{"x.txt": {Data: []byte("MPI_Init:-:1:2:3\n")}}, "", "no liballprof rank files"},
		{"bad name", lapFS([]string{"MPI_Init:-:1:2:3"}), "trace.txt", "not a rank file name"},
		{"timemult", lapFS([]string{"MPI_Init:-:1:2:3"}), "", "time multiplier -1: must be positive"},
		{"policy", lapFS([]string{"MPI_Init:-:1:2:3"}), "", `unsupported-call policy "ignore"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opt := Options{}
			switch tc.name {
			case "timemult":
				opt.TimeMult = -1
			case "policy":
				opt.Unsupported = "ignore"
			}
			_, err := OpenFS(tc.fsys, tc.name0, opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestLiballprofDamaged cuts sample files short and changes bytes: no
// panic, and errors about the file give its line.
func TestLiballprofDamaged(t *testing.T) {
	for _, dir := range []string{"bcast-4", "vladimir-4", "sphot-4"} {
		files := tracetest.SampleFiles(t, filepath.Join("testdata", dir))
		victim := files[0]
		orig, err := os.ReadFile(filepath.Join("testdata", dir, victim))
		if err != nil {
			t.Fatal(err)
		}
		for i, data := range tracetest.Damaged(orig, 120) {
			fsys := fstest.MapFS{}
			for _, f := range files {
				b, _ := os.ReadFile(filepath.Join("testdata", dir, f))
				fsys[f] = &fstest.MapFile{Data: b}
			}
			fsys[victim] = &fstest.MapFile{Data: data}
			l, err := OpenFS(fsys, victim, Options{Unsupported: "calc"})
			if err == nil {
				err = tracetest.ConvertAll(l)
			}
			tracetest.CheckDamage(t, fmt.Sprintf("%s/%s damage %d", dir, victim, i), err)
		}
	}
}

func FuzzLiballprof(f *testing.F) {
	for _, p := range []string{"vladimir-4/pmpi-trace-rank-1.txt", "bcast-4/trace_bcast-2.dat"} {
		data, err := os.ReadFile(filepath.Join("testdata", p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, tc := range [][]string{
		{"MPI_Comm_split:1:7,0,2:0:0:800:2", "MPI_Bcast:5:100:1:2,4,4:0:33,0,2:6", "MPI_Comm_free:7:800:8"},
		{"MPI_Alltoallv:1:100:200:1,2:300:0,1:11,8,8:400:500:1,3:600:0,1:11,8,8:5,0,2:2", "MPI_Irecv:9:100:1:2,4,4:-1:-1:5,0,2:1000:9", "MPI_Waitall:10:1:1000:0:11"},
	} {
		f.Add(lapFS(tc)["t-0.txt"].Data)
	}
	f.Add([]byte("MPI_Init:-:1:2:3\nMPI_Barrier:5:0,0,1:6\nMPI_Finalize:9")) // cut inside its last line
	f.Fuzz(func(t *testing.T, data []byte) {
		// Both ranks of a 2-rank trace have the same file.
		fsys := fstest.MapFS{"t-0.txt": {Data: data}, "t-1.txt": {Data: data}}
		l, err := OpenFS(fsys, "t-0.txt", Options{Unsupported: "calc"})
		if err == nil && l.NumRanks() <= 256 { // the converter's cost grows with the ranks
			err = tracetest.ConvertAll(l)
		}
		if err != nil && errors.Is(err, trace.ErrFormat) {
			var te *trace.TextFormatError
			if !errors.As(err, &te) || te.Line <= 0 {
				t.Fatalf("%v: no line", err)
			}
			// Only a last line without its newline can be incomplete.
			if te.Incomplete && (len(data) == 0 || data[len(data)-1] == '\n') {
				t.Fatalf("%v: incomplete, but the file ends with a newline", err)
			}
		}
	})
}

// TestTrimFracZeros checks that trimming a fraction of zeros never changes
// what strconv.ParseFloat makes of a time field, value or error, and that
// it trims the fields collprof writes.
func TestTrimFracZeros(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"1237666046950106.000000", "1237666046950106"},
		{"-12.00", "-12"},
		{"+7.0", "+7"},
		{"5.", "5"},
		{"1237666046950106.500000", "1237666046950106.500000"},
		{".000", ".000"},
		{"-.0", "-.0"},
		{"1e5.0", "1e5.0"},
		{"0x1p3.0", "0x1p3.0"},
		{"inf.0", "inf.0"},
		{"1_000.0", "1_000.0"},
		{"12", "12"},
		{"", ""},
	} {
		got := string(trimFracZeros([]byte(tc.in)))
		if got != tc.want {
			t.Errorf("trimFracZeros(%q) = %q, want %q", tc.in, got, tc.want)
		}
		v0, err0 := strconv.ParseFloat(tc.in, 64)
		v1, err1 := strconv.ParseFloat(got, 64)
		if v0 != v1 || (err0 == nil) != (err1 == nil) {
			t.Errorf("ParseFloat(%q) = %v, %v but ParseFloat(%q) = %v, %v", tc.in, v0, err0, got, v1, err1)
		}
	}
}

// TestLiballprofIncompleteLastLine: a rank file that ends inside its last
// line (no newline) is an error saying so, with the line and column,
// when the line does not parse or, parsing, is not the MPI_Finalize the
// tracer writes last; a complete last line without its newline converts.
func TestLiballprofIncompleteLastLine(t *testing.T) {
	body := "# collprof 0.9 output file\nMPI_Init:-:1:2:3\nMPI_Barrier:5:0,0,1:6\n"
	for _, tc := range []struct {
		name, last string
		want       string // "": converts
	}{
		{"fields missing", "MPI_Barrier:7:0,0,1",
			"trace: t-0.txt:4:15: incomplete line, the file ends inside it: MPI_Barrier: 2 fields, expected 3 (start, 1 arguments, end)"},
		{"end time cut", "MPI_Finalize:9:",
			"trace: t-0.txt:4:16: incomplete line, the file ends inside it: MPI_Finalize: time \"\" is not a number of µs"},
		{"times missing", "MPI_Finalize:9",
			"trace: t-0.txt:4:15: incomplete line, the file ends inside it: MPI_Finalize: expected start and end times"},
		{"name cut", "MPI_Fina",
			"trace: t-0.txt:4:1: incomplete line, the file ends inside it: expected an MPI call: MPI_Name:start:arguments...:end"},
		{"parses, but no MPI_Finalize", "MPI_Barrier:7:0,0,1:8",
			"trace: t-0.txt:4: incomplete line, the file ends inside it: liballprof: the rank file of rank 0 ends before MPI_Finalize: truncated, or the program did not finish"},
		{"complete without a newline", "MPI_Finalize:9:-", ""},
		{"an earlier field is no cut", "MPI_Barrier:x:0,0,1:8",
			"trace: t-0.txt:4:13: MPI_Barrier: time \"x\" is not a number of µs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fsys := fstest.MapFS{"t-0.txt": {Data: []byte(body + tc.last)}}
			l, err := OpenFS(fsys, "t-0.txt", Options{})
			if err == nil {
				err = tracetest.ConvertAll(l)
			}
			tracetest.CheckLastLine(t, err, tc.want)
		})
	}
}

// TestLiballprofConvertErrorWhere: a conversion error names the call by
// its rank file and line.
func TestLiballprofConvertErrorWhere(t *testing.T) {
	init := "MPI_Init:-:1:2:3"
	fsys := lapFS(
		[]string{init, "MPI_Send:10:1:4:1,4,4:1:5:0,0,2:11", "MPI_Send:20:1:4:1,4,4:1:5:0,0,2:21", "MPI_Send:30:1:4:1,4,4:1:5:0,0,2:31"},
		[]string{init, "MPI_Recv:10:1:4:1,4,4:0:5:0,1,2:7:11", "MPI_Recv:20:1:4:1,4,4:0:5:0,1,2:7:21", "MPI_Recv:30:1:4:1,4,4:0:5:0,1,2:7:31"},
	)
	l, err := OpenFS(fsys, "t-0.txt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := tracetest.ConvertWhere(t, l, 3)
	if want := "t-0.txt:4: rank 0: MPI_Send at t=17000: trace: too many ops: more than 3 ops in the rank"; !strings.HasPrefix(msg, want) {
		t.Errorf("err = %s\nwant %s...", msg, want)
	}
}
