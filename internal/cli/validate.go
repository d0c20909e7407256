package cli

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/validation"
)

// ValidateOptions are the options of `gopsim validate`.
type ValidateOptions struct {
	// Input is the trace: a directory or file of a format with timestamps.
	Input string
	// Convert are the conversion's options: From (one of
	// validateFormats, "" detected), Trace, TimeMult and MPI; To,
	// HostSpeed and Quiet are not used.
	Convert ConvertOptions
	// Params are the model's parameters, from ParamsFile if one was given
	// (echoed in the output), else sim.DefaultParams().
	Params     sim.Params
	ParamsFile string
	JSON       bool
}

// validateFormats are the trace formats that carry timestamps.
var validateFormats = []string{"gopsim", "liballprof", "dumpi", "otf2"}

// untimedFormats say why the other inputs cannot be validated.
var untimedFormats = map[string]string{
	"tit":    "a SimGrid time-independent trace has no timestamps",
	"chakra": "a Chakra execution trace has durations but no timestamps of MPI_Init and MPI_Finalize",
	"goal":   "not a trace: a GOAL schedule (or an unknown file) has no measured times",
}

func validateFlags(o *ValidateOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("validate", flag.ContinueOnError)
	fs.StringVar(&o.ParamsFile, "params", "", "JSON parameter `file` (keys L_ns o_ns g_ns G_ns_per_byte O_ns_per_byte S_bytes, ranges); default: gopsim sim's defaults")
	fs.BoolVar(&o.JSON, "json", false, "print one JSON object (measured_ns, simulated_ns, ratio, per_rank arrays, params, input) instead of text")
	fs.Var(fromFlag{&o.Convert.From, validateFormats}, "from", "the trace's `FORMAT`: "+strings.Join(validateFormats, ", ")+"; default: detected from the content and names")
	convertTraceFlags(fs, &o.Convert)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim validate [flags] TRACE

Converts TRACE into a schedule as gopsim convert does, simulates it under
LogGOPS and compares the simulation with the times the trace measured.
TRACE is a trace with timestamps: a directory of gopsim trace, a
liballprof trace, a DUMPI trace or an OTF2 archive (detected, or --from).

Per rank it prints, in ns:
  measured_ns       from the end of MPI_Init to the start of MPI_Finalize,
                    the span the converted schedule covers
  init_finalize_ns  from the start of MPI_Init to the end of MPI_Finalize
  simulated_ns      the rank's simulated finishing time, and the ratio
                    simulated/measured
and where the two part: the measured time outside MPI calls (computation)
against the simulated calc, the measured time inside MPI calls against
the simulated communication (o and (s-1)·O) plus waiting, and the
tracer's flushes (measured only). The last line compares the slowest
rank of each. Results go to stdout, the conversion's log to stderr.

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

func runValidate(args []string, stdout, stderr io.Writer) int {
	o := ValidateOptions{Params: sim.DefaultParams()}
	fs := validateFlags(&o)
	pos, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 {
		fmt.Fprintf(stderr, "gopsim validate: expected one TRACE, got %d arguments\n", len(pos))
		return ExitUsage
	}
	o.Input = pos[0]
	given := setFlags(fs)
	if o.ParamsFile != "" {
		p, err := sim.ReadParamsFile(o.ParamsFile, sim.DefaultParams())
		if err != nil {
			printErr(stderr, "validate", err)
			return ExitError
		}
		o.Params = p
	}
	if err := Validate(o, given, stdout, stderr); err != nil {
		printErr(stderr, "validate", err)
		return exitCode(err)
	}
	return ExitOK
}

// Validate converts and simulates the trace o.Input and writes the
// comparison of measured and simulated times to w (text, or JSON with
// o.JSON); the conversion's log goes to log. given names the flags given
// on the command line (nil: none), so that one that would have no effect
// on this trace's format is an error.
func Validate(o ValidateOptions, given map[string]bool, w, log io.Writer) error {
	from, err := validateFormat(o.Input, o.Convert.From)
	if err != nil {
		return err
	}
	if from != "liballprof" {
		for _, f := range []string{"timemult", "mpi"} {
			if given[f] {
				return usageMistake(fmt.Errorf("--%s applies to liballprof traces; %s is a %s trace", f, o.Input, from))
			}
		}
	}
	if err := checkTraceFlags(given, from, "goal", &o.Convert); err != nil {
		return usageMistake(err)
	}
	o.Convert.Trace.LibraryCosts = o.Params.Library // --params' section, unless --library-costs says otherwise
	if o.Convert.LibraryCostsFile != "" {
		if o.Convert.Trace.LibraryCosts, err = loadLibraryCosts(o.Convert.LibraryCostsFile); err != nil {
			return err
		}
	}
	src, warnings, err := openTrace(o.Input, from, o.Convert, log)
	if err != nil {
		return err
	}
	for _, w := range warnings {
		fmt.Fprintf(log, "warning: %s\n", w)
	}
	res, err := validation.Run(src, validation.Options{Params: o.Params, Convert: o.Convert.Trace})
	if errors.Is(err, trace.ErrNoTimestamps) {
		return fmt.Errorf("%w: validate needs a trace with timestamps", err)
	}
	if err != nil {
		return err
	}
	logValidation(log, o.Input, from, src, res)
	rep := newValidateReport(o, from, trace.LibraryOf(src), res)
	if o.JSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(rep)
	}
	return rep.text(w)
}

// validateFormat is the format of trace in: from if given, else detected;
// a format without timestamps is an error that says so.
func validateFormat(in, from string) (string, error) {
	if from == "" {
		var err error
		if from, err = DetectFormat(in); err != nil {
			return "", err
		}
	}
	if why, ok := untimedFormats[from]; ok {
		return "", fmt.Errorf("%s: %s: validate needs a trace with timestamps (%s)", in, why, strings.Join(validateFormats, ", "))
	}
	if !slices.Contains(validateFormats, from) {
		return "", fmt.Errorf("%s: format %q: expected one of %s", in, from, strings.Join(validateFormats, ", "))
	}
	return from, nil
}

// logValidation writes the conversion's summary and the ranks measured
// without an MPI_Init record to log.
func logValidation(log io.Writer, in, from string, src trace.Source, res *validation.Result) {
	var noInit []int
	oneEnd := true // only MPI_Init's end and MPI_Finalize's start recorded
	for r, x := range res.Ranks {
		if x.Measured.NoInit {
			noInit = append(noInit, r)
		}
		m := x.Measured
		oneEnd = oneEnd && m.InitStart == m.InitEnd && m.FinalizeStart == m.FinalizeEnd
	}
	if oneEnd {
		fmt.Fprintf(log, "note: %s records the end of MPI_Init and the start of MPI_Finalize only: init_finalize_ns is the measured time\n", in)
	}
	if len(noInit) > 0 {
		fmt.Fprintf(log, "warning: %s: no MPI_Init record in %d of %d ranks (%s): their times count from their first record\n",
			in, len(noInit), len(res.Ranks), rankList(noInit))
	}
	st := res.Stats
	fmt.Fprintf(log, "converted %s (%s trace): %d ranks, %d MPI call records, %d ops, %d calcs (%d ns of computation)\n",
		in, from, src.NumRanks(), st.Calls, st.Ops, st.Calcs, st.ComputeNs)
	if st.CollNote != "" {
		fmt.Fprintf(log, "collectives: %s rules; note: %s\n", st.CollRules, st.CollNote)
	}
	logStandIns(log, st)
	unsupported := map[string]int64{}
	for k, v := range st.Unsupported {
		unsupported[k] += v
	}
	if u, ok := src.(interface{ Unsupported() map[string]int64 }); ok {
		for k, v := range u.Unsupported() {
			unsupported[k] += v
		}
	}
	if len(unsupported) > 0 {
		fmt.Fprintf(log, "unsupported calls counted as computation: %s\n", countList(unsupported))
	}
}

// rankList formats ranks, at most 8 of them.
func rankList(ranks []int) string {
	var parts []string
	for i, r := range ranks {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("... %d more", len(ranks)-8))
			break
		}
		parts = append(parts, fmt.Sprint(r))
	}
	return strings.Join(parts, ", ")
}
