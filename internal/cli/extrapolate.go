package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/extrapolation"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/tit"
)

// ExtrapolateOptions are the options of `gopsim extrapolate`.
type ExtrapolateOptions struct {
	// Factor is K: a P-rank input becomes K·P ranks.
	Factor int
	// Grid is the traced run's process grid ("" detected, see
	// extrapolation.Options.Grid); NoGrid turns the grid rule off.
	Grid   []int
	NoGrid bool
	// Convert holds the trace conversion options (collective algorithms,
	// compute scale, unsupported calls) and the input format (From).
	Convert ConvertOptions
}

type dimsFlag struct{ dims *[]int }

func (f dimsFlag) String() string {
	if f.dims == nil || *f.dims == nil {
		return ""
	}
	return extrapolation.FormatDims(*f.dims)
}

func (f dimsFlag) Set(v string) error {
	d, err := extrapolation.ParseDims(v)
	if err != nil {
		return err
	}
	*f.dims = d
	return nil
}

func extrapolateFlags(o *ExtrapolateOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("extrapolate", flag.ContinueOnError)
	algos := collAlgoFlag{}
	o.Convert.Trace.CollAlgo = algos
	fs.Func("factor", "the scale factor `K`, a whole number: a P-rank input becomes K·P ranks (required)", func(v string) error {
		k, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("want a whole number K of copies of the input (K·P ranks), such as 4 or 1024")
		}
		o.Factor = k
		return nil
	})
	fs.Var(dimsFlag{&o.Grid}, "grid", "the traced run's process grid, slowest dimension first, e.g. `4x4` (default: detected when the trace has an MPI_Cart_create over all ranks)")
	fs.BoolVar(&o.NoGrid, "no-grid", false, "ignore any process grid: every copy keeps its point-to-point messages (Schedgen's rule)")
	fs.Var(fromFlag{&o.Convert.From, convertFormats}, "from", "the input's `FORMAT`: "+strings.Join(convertFormats, ", ")+"; default: detected")
	fs.Var(algos, "coll-algo", "collective `OP=ALGO` for traces, repeatable or comma-separated; default auto (the --coll-select choice at K·P ranks)")
	fs.Var(fromFlag{&o.Convert.Trace.CollSelect, collSelects}, "coll-select", "traces: whose algorithm choice the regenerated collectives follow: `RULES` openmpi, mpich, or auto (the library the trace names; MPICH's when it names none)")
	fs.Float64Var(&o.Convert.Trace.ComputeScale, "compute-scale", 1, "traces: multiply the computation between MPI calls by `F` (0: no computation)")
	fs.StringVar(&o.Convert.Trace.Unsupported, "unsupported", "", "traces: `calc` counts the time of MPI calls that cannot be modelled as computation; default: an error")
	fs.Var(perByteQty(&o.Convert.Trace.ReduceNsPerByte), "reduce-cost", "traces: reduction compute in collectives, in `ns/byte` (or as a rate: 4GB/s)")
	fs.Float64Var(&o.Convert.TimeMult, "timemult", 1000, "liballprof: multiply the trace's µs by `F` to get ns")
	o.Convert.HostSpeed = tit.DefaultHostSpeed
	fs.Var(flopsQty(&o.Convert.HostSpeed), "host-speed", "SimGrid TIT: the speed in `FLOPS` (flop/s, or SimGrid's 1Gf, 100Mf) that turns compute actions into time")
	fs.StringVar(&o.Convert.MPI, "mpi", "", "liballprof: the `LIBRARY` the trace was taken with (openmpi, mpich); default: detected")
	fs.StringVar(&o.Convert.LibraryCostsFile, "library-costs", "", "traces: "+libraryCostsUsage+"; charged on every rank of the K·P, first contacts with the peers each rank has there")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim extrapolate --factor K [flags] IN OUT

Turns a P-rank trace or GOAL schedule IN into a K·P-rank GOAL schedule OUT
(text if OUT ends in .goal, binary otherwise; written to a temporary file
renamed only when complete).

As in LogGOPSim's Schedgen, copy j of rank r becomes rank r + P·j and
point-to-point messages stay inside each copy (peer p of copy j becomes
p + P·j). Traces (any format convert reads): collectives are regenerated
over all K·P ranks, on every communicator that had all P ranks (others stay
inside their copy), with the algorithms the traced library would choose at
that size (--coll-select). With --library-costs, the MPI library's one-time
costs are charged as gopsim convert charges them, so that --factor 1 gives
the schedule gopsim validate --params simulates.

Process grids: when the trace has an MPI_Cart_create over all P ranks (or
--grid names the grid), the copies are stacked along the grid's first
dimension, which grows from d0 to K·d0 (a 4x4 grid ×64 becomes 256x4), and
a message that wrapped around that dimension in the P-rank run goes to the
neighbouring copy instead: a periodic halo exchange stays one halo exchange
over K·P ranks. The grid's dimensions are detected from the point-to-point
neighbours (MPI_Dims_create's grids of 1 to 3 dimensions); --grid sets them.

GOAL schedules: the rank blocks are replicated with their peers remapped
(and --grid applied if given). A schedule's collectives are only sends and
receives, which cannot be recognised: they stay inside each copy.

docs/extrapolate.md has the rules in full.

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

func runExtrapolate(args []string, stdout, stderr io.Writer) int {
	var o ExtrapolateOptions
	fs := extrapolateFlags(&o)
	pos, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 2 {
		fmt.Fprintln(stderr, "gopsim extrapolate: expected IN and OUT")
		return ExitUsage
	}
	switch {
	case !setFlags(fs)["factor"]:
		fmt.Fprintln(stderr, "gopsim extrapolate: --factor K is required: the scale factor, at least 1 (the output has K times the input's ranks)")
		return ExitUsage
	case o.Factor < 1:
		fmt.Fprintf(stderr, "gopsim extrapolate: --factor %d: give the scale factor K, at least 1\n", o.Factor)
		return ExitUsage
	}
	if o.NoGrid && o.Grid != nil {
		fmt.Fprintln(stderr, "gopsim extrapolate: --grid and --no-grid exclude each other")
		return ExitUsage
	}
	if err := checkConvertFlags(fs, pos[0], "goal", &o.Convert); err != nil {
		printErr(stderr, "extrapolate", err)
		return ExitUsage
	}
	if err := checkScheduleOut("OUT", pos[1]); err != nil {
		printErr(stderr, "extrapolate", err)
		return ExitUsage
	}
	if err := checkNotTraceInput("OUT", pos[1], pos[0], o.Convert.LibraryCostsFile); err != nil {
		printErr(stderr, "extrapolate", err)
		return ExitUsage
	}
	if err := Extrapolate(pos[0], pos[1], o, stderr); err != nil {
		printErr(stderr, "extrapolate", err)
		if errors.Is(err, extrapolation.ErrOptions) {
			return ExitUsage // a factor or grid the input cannot take
		}
		return exitCode(err)
	}
	return ExitOK
}

// Extrapolate reads the trace or schedule in, extrapolates it by
// o.Factor and writes the schedule to out; the grid decision and a
// summary go to log.
func Extrapolate(in, out string, o ExtrapolateOptions, log io.Writer) error {
	from := o.Convert.From
	if from == "" {
		var err error
		if from, err = DetectFormat(in); err != nil {
			return err
		}
	}
	command := fmt.Sprintf("gopsim extrapolate --factor %d", o.Factor)
	if o.Grid != nil {
		command += " --grid " + extrapolation.FormatDims(o.Grid)
	}
	if o.NoGrid {
		command += " --no-grid"
	}
	if o.Convert.LibraryCostsFile != "" {
		lib, err := loadLibraryCosts(o.Convert.LibraryCostsFile)
		if err != nil {
			return err
		}
		o.Convert.Trace.LibraryCosts = lib
		command += " --library-costs " + o.Convert.LibraryCostsFile
	}
	command += " " + in
	src, warnings, err := openTrace(in, from, o.Convert, log)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(log, "warning: %s\n", w)
	}
	if src == nil {
		s, f, err := goal.ReadFile(in)
		if err != nil {
			return err
		}
		n := int64(s.NumRanks) * int64(o.Factor)
		if o.Grid != nil {
			p := 1
			for _, d := range o.Grid {
				p *= d
			}
			if p != s.NumRanks {
				return usageMistake(fmt.Errorf("%s: --grid %s has %d ranks, the schedule %d", in, extrapolation.FormatDims(o.Grid), p, s.NumRanks))
			}
			fmt.Fprintf(log, "grid: %s, its first dimension multiplied by %d\n", extrapolation.FormatDims(o.Grid), o.Factor)
		}
		h := goal.Header{NumRanks: int(n), NumCPUs: s.NumCPUs, NumNICs: s.NumNICs}
		if n > goal.MaxRanks {
			return fmt.Errorf("%s: %d ranks × factor %d is more than the %d ranks a schedule holds", in, s.NumRanks, o.Factor, goal.MaxRanks)
		}
		ops, err := writeSchedule(out, h, []string{command + fmt.Sprintf(" (%s schedule, %d ranks)", f, s.NumRanks)}, func(write func(*goal.RankBlock) error) error {
			return extrapolation.Schedule(s, extrapolation.ScheduleOptions{Factor: o.Factor, Grid: o.Grid}, write)
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "extrapolated %s (%s schedule, %d ranks) ×%d to %s (%s): %d ranks, %d ops\n",
			in, f, s.NumRanks, o.Factor, out, goal.FormatForPath(out), h.NumRanks, ops)
		return nil
	}
	x, err := extrapolation.NewSource(src, extrapolation.Options{Factor: o.Factor, Grid: o.Grid, NoGrid: o.NoGrid})
	if err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	fmt.Fprintf(log, "grid: %s\n", x.Grid())
	var st *trace.ConvertStats
	coll, err := collSummary(x, o.Convert.Trace)
	if err != nil {
		return err
	}
	fmt.Fprintln(log, coll)
	h := goal.Header{NumRanks: x.NumRanks(), NumCPUs: 1, NumNICs: 1}
	comment := []string{command + fmt.Sprintf(" (%s trace, %d ranks)", from, src.NumRanks()), "grid: " + x.Grid().String(), coll,
		convertOptionsText(o.Convert, from, true)}
	ops, err := writeSchedule(out, h, comment, func(write func(*goal.RankBlock) error) error {
		var err error
		st, err = trace.Convert(x, o.Convert.Trace, write)
		return err
	})
	if err != nil {
		return err
	}
	var funcs []string
	for f := range st.PerFunc {
		funcs = append(funcs, f)
	}
	sort.Strings(funcs)
	fmt.Fprintf(log, "extrapolated %s (%s trace, %d ranks) ×%d to %s (%s): %d ranks, %d ops, %d collectives regenerated, %d ns of computation (scale %g)\n",
		in, from, src.NumRanks(), o.Factor, out, goal.FormatForPath(out), st.Ranks, ops, st.Collectives, st.ComputeNs, o.Convert.Trace.ComputeScale)
	logStandIns(log, st)
	if u := x.Unsupported(); len(u) > 0 {
		fmt.Fprintf(log, "unsupported calls counted as computation (per copy): %s\n", countList(u))
	}
	return nil
}

// writeSchedule writes a schedule of header h to out (text if its name
// ends in .goal, else binary) through a temporary file: produce hands the
// rank blocks in order to write. Text output starts with comment lines.
// It returns the number of ops written.
func writeSchedule(out string, h goal.Header, comment []string, produce func(write func(*goal.RankBlock) error) error) (int64, error) {
	var ops int64
	err := atomicfile.Write(out, func(w io.Writer) error {
		var write func(*goal.RankBlock) error
		var closeW func() error
		abandon := func() {} // lets a binary writer finish before w is dropped
		if goal.FormatForPath(out) == goal.FormatText {
			for _, c := range comment {
				for _, line := range strings.Split(c, "\n") {
					if _, err := fmt.Fprintf(w, "// %s\n", line); err != nil {
						return err
					}
				}
			}
			tw, err := goal.NewTextWriter(w, h.NumRanks)
			if err != nil {
				return err
			}
			write, closeW = tw.WriteRank, tw.Close
		} else {
			bw, err := goal.NewWriter(w, h)
			if err != nil {
				return err
			}
			write, closeW = bw.WriteRank, bw.Close
			abandon = func() { bw.Close() } // fails, once the writer's goroutine has stopped
		}
		if err := produce(func(b *goal.RankBlock) error {
			ops += int64(len(b.Ops))
			return write(b)
		}); err != nil {
			abandon()
			return err
		}
		return closeW()
	})
	if err != nil {
		return ops, fmt.Errorf("writing %s: %w", out, err)
	}
	return ops, nil
}
