package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gopsim/gopsim/bench"
	"github.com/gopsim/gopsim/progress"
	"github.com/gopsim/gopsim/sim"
)

// CalibrateOptions are the options of `gopsim calibrate`.
type CalibrateOptions struct {
	Backend string // "tcp" ("" too), "mpi" or "ibverbs"
	// Listen makes this process the server side, on this address; Peer
	// the measuring side, against a server there. With neither, both
	// ends run on this host: the server in a child process. (tcp and
	// ibverbs; the mpi backend's launcher starts both ends.)
	Listen, Peer string
	Wait         time.Duration // Listen: give up when no peer comes within this time; 0 waits
	Config       bench.Config
	Fit          bench.FitOptions
	Output       string // parameter file; "" prints the JSON on stdout
	Table        string // raw PRTT table; "" is Output less .json plus .prtt.csv, or prtt.csv
	Plot         string // image of the fit; "" draws none
	// ServerCommand starts the server of a loopback calibration; nil runs
	// this executable as `calibrate --listen 127.0.0.1:0`.
	ServerCommand []string
	// MPIRun is the mpi backend's launcher, split at blanks, gopsim-prtt
	// appended; "" means "mpirun -np 2" (bench.DefaultMPILauncher).
	MPIRun string
	// PRTTBin is the mpi backend's program; "" means FindPRTT's choice.
	PRTTBin string
	// WarmupRuns is the number of fresh runs of the mpi backend's
	// one-time cost probe (bench.MeasureWarmup) after the PRTT sweep; 0
	// skips it and writes no "library" section.
	WarmupRuns int
	// WarmupBin is the probe's program; "" means FindWarmup's choice.
	WarmupBin string
	// IBVerbs chooses the ibverbs backend's device and port.
	IBVerbs bench.IBVerbsOptions
	// Quiet draws no progress bar of the sizes measured (one is drawn
	// on stderr only when it is a terminal).
	Quiet bool
	// LocateReps is the number of timed PRTT(1,0,s) rounds per size with
	// which bench.LocateS locates S to the byte after the measurement; 0
	// skips it (the --locate-reps flag's default is 100).
	LocateReps int
}

// CalibrateFitOptions are the options of `gopsim calibrate fit`.
type CalibrateFitOptions struct {
	Table  string // raw PRTT table to fit
	Output string // parameter file; "" prints the JSON on stdout
	Plot   string
	Fit    bench.FitOptions
}

type sizeList struct{ sizes *[]int64 }

func (l sizeList) String() string {
	if l.sizes == nil || *l.sizes == nil {
		return ""
	}
	var s []string
	for _, x := range *l.sizes {
		s = append(s, strconv.FormatInt(x, 10))
	}
	return strings.Join(s, ",")
}

func (l sizeList) Set(v string) error {
	sizes, err := bench.ParseSizes(v)
	if err != nil {
		return err
	}
	*l.sizes = sizes
	return nil
}

func calibrateFlags(o *CalibrateOptions, delayNs *int64) *flag.FlagSet {
	fs := flag.NewFlagSet("calibrate", flag.ContinueOnError)
	c := &o.Config
	fs.StringVar(&o.Backend, "backend", "tcp", "measurement `backend`: tcp (sockets), mpi (bin/gopsim-prtt on 2 MPI ranks, started by --mpirun) or ibverbs (an RDMA RC queue pair; needs a gopsim built with -tags ibverbs)")
	fs.StringVar(&o.MPIRun, "mpirun", "", "mpi backend: the `command` that starts 2 ranks, split at blanks, gopsim-prtt appended (default \"mpirun -np 2\"; e.g. \"mpirun -np 2 --oversubscribe\", \"mpirun.mpich -np 2\", \"srun -n 2 --input=0\")")
	fs.StringVar(&o.PRTTBin, "prtt-bin", "", "mpi backend: the gopsim-prtt `program`, built with the MPI of --mpirun (make calibrate-deps); default: "+bench.DefaultMPIProgram+" next to gopsim, then on $PATH")
	fs.IntVar(&o.WarmupRuns, "warmup-runs", 9, "mpi backend: fresh runs of bin/gopsim-warmup, which measures the library's one-time costs (first contact with a peer, first call of each function, creating a communicator) for the file's \"library\" section; 0 skips it")
	fs.StringVar(&o.WarmupBin, "warmup-bin", "", "mpi backend: the gopsim-warmup `program`, built with the MPI of --mpirun (make calibrate-deps); default: "+bench.DefaultWarmupProgram+" next to --prtt-bin's program, then next to gopsim, then on $PATH")
	fs.StringVar(&o.IBVerbs.Device, "ib-dev", "", "ibverbs backend: the RDMA `device` (as ibv_devices lists it; default: the first)")
	fs.IntVar(&o.IBVerbs.Port, "ib-port", 1, "ibverbs backend: the device's `port`")
	fs.Func("ib-gid-index", "ibverbs backend: address by this GID table `index` (default: LID on InfiniBand, GID 0 on RoCE)", func(v string) error {
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 || i > 65535 {
			return fmt.Errorf("want an index 0..65535")
		}
		o.IBVerbs.GIDIndex, o.IBVerbs.UseGID = i, true
		return nil
	})
	fs.StringVar(&o.Listen, "listen", "", "be the server side on `addr` (host:port; port 0 picks one, printed on stdout) and serve one peer")
	fs.StringVar(&o.Peer, "peer", "", "measure against the server at `addr` (host:port) that `gopsim calibrate --listen` runs")
	fs.DurationVar(&o.Wait, "wait", 0, "with --listen, give up when no peer connects within this `duration` (0: wait forever)")
	fs.Var(sizeList{&c.Sizes}, "sizes", "message sizes in `bytes`: comma-separated sizes (k = KiB, m = MiB, or a unit: 64KiB, 1.5MiB) or ranges START:END:STEP and START:END:*FACTOR (default: tcp and ibverbs 19 sizes from 1 to 128k, with 8192/8193, 12288/12289, 16384/16385, 65536/65537; mpi 50 sizes, the powers of 2 and their midpoints from 1 to 4m and quarter steps from 1k to 8k)")
	fs.IntVar(&c.Reps, "reps", 200, "timed repetitions of each round per size")
	fs.IntVar(&c.Warmup, "warmup", 20, "untimed repetitions of each round per size and pass, first")
	o.LocateReps = -1 // by backend, in runCalibrate
	fs.Func("locate-reps", "after the sweep, locate S to the byte by bisection between the measured sizes around the jump, with this many timed PRTT(1,0,s) rounds per size (the rows join the table); 0 skips it (default: 100 with --backend mpi, 0 otherwise: a TCP stack has no rendezvous)", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("want 0 (skip) or a number of rounds")
		}
		o.LocateReps = n
		return nil
	})
	fs.IntVar(&c.Passes, "passes", 4, "sweep the sizes this many times, each size's repetitions shared among the sweeps, so that a disturbance lasting seconds spoils one sweep of a size, not all of it")
	fs.IntVar(&c.Launches, "launches", 0, "mpi backend: spread the passes over this many fresh launches of the program (1..passes), so that the table describes what most launches of the library do, not one launch's placement and connections (default: one launch per pass)")
	fs.IntVar(&c.N, "n", 8, "messages per round of PRTT(n,0,s) and PRTT(n,d,s), at least 2")
	fs.Var(nsQty(delayNs), "delay", "delay d of PRTT(n,d,s) in `ns` (or with a unit: 5us); 0: per size the median PRTT(1,0,s) (Netgauge's choice)")
	fs.BoolVar(&c.Sleep, "sleep", false, "sleep through the delay instead of spinning (Netgauge spins): for a small shared machine; o then includes wake-up costs")
	fs.IntVar(&o.Fit.MaxRanges, "max-ranges", bench.DefaultMaxRanges, "at most this many size ranges (protocols); 1 turns change detection off")
	quantileFlag(fs, &o.Fit)
	fs.StringVar(&o.Output, "o", "", "parameter `file` (JSON) to write; default: print it on stdout")
	fs.StringVar(&o.Table, "table", "", "raw PRTT table `file` (CSV n,d_ns,s_bytes,prtt_ns,round), always written; default: the -o name with .prtt.csv, or prtt.csv")
	fs.StringVar(&o.Plot, "plot", "", "draw the measured PRTT and the fit into this image `file` (.png, .svg, .pdf)")
	fs.BoolVar(&o.Quiet, "quiet", false, "no progress bar of the sizes measured on stderr (it is drawn only when stderr is a terminal)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim calibrate [--backend tcp|ibverbs] [--listen ADDR | --peer ADDR] [flags] [-o PARAMS.json]
       gopsim calibrate --backend mpi [--mpirun "mpirun -np 2"] [--prtt-bin PATH] [flags] [-o PARAMS.json]
       gopsim calibrate fit TABLE.csv [-o PARAMS.json] [--plot FILE.png]
       gopsim calibrate models TABLE.csv [--measure-burst] [--measure-pack] [-o MODELS.json]

Measures the LogGOPS parameters of a network with Netgauge's LogGP method:
round trips PRTT(n,d,s) of n messages of s bytes, d ns apart, and one reply,
per message size, give L, o, g, G and O; protocol changes (eager/rendezvous,
packet sizes) split the sizes into ranges and give S. Run it with --listen on
one host and with --peer on the other; with neither, both ends run on this
host (the server in a child process). The raw table is always saved, and
'gopsim calibrate fit' refits it without a network.

Backends: tcp measures sockets; ibverbs an RDMA RC queue pair (set up over
a TCP connection between the same ends; a gopsim built with -tags ibverbs);
mpi the MPI library itself: --mpirun starts bin/gopsim-prtt (make
calibrate-deps) on 2 ranks, rank 0 times, rank 1 echoes, on one host
(shared memory) or two (the launcher's host list decides). Open MPI as root
wants OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.

Each range's parameters are fitted under the physical constraints L, o, g,
O >= 0 and G >= O (non-negative least squares, the half round trip first),
so that 'gopsim sim --params' always accepts the file; the output says which
constraints were binding and what they cost in residual, and a ping-pong
simulated with the result is compared with the measured round trip at every
size. The mpi backend also times exchanges (both ranks MPI_Sendrecv at once,
as a ring or a halo does; the table's round column says "exchange"), which
the fit takes first with the round trips: they tell the sender's per-byte
cost O from G, which a ping-pong cannot; the output compares a simulated
exchange with the measured one at every size. The ranges (protocols) are found by each size's median round trips,
whatever statistic their parameters are fitted to: a protocol moves every
round, whereas a few rounds of a descheduled process move a mean by as much
as a protocol does. S is the end of the range below the jump that adds most
to the round trip (the rendezvous handshake), located to the byte by
bisection between the measured sizes around it (--locate-reps), each size
put on the side its median round trip is closer to.

The parameter file has the keys 'gopsim sim --params' reads (L_ns o_ns g_ns
G_ns_per_byte O_ns_per_byte S_bytes, the base keys from the smallest sizes),
then "ranges" (every range's fitted values; they cover every message size),
"warnings" (also printed on stderr), "fit" (the quantiles, spreads,
residuals, standard errors, constraints, "pingpong" and "exchange") and
"source".

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

// quantileFlag defines --quantile, the statistic of the repetitions that
// the fit uses, into q.
func quantileFlag(fs *flag.FlagSet, fit *bench.FitOptions) {
	fit.Mean, fit.Quantile = true, 0
	fs.Func("quantile", fmt.Sprintf("fit this statistic of each round's repetitions: mean (the default), or a quantile 0 < q <= 1. An application's time is the sum of its messages' costs, so the mean, slow rounds included (up to %d times the median and %g ms beyond it), predicts it; 0.5, the median, is the typical single message; noise on a shared machine only adds time, so a low quantile such as 0.1 measures the undisturbed cost", bench.MeanCutoff, bench.MeanStall/1e6), func(v string) error {
		if v == "mean" {
			fit.Mean, fit.Quantile = true, 0
			return nil
		}
		x, err := strconv.ParseFloat(v, 64)
		if err != nil || !(x > 0 && x <= 1) {
			return fmt.Errorf("want mean, or a quantile in (0, 1] such as 0.1 or 0.5")
		}
		fit.Mean, fit.Quantile = false, x
		return nil
	})
}

func calibrateFitFlags(o *CalibrateFitOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("calibrate fit", flag.ContinueOnError)
	fs.StringVar(&o.Output, "o", "", "parameter `file` (JSON) to write; default: print it on stdout")
	fs.StringVar(&o.Plot, "plot", "", "draw the measured PRTT and the fit into this image `file` (.png, .svg, .pdf)")
	fs.IntVar(&o.Fit.MaxRanges, "max-ranges", bench.DefaultMaxRanges, "at most this many size ranges (protocols); 1 turns change detection off")
	quantileFlag(fs, &o.Fit)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim calibrate fit TABLE.csv [-o PARAMS.json] [--plot FILE.png]

Fits LogGOPS parameters to a raw PRTT table (CSV n,d_ns,s_bytes,prtt_ns[,round], as
'gopsim calibrate' saves it), without a network. See 'gopsim help calibrate'.

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

func runCalibrate(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "fit" {
		return runCalibrateFit(args[1:], stdout, stderr)
	}
	if len(args) > 0 && args[0] == "models" {
		return runCalibrateModels(args[1:], stdout, stderr)
	}
	var o CalibrateOptions
	var delayNs int64
	fs := calibrateFlags(&o, &delayNs)
	pos, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "gopsim calibrate: "+format+"\nRun 'gopsim help calibrate' for the flags.\n", a...)
		return ExitUsage
	}
	given := setFlags(fs)
	switch {
	case len(pos) > 0:
		return usageErr("unexpected argument %q", pos[0])
	case o.Backend != "tcp" && o.Backend != "mpi" && o.Backend != "ibverbs":
		return usageErr("--backend %q: want tcp, mpi or ibverbs", o.Backend)
	case o.Backend == "mpi" && (o.Listen != "" || o.Peer != "" || given["wait"]):
		return usageErr("--backend mpi: --mpirun starts both ends; --listen, --peer and --wait are for tcp and ibverbs")
	case o.Backend != "mpi" && (given["mpirun"] || given["prtt-bin"] || given["warmup-runs"] || given["warmup-bin"] || given["launches"]):
		return usageErr("--mpirun, --prtt-bin, --warmup-runs, --warmup-bin and --launches apply to --backend mpi only")
	case o.WarmupRuns < 0 || o.WarmupRuns > 1000:
		return usageErr("--warmup-runs %d: want 0 (skip) to 1000", o.WarmupRuns)
	case given["warmup-bin"] && o.WarmupRuns == 0:
		return usageErr("--warmup-bin with --warmup-runs 0: the probe does not run")
	case o.Backend == "mpi" && given["mpirun"] && len(strings.Fields(o.MPIRun)) == 0:
		return usageErr("--mpirun is empty: want a command such as \"mpirun -np 2\"")
	case o.Backend != "ibverbs" && (given["ib-dev"] || given["ib-port"] || given["ib-gid-index"]):
		return usageErr("--ib-dev, --ib-port and --ib-gid-index apply to --backend ibverbs only")
	case o.Listen != "" && o.Peer != "":
		return usageErr("--listen and --peer exclude each other: one host listens, the other measures")
	case o.Listen != "" && (given["warmup-runs"] || o.Output != "" || o.Table != "" || o.Plot != "" || given["sizes"] || given["reps"] || given["warmup"] || given["passes"] || given["locate-reps"] || given["n"] || given["delay"] || given["sleep"] || given["max-ranges"] || given["quantile"]):
		return usageErr("--listen serves the peer that measures; -o, --table, --plot and the measurement flags belong on the peer's side")
	case o.Wait != 0 && o.Listen == "":
		return usageErr("--wait applies to --listen only")
	case delayNs < 0:
		return usageErr("--delay %d: want 0 (auto) or a positive number of ns", delayNs)
	}
	o.Config.Delay = time.Duration(delayNs)
	if o.Backend != "mpi" {
		o.WarmupRuns = 0
	}
	if o.LocateReps < 0 { // not given
		o.LocateReps = 0 // a network without a rendezvous protocol: nothing to locate
		if o.Backend == "mpi" {
			o.LocateReps = 100
		}
	}
	if !given["passes"] {
		o.Config.Passes = min(o.Config.Passes, max(o.Config.Reps, 1)) // --reps 2 alone is fine
	}
	if !given["launches"] && o.Backend == "mpi" {
		o.Config.Launches = o.Config.Passes
	}
	if given["launches"] && (o.Config.Launches < 1 || o.Config.Launches > o.Config.Passes) {
		return usageErr("--launches %d: want 1..%d (the passes; more passes with --passes)", o.Config.Launches, o.Config.Passes)
	}
	if o.Listen == "" {
		if err := o.checkOutputs(); err != nil {
			return usageErr("%v", err)
		}
	}
	defer handleSignals(os.Interrupt)()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := Calibrate(ctx, o, stdout, stderr); err != nil {
		printErr(stderr, "calibrate", err)
		return ExitError
	}
	return ExitOK
}

// tablePath is where the raw PRTT table goes: --table, else the -o name
// with .prtt.csv for .json, else prtt.csv.
func (o *CalibrateOptions) tablePath() string {
	switch {
	case o.Table != "":
		return o.Table
	case o.Output != "":
		return strings.TrimSuffix(o.Output, ".json") + ".prtt.csv"
	}
	return "prtt.csv"
}

// checkOutputs refuses, before anything is measured, outputs that could
// not be written after it: a file in a directory that does not exist, a
// plot in a format that cannot be drawn.
func (o *CalibrateOptions) checkOutputs() error {
	if o.Plot != "" {
		if err := checkPlotName("--plot", o.Plot); err != nil {
			return err
		}
		if err := checkOutputDir("--plot", o.Plot); err != nil {
			return err
		}
	}
	if o.Output != "" {
		if err := checkOutputDir("-o", o.Output); err != nil {
			return err
		}
	}
	return checkOutputDir("--table", o.tablePath())
}

func runCalibrateFit(args []string, stdout, stderr io.Writer) int {
	var o CalibrateFitOptions
	fs := calibrateFitFlags(&o)
	pos, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "gopsim calibrate fit: one table file expected, got %d arguments\nRun 'gopsim help calibrate' for the flags.\n", len(pos))
		return ExitUsage
	}
	o.Table = pos[0]
	if o.Plot != "" {
		if err := checkPlotName("--plot", o.Plot); err != nil {
			fmt.Fprintf(stderr, "gopsim calibrate fit: %v\n", err)
			return ExitUsage
		}
	}
	for _, out := range []struct{ flag, path string }{{"-o", o.Output}, {"--plot", o.Plot}} {
		if err := checkNotInput(out.flag, out.path, o.Table); err != nil {
			fmt.Fprintf(stderr, "gopsim calibrate fit: %v\n", err)
			return ExitUsage
		}
	}
	if err := CalibrateFit(o, stdout, stderr); err != nil {
		printErr(stderr, "calibrate fit", err)
		return ExitError
	}
	return ExitOK
}

// Calibrate runs `gopsim calibrate`: it serves (o.Listen), or measures
// against a peer (o.Peer) or a server process on this host, saves the raw
// table, fits it and writes the parameter file (and plot). Results go to
// stdout, progress and warnings to stderr.
func Calibrate(ctx context.Context, o CalibrateOptions, stdout, stderr io.Writer) error {
	switch o.Backend {
	case "":
		o.Backend = "tcp"
	case "tcp", "mpi":
	case "ibverbs":
		if !bench.IBVerbsBuilt {
			return bench.ErrNoIBVerbs
		}
	default:
		return fmt.Errorf("backend %q: want tcp, mpi or ibverbs", o.Backend)
	}
	if o.Listen != "" {
		if o.Backend == "mpi" {
			return errors.New("the mpi backend has no --listen side: its launcher starts both ends")
		}
		return serveCalibration(ctx, o, stdout, stderr)
	}
	o.Table = o.tablePath()
	if o.Config.Sizes == nil && o.Backend == "mpi" {
		o.Config.Sizes = bench.DefaultMPISizes
	}
	eff, err := o.Config.WithDefaults()
	if err != nil {
		return err
	}
	if o.Backend == "mpi" {
		// Both programs before the sweep: a missing probe found after it
		// would cost the whole measurement.
		if o.PRTTBin, err = FindPRTT(o.PRTTBin); err != nil {
			return err
		}
		if o.WarmupRuns > 0 {
			if o.WarmupBin, err = FindWarmup(o.WarmupBin, o.PRTTBin); err != nil {
				return err
			}
		}
	}
	childCtx, killChild := context.WithCancel(ctx)
	defer killChild()
	p, where, done, err := startProber(ctx, childCtx, o, eff, stderr)
	if err != nil {
		killChild()
		done()
		return err
	}
	cfg := o.Config
	bar := progress.New(stderr, int64(len(eff.Sizes)*eff.Passes), "sizes", o.Quiet)
	if bar.Enabled() {
		cfg.Progress = func(i, n int, s int64) { bar.Set(int64(i)) }
	}
	start := time.Now()
	tab, err := bench.Measure(ctx, p, cfg)
	if err != nil {
		bar.Abandon()
	}
	bar.Finish()
	if err == nil && o.LocateReps > 0 {
		var steps int
		tab, steps, err = bench.LocateS(ctx, p, tab, cfg, o.Fit, o.LocateReps)
		if steps > 0 {
			fmt.Fprintf(stderr, "gopsim calibrate: S located to the byte by bisection: %d more sizes measured (PRTT(1,0,s), %d rounds each)\n", steps, o.LocateReps)
		}
	}
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if derr := done(); err == nil {
		err = derr
	}
	var lib *sim.LibraryCosts
	if err == nil && o.Backend == "mpi" && o.WarmupRuns > 0 {
		lib, err = measureLibrary(ctx, o, stderr)
	}
	if len(tab) > 0 {
		// Keep what was measured, even when the measurement failed part way.
		if werr := bench.WriteTableFile(o.Table, tab); werr != nil {
			return errors.Join(err, werr)
		}
		launches := ""
		if eff.Launches > 1 {
			launches = fmt.Sprintf(" over %d launches of the program", eff.Launches)
		}
		fmt.Fprintf(stderr, "gopsim calibrate: raw table %s (%d rows, measured in %.1f s%s)\n", o.Table, len(tab), time.Since(start).Seconds(), launches)
	}
	if err != nil {
		if ctx.Err() != nil {
			// Interrupted: the table above holds what was measured.
			kept := ""
			if len(tab) > 0 {
				kept = fmt.Sprintf("; the %d rows measured are in %s (gopsim calibrate fit %s fits them)", len(tab), o.Table, o.Table)
			}
			return fmt.Errorf("interrupted%s", kept)
		}
		return err
	}
	d := eff.Delay.Nanoseconds()
	src := bench.Source{Table: o.Table, Backend: o.Backend, Peer: where, Reps: eff.Reps, Warmup: eff.Warmup, N: eff.N, Passes: eff.Passes, Launches: eff.Launches, DelayNs: &d, Sleep: eff.Sleep, LocateReps: o.LocateReps}
	if o.Backend == "mpi" {
		off := int64(bench.MPIBufferOffset)
		src.BufferOffset = &off
	}
	return fitAndWrite(tab, src, o.Fit, lib, o.Output, o.Plot, stdout, stderr)
}

// measureLibrary runs the mpi backend's one-time cost probe and says what
// it found on stderr.
func measureLibrary(ctx context.Context, o CalibrateOptions, stderr io.Writer) (*sim.LibraryCosts, error) {
	prog, err := FindWarmup(o.WarmupBin, o.PRTTBin)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	w, err := bench.MeasureWarmup(ctx, bench.WarmupOptions{Runs: o.WarmupRuns, Launcher: strings.Fields(o.MPIRun), Program: prog, Log: stderr})
	if err != nil {
		return nil, err
	}
	timed := ""
	if w.ContactRuns < w.Runs {
		timed = fmt.Sprintf("; the first contact timed in %d of them, the others' rank 1 started too late to wait for it", w.ContactRuns)
	}
	fmt.Fprintf(stderr, "gopsim calibrate: the library's one-time costs measured in %d fresh runs of %s (%.1f s%s)\n", w.Runs, bench.DefaultWarmupProgram, time.Since(start).Seconds(), timed)
	return w.Costs(), nil
}

// FindWarmup returns the one-time cost probe: bin if given, else
// bench.DefaultWarmupProgram next to prtt (the mpi backend's program, if
// given: both must be built with the same MPI, as make calibrate-deps and
// make tracer-mpich build them side by side), else next to the running
// binary, else on $PATH.
func FindWarmup(bin, prtt string) (string, error) {
	if bin == "" && prtt != "" {
		p := filepath.Join(filepath.Dir(prtt), bench.DefaultWarmupProgram)
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return filepath.Abs(p)
		}
	}
	return findProgram(bin, bench.DefaultWarmupProgram, "the mpi backend's one-time cost probe", "--warmup-bin")
}

// calibrationProber is a backend's prober, closed after the measurement.
type calibrationProber interface {
	bench.Prober
	Close() error
}

// startProber starts o.Backend's measuring side for cfg (with its
// defaults) and says where it measures (the parameter file's source.peer).
// done waits for a loopback server, started with childCtx; call it after
// Close, also after an error.
func startProber(ctx, childCtx context.Context, o CalibrateOptions, cfg bench.Config, stderr io.Writer) (p calibrationProber, where string, done func() error, err error) {
	done = func() error { return nil }
	if o.Backend == "mpi" {
		prog, err := FindPRTT(o.PRTTBin)
		if err != nil {
			return nil, "", done, err
		}
		mp, err := bench.StartMPI(ctx, bench.MPIOptions{Launcher: strings.Fields(o.MPIRun), Program: prog, Log: stderr})
		if err != nil {
			return nil, "", done, err
		}
		i := mp.Info()
		return mp, fmt.Sprintf("%s: rank 0 on %s, rank 1 on %s, %s", mp.Command(), i.Hosts[0], i.Hosts[1], i.Library), done, nil
	}
	peer, where := o.Peer, o.Peer
	if peer == "" {
		addr, wait, err := startLoopbackServer(childCtx, o, stderr)
		if err != nil {
			return nil, "", done, err
		}
		peer, done = addr, wait
		where = "loopback (both ends on this host, server in a child process)"
	}
	if o.Backend == "ibverbs" {
		ib := o.IBVerbs
		ib.MaxSizeBytes = slices.Max(cfg.Sizes)
		ip, err := bench.DialIBVerbs(ctx, peer, ib)
		if err != nil {
			return nil, "", done, err
		}
		return ip, where + ", ibverbs on " + ip.Info().String(), done, nil
	}
	tp, err := bench.Dial(ctx, peer)
	if err != nil {
		return nil, "", done, err
	}
	return tp, where, done, nil
}

// FindPRTT returns the mpi backend's program: bin if given, else
// bench.DefaultMPIProgram next to the running binary, else on $PATH. The
// path is absolute.
func FindPRTT(bin string) (string, error) {
	return findProgram(bin, bench.DefaultMPIProgram, "the mpi backend's program", "--prtt-bin")
}

// findProgram returns bin if given, else the program called name next to
// the running binary, else on $PATH, as an absolute path; what and flag
// word the error.
func findProgram(bin, name, what, flag string) (string, error) {
	var tried []string
	if bin != "" {
		tried = append(tried, bin)
	} else if exe, err := os.Executable(); err == nil {
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		tried = append(tried, filepath.Join(filepath.Dir(exe), name))
	}
	for _, p := range tried {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			return filepath.Abs(p)
		}
	}
	if bin == "" {
		if p, err := exec.LookPath(name); err == nil {
			return filepath.Abs(p)
		}
		tried = append(tried, "$PATH")
	}
	return "", fmt.Errorf("%s %s was not found (tried %s); build it with 'make calibrate-deps' (needs mpicc) or give %s",
		what, name, strings.Join(tried, ", "), flag)
}

// CalibrateFit runs `gopsim calibrate fit`: it fits a saved raw table.
func CalibrateFit(o CalibrateFitOptions, stdout, stderr io.Writer) error {
	tab, err := bench.ReadTableFile(o.Table)
	if err != nil {
		return err
	}
	return fitAndWrite(tab, bench.Source{Table: o.Table}, o.Fit, nil, o.Output, o.Plot, stdout, stderr)
}

func fitAndWrite(tab bench.Table, src bench.Source, opt bench.FitOptions, lib *sim.LibraryCosts, output, plot string, stdout, stderr io.Writer) error {
	pf, err := bench.Fit(tab, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", src.Table, err)
	}
	pf.Library = lib
	sizes := pf.Source.Sizes
	src.Rows, src.Sizes = pf.Source.Rows, sizes
	pf.Source = src
	for _, w := range pf.Warnings {
		fmt.Fprintf(stderr, "gopsim calibrate: warning: %s\n", w)
	}
	// The parameters first: a plot that cannot be written does not cost
	// the fit.
	if output == "" {
		if err := pf.Write(stdout); err != nil {
			return err
		}
	} else if err := pf.WriteFile(output); err != nil {
		return err
	}
	if plot != "" {
		if err := pf.WritePlotFile(plot); err != nil {
			return fmt.Errorf("--plot %s: %w (the parameters are written)", plot, err)
		}
	}
	if output != "" {
		summarize(stdout, pf, output, plot)
	}
	return nil
}

// summarize prints the parameters as text.
func summarize(w io.Writer, pf *bench.ParamFile, output, plot string) {
	s := pf.Source
	fmt.Fprintf(w, "table:      %s (%d rows, %d sizes from %d to %d bytes; fitted: %s of each round's repetitions)\n",
		s.Table, s.Rows, len(s.Sizes), s.Sizes[0], s.Sizes[len(s.Sizes)-1], pf.Fit.Describe())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "range\tbytes\tL_ns\to_ns\tg_ns\tG_ns_per_byte\tO_ns_per_byte\tR²(gap)\t")
	for i, r := range pf.Ranges {
		r2 := "-"
		if f := pf.Fit.Ranges[i]; f.R2Gap != nil {
			r2 = strconv.FormatFloat(*f.R2Gap, 'f', 5, 64)
		}
		fmt.Fprintf(tw, "%d\t%d..%s\t%.1f\t%.1f\t%.1f\t%.4f\t%.4f\t%s\t\n", i, r.MinBytes, sim.FormatRangeEnd(uint64(r.MaxBytes)), r.L, r.Overhead, r.Gap, r.GapPerByte, r.OverheadPerByte, r2)
	}
	tw.Flush()
	summarizeConstraints(w, pf)
	for _, c := range pf.Fit.Changes {
		kind := "change of slope"
		if c.Jump {
			kind = "jump"
		}
		fmt.Fprintf(w, "change:     %s between %d and %d bytes (half round trip %+.0f ns, gap %+.0f ns)\n", kind, c.AfterBytes, c.BeforeBytes, c.HalfRTTJump, c.GapJump)
	}
	if pf.EagerLimit != nil {
		fmt.Fprintf(w, "S:          %d bytes (below the jump that adds most to the round trip, as a rendezvous handshake does)\n", *pf.EagerLimit)
	} else {
		fmt.Fprintln(w, "S:          none detected (S_bytes left out: sim keeps its own)")
	}
	fmt.Fprintf(w, "sim keys:   L=%v ns, o=%v ns, g=%v ns, G=%v ns/byte, O=%v ns/byte (range 0; the ranges cover every size)\n",
		pf.L, pf.Overhead, pf.Gap, pf.GapPerByte, pf.OverheadPerByte)
	summarizePingPong(w, pf.Fit.PingPong)
	summarizeExchange(w, pf.Fit.Exchange)
	summarizeLibrary(w, pf.Library)
	fmt.Fprintf(w, "warnings:   %d\n", len(pf.Warnings))
	fmt.Fprintf(w, "parameters: %s\n", output)
	if plot != "" {
		fmt.Fprintf(w, "plot:       %s\n", plot)
	}
}

// summarizeLibrary prints the library's one-time costs, if measured.
func summarizeLibrary(w io.Writer, lib *sim.LibraryCosts) {
	if lib == nil {
		return
	}
	fmt.Fprintf(w, "library:    %s: first contact with a peer %s, creating a communicator %s (charged when a trace is converted with this file: convert and extrapolate --library-costs, validate --params)\n",
		lib.Name, sim.FormatDuration(lib.FirstContactNs), sim.FormatDuration(lib.CommCreateNs))
	var calls []string
	for _, c := range lib.FirstCall {
		calls = append(calls, fmt.Sprintf("%s %s", strings.TrimPrefix(c.Function, "MPI_"), sim.FormatDuration(c.Ns)))
	}
	fmt.Fprintf(w, "first call: %s (over a warm call)\n", strings.Join(calls, ", "))
}

// summarizeConstraints prints, per range, the binding constraints and
// what they cost: the residuals with and without them.
func summarizeConstraints(w io.Writer, pf *bench.ParamFile) {
	for i, f := range pf.Fit.Ranges {
		c := f.Constraints
		if len(c.Binding) == 0 {
			fmt.Fprintf(w, "range %d:    no constraint binding (the unconstrained fit is physical)\n", i)
			continue
		}
		u := c.Unconstrained
		exch := ""
		if c.RMSExchangeNs != nil {
			exch = fmt.Sprintf(", exchange %.1f/%.1f ns", *c.RMSExchangeNs, *c.UnconstrainedRMSExchangeNs)
		}
		fmt.Fprintf(w, "range %d:    binding %s; unconstrained L=%.1f ns, o=%.1f ns, g=%.1f ns, G=%.4f ns/byte, O=%.4f ns/byte; rms residual with/without constraints: half round trip %.1f/%.1f ns, gap %.1f/%.1f ns, overhead %.1f/%.1f ns%s\n",
			i, strings.Join(c.Binding, ", "), u.L, u.Overhead, u.Gap, u.GapPerByte, u.OverheadPerByte,
			c.RMSHalfRTTNs, c.UnconstrainedRMSHalfRTTNs, c.RMSGapNs, c.UnconstrainedRMSGapNs, c.RMSOverheadNs, c.UnconstrainedRMSOverheadNs, exch)
	}
}

// summarizePingPong prints the simulated against the measured ping-pong.
func summarizePingPong(w io.Writer, pp []bench.PingPongPoint) {
	if len(pp) == 0 {
		return
	}
	fmt.Fprintln(w, "ping-pong:  round trip measured (the fitted statistic of PRTT(1,0,s)) and simulated with these parameters (gopsim's engine)")
	rows := make([]ratioRow, len(pp))
	for i, p := range pp {
		rows[i] = ratioRow{p.SizeBytes, p.MeasuredNs, p.SimulatedNs, p.Ratio, p.Probe}
	}
	within, n, worst := ratioTable(w, rows, "probe for S")
	fmt.Fprintf(w, "ping-pong:  %d of %d sizes of the sweep within 5 %%, the worst %.1f %% off\n", within[0], n[0], 100*worst[0])
	if n[1] > 0 {
		fmt.Fprintf(w, "ping-pong:  %d of %d probes for S (measured after the sweep) within 5 %%, the worst %.1f %% off\n", within[1], n[1], 100*worst[1])
	}
}

// summarizeExchange prints the simulated against the measured exchange,
// when the backend measured exchanges.
func summarizeExchange(w io.Writer, xs []bench.ExchangePoint) {
	if len(xs) == 0 {
		return
	}
	fmt.Fprintln(w, "exchange:   both ranks send to each other at once (MPI_Sendrecv), one exchange measured ((X(n,s)-X(1,s))/(n-1)) and simulated with these parameters")
	rows := make([]ratioRow, len(xs))
	for i, x := range xs {
		rows[i] = ratioRow{x.SizeBytes, x.MeasuredNs, x.SimulatedNs, x.Ratio, false}
	}
	within, n, worst := ratioTable(w, rows, "")
	fmt.Fprintf(w, "exchange:   %d of %d sizes within 5 %%, the worst %.1f %% off\n", within[0], n[0], 100*worst[0])
}

// ratioRow is a size's measured and simulated time; marked rows are
// counted apart (ratioTable).
type ratioRow struct {
	size                int64
	measured, simulated float64
	ratio               float64
	marked              bool
}

// ratioTable prints rows as a table, the marked ones with note, and
// returns, for the unmarked [0] and the marked [1] rows, how many are
// within 5 %, how many there are and the worst relative error.
func ratioTable(w io.Writer, rows []ratioRow, note string) (within, n [2]int, worst [2]float64) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "s_bytes\tmeasured_ns\tsimulated_ns\tratio\t\t")
	for _, r := range rows {
		k, mark := 0, ""
		if r.marked {
			k, mark = 1, note
		}
		fmt.Fprintf(tw, "%d\t%.1f\t%.1f\t%.3f\t%s\t\n", r.size, r.measured, r.simulated, r.ratio, mark)
		worst[k] = max(worst[k], math.Abs(r.ratio-1))
		n[k]++
		if math.Abs(r.ratio-1) <= 0.05 {
			within[k]++
		}
	}
	tw.Flush()
	return within, n, worst
}

// serveCalibration is the --listen side: it announces its address on
// stdout, serves one peer and reports on stderr.
func serveCalibration(ctx context.Context, o CalibrateOptions, stdout, stderr io.Writer) error {
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	fmt.Fprintf(stdout, "%s%s\n", bench.ListenBanner, ln.Addr())
	if o.Wait > 0 {
		ln.(*net.TCPListener).SetDeadline(time.Now().Add(o.Wait))
	}
	stopAccept := context.AfterFunc(ctx, func() { ln.Close() })
	c, err := ln.Accept()
	stopAccept()
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("waiting for a peer on %v: %w", ln.Addr(), err)
	}
	ln.Close()
	serve := bench.Serve
	if o.Backend == "ibverbs" {
		serve = func(ctx context.Context, c net.Conn) (bench.ServeStats, error) {
			return bench.ServeIBVerbs(ctx, c, o.IBVerbs)
		}
	}
	st, err := serve(ctx, c)
	fmt.Fprintf(stderr, "gopsim calibrate: served %s: %d batches, %d rounds, %d messages\n", st.Peer, st.Batches, st.Rounds, st.Messages)
	return err
}

// startLoopbackServer starts the server of a calibration on this host in
// a child process: the prober spins or sleeps between messages, and a
// server goroutine in the same process would be served late by Go's
// scheduler (bench.StartServerProcess).
func startLoopbackServer(ctx context.Context, o CalibrateOptions, stderr io.Writer) (string, func() error, error) {
	argv := o.ServerCommand
	if argv == nil {
		exe, err := os.Executable()
		if err != nil {
			return "", nil, fmt.Errorf("starting the loopback server: %w", err)
		}
		argv = []string{exe, "calibrate", "--listen", "127.0.0.1:0", "--wait", "1m"}
		if o.Backend == "ibverbs" {
			ib := o.IBVerbs
			argv = append(argv, "--backend", "ibverbs", "--ib-dev", ib.Device, "--ib-port", strconv.Itoa(max(ib.Port, 1)))
			if ib.UseGID {
				argv = append(argv, "--ib-gid-index", strconv.Itoa(ib.GIDIndex))
			}
		}
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stderr = stderr
	addr, wait, err := bench.StartServerProcess(cmd)
	if err != nil {
		return "", nil, err
	}
	return addr, wait, nil
}
