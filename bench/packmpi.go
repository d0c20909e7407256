package bench

// The pack benchmark's mpi backend. MeasurePackMPI runs gopsim-pack
// (bench/mpi/pack.c, built into bin/ by `make calibrate-deps`) as one MPI
// process, under `mpirun -np 1` or by itself (singleton MPI_Init), with
// every size and stride pair on its command line:
//
//	gopsim-pack -r REPS -w WARMUP SIZE:STRIDE ...
//
// and reads the pack table it prints on its standard output (pack.c
// specifies the output; it is what ReadPackTable reads, one row per timed
// repetition):
//
//	# gopsim-pack VERSION LIBRARY
//	s_bytes,stride_bytes,pack_ns,unpack_ns
//	SIZE,STRIDE,PACK_NS,UNPACK_NS          REPS rows per pair, the pairs in the order given
//	# median SIZE STRIDE PACK_NS UNPACK_NS  after each pair
//	error: MESSAGE                         in place of any line; the program then exits with status 1
//
// The reader is stricter than ReadPackTable: the version line comes first,
// every pair has exactly REPS rows, in order, and nothing else is printed
// (other '#' lines and blank lines are skipped). Design notes: the pairs
// go on the command line rather than standard input because one process
// needs no conversation and launchers need not forward input; the output
// is the table itself, so that a run by hand can be saved and read with
// --pack; the version line tells a stale or foreign binary apart.

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

const (
	packMPIVersion = 1
	packMPITag     = "# gopsim-pack "
	packMPIMaxReps = 1000000
)

// DefaultPackProgram is the name of the pack benchmark's MPI program
// (bench/mpi/pack.c), as `make calibrate-deps` builds it into bin/.
const DefaultPackProgram = "gopsim-pack"

// DefaultPackLauncher is the command that PackMPIOptions.Launcher defaults
// to.
var DefaultPackLauncher = []string{"mpirun", "-np", "1"}

// PackMPIOptions say what MeasurePackMPI measures and how it runs
// gopsim-pack. The zero value of every field is its documented default.
type PackMPIOptions struct {
	// Sizes, Strides and Reps as for MeasurePack (the same defaults);
	// every size must be a multiple of PackElemBytes.
	PackConfig
	// Warmup is the number of untimed repetitions before each pair's
	// timed ones; 0 means 5, negative none.
	Warmup int
	// Launcher runs one MPI process, the program's path and arguments
	// appended; nil means DefaultPackLauncher.
	Launcher []string
	// Direct runs the program without a launcher, as a singleton MPI
	// process (Open MPI and MPICH allow it); Launcher must then be nil.
	Direct bool
	// Program is the path of gopsim-pack; "" means DefaultPackProgram
	// looked up on $PATH.
	Program string
	// Env is added to the environment (Open MPI's mpirun as root wants
	// OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1).
	Env []string
	// Log receives the program's standard error and its library line;
	// nil discards them.
	Log io.Writer
}

// packPair is a size and stride to measure.
type packPair struct{ s, d int64 }

// packPairs returns the pairs of cfg (with MeasurePack's defaults) in
// MeasurePack's order, without those whose strided buffer would exceed
// maxPackSpan.
func packPairs(cfg PackConfig) ([]packPair, int, error) {
	cfg = cfg.withDefaults()
	if cfg.Reps < 1 || cfg.Reps > packMPIMaxReps {
		return nil, 0, fmt.Errorf("bench: %d repetitions, want 1..%d", cfg.Reps, packMPIMaxReps)
	}
	var pairs []packPair
	for _, s := range cfg.Sizes {
		if s < PackElemBytes || s > MaxSizeBytes || s%PackElemBytes != 0 {
			return nil, 0, fmt.Errorf("bench: pack size %d bytes: want a multiple of %d in %d..%d (the MPI datatype is a vector of doubles)", s, PackElemBytes, PackElemBytes, MaxSizeBytes)
		}
		for _, d := range cfg.Strides {
			if d < PackElemBytes || d > MaxSizeBytes {
				return nil, 0, fmt.Errorf("bench: stride %d bytes outside %d..%d", d, PackElemBytes, MaxSizeBytes)
			}
			if s/PackElemBytes*d <= maxPackSpan {
				pairs = append(pairs, packPair{s, d})
			}
		}
	}
	return pairs, cfg.Reps, nil
}

// MeasurePackMPI is MeasurePack through an MPI library's datatype engine:
// gopsim-pack times MPI_Pack and MPI_Unpack of an MPI_Type_create_hvector
// of s/8 doubles, stride bytes apart, into and out of a contiguous buffer,
// for every size and stride of o (pairs whose strided buffer would exceed
// 256 MiB are skipped, as MeasurePack does). The table has one row per
// timed repetition, in MeasurePack's order. Cancelling ctx stops the
// program (SIGTERM, then SIGKILL 10 s later). Errors about the output are
// *MPIOutputError (wrapping ErrProtocol, io.ErrUnexpectedEOF or, for an
// error the program reports, ErrMPIProgram), wrapped with the command
// line, its exit status and the end of its standard error.
func MeasurePackMPI(ctx context.Context, o PackMPIOptions) (PackTable, error) {
	pairs, reps, err := packPairs(o.PackConfig)
	if err != nil {
		return nil, err
	}
	warmup := o.Warmup
	switch {
	case warmup == 0:
		warmup = 5
	case warmup < 0:
		warmup = 0
	case warmup > packMPIMaxReps:
		return nil, fmt.Errorf("bench: %d warm-up repetitions, want at most %d", warmup, packMPIMaxReps)
	}
	if o.Direct && o.Launcher != nil {
		return nil, errors.New("bench: MeasurePackMPI: Direct runs the program without a launcher, but Launcher is set")
	}
	if len(pairs) == 0 {
		return nil, nil
	}
	prog, err := mpiProgram(o.Program, DefaultPackProgram)
	if err != nil {
		return nil, err
	}
	var argv []string
	if !o.Direct {
		argv = o.Launcher
		if len(argv) == 0 {
			argv = DefaultPackLauncher
		}
	}
	argv = append(slices.Clone(argv), prog, "-r", strconv.Itoa(reps), "-w", strconv.Itoa(warmup))
	fixed := len(argv)
	for _, p := range pairs {
		argv = append(argv, fmt.Sprintf("%d:%d", p.s, p.d))
	}
	// The command for errors: the pairs after the second are elided.
	command := strings.Join(argv[:fixed+min(len(pairs), 2)], " ")
	if len(pairs) > 2 {
		command += fmt.Sprintf(" ... (%d pairs)", len(pairs))
	}

	var tab PackTable
	var lib string
	err = runOnce(ctx, argv, command, o.Env, o.Log, "a complete table", func(r io.Reader, log io.Writer) error {
		var err error
		if tab, lib, err = readPackMPI(r, prog+" output", pairs, reps); err == nil {
			fmt.Fprintf(log, "%s: %s, %d pairs of size and stride, %d repetitions each\n", DefaultPackProgram, lib, len(pairs), reps)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return tab, nil
}

// runOnce runs the MPI program argv (command names it in errors, env is
// added to the environment, its standard error goes to logw and is kept
// for errors) and reads its standard output with read, which may log to
// the writer it is given. An error of read, of the program (its exit
// status) or of ctx comes back wrapped with the command and the end of
// the program's standard error; complete says what the output was when
// only the program failed.
func runOnce(ctx context.Context, argv []string, command string, env []string, logw io.Writer, complete string, read func(io.Reader, io.Writer) error) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	cmd.Env = append(os.Environ(), env...)
	var log io.Writer = io.Discard
	if logw != nil {
		log = &lockedWriter{w: logw}
	}
	tail := &tailWriter{max: 2048}
	cmd.Stderr = io.MultiWriter(log, tail)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("bench: starting %s: %w", command, err)
	}
	perr := read(stdout, log)
	io.Copy(io.Discard, stdout)
	werr := cmd.Wait()
	if perr == nil && werr == nil {
		return nil
	}
	how := "exit status 0"
	if werr != nil {
		how = werr.Error()
	}
	err = perr
	if err == nil {
		err = fmt.Errorf("the program failed after %s", complete)
	}
	err = ctxErr(ctx, err)
	if s := strings.TrimSpace(tail.String()); s != "" {
		return fmt.Errorf("bench: %s (%s; its standard error ends %q): %w", command, how, s, err)
	}
	return fmt.Errorf("bench: %s (%s): %w", command, how, err)
}

// tailWriter keeps the last max bytes written to it.
type tailWriter struct {
	b   []byte
	max int
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	if len(w.b) > w.max {
		w.b = append(w.b[:0], w.b[len(w.b)-w.max:]...)
	}
	return len(p), nil
}

func (w *tailWriter) String() string { return string(w.b) }

// readPackMPI reads gopsim-pack's output (name is used in errors): the
// library from the version line, then reps rows for each pair in order.
func readPackMPI(r io.Reader, name string, pairs []packPair, reps int) (PackTable, string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), mpiMaxLineSize)
	line := 0
	fail := func(col int, err error, format string, a ...any) error {
		return &MPIOutputError{Name: name, Line: line, Col: col, Msg: fmt.Sprintf(format, a...), Err: err}
	}
	// next returns the next line that is not blank (and, when skipComments,
	// not a comment); "error:" lines are the program's errors.
	next := func(what string, skipComments bool) (string, error) {
		for sc.Scan() {
			line++
			text := strings.TrimSuffix(sc.Text(), "\r")
			t := strings.TrimSpace(text)
			if t == "" || skipComments && strings.HasPrefix(t, "#") {
				continue
			}
			if msg, ok := strings.CutPrefix(t, "error:"); ok {
				return "", fail(1, ErrMPIProgram, "%s: %s", DefaultPackProgram, strings.TrimSpace(msg))
			}
			return text, nil
		}
		line++
		if err := sc.Err(); err != nil {
			if errors.Is(err, bufio.ErrTooLong) {
				return "", fail(1, ErrProtocol, "line longer than %d bytes, want %s", mpiMaxLineSize, what)
			}
			return "", fmt.Errorf("%s: line %d: %w", name, line, err)
		}
		return "", fail(1, io.ErrUnexpectedEOF, "the output ends, want %s", what)
	}

	const versionWhat = "\"# gopsim-pack VERSION LIBRARY\""
	text, err := next(versionWhat, false)
	if err != nil {
		return nil, "", err
	}
	rest, ok := strings.CutPrefix(text, packMPITag)
	if !ok {
		return nil, "", fail(1, ErrProtocol, "%q, want %s (is it %s, from bench/mpi/pack.c?)", text, versionWhat, DefaultPackProgram)
	}
	ver, lib, _ := strings.Cut(rest, " ")
	if ver != strconv.Itoa(packMPIVersion) {
		return nil, "", fail(len(packMPITag)+1, ErrProtocol, "output version %q, want %d (%s and gopsim are from different builds: make calibrate-deps)", ver, packMPIVersion, DefaultPackProgram)
	}
	if lib = strings.TrimSpace(lib); lib == "" {
		return nil, "", fail(len(packMPITag)+len(ver)+2, ErrProtocol, "no library after the version, want %s", versionWhat)
	}

	text, err = next("the header "+strconv.Quote(PackHeader), true)
	if err != nil {
		return nil, lib, err
	}
	if text != PackHeader {
		return nil, lib, fail(1, ErrProtocol, "%q, want the header %q", text, PackHeader)
	}

	tab := make(PackTable, 0, len(pairs)*reps)
	for i, p := range pairs {
		for k := range reps {
			what := fmt.Sprintf("row %d of %d (%s with s_bytes=%d, stride_bytes=%d)", i*reps+k+1, len(pairs)*reps, PackHeader, p.s, p.d)
			text, err := next(what, true)
			if err != nil {
				return nil, lib, err
			}
			f := strings.Split(text, ",")
			if len(f) != 4 {
				return nil, lib, fail(1, ErrProtocol, "%d fields, want %s", len(f), what)
			}
			var v [4]int64
			col := 1
			for j, lim := range [4]struct {
				name     string
				min, max int64
			}{{"s_bytes", p.s, p.s}, {"stride_bytes", p.d, p.d}, {"pack_ns", 1, maxPRTTNs}, {"unpack_ns", 1, maxPRTTNs}} {
				x, err := strconv.ParseInt(strings.TrimSpace(f[j]), 10, 64)
				if err != nil {
					return nil, lib, fail(col, ErrProtocol, "%s: %q is not an integer, want %s", lim.name, f[j], what)
				}
				if x < lim.min || x > lim.max {
					if lim.min == lim.max {
						return nil, lib, fail(col, ErrProtocol, "%s=%d, want %s", lim.name, x, what)
					}
					return nil, lib, fail(col, ErrProtocol, "%s=%d outside %d..%d", lim.name, x, lim.min, lim.max)
				}
				v[j] = x
				col += len(f[j]) + 1
			}
			tab = append(tab, PackSample{SizeBytes: v[0], StrideBytes: v[1], PackNs: v[2], UnpackNs: v[3]})
		}
	}
	if text, err := next("the end of the output", true); err == nil {
		return nil, lib, fail(1, ErrProtocol, "%q after the %d rows asked, want the end of the output", text, len(tab))
	} else if !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, lib, err
	}
	return tab, lib, nil
}
