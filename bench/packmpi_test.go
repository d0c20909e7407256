package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// packOut is a good gopsim-pack output for testPairs with 2 repetitions.
const packOut = `# gopsim-pack 1 Open MPI v4.1.4, package: Debian OpenMPI
s_bytes,stride_bytes,pack_ns,unpack_ns
1024,8,100,90
1024,8,110,95
# median 1024 8 105 92

1024,64,400,500
1024,64,410,520
# median 1024 64 405 510
`

var testPairs = []packPair{{1024, 8}, {1024, 64}}

// TestReadPackMPI: the reader of gopsim-pack's output takes a good
// output (and ReadPackTable reads the same text), and rejects bad ones
// with the line, the column and what it wanted.
func TestReadPackMPI(t *testing.T) {
	tab, lib, err := readPackMPI(strings.NewReader(packOut), "gopsim-pack output", testPairs, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := PackTable{{1024, 8, 100, 90}, {1024, 8, 110, 95}, {1024, 64, 400, 500}, {1024, 64, 410, 520}}
	if fmt.Sprint(tab) != fmt.Sprint(want) || lib != "Open MPI v4.1.4, package: Debian OpenMPI" {
		t.Errorf("table %v, library %q", tab, lib)
	}
	if rt, err := ReadPackTable(strings.NewReader(packOut), "out"); err != nil || fmt.Sprint(rt) != fmt.Sprint(want) {
		t.Errorf("ReadPackTable: %v, %v", rt, err)
	}

	rows := strings.SplitAfter(packOut, "\n")
	edit := func(i int, line string) string { // line i (0-based) replaced
		r := append([]string(nil), rows...)
		r[i] = line
		return strings.Join(r, "")
	}
	for _, tc := range []struct {
		name, in string
		is       error
		want     string // in the message, after name:line:col:
	}{
		{"empty", "", io.ErrUnexpectedEOF, "gopsim-pack output:1:1: the output ends, want \"# gopsim-pack VERSION LIBRARY\""},
		{"no version line", strings.Join(rows[1:], ""), ErrProtocol, `:1:1: "s_bytes,stride_bytes,pack_ns,unpack_ns", want "# gopsim-pack VERSION LIBRARY" (is it gopsim-pack`},
		{"other program", "@prtt hello 1 2 a b c\n", ErrProtocol, `:1:1: "@prtt hello 1 2 a b c", want "# gopsim-pack VERSION LIBRARY"`},
		{"version", edit(0, "# gopsim-pack 2 MPI\n"), ErrProtocol, `:1:15: output version "2", want 1 (gopsim-pack and gopsim are from different builds`},
		{"no library", edit(0, "# gopsim-pack 1\n"), ErrProtocol, ":1:17: no library after the version"},
		{"program error first", "error: 3 processes: gopsim-pack runs on exactly 1\n", ErrMPIProgram, ":1:1: gopsim-pack: 3 processes: gopsim-pack runs on exactly 1"},
		{"no header", rows[0], io.ErrUnexpectedEOF, `:2:1: the output ends, want the header "s_bytes,stride_bytes,pack_ns,unpack_ns"`},
		{"bad header", edit(1, "s_bytes,stride_bytes,pack,unpack\n"), ErrProtocol, `:2:1: "s_bytes,stride_bytes,pack,unpack", want the header`},
		{"three fields", edit(3, "1024,8,110\n"), ErrProtocol, ":4:1: 3 fields, want row 2 of 4 (s_bytes,stride_bytes,pack_ns,unpack_ns with s_bytes=1024, stride_bytes=8)"},
		{"not an integer", edit(3, "1024,8,1e3,95\n"), ErrProtocol, `:4:8: pack_ns: "1e3" is not an integer, want row 2 of 4`},
		{"wrong size", edit(3, "2048,8,110,95\n"), ErrProtocol, ":4:1: s_bytes=2048, want row 2 of 4 (s_bytes,stride_bytes,pack_ns,unpack_ns with s_bytes=1024, stride_bytes=8)"},
		{"pairs out of order", edit(3, "1024,64,110,95\n"), ErrProtocol, ":4:6: stride_bytes=64, want row 2 of 4"},
		{"zero time", edit(6, "1024,64,400,0\n"), ErrProtocol, ":7:13: unpack_ns=0 outside 1.."},
		{"negative time", edit(6, "1024,64,-4,9\n"), ErrProtocol, ":7:9: pack_ns=-4 outside 1.."},
		{"truncated", strings.Join(rows[:7], ""), io.ErrUnexpectedEOF, ":8:1: the output ends, want row 4 of 4 (s_bytes,stride_bytes,pack_ns,unpack_ns with s_bytes=1024, stride_bytes=64)"},
		{"program error midway", strings.Join(rows[:5], "") + "error: size 1024 at stride 64: the packed data are not the strided elements\n", ErrMPIProgram,
			":6:1: gopsim-pack: size 1024 at stride 64: the packed data are not the strided elements"},
		{"extra row", packOut + "1024,64,1,1\n", ErrProtocol, `:10:1: "1024,64,1,1" after the 4 rows asked, want the end of the output`},
		{"error after the rows", packOut + "error: MPI_Finalize failed\n", ErrMPIProgram, ":10:1: gopsim-pack: MPI_Finalize failed"},
		{"long line", rows[0] + strings.Repeat("x", mpiMaxLineSize+1) + "\n", ErrProtocol, ":2:1: line longer than 65536 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := readPackMPI(strings.NewReader(tc.in), "gopsim-pack output", testPairs, 2)
			if err == nil {
				t.Fatal("no error")
			}
			var oe *MPIOutputError
			if !errors.As(err, &oe) || !errors.Is(err, tc.is) {
				t.Errorf("error %v (%T), want an *MPIOutputError wrapping %v", err, err, tc.is)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q\nwant it to contain %q", err, tc.want)
			}
		})
	}
}

// TestMeasurePackMPIErrors: bad options and a missing program or
// launcher are reported before or when starting, naming what is wrong.
func TestMeasurePackMPIErrors(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "gopsim-pack")
	if err := os.WriteFile(prog, []byte("#!/bin/sh\necho '# gopsim-pack 1 fake'; echo 's_bytes,stride_bytes,pack_ns,unpack_ns'; echo '8,8,1,1'; echo oops >&2; exit 3\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		o    PackMPIOptions
		want string
	}{
		{"size not a multiple of 8", PackMPIOptions{PackConfig: PackConfig{Sizes: []int64{12}}}, "pack size 12 bytes: want a multiple of 8"},
		{"stride", PackMPIOptions{PackConfig: PackConfig{Strides: []int64{4}}}, "stride 4 bytes outside 8.."},
		{"reps", PackMPIOptions{PackConfig: PackConfig{Reps: -1}}, "-1 repetitions"},
		{"direct with launcher", PackMPIOptions{Direct: true, Launcher: []string{"mpirun"}, Program: prog}, "Direct runs the program without a launcher"},
		{"no program", PackMPIOptions{Program: filepath.Join(dir, "none")}, "MPI program " + filepath.Join(dir, "none") + ": not a file"},
		{"no launcher", PackMPIOptions{Launcher: []string{filepath.Join(dir, "no-mpirun"), "-np", "1"}, Program: prog},
			"starting " + filepath.Join(dir, "no-mpirun") + " -np 1 " + prog + " -r 50 -w 5 1024:8 1024:64 ... (20 pairs)"},
		{"program fails", PackMPIOptions{Direct: true, Program: prog, PackConfig: PackConfig{Sizes: []int64{8}, Strides: []int64{8}, Reps: 2}},
			prog + " -r 2 -w 5 8:8 (exit status 3; its standard error ends \"oops\"): " + prog + " output:4:1: the output ends, want row 2 of 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab, err := MeasurePackMPI(ctx, tc.o)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("table %v, error %v\nwant an error containing %q", tab, err, tc.want)
			}
		})
	}
}

// needPack returns gopsim-pack, built by the Makefile (needTool).
func needPack(t *testing.T) string {
	return needTool(t, &packSetup, "gopsim-pack", "the pack benchmark's mpi backend")
}

// TestMeasurePackMPI runs gopsim-pack for real under Open MPI's mpirun
// and as a singleton: the table must be complete, in order, with positive
// times, what ReadPackTable reads and log3P's parameters come from; a
// strided message is not much cheaper to pack than a contiguous one. The
// machine is shared and noisy, so no time is checked tightly.
func TestMeasurePackMPI(t *testing.T) {
	prog := needPack(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := PackConfig{Sizes: []int64{1024, 16384}, Strides: []int64{8, 1024}, Reps: 9}
	for _, tc := range []struct {
		name     string
		launcher []string
		direct   bool
	}{
		{"mpirun", []string{"mpirun", "-np", "1", "--oversubscribe"}, false},
		{"singleton", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var log bytes.Buffer
			tab, err := MeasurePackMPI(ctx, PackMPIOptions{PackConfig: cfg, Warmup: 3, Launcher: tc.launcher, Direct: tc.direct,
				Program: prog, Env: mpiRootEnv, Log: &log})
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			t.Logf("%s", strings.TrimSpace(log.String()))
			if !strings.Contains(log.String(), "gopsim-pack: Open MPI") {
				t.Errorf("log %q lacks the library", log.String())
			}
			checkPackTable(t, tab, cfg)
		})
	}

	// The program's own output is a pack table as it is.
	cmd := exec.CommandContext(ctx, prog, "-r", "3", "8192:8", "8192:256")
	cmd.Env = append(os.Environ(), mpiRootEnv...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", prog, err, out)
	}
	rt, err := ReadPackTable(bytes.NewReader(out), prog+" output")
	if err != nil || len(rt) != 6 {
		t.Fatalf("ReadPackTable: %d rows, %v\n%s", len(rt), err, out)
	}
	if !bytes.Contains(out, []byte("\n# median 8192 256 ")) {
		t.Errorf("no median line in\n%s", out)
	}

	// Bad pairs are the program's errors, reported as such.
	cmd = exec.CommandContext(ctx, prog, "-r", "3", "8192:8", "12:8")
	cmd.Env = append(os.Environ(), mpiRootEnv...)
	out, _ = cmd.Output()
	_, _, err = readPackMPI(bytes.NewReader(out), prog+" output", []packPair{{8192, 8}, {12, 8}}, 3)
	if !errors.Is(err, ErrMPIProgram) || !strings.Contains(err.Error(), "argument 4: size 12 bytes: want a multiple of 8") {
		t.Errorf("bad pair: %v\n%s", err, out)
	}
}

// checkPackTable checks a measured table against the configuration.
func checkPackTable(t *testing.T, tab PackTable, cfg PackConfig) {
	t.Helper()
	if len(tab) != len(cfg.Sizes)*len(cfg.Strides)*cfg.Reps {
		t.Fatalf("%d rows, want %d", len(tab), len(cfg.Sizes)*len(cfg.Strides)*cfg.Reps)
	}
	i := 0
	for _, s := range cfg.Sizes {
		for _, d := range cfg.Strides {
			for range cfg.Reps {
				x := tab[i]
				if x.SizeBytes != s || x.StrideBytes != d || x.PackNs <= 0 || x.UnpackNs <= 0 || x.PackNs > int64(time.Second) || x.UnpackNs > int64(time.Second) {
					t.Errorf("row %d: %+v, want %d bytes at stride %d, positive times under a second", i, x, s, d)
				}
				i++
			}
		}
	}
	var buf bytes.Buffer
	if err := tab.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	rt, err := ReadPackTable(&buf, "written")
	if err != nil || len(rt) != len(tab) {
		t.Fatalf("ReadPackTable of the written table: %d rows, %v", len(rt), err)
	}
	p := tab.Params()
	if len(p.Points) != len(cfg.Sizes)*len(cfg.Strides) {
		t.Fatalf("%d log3P points, want %d", len(p.Points), len(cfg.Sizes)*len(cfg.Strides))
	}
	med := map[[2]uint64][2]float64{}
	for _, pt := range p.Points {
		t.Logf("%6d bytes at stride %4d: pack %8.0f ns, unpack %8.0f ns (medians)", pt.Size, pt.Stride, pt.Pack, pt.Unpack)
		med[[2]uint64{pt.Size, pt.Stride}] = [2]float64{pt.Pack, pt.Unpack}
	}
	// 16 KiB at a 1 KiB stride touches 2048 cache lines, contiguous 256:
	// allow a factor 2 of noise the other way.
	contig, strided := med[[2]uint64{16384, 8}], med[[2]uint64{16384, 1024}]
	for k, what := range []string{"pack", "unpack"} {
		if strided[k] < contig[k]/2 {
			t.Errorf("%s of 16384 bytes: %.0f ns at stride 1024, %.0f ns contiguous: the strided one should not be faster by half", what, strided[k], contig[k])
		}
	}
}

// FuzzReadPackMPI: gopsim-pack's output never panics the reader, every
// error is an *MPIOutputError, and a table read has every row asked.
func FuzzReadPackMPI(f *testing.F) {
	f.Add(packOut)
	f.Add("")
	f.Add("# gopsim-pack 1 x\ns_bytes,stride_bytes,pack_ns,unpack_ns\nerror: no\n")
	f.Add(strings.Replace(packOut, "400,500", "400", 1))
	f.Fuzz(func(t *testing.T, in string) {
		tab, _, err := readPackMPI(strings.NewReader(in), "fuzz", testPairs, 2)
		if err != nil {
			var oe *MPIOutputError
			if !errors.As(err, &oe) {
				t.Fatalf("error %v (%T), want *MPIOutputError", err, err)
			}
			return
		}
		if len(tab) != 4 {
			t.Fatalf("%d rows, want 4", len(tab))
		}
		for i, x := range tab {
			if p := testPairs[i/2]; x.SizeBytes != p.s || x.StrideBytes != p.d || x.PackNs < 1 || x.UnpackNs < 1 {
				t.Fatalf("row %d: %+v", i, x)
			}
		}
	})
}
