package cli

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"

	_ "github.com/gopsim/gopsim/internal/traceformats"
	"github.com/gopsim/gopsim/trace/tit"

	"github.com/gopsim/gopsim/collective"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/progress"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// ConvertOptions are the options of `gopsim convert`.
type ConvertOptions struct {
	Trace trace.ConvertOptions
	// From is the input's format: "" (detected), "goal" (a schedule,
	// text or binary), "gopsim" (a trace directory of gopsim trace),
	// "liballprof", "tit" (SimGrid time-independent), "dumpi", "chakra"
	// or "otf2".
	From string
	// TimeMult multiplies liballprof's µs into ns (0: 1000).
	TimeMult float64
	// To is the output's format: "" or "goal" (a schedule, text or binary
	// by OUT's name) or "tit" (a SimGrid time-independent trace).
	To string
	// HostSpeed turns TIT flops into time, and time into TIT flops with
	// To "tit", in flop/s (0: 1e9).
	HostSpeed float64
	// MPI is the library a liballprof trace was taken with ("openmpi",
	// "mpich"; "": detected).
	MPI string
	// Quiet draws no progress bar (one is drawn on log only when it is a
	// terminal).
	Quiet bool
	// LibraryCostsFile is a parameter file whose "library" section
	// (sim.LibraryCosts) sets Trace.LibraryCosts, or "none" for none
	// (loadLibraryCosts); "" leaves Trace.LibraryCosts as it is.
	LibraryCostsFile string
}

// convertFormats are the input formats: gopsim's own traces (checked
// first), the formats registered with the trace package (their order here
// is the help's), and goal last: anything else is read as a schedule.
var convertFormats = []string{"gopsim", "dumpi", "liballprof", "chakra", "otf2", "tit", "goal"}

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

// collSelects are the values of --coll-select.
var collSelects = []string{"auto", "openmpi", "mpich"}

// collSummary says whose collective selection a conversion of src
// follows, for logs and output comments: with auto, the library of the
// trace that chose the rules, or a note when auto fell back.
func collSummary(src trace.Source, opt trace.ConvertOptions) (string, error) {
	rules, note, err := trace.ResolveCollSelect(src, &opt)
	if err != nil {
		return "", err
	}
	sel := opt.CollSelect
	if sel == "" {
		sel = "auto"
	}
	s := fmt.Sprintf("collectives: %s rules (--coll-select %s)", rules, sel)
	switch {
	case note != "":
		s += "; note: " + note
	case sel == "auto":
		lib := opt.Library
		if lib == "" {
			lib = trace.LibraryOf(src)
		}
		s += " of the trace's library, " + shortLibrary(lib)
	}
	return s, nil
}

// shortLibrary is the first comma-separated part of a
// MPI_Get_library_version line: "Open MPI v4.1.4" of "Open MPI v4.1.4,
// package: Debian OpenMPI, ...", "MPICH Version: 4.0.2" whole.
func shortLibrary(lib string) string {
	name, _, _ := strings.Cut(lib, ",")
	return sim.LibraryName(name)
}

// convertOptionsText says, for the comments at the top of what a trace of
// format from was converted into, the options of the conversion: the
// scale of the computation, the reduction cost, unsupported calls, the
// collectives chosen by hand, the library's one-time costs (for a
// schedule; the parameter file) and the options of the format.
func convertOptionsText(o ConvertOptions, from string, schedule bool) string {
	t := o.Trace
	scale := t.ComputeScale
	if scale == 0 && !t.NoCompute {
		scale = 1 // options built without the flags
	}
	unsupported := t.Unsupported
	if unsupported == "" {
		unsupported = "error"
	}
	s := fmt.Sprintf("options: compute scale %g, reduce cost %g ns/byte, unsupported calls: %s", scale, t.ReduceNsPerByte, unsupported)
	if len(t.CollAlgo) > 0 {
		s += ", collectives " + collAlgoFlag(t.CollAlgo).String()
	}
	switch from {
	case "liballprof":
		mult := o.TimeMult
		if mult == 0 {
			mult = 1000
		}
		s += fmt.Sprintf(", liballprof µs × %g", mult)
		if o.MPI != "" {
			s += ", " + o.MPI + "'s constants"
		}
	case "tit":
		speed := o.HostSpeed
		if speed == 0 {
			speed = tit.DefaultHostSpeed
		}
		s += fmt.Sprintf(", host speed %g flop/s", speed)
	}
	if schedule {
		lib := o.LibraryCostsFile
		if lib == "" {
			lib = "none"
		}
		s += ", library one-time costs " + lib
	}
	return s
}

// logStandIns lists the collectives per algorithm and those converted
// with a stand-in for an algorithm gopsim does not model.
func logStandIns(log io.Writer, st *trace.ConvertStats) {
	if len(st.CollAlgorithms) > 0 {
		fmt.Fprintf(log, "collective algorithms (%s rules), per rank and call: %s\n", st.CollRules, countList(st.CollAlgorithms))
	}
	if len(st.CollStandIns) > 0 {
		fmt.Fprintf(log, "collectives whose algorithm is not modelled, converted with a stand-in: %s\n", countList(st.CollStandIns))
	}
	if st.LibraryNs > 0 || st.LibraryFirstCalls+st.LibraryContacts+st.LibraryCommCreates > 0 {
		fmt.Fprintf(log, "the library's one-time costs, charged as computation: %s in all ranks (%d first calls, %d first contacts with a peer, %d communicator creations)\n",
			sim.FormatDuration(float64(st.LibraryNs)), st.LibraryFirstCalls, st.LibraryContacts, st.LibraryCommCreates)
	}
	if st.LibraryNote != "" {
		fmt.Fprintf(log, "warning: %s: a calibration with the trace's library would describe it (gopsim calibrate --backend mpi under that library)\n", st.LibraryNote)
	}
}

// libraryCostsFlag is --library-costs: a parameter file whose "library"
// section is charged, or "none".
const libraryCostsUsage = "charge the MPI library's one-time costs of the \"library\" section of this parameter `file` (gopsim calibrate --backend mpi writes it): first calls, first contacts with a peer, communicator creation; \"none\" charges none"

// loadLibraryCosts reads the "library" section of parameter file path
// ("none": nil); a file without one is an error, as the flag would have
// no effect.
func loadLibraryCosts(path string) (*sim.LibraryCosts, error) {
	if path == "none" {
		return nil, nil
	}
	p, err := sim.ReadParamsFile(path, sim.DefaultParams())
	if err != nil {
		return nil, err
	}
	if p.Library == nil {
		return nil, fmt.Errorf("%s has no \"library\" section, so --library-costs would charge nothing (gopsim calibrate --backend mpi writes one)", path)
	}
	return p.Library, nil
}

// convertOutputs are the output formats.
var convertOutputs = []string{"goal", "tit"}

type fromFlag struct {
	s       *string
	choices []string
}

func (f fromFlag) String() string {
	if f.s == nil {
		return ""
	}
	return *f.s
}

func (f fromFlag) Set(v string) error {
	for _, x := range f.choices {
		if v == x {
			*f.s = v
			return nil
		}
	}
	return fmt.Errorf("%q: expected one of %s", v, strings.Join(f.choices, ", "))
}

func convertFlags(o *ConvertOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	fs.Var(fromFlag{&o.To, convertOutputs}, "to", "the output's `FORMAT`: goal (text if OUT ends in .goal, else binary) or tit (a SimGrid time-independent trace: one shared file, compute at --host-speed)")
	fs.Var(fromFlag{&o.From, convertFormats}, "from", "the input's `FORMAT`: "+strings.Join(convertFormats, ", ")+"; default: detected from the content and names")
	convertTraceFlags(fs, o)
	o.HostSpeed = tit.DefaultHostSpeed
	fs.Var(flopsQty(&o.HostSpeed), "host-speed", "SimGrid TIT: the speed in `FLOPS` (flop/s, or SimGrid's 1Gf, 100Mf) that turns compute actions into time, and with --to tit time into compute actions")
	fs.BoolVar(&o.Quiet, "quiet", false, "no progress bar of the ranks converted on stderr (it is drawn only when stderr is a terminal)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim convert [flags] IN OUT

Converts IN into a GOAL schedule OUT, or with --to tit into a SimGrid
time-independent trace. IN is one of (--from, or detected):

  goal        a schedule in LogGOPSim's GOAL text form or gopsim's binary form
  gopsim      a trace directory written by gopsim trace (rank-NNNNNN.gpt)
  liballprof  a liballprof (LogGOPSim Schedgen) trace: the directory of its
              rank files, or one of them (pmpi-trace-rank-0.txt)
  tit         a SimGrid time-independent trace: a shared file of
              "RANK ACTION ARGS" lines, an index naming one file per rank (or
              one shared file), or the directory holding the index
  dumpi       a DUMPI trace: its .meta file, a .bin file, or their directory
  chakra      a Chakra execution trace: the directory of its PREFIX.RANK.et
              files, one of them, or the prefix
  otf2        an OTF2 archive (Score-P 2 and later, OTF2 2.x and 3.x): its
              .otf2 anchor file or its directory, read natively

OUT is written as text when its name ends in .goal and in the binary form
otherwise, to a temporary file renamed only when complete: a failed
conversion leaves no partial file (a FIFO or a device such as /dev/stdout
is written through).

With --to tit, IN becomes a schedule first, then OUT gets per rank init,
the ops in a topological order of their dependencies as isend, irecv and
compute (ns at --host-speed), a wait before each op that requires a send
or receive, waitall and finalize. A TIT trace is one timeline per rank and
has no wildcard receives (an error): docs/formats.md, "Export to SimGrid
TIT", lists what is approximated.

A trace becomes: sends and receives for point-to-point calls (requests
followed through Wait and Test), every collective on any communicator
expanded by the algorithm the traced library would choose (--coll-select:
Open MPI's tuned rules for a trace of Open MPI, MPICH's for MPICH and for a
trace that names no library, with a note; or --coll-algo per operation;
docs/collectives.md lists the rules), and a calc op
for the time between MPI calls (for TIT, the flops of compute actions at
--host-speed). MPI calls that cannot be modelled are an error that lists
each function with its count, unless --unsupported=calc. docs/formats.md
says what each format gives.

Communicator creation (Comm_split, Comm_dup, Cart_create, ...) becomes the
allgather and allreduce the MPI library does over the parent communicator;
a cancelled request becomes nothing (docs/formats.md, "From calls to a
schedule").

Flags (trace input only, but --to and --host-speed; a flag given for an
input it does not apply to is an error):
`)
		fs.PrintDefaults()
	}
	return fs
}

// convertTraceFlags registers the flags of a trace's conversion, which
// `gopsim convert` and `gopsim validate` share.
func convertTraceFlags(fs *flag.FlagSet, o *ConvertOptions) {
	algos := collAlgoFlag{}
	o.Trace.CollAlgo = algos
	fs.Var(algos, "coll-algo", "collective `OP=ALGO` for traces, repeatable or comma-separated (e.g. allreduce=ring,bcast=binomial); default auto (the --coll-select choice)")
	fs.Var(fromFlag{&o.Trace.CollSelect, collSelects}, "coll-select", "whose algorithm choice the collectives follow: `RULES` openmpi (Open MPI 4.1's tuned rules), mpich, or auto (the library the trace names; MPICH's when it names none)")
	fs.Float64Var(&o.Trace.ComputeScale, "compute-scale", 1, "multiply the computation between MPI calls by `F` (0.5: twice as fast CPUs; 0: no computation)")
	fs.StringVar(&o.Trace.Unsupported, "unsupported", "", "`calc` counts the time of MPI calls the converter cannot model as computation; default: an error listing them")
	fs.Var(perByteQty(&o.Trace.ReduceNsPerByte), "reduce-cost", "reduction compute in collectives, in `ns/byte` (or as a rate: 4GB/s)")
	fs.Float64Var(&o.TimeMult, "timemult", 1000, "liballprof: multiply the trace's µs by `F` to get ns (Schedgen's --timemult)")
	fs.StringVar(&o.MPI, "mpi", "", "liballprof: the `LIBRARY` the trace was taken with, whose constants it holds (openmpi, mpich); default: detected")
	fs.StringVar(&o.LibraryCostsFile, "library-costs", "", libraryCostsUsage)
}

func runConvert(args []string, stdout, stderr io.Writer) int {
	var o ConvertOptions
	fs := convertFlags(&o)
	pos, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 2 {
		fmt.Fprintln(stderr, "gopsim convert: expected IN and OUT")
		return ExitUsage
	}
	if err := checkConvertFlags(fs, pos[0], o.To, &o); err != nil {
		printErr(stderr, "convert", err)
		return ExitUsage
	}
	if err := checkScheduleOut("OUT", pos[1]); err != nil {
		printErr(stderr, "convert", err)
		return ExitUsage
	}
	if err := checkNotTraceInput("OUT", pos[1], pos[0], o.LibraryCostsFile); err != nil {
		printErr(stderr, "convert", err)
		return ExitUsage
	}
	if err := ConvertWith(pos[0], pos[1], o, stderr); err != nil {
		printErr(stderr, "convert", err)
		return ExitError
	}
	return ExitOK
}

// Convert reads schedule in and writes it to out, in the form that out's
// name selects (goal.FormatForPath). Progress and the summary go to log.
func Convert(in, out string, log io.Writer) error {
	return ConvertWith(in, out, ConvertOptions{}, log)
}

// checkNotTraceInput is checkNotInput for the output out of a command
// that reads the trace or schedule in and the parameter file
// libraryCosts ("" or "none": none).
func checkNotTraceInput(flagName, out, in, libraryCosts string) error {
	if libraryCosts == "none" {
		libraryCosts = ""
	}
	return checkNotInput(flagName, out, in, libraryCosts)
}

// DetectFormat tells the format of a convert input (see
// ConvertOptions.From): a trace directory or file of gopsim's own format
// or of one of the registered trace formats (trace.DetectFormat), else
// "goal".
func DetectFormat(in string) (string, error) {
	fi, err := os.Stat(in)
	if err != nil {
		if f, ok := trace.DetectFormat(in); ok { // a prefix of rank files
			return f.Name, nil
		}
		return "", err
	}
	if fi.IsDir() {
		if files, err := trace.RankFiles(in); err == nil && len(files) > 0 {
			return "gopsim", nil
		}
		if f, ok := trace.DetectFormat(in); ok {
			return f.Name, nil
		}
		return "", fmt.Errorf("%s: a directory, but not a trace of a known format (%s): use --from", in, strings.Join(convertFormats[:len(convertFormats)-1], ", "))
	}
	if f, err := os.Open(in); err == nil {
		head := make([]byte, len(trace.Magic))
		n, _ := io.ReadFull(f, head)
		f.Close()
		if bytes.Equal(head[:n], trace.Magic) {
			return "gopsim", nil
		}
	}
	if f, ok := trace.DetectFormat(in); ok {
		return f.Name, nil
	}
	return "goal", nil
}

// ConvertWith is Convert with options: IN may be a trace of any of the
// formats ConvertOptions.From names.
func ConvertWith(in, out string, o ConvertOptions, log io.Writer) error {
	from := o.From
	if from == "" {
		var err error
		if from, err = DetectFormat(in); err != nil {
			return err
		}
	}
	switch o.To {
	case "", "goal":
	case "tit":
		return convertToTIT(in, from, out, o, log)
	default:
		return fmt.Errorf("output format %q: expected one of %s", o.To, strings.Join(convertOutputs, ", "))
	}
	if o.LibraryCostsFile != "" {
		lib, err := loadLibraryCosts(o.LibraryCostsFile)
		if err != nil {
			return err
		}
		o.Trace.LibraryCosts = lib
	}
	src, warnings, err := openTrace(in, from, o, log)
	if err != nil {
		return err
	}
	if src == nil {
		return convertSchedule(in, out, log)
	}
	for _, w := range warnings {
		fmt.Fprintf(log, "warning: %s\n", w)
	}
	return convertTrace(src, from, in, out, o, log)
}

// openTrace opens trace in of format from; a nil Source means a schedule.
// The foreign formats are those registered with the trace package
// (internal/traceformats links them all in).
func openTrace(in, from string, o ConvertOptions, log io.Writer) (trace.Source, []string, error) {
	switch from {
	case "goal":
		return nil, nil, nil
	case "gopsim":
		dir := in
		if fi, err := os.Stat(in); err == nil && !fi.IsDir() {
			dir = filepath.Dir(in) // a rank file: its directory
		}
		d, err := trace.OpenDir(dir)
		if err != nil {
			return nil, nil, err
		}
		return d, nil, nil
	}
	f, ok := trace.LookupFormat(from)
	if !ok {
		return nil, nil, fmt.Errorf("input format %q: expected one of %s", from, strings.Join(convertFormats, ", "))
	}
	t, err := f.Open(in, trace.OpenOptions{Unsupported: o.Trace.Unsupported, TimeMult: o.TimeMult, MPI: o.MPI, HostSpeed: o.HostSpeed})
	if err != nil {
		return nil, nil, err
	}
	if t.Note != "" {
		fmt.Fprintln(log, t.Note)
	}
	return t.Source, t.Warnings, nil
}

// convertToTIT reads in (a schedule or a trace of format from) into a
// schedule and writes it to out as a SimGrid time-independent trace.
func convertToTIT(in, from, out string, o ConvertOptions, log io.Writer) error {
	src, warnings, err := openTrace(in, from, o, log)
	if err != nil {
		return err
	}
	var s *goal.Schedule
	label := "schedule"
	if src == nil {
		var f goal.Format
		if s, f, err = goal.ReadFile(in); err != nil {
			return err
		}
		label = fmt.Sprintf("schedule, %s", f)
	} else {
		for _, w := range warnings {
			fmt.Fprintf(log, "warning: %s\n", w)
		}
		label = from + " trace"
		s = goal.NewSchedule(src.NumRanks())
		write, done := rankProgress(log, src.NumRanks(), o.Quiet, s.AppendRank)
		_, err := trace.Convert(src, o.Trace, write)
		done(err)
		if err != nil {
			return err
		}
	}
	speed := o.HostSpeed
	if speed == 0 {
		speed = tit.DefaultHostSpeed
	}
	err = atomicfile.Write(out, func(w io.Writer) error {
		if _, err := fmt.Fprintf(w, "# gopsim convert --to tit --host-speed %g %s (%s)\n", speed, in, label); err != nil {
			return err
		}
		if src != nil {
			if _, err := fmt.Fprintf(w, "# %s\n", convertOptionsText(o, from, false)); err != nil {
				return err
			}
		}
		return tit.Write(w, s, speed)
	})
	if err != nil {
		return fmt.Errorf("writing %s: %w", out, err)
	}
	fmt.Fprintf(log, "converted %s (%s) to %s (SimGrid time-independent trace): %d ranks, %d ops, compute at %g flop/s\n", in, label, out, s.NumRanks, len(s.Ops), speed)
	return nil
}

// convertSchedule converts a GOAL schedule between its forms.
func convertSchedule(in, out string, log io.Writer) error {
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

func convertTrace(src trace.Source, format, in, out string, o ConvertOptions, log io.Writer) error {
	label := "trace"
	if format != "gopsim" {
		label = format + " trace"
	}
	var st *trace.ConvertStats
	to := goal.FormatForPath(out)
	n := src.NumRanks()
	coll, err := collSummary(src, o.Trace)
	if err != nil {
		return err
	}
	fmt.Fprintln(log, coll)
	err = atomicfile.Write(out, func(w io.Writer) error {
		var write func(*goal.RankBlock) error
		var closeW func() error
		abandon := func() {} // lets a binary writer finish before w is dropped
		if to == goal.FormatText {
			if _, err := fmt.Fprintf(w, "// gopsim convert %s (%s, %d ranks)\n// %s\n// %s\n", in, label, n, coll, convertOptionsText(o, format, true)); err != nil {
				return err
			}
			tw, err := goal.NewTextWriter(w, n)
			if err != nil {
				return err
			}
			write, closeW = tw.WriteRank, tw.Close
		} else {
			bw, err := goal.NewWriter(w, goal.Header{NumRanks: n, NumCPUs: 1, NumNICs: 1})
			if err != nil {
				return err
			}
			write, closeW = bw.WriteRank, bw.Close
			abandon = func() { bw.Close() } // fails, once the writer's goroutine has stopped
		}
		write, done := rankProgress(log, n, o.Quiet, write)
		var err error
		st, err = trace.Convert(src, o.Trace, write)
		done(err)
		if err != nil {
			abandon()
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
		fmt.Fprintf(log, "%s %s: %d ranks, %d MPI call records, %d collectives", label, in, st.Ranks, st.Calls, st.Collectives)
		for _, f := range funcs {
			fmt.Fprintf(log, "\n  %-24s %d", f, st.PerFunc[f])
		}
		fmt.Fprintln(log)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "converted %s (%s) to %s (%s): %d ranks, %d ops, %d calcs (%d ns of computation, scale %g)\n",
		in, label, out, to, st.Ranks, st.Ops, st.Calcs, st.ComputeNs, o.Trace.ComputeScale)
	logStandIns(log, st)
	unsupported := map[string]int64{}
	for k, v := range st.Unsupported {
		unsupported[k] += v
	}
	if r, ok := src.(interface{ Unsupported() map[string]int64 }); ok {
		for k, v := range r.Unsupported() {
			unsupported[k] += v
		}
	}
	if len(unsupported) > 0 {
		fmt.Fprintf(log, "unsupported calls counted as computation: %s\n", countList(unsupported))
	}
	return nil
}

// rankProgress wraps write with a progress bar of the ranks converted,
// drawn on log when it is a terminal and not quiet. Call done with the
// conversion's error when it returns.
func rankProgress(log io.Writer, numRanks int, quiet bool, write func(*goal.RankBlock) error) (wrapped func(*goal.RankBlock) error, done func(error)) {
	bar := progress.New(log, int64(numRanks), "ranks", quiet)
	if !bar.Enabled() {
		return write, func(error) {}
	}
	var ranks atomic.Int64
	stop := bar.Poll(ranks.Load, 0)
	return func(b *goal.RankBlock) error {
			err := write(b)
			ranks.Add(1)
			return err
		}, func(err error) {
			stop()
			if err != nil {
				bar.Abandon()
				return
			}
			bar.Finish()
		}
}

// countList formats counts by name as "a ×3, b ×1", names sorted.
func countList(m map[string]int64) string {
	var b strings.Builder
	for i, k := range slices.Sorted(maps.Keys(m)) {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s ×%d", k, m[k])
	}
	return b.String()
}
