package tit

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

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/internal/tracetest"
)

const titSamples = "testdata/simgrid-replay-examples"

func TestTITSamples(t *testing.T) {
	var lines []string
	for _, f := range tracetest.SampleFiles(t, titSamples) {
		if f == "actions0.txt" || f == "actions1.txt" {
			continue // the per-rank files of split_traces
		}
		tr, err := Open(filepath.Join(titSamples, f), Options{})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, tracetest.SampleSummary(t, f, tr))
		if f == "split_traces" && (tr.Shared || tr.NumRanks() != 2) {
			t.Errorf("split_traces: shared %v, %d ranks: want an index of 2 files", tr.Shared, tr.NumRanks())
		}
	}
	tracetest.CheckSamples(t, "testdata/samples.golden", lines)
}

func titFS(text string) fstest.MapFS {
	return fstest.MapFS{"t.txt": {Data: []byte(strings.TrimLeft(text, "\n"))}}
}

func TestTITCalls(t *testing.T) {
	var coll []string
	for r := 0; r < 3; r++ {
		for _, a := range []string{
			"alltoallv 100 1 2 3 100 4 5 6 0 0", "gatherv 2 1 2 3 1 6 6", "allgatherv 2 2 2 2", "allgatherv 2 2 2 2 1 1 0 2 4",
			"scatterv 1 2 3 4 2 0 0", "reducescatter 1 2 3 1e9 1", "bcast 5 2", "reduce 5 0 1 1", "alltoall 3 3 1 1",
			"gather 4 4 0 1 1", "scatter 4 4 0 1 1", "allgather 4 4", "scan 2 0", "exscan 2 0", "barrier", "sendRecv 1 0 2 2 1 1",
			"comm_size 3", "location foo.c 12",
		} {
			coll = append(coll, fmt.Sprintf("%d %s", r, a))
		}
	}
	tests := []struct {
		name string
		fsys fstest.MapFS
		file string
		opt  Options
		want [][]string
	}{{
		name: "point to point, requests, computation",
		fsys: titFS(`
0 init
0 compute 1e6
# a comment
0 isend 1 5 100
0 irecv 1 6 10 0
0 test 1 0 6
0 wait 0 1 5
0 waitall
0 sleep 0.5
0 finalize
1 init 1
1 recv 0 5 -1
1 send 0 6 10
1 compute 2e9
`),
		want: [][]string{{
			"MPI_Init t=0+0",
			"MPI_Isend t=1000000+0 comm=0 peer=1 tag=5 bytes=100 type=1/1 req=1",
			"MPI_Irecv t=1000000+0 comm=0 peer=1 tag=6 bytes=80 type=8/8 req=2",
			"MPI_Test t=1000000+0",
			"MPI_Wait t=1000000+0 done=[1:send]",
			"MPI_Waitall t=1000000+0 done=[2:recv]",
			"MPI_Finalize t=501000000+0",
		}, {
			"MPI_Init t=0+0",
			"MPI_Recv t=0+0 comm=0 peer=0 tag=5 type=8/8",
			"MPI_Send t=0+0 comm=0 peer=0 tag=6 bytes=80 type=8/8",
			"MPI_Finalize t=2000000000+0",
		}},
	}, {
		name: "reduction flops after the last collective",
		fsys: titFS("0 allreduce 1 5e8\n"),
		want: [][]string{{"MPI_Allreduce t=0+0 comm=0 bytes=1 type=1/1", "MPI_Finalize t=500000000+0"}},
	}, {
		name: "host speed",
		fsys: titFS("0 compute 1e9\n0 barrier\n"),
		opt:  Options{HostSpeed: 2e9},
		want: [][]string{{"MPI_Barrier t=500000000+0 comm=0"}},
	}, {
		name: "collectives",
		fsys: titFS(strings.Join(coll, "\n")),
		want: [][]string{nil, {
			"MPI_Alltoallv t=0+0 comm=0 type=8/8 rtype=8/8 counts=[8 16 24] rcounts=[32 40 48]",
			"MPI_Gatherv t=0+0 comm=0 bytes=2 type=1/1 root=1 counts=[1 2 3]",
			"MPI_Allgatherv t=0+0 comm=0 bytes=2 type=1/1 counts=[2 2 2]",
			"MPI_Allgatherv t=0+0 comm=0 bytes=8 type=4/4 counts=[8 8 8]",
			"MPI_Scatterv t=0+0 comm=0 bytes=32 type=8/8 root=2 counts=[8 16 24]",
			"MPI_Reduce_scatter t=0+0 comm=0 bytes=8 type=4/4 counts=[4 8 12]",
			"MPI_Bcast t=1000000000+0 comm=0 bytes=5 type=1/1 root=2",
			"MPI_Reduce t=1000000000+0 comm=0 bytes=20 type=4/4 root=1",
			"MPI_Alltoall t=1000000000+0 comm=0 bytes=12 type=4/4",
			"MPI_Gather t=1000000000+0 comm=0 bytes=16 type=4/4 root=0",
			"MPI_Scatter t=1000000000+0 comm=0 bytes=16 type=4/4 root=0",
			"MPI_Allgather t=1000000000+0 comm=0 bytes=4 type=1/1",
			"MPI_Scan t=1000000000+0 comm=0 bytes=2 type=1/1",
			"MPI_Exscan t=1000000000+0 comm=0 bytes=2 type=1/1",
			"MPI_Barrier t=1000000000+0 comm=0",
			"MPI_Sendrecv t=1000000000+0 comm=0 peer=0 tag=0 bytes=4 type=4/4 rpeer=2 rtag=0 rbytes=8 rtype=4/4",
		}, nil},
	}, {
		name: "index of per-rank files",
		fsys: fstest.MapFS{
			"idx.txt":    {Data: []byte("sub/a0.txt\n/somewhere/else/a1.txt\n")},
			"sub/a0.txt": {Data: []byte("0 init\n0 send 1 0 4\n0 finalize\n")},
			"a1.txt":     {Data: []byte("1 init\n1 recv 0 0 4\n1 finalize\n")},
		},
		file: "idx.txt",
		want: [][]string{nil, {"MPI_Init t=0+0", "MPI_Recv t=0+0 comm=0 peer=0 tag=0 bytes=4 type=1/1", "MPI_Finalize t=0+0"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file
			if file == "" {
				file = "t.txt"
			}
			tr, err := OpenFS(tc.fsys, file, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			got := tracetest.StreamStrings(t, tr)
			for r, want := range tc.want {
				if want != nil && !slices.Equal(got[r], want) {
					t.Errorf("rank %d:\n got  %s\n want %s", r, strings.Join(got[r], "\n      "), strings.Join(want, "\n      "))
				}
			}
		})
	}
}

func TestTITErrors(t *testing.T) {
	tests := []struct {
		name string
		fsys fstest.MapFS
		file string
		opt  Options
		want string
	}{
		{"unknown action", titFS("0 init\n0 frobnicate 1\n"), "", Options{}, `t.txt:2:3: tit: unknown action "frobnicate"`},
		{"arguments", titFS("0 send 1 2\n"), "", Options{}, "t.txt:1:10: tit: send: 2 arguments, expected 3 to 4"},
		{"v-arguments", titFS("0 init\n1 gatherv 1 2\n"), "", Options{}, "t.txt:2:13: tit: gatherv: 2 arguments, expected 3 to 6"},
		{"number", titFS("0 compute abc\n"), "", Options{}, `t.txt:1:11: tit: flops "abc" is not a number`},
		{"peer", titFS("0 send 5 0 1\n"), "", Options{}, "t.txt:1:8: tit: peer 5 outside 0..0"},
		{"datatype", titFS("0 send 0 0 1 77\n"), "", Options{}, `t.txt:1:14: tit: datatype "77": expected a SimGrid datatype number 0..59`},
		{"rank", titFS("x init\n"), "", Options{}, `t.txt:1:1: tit: rank "x": expected a number from 0`},
		{"no action", titFS("# nothing\n\n"), "", Options{}, "t.txt:2: tit: no actions and no trace files"},
		{"host speed", titFS("0 init\n"), "", Options{HostSpeed: -1}, "host speed -1 flop/s: must be positive"},
		{"rank of a file", fstest.MapFS{"i": {Data: []byte("a\nb\n")}, "a": {Data: []byte("0 init\n")}, "b": {Data: []byte("0 init\n")}},
			"i", Options{}, "b:1:1: tit: rank 0 in the trace file of rank 1"},
		{"missing file", fstest.MapFS{"i": {Data: []byte("a\nnope/b\n")}, "a": {Data: []byte("0 init\n")}},
			"i", Options{}, `i:2:1: tit: trace file of rank 1 "nope/b" not found (looked for nope/b and b)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := tc.file
			if file == "" {
				file = "t.txt"
			}
			_, err := OpenFS(tc.fsys, file, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %q", err, tc.want)
			}
		})
	}
}

// TestTITDamaged cuts the samples short and changes bytes: no panic, and
// errors about the file give its line.
func TestTITDamaged(t *testing.T) {
	files := tracetest.SampleFiles(t, titSamples)
	for _, victim := range files {
		orig, err := os.ReadFile(filepath.Join(titSamples, victim))
		if err != nil {
			t.Fatal(err)
		}
		for i, data := range tracetest.Damaged(orig, 30) {
			fsys := fstest.MapFS{}
			for _, f := range files {
				b, _ := os.ReadFile(filepath.Join(titSamples, f))
				fsys[f] = &fstest.MapFile{Data: b}
			}
			fsys[victim] = &fstest.MapFile{Data: data}
			tr, err := OpenFS(fsys, victim, Options{})
			if err == nil {
				err = tracetest.ConvertAll(tr)
			}
			tracetest.CheckDamage(t, fmt.Sprintf("%s damage %d", victim, i), err)
		}
	}
}

func FuzzTIT(f *testing.F) {
	for _, p := range []string{"actions_with_isend.txt", "actions_alltoallv.txt", "actions_allgatherv.txt", "actions_bcast_reduce_datatypes.txt"} {
		data, err := os.ReadFile(filepath.Join(titSamples, p))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("0 init 1\n0 gatherv 1 1 0 1 1\n0 reducescatter 1 1e3 0\n0 sleep 1\n"))
	f.Add([]byte("0 init\n0 send 0 0 10\n0 recv 0 0 10\n0 compute 1e")) // cut inside its last line
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := OpenFS(fstest.MapFS{"t.txt": {Data: data}}, "t.txt", Options{})
		// The converter's cost grows with the ranks; with the bytes of a
		// collective, which its algorithm may pipeline in chunks, it is
		// bounded by ConvertAll (trace.ErrTooManyOps).
		if err == nil && tr.NumRanks() <= 256 {
			err = tracetest.ConvertAll(tr)
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

// TestTITHugeCollective converts, as FuzzTIT does, the input that stalled
// it: a 4-rank allgatherv of 275 GB, which MPICH's ring cuts into 32 KiB
// pieces, 17.5 M ops unbounded. ConvertAll stops rank 0 inside the
// expansion, at its share of tracetest.ConvertBudget.
func TestTITHugeCollective(t *testing.T) {
	data := fuzzCorpusEntry(t, "testdata/fuzz/FuzzTIT/a761cac9437e4f8e")
	tr, err := OpenFS(fstest.MapFS{"t.txt": {Data: data}}, "t.txt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	err = tracetest.ConvertAll(tr)
	want := "rank 0: MPI_Allgatherv at t=0: trace: too many ops: more than 250000 ops in the rank, expanding allgatherv/ring"
	if !errors.Is(err, trace.ErrTooManyOps) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v\nwant ErrTooManyOps with %q", err, want)
	}
}

// fuzzCorpusEntry reads the []byte of a "go test fuzz v1" file.
func fuzzCorpusEntry(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	head, value, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	quoted, ok := strings.CutPrefix(value, "[]byte(")
	quoted, ok2 := strings.CutSuffix(quoted, ")")
	data, err := strconv.Unquote(quoted)
	if head != "go test fuzz v1" || !ok || !ok2 || err != nil {
		t.Fatalf("%s: not a go test fuzz v1 file of one []byte (%v)", name, err)
	}
	return []byte(data)
}

// TestTITIncompleteLastLine: a file that ends inside its last line (no
// newline) with the line short of a complete action is an error saying
// so, with the line and column, in a shared file, a rank file of an index
// and the index itself; a last line without its newline that is complete
// converts, and a last line whose error no cut explains says only that.
func TestTITIncompleteLastLine(t *testing.T) {
	shared := "0 init\n1 init\n0 recv 1 0 10\n"
	rank0, rank1 := "0 init\n0 recv 1 0 10\n", "1 init\n"
	index := "r0.txt\nr1.txt\n"
	for _, tc := range []struct {
		name string
		fsys fstest.MapFS
		want string // "": converts
	}{
		{"shared: fields missing", fstest.MapFS{"t.txt": {Data: []byte(shared + "1 send 0")}},
			"trace: t.txt:4:8: incomplete line, the file ends inside it: tit: send: 1 arguments, expected 3 to 4"},
		{"shared: number cut", fstest.MapFS{"t.txt": {Data: []byte(shared + "1 send 0 0 10\n1 compute 1e")}},
			"trace: t.txt:5:11: incomplete line, the file ends inside it: tit: flops \"1e\" is not a number"},
		{"shared: action cut", fstest.MapFS{"t.txt": {Data: []byte(shared + "1 send 0 0 10\n1 comp")}},
			"trace: t.txt:5:3: incomplete line, the file ends inside it: tit: unknown action \"comp\""},
		{"shared: rank alone", fstest.MapFS{"t.txt": {Data: []byte(shared + "1 send 0 0 10\n1")}},
			"trace: t.txt:5: incomplete line, the file ends inside it: tit: rank 1: no action"},
		{"shared: cut line of a rank read before the others", fstest.MapFS{"t.txt": {Data: []byte("1 init\n0 init\n1 send 0 0 10\n# end\n0 recv 1 0")}},
			"trace: t.txt:5:10: incomplete line, the file ends inside it: tit: recv: 2 arguments, expected 3 to 4"},
		{"index: rank file cut", fstest.MapFS{"idx": {Data: []byte(index)}, "r0.txt": {Data: []byte(rank0)}, "r1.txt": {Data: []byte(rank1 + "1 send 0 0")}},
			"trace: r1.txt:2:10: incomplete line, the file ends inside it: tit: send: 2 arguments, expected 3 to 4"},
		{"index cut", fstest.MapFS{"idx": {Data: []byte("r0.txt\nr1.t")}, "r0.txt": {Data: []byte(rank0)}, "r1.txt": {Data: []byte(rank1 + "1 send 0 0 10\n")}},
			"trace: idx:2:1: incomplete line, the file ends inside it: tit: trace file of rank 1 \"r1.t\" not found (looked for r1.t and r1.t)"},
		{"shared: complete without a newline", fstest.MapFS{"t.txt": {Data: []byte(shared + "1 send 0 0 10")}}, ""},
		{"shared: complete, blanks, no newline", fstest.MapFS{"t.txt": {Data: []byte(shared + "1 send 0 0 10 \r")}}, ""},
		{"index: complete without a newline", fstest.MapFS{"idx": {Data: []byte("r0.txt\nr1.txt")}, "r0.txt": {Data: []byte(rank0)}, "r1.txt": {Data: []byte(rank1 + "1 send 0 0 10")}}, ""},
		{"shared: too many arguments is no cut", fstest.MapFS{"t.txt": {Data: []byte(shared + "1 send 0 0 10 1 7")}},
			"trace: t.txt:4:17: tit: send: 5 arguments, expected 3 to 4"},
		{"shared: an earlier field is no cut", fstest.MapFS{"t.txt": {Data: []byte(shared + "1 send 5 0 10")}},
			"trace: t.txt:4:8: tit: peer 5 outside 0..1"},
		{"shared: cut line with a newline is not incomplete", fstest.MapFS{"t.txt": {Data: []byte(shared + "1 send 0\n")}},
			"trace: t.txt:4:8: tit: send: 1 arguments, expected 3 to 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := "t.txt"
			if _, ok := tc.fsys["idx"]; ok {
				name = "idx"
			}
			tr, err := OpenFS(tc.fsys, name, Options{})
			if err == nil {
				err = tracetest.ConvertAll(tr)
			}
			tracetest.CheckLastLine(t, err, tc.want)
		})
	}
}

// TestTITConvertErrorWhere: a conversion error names the call by its
// file and line, in a shared file (the line in the file, not among the
// rank's lines) and in a rank file of an index; the MPI_Finalize added
// after a rank's last action (a trace without finalize) by the end of the
// file and the line of that action, not a line of its own or a comment
// after it.
func TestTITConvertErrorWhere(t *testing.T) {
	rank0 := "0 init\n0 send 1 0 10\n0 compute 1e3\n0 send 1 0 10\n0 send 1 0 10\n"
	rank1 := "1 init\n1 recv 0 0 10\n1 recv 0 0 10\n1 recv 0 0 10\n"
	shared := "# two ranks\n1 init\n0 init\n0 send 1 0 10\n1 recv 0 0 10\n0 compute 1e3\n1 recv 0 0 10\n0 send 1 0 10\n1 recv 0 0 10\n0 send 1 0 10\n"
	open0 := "0 init\n0 send 1 0 10\n0 compute 1e3\n\n# no finalize\n"
	open1 := "1 init\n1 recv 0 0 10\n"
	openShared := "# two ranks, no finalize\n0 init\n1 init\n0 send 1 0 10\n1 recv 0 0 10\n0 compute 1e3\n1 compute 1e3\n"
	for _, tc := range []struct {
		name   string
		fsys   fstest.MapFS
		file   string
		maxOps int64
		want   string
	}{
		{"shared", fstest.MapFS{"t.txt": {Data: []byte(shared)}}, "t.txt", 3,
			"t.txt:10: rank 0: MPI_Send at t=1000: trace: too many ops: more than 3 ops in the rank"},
		{"index", fstest.MapFS{"idx": {Data: []byte("r0.txt\nr1.txt\n")}, "r0.txt": {Data: []byte(rank0)}, "r1.txt": {Data: []byte(rank1)}}, "idx", 3,
			"r0.txt:5: rank 0: MPI_Send at t=1000: trace: too many ops: more than 3 ops in the rank"},
		{"shared, implicit finalize", fstest.MapFS{"t.txt": {Data: []byte(openShared)}}, "t.txt", 1,
			"t.txt: end of file (implicit call after line 6): rank 0: MPI_Finalize at t=1000: trace: too many ops: more than 1 ops in the rank"},
		{"index, implicit finalize", fstest.MapFS{"idx": {Data: []byte("r0.txt\nr1.txt\n")}, "r0.txt": {Data: []byte(open0)}, "r1.txt": {Data: []byte(open1)}}, "idx", 1,
			"r0.txt: end of file (implicit call after line 3): rank 0: MPI_Finalize at t=1000: trace: too many ops: more than 1 ops in the rank"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := OpenFS(tc.fsys, tc.file, Options{})
			if err != nil {
				t.Fatal(err)
			}
			msg, _ := tracetest.ConvertWhere(t, tr, tc.maxOps)
			if !strings.HasPrefix(msg, tc.want) {
				t.Errorf("err = %s\nwant %s...", msg, tc.want)
			}
		})
	}
}

// TestTITClockBeyondInt64: flops that take a rank's clock past what an
// int64 of ns holds are refused at their line; before, the clock wrapped
// when a call's time was taken, and the computation was lost without an
// error. A clock past 2^62 ns is refused at the next action.
func TestTITClockBeyondInt64(t *testing.T) {
	for _, tc := range []struct{ name, text, want string }{
		{"flops", "0 init\n0 compute 1e30\n0 finalize\n", "t.txt:2:11: tit: the rank's clock reaches 1e+30 ns here, beyond the 9223372036854775807 ns a call's time holds"},
		{"flops, then the implicit finalize", "0 init\n0 compute 1e30\n", "t.txt:2:11: tit: the rank's clock reaches 1e+30 ns here"},
		{"flops added up", "0 init\n0 compute 4e18\n0 compute 4e18\n0 finalize\n", "t.txt:4:3: tit: time 8e+18 ns out of range"},
		{"sleeps added up", "0 init\n0 sleep 1e9\n0 sleep 1e9\n0 sleep 1e9\n0 sleep 1e9\n0 sleep 1e9\n0 finalize\n", "t.txt:7:3: tit: time 5e+18 ns out of range"},
		{"a call after 2^62 ns", "0 init\n0 compute 5e18\n0 finalize\n", "t.txt:3:3: tit: time 5e+18 ns out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := OpenFS(titFS(tc.text), "t.txt", Options{})
			if err == nil {
				_, err = trace.Convert(tr, trace.ConvertOptions{}, func(*goal.RankBlock) error { return nil })
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v\nwant one containing %q", err, tc.want)
			}
		})
	}
}
