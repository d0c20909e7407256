package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/gopsim/gopsim/collective"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/trace"
)

// ConvertOptions are the options of `gopsim convert` for trace input.
type ConvertOptions struct {
	Trace trace.ConvertOptions
}

type collAlgoFlag map[collective.Op]string

func (f collAlgoFlag) String() string {
	var parts []string
	for op, a := range f {
		parts = append(parts, op.String()+"="+a)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

func (f collAlgoFlag) Set(v string) error {
	for _, kv := range strings.Split(v, ",") {
		name, algo, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("%q: expected OP=ALGO, e.g. allreduce=ring", kv)
		}
		op, ok := collective.ParseOp(strings.TrimSpace(name))
		if !ok {
			return fmt.Errorf("%q: unknown collective %q", kv, name)
		}
		algo = strings.TrimSpace(algo)
		if algo != "auto" {
			if _, err := collective.Lookup(op, algo); err != nil {
				return err
			}
		}
		f[op] = algo
	}
	return nil
}

func convertFlags(o *ConvertOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	algos := collAlgoFlag{}
	o.Trace.CollAlgo = algos
	fs.Var(algos, "coll-algo", "collective `OP=ALGO` for traces, repeatable or comma-separated (e.g. allreduce=ring,bcast=binomial); default auto (MPICH's choice)")
	fs.Float64Var(&o.Trace.ComputeScale, "compute-scale", 1, "multiply the computation between MPI calls by `F` (0.5: twice as fast CPUs)")
	fs.StringVar(&o.Trace.Unsupported, "unsupported", "", "`calc` counts the time of MPI calls the converter cannot model as computation; default: an error listing them")
	fs.Float64Var(&o.Trace.ReduceNsPerByte, "reduce-cost", 0, "reduction compute in collectives, in `ns/byte`")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim convert [flags] IN OUT

Converts IN into a GOAL schedule OUT. IN is a schedule in LogGOPSim's GOAL
text form or gopsim's binary form (detected from its content), or a trace
directory written by gopsim trace (one rank-NNNNNN.gpt file per rank). OUT is
written as text when its name ends in .goal and in the binary form otherwise,
to a temporary file renamed only when complete: a failed conversion leaves no
partial file.

A trace becomes: sends and receives for point-to-point calls (requests
followed through Wait and Test), every collective on any communicator
expanded by the algorithm MPICH would choose (or --coll-algo), and a calc op
for the time between MPI calls. MPI calls that cannot be modelled are an
error that lists each function with its count, unless --unsupported=calc.

Flags (trace input only):
`)
		fs.PrintDefaults()
	}
	return fs
}

func runConvert(args []string, stdout, stderr io.Writer) int {
	var o ConvertOptions
	fs := convertFlags(&o)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(stderr, "gopsim convert: expected IN and OUT")
		return ExitUsage
	}
	if err := ConvertWith(fs.Arg(0), fs.Arg(1), o, stderr); err != nil {
		fmt.Fprintf(stderr, "gopsim convert: %v\n", err)
		return ExitError
	}
	return ExitOK
}

// Convert reads schedule in and writes it to out, in the form that out's
// name selects (goal.FormatForPath). Progress and the summary go to log.
func Convert(in, out string, log io.Writer) error {
	return ConvertWith(in, out, ConvertOptions{}, log)
}

// ConvertWith is Convert with options; a directory IN is read as a trace.
func ConvertWith(in, out string, o ConvertOptions, log io.Writer) error {
	if fi, err := os.Stat(in); err == nil && fi.IsDir() {
		return convertTrace(in, out, o, log)
	}
	s, from, err := goal.ReadFile(in)
	if err != nil {
		return err
	}
	to := goal.FormatForPath(out)
	if err := goal.WriteFile(out, s, to); err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	fmt.Fprintf(log, "converted %s (%s) to %s (%s): %d ranks, %d ops\n", in, from, out, to, s.NumRanks, len(s.Ops))
	return nil
}

func convertTrace(in, out string, o ConvertOptions, log io.Writer) error {
	d, err := trace.OpenDir(in)
	if err != nil {
		return err
	}
	var st *trace.ConvertStats
	to := goal.FormatForPath(out)
	err = goal.AtomicWrite(out, func(w io.Writer) error {
		var write func(*goal.RankBlock) error
		var closeW func() error
		if to == goal.FormatText {
			if _, err := fmt.Fprintf(w, "// gopsim convert %s (trace, %d ranks)\n", in, d.NumRanks()); err != nil {
				return err
			}
			tw, err := goal.NewTextWriter(w, d.NumRanks())
			if err != nil {
				return err
			}
			write, closeW = tw.WriteRank, tw.Close
		} else {
			bw, err := goal.NewWriter(w, goal.Header{NumRanks: d.NumRanks(), NumCPUs: 1, NumNICs: 1})
			if err != nil {
				return err
			}
			write, closeW = bw.WriteRank, bw.Close
		}
		var err error
		st, err = trace.Convert(d, o.Trace, write)
		if err != nil {
			return err
		}
		return closeW()
	})
	if st != nil {
		var funcs []string
		for f := range st.PerFunc {
			funcs = append(funcs, f)
		}
		sort.Strings(funcs)
		fmt.Fprintf(log, "trace %s: %d ranks, %d MPI call records, %d collectives", in, st.Ranks, st.Calls, st.Collectives)
		for _, f := range funcs {
			fmt.Fprintf(log, "\n  %-24s %d", f, st.PerFunc[f])
		}
		fmt.Fprintln(log)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "converted %s (trace) to %s (%s): %d ranks, %d ops, %d calcs (%d ns of computation, scale %g)\n",
		in, out, to, st.Ranks, st.Ops, st.Calcs, st.ComputeNs, o.Trace.ComputeScale)
	if len(st.Unsupported) > 0 {
		fmt.Fprintf(log, "unsupported calls counted as computation: %v\n", st.Unsupported)
	}
	return nil
}
