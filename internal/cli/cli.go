// Package cli implements the gopsim command line: one flag set per
// subcommand, each parsed into an options struct and handed to a function
// that can be tested without os.Args.
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/excerpt"
	"github.com/gopsim/gopsim/trace/otf2"
)

// Version is the gopsim release; the build's VCS revision is appended
// when known.
const Version = "0.1.0-dev"

// Exit statuses.
const (
	ExitOK    = 0
	ExitError = 1 // the command failed (bad input, stuck schedule, I/O)
	ExitUsage = 2 // the command line was wrong
)

type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"sim", "simulate a GOAL schedule (text or binary) under LogGOPS", runSim},
		{"gen", "generate a schedule: Schedgen patterns, MPI collectives, application skeletons", runGen},
		{"noise", "measure this machine's OS noise (noise measure -o FILE)", runNoise},
		{"convert", "convert traces (gopsim, liballprof, DUMPI, OTF2, Chakra, SimGrid TIT) or schedules into a GOAL schedule", runConvert},
		{"calibrate", "measure L, o, g, G, O and S of a network (LogGP PRTT method), or fit a saved table", runCalibrate},
		{"trace", "run an MPI program under the tracer: one trace file per rank", runTrace},
		{"validate", "simulate a trace with timestamps and compare with the times it measured, per rank", runValidate},
		{"sweep", "simulate a parameter sweep in parallel, resumable, into a CSV; merge shards; plot", runSweep},
		{"report", "write a self-contained HTML report of a sim --json result, its timeline and sweeps", runReport},
		{"extrapolate", "turn a P-rank trace or schedule into K·P ranks (Schedgen's copies, grids grown)", runExtrapolate},
		{"merge", "place several schedules onto one machine as one schedule (multi-job)", runMerge},
		{"version", "print the version and the binary format versions read", runVersion},
		{"help", "explain a command and its flags", nil},
	}
}

// Main runs the gopsim command line with args (without the program name)
// and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return ExitUsage
	}
	name := args[0]
	if name == "help" || name == "-h" || name == "--help" || name == "-help" {
		if len(args) > 1 {
			return help(args[1], stdout, stderr)
		}
		usage(stdout)
		return ExitOK
	}
	for _, c := range commands() {
		if c.name == name && c.run != nil {
			defer removeTempsOnSignal(name, stderr)()
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "gopsim: unknown command %s\n", excerpt.Quote(name))
	usage(stderr)
	return ExitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, "gopsim predicts how MPI applications run on machines that do not exist yet.\n\nUsage: gopsim COMMAND [flags] [args]\n\nCommands:\n")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-9s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'gopsim help COMMAND' for a command's flags and units.\n")
}

func help(name string, stdout, stderr io.Writer) int {
	switch name {
	case "sim":
		_, fs := simFlags(io.Discard)
		fs.SetOutput(stdout)
		fs.Usage()
	case "gen":
		var o GenOptions
		var v genVars
		fs := genFlags(&o, &v)
		fs.SetOutput(stdout)
		fs.Usage()
	case "noise":
		var out string
		var d, th time.Duration
		fs := noiseFlags(&out, &d, &th)
		fs.SetOutput(stdout)
		fs.Usage()
	case "convert":
		fs := convertFlags(&ConvertOptions{})
		fs.SetOutput(stdout)
		fs.Usage()
	case "trace":
		traceUsage(stdout)
	case "validate":
		fs := validateFlags(&ValidateOptions{})
		fs.SetOutput(stdout)
		fs.Usage()
	case "sweep":
		sweepUsage(stdout)
	case "extrapolate", "merge": // usage of the flag set
		Main([]string{name, "-h"}, stdout, stderr)
	case "calibrate":
		var o CalibrateOptions
		var d int64
		fs := calibrateFlags(&o, &d)
		fs.SetOutput(stdout)
		fs.Usage()
	case "report":
		var ranks string
		fs := reportFlags(&ReportOptions{}, &ranks)
		fs.SetOutput(stdout)
		fs.Usage()
	case "version":
		fmt.Fprintln(stdout, "Usage: gopsim version\n\nPrints gopsim's version and the range of binary schedule format versions it reads.")
	default:
		fmt.Fprintf(stderr, "gopsim help: unknown command %s\n", excerpt.Quote(name))
		usage(stderr)
		return ExitUsage
	}
	return ExitOK
}

func versionString() string {
	v := Version
	if bi, ok := debug.ReadBuildInfo(); ok {
		var rev, dirty string
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					dirty = "+dirty"
				}
			}
		}
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if rev != "" {
			v += " (" + rev + dirty + ")"
		}
	}
	return v
}

func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintln(stderr, "gopsim version: takes no arguments")
		return ExitUsage
	}
	fmt.Fprintf(stdout, "gopsim %s\n", versionString())
	fmt.Fprintf(stdout, "binary schedule format: reads versions %d..%d, writes version %d\n",
		goal.MinBinaryVersion, goal.BinaryVersion, goal.BinaryVersion)
	fmt.Fprintln(stdout, "text schedule format: LogGOPSim GOAL (txt2bin grammar)")
	fmt.Fprintf(stdout, "OTF2 archives: reads versions %d.x..%d.x\n", otf2.MinMajor, otf2.MaxMajor)
	return ExitOK
}

// parseFlags parses args with fs. On -h it prints the usage to stdout; on
// a mistake it explains it on stderr. ok is false when the command must
// stop, with code as its exit status.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return ExitOK, false
		}
		fmt.Fprintf(stderr, "gopsim %s: %s\nRun 'gopsim help %s' for the flags.\n", fs.Name(), excerpt.Message(explainFlagError(fs, err)), fs.Name())
		return ExitUsage, false
	}
	return ExitOK, true
}

// explainFlagError replaces the flag package's "parse error" and "value
// out of range" for a flag of a basic type by what the flag takes:
// `invalid value "1.5" for flag -s: want an integer`.
func explainFlagError(fs *flag.FlagSet, err error) string {
	msg := err.Error()
	if strings.HasPrefix(msg, "invalid boolean value ") {
		if m, ok := strings.CutSuffix(msg, ": parse error"); ok {
			return m + ": want true or false"
		}
		return msg
	}
	rest, ok := strings.CutPrefix(msg, "invalid value ")
	if !ok {
		return msg
	}
	i := strings.LastIndex(rest, " for flag -")
	if i < 0 {
		return msg
	}
	name, why, ok := strings.Cut(rest[i+len(" for flag -"):], ": ")
	if !ok || why != "parse error" && why != "value out of range" {
		return msg
	}
	f := fs.Lookup(name)
	if f == nil {
		return msg
	}
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return msg
	}
	var want string
	switch g.Get().(type) {
	case int, int64:
		want = "an integer"
	case uint, uint64:
		want = "a whole number, 0 or more"
	case float64:
		want = "a number"
	case time.Duration:
		want = "a duration with its unit, such as 1.5s or 100ms"
	default:
		return msg
	}
	if why == "value out of range" {
		return fmt.Sprintf("%s: out of range: want %s that fits 64 bits", msg[:len(msg)-len(why)-2], want)
	}
	return fmt.Sprintf("%s: want %s", msg[:len(msg)-len(why)-2], want)
}

// parseInterspersed parses flags anywhere among the arguments and returns
// the others; after "--" every argument is positional.
func parseInterspersed(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (pos []string, code int, ok bool) {
	for {
		if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
			return nil, code, false
		}
		rest := fs.Args()
		if i := len(args) - len(rest); i > 0 && args[i-1] == "--" {
			return append(pos, rest...), ExitOK, true
		}
		if len(rest) == 0 {
			return pos, ExitOK, true
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
}

// setFlags returns the names of the flags given on the command line.
func setFlags(fs *flag.FlagSet) map[string]bool {
	m := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { m[f.Name] = true })
	return m
}

// checkPlotName refuses an image file name the plots cannot be written to
// (gonum/plot chooses the format by the extension), before the work whose
// result it would show.
func checkPlotName(flagName, path string) error {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".png", ".svg", ".pdf":
		return nil
	}
	return fmt.Errorf("%s %s: the name must end in .png, .svg or .pdf", flagName, path)
}

// checkOutputDir refuses an output file whose directory does not exist
// (or is not one), before the work whose result it would hold.
func checkOutputDir(flagName, path string) error {
	dir := filepath.Dir(path)
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("%s %s: its directory: %w", flagName, path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s %s: %s is not a directory", flagName, path, dir)
	}
	return nil
}

// checkNotInput refuses an output file that is one of the command's
// inputs (the same file by any path): writing it would destroy the input,
// which is read before or while the output is written.
func checkNotInput(flagName, out string, inputs ...string) error {
	if out == "" || out == "-" {
		return nil
	}
	for _, in := range inputs {
		if in != "" && samePath(out, in) {
			return fmt.Errorf("%s %s is an input of this command: writing it would destroy the input; give another file", flagName, out)
		}
	}
	return nil
}

// samePath says whether a and b name the same file: the same existing
// file, or the same absolute path.
func samePath(a, b string) bool {
	fa, ea := os.Stat(a)
	fb, eb := os.Stat(b)
	if ea == nil && eb == nil {
		return os.SameFile(fa, fb)
	}
	aa, ea := filepath.Abs(a)
	ab, eb := filepath.Abs(b)
	return ea == nil && eb == nil && aa == ab
}

// checkScheduleOut refuses "-" as the file a schedule is written to: it
// would create a file of that name. (gen's -o, which defaults to the
// terminal, takes "-" for it.)
func checkScheduleOut(what, out string) error {
	if out == "-" {
		return fmt.Errorf("%s \"-\": give a file, text if its name ends in .goal and binary otherwise (/dev/stdout writes binary to the terminal; gopsim gen prints text)", what)
	}
	return nil
}
