package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gopsim/gopsim/internal/excerpt"
	"github.com/gopsim/gopsim/report"
)

// ReportOptions are the options of `gopsim report`.
type ReportOptions struct {
	Result   string   // the gopsim sim --json result (required)
	Timeline string   // a gopsim sim --timeline file; "" for none
	Sweeps   []string // sweep result CSVs
	Output   string   // the HTML file (required)
	Report   report.Options
}

type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(v string) error { *l = append(*l, v); return nil }

func reportFlags(o *ReportOptions, ranks *string) *flag.FlagSet {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	fs.StringVar(&o.Output, "o", "", "the HTML `file` to write (required)")
	fs.StringVar(&o.Timeline, "timeline", "", "a timeline `file` (Chrome trace-event JSON, as gopsim sim --timeline writes it) to show, zoomable")
	fs.Var((*stringList)(&o.Sweeps), "sweep", "a sweep result `CSV` (gopsim sweep) to plot; repeatable")
	fs.StringVar(ranks, "ranks", "", "the `ranks` on the timeline, e.g. 0-3,17 (default: the slowest rank, the critical path's ranks, the slowest ranks)")
	fs.IntVar(&o.Report.TimelineRanks, "timeline-ranks", 16, "at most this many `ranks` on the timeline")
	fs.IntVar(&o.Report.TimelineEvents, "timeline-ops", 200000, "at most this many `ops` drawn on the timeline (the earliest)")
	fs.IntVar(&o.Report.BarRanks, "bar-ranks", 64, "up to this many `ranks` get one bar each; beyond, the slowest ranks and a histogram")
	fs.StringVar(&o.Report.SweepY, "sweep-y", "max_time_ns", "the sweep `column` plotted against each swept parameter")
	fs.StringVar(&o.Report.Title, "title", "", "the page `title` (default: gopsim report: INPUT)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim report [flags] RESULT.json -o REPORT.html

Writes one self-contained HTML page (no network access needed: styles,
scripts and charts are inline) about a simulation: the parameters and
model, the summary (ranks, ops, maximum finishing time, events), the
per-rank breakdown as charts (a stacked bar per rank, or for large runs the
slowest ranks and a histogram of finishing times), noise and network
loads, the critical path (a table and its compute / overhead / latency /
bandwidth / wait / noise shares), a zoomable timeline of a subset of the
ranks (--timeline; mouse wheel or buttons zoom, dragging pans) and sweep
plots (--sweep: the result against each swept parameter, one line per
value of the others). RESULT.json is the output of gopsim sim --json
(with --breakdown and --critical-path for those sections); sections whose
data it lacks are left out with a note.

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

func runReport(args []string, stdout, stderr io.Writer) int {
	var o ReportOptions
	var ranks string
	fs := reportFlags(&o, &ranks)
	pos, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	if len(pos) != 1 || o.Output == "" {
		fmt.Fprintf(stderr, "gopsim report: expected one RESULT.json (gopsim sim --json) and -o REPORT.html\nRun 'gopsim help report' for the flags.\n")
		return ExitUsage
	}
	o.Result = pos[0]
	if ranks != "" {
		r, err := parseRanks(ranks)
		if err != nil || len(r) == 0 {
			fmt.Fprintf(stderr, "gopsim report: --ranks %s: expected ranks such as 0-3,17\n", excerpt.Quote(ranks))
			return ExitUsage
		}
		for _, x := range r {
			o.Report.TimelineSelect = append(o.Report.TimelineSelect, int(x))
		}
	}
	if err := needsFlags(setFlags(fs), reportNeeds); err != nil {
		printErr(stderr, "report", err)
		return ExitUsage
	}
	if err := checkNotInput("-o", o.Output, append([]string{o.Result, o.Timeline}, o.Sweeps...)...); err != nil {
		printErr(stderr, "report", err)
		return ExitUsage
	}
	o.Report.Generator = "gopsim " + versionString()
	if err := Report(o, stdout); err != nil {
		printErr(stderr, "report", err)
		return ExitError
	}
	return ExitOK
}

// Report reads o's inputs and writes the HTML report, through a
// temporary file renamed when complete; a line on stdout names it.
func Report(o ReportOptions, stdout io.Writer) error {
	res, err := report.ReadResult(o.Result)
	if err != nil {
		return err
	}
	in := report.Input{Result: res, ResultFile: o.Result}
	if o.Timeline != "" {
		if in.Timeline, err = report.ReadTimeline(o.Timeline); err != nil {
			return err
		}
		in.TimelineFile = o.Timeline
	}
	for _, s := range o.Sweeps {
		sw, err := report.ReadSweep(s)
		if err != nil {
			return err
		}
		in.Sweeps = append(in.Sweeps, sw)
	}
	if err := report.WriteFile(o.Output, in, o.Report); err != nil {
		return fmt.Errorf("writing %s: %w", o.Output, err)
	}
	var with []string
	if o.Timeline != "" {
		with = append(with, "timeline "+o.Timeline)
	}
	if len(o.Sweeps) > 0 {
		with = append(with, fmt.Sprintf("%d sweep CSV", len(o.Sweeps))+map[bool]string{true: "s"}[len(o.Sweeps) > 1])
	}
	extra := ""
	if len(with) > 0 {
		extra = ", with " + strings.Join(with, " and ")
	}
	fmt.Fprintf(stdout, "%s: report of %s (%d ranks, max finishing time %d ns)%s\n", o.Output, o.Result, res.NumRanks, res.MaxTime, extra)
	return nil
}
