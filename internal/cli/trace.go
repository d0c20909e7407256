package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/gopsim/gopsim/trace"
)

// TracerLib is the file name of the tracer library.
const TracerLib = "libgopsim-pmpi.so"

// TraceOptions are the options of `gopsim trace`. The zero value traces
// into gopsim-trace with the library found next to the gopsim binary.
type TraceOptions struct {
	Dir     string   // trace directory; "" is gopsim-trace
	Lib     string   // the tracer library; "" looks for it (FindTracer)
	Buffer  int64    // per-rank buffer in bytes, at least minTraceBuffer; 0 is the tracer's default (1 MiB)
	Command []string // the command to run, usually mpirun and its arguments
}

func traceFlags(o *TraceOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("trace", flag.ContinueOnError)
	fs.StringVar(&o.Dir, "o", "gopsim-trace", "trace `directory`: one file per rank, rank-NNNNNN.gpt")
	fs.StringVar(&o.Lib, "lib", "", "the tracer library (default: $GOPSIM_TRACER_LIB, else "+TracerLib+" next to the gopsim binary or in ../lib)")
	fs.Var(bytesQty(&o.Buffer), "buffer", "trace buffer per rank in `bytes` (a unit too: 4MiB), at least 4KiB, written out whenever it fills (default 1MiB)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim trace [-o DIR] [--lib PATH] [--buffer BYTES] -- COMMAND [ARGS...]

Runs COMMAND, usually mpirun and the application, with the gopsim tracer
preloaded (LD_PRELOAD) and GOPSIM_TRACE_DIR set to DIR, so that every MPI
rank writes its calls to DIR/rank-NNNNNN.gpt, then prints a summary of the
trace on stderr: the MPI library, ranks, records, bytes, and calls and
time per function.
Rank files already in DIR are removed first. Example:

  gopsim trace -o run1 -- mpirun -np 4 ./app input

mpirun passes the environment to the ranks it starts on this node; for
other nodes add Open MPI's -x LD_PRELOAD -x GOPSIM_TRACE_DIR (MPICH's
mpiexec passes it everywhere), with DIR on a shared file system.
Build the library with 'make tracer' (bin/`+TracerLib+`, for the default
mpicc's MPI); a program of MPICH needs MPICH's, 'make tracer-mpich'
(bin/mpich/`+TracerLib+`, given with --lib).

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

// minTraceBuffer is the smallest buffer the tracer takes (gp_start in
// trace/pmpi/gopsim_pmpi.c raises a smaller GOPSIM_TRACE_BUFFER to it).
const minTraceBuffer = 4096

func runTrace(args []string, stdout, stderr io.Writer) int {
	var o TraceOptions
	fs := traceFlags(&o)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	o.Command = fs.Args()
	if len(o.Command) == 0 {
		fmt.Fprintln(stderr, "gopsim trace: expected a command after the flags (gopsim trace -o DIR -- mpirun -np 4 ./app)")
		return ExitUsage
	}
	if o.Buffer < 0 || o.Buffer > 0 && o.Buffer < minTraceBuffer {
		fmt.Fprintf(stderr, "gopsim trace: --buffer %d: want at least %d bytes (4KiB), the tracer's smallest buffer\n", o.Buffer, minTraceBuffer)
		return ExitUsage
	}
	if err := Trace(&o, stdout, stderr); err != nil {
		printErr(stderr, "trace", err)
		return ExitError
	}
	return ExitOK
}

// FindTracer returns the tracer library to preload: lib if given, else
// $GOPSIM_TRACER_LIB, else TracerLib next to the running binary or in
// ../lib from it. The path is absolute.
func FindTracer(lib string) (string, error) {
	var tried []string
	if lib == "" {
		lib = os.Getenv("GOPSIM_TRACER_LIB")
	}
	if lib != "" {
		tried = append(tried, lib)
	} else if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		dir := filepath.Dir(exe)
		tried = append(tried, filepath.Join(dir, TracerLib), filepath.Join(dir, "..", "lib", TracerLib))
	}
	for _, p := range tried {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("the tracer library %s was not found (tried %s); build it with 'make tracer' or give --lib",
		TracerLib, strings.Join(tried, ", "))
}

// Trace runs o.Command under the tracer and summarizes the trace it
// leaves in o.Dir on log. The command's output goes to stdout and log.
func Trace(o *TraceOptions, stdout, log io.Writer) error {
	if len(o.Command) == 0 {
		return errors.New("no command to run")
	}
	lib, err := FindTracer(o.Lib)
	if err != nil {
		return err
	}
	dir := o.Dir
	if dir == "" {
		dir = "gopsim-trace"
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	old, err := trace.RankFiles(dir)
	if err != nil {
		return err
	}
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return fmt.Errorf("removing the old trace: %w", err)
		}
	}

	preload := lib
	if p := os.Getenv("LD_PRELOAD"); p != "" {
		preload += ":" + p
	}
	env := append(os.Environ(), "LD_PRELOAD="+preload, "GOPSIM_TRACE_DIR="+dir)
	if o.Buffer > 0 {
		env = append(env, fmt.Sprintf("GOPSIM_TRACE_BUFFER=%d", o.Buffer))
	}
	cmd := exec.Command(o.Command[0], o.Command[1:]...)
	cmd.Env = env
	cmd.Stdin = os.Stdin
	cmd.Stdout = stdout
	cmd.Stderr = log
	// The terminal's ^C reaches the command directly; a TERM or HUP sent
	// to gopsim is passed on. Either way gopsim stays to summarize.
	sigs := make(chan os.Signal, 4)
	defer handleSignals(os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)()
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting %s: %w", o.Command[0], err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			select {
			case s := <-sigs:
				if s != os.Interrupt {
					cmd.Process.Signal(s)
				}
			case <-done:
				return
			}
		}
	}()
	runErr := cmd.Wait()

	d, err := trace.OpenDir(dir)
	if err != nil {
		if runErr != nil {
			return fmt.Errorf("%s: %w; no complete trace: %v", o.Command[0], runErr, err)
		}
		return fmt.Errorf("no complete trace (is the program an MPI program, and does mpirun pass LD_PRELOAD to it?): %w", err)
	}
	st, err := d.Stats()
	if err != nil {
		return err
	}
	printTraceStats(log, dir, d.Library(), st)
	if runErr != nil {
		return fmt.Errorf("%s: %w (the trace may be incomplete)", o.Command[0], runErr)
	}
	return nil
}

// printTraceStats writes the summary of the trace in dir: the MPI library
// it was taken with (lib, MPI_Get_library_version's line), ranks, sizes,
// how the ranks ended and the calls per function.
func printTraceStats(w io.Writer, dir, lib string, st *trace.Stats) {
	perRecord, perCall := 0.0, 0.0
	if st.Records > 0 {
		perRecord = float64(st.Bytes) / float64(st.Records)
	}
	if st.Calls > 0 {
		perCall = float64(st.Bytes) / float64(st.Calls)
	}
	fmt.Fprintf(w, "trace: %s\n", dir)
	if lib == "" {
		fmt.Fprintln(w, "library: not recorded in the trace")
	} else {
		fmt.Fprintf(w, "library: %s\n", shortLibrary(lib))
	}
	fmt.Fprintf(w, "ranks: %d, communicators: %d, span: %.6f s\n", st.Ranks, st.Comms, float64(st.Span)/1e9)
	fmt.Fprintf(w, "calls: %d in %d records, %d bytes (%.1f bytes per record, %.2f bytes per call)\n", st.Calls, st.Records, st.Bytes, perRecord, perCall)
	var ends []string
	for _, r := range []trace.EndReason{trace.EndFinalize, trace.EndExit, trace.EndAbort} {
		if n := st.Ends[r]; n > 0 {
			ends = append(ends, fmt.Sprintf("%d with %s", n, r))
		}
	}
	if len(st.Cut) > 0 {
		ends = append(ends, fmt.Sprintf("%d cut short (ranks %v)", len(st.Cut), st.Cut))
	}
	fmt.Fprintf(w, "ended: %s\n", strings.Join(ends, ", "))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "function\tcalls\trecords\ttime_ms")
	for _, f := range st.Funcs {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.3f\n", f.Func, f.Calls, f.Records, float64(f.Time)/1e6)
	}
	tw.Flush()
}

// traceUsage explains `gopsim trace` on w.
func traceUsage(w io.Writer) {
	fs := traceFlags(&TraceOptions{})
	fs.SetOutput(w)
	fs.Usage()
}
