package cli

import (
	"flag"
	"fmt"
	"io"
	"slices"

	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/timeline"
)

// simOutputs holds the flags of `gopsim sim` for what it reports beyond
// finishing times: breakdown, critical path, timelines.
type simOutputs struct {
	breakdown bool
	critical  bool
	chrome    string // --timeline FILE.json
	paraver   string // --paraver PREFIX
	ranks     string // --timeline-ranks
	window    string // --timeline-window
}

// slowestListed is how many of the slowest ranks the breakdown lists.
const slowestListed = 5

// maxStepsText bounds the critical path steps the text form lists: the
// first and last half of them (JSON has them all).
const maxStepsText = 80

func (s *simOutputs) flags(fs *flag.FlagSet) {
	fs.BoolVar(&s.breakdown, "breakdown", false, "report where each rank's time went: calc, send and receive overhead, wait, noise, NIC busy (text: totals and the 5 slowest ranks; --json: every rank)")
	fs.BoolVar(&s.critical, "critical-path", false, "report the chain of ops and messages that decides the finishing time, split into calc, overhead, latency, bandwidth, wait and noise")
	fs.StringVar(&s.chrome, "timeline", "", "write a Chrome trace-event timeline to `FILE.json` (Perfetto, chrome://tracing) of ranks 0 to 63 unless --timeline-ranks says otherwise (a viewer loads the file whole)")
	fs.StringVar(&s.paraver, "paraver", "", "write a Paraver trace of every rank (unless --timeline-ranks says otherwise): `PREFIX`.prv, PREFIX.pcf and PREFIX.row")
	fs.StringVar(&s.ranks, "timeline-ranks", "", "`ranks` the timelines show, such as 0-15,32 (default: the first 64 in --timeline, every rank in --paraver)")
	fs.StringVar(&s.window, "timeline-window", "", "time window `T0:T1` the timelines show, in ns unless a unit is given (1.5us:2ms; either side may be empty)")
}

// options asks the engine for what the outputs need: the breakdown only
// for --breakdown (it costs 64 bytes a rank and slows a large run down by
// a tenth to a third, so a plain --json run, the one issue 4's table
// measures, goes without), the per-op record (96 bytes per op, in a file
// next to the spill file for a streamed run) only for a critical path or
// a timeline, and for timelines alone only the records of the ranks they
// show (a streamed run of 100,000 ranks would otherwise write every
// op's record to its file: 48 GB for the LAMMPS trace x25600).
func (s *simOutputs) options(opt *sim.Options, numRanks int) error {
	opt.Breakdown = s.breakdown
	if !s.critical && s.chrome == "" && s.paraver == "" {
		return nil
	}
	opt.Record = true
	opt.PathOnly = s.pathOnly()
	if s.window != "" && (s.chrome != "" || s.paraver != "") {
		if _, _, err := timeline.ParseWindow(s.window); err != nil { // checked before the run, as the ranks are
			return fmt.Errorf("--timeline-window: %w", err)
		}
	}
	var ranks []int
	if s.ranks != "" && (s.chrome != "" || s.paraver != "") {
		// Checked before the run, not after it.
		var err error
		if ranks, err = timeline.ParseRanks(s.ranks); err == nil {
			err = timeline.CheckRanks(ranks, numRanks)
		}
		if err != nil {
			return fmt.Errorf("--timeline-ranks: %w", err)
		}
	}
	switch {
	case s.critical:
	case ranks != nil:
		opt.RecordRanks = ranks
	case s.paraver == "":
		opt.RecordRanks = make([]int, min(numRanks, timeline.DefaultRanks))
		for r := range opt.RecordRanks {
			opt.RecordRanks[r] = r
		}
	}
	return nil
}

// recordPerOp is what the per-op record the outputs need takes per op in
// a run in memory under params (sim.RecordBytes), 0 when they need none.
// checkNotInputs refuses a timeline file that is one of the inputs.
func (s *simOutputs) checkNotInputs(inputs ...string) error {
	if err := checkNotInput("--timeline", s.chrome, inputs...); err != nil {
		return err
	}
	if s.paraver != "" {
		for _, ext := range []string{".prv", ".pcf", ".row"} {
			if err := checkNotInput("--paraver", s.paraver+ext, inputs...); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *simOutputs) recordPerOp(params sim.Params) int64 {
	if !s.critical && s.chrome == "" && s.paraver == "" {
		return 0
	}
	if s.pathOnly() {
		return sim.RecordBytes(sim.DefaultParams(), 1) // one copy, in the run's unit
	}
	return sim.RecordBytes(params, 1)
}

// pathOnly says that only the critical path reads the record
// (sim.Options.PathOnly): no timeline asks for it in ns.
func (s *simOutputs) pathOnly() bool {
	return s.critical && s.chrome == "" && s.paraver == ""
}

// recordsShown is how many ranks the outputs read the records of when
// they read only some (options' RecordRanks: timelines without a critical
// path, of the ranks --timeline-ranks lists or the first 64 in
// --timeline), 0 when they read every rank's or none.
func (s *simOutputs) recordsShown() int {
	switch {
	case s.critical || (s.chrome == "" && s.paraver == ""):
		return 0
	case s.ranks != "":
		ranks, _ := timeline.ParseRanks(s.ranks) // an error is options'
		return len(ranks)
	case s.paraver == "":
		return timeline.DefaultRanks
	}
	return 0
}

// breakdownReport is the "breakdown" part of the JSON result: totals over
// all ranks, every rank with --breakdown, and the slowest ranks.
type breakdownReport struct {
	Totals  breakdownTotals `json:"totals"`
	PerRank []rankBreakdown `json:"per_rank,omitempty"`
	Slowest []int           `json:"slowest"`
	perRank []sim.Breakdown // every rank, for the text form
	cpus    int
}

type breakdownTotals struct {
	Calc         int64 `json:"calc_ns"`
	SendOverhead int64 `json:"send_overhead_ns"`
	RecvOverhead int64 `json:"recv_overhead_ns"`
	Wait         int64 `json:"wait_ns"`
	Noise        int64 `json:"noise_ns"`
	NICBusy      int64 `json:"nic_busy_ns"`
}

type rankBreakdown struct {
	Rank int `json:"rank"`
	sim.Breakdown
}

// criticalPathReport is the "critical_path" part of the JSON result.
type criticalPathReport struct {
	Length    int64      `json:"length_ns"`
	Calc      int64      `json:"calc_ns"`
	Overhead  int64      `json:"overhead_ns"`
	Latency   int64      `json:"latency_ns"`
	Bandwidth int64      `json:"bandwidth_ns"`
	Wait      int64      `json:"wait_ns"`
	Noise     int64      `json:"noise_ns"`
	Steps     []pathStep `json:"steps"`
}

type pathStep struct {
	Rank  int    `json:"rank"`
	Op    int32  `json:"op"` // index within the rank
	Label string `json:"label"`
	Kind  string `json:"kind"` // calc, send, recv or message
	Start int64  `json:"start_ns"`
	End   int64  `json:"end_ns"`
	Peer  int32  `json:"peer"`
	Bytes uint64 `json:"bytes"`
	What  string `json:"what"`
}

// simResults is what the outputs computed from a run.
type simResults struct {
	breakdown *breakdownReport
	showBD    bool
	path      *criticalPathReport
	files     []string // lines naming the timeline files written, for the text form
}

// results computes the outputs of run res of p; base holds the
// timelines' metadata (the input, "" for the embedded example; the model,
// noise and network) and where the Paraver trace is sorted (TempDir, ""
// for the system's temporary directory).
func (s *simOutputs) results(p *sim.Program, res *sim.Result, base timeline.Options) (*simResults, error) {
	r := &simResults{showBD: s.breakdown}
	if res.Breakdown != nil {
		r.breakdown = newBreakdownReport(res, p.NumCPUs, s.breakdown)
	}
	if s.critical {
		path, err := sim.CriticalPath(p, res)
		if err != nil {
			return nil, err
		}
		r.path = newCriticalPathReport(path)
	}
	if s.chrome == "" && s.paraver == "" {
		if s.ranks != "" || s.window != "" {
			return nil, fmt.Errorf("--timeline-ranks and --timeline-window need --timeline or --paraver")
		}
		return r, nil
	}
	opt := base
	if s.ranks != "" {
		ranks, err := timeline.ParseRanks(s.ranks)
		if err != nil {
			return nil, fmt.Errorf("--timeline-ranks: %w", err)
		}
		opt.Ranks = ranks
	}
	if s.window != "" {
		from, to, err := timeline.ParseWindow(s.window)
		if err != nil {
			return nil, fmt.Errorf("--timeline-window: %w", err)
		}
		opt.From, opt.To = from, to
	}
	if s.chrome != "" {
		err := atomicfile.Write(s.chrome, func(w io.Writer) error { return timeline.WriteChrome(w, p, res, opt) })
		if err != nil {
			return nil, fmt.Errorf("--timeline %s: %w", s.chrome, err)
		}
		r.files = append(r.files, fmt.Sprintf("timeline:   %s (Chrome trace events: Perfetto, chrome://tracing), ranks %s of %d",
			s.chrome, timeline.ShownRanks(p.NumRanks, opt, false), p.NumRanks))
	}
	if s.paraver != "" {
		if err := timeline.WriteParaver(s.paraver, p, res, opt); err != nil {
			return nil, fmt.Errorf("--paraver: %w", err)
		}
		r.files = append(r.files, fmt.Sprintf("paraver:    %s.prv, .pcf, .row, ranks %s of %d",
			s.paraver, timeline.ShownRanks(p.NumRanks, opt, true), p.NumRanks))
	}
	return r, nil
}

func newBreakdownReport(res *sim.Result, cpus int, perRank bool) *breakdownReport {
	b := &breakdownReport{perRank: res.Breakdown, cpus: cpus}
	for r, x := range res.Breakdown {
		t := &b.Totals
		t.Calc += x.Calc
		t.SendOverhead += x.SendOverhead
		t.RecvOverhead += x.RecvOverhead
		t.Wait += x.Wait
		t.Noise += x.Noise
		t.NICBusy += x.NICBusy
		if perRank {
			b.PerRank = append(b.PerRank, rankBreakdown{Rank: r, Breakdown: x})
		}
	}
	b.Slowest = slowestRanks(res.PerRank, slowestListed)
	return b
}

// slowestRanks returns the n ranks that finish last, latest first, ties
// to the lowest rank.
func slowestRanks(finish []int64, n int) []int {
	idx := make([]int, len(finish))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case finish[a] > finish[b]:
			return -1
		case finish[a] < finish[b]:
			return 1
		}
		return 0
	})
	return idx[:min(n, len(idx))]
}

func newCriticalPathReport(p *sim.Path) *criticalPathReport {
	r := &criticalPathReport{Length: p.Length, Calc: p.Calc, Overhead: p.Overhead, Latency: p.Latency,
		Bandwidth: p.Bandwidth, Wait: p.Wait, Noise: p.Noise, Steps: make([]pathStep, len(p.Steps))}
	for i, st := range p.Steps {
		r.Steps[i] = pathStep{Rank: st.Rank, Op: st.Index, Label: st.Label, Kind: st.Kind.String(),
			Start: st.Start, End: st.End, Peer: st.Peer, Bytes: st.Bytes, What: st.What}
	}
	return r
}

func (r *simResults) fill(rep *simReport) {
	if r == nil {
		return
	}
	rep.Breakdown = r.breakdown
	rep.CriticalPath = r.path
}

// percent is part as a share of whole.
func percent(part, whole int64) float64 {
	if whole == 0 {
		return 0
	}
	return 100 * float64(part) / float64(whole)
}

func (r *simResults) text(w io.Writer) {
	if r == nil {
		return
	}
	if b := r.breakdown; b != nil && r.showBD {
		t := b.Totals
		cpu := t.Calc + t.SendOverhead + t.RecvOverhead + t.Wait + t.Noise
		fmt.Fprintf(w, "breakdown:  CPU time of all ranks up to their finishing times, %d ns (%d CPU per rank)\n", cpu, b.cpus)
		for _, x := range []struct {
			name string
			v    int64
		}{{"calc", t.Calc}, {"send overhead", t.SendOverhead}, {"recv overhead", t.RecvOverhead},
			{"wait", t.Wait}, {"noise", t.Noise}} {
			fmt.Fprintf(w, "  %-14s %16d ns %6.1f%%\n", x.name, x.v, percent(x.v, cpu))
		}
		fmt.Fprintf(w, "  %-14s %16d ns %6.1f%% (NICs, overlapping the above)\n", "NIC busy", t.NICBusy, percent(t.NICBusy, cpu))
		fmt.Fprintf(w, "slowest ranks, ns:\n  %-6s %14s %14s %14s %14s %14s %14s %14s\n", "rank", "finish", "calc", "send_overhead", "recv_overhead", "wait", "noise", "nic_busy")
		for _, k := range b.Slowest {
			x := b.perRank[k]
			fmt.Fprintf(w, "  %-6d %14d %14d %14d %14d %14d %14d %14d\n", k, x.Finish, x.Calc, x.SendOverhead, x.RecvOverhead, x.Wait, x.Noise, x.NICBusy)
		}
	}
	if p := r.path; p != nil {
		fmt.Fprintf(w, "critical path: %d ns in %d steps:", p.Length, len(p.Steps))
		for _, x := range []struct {
			name string
			v    int64
		}{{"calc", p.Calc}, {"overhead", p.Overhead}, {"latency", p.Latency}, {"bandwidth", p.Bandwidth}, {"wait", p.Wait}, {"noise", p.Noise}} {
			fmt.Fprintf(w, " %s %d ns (%.1f%%)", x.name, x.v, percent(x.v, p.Length))
			if x.name != "noise" {
				fmt.Fprint(w, ",")
			}
		}
		fmt.Fprintln(w)
		fmt.Fprintf(w, "  %12s %12s  %-7s %6s %6s %-12s %s\n", "start_ns", "end_ns", "kind", "rank", "op", "label", "what")
		for i, st := range p.Steps {
			if len(p.Steps) > maxStepsText && i == maxStepsText/2 {
				fmt.Fprintf(w, "  ... %d steps (all in --json) ...\n", len(p.Steps)-maxStepsText)
			}
			if len(p.Steps) > maxStepsText && i >= maxStepsText/2 && i < len(p.Steps)-maxStepsText/2 {
				continue
			}
			what := st.What
			switch st.Kind {
			case "send", "message":
				what = fmt.Sprintf("%s (%d bytes to %d)", what, st.Bytes, st.Peer)
			case "recv":
				what = fmt.Sprintf("%s (%d bytes from %d)", what, st.Bytes, st.Peer)
			}
			fmt.Fprintf(w, "  %12d %12d  %-7s %6d %6d %-12s %s\n", st.Start, st.End, st.Kind, st.Rank, st.Op, st.Label, what)
		}
	}
	for _, f := range r.files {
		fmt.Fprintln(w, f)
	}
}
