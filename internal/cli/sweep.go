package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gopsim/gopsim/progress"
	"github.com/gopsim/gopsim/sweep"
)

// SweepOptions are the options of `gopsim sweep SPEC`.
type SweepOptions struct {
	Spec    string
	Output  string      // "" means the spec's output (with the shard's suffix)
	Shard   sweep.Shard // the zero value is the whole sweep
	Workers int         // 0: every core
	Quiet   bool        // no progress bar, no timing
	// Progress configures the bar; Quiet overrides it (tests set
	// Progress.Terminal to see the bar on a buffer).
	Progress progress.Options
	Sort     bool
	DryRun   bool
	// Stream is "on" to run the points on shares of one spilled
	// schedule (sweep.Options.Stream), its spill files in SpillDir, "off"
	// to compile a copy per worker, "auto" or "" to decide from the
	// schedule's size (sweepStreams): an input that is not a regular
	// file has none and is held, read once.
	Stream   string
	SpillDir string
}

func sweepFlags(o *SweepOptions, shard *string) *flag.FlagSet {
	fs := flag.NewFlagSet("sweep", flag.ContinueOnError)
	fs.StringVar(&o.Output, "o", "", "result CSV `file`, a regular file in an existing directory (it is read back to resume; default: the spec's output; with --shard, NAME-shard-I-of-N.csv)")
	fs.StringVar(shard, "shard", "", "run only shard `I/N`: the points whose id modulo N is I (0 <= I < N)")
	fs.IntVar(&o.Workers, "workers", 0, "simulations at once, 0 or more (default 0: every core)")
	fs.BoolVar(&o.Quiet, "quiet", false, "no progress bar and no timing on stderr (the bar is drawn only when stderr is a terminal)")
	fs.BoolVar(&o.Sort, "sort", false, "when done, rewrite the CSV in point order (byte-identical whatever the completion order)")
	fs.BoolVar(&o.DryRun, "dry-run", false, "print the points (the first 20) and the output file, simulate nothing")
	o.Stream = "auto"
	fs.Func("stream", "`mode` auto, on or off: on spills the schedule once (per compute_scale and extrapolate_factor) and runs every point on it, each simulation keeping only its active window in memory, instead of a compiled copy of the schedule per worker (docs/performance.md); same results. auto (the default) streams when the schedule and a copy per worker would need more than 60 % of the memory allowed, or when its program needs more than 2 GiB and its ranks are chains of ops (as gopsim sim --stream auto); an input that is not a regular file (a FIFO, /dev/stdin) cannot be measured without being consumed, so auto reads it once and holds it in memory, as gopsim sim holds a text from a pipe (--stream on to stream it, also read once)", func(v string) error {
		switch v {
		case "on", "true":
			o.Stream = "on"
		case "off", "false":
			o.Stream = "off"
		case "auto":
			o.Stream = "auto"
		default:
			return fmt.Errorf("%q: expected auto, on or off", v)
		}
		return nil
	})
	fs.StringVar(&o.SpillDir, "spill-dir", "", "`directory` of the spill files of a streamed sweep (default: the system's temporary directory)")
	fs.Usage = func() { sweepUsage(fs.Output()) }
	return fs
}

func sweepMergeFlags(spec, out *string) *flag.FlagSet {
	fs := flag.NewFlagSet("sweep merge", flag.ContinueOnError)
	fs.StringVar(spec, "spec", "", "the sweep's spec `file` (required): the points that must all be there")
	fs.StringVar(out, "o", "", "merged CSV `file` (default: the spec's output)")
	fs.Usage = func() { sweepUsage(fs.Output()) }
	return fs
}

type whereFlags map[string]string

func (w whereFlags) String() string { return "" }
func (w whereFlags) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("expected COLUMN=VALUE, got %q", s)
	}
	w[k] = v
	return nil
}

func sweepPlotFlags(o *sweep.PlotOptions, out *string) *flag.FlagSet {
	fs := flag.NewFlagSet("sweep plot", flag.ContinueOnError)
	o.Where = map[string]string{}
	fs.StringVar(&o.X, "x", "", "`column` on the x axis, a swept parameter such as L_ns (required)")
	fs.StringVar(&o.Series, "series", "", "`column` with one line per value, e.g. S_bytes")
	fs.StringVar(&o.Y, "y", "max_time_ns", "`column` on the y axis")
	fs.Var(whereFlags(o.Where), "where", "keep rows with `COLUMN=VALUE` (repeatable; the value in the column's unit or with its own: S_bytes=64KiB, L_ns=1.5us); every other swept parameter must be fixed; the plot's title lists them")
	fs.BoolVar(&o.LogX, "logx", false, "logarithmic x axis")
	fs.BoolVar(&o.LogY, "logy", false, "logarithmic y axis")
	fs.StringVar(&o.Title, "title", "", "plot `title` (default: Y against X [by SERIES]); a line under it gives the --where values")
	fs.StringVar(out, "o", "", "image `file`: .png, .svg or .pdf (required)")
	fs.Usage = func() { sweepUsage(fs.Output()) }
	return fs
}

func sweepUsage(w io.Writer) {
	fmt.Fprintf(w, `Usage:
  gopsim sweep [flags] SPEC
  gopsim sweep merge --spec SPEC [-o OUT.csv] SHARD.csv...
  gopsim sweep plot --x COLUMN [--series COLUMN] [--y COLUMN] [--where COLUMN=VALUE]... -o FILE.png|.svg RESULTS.csv

Simulates a schedule at every point of a parameter sweep, on every core, and
appends one CSV row per point as it finishes, with the columns
  %s
(point is the point's id, then the dimensions, then the results). The
OUT.csv.meta.json file echoes the spec, the input (with its SHA-256) and the
base parameters. Rows depend only on their point; wall time goes to stderr.

SPEC (.toml or .json) names the input schedule and the output CSV (paths
relative to the spec), base parameters (the keys of a sim --params file, or
that file's name) and a grid and/or a list of points:

  input = "allreduce_recdoub_8.goal"
  output = "latency.csv"
  [params]
  L_ns = 2500
  [grid]                                   # the cartesian product, last fastest
  L_ns = { from = 250, to = 16000, factor = 2 }   # geometric
  o_ns = { from = 500, to = 2500, step = 1000 }   # arithmetic
  S_bytes = [4096, 65535]                  # a list
  G_ns_per_byte = ["100Gb/s", 0.5]         # decimals, or strings with units ("1.5us", "64KiB")
  compute_scale = [0.5, 1, 2]              # every calc op's duration times this
  [[points]]                               # listed points follow the grid's
  L_ns = 100

The dimensions:
%s
Noise is swept like the LogGOPS parameters: noise_period_ns and
noise_period_length_ns (periodic detours), noise_interval_ns and
noise_length_ns (random detours; [noise] dist = "exp" by default, or
"pareto" with alpha), straggler_fraction and straggler_factor, noise_seed; a
[noise] table gives a measured trace = "FILE" and cosched = true. A noise key
that no point gives an effect (straggler_factor without straggler_fraction,
noise_seed with nothing random...) is refused, as sim refuses the flag.
extrapolate_factor K runs the schedule grown to K times its ranks (as gopsim
extrapolate does; extrapolate_grid = "16x16" names the input's process grid).

Run it again to resume: rows already in the CSV are checked against the spec
and skipped, a torn final line from a crash is dropped. Killing it loses no
row written. A second run into the same CSV stops at once: OUT.csv.lock,
held while a run writes, names the process that holds it. --shard I/N runs
the points whose id modulo N is I, into NAME-shard-I-of-N.csv; merge joins
the shards sorted by point, and fails if a point is missing or given twice
(see examples/slurm/sweep.sbatch).

`, strings.Join(sweep.Header(), ","), sweepDimsHelp())
	fmt.Fprint(w, `Flags of gopsim sweep:
`)
	var o SweepOptions
	var shard string
	fs := sweepFlags(&o, &shard)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, "\nFlags of gopsim sweep merge:\n")
	var a, b string
	fs = sweepMergeFlags(&a, &b)
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprint(w, "\nFlags of gopsim sweep plot:\n")
	var po sweep.PlotOptions
	fs = sweepPlotFlags(&po, &a)
	fs.SetOutput(w)
	fs.PrintDefaults()
}

// sweepDimsHelp lists the sweep dimensions, one a line, from sweep.Dims.
func sweepDimsHelp() string {
	var b strings.Builder
	for _, d := range sweep.Dims {
		fmt.Fprintf(&b, "  %-24s %s (%s)\n", d.Name, d.Doc, d.Unit)
	}
	return b.String()
}

func runSweep(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "merge":
			return runSweepMerge(args[1:], stdout, stderr)
		case "plot":
			return runSweepPlot(args[1:], stdout, stderr)
		}
	}
	var o SweepOptions
	var shard string
	fs := sweepFlags(&o, &shard)
	pos, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "gopsim sweep: one spec file expected, got %d arguments\nRun 'gopsim help sweep' for the flags.\n", len(pos))
		return ExitUsage
	}
	o.Spec = pos[0]
	if o.Workers < 0 {
		fmt.Fprintf(stderr, "gopsim sweep: --workers %d: want a number of simulations at once, or 0 for every core\n", o.Workers)
		return ExitUsage
	}
	if o.DryRun && (o.Sort || o.Workers != 0 || setFlags(fs)["stream"]) {
		fmt.Fprintln(stderr, "gopsim sweep: --dry-run simulates nothing: --sort, --workers and --stream have no effect with it")
		return ExitUsage
	}
	if o.SpillDir != "" && o.Stream == "off" {
		fmt.Fprintln(stderr, "gopsim sweep: --spill-dir applies to a streamed sweep; --stream off does not stream")
		return ExitUsage
	}
	if shard != "" {
		var err error
		if o.Shard, err = sweep.ParseShard(shard); err != nil {
			fmt.Fprintf(stderr, "gopsim sweep: --shard: %v\n", err)
			return ExitUsage
		}
	}
	release := handleSignals(os.Interrupt, syscall.SIGTERM)
	defer release()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	finished := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-ctx.Done():
			// A second interrupt ends the process at once (Main's
			// handler, which removes the unfinished outputs).
			stop()
			release()
			fmt.Fprintln(stderr, "\ngopsim sweep: interrupted: finishing the points running (interrupt again to abandon them)")
		case <-finished:
		}
	}()
	err := Sweep(ctx, o, stdout, stderr)
	close(finished)
	wg.Wait()
	if err != nil {
		printErr(stderr, "sweep", err)
		return ExitError
	}
	return ExitOK
}

// Sweep runs the sweep o names. A summary line goes to stdout; the
// progress bar (when stderr is a terminal), warnings and timing go to
// stderr.
func Sweep(ctx context.Context, o SweepOptions, stdout, stderr io.Writer) error {
	spec, err := sweep.ReadSpec(o.Spec)
	if err != nil {
		return err
	}
	out := o.Output
	if out == "" {
		out = sweep.ShardOutput(spec.OutputPath(), o.Shard)
	}
	if err := checkNotInput("-o", out, sweepInputs(spec)...); err != nil {
		return err
	}
	if o.DryRun {
		return sweepDryRun(spec, o.Shard, out, stdout)
	}
	// A missing directory is refused before any point runs, as by every
	// command (sweep.Run would refuse it too, after reading the schedule).
	if o.Output != "" {
		if err := checkOutputDir("-o", out); err != nil {
			return err
		}
	} else if err := checkOutputDir("output", out); err != nil {
		return spec.OutputError(err)
	}
	if err := checkSweepInput(spec.InputPath()); err != nil {
		return err
	}
	stream := o.Stream == "on"
	if o.Stream == "auto" || o.Stream == "" {
		why, err := sweepStreams(spec, o.Shard, o.Workers)
		if err != nil {
			return err
		}
		if stream = why != ""; stream {
			fmt.Fprintf(stderr, "gopsim sweep: %s; streaming it from a spill file (--stream off to refuse)\n", why)
		}
	}
	opt := sweep.Options{Output: out, Workers: o.Workers, Shard: o.Shard, Sort: o.Sort, Log: stderr, Tool: "gopsim " + versionString(),
		Stream: stream, SpillDir: o.SpillDir}
	points := 0
	for id := 0; id < spec.NumPoints(); id++ {
		if o.Shard.Has(id) {
			points++
		}
	}
	popt := o.Progress
	popt.Quiet = popt.Quiet || o.Quiet
	bar := progress.NewWith(stderr, int64(points), "points", popt)
	if bar.Enabled() {
		// The points done, those already in the CSV included; the bar
		// draws rate and ETA.
		opt.OnProgress = func(done, total int) { bar.Set(int64(done)) }
	}
	sum, err := sweep.Run(ctx, spec, opt)
	if err != nil {
		bar.Abandon()
		return err
	}
	bar.Finish()
	if !o.Quiet {
		rate := float64(sum.Ran) / max(sum.Wall.Seconds(), 1e-9)
		fmt.Fprintf(stderr, "gopsim sweep: %d points simulated in %v (%.1f points/s)\n", sum.Ran, sum.Wall.Round(time.Millisecond), rate)
	}
	fmt.Fprintf(stdout, "%s: %d points (%d new, %d already there); parameters in %s\n", sum.Output, sum.Already+sum.Ran, sum.Ran, sum.Already, sweep.MetaPath(sum.Output))
	return nil
}

// sweepInputs are the files a sweep reads: the spec, the schedule, and
// the parameter file and noise trace the spec names.
func sweepInputs(spec *sweep.Spec) []string {
	return []string{spec.File, spec.InputPath(), spec.ParamsPath(), spec.NoiseTracePath()}
}

func sweepDryRun(spec *sweep.Spec, shard sweep.Shard, out string, w io.Writer) error {
	fmt.Fprintf(w, "spec:    %s\ninput:   %s\nbase:    %s\n", spec.File, spec.InputPath(), spec.Params)
	var dims []string
	for _, a := range spec.Axes {
		dims = append(dims, fmt.Sprintf("%s (%d)", a.Dim.Name, len(a.Values)))
	}
	fmt.Fprintf(w, "points:  %d: grid %d [%s], listed %d\n", spec.NumPoints(), spec.GridPoints(), strings.Join(dims, " x "), len(spec.List))
	n := 0
	for id := 0; id < spec.NumPoints(); id++ {
		if shard.Has(id) {
			n++
		}
	}
	if shard.Count > 1 {
		fmt.Fprintf(w, "shard:   %s: %d points\n", shard, n)
	}
	fmt.Fprintf(w, "output:  %s\n", out)
	fmt.Fprintf(w, "%s\n", strings.Join(sweep.Header()[:1+len(sweep.Dims)], ","))
	shown := 0
	for id := 0; id < spec.NumPoints() && shown < 20; id++ {
		if !shard.Has(id) {
			continue
		}
		p := spec.Point(id)
		fields := []string{fmt.Sprint(id)}
		for _, d := range sweep.Dims {
			fields = append(fields, d.Format(d.Get(&p)))
		}
		fmt.Fprintln(w, strings.Join(fields, ","))
		shown++
	}
	if shown < n {
		fmt.Fprintf(w, "... (%d more)\n", n-shown)
	}
	return nil
}

func runSweepMerge(args []string, stdout, stderr io.Writer) int {
	var specPath, out string
	fs := sweepMergeFlags(&specPath, &out)
	inputs, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if specPath == "" {
		fmt.Fprintln(stderr, "gopsim sweep merge: --spec SPEC is required: it says which points must be there")
		return ExitUsage
	}
	spec, err := sweep.ReadSpec(specPath)
	if err != nil {
		printErr(stderr, "sweep merge", err)
		return ExitError
	}
	if out == "" {
		out = spec.OutputPath()
	}
	if len(inputs) == 0 {
		ext := filepath.Ext(out)
		inputs, _ = filepath.Glob(strings.TrimSuffix(out, ext) + "-shard-*-of-*" + ext)
		if len(inputs) == 0 {
			fmt.Fprintf(stderr, "gopsim sweep merge: no shard files given and none named %s-shard-I-of-N%s\n", strings.TrimSuffix(out, ext), ext)
			return ExitUsage
		}
	}
	if err := checkNotInput("-o", out, append(sweepInputs(spec), inputs...)...); err != nil {
		printErr(stderr, "sweep merge", err)
		return ExitUsage
	}
	if err := sweep.Merge(spec, out, inputs, sweep.MergeOptions{Log: stderr, Tool: "gopsim " + versionString()}); err != nil {
		printErr(stderr, "sweep merge", err)
		return ExitError
	}
	fmt.Fprintf(stdout, "%s: %d points from %d files, sorted by point; parameters in %s\n", out, spec.NumPoints(), len(inputs), sweep.MetaPath(out))
	return ExitOK
}

func runSweepPlot(args []string, stdout, stderr io.Writer) int {
	var o sweep.PlotOptions
	var out string
	fs := sweepPlotFlags(&o, &out)
	pos, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 || o.X == "" || out == "" {
		fmt.Fprintln(stderr, "gopsim sweep plot: expected one result CSV, --x COLUMN and -o FILE.png|.svg|.pdf")
		return ExitUsage
	}
	if err := checkPlotName("-o", out); err != nil {
		fmt.Fprintf(stderr, "gopsim sweep plot: %v\n", err)
		return ExitUsage
	}
	if err := sweep.PlotFile(out, pos[0], o); err != nil {
		printErr(stderr, "sweep plot", err)
		return ExitError
	}
	fmt.Fprintf(stdout, "%s: %s against %s from %s\n", out, o.Y, o.X, pos[0])
	return ExitOK
}
