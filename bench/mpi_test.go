package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gopsim/gopsim/internal/testenv"
)

// The mpi backend's tests build bin/gopsim-prtt with the Makefile and run
// it under the default mpirun (Open MPI). Without mpicc or mpirun they
// skip, unless $CI is set: then they fail.

var prttSetup struct {
	once     sync.Once
	prog     string
	launcher []string
	err      error
	missing  string
}

// mpiRootEnv lets Open MPI run as root (tests run as root in containers).
var mpiRootEnv = []string{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"}

// needPRTT returns gopsim-prtt, built, and the launcher to run it with.
func needPRTT(t *testing.T) (prog string, launcher []string) {
	t.Helper()
	s := &prttSetup
	s.once.Do(func() {
		for _, tool := range []string{"mpicc", "mpirun", "make"} {
			if _, err := exec.LookPath(tool); err != nil {
				s.missing = tool
				return
			}
		}
		root, err := filepath.Abs("..")
		if err != nil {
			s.err = err
			return
		}
		cmd := exec.Command("make", "--no-print-directory", "-s", "-C", root, "bin/gopsim-prtt")
		if out, err := cmd.CombinedOutput(); err != nil {
			s.err = fmt.Errorf("make bin/gopsim-prtt: %v\n%s", err, out)
			return
		}
		s.prog = filepath.Join(root, "bin", "gopsim-prtt")
		s.launcher = []string{"mpirun", "-np", "2"}
		if out, _ := exec.Command("mpirun", "--version").CombinedOutput(); bytes.Contains(out, []byte("Open MPI")) {
			s.launcher = append(s.launcher, "--oversubscribe")
		}
	})
	if s.missing != "" {
		testenv.Missing(t, s.missing+" not found: the mpi backend's tests need an MPI (make mpi-deps)")
	}
	if s.err != nil {
		t.Fatal(s.err)
	}
	return s.prog, s.launcher
}

// TestMPIMeasure calibrates through gopsim-prtt on two ranks of this host
// (shared memory) with a short configuration, in two passes, each in a
// launch of its own: the table must be complete and the fit sane. Shared-memory timings on a shared machine are noisy,
// so no value is checked exactly.
func TestMPIMeasure(t *testing.T) {
	prog, launcher := needPRTT(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var log bytes.Buffer
	p, err := StartMPI(ctx, MPIOptions{Launcher: launcher, Program: prog, Env: mpiRootEnv, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	info := p.Info()
	if info.Hosts[0] == "" || info.Hosts[1] == "" || info.Library == "" {
		t.Errorf("info %+v", info)
	}
	sizes := []int64{1, 1024, 8192, 65536}
	const reps, n = 10, 4
	start := time.Now()
	tab, err := Measure(ctx, p, Config{Sizes: sizes, Reps: reps, Warmup: 3, N: n, Passes: 2, Launches: 2})
	if got := p.Launches(); err == nil && got != 2 {
		t.Errorf("%d launches, want 2 (one per pass)", got)
	}
	if p.Info() != info {
		t.Errorf("second launch: %+v, first %+v", p.Info(), info)
	}
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	t.Logf("%s on %s and %s, %d rows in %v", info.Library, info.Hosts[0], info.Hosts[1], len(tab), time.Since(start).Round(time.Millisecond))

	// Complete: every size has reps rows of each kind, in Measure's order.
	type kind struct {
		n       int
		delayed bool
		size    int64
		exch    bool
	}
	rows := map[kind]int{}
	for _, s := range tab {
		if s.PRTTNs <= 0 || s.PRTTNs > float64(10*time.Second) {
			t.Errorf("implausible sample %+v", s)
		}
		if s.DelayNs > 0 && s.PRTTNs < float64(s.N-1)*s.DelayNs {
			t.Errorf("PRTT(%d,d,%d) = %g ns is less than (n-1)d = %g ns", s.N, s.SizeBytes, s.PRTTNs, float64(s.N-1)*s.DelayNs)
		}
		rows[kind{s.N, s.DelayNs > 0, s.SizeBytes, s.Exchange}]++
	}
	for _, s := range sizes {
		for _, k := range []kind{{1, false, s, false}, {n, false, s, false}, {n, true, s, false}, {2, true, s, false}, {1, false, s, true}, {n, false, s, true}} {
			if rows[k] != reps {
				t.Errorf("%d rows of %s(%d,%v,%d), want %d", rows[k], map[bool]string{false: "PRTT", true: "X"}[k.exch], k.n, map[bool]string{false: "0", true: "d"}[k.delayed], s, reps)
			}
		}
	}
	if len(tab) != 6*reps*len(sizes) {
		t.Errorf("%d rows, want %d", len(tab), 6*reps*len(sizes))
	}

	// Sane: the fit works, its numbers are finite, a message costs
	// something and less than a millisecond, and a larger one costs more.
	pf, err := Fit(tab, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range pf.Ranges {
		t.Logf("%d..%d bytes: L=%.0f ns o=%.0f ns g=%.0f ns G=%.3f ns/byte O=%.3f ns/byte", r.MinBytes, r.MaxBytes, r.L, r.Overhead, r.Gap, r.GapPerByte, r.OverheadPerByte)
		for _, x := range []float64{r.L, r.Overhead, r.Gap, r.GapPerByte, r.OverheadPerByte} {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Errorf("range %+v: not finite", r)
			}
		}
	}
	for _, w := range pf.Warnings {
		t.Logf("warning: %s", w)
	}
	pts := pf.Fit.Points
	if len(pts) != len(sizes) {
		t.Fatalf("%d points, want %d", len(pts), len(sizes))
	}
	if h := pts[0].HalfRTT; !(h > 0 && h < 1e6) {
		t.Errorf("half round trip of 1 byte %.0f ns, want 0..1 ms", h)
	}
	if len(pf.Fit.Exchange) != len(sizes) {
		t.Errorf("%d exchanges compared with the simulation, want %d", len(pf.Fit.Exchange), len(sizes))
	}
	for _, x := range pf.Fit.Exchange {
		if !(x.MeasuredNs > 0 && x.MeasuredNs < 1e6 && x.Ratio > 0) {
			t.Errorf("exchange %+v", x)
		}
	}
	if pts[len(pts)-1].HalfRTT <= pts[0].HalfRTT {
		t.Errorf("half round trip of %d bytes (%.0f ns) not above that of 1 byte (%.0f ns)", sizes[len(sizes)-1], pts[len(pts)-1].HalfRTT, pts[0].HalfRTT)
	}
}

// fakeLauncher is a launcher that runs script with sh instead of an MPI
// program, which it receives as $1.
func fakeLauncher(script string) []string { return []string{"sh", "-c", script, "sh"} }

func TestStartMPIErrors(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	prog := filepath.Join(t.TempDir(), "gopsim-prtt")
	if err := os.WriteFile(prog, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	const hello = `echo "@prtt hello 2 2 a b Fake MPI 1.0"; `
	tests := []struct {
		name     string
		launcher []string
		program  string
		want     string
		is       error
	}{
		{"no program", fakeLauncher("true"), filepath.Join(t.TempDir(), "none"), "not a file: build it with 'make calibrate-deps'", nil},
		{"no launcher", []string{filepath.Join(t.TempDir(), "no-mpirun")}, prog, "starting", nil},
		{"launcher fails", fakeLauncher("echo 'not MPI'; exit 3"), prog, "exit status 3", io.ErrUnexpectedEOF},
		{"program error", fakeLauncher(`echo "@prtt error 3 ranks: gopsim-prtt runs on exactly 2"; exit 1`), prog,
			"gopsim-prtt output:1:7: gopsim-prtt: 3 ranks: gopsim-prtt runs on exactly 2", ErrMPIProgram},
		{"old version", fakeLauncher(`echo "@prtt hello 0 2 a b MPI"`), prog, `protocol version "0", want 2`, ErrProtocol},
		{"bad batch", fakeLauncher(hello + `read l; read a; echo "@prtt batch 8 1"; echo "@prtt r 1 0 -4"; read q`), prog,
			"gopsim-prtt output:3:13: PRTT_NS=-4 outside 1..", ErrProtocol},
		{"dies in a batch", fakeLauncher(hello + `read l; echo "@prtt batch 8 1"; exit 7`), prog, "exit status 7", io.ErrUnexpectedEOF},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			p, err := StartMPI(ctx, MPIOptions{Launcher: tc.launcher, Program: tc.program})
			if err == nil {
				res := make([]Result, 1)
				err = p.Rounds(ctx, 8, []Round{{N: 1}}, res)
				if cerr := p.Close(); cerr == nil || err != nil && cerr != err {
					t.Errorf("Close after a failure: %v", cerr)
				}
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v, want %q (%v)", err, tc.want, tc.is)
			}
		})
	}
}

// TestMPIFakeSession runs a whole session against a shell script that
// speaks the protocol: the batch sent is pattern and repeat count, the
// results come back in order, lines without the tag go to the log.
func TestMPIFakeSession(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	prog := filepath.Join(t.TempDir(), "gopsim-prtt")
	if err := os.WriteFile(prog, nil, 0o755); err != nil {
		t.Fatal(err)
	}
	in := filepath.Join(t.TempDir(), "commands")
	script := `echo "a launcher's notice"; echo "[1,0]<stdout>:@prtt hello 2 2 h0 h1 Fake MPI 1.0"
read b; echo "$b" > ` + in + `; read r1; read r2; echo "$r1" >> ` + in + `; echo "$r2" >> ` + in + `
echo "@prtt batch 4096 4"; echo "@prtt r 1 0 100"; echo "@prtt r 3 500 2000"; echo "@prtt r 1 0 110"; echo "@prtt r 3 510 2100"; echo "@prtt end"
read q; echo "$q" >> ` + in + `; echo "@prtt bye 1 4 8"`
	var log bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p, err := StartMPI(ctx, MPIOptions{Launcher: fakeLauncher(script), Program: prog, Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if i := p.Info(); i != (MPIInfo{Hosts: [2]string{"h0", "h1"}, Library: "Fake MPI 1.0"}) {
		t.Errorf("info %+v", i)
	}
	rounds := []Round{{N: 1}, {N: 3, Delay: 500, Sleep: true}, {N: 1}, {N: 3, Delay: 500, Sleep: true}}
	res := make([]Result, len(rounds))
	if err := p.Rounds(ctx, 4096, rounds, res); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	want := []Result{{PRTT: 100}, {PRTT: 2000, Delay: 500}, {PRTT: 110}, {PRTT: 2100, Delay: 510}}
	if fmt.Sprint(res) != fmt.Sprint(want) {
		t.Errorf("results %v, want %v", res, want)
	}
	cmds, _ := os.ReadFile(in)
	if got := string(cmds); got != "batch 4096 2 2\n1 0 0 0\n3 500 1 0\nquit\n" {
		t.Errorf("commands sent:\n%s", got)
	}
	if !strings.Contains(log.String(), "a launcher's notice") {
		t.Errorf("log %q lacks the stray line; results %v", log.String(), res)
	}
}

func TestPeriod(t *testing.T) {
	a, b, c := Round{N: 1}, Round{N: 8}, Round{N: 8, Delay: 5}
	tests := []struct {
		name   string
		rounds []Round
		want   int
	}{
		{"one", []Round{a}, 1},
		{"same", []Round{a, a, a}, 1},
		{"measure", []Round{a, b, c, a, b, c, a, b, c}, 3},
		{"not whole", []Round{a, b, a}, 3},
		{"pairs", []Round{a, b, a, b, a, c}, 6},
		{"sleep differs", []Round{c, {N: 8, Delay: 5, Sleep: true}}, 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := period(tc.rounds); got != tc.want {
				t.Errorf("period %d, want %d", got, tc.want)
			}
		})
	}
}

// mpiAsk is the batch the parser tests read: 2 rounds of 8 bytes.
var mpiAsk = []Round{{N: 1}, {N: 3, Delay: 1000}}

const mpiHello = "@prtt hello 2 2 node1 node2 Open MPI v4.1.4, package: Debian\n"

// readMPITranscript reads a hello, then batches of mpiAsk until the bye,
// as a session does.
func readMPITranscript(data string) (MPIInfo, [][]Result, error) {
	r := newMPIReader(strings.NewReader(data), "out", io.Discard)
	info, err := r.hello()
	if err != nil {
		return info, nil, err
	}
	var all [][]Result
	for range 3 {
		res := make([]Result, len(mpiAsk))
		if err := r.batch(8, mpiAsk, res); err != nil {
			return info, all, err
		}
		all = append(all, res)
		if len(all) == 2 {
			break
		}
	}
	return info, all, r.bye()
}

func TestMPIOutput(t *testing.T) {
	const batch = "@prtt batch 8 2\n@prtt r 1 0 900\n@prtt r 3 1010 4500\n@prtt end\n"
	const bye = "@prtt bye 2 4 8\n"
	tests := []struct {
		name string
		in   string
		want string // error; "" for none
		is   error
	}{
		{"ok", mpiHello + batch + batch + bye, "", nil},
		{"ok with stray lines and CRLF", "Warning: something\n" + strings.ReplaceAll(mpiHello+batch, "\n", "\r\n") + "\n[1,0]<stdout>:" + batch + bye, "", nil},
		{"empty", "", "out:1:1: the output ends, want \"@prtt hello", io.ErrUnexpectedEOF},
		{"no tag", "hello 1 2 a b c\n", "out:2:1: the output ends", io.ErrUnexpectedEOF},
		{"tag alone", "@prtt \n", "out:1:7: @prtt without a keyword", ErrProtocol},
		{"hello short", "@prtt hello 2 2 a b\n", "out:1:19: hello line with 4 fields, want at least 5", ErrProtocol},
		{"hello version", "@prtt hello 1 2 a b MPI\n", `out:1:13: protocol version "1", want 2`, ErrProtocol},
		{"hello ranks", "@prtt hello 2 4 a b MPI\n", `out:1:15: "4" ranks, want 2`, ErrProtocol},
		{"program error", mpiHello + "@prtt error stdin line 1: want \"batch SIZE REPEAT K\"\n", `out:2:7: gopsim-prtt: stdin line 1: want "batch SIZE REPEAT K"`, ErrMPIProgram},
		{"batch first", "@prtt batch 8 2\n", `out:1:7: "batch", want "@prtt hello`, ErrProtocol},
		{"wrong size", mpiHello + "@prtt batch 16 2\n", "out:2:13: batch of 16-byte messages, want 8", ErrProtocol},
		{"wrong count", mpiHello + "@prtt batch 8 3\n", "out:2:15: batch of 3 rounds, want 2", ErrProtocol},
		{"size not a number", mpiHello + "@prtt batch 8x 2\n", `out:2:13: SIZE: "8x" is not an integer`, ErrProtocol},
		{"batch fields", mpiHello + "@prtt batch 8 2 1\n", "out:2:17: batch line with 3 fields, want 2", ErrProtocol},
		{"wrong n", mpiHello + "@prtt batch 8 2\n@prtt r 2 0 900\n", "out:3:9: round 1 has N=2, want 1", ErrProtocol},
		{"delay without asking", mpiHello + "@prtt batch 8 2\n@prtt r 1 5 900\n", "out:3:11: round 1: DELAY_NS=5, want 0", ErrProtocol},
		{"negative delay", mpiHello + "@prtt batch 8 2\n@prtt r 1 0 900\n@prtt r 3 -1 900\n", "out:4:11: DELAY_NS=-1 outside 0..", ErrProtocol},
		{"zero prtt", mpiHello + "@prtt batch 8 2\n@prtt r 1 0 0\n", "out:3:13: PRTT_NS=0 outside 1..", ErrProtocol},
		{"huge prtt", mpiHello + "@prtt batch 8 2\n@prtt r 1 0 99999999999999999999\n", `out:3:13: PRTT_NS: "99999999999999999999" is not an integer`, ErrProtocol},
		{"short r", mpiHello + "@prtt batch 8 2\n@prtt r 1 0\n", "out:3:11: r line with 2 fields, want 3", ErrProtocol},
		{"missing round", mpiHello + "@prtt batch 8 2\n@prtt r 1 0 900\n@prtt end\n", `out:4:7: "end", want "@prtt r N DELAY_NS PRTT_NS" of round 2 of 2`, ErrProtocol},
		{"no end", mpiHello + "@prtt batch 8 2\n@prtt r 1 0 900\n@prtt r 3 1000 900\n@prtt r 1 0 900\n", `out:5:7: "r", want "@prtt end"`, ErrProtocol},
		{"cut in a batch", mpiHello + "@prtt batch 8 2\n@prtt r 1 0 900\n", "out:4:1: the output ends, want \"@prtt r N DELAY_NS PRTT_NS\" of round 2 of 2", io.ErrUnexpectedEOF},
		{"no bye", mpiHello + batch + batch, "out:10:1: the output ends, want \"@prtt bye", io.ErrUnexpectedEOF},
		{"quit early", mpiHello + "@prtt bye 0 0 0\n", "out:2:7: the program quit instead of running a batch: its standard input ended", ErrProtocol},
		{"bad bye", mpiHello + batch + batch + "@prtt bye 2 x 8\n", `out:10:13: ROUNDS: "x" is not an integer`, ErrProtocol},
		{"long line", mpiHello + strings.Repeat("x", mpiMaxLineSize+1) + "\n", "out:2:1: line longer than 65536 bytes", ErrProtocol},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			info, res, err := readMPITranscript(tc.in)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				want := []Result{{PRTT: 900}, {PRTT: 4500, Delay: 1010}}
				if info.Hosts != [2]string{"node1", "node2"} || info.Library != "Open MPI v4.1.4, package: Debian" ||
					len(res) != 2 || fmt.Sprint(res[0]) != fmt.Sprint(want) || fmt.Sprint(res[1]) != fmt.Sprint(want) {
					t.Errorf("info %+v, results %v", info, res)
				}
				return
			}
			var oe *MPIOutputError
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &oe) || !errors.Is(err, tc.is) {
				t.Errorf("error %v, want %q (%v)", err, tc.want, tc.is)
			}
		})
	}
}

// FuzzMPIOutput checks that reading gopsim-prtt's output never panics,
// that every error is an *MPIOutputError with a sane position, and that
// accepted results are what was asked for and within the limits.
func FuzzMPIOutput(f *testing.F) {
	const batch = "@prtt batch 8 2\n@prtt r 1 0 900\n@prtt r 3 1010 4500\n@prtt end\n"
	for _, seed := range []string{
		"",
		mpiHello,
		mpiHello + batch + batch + "@prtt bye 2 4 8\n",
		"noise\r\n[1,0]<stdout>:" + mpiHello + batch,
		mpiHello + "@prtt error rank 0: cannot allocate 8 bytes\n",
		mpiHello + "@prtt batch 8 2\n@prtt r 1 0 900\n",
		mpiHello + "@prtt batch 8 2\n@prtt r 3 0 900\n",
		"@prtt hello 2 2 a b\n",
		"@prtt \n@prtt\t\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<20 {
			t.Skip()
		}
		_, res, err := readMPITranscript(string(data))
		if err != nil {
			var oe *MPIOutputError
			if !errors.As(err, &oe) {
				t.Fatalf("error %v (%T) is not an *MPIOutputError", err, err)
			}
			if oe.Line < 1 || oe.Col < 1 || oe.Name != "out" || !strings.HasPrefix(err.Error(), fmt.Sprintf("out:%d:%d: ", oe.Line, oe.Col)) {
				t.Fatalf("bad position in %v", err)
			}
			if !errors.Is(err, ErrProtocol) && !errors.Is(err, ErrMPIProgram) && !errors.Is(err, io.ErrUnexpectedEOF) {
				t.Fatalf("error %v wraps none of the documented errors", err)
			}
		}
		for _, b := range res {
			for i, x := range b {
				if x.PRTT < 1 || x.PRTT > maxPRTTNs || x.Delay < 0 || x.Delay > maxDelayNs || (mpiAsk[i].Delay == 0 && x.Delay != 0) {
					t.Fatalf("accepted result out of limits: %+v", x)
				}
			}
		}
	})
}

// needMPICHPRTT returns MPICH's gopsim-prtt (make tracer-mpich builds it
// into bin/mpich/). Without MPICH it skips, unless $CI is set: then it
// fails.
func needMPICHPRTT(t *testing.T) string {
	t.Helper()
	testenv.NeedTools(t, "MPICH is not installed (make mpi-deps installs it as root)", "mpicc.mpich", "mpif90.mpich", "mpirun.mpich", "make")
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("make", "--no-print-directory", "-s", "-C", root, "tracer-mpich").CombinedOutput(); err != nil {
		t.Fatalf("make tracer-mpich: %v\n%s", err, out)
	}
	return filepath.Join(root, "bin", "mpich", "gopsim-prtt")
}

// TestMPIWrongLauncher starts each MPI's gopsim-prtt with the other's
// launcher, which starts two processes that each are an MPI job of one
// rank: the error names the MPI the program was built for, the
// launcher's process count and the program to give instead (it said
// only "1 ranks: gopsim-prtt runs on exactly 2").
func TestMPIWrongLauncher(t *testing.T) {
	openProg, launcher := needPRTT(t)
	if launcher[0] != "mpirun" || !slices.Contains(launcher, "--oversubscribe") {
		t.Skip("the default mpirun is not Open MPI's")
	}
	mpichProg := needMPICHPRTT(t)
	for _, tc := range []struct {
		name     string
		launcher []string
		prog     string
		want     []string
	}{
		{"open-mpi-prtt/mpich-launcher", []string{"mpirun.mpich", "-np", "2"}, openProg,
			[]string{"built for Open MPI", "the launcher started 2 processes (PMI_SIZE=2)", "make tracer-mpich: bin/mpich/gopsim-prtt"}},
		{"mpich-prtt/open-mpi-launcher", []string{"mpirun", "-np", "2"}, mpichProg,
			[]string{"built for MPICH", "the launcher started 2 processes (OMPI_COMM_WORLD_SIZE=2)", "make calibrate-deps: bin/gopsim-prtt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			p, err := StartMPI(ctx, MPIOptions{Launcher: tc.launcher, Program: tc.prog, Env: mpiRootEnv})
			if err == nil {
				p.Close()
				t.Fatal("started")
			}
			if !errors.Is(err, ErrMPIProgram) {
				t.Errorf("error %v, want one of the program (%v)", err, ErrMPIProgram)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
		})
	}
}

// TestMPIBufferOffset: gopsim-prtt's buffers start where MPIBufferOffset,
// which parameter files record, says they do.
func TestMPIBufferOffset(t *testing.T) {
	src, err := os.ReadFile("mpi/prtt.c")
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("#define BUF_OFFSET %d\n", MPIBufferOffset)
	if !strings.Contains(string(src), want) {
		t.Errorf("mpi/prtt.c has no %q: MPIBufferOffset and BUF_OFFSET differ", want)
	}
}
