package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gopsim/gopsim/examples"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/excerpt"
	"github.com/gopsim/gopsim/progress"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/timeline"
)

// SimOptions are the options of `gopsim sim`.
type SimOptions struct {
	Input      string     // schedule file; "" runs the embedded default example
	Params     sim.Params // after --params and the -L.. flags
	ParamsFile string
	JSON       bool
	Timing     bool // include wall time in JSON output
	Queue      sim.QueueKind
	queueName  string
	Quiet      bool      // no progress display
	Log        io.Writer // where the progress bar goes (when a terminal); nil: none
	// Progress configures the bar; Quiet overrides it (tests set
	// Progress.Terminal to see the bar on a buffer).
	Progress progress.Options

	// Each feature of `gopsim sim` beyond plain LogGOPS keeps its flags,
	// its part of the run options and its part of the result in its own
	// file: sim_noise.go, sim_network.go, sim_outputs.go, sim_model.go.
	Noise   simNoise
	Network simNetwork
	Outputs simOutputs
	Model   simModel
	Memory  simMemory
}

func simFlags(stderr io.Writer) (*SimOptions, *flag.FlagSet) {
	o := &SimOptions{Params: sim.DefaultParams()}
	fs := flag.NewFlagSet("sim", flag.ContinueOnError)
	fs.Var(timeFlag{&o.Params.L}, "L", "wire latency `L`: a time, in ns unless a unit is given (ns, us, ms, s: 1.5us)")
	fs.Var(timeFlag{&o.Params.Overhead}, "o", "CPU overhead `o` per message (sender and receiver): a time, in ns unless a unit is given")
	fs.Var(timeFlag{&o.Params.Gap}, "g", "NIC gap `g` between messages: a time, in ns unless a unit is given")
	fs.Var(perByteFlag{&o.Params.GapPerByte}, "G", "NIC gap `G` per byte: ns/byte unless a unit is given (0.08, 80ps/B), or a bandwidth (12.5GB/s, 100Gb/s, 1GiB/s)")
	fs.Var(perByteFlag{&o.Params.OverheadPerByte}, "O", "CPU overhead `O` per byte: ns/byte unless a unit is given, or a bandwidth")
	fs.Var(bytesFlag{&o.Params.EagerLimit}, "S", "eager limit `S`: larger messages use rendezvous; bytes unless a unit is given (64KiB)")
	fs.StringVar(&o.ParamsFile, "params", "", "JSON parameter `file` (keys L_ns o_ns g_ns G_ns_per_byte O_ns_per_byte S_bytes, ranges and model sections; numbers with decimals, or strings with a unit: \"1.5us\", \"12.5GB/s\", \"64KiB\"; keys are case-sensitive); flags given on the command line override it, for every message size (the file's ranges too)")
	fs.BoolVar(&o.JSON, "json", false, "print one JSON object (max_time_ns, per_rank_ns, events, params, ...) instead of text")
	fs.BoolVar(&o.Timing, "timing", false, "with --json, also report wall time (makes the output vary between runs)")
	fs.StringVar(&o.queueName, "queue", "radix", "event queue: `radix` (default) or heap (cross-check; same results)")
	fs.BoolVar(&o.Quiet, "quiet", false, "no progress display on stderr")
	o.Noise.flags(fs)
	o.Network.flags(fs)
	o.Outputs.flags(fs)
	o.Model.flags(fs)
	o.Memory.flags(fs)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprint(w, "Usage: gopsim sim [flags] [FILE]\n\nSimulates a GOAL schedule (text or binary, detected from its content) under\nthe LogGOPS model (or another of the family: --model) and prints each rank's\nfinishing time. Without FILE it runs\nthe embedded example "+examples.Default+". Defaults are LogGOPSim's.\n\nParameters take decimals and units (-L 1.5us -o 0.35us -G 100Gb/s -S 64KiB).\nThe engine rounds each to a picosecond, counts ps when one is not a whole\nns, and rounds results once to whole ns (docs/model.md).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	return o, fs
}

func runSim(args []string, stdout, stderr io.Writer) int {
	o, fs := simFlags(stderr)
	pos, code, ok := parseInterspersed(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	o.Log = stderr
	switch q := o.queueName; q {
	case "radix":
		o.Queue = sim.RadixQueue
	case "heap":
		o.Queue = sim.HeapQueue
	default:
		fmt.Fprintf(stderr, "gopsim sim: --queue %s: expected radix or heap\n", excerpt.Quote(q))
		return ExitUsage
	}
	if len(pos) > 1 {
		fmt.Fprintf(stderr, "gopsim sim: one schedule file expected, got %d arguments\n", len(pos))
		return ExitUsage
	}
	if len(pos) == 1 {
		o.Input = pos[0]
	}
	if o.ParamsFile != "" {
		// The file replaces the defaults; flags given explicitly win.
		given, cmdline := setFlags(fs), o.Params
		p, err := sim.ReadParamsFile(o.ParamsFile, sim.DefaultParams())
		if err != nil {
			printErr(stderr, "sim", err)
			return ExitError
		}
		// A flag is the value for every message size: with the file's
		// size ranges, it replaces theirs too (sim.Params.Override).
		for _, f := range []struct {
			name string
			v    float64
		}{{"L", cmdline.L}, {"o", cmdline.Overhead}, {"g", cmdline.Gap}, {"G", cmdline.GapPerByte}, {"O", cmdline.OverheadPerByte}} {
			if given[f.name] {
				if err := p.Override(f.name, f.v); err != nil {
					printErr(stderr, "sim", err)
					return ExitError
				}
			}
		}
		if given["S"] {
			p.EagerLimit = cmdline.EagerLimit
		}
		if p.Library != nil {
			fmt.Fprintf(stderr, "gopsim sim: note: %s's \"library\" section (the one-time costs of %s) is charged when a trace is converted with it (gopsim convert --library-costs, gopsim extrapolate --library-costs, gopsim validate --params); a schedule has those costs when it was converted so, and the engine adds none\n", o.ParamsFile, p.Library.Name)
		}
		o.Params = p
	}
	if err := Sim(*o, stdout); err != nil {
		printErr(stderr, "sim", err)
		return exitCode(err)
	}
	return ExitOK
}

// runInput is what a JSON result of `gopsim sim` says of the schedule it
// ran and of the parameter file: the fields that open simReport and
// modelsReport.
type runInput struct {
	Input    string `json:"input"`
	Format   string `json:"format"`
	NumRanks int    `json:"num_ranks"`
	NumOps   int    `json:"num_ops"`
	CPUs     int    `json:"cpus_per_rank"`
	NICs     int    `json:"nics_per_rank"`
}

// newRunInput describes p, read from input in format.
func newRunInput(input, format string, p *sim.Program) runInput {
	return runInput{Input: input, Format: format, NumRanks: p.NumRanks, NumOps: p.NumOps(), CPUs: p.NumCPUs, NICs: p.NumNICs}
}

// simReport is the JSON result of `gopsim sim --json`.
type simReport struct {
	runInput
	Model string `json:"model"`
	// ParamsFile is --params, the file Params were read from (with the
	// flags given over it); absent without one.
	ParamsFile string     `json:"params_file,omitempty"`
	Params     sim.Params `json:"params"`
	// GBandwidth is params' G_ns_per_byte as a bandwidth ("166.7 MB/s").
	GBandwidth string  `json:"G_bandwidth"`
	MaxTime    int64   `json:"max_time_ns"`
	MaxRank    int     `json:"max_rank"`
	PerRank    []int64 `json:"per_rank_ns"`
	// Events are the events processed (op starts, message arrivals);
	// QueueOps the events taken from the queues, retries included
	// (sim.Result).
	Events   uint64 `json:"events"`
	QueueOps uint64 `json:"queue_ops"`

	Noise        *noiseReport        `json:"noise,omitempty"`
	Network      *networkReport      `json:"network,omitempty"`
	Breakdown    *breakdownReport    `json:"breakdown,omitempty"`
	CriticalPath *criticalPathReport `json:"critical_path,omitempty"`
	Stream       *streamReport       `json:"stream,omitempty"`

	WallNs    *int64   `json:"wall_time_ns,omitempty"`
	EventsPer *float64 `json:"events_per_second,omitempty"`
}

// write writes r as json.Encoder with two-space indentation does, but
// streams per_rank_ns, which holds most of the bytes, instead of building
// the document twice in memory (marshalled, then indented).
func (r simReport) write(w io.Writer) error {
	perRank := r.PerRank
	r.PerRank = nil
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // link names hold "->"
	if err := enc.Encode(r); err != nil {
		return err
	}
	// A string cannot hold a raw newline, so this is the field.
	const field = "\n  \"per_rank_ns\": "
	doc := head.Bytes()
	i := bytes.Index(doc, []byte(field+"null"))
	if i < 0 {
		return fmt.Errorf("gopsim sim: internal error: no per_rank_ns in the JSON report")
	}
	// The numbers go into one buffer, written out every 64 KiB: with a
	// bufio.Writer's calls per number, 131,072 of them took 2.2 ms
	// instead of 1.25.
	buf := make([]byte, 0, 64<<10+64)
	buf = append(buf, doc[:i+len(field)]...)
	if len(perRank) == 0 {
		buf = append(buf, "[]"...)
	} else {
		buf = append(buf, "[\n    "...)
		for k, t := range perRank {
			if k > 0 {
				buf = append(buf, ",\n    "...)
			}
			buf = strconv.AppendInt(buf, t, 10)
			if len(buf) >= 64<<10 {
				if _, err := w.Write(buf); err != nil {
					return err
				}
				buf = buf[:0]
			}
		}
		buf = append(buf, "\n  ]"...)
	}
	buf = append(buf, doc[i+len(field)+len("null"):]...)
	_, err := w.Write(buf)
	return err
}

// Sim loads the schedule named by o, simulates it and writes the result
// to w (text, or JSON with o.JSON). The output depends only on the inputs,
// except the wall-time lines of the text form and of --json --timing.
func Sim(o SimOptions, w io.Writer) error {
	name := o.Input
	if name == "" {
		name = "examples/" + examples.Default + " (embedded)"
	}
	if o.Timing && !o.JSON {
		return usageMistake(fmt.Errorf("--timing adds wall time to --json's output; without --json the log (stderr) shows it"))
	}
	if err := o.Outputs.checkNotInputs(o.Input, o.ParamsFile, o.Noise.traceFile); err != nil {
		return usageMistake(err)
	}
	if err := o.Model.checkAll(&o); err != nil {
		return usageMistake(err)
	}
	if err := o.Memory.check(); err != nil {
		return err
	}
	popt := o.Progress
	popt.Quiet = popt.Quiet || o.Quiet || o.Log == nil
	o.Memory.recordPerOp = o.Outputs.recordPerOp(o.Params)
	o.Memory.recordShown = o.Outputs.recordsShown()
	p, format, err := loadProgram(o.Input, o.Params, &o.Memory, o.Log, popt)
	if err != nil {
		return err
	}
	defer p.Close()
	// Decoding left garbage (compressed chunks, decoder buffers) that the
	// next collection would only find once the heap doubled: collect it
	// now, so that the engine's allocations reuse its memory. The heap is
	// nearly all pointer-free op records, so this takes about a
	// millisecond.
	runtime.GC()
	opt := sim.Options{Params: o.Params, Queue: o.Queue}
	if opt.Noise, err = o.Noise.model(p.NumRanks); err != nil {
		return err
	}
	if opt.Network, err = o.Network.network(p.NumRanks); err != nil {
		return err
	}
	if err := checkSeed(o.Network.given("seed"), &o.Noise, &o.Network); err != nil {
		return usageMistake(err)
	}
	if err := o.Outputs.options(&opt, p.NumRanks); err != nil {
		return err
	}
	o.Model.options(&opt)
	if o.Model.all {
		rep := modelsReport{runInput: newRunInput(name, format.String(), p), ParamsFile: o.ParamsFile, Network: o.Network.config(opt.Network)}
		if c := o.Noise.config(opt.Noise); c != nil {
			rep.Noise = &modelsNoise{c}
		}
		return o.Model.runAll(p, opt, o.JSON, rep, w)
	}
	bar := progress.NewWith(o.Log, int64(p.NumOps()), "ops", popt)
	stop := func() {}
	if bar.Enabled() {
		var done atomic.Int64
		opt.Progress = &done
		stop = bar.Poll(done.Load, 0)
	}
	start := time.Now()
	res, err := p.Run(opt)
	wall := time.Since(start)
	stop()
	if err != nil {
		bar.Abandon()
		return fmt.Errorf("%s: %w", name, err)
	}
	bar.Finish()
	noiseRep := o.Noise.report(opt.Noise, p.NumRanks)
	netRep := o.Network.report(opt.Network, res)
	outs, err := o.Outputs.results(p, res, o.timelineMeta(noiseRep, netRep))
	if err != nil {
		return err
	}
	rate := float64(res.Events) / max(wall.Seconds(), 1e-9)
	if o.JSON {
		rep := simReport{runInput: newRunInput(name, format.String(), p), Model: o.Model.name(), ParamsFile: o.ParamsFile, Params: o.Model.params(o.Params), GBandwidth: sim.FormatBandwidth(o.Params.GapPerByte), MaxTime: res.MaxTime, MaxRank: res.MaxRank,
			PerRank: res.PerRank, Events: res.Events, QueueOps: res.QueueOps, Noise: noiseRep, Network: netRep, Stream: o.Memory.report(p)}
		outs.fill(&rep)
		if o.Timing {
			ns := wall.Nanoseconds()
			rep.WallNs, rep.EventsPer = &ns, &rate
		}
		return rep.write(w)
	}
	fmt.Fprintf(w, "schedule:   %s (%s, %d ranks, %d ops, %d CPU and %d NIC per rank)\n", name, format, p.NumRanks, p.NumOps(), p.NumCPUs, p.NumNICs)
	fmt.Fprintf(w, "model:      %s, %s\n", o.Model.title(), o.Model.params(o.Params))
	if p.NumRanks <= 16 {
		fmt.Fprintf(w, "%-6s %16s\n", "rank", "finish_time_ns")
		for r, t := range res.PerRank {
			fmt.Fprintf(w, "%-6d %16d\n", r, t)
		}
	} else {
		sorted := slices.Clone(res.PerRank)
		slices.Sort(sorted)
		var sum float64
		for _, t := range sorted {
			sum += float64(t)
		}
		fmt.Fprintf(w, "finish time over %d ranks: min %d ns, median %d ns, mean %.0f ns, max %d ns\n",
			p.NumRanks, sorted[0], sorted[len(sorted)/2], sum/float64(len(sorted)), sorted[len(sorted)-1])
		idx := make([]int, len(res.PerRank))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			if res.PerRank[a] != res.PerRank[b] {
				if res.PerRank[a] > res.PerRank[b] {
					return -1
				}
				return 1
			}
			return 0
		})
		fmt.Fprint(w, "slowest ranks:")
		for _, r := range idx[:min(5, len(idx))] {
			fmt.Fprintf(w, " %d (%d ns)", r, res.PerRank[r])
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "max finishing time: %d ns (%.6f s) at rank %d\n", res.MaxTime, float64(res.MaxTime)/1e9, res.MaxRank)
	noiseRep.text(w)
	netRep.text(w)
	outs.text(w)
	o.Memory.report(p).text(w)
	fmt.Fprintf(w, "events:     %d processed (op starts and message arrivals), %d queue operations\n", res.Events, res.QueueOps)
	// The wall time varies from run to run: it goes with the log, so that
	// the results on stdout are byte-identical between runs.
	if o.Log != nil && !o.Quiet {
		fmt.Fprintf(o.Log, "wall time:  %d ns (%.0f events/s)\n", wall.Nanoseconds(), rate)
	}
	return nil
}

// timelineMeta is what the timelines of a run echo beside its parameters:
// the input, the model with its own parameters, the noise and the network
// (noise and net, the run's reports); and where Paraver sorts its trace.
func (o *SimOptions) timelineMeta(noise *noiseReport, net *networkReport) timeline.Options {
	meta := timeline.Options{Input: o.Input, TempDir: o.Memory.spillDir, Model: o.Model.name()}
	base, own := o.Params.ModelParams(sim.LogGOPS).String(), o.Model.params(o.Params).String()
	if extra, ok := strings.CutPrefix(own, base+"; "); ok {
		meta.Model += ": " + extra
	}
	if noise != nil {
		meta.Noise = noise.Config.describe()
	}
	if net != nil {
		meta.Network = net.describe()
	}
	return meta
}

// loadProgram reads the schedule at path ("" for the embedded default
// example), checks the parameters and compiles the schedule for the
// engine. A binary schedule is decoded straight into the program
// (sim.ReadProgram), in parallel and without the goal.Schedule in between,
// or streamed from a spill file (mem, sim.ReadProgramStream); a text one
// is parsed on all CPUs straight into the program (sim.ReadTextProgram),
// or streamed (sim.ReadTextProgramStream). Notes and the spill pass's
// progress bar (popt) go to log.
func loadProgram(path string, params sim.Params, mem *simMemory, log io.Writer, popt progress.Options) (*sim.Program, goal.Format, error) {
	var r io.Reader
	var at io.ReaderAt // r, when it can be read at offsets: a regular file or the example
	var size int64
	name := path
	if path == "" {
		name = "examples/" + examples.Default
		data, err := examples.FS.ReadFile(examples.Default)
		if err != nil {
			return nil, goal.FormatText, err
		}
		br := bytes.NewReader(data)
		r, at, size = br, br, int64(len(data))
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, goal.FormatText, err
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			size = fi.Size()
			if fi.Mode().IsRegular() {
				at = f
			}
		}
		r = f
	}
	br := bufio.NewReaderSize(r, 1<<16)
	if prefix, _ := br.Peek(len(goal.BinaryMagic)); goal.IsBinary(prefix) {
		var reopen func() (io.Reader, func(), error) // nil: read once (a pipe)
		if at != nil {
			reopen = func() (io.Reader, func(), error) {
				f, err := os.Open(path)
				if err != nil {
					return nil, nil, err
				}
				return bufio.NewReaderSize(f, 1<<16), func() { f.Close() }, nil
			}
		}
		p, err := mem.open(br, size, reopen, log, popt)
		if err == nil {
			// An op beyond the engine's sizes, which a binary schedule
			// names by rank, op and label, is refused before anything
			// else, as a text's is as it is read.
			if err = p.SizeError(); err != nil {
				p.Close()
			}
		}
		if err != nil {
			return nil, goal.FormatBinary, fmt.Errorf("%s: %w", name, err)
		}
		return p, goal.FormatBinary, params.Validate()
	}
	p, err := mem.openText(br, at, size, name, log, popt)
	if err != nil {
		return nil, goal.FormatText, err
	}
	return p, goal.FormatText, params.Validate()
}
