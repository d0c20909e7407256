package report

import (
	"cmp"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gopsim/gopsim/internal/atomicfile"
)

// Input is what a report shows: a simulation result, and optionally its
// timeline and sweep results.
type Input struct {
	Result     *Result // required
	ResultFile string  // the result's file name, shown in the report
	Timeline   *Timeline
	// TimelineFile is the timeline's file name, shown in the report.
	TimelineFile string
	Sweeps       []*Sweep
}

// Options configure a report. The zero value gives the documented
// defaults.
type Options struct {
	// Title is the page title; "" means "gopsim report: INPUT".
	Title string
	// Generator names the program in the page footer, e.g. "gopsim
	// 0.1.0"; "" leaves it out. No time stamp is written, so a report is
	// byte-identical for the same inputs.
	Generator string
	// BarRanks is the most ranks drawn as one bar each; larger runs show
	// the slowest ranks and a histogram of finishing times. 0 means 64.
	BarRanks int
	// Slowest is how many of the slowest ranks a large run shows; 0
	// means 20.
	Slowest int
	// TimelineRanks is the most ranks (processes) on the timeline; 0
	// means 16. Without TimelineSelect the ranks are chosen as: the
	// slowest rank, the critical path's ranks, the slowest ranks, then
	// the lowest-numbered.
	TimelineRanks int
	// TimelineSelect, when not empty, lists the ranks (trace pids) to
	// show on the timeline.
	TimelineSelect []int
	// TimelineEvents bounds the ops drawn on the timeline (the earliest
	// are kept); 0 means 200000.
	TimelineEvents int
	// Steps bounds the critical-path steps listed; 0 means 500.
	Steps int
	// SweepSeries bounds the lines of one sweep plot; 0 means 12.
	SweepSeries int
	// SweepY is the sweep CSV column plotted; "" means max_time_ns.
	SweepY string
}

func (o Options) withDefaults() Options {
	def := func(p *int, v int) {
		if *p <= 0 {
			*p = v
		}
	}
	def(&o.BarRanks, 64)
	def(&o.Slowest, 20)
	def(&o.TimelineRanks, 16)
	def(&o.TimelineEvents, 200000)
	def(&o.Steps, 500)
	def(&o.SweepSeries, 12)
	if o.SweepY == "" {
		o.SweepY = "max_time_ns"
	}
	return o
}

//go:embed report.tmpl
var pageTemplate string

//go:embed report.css
var pageCSS string

//go:embed report.js
var pageJS string

// tmpl is the page's template, parsed when a report is first written
// rather than at every start of gopsim (1,777 allocations, 0.2 to 0.3 ms).
var tmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("report").Funcs(template.FuncMap{
		"ns":      fmtNs,
		"dur":     func(s Step) int64 { return s.End - s.Start },
		"seconds": func(ns int64) string { return strconv.FormatFloat(float64(ns)/1e9, 'f', 6, 64) },
		"pct": func(part, whole int64) string {
			if whole <= 0 {
				return "-"
			}
			return strconv.FormatFloat(100*float64(part)/float64(whole), 'f', 1, 64) + "%"
		},
	}).Parse(pageTemplate))
})

// fmtNs formats ns with thousands separators.
func fmtNs(ns int64) string {
	s := strconv.FormatInt(ns, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Write writes the report of in as one self-contained HTML page: every
// style, script and chart is inline, and the page loads nothing.
func Write(w io.Writer, in Input, opt Options) error {
	if in.Result == nil {
		return fmt.Errorf("report: no result to report")
	}
	p, err := build(in, opt.withDefaults())
	if err != nil {
		return err
	}
	return tmpl().Execute(w, p)
}

// WriteFile writes the report to path, through a temporary file renamed
// only when complete.
func WriteFile(path string, in Input, opt Options) error {
	return atomicfile.Write(path, func(w io.Writer) error { return Write(w, in, opt) })
}

// page is what the template shows.
type page struct {
	Title, Generator string
	CSS              template.CSS
	JS               template.JS
	R                *Result
	ResultFile       string
	Params           []kv
	NoiseConfig      []kv
	NoiseTop         []rankValue // ranks that absorbed the most noise
	Notes            []string    // sections left out, and why
	Large            bool        // too many ranks for one bar each
	Slowest          []rankValue
	BreakdownRows    []RankTimes // the slowest ranks' breakdowns (large) or every rank's
	Steps            []Step
	StepsOmitted     int
	TimelineNote     string
	SweepNotes       []string
	Data             *chartData // drawn by report.js
}

type kv struct{ Key, Value, Unit string }

type rankValue struct {
	Rank int
	Ns   int64
}

// chartData is the JSON the page's script draws from.
type chartData struct {
	Ranks    *rankCharts    `json:"ranks,omitempty"`
	Totals   []share        `json:"totals,omitempty"`
	Critical []share        `json:"critical,omitempty"`
	Timeline *timelineChart `json:"timeline,omitempty"`
	Sweeps   []sweepCharts  `json:"sweeps,omitempty"`
}

type rankCharts struct {
	Parts []string  `json:"parts"` // the names of the stacked parts
	Bars  []rankBar `json:"bars"`  // every rank (small runs) or the slowest
	Hist  *histo    `json:"hist,omitempty"`
	Large bool      `json:"large"`
}

type rankBar struct {
	Rank   int     `json:"rank"`
	Finish int64   `json:"finish"`
	Parts  []int64 `json:"parts"`
}

type histo struct {
	Lo     int64   `json:"lo"`    // ns
	Width  float64 `json:"width"` // ns per bin
	Counts []int   `json:"counts"`
}

type share struct {
	Name string `json:"name"`
	Ns   int64  `json:"ns"`
}

type timelineChart struct {
	Tracks []string `json:"tracks"`
	Names  []string `json:"names"` // string table of event names and categories
	// Ev holds 5 numbers per op: track, start (ns), duration (ns), name
	// and category (indices into Names).
	Ev []float64 `json:"ev"`
	// Flows holds 4 numbers per message: from track, at (ns), to track,
	// at (ns).
	Flows []float64 `json:"flows"`
	Start float64   `json:"start"`
	End   float64   `json:"end"`
}

type sweepCharts struct {
	File  string      `json:"file"`
	Y     string      `json:"y"`
	Plots []sweepPlot `json:"plots"`
}

type sweepPlot struct {
	X      string        `json:"x"`
	LogX   bool          `json:"logx"`
	Series []sweepSeries `json:"series"`
}

type sweepSeries struct {
	Name string       `json:"name"`
	Pts  [][2]float64 `json:"pts"`
}

var partNames = []string{"calc", "send overhead", "recv overhead", "wait", "noise", "other"}

func build(in Input, opt Options) (*page, error) {
	r := in.Result
	p := &page{
		Title: opt.Title, Generator: opt.Generator, R: r, ResultFile: in.ResultFile,
		CSS: template.CSS(pageCSS), JS: template.JS(pageJS), Data: &chartData{},
	}
	if p.Title == "" {
		p.Title = "gopsim report: " + cmp.Or(r.Input, in.ResultFile)
	}
	pr := r.Params
	p.Params = []kv{
		{"L", strconv.FormatFloat(pr.L, 'f', -1, 64), "ns"},
		{"o", strconv.FormatFloat(pr.Overhead, 'f', -1, 64), "ns"},
		{"g", strconv.FormatFloat(pr.Gap, 'f', -1, 64), "ns"},
		{"G", strconv.FormatFloat(pr.GapPerByte, 'f', -1, 64), "ns/byte"},
		{"O", strconv.FormatFloat(pr.OverheadPerByte, 'f', -1, 64), "ns/byte"},
		{"S", strconv.FormatInt(pr.EagerLimit, 10), "bytes"},
	}
	if r.Noise != nil {
		keys := make([]string, 0, len(r.Noise.Config))
		for k := range r.Noise.Config {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b, _ := json.Marshal(r.Noise.Config[k])
			v := string(b)
			if s, ok := r.Noise.Config[k].(string); ok {
				v = s
			}
			p.NoiseConfig = append(p.NoiseConfig, kv{Key: k, Value: v})
		}
		for rank, ns := range r.Noise.AbsorbedPerRank {
			p.NoiseTop = append(p.NoiseTop, rankValue{rank, ns})
		}
		slices.SortStableFunc(p.NoiseTop, func(a, b rankValue) int { return cmp.Compare(b.Ns, a.Ns) })
		p.NoiseTop = p.NoiseTop[:min(len(p.NoiseTop), 10)]
	} else {
		p.Notes = append(p.Notes, "Noise: the run had no noise model (gopsim sim --noise-trace, --noise-period, --noise-dist or --stragglers add one).")
	}
	if r.Network == nil {
		p.Notes = append(p.Notes, "Network: no congestion model in the result (LogGOPS's crossbar).")
	}
	p.rankCharts(r, opt)
	if r.Breakdown == nil {
		p.Notes = append(p.Notes, "Breakdown: the result has no per-rank breakdown (a gopsim sim that writes one puts \"breakdown\" in --json); the charts show finishing times only.")
	}
	p.criticalPath(r, opt)
	p.timeline(in, opt)
	p.sweeps(in.Sweeps, opt)
	return p, nil
}

// rankCharts fills the per-rank charts: one stacked bar per rank for small
// runs, the slowest ranks and a histogram for large ones.
func (p *page) rankCharts(r *Result, opt Options) {
	rc := &rankCharts{Parts: partNames}
	if r.Breakdown == nil {
		rc.Parts = []string{"finishing time"}
	}
	byRank := map[int]RankTimes{}
	if b := r.Breakdown; b != nil {
		for _, t := range b.PerRank {
			byRank[t.Rank] = t
		}
		p.Data.Totals = timesShares(b.Totals)
	}
	bar := func(rank int) rankBar {
		finish := r.PerRank[rank]
		rb := rankBar{Rank: rank, Finish: finish}
		t, ok := byRank[rank]
		if r.Breakdown == nil {
			rb.Parts = []int64{finish} // finishing times only
			return rb
		}
		if !ok {
			rb.Parts = []int64{0, 0, 0, 0, 0, finish} // a rank the breakdown leaves out
			return rb
		}
		if t.Finish > 0 {
			rb.Finish = t.Finish
		}
		sum := t.Calc + t.SendOverhead + t.RecvOverhead + t.Wait + t.Noise
		rb.Parts = []int64{t.Calc, t.SendOverhead, t.RecvOverhead, t.Wait, t.Noise, max(rb.Finish-sum, 0)}
		return rb
	}
	if r.NumRanks <= opt.BarRanks {
		for rank := range r.NumRanks {
			rc.Bars = append(rc.Bars, bar(rank))
		}
		if b := r.Breakdown; b != nil {
			p.BreakdownRows = b.PerRank
		}
	} else {
		rc.Large = true
		p.Large = true
		for _, rank := range p.slowestRanks(r, opt.Slowest) {
			rc.Bars = append(rc.Bars, bar(rank))
			if t, ok := byRank[rank]; ok {
				p.BreakdownRows = append(p.BreakdownRows, t)
			}
		}
		rc.Hist = histogram(r.PerRank, 40)
	}
	for _, b := range rc.Bars {
		if len(p.Slowest) < opt.Slowest {
			p.Slowest = append(p.Slowest, rankValue{b.Rank, b.Finish})
		}
	}
	slices.SortStableFunc(p.Slowest, func(a, b rankValue) int { return cmp.Compare(b.Ns, a.Ns) })
	p.Slowest = p.Slowest[:min(len(p.Slowest), 10)]
	p.Data.Ranks = rc
}

// slowestRanks returns up to n ranks, slowest first: the breakdown's list
// when there is one, else by finishing time (ties by rank).
func (p *page) slowestRanks(r *Result, n int) []int {
	var out []int
	if b := r.Breakdown; b != nil && len(b.Slowest) > 0 {
		out = slices.Clone(b.Slowest)
	} else {
		out = make([]int, r.NumRanks)
		for i := range out {
			out[i] = i
		}
		slices.SortStableFunc(out, func(a, b int) int { return cmp.Compare(r.PerRank[b], r.PerRank[a]) })
	}
	return out[:min(len(out), n)]
}

func histogram(times []int64, bins int) *histo {
	lo, hi := slices.Min(times), slices.Max(times)
	h := &histo{Lo: lo, Counts: make([]int, bins)}
	h.Width = math.Max(float64(hi-lo)/float64(bins), 1)
	for _, t := range times {
		i := int(float64(t-lo) / h.Width)
		h.Counts[min(max(i, 0), bins-1)]++
	}
	return h
}

func timesShares(t Times) []share {
	return []share{
		{"calc", t.Calc}, {"send overhead", t.SendOverhead}, {"recv overhead", t.RecvOverhead},
		{"wait", t.Wait}, {"noise", t.Noise},
	}
}

func (p *page) criticalPath(r *Result, opt Options) {
	c := r.CriticalPath
	if c == nil {
		p.Notes = append(p.Notes, "Critical path: not in the result (gopsim sim --critical-path --json writes it).")
		return
	}
	p.Data.Critical = []share{
		{"calc", c.Calc}, {"overhead", c.Overhead}, {"latency", c.Latency},
		{"bandwidth", c.Bandwidth}, {"wait", c.Wait}, {"noise", c.Noise},
	}
	p.Steps = c.Steps
	if len(p.Steps) > opt.Steps {
		p.StepsOmitted = len(p.Steps) - opt.Steps
		p.Steps = p.Steps[:opt.Steps]
	}
}

type trackKey struct{ pid, tid ID }

// idCompare orders ids numerically when both are integers, integers first.
func idCompare(a, b ID) int {
	x, okx := a.Int()
	y, oky := b.Int()
	switch {
	case okx && oky:
		return cmp.Compare(x, y)
	case okx:
		return -1
	case oky:
		return 1
	}
	return strings.Compare(string(a), string(b))
}

func (p *page) timeline(in Input, opt Options) {
	tl := in.Timeline
	if tl == nil {
		p.Notes = append(p.Notes, "Timeline: none given (gopsim sim --timeline FILE.json writes one; pass it with gopsim report --timeline).")
		return
	}
	r := in.Result
	procName := map[ID]string{}
	threadName := map[trackKey]string{}
	pids := map[ID]bool{}
	for _, e := range tl.Events {
		switch e.Ph {
		case "M":
			name, _ := e.Args["name"].(string)
			switch e.Name {
			case "process_name":
				procName[e.Pid] = name
			case "thread_name":
				threadName[trackKey{e.Pid, e.Tid}] = name
			}
		case "X":
			pids[e.Pid] = true
		}
	}
	if len(pids) == 0 {
		p.TimelineNote = "The timeline holds no complete (ph \"X\") events."
		return
	}
	all := make([]ID, 0, len(pids))
	for id := range pids {
		all = append(all, id)
	}
	slices.SortFunc(all, idCompare)
	chosen := map[ID]bool{}
	add := func(id ID) {
		if len(chosen) < opt.TimelineRanks && pids[id] {
			chosen[id] = true
		}
	}
	rankID := func(rank int) ID { return ID(strconv.Itoa(rank)) }
	switch {
	case len(opt.TimelineSelect) > 0:
		for _, rank := range opt.TimelineSelect {
			add(rankID(rank))
		}
	case len(all) <= opt.TimelineRanks:
		for _, id := range all {
			add(id)
		}
	default:
		add(rankID(r.MaxRank))
		if c := r.CriticalPath; c != nil {
			for i := len(c.Steps) - 1; i >= 0; i-- {
				add(rankID(c.Steps[i].Rank))
			}
		}
		for _, rank := range p.slowestRanks(r, opt.TimelineRanks) {
			add(rankID(rank))
		}
		for _, id := range all {
			add(id)
		}
	}
	if len(chosen) == 0 {
		p.TimelineNote = "None of the selected ranks is in the timeline."
		return
	}
	var ids []ID
	for _, id := range all {
		if chosen[id] {
			ids = append(ids, id)
		}
	}
	if len(ids) < len(all) {
		var s []string
		for _, id := range ids {
			s = append(s, string(id))
		}
		p.TimelineNote = fmt.Sprintf("Showing %d of the timeline's %d ranks: %s.", len(ids), len(all), strings.Join(s, ", "))
	}
	// Tracks: the chosen processes' threads, in pid then tid order.
	trackSet := map[trackKey]bool{}
	for _, e := range tl.Events {
		if (e.Ph == "X" || e.Ph == "s" || e.Ph == "f") && chosen[e.Pid] {
			trackSet[trackKey{e.Pid, e.Tid}] = true
		}
	}
	keys := make([]trackKey, 0, len(trackSet))
	for k := range trackSet {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b trackKey) int {
		return cmp.Or(idCompare(a.pid, b.pid), idCompare(a.tid, b.tid))
	})
	tc := &timelineChart{Flows: []float64{}, Ev: []float64{}}
	index := map[trackKey]int{}
	for i, k := range keys {
		index[k] = i
		pn := cmp.Or(procName[k.pid], "rank "+string(k.pid))
		tn := cmp.Or(threadName[k], "thread "+string(k.tid))
		tc.Tracks = append(tc.Tracks, pn+" / "+tn)
	}
	names := map[string]int{}
	intern := func(s string) float64 {
		i, ok := names[s]
		if !ok {
			i = len(tc.Names)
			names[s] = i
			tc.Names = append(tc.Names, s)
		}
		return float64(i)
	}
	var ops []TraceEvent
	for _, e := range tl.Events {
		if e.Ph == "X" && chosen[e.Pid] {
			ops = append(ops, e)
		}
	}
	slices.SortStableFunc(ops, func(a, b TraceEvent) int { return cmp.Compare(a.Ts, b.Ts) })
	if len(ops) > opt.TimelineEvents {
		cut := ops[opt.TimelineEvents].Ts
		p.TimelineNote = strings.TrimSpace(p.TimelineNote + fmt.Sprintf(" Only the first %d ops are drawn (%d more from %s ns on are left out).",
			opt.TimelineEvents, len(ops)-opt.TimelineEvents, fmtNs(int64(cut*1000))))
		ops = ops[:opt.TimelineEvents]
	}
	tc.Start, tc.End = math.Inf(1), math.Inf(-1)
	for _, e := range ops {
		ts, dur := e.Ts*1000, e.Dur*1000 // µs to ns
		tc.Ev = append(tc.Ev, float64(index[trackKey{e.Pid, e.Tid}]), ts, dur, intern(e.Name), intern(e.Cat))
		tc.Start, tc.End = math.Min(tc.Start, ts), math.Max(tc.End, ts+dur)
	}
	// Flows: a start and an end with the same id (and category).
	type flowKey struct {
		id  ID
		cat string
	}
	type end struct {
		track int
		ts    float64
	}
	starts, ends := map[flowKey][]end{}, map[flowKey][]end{}
	for _, e := range tl.Events {
		if e.Ph != "s" && e.Ph != "f" {
			continue
		}
		k := flowKey{e.ID, e.Cat}
		tr, ok := index[trackKey{e.Pid, e.Tid}]
		if !ok {
			tr = -1
		}
		here := end{tr, e.Ts * 1000}
		if e.Ph == "s" {
			if q := ends[k]; len(q) > 0 {
				ends[k] = q[1:]
				if tr >= 0 && q[0].track >= 0 {
					tc.Flows = append(tc.Flows, float64(tr), here.ts, float64(q[0].track), q[0].ts)
				}
				continue
			}
			starts[k] = append(starts[k], here)
		} else {
			if q := starts[k]; len(q) > 0 {
				starts[k] = q[1:]
				if tr >= 0 && q[0].track >= 0 {
					tc.Flows = append(tc.Flows, float64(q[0].track), q[0].ts, float64(tr), here.ts)
				}
				continue
			}
			ends[k] = append(ends[k], here)
		}
	}
	if len(ops) == 0 {
		tc.Start, tc.End = 0, 1
	}
	if tc.End <= tc.Start {
		tc.End = tc.Start + 1
	}
	p.Data.Timeline = tc
}

func (p *page) sweeps(sweeps []*Sweep, opt Options) {
	for _, s := range sweeps {
		yi := s.Column(opt.SweepY)
		if yi < 0 {
			p.SweepNotes = append(p.SweepNotes, fmt.Sprintf("%s: no %s column.", s.File, opt.SweepY))
			continue
		}
		swept := s.Swept()
		if len(s.Rows) == 0 || len(swept) == 0 {
			p.SweepNotes = append(p.SweepNotes, fmt.Sprintf("%s: %d rows and no parameter that varies: nothing to plot.", s.File, len(s.Rows)))
			continue
		}
		sc := sweepCharts{File: s.File, Y: opt.SweepY}
		for _, x := range swept {
			xi := s.Column(x)
			var others []int
			for _, o := range swept {
				if o != x {
					others = append(others, s.Column(o))
				}
			}
			groups := map[string]*sweepSeries{}
			vals := map[string][]float64{} // the other parameters' values, to sort the lines
			var order []string
			var xs []float64
			for _, row := range s.Rows {
				var parts []string
				var v []float64
				for _, oi := range others {
					parts = append(parts, s.Columns[oi]+"="+strconv.FormatFloat(row[oi], 'g', -1, 64))
					v = append(v, row[oi])
				}
				key := strings.Join(parts, " ")
				g, ok := groups[key]
				if !ok {
					g = &sweepSeries{Name: cmp.Or(key, opt.SweepY)}
					groups[key] = g
					vals[key] = v
					order = append(order, key)
				}
				g.Pts = append(g.Pts, [2]float64{row[xi], row[yi]})
				xs = append(xs, row[xi])
			}
			plot := sweepPlot{X: x, LogX: logScale(xs)}
			slices.SortFunc(order, func(a, b string) int { return slices.Compare(vals[a], vals[b]) })
			if len(order) > opt.SweepSeries {
				p.SweepNotes = append(p.SweepNotes, fmt.Sprintf("%s, %s against %s: %d lines, the first %d drawn.", s.File, opt.SweepY, x, len(order), opt.SweepSeries))
				order = order[:opt.SweepSeries]
			}
			for _, k := range order {
				g := groups[k]
				slices.SortStableFunc(g.Pts, func(a, b [2]float64) int { return cmp.Compare(a[0], b[0]) })
				plot.Series = append(plot.Series, *g)
			}
			sc.Plots = append(sc.Plots, plot)
		}
		p.Data.Sweeps = append(p.Data.Sweeps, sc)
	}
}
