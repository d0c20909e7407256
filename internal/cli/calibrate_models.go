package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/gopsim/gopsim/bench"
	"github.com/gopsim/gopsim/internal/excerpt"
	"github.com/gopsim/gopsim/sim"
)

// CalibrateModelsOptions are the options of `gopsim calibrate models`.
type CalibrateModelsOptions struct {
	Table  string // raw PRTT table (gopsim calibrate's)
	Output string // model parameter file; "" prints the JSON on stdout
	Fit    bench.FitOptions
	// Burst is LogfP's burst table: read, or written when MeasureBurst.
	Burst        string
	MeasureBurst bool
	BurstCfg     bench.BurstConfig
	// Backend, Peer and MPIRun choose where MeasureBurst measures, as
	// for `gopsim calibrate` (loopback TCP by default).
	Backend, Peer, MPIRun string
	// Pack is log3P's pack table: read, or written when MeasurePack.
	Pack        string
	MeasurePack bool
	// PackBackend says how MeasurePack measures: "go" ("" too) with
	// bench.MeasurePack, "mpi" with bench.MeasurePackMPI, which runs
	// PackBin (FindPack's choice when "") under PackMPIRun, split at
	// blanks ("" means "mpirun -np 1"; "direct" runs it without a
	// launcher).
	PackBackend, PackMPIRun, PackBin string
	// Plot, if not "", is an image of every model's predicted half
	// round trip against the measured one.
	Plot string
}

func calibrateModelsFlags(o *CalibrateModelsOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("calibrate models", flag.ContinueOnError)
	fs.StringVar(&o.Output, "o", "", "model parameter `file` (JSON) to write; default: print it on stdout")
	fs.IntVar(&o.Fit.MaxRanges, "max-ranges", bench.DefaultMaxRanges, "at most this many size ranges for the LogGOPS fit")
	quantileFlag(fs, &o.Fit)
	fs.StringVar(&o.Burst, "burst", "", "LogfP's burst table `file` (CSV n,d_ns,s_bytes,prtt_ns with n = 1..P): read it, or write it with --measure-burst")
	fs.BoolVar(&o.MeasureBurst, "measure-burst", false, "measure the burst round trips PRTT(P,0,s), P = 1..--burst-max (default table file burst.csv)")
	o.BurstCfg.SizeBytes = 8
	fs.Var(bytesQty(&o.BurstCfg.SizeBytes), "burst-size", "message size of the bursts in `bytes` (or with a unit: 1KiB) (default 8)")
	fs.IntVar(&o.BurstCfg.MaxP, "burst-max", 32, "longest burst, in messages")
	fs.IntVar(&o.BurstCfg.Reps, "burst-reps", 100, "timed repetitions per burst length")
	fs.StringVar(&o.Backend, "backend", "tcp", "--measure-burst: `backend` tcp or mpi, as for gopsim calibrate")
	fs.StringVar(&o.Peer, "peer", "", "--measure-burst, tcp: the server at `addr` (gopsim calibrate --listen); default: one on this host")
	fs.StringVar(&o.MPIRun, "mpirun", "", "--measure-burst, mpi: the launcher `command` (default \"mpirun -np 2\")")
	fs.StringVar(&o.Pack, "pack", "", "log3P's pack table `file` (CSV s_bytes,stride_bytes,pack_ns,unpack_ns): read it, or write it with --measure-pack")
	fs.StringVar(&o.Plot, "plot", "", "draw every model's predicted half round trip and the measured one into this image `file` (.png, .svg, .pdf; log3P at stride 1024 bytes)")
	fs.BoolVar(&o.MeasurePack, "measure-pack", false, "time packing and unpacking strided messages on this host, with --pack-backend (default table file pack.csv)")
	fs.StringVar(&o.PackBackend, "pack-backend", "go", "--measure-pack: `backend` go (Go loops) or mpi (MPI_Pack and MPI_Unpack of an MPI vector datatype, by bin/gopsim-pack)")
	fs.StringVar(&o.PackMPIRun, "pack-mpirun", "", "--pack-backend mpi: the `command` that starts 1 MPI process, split at blanks, gopsim-pack appended (default \"mpirun -np 1\"; \"direct\" runs gopsim-pack itself, a singleton MPI process; e.g. \"mpirun.mpich -np 1\")")
	fs.StringVar(&o.PackBin, "pack-bin", "", "--pack-backend mpi: the gopsim-pack `program`, built with the MPI of --pack-mpirun (make calibrate-deps); default: "+bench.DefaultPackProgram+" next to gopsim, then on $PATH")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim calibrate models PRTT.csv [--burst B.csv | --measure-burst] [--pack P.csv | --measure-pack [--pack-backend go|mpi]] [-o MODELS.json]

Fits the parameters of the whole model family (docs/models.md) and writes
one parameter file for 'gopsim sim --model NAME --params MODELS.json': the
LogGOPS keys as 'gopsim calibrate fit' writes them, "alphabeta" and
"plogp" from the same PRTT table, "logfp" (f) from a burst table of
PRTT(P,0,s) for P = 1, 2, ..., and "log3p" from a pack table. A section
whose measurements are missing is left out: sim then uses its defaults.

--measure-pack times packing strided messages in Go by default; with
--pack-backend mpi, through the MPI library's datatype engine (MPI_Pack of
an MPI vector datatype) by bin/gopsim-pack (make calibrate-deps) on one
MPI process. Open MPI's mpirun as root wants OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1.

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

// burstNeeds: the burst flags say how --measure-burst measures.
var burstNeeds = []flagNeed{
	{"burst-size", []string{"measure-burst"}, "it is the message size of the bursts measured"},
	{"burst-max", []string{"measure-burst"}, "it is the longest burst measured"},
	{"burst-reps", []string{"measure-burst"}, "it is the repetitions of the bursts measured"},
	{"backend", []string{"measure-burst"}, "the burst measurement is the only one calibrate models makes over a network"},
	{"peer", []string{"measure-burst"}, "it is the server the bursts are measured against"},
	{"mpirun", []string{"measure-burst"}, "it starts the ranks the bursts are measured between"},
}

func runCalibrateModels(args []string, stdout, stderr io.Writer) int {
	var o CalibrateModelsOptions
	fs := calibrateModelsFlags(&o)
	pos, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "gopsim calibrate models: one PRTT table expected, got %d arguments\nRun 'gopsim help calibrate' for the flags.\n", len(pos))
		return ExitUsage
	}
	if o.Backend != "tcp" && o.Backend != "mpi" {
		fmt.Fprintf(stderr, "gopsim calibrate models: --backend %s: want tcp or mpi\n", excerpt.Quote(o.Backend))
		return ExitUsage
	}
	given := setFlags(fs)
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "gopsim calibrate models: "+format+"\nRun 'gopsim help calibrate' for the flags.\n", a...)
		return ExitUsage
	}
	if err := needsFlags(given, burstNeeds); err != nil {
		return usageErr("%v", err)
	}
	switch {
	case o.MeasureBurst && o.Backend == "mpi" && given["peer"]:
		return usageErr("--peer applies to --backend tcp: with --backend mpi, --mpirun starts both ends")
	case o.MeasureBurst && o.Backend != "mpi" && given["mpirun"]:
		return usageErr("--mpirun applies to --backend mpi; --backend tcp measures against --peer or a server on this host")
	case o.PackBackend != "go" && o.PackBackend != "mpi":
		return usageErr("--pack-backend %q: want go or mpi", o.PackBackend)
	case given["pack-backend"] && !o.MeasurePack:
		return usageErr("--pack-backend applies to --measure-pack only")
	case o.PackBackend != "mpi" && (given["pack-mpirun"] || given["pack-bin"]):
		return usageErr("--pack-mpirun and --pack-bin apply to --pack-backend mpi only")
	case given["pack-mpirun"] && len(strings.Fields(o.PackMPIRun)) == 0:
		return usageErr("--pack-mpirun is empty: want a command such as \"mpirun -np 1\", or \"direct\"")
	}
	o.Table = pos[0]
	defer handleSignals(os.Interrupt)()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := CalibrateModels(ctx, o, stdout, stderr); err != nil {
		printErr(stderr, "calibrate models", err)
		return ExitError
	}
	return ExitOK
}

// CalibrateModels runs `gopsim calibrate models`.
func CalibrateModels(ctx context.Context, o CalibrateModelsOptions, stdout, stderr io.Writer) error {
	tab, err := bench.ReadTableFile(o.Table)
	if err != nil {
		return err
	}
	pf, err := bench.Fit(tab, o.Fit)
	if err != nil {
		return fmt.Errorf("%s: %w", o.Table, err)
	}
	pf.Source.Table = o.Table
	var in bench.ModelInputs
	switch {
	case o.MeasureBurst:
		if o.Burst == "" {
			o.Burst = "burst.csv"
		}
		cfg, err := bench.Config{}.WithDefaults()
		if err != nil {
			return err
		}
		childCtx, killChild := context.WithCancel(ctx)
		defer killChild()
		p, _, done, err := startProber(ctx, childCtx, CalibrateOptions{Backend: o.Backend, Peer: o.Peer, MPIRun: o.MPIRun}, cfg, stderr)
		if err != nil {
			killChild()
			done()
			return err
		}
		in.Burst, err = bench.MeasureBurst(ctx, p, o.BurstCfg)
		if cerr := p.Close(); err == nil {
			err = cerr
		}
		if derr := done(); err == nil {
			err = derr
		}
		if err != nil {
			return err
		}
		if err := bench.WriteTableFile(o.Burst, in.Burst); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "gopsim calibrate models: burst table %s (%d rows)\n", o.Burst, len(in.Burst))
	case o.Burst != "":
		if in.Burst, err = bench.ReadTableFile(o.Burst); err != nil {
			return err
		}
	}
	switch {
	case o.MeasurePack:
		if o.Pack == "" {
			o.Pack = "pack.csv"
		}
		if in.Pack, err = measurePack(ctx, o, stderr); err != nil {
			return err
		}
		if err := bench.WritePackTableFile(o.Pack, in.Pack); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "gopsim calibrate models: pack table %s (%d rows)\n", o.Pack, len(in.Pack))
	case o.Pack != "":
		if in.Pack, err = bench.ReadPackTableFile(o.Pack); err != nil {
			return err
		}
	}
	mf, err := bench.FitModels(pf, tab, in)
	if err != nil {
		return err
	}
	for _, w := range append(pf.Warnings, mf.ModelFit.Warnings...) {
		fmt.Fprintf(stderr, "gopsim calibrate models: warning: %s\n", w)
	}
	if o.Plot != "" {
		var buf bytes.Buffer
		if err := mf.Write(&buf); err != nil {
			return err
		}
		p, err := sim.ReadParams(&buf, "the fitted parameters", sim.DefaultParams())
		if err != nil {
			return err
		}
		if err := bench.WriteModelPlotFile(o.Plot, p, bench.PlotSizes(), 1024, pf.Fit.Points); err != nil {
			return err
		}
	}
	if o.Output == "" {
		return mf.Write(stdout)
	}
	if err := mf.WriteFile(o.Output); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "loggops:    L=%v ns, o=%v ns, g=%v ns, G=%v ns/byte, O=%v ns/byte (%d ranges)\n", pf.L, pf.Overhead, pf.Gap, pf.GapPerByte, pf.OverheadPerByte, len(pf.Ranges))
	fmt.Fprintf(stdout, "alphabeta:  alpha=%g ns, beta=%g ns/byte\n", mf.AlphaBeta.Alpha, mf.AlphaBeta.Beta)
	if mf.PLogP != nil {
		fmt.Fprintf(stdout, "plogp:      L=%g ns, %d sizes\n", mf.PLogP.L, len(mf.PLogP.Points))
	}
	if mf.LogfP != nil {
		fmt.Fprintf(stdout, "logfp:      f=%d (hinge slopes %.0f then %.0f ns per message)\n", mf.LogfP.F, mf.ModelFit.LogfP.SlopeBefore, mf.ModelFit.LogfP.SlopeAfter)
	}
	if mf.Log3P != nil {
		fmt.Fprintf(stdout, "log3p:      %d size and stride points\n", len(mf.Log3P.Points))
	}
	fmt.Fprintf(stdout, "parameters: %s\n", o.Output)
	return nil
}

// measurePack measures the pack table with o.PackBackend.
func measurePack(ctx context.Context, o CalibrateModelsOptions, stderr io.Writer) (bench.PackTable, error) {
	switch o.PackBackend {
	case "", "go":
		return bench.MeasurePack(bench.PackConfig{})
	case "mpi":
	default:
		return nil, fmt.Errorf("pack backend %q: want go or mpi", o.PackBackend)
	}
	prog, err := FindPack(o.PackBin)
	if err != nil {
		return nil, err
	}
	po := bench.PackMPIOptions{Program: prog, Log: stderr}
	switch f := strings.Fields(o.PackMPIRun); {
	case len(f) == 1 && f[0] == "direct":
		po.Direct = true
	case len(f) > 0:
		po.Launcher = f
	}
	return bench.MeasurePackMPI(ctx, po)
}

// FindPack returns the pack benchmark's MPI program: bin if given, else
// bench.DefaultPackProgram next to the running binary, else on $PATH. The
// path is absolute.
func FindPack(bin string) (string, error) {
	return findProgram(bin, bench.DefaultPackProgram, "the pack benchmark's MPI program", "--pack-bin")
}
