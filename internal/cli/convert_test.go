package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/trace"
)

// writeTraceDir writes a 2-rank trace: an allreduce, and on rank 1 an
// MPI_Abort when abort is set.
func writeTraceDir(t *testing.T, abort bool) string {
	t.Helper()
	return writeTraceDirOf(t, abort, "")
}

// writeTraceDirOf is writeTraceDir with lib, a MPI_Get_library_version
// line, in the headers.
func writeTraceDirOf(t *testing.T, abort bool, lib string) string {
	t.Helper()
	dir := t.TempDir()
	for r := 0; r < 2; r++ {
		f, err := os.Create(filepath.Join(dir, trace.FileName(r)))
		if err != nil {
			t.Fatal(err)
		}
		w, err := trace.NewWriter(f, trace.Header{Rank: r, Size: 2, T0: 100, Library: lib})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []*trace.Comm{{ID: 0, Members: []int32{0, 1}}, {ID: 1, Members: []int32{int32(r)}}} {
			if err := w.WriteComm(c); err != nil {
				t.Fatal(err)
			}
		}
		calls := []trace.Call{trace.NewCall(trace.FuncInit, 0, 100), trace.NewCall(trace.FuncAllreduce, 1000, 1500)}
		calls[1].Comm, calls[1].Bytes, calls[1].Type = 0, 4096, trace.Datatype{Size: 8, Extent: 8}
		if abort && r == 1 {
			c := trace.NewCall(trace.FuncAbort, 2000, 2100)
			c.Comm = 0
			calls = append(calls, c)
		}
		calls = append(calls, trace.NewCall(trace.FuncFinalize, 3000, 3100))
		for i := range calls {
			if err := w.WriteCall(&calls[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(trace.EndFinalize); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	return dir
}

func TestConvertTrace(t *testing.T) {
	dir := writeTraceDir(t, false)
	out := filepath.Join(t.TempDir(), "ar.goal")
	code, _, e := run("convert", "--coll-algo", "allreduce=ring", "--compute-scale", "2", dir, out)
	if code != ExitOK || !strings.Contains(e, "2 ranks, 2 MPI call records") && !strings.Contains(e, "converted") {
		t.Fatalf("exit %d: %s", code, e)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	// Ring allreduce on 2 ranks of 4096 bytes: 2 blocks of 2048, one
	// reduce-scatter and one allgather step; the computation doubled.
	if !strings.Contains(string(data), "send 2048b to 1") || !strings.Contains(string(data), "calc 1800") {
		t.Fatalf("schedule:\n%s", data)
	}
	if code, out, _ := run("sim", out); code != ExitOK || !strings.Contains(out, "max finishing time") {
		t.Fatalf("sim: exit %d\n%s", code, out)
	}
}

func TestConvertTraceErrors(t *testing.T) {
	dir := writeTraceDir(t, true)
	outDir := t.TempDir()
	out := filepath.Join(outDir, "x.bin")
	code, _, e := run("convert", dir, out)
	if code != ExitError || !strings.Contains(e, "unsupported MPI calls") || !strings.Contains(e, "MPI_Abort x1") {
		t.Fatalf("exit %d: %s", code, e)
	}
	if entries, _ := os.ReadDir(outDir); len(entries) != 0 {
		t.Fatalf("a failed conversion left %v", entries)
	}
	if code, _, e := run("convert", "--unsupported=calc", dir, out); code != ExitOK || !strings.Contains(e, "unsupported calls counted as computation: MPI_Abort ×1") {
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, bad := range []string{"allreduce", "allreduce=nope", "nosuch=ring"} {
		if code, _, _ := run("convert", "--coll-algo", bad, dir, out); code != ExitUsage {
			t.Errorf("--coll-algo %s: exit %d, want %d", bad, code, ExitUsage)
		}
	}
}

// TestReduceCostOverflow: a --reduce-cost that makes a collective's
// reduction longer than a calc holds is an error naming the flag, the call,
// the algorithm and the limit, with no output; it was written as a calc of
// 2^63 ns, exit 0. Up to the limit the calc is written as computed.
func TestReduceCostOverflow(t *testing.T) {
	in := "../../trace/dumpi/testdata/sstmacro-testtrace-4"
	const limit = "more than the 4611686018427387903 ns a calc holds"
	for _, tc := range []struct {
		name string
		args []string // before the input and the output
		code int
		msg  []string
	}{
		{"convert 1e300", []string{"convert", "--reduce-cost", "1e300"}, ExitError,
			[]string{"rank 0: MPI_Allreduce at t=2240000: --reduce-cost 1e+300: ", "allreduce/recdoub: combining 4 bytes at the reduction cost 1e+300 ns/byte is 4e+300 ns: " + limit}},
		{"convert just beyond", []string{"convert", "--reduce-cost", "1.153e18"}, ExitError,
			[]string{"--reduce-cost 1.153e+18: ", "combining 4 bytes", "is 4.612e+18 ns: " + limit}},
		{"extrapolate 1e300", []string{"extrapolate", "--factor", "2", "--reduce-cost", "1e300"}, ExitError,
			[]string{"--reduce-cost 1e+300: ", limit}},
		{"convert within the limit", []string{"convert", "--reduce-cost", "1.15e18"}, ExitOK, []string{"calc 4600000000000000000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.goal")
			code, _, e := run(append(tc.args, in, out)...)
			data, _ := os.ReadFile(out)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, e)
			}
			if code != ExitOK {
				if data != nil {
					t.Errorf("an output was written")
				}
				data = []byte(e)
			}
			for _, m := range tc.msg {
				if !strings.Contains(string(data), m) {
					t.Errorf("%q lacks %q", data, m)
				}
			}
		})
	}
}

// TestConvertImported converts a sample of each imported format, its
// format detected or given, and simulates the result.
func TestConvertImported(t *testing.T) {
	td := "../../trace/"
	tests := []struct {
		name string
		args []string
		want string // in the log
	}{
		{"liballprof directory", []string{td + "liballprof/testdata/vladimir-4"}, "liballprof: 4 rank files"},
		{"liballprof file", []string{td + "liballprof/testdata/sphot-4/htor-coll-rank-2.dat"}, "converted " + td + "liballprof/testdata/sphot-4/htor-coll-rank-2.dat (liballprof trace)"},
		{"liballprof MPICH", []string{"--from", "liballprof", "--mpi", "mpich", td + "liballprof/testdata/bcast-4"}, "mpich's constants"},
		{"tit shared", []string{td + "tit/testdata/simgrid-replay-examples/actions_barrier.txt"}, "tit: 3 ranks in one shared file, compute at 1e+09 flop/s"},
		{"tit index", []string{"--from", "tit", td + "tit/testdata/simgrid-replay-examples/split_traces"}, "tit: 2 ranks in an index of 2 files"},
		{"tit directory", []string{td + "tit/testdata/simgrid-replay-examples"}, "tit: 2 ranks in an index of 2 files"},
		{"tit directory, format given", []string{"--from", "tit", td + "tit/testdata/simgrid-replay-examples"}, "tit: 2 ranks in an index of 2 files"},
		{"dumpi directory", []string{td + "dumpi/testdata/sstmacro-testbgp-7"}, "dumpi trace " + td + "dumpi/testdata/sstmacro-testbgp-7: 7 ranks"},
		{"dumpi meta", []string{td + "dumpi/testdata/sstmacro-testtrace-4/testtrace.meta"}, "MPI_Allreduce"},
		{"dumpi file", []string{td + "dumpi/testdata/sstmacro-testtrace-4/testtrace-0002.bin"}, "4 ranks"},
		{"chakra directory", []string{td + "chakra/testdata/astrasim-allreduce-16npus-1MB"}, "chakra trace " + td + "chakra/testdata/astrasim-allreduce-16npus-1MB: 16 ranks"},
		{"otf2 anchor", []string{"--unsupported=calc", td + "otf2/testdata/sstmacro-otf2-10/traces.otf2"}, "otf2 trace " + td + "otf2/testdata/sstmacro-otf2-10/traces.otf2: 10 ranks"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.goal")
			code, _, e := run(append(append([]string{"convert"}, tc.args...), out)...)
			if code != ExitOK || !strings.Contains(e, tc.want) {
				t.Fatalf("exit %d, want %q in:\n%s", code, tc.want, e)
			}
			data, err := os.ReadFile(out)
			if err != nil || !strings.HasPrefix(string(data), "// gopsim convert ") {
				t.Fatalf("%v: %.80q", err, data)
			}
			if code, o, e := run("sim", out); code != ExitOK || !strings.Contains(o, "max finishing time") {
				t.Fatalf("sim: exit %d\n%s%s", code, o, e)
			}
		})
	}
}

func TestConvertImportedFlags(t *testing.T) {
	td := "../../trace/"
	computeNs := func(args ...string) string {
		t.Helper()
		out := filepath.Join(t.TempDir(), "out.bin")
		code, _, e := run(append(append([]string{"convert"}, args...), out)...)
		if code != ExitOK {
			t.Fatalf("exit %d: %s", code, e)
		}
		i := strings.Index(e, " ns of computation")
		j := strings.LastIndex(e[:i], "(")
		return e[j+1 : i]
	}
	if a, b := computeNs(td+"liballprof/testdata/vladimir-4"), computeNs("--timemult", "1", td+"liballprof/testdata/vladimir-4"); a != b+"000" {
		t.Errorf("--timemult 1: %s ns of computation, default %s", b, a)
	}
	if a, b := computeNs(td+"tit/testdata/simgrid-replay-examples/actions_allreduce.txt"), computeNs("--host-speed", "2e9", td+"tit/testdata/simgrid-replay-examples/actions_allreduce.txt"); a != "3000000000" || b != "1500000000" { // 3 ranks, 1e9 flops each
		t.Errorf("--host-speed: %s and %s ns of computation, want 3000000000 and 1500000000", a, b)
	}
	for _, bad := range [][]string{{"--from", "otf3"}, {"--timemult", "x"}} {
		if code, _, _ := run(append(append([]string{"convert"}, bad...), td+"liballprof/testdata/vladimir-4", "x.bin")...); code != ExitUsage {
			t.Errorf("%v: exit %d, want %d", bad, code, ExitUsage)
		}
	}
	if code, _, e := run("convert", "--timemult", "-1", td+"liballprof/testdata/vladimir-4", filepath.Join(t.TempDir(), "x.bin")); code != ExitUsage || !strings.Contains(e, "--timemult -1: want a factor > 0") {
		t.Errorf("--timemult -1: exit %d: %s", code, e)
	}
	// A directory of no known format.
	if code, _, e := run("convert", t.TempDir(), filepath.Join(t.TempDir(), "x.bin")); code != ExitError || !strings.Contains(e, "not a trace of a known format") {
		t.Errorf("empty directory: exit %d: %s", code, e)
	}
}

// TestConvertImportedUnsupported: an MPI call an importer cannot model is
// an error listing it, or computation with --unsupported=calc, which
// convert, validate and extrapolate list with counts as they list
// collectives ("MPI_Win_fence ×2", not Go's "map[MPI_Win_fence:2]").
func TestConvertImportedUnsupported(t *testing.T) {
	dir := t.TempDir()
	for r := 0; r < 2; r++ {
		writeFile(t, dir, fmt.Sprintf("pmpi-trace-rank-%d.txt", r), fmt.Sprintf(
			"# htor's PMPI Tracer 0.9 Output File\nMPI_Init:-:1:2:10\nMPI_Win_fence:11:0:5:12\nMPI_Barrier:20:7,%d,2:30\nMPI_Finalize:40:-\n", r))
	}
	out := filepath.Join(t.TempDir(), "x.bin")
	code, _, e := run("convert", dir, out)
	if code != ExitError || !strings.Contains(e, "unsupported MPI calls") || !strings.Contains(e, "MPI_Win_fence x2") ||
		strings.Count(e, "trace:") != 1 { // not "trace: liballprof ...: trace: unsupported"
		t.Fatalf("exit %d: %s", code, e)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"convert", []string{"convert", "--unsupported=calc", dir, out}, "unsupported calls counted as computation: MPI_Win_fence ×2\n"},
		{"validate", []string{"validate", "--unsupported=calc", dir}, "unsupported calls counted as computation: MPI_Win_fence ×2\n"},
		{"extrapolate", []string{"extrapolate", "--factor", "2", "--unsupported=calc", dir, out}, "unsupported calls counted as computation (per copy): MPI_Win_fence ×2\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, e := run(tc.args...)
			if code != ExitOK || !strings.Contains(e, tc.want) {
				t.Errorf("exit %d, want %q in:\n%s", code, tc.want, e)
			}
		})
	}
}

// TestConvertToTIT exports a schedule and a trace as SimGrid
// time-independent traces, reads them back and simulates both.
func TestConvertToTIT(t *testing.T) {
	dir := t.TempDir()
	sched := filepath.Join(dir, "bcast.goal")
	if code, _, e := run("gen", "-p", "binomialtreebcast", "-s", "6", "-d", "512", "-o", sched); code != ExitOK {
		t.Fatalf("gen: exit %d: %s", code, e)
	}
	maxTime := func(path string) string {
		t.Helper()
		code, o, e := run("sim", path)
		i := strings.Index(o, "max finishing time")
		if code != ExitOK || i < 0 {
			t.Fatalf("sim %s: exit %d\n%s%s", path, code, o, e)
		}
		return strings.SplitN(o[i:], "\n", 2)[0]
	}
	tests := []struct {
		name string
		args []string // before IN
		in   string
		want []string // in OUT
		same bool     // IN is a schedule whose simulated time OUT keeps
	}{
		{"schedule", []string{"--to", "tit"}, sched,
			[]string{"# gopsim convert --to tit --host-speed 1e+09 " + sched + " (schedule, text)\n", "0 init\n0 isend 1 0 512\n", "1 wait 0 1 0\n1 isend 3 0 512\n", "5 finalize\n"}, true},
		{"trace", []string{"--to", "tit", "--coll-algo", "allreduce=ring", "--host-speed", "2e9"}, writeTraceDir(t, false),
			[]string{"(gopsim trace)\n", "compute in flops at 2e+09 flop/s\n", "0 compute 1800\n0 irecv 1 0 2048\n", "1 compute 3000\n1 finalize\n"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.tit")
			code, _, e := run(append(append([]string{"convert"}, tc.args...), tc.in, out)...)
			if code != ExitOK || !strings.Contains(e, "(SimGrid time-independent trace)") {
				t.Fatalf("exit %d: %s", code, e)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(string(data), w) {
					t.Errorf("no %q in:\n%s", w, data)
				}
			}
			// Read back (detected as TIT) at the same host speed.
			back := filepath.Join(t.TempDir(), "back.goal")
			speed := "1e9"
			if i := slices.Index(tc.args, "--host-speed"); i >= 0 {
				speed = tc.args[i+1]
			}
			if code, _, e := run("convert", "--host-speed", speed, out, back); code != ExitOK || !strings.Contains(e, "tit trace") {
				t.Fatalf("reading back: exit %d: %s", code, e)
			}
			got := maxTime(back)
			if tc.same {
				if want := maxTime(tc.in); got != want {
					t.Errorf("read back: %s, original: %s", got, want)
				}
			}
		})
	}
}

func TestConvertToTITErrors(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "any.goal", "num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0\n}\nrank 1 {\nl1: recv 1b from -1 tag 0\n}\n")
	out := filepath.Join(dir, "out.tit")
	code, _, e := run("convert", "--to", "tit", in, out)
	if code != ExitError || !strings.Contains(e, "rank 1 op 0 (l1): recv from any source") {
		t.Errorf("wildcard: exit %d: %s", code, e)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed export left %s: %v", out, err)
	}
	if code, _, _ := run("convert", "--to", "dot", in, out); code != ExitUsage {
		t.Errorf("--to dot: exit %d, want %d", code, ExitUsage)
	}
}

// TestConvertCollSelect: the output comment and the log say whose rules
// the collectives followed, and with auto the library the trace names
// that chose them; auto on a trace that names no library uses MPICH's
// with a note.
func TestConvertCollSelect(t *testing.T) {
	const (
		mpich   = "MPICH Version: 4.0.2"
		openMPI = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022"
	)
	dirs := map[string]string{} // 4096 B allreduce on 2 ranks, by library
	for _, lib := range []string{"", mpich, openMPI} {
		dirs[lib] = writeTraceDirOf(t, false, lib)
	}
	for _, tc := range []struct {
		lib        string
		args       []string
		comment    string
		algorithms string
	}{
		{"", nil, "// collectives: mpich rules (--coll-select auto); note: the trace does not name its MPI library", "allreduce/rabenseifner ×2"},
		{"", []string{"--coll-select", "openmpi"}, "// collectives: openmpi rules (--coll-select openmpi)\n", "allreduce/ompi_ring ×2"},
		{"", []string{"--coll-select", "mpich"}, "// collectives: mpich rules (--coll-select mpich)\n", "allreduce/rabenseifner ×2"},
		{mpich, nil, "// collectives: mpich rules (--coll-select auto) of the trace's library, MPICH Version: 4.0.2\n", "allreduce/rabenseifner ×2"},
		{openMPI, nil, "// collectives: openmpi rules (--coll-select auto) of the trace's library, Open MPI v4.1.4\n", "allreduce/ompi_ring ×2"},
		{openMPI, []string{"--coll-select", "mpich"}, "// collectives: mpich rules (--coll-select mpich)\n", "allreduce/rabenseifner ×2"},
	} {
		dir := dirs[tc.lib]
		out := filepath.Join(t.TempDir(), "ar.goal")
		code, _, e := run(append(append([]string{"convert"}, tc.args...), dir, out)...)
		if code != ExitOK {
			t.Fatalf("%v: exit %d: %s", tc.args, code, e)
		}
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), tc.comment) || !strings.Contains(e, strings.TrimPrefix(strings.TrimSpace(tc.comment), "// ")) {
			t.Errorf("%v: no %q in the output or the log:\n%s\n%s", tc.args, tc.comment, data, e)
		}
		if !strings.Contains(e, "per rank and call: "+tc.algorithms) {
			t.Errorf("%v: log without %s:\n%s", tc.args, tc.algorithms, e)
		}
	}
	if code, _, _ := run("convert", "--coll-select", "lam", dirs[""], filepath.Join(t.TempDir(), "x.goal")); code != ExitUsage {
		t.Errorf("--coll-select lam: exit %d, want %d", code, ExitUsage)
	}
}

// TestConvertEchoesOptions: the comments at the top of a schedule (or TIT
// trace) converted or extrapolated from a trace echo the options of the
// conversion, so that the file says how it was made.
func TestConvertEchoesOptions(t *testing.T) {
	in := "../../trace/liballprof/testdata/vladimir-4"
	dir := t.TempDir()
	lib := writeFile(t, dir, "lib.json", `{"library": {"name": "x", "first_contact_ns": "1us", "comm_create_ns": 0, "first_call": []}}`)
	flags := []string{"--compute-scale", "0.5", "--reduce-cost", "4GB/s", "--coll-algo", "allreduce=ring", "--unsupported", "calc", "--timemult", "100", "--mpi", "openmpi"}
	const want = "options: compute scale 0.5, reduce cost 0.25 ns/byte, unsupported calls: calc, collectives allreduce=ring, liballprof µs × 100, openmpi's constants"
	for _, tc := range []struct {
		name string
		args []string
		out  string
		want string
	}{
		{"convert", append(append([]string{"convert", "--library-costs", lib}, flags...), in), "c.goal", "// " + want + ", library one-time costs " + lib + "\n"},
		{"convert defaults", []string{"convert", in}, "d.goal", "// options: compute scale 1, reduce cost 0 ns/byte, unsupported calls: error, liballprof µs × 1000, library one-time costs none\n"},
		{"convert no computation", []string{"convert", "--compute-scale", "0", in}, "z.goal", "// options: compute scale 0,"},
		{"convert to tit", append(append([]string{"convert", "--to", "tit"}, flags...), in), "c.tit", "# " + want + "\n"},
		{"extrapolate", append(append([]string{"extrapolate", "--factor", "2", "--library-costs", lib}, flags...), in), "x.goal", "// " + want + ", library one-time costs " + lib + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(dir, tc.out)
			if code, _, e := run(append(tc.args, out)...); code != ExitOK {
				t.Fatalf("exit %d: %s", code, e)
			}
			data, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			head, _, _ := strings.Cut(string(data), "num_ranks")
			if tc.out == "c.tit" {
				head, _, _ = strings.Cut(string(data), "0 init")
			}
			if !strings.Contains(head, tc.want) {
				t.Errorf("the comments at the top lack %q:\n%s", tc.want, head)
			}
		})
	}
}
