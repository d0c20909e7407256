package cli

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/internal/excerpt"
	"github.com/gopsim/gopsim/pattern"
	"github.com/gopsim/gopsim/progress"
	"github.com/gopsim/gopsim/sim"
)

// GenOptions are the options of `gopsim gen`.
type GenOptions struct {
	Pattern string
	Params  pattern.Params
	Output  string // "" writes text to stdout
	Command string // the command line echoed into text output
	Quiet   bool   // no progress bar (drawn on a terminal only)
}

type intList []int

func (l *intList) String() string {
	var s []string
	for _, x := range *l {
		s = append(s, strconv.Itoa(x))
	}
	return strings.Join(s, ",")
}

func (l *intList) Set(v string) error {
	*l = (*l)[:0]
	for _, f := range strings.Split(v, ",") {
		x, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("%q is not a comma-separated list of integers", v)
		}
		*l = append(*l, x)
	}
	return nil
}

// intFlag is an integer flag whose error says what it wants (the flag
// package says only "parse error"): a value that is not an integer, or
// that ok refuses.
type intFlag struct {
	v    *int
	ok   func(int) bool // nil: any integer
	want string
}

func atLeast(min int) func(int) bool { return func(x int) bool { return x >= min } }

func (f intFlag) String() string {
	if f.v == nil {
		return "0"
	}
	return strconv.Itoa(*f.v)
}

func (f intFlag) Set(s string) error {
	x, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil || f.ok != nil && !f.ok(int(x)) {
		return fmt.Errorf("want %s", f.want)
	}
	*f.v = int(x)
	return nil
}

// uintFlag is an unsigned integer flag of at most max whose error says
// what it wants.
type uintFlag struct {
	v    *uint64
	max  uint64
	want string
}

func (f uintFlag) String() string {
	if f.v == nil {
		return "0"
	}
	return strconv.FormatUint(*f.v, 10)
}

func (f uintFlag) Set(s string) error {
	x, err := strconv.ParseUint(s, 0, 64)
	if err != nil || x > f.max {
		return fmt.Errorf("want %s", f.want)
	}
	*f.v = x
	return nil
}

// genVars are the flags that need checking before they become Params.
type genVars struct {
	list bool
	rpl  int64
	dims intList
	tag  uint64
}

// The limits of gen's sizes and times: what gopsim sim runs.
const (
	maxMessageWhat = "the largest message gopsim sim runs (2 TiB)"
	maxCalcWhat    = "the longest calc gopsim sim runs"
)

func genFlags(o *GenOptions, v *genVars) *flag.FlagSet {
	fs := flag.NewFlagSet("gen", flag.ContinueOnError)
	p := &o.Params
	fs.StringVar(&o.Pattern, "p", "binomialtreebcast", "`pattern` name (--list shows all)")
	p.Ranks = 8
	fs.Var(intFlag{v: &p.Ranks, want: "a number of ranks, at least 1"}, "s", "number of `ranks`, at least 1")
	p.Size = 1
	fs.Var(bytesQty(&p.Size).atMost(sim.MaxMessage, maxMessageWhat), "d", "`bytes` per basic message (per block for gather/alltoall-like collectives; units: 64KiB; at most 2TiB, the largest message sim runs)")
	fs.Var(intFlag{v: &p.Root, ok: atLeast(0), want: "a rank, 0 to -s minus 1"}, "root", "`rank` of the root of rooted patterns, 0 to -s minus 1")
	fs.Var(intFlag{v: &p.NWay, ok: atLeast(1), want: "a fan-out of at least 1"}, "nway", "fan-out `n`, at least 1, of nwaydissemination (default 1) and of k-ary algorithms (default: the algorithm's)")
	fs.Var(bytesQty(&p.Segment), "segmentsize", "pipeline segment in `bytes` (units: 8KiB; default: 1 for Schedgen's patterns, 8192 for pipelined algorithms)")
	fs.Var(uintFlag{v: &p.Seed, max: math.MaxUint64, want: "an unsigned integer, 0 to 18446744073709551615"}, "seed", "`seed` of random patterns (same seed, same schedule)")
	fs.Var(nsQty(&p.NB).atMost(goal.MaxCalc, maxCalcWhat), "nb", "Schedgen --nb: a calc of this many `ns` (units: 10us) at the start of every rank")
	fs.Var(nsQty(&p.NBPoll).atMost(goal.MaxCalc, maxCalcWhat), "nb-poll", "Schedgen --nb-poll: split the --nb calc into calcs of this many `ns` (units: 1us)")
	v.rpl = -1
	fs.Var(nsQty(&v.rpl).atMost(goal.MaxCalc, maxCalcWhat), "rpl-dep-cmp", "allreduce_recdoub: replace data dependencies by a calc of this many `ns` (units: 2us; -1: off)")
	p.A2AVSkew = 1
	fs.Var(intFlag{v: &p.A2AVSkew, ok: atLeast(1), want: "a ratio of at least 1"}, "a2av-skew-ratio", "linear_alltoallv: random sizes are up to -d / this `ratio`, at least 1")
	fs.BoolVar(&p.A2AVOutcast, "outcast", false, "linear_alltoallv: rank root+1 sends -d bytes to everyone")
	fs.StringVar(&p.Algo, "algo", "auto", "collective `algorithm`, or auto for MPICH's choice")
	fs.Var(perByteQty(&p.ReduceNsPerByte), "reduce-cost", "reduction compute in `ns/byte` (or as a rate: 4GB/s), as calc ops (collectives)")
	fs.Var(uintFlag{v: &v.tag, max: goal.MaxTag, want: fmt.Sprintf("a tag from 0 to %d", uint64(goal.MaxTag))}, "tag", "`tag` of every message of a collective")
	p.Iterations = 1
	fs.Var(intFlag{v: &p.Iterations, ok: atLeast(1), want: "a count of at least 1"}, "iterations", "`count` of repetitions, at least 1 (collective and application patterns)")
	fs.Var(nsQty(&p.Compute).atMost(goal.MaxCalc, maxCalcWhat), "compute", "computation per rank before each iteration, in `ns` (units: 50us; at most 2^62-1, the longest calc sim runs)")
	fs.Var(&v.dims, "dims", "process grid for halo patterns, e.g. `16,16` (default: as square as possible)")
	fs.Var(intFlag{v: &p.Stencil, ok: func(x int) bool { return x == 5 || x == 9 || x == 7 || x == 27 }, want: "5 or 9 points (halo2d), 7 or 27 (halo3d)"},
		"stencil", "halo stencil `points`: 5 or 9 (2-D), 7 or 27 (3-D); default 5 / 7")
	fs.BoolVar(&p.Periodic, "periodic", false, "halo neighbours wrap around")
	fs.StringVar(&o.Output, "o", "", "output `file`: text if it ends in .goal, binary otherwise; default text on stdout")
	fs.BoolVar(&v.list, "list", false, "list every pattern with its flags and exit")
	fs.BoolVar(&o.Quiet, "quiet", false, "no progress bar on stderr (it is drawn only when stderr is a terminal)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim gen -p PATTERN [flags] [-o FILE]

Writes a GOAL schedule for a communication pattern: LogGOPSim Schedgen's
patterns (same schedules, op for op), MPI collectives by the algorithms MPI
libraries use (any number of ranks), and application skeletons. Ranks are
generated and written one at a time, so the schedule never has to fit in
memory. --list shows the patterns and the flags each uses; a flag the
pattern does not use is an error.

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

func runGen(args []string, stdout, stderr io.Writer) int {
	var o GenOptions
	var v genVars
	fs := genFlags(&o, &v)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if v.list {
		listPatterns(stdout)
		return ExitOK
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "gopsim gen: unexpected argument %s (the output file goes after -o)\n", excerpt.Quote(fs.Arg(0)))
		return ExitUsage
	}
	o.Params.Tag = uint32(v.tag)
	if v.rpl < -1 {
		fmt.Fprintf(stderr, "gopsim gen: --rpl-dep-cmp %d: expected -1 (off) or a time in ns\n", v.rpl)
		return ExitUsage
	}
	if v.rpl >= 0 {
		o.Params.ReplaceDeps, o.Params.ReplaceDepNs = true, uint64(v.rpl)
	}
	o.Params.Dims = v.dims
	if err := checkGenFlags(setFlags(fs), o); err != nil {
		printErr(stderr, "gen", err)
		return ExitUsage
	}
	// The command line, flags sorted, for the header of text output.
	var parts []string
	fs.Visit(func(f *flag.Flag) {
		if f.Name != "o" && f.Name != "quiet" {
			parts = append(parts, "-"+f.Name+" "+f.Value.String())
		}
	})
	sort.Strings(parts)
	o.Command = "gopsim gen " + strings.Join(parts, " ")
	if err := Gen(o, stdout, stderr); err != nil {
		printErr(stderr, "gen", err)
		return ExitError
	}
	return ExitOK
}

// messagesFit refuses a block with a message larger than gopsim sim runs.
// -d is per block: a collective that combines blocks (a gather, an
// all-to-all) can send more than -d in one message.
func messagesFit(b *goal.RankBlock) error {
	for i := range b.Ops {
		if op := &b.Ops[i]; op.Kind != goal.Calc && op.Size > sim.MaxMessage {
			return fmt.Errorf("op %d: a %s of %d bytes, more than the largest message gopsim sim runs (%d bytes, 2 TiB): lower -d", i, op.Kind, op.Size, int64(sim.MaxMessage))
		}
	}
	return nil
}

func listPatterns(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
	group := ""
	for _, p := range pattern.List() {
		if p.Group != group {
			group = p.Group
			fmt.Fprintf(tw, "\n%s patterns:\n", group)
		}
		fmt.Fprintf(tw, "  %s\t%s\n  \t  flags: %s\n", p.Name, p.Doc, strings.Join(p.Flags, " "))
	}
	tw.Flush()
}

// Gen writes the schedule of o.Pattern to o.Output (or as text to stdout),
// one rank at a time, and logs a summary to log.
func Gen(o GenOptions, stdout, log io.Writer) error {
	start := time.Now()
	g, err := pattern.New(o.Pattern, o.Params)
	if err != nil {
		return err
	}
	var ops, edges int64
	var ranks atomic.Int64 // ranks written, for the progress bar
	// No bar when the schedule itself goes to the terminal.
	toTerminal := (o.Output == "" || o.Output == "-") && progress.IsTerminal(stdout)
	bar := progress.New(log, int64(g.NumRanks()), "ranks", o.Quiet || toTerminal)
	stopBar := bar.Poll(ranks.Load, 0)
	count := func(write func(*goal.RankBlock) error) func(*goal.RankBlock) error {
		return func(b *goal.RankBlock) error {
			if err := messagesFit(b); err != nil {
				return err
			}
			ops += int64(len(b.Ops))
			edges += int64(len(b.Deps))
			err := write(b)
			ranks.Add(1)
			return err
		}
	}
	writeText := func(w io.Writer) error {
		if o.Command != "" {
			if _, err := fmt.Fprintf(w, "// %s\n", o.Command); err != nil {
				return err
			}
		}
		tw, err := goal.NewTextWriter(w, g.NumRanks())
		if err != nil {
			return err
		}
		if err := pattern.Write(g, count(tw.WriteRank)); err != nil {
			return err
		}
		return tw.Close()
	}
	writeBinary := func(w io.Writer) error {
		bw, err := goal.NewWriter(w, goal.Header{NumRanks: g.NumRanks(), NumCPUs: 1, NumNICs: 1})
		if err != nil {
			return err
		}
		if err := pattern.Write(g, count(bw.WriteRank)); err != nil {
			bw.Close() // fails, once the writer's goroutine has stopped
			return err
		}
		return bw.Close()
	}
	out, form := o.Output, goal.FormatText
	switch {
	case out == "" || out == "-":
		out = "stdout"
		// Nothing reaches stdout unless every message fits: no message
		// of a pattern carries more than the call's whole vector (-s
		// times -d); beyond what sim runs, every rank is checked first.
		if float64(o.Params.Size)*float64(g.NumRanks()) > float64(sim.MaxMessage) {
			if err := pattern.Write(g, messagesFit); err != nil {
				stopBar()
				bar.Abandon()
				return err
			}
		}
		err = writeText(stdout)
	case goal.FormatForPath(out) == goal.FormatText:
		err = atomicfile.Write(out, writeText)
	default:
		form = goal.FormatBinary
		err = atomicfile.Write(out, writeBinary)
	}
	stopBar()
	if err != nil {
		bar.Abandon()
		return fmt.Errorf("writing %s: %w", out, err)
	}
	bar.Finish()
	size := ""
	if fi, err := os.Stat(out); err == nil && out != "stdout" {
		size = fmt.Sprintf(", %d bytes (%.2f bytes/op)", fi.Size(), float64(fi.Size())/float64(max(ops, 1)))
	}
	fmt.Fprintf(log, "gopsim gen: %s: %s, %d ranks, %d ops, %d edges (%s)%s in %v\n",
		out, o.Pattern, g.NumRanks(), ops, edges, form, size, time.Since(start).Round(time.Millisecond))
	return nil
}
