// Command accuracy regenerates the tables of docs/accuracy.md: it runs the
// MPI examples of examples/mpi and LAMMPS on examples/lammps at 4 ranks,
// without and with the tracer, converts each trace, simulates it, and
// prints as Markdown the measured and the simulated times, the tracer's
// overhead and the trace size per call.
//
// The LogGOPS parameters are measured first with examples/mpi/pingpong on
// 2 ranks (see calibrate and calibration.fit), unless -params gives a file. Run it
// through `make accuracy`, which builds the tracer and the examples first,
// or from the repository root:
//
//	go run ./internal/accuracy -reps 5 > tables.md
//
// It needs Open MPI and LAMMPS (make mpi-deps), takes about two minutes
// with the default 5 repetitions, and its figures are as noisy as the
// machine.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// options of a run (see main's flags).
type options struct {
	root   string // repository root: bin/ and examples/ are under it
	reps   int    // runs per workload without and with the tracer
	ranks  []int  // ranks per workload: a table per number
	params string // a parameter file instead of the ping-pong calibration
	only   string // run only the workloads whose name contains this
	log    io.Writer
}

func main() {
	var o options
	flag.StringVar(&o.root, "root", ".", "repository `dir` (bin/ holds the tracer and the examples: make tracer)")
	flag.IntVar(&o.reps, "reps", 5, "runs of each workload without and with the tracer (medians are reported)")
	np := flag.String("np", "4,2", "MPI ranks per workload, a table for each `list` item (2 on 2 cores: without oversubscription)")
	flag.StringVar(&o.params, "params", "", "LogGOPS parameter `file` (JSON, as gopsim sim --params) instead of measuring them with the MPI ping-pong")
	flag.StringVar(&o.only, "only", "", "run only the workloads whose name contains this `string`")
	flag.Parse()
	for _, f := range strings.Split(*np, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			fmt.Fprintf(os.Stderr, "accuracy: -np %s: want rank counts of at least 2\n", *np)
			os.Exit(2)
		}
		o.ranks = append(o.ranks, n)
	}
	if o.reps < 1 || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	o.log = os.Stderr
	if err := run(&o, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "accuracy:", err)
		os.Exit(1)
	}
}

// workload is one program to measure.
type workload struct {
	name   string
	bin    string // under the root, or lmp
	args   []string
	lammps bool // bin is lmp and args[0] an input of examples/lammps
	min    int  // the fewest ranks it runs on
}

func workloads() []workload {
	ex := func(name string, args ...string) workload {
		return workload{name: name, bin: filepath.Join("bin", "examples", "mpi", name), args: args, min: 2}
	}
	return []workload{
		ex("pingpong", "5000", "4096"),
		ex("halo2d", "500", "256", "256"),
		ex("allreduce_loop", "500", "1000"),
		ex("fft_alltoall", "50", "256"),
		{name: "irregular", bin: filepath.Join("bin", "examples", "mpi", "irregular"), min: 4},
		ex("fring"),
		{name: "LAMMPS in.melt", bin: "lmp", args: []string{"in.melt"}, lammps: true, min: 1},
		{name: "LAMMPS in.lj", bin: "lmp", args: []string{"in.lj"}, lammps: true, min: 1},
	}
}

// model is how a trace is simulated: with params, the computation between
// calls multiplied by scale, and the result divided by unit (params and
// scale in units of 1/unit ns: unit 10 simulates in tenths of ns, since
// sim takes whole numbers).
type model struct {
	name   string
	params sim.Params
	scale  float64
	unit   float64
}

// simulate converts the trace in d with m's compute scale and simulates it.
func (m *model) simulate(d *trace.Dir) (float64, error) {
	s := goal.NewSchedule(d.NumRanks())
	if _, err := trace.Convert(d, trace.ConvertOptions{ComputeScale: m.scale}, s.AppendRank); err != nil {
		return 0, err // unsupported calls among them: the table has none
	}
	res, err := sim.Run(s, sim.Options{Params: m.params})
	if err != nil {
		return 0, fmt.Errorf("simulation %s: %w", m.name, err)
	}
	return float64(res.MaxTime) / m.unit, nil
}

// result is what the runs of one workload gave: medians over the runs.
type result struct {
	w                    workload
	plainWall, trWall    float64   // s, mpirun's wall time
	plainLoop, trLoop    float64   // s, LAMMPS's own "Loop time" (0 for the others)
	region, toFin, fin   float64   // ns: Init end to Finalize end, to Finalize start (max over ranks); longest MPI_Finalize
	sim                  []float64 // ns, per model
	ratio, ratioFin      []float64 // per model: simulated / region, simulated / toFin (median of the runs' ratios)
	compute              float64   // ns, mean per rank of the computation between calls
	calls, records, size int64     // of the first traced run
}

func run(o *options, out io.Writer) error {
	root, err := filepath.Abs(o.root)
	if err != nil {
		return err
	}
	o.root = root
	lib := filepath.Join(root, "bin", "libgopsim-pmpi.so")
	if _, err := os.Stat(lib); err != nil {
		return fmt.Errorf("%w (make tracer builds it)", err)
	}
	started, load0 := time.Now(), loadAvg()
	var models []model
	var cal *calibration
	if o.params != "" {
		p, err := sim.ReadParamsFile(o.params, sim.DefaultParams())
		if err != nil {
			return err
		}
		models = append(models, model{name: filepath.Base(o.params), params: p, scale: 1, unit: 1})
	} else {
		if cal, err = calibrate(o, lib); err != nil {
			return fmt.Errorf("calibration: %w", err)
		}
		f := cal.fit(slices.Min[[]float64], small, large)
		models = append(models,
			model{name: "measured parameters", params: f.params(1, cal.eager), scale: 1, unit: 1},
			model{name: "the same in 0.1 ns units", params: f.params(10, cal.eager), scale: 10, unit: 10})
	}
	var sections []section
	for _, np := range o.ranks {
		sec := section{ranks: np, models: slices.Clone(models)}
		p := models[0].params
		sec.models = append(sec.models, model{name: "free network", params: sim.Params{EagerLimit: p.EagerLimit}, scale: 1, unit: 1})
		if share := float64(np) / float64(runtime.NumCPU()); share > 1 {
			// What if each rank computed at 1/share of a core's speed, as
			// when all ranks compute at once on fewer cores.
			sec.models = append(sec.models, model{name: fmt.Sprintf("computation x%.3g", share), params: p, scale: share, unit: 1})
		}
		for _, m := range sec.models {
			if err := m.params.Validate(); err != nil {
				return fmt.Errorf("parameters %s: %w", m.name, err)
			}
		}
		for _, w := range workloads() {
			if o.only != "" && !strings.Contains(w.name, o.only) || np < w.min {
				continue
			}
			r, err := measure(o, np, lib, w, sec.models)
			if err != nil {
				return fmt.Errorf("%s on %d ranks: %w", w.name, np, err)
			}
			sec.results = append(sec.results, r)
		}
		sections = append(sections, sec)
	}
	report(out, o, cal, sections, started, load0)
	return nil
}

// section is the runs of every workload at one number of ranks.
type section struct {
	ranks   int
	models  []model
	results []*result
}

// The ping-pong's message sizes, for latency and bandwidth.
const (
	small = 8
	large = 65536
)

// calibration is what the ping-pong measured: per quantity one value per
// run.
type calibration struct {
	rtt    map[int][]float64 // round trip per message size, ns
	sendNs []float64         // median MPI_Send duration of small messages, ns
	eager  int64             // Open MPI's eager limit, bytes
}

// logGP are fitted parameters in ns and ns/byte.
type logGP struct{ L, o, g, G float64 }

// fit derives L, o, g and G from one statistic of the runs and the round
// trips of messages of a and b bytes. The statistic used is the minimum:
// on a shared machine a run that lost its CPUs for a while gives a mean
// round trip tens to thousands of times longer, and that is the
// scheduler's cost, not the transport's (the workloads suffer it too,
// and docs/accuracy.md discusses it); the medians are printed beside.
//
//   - a half round trip is o + L + o + (s-1)G in gopsim's model (eager
//     or not: a rendezvous send costs no control messages there), so G is
//     the slope between the two sizes;
//   - o is the duration of MPI_Send of a small message (an eager send
//     returns once the message is in the receiver's shared-memory queue:
//     that is the sender's CPU cost);
//   - L is what is left of the half round trip of a bytes:
//     rtt/2 - 2o - (a-1)G;
//   - g = o: shared memory has no NIC; the CPU copies, so back-to-back
//     messages are spaced by the CPU cost, and g only has to not be smaller;
//   - O = 0 (the per-byte cost is all in G, which gopsim also charges on
//     the receiving CPU).
func (c *calibration) fit(stat func([]float64) float64, a, b int) logGP {
	ra, rb, send := stat(c.rtt[a]), stat(c.rtt[b]), stat(c.sendNs)
	g := max(0, (rb-ra)/2/float64(b-a))
	return logGP{L: ra/2 - 2*send - float64(a-1)*g, o: send, g: send, G: g}
}

// params rounds f to whole units of 1/unit ns (L at least 0), with S the
// eager limit.
func (f logGP) params(unit float64, eager int64) sim.Params {
	r := func(x float64) float64 { return math.Round(x * unit) }
	return sim.Params{L: max(0, r(f.L)), Overhead: r(f.o), Gap: r(f.g), GapPerByte: r(f.G), EagerLimit: eager}
}

// calibrate measures with examples/mpi/pingpong on 2 ranks (same node, Open
// MPI's shared-memory transport, the same --oversubscribe as the
// workloads), reps runs of each: the mean round trip per message size
// (pingpong prints it), and the median duration of MPI_Send of the small
// message in a traced run.
func calibrate(o *options, lib string) (*calibration, error) {
	c := &calibration{rtt: map[int][]float64{}, eager: eagerLimit()}
	bin := filepath.Join(o.root, "bin", "examples", "mpi", "pingpong")
	for _, size := range []int{small, large} {
		iters := 5000
		if size > int(c.eager) {
			iters = 1000
		}
		for range max(o.reps, 5) {
			res, err := mpirun(2, "", bin, []string{strconv.Itoa(iters), strconv.Itoa(size)}, "", nil)
			if err != nil {
				return nil, err
			}
			m := regexp.MustCompile(`([0-9.]+) us each`).FindStringSubmatch(res.out)
			if m == nil {
				return nil, fmt.Errorf("pingpong printed %q", res.out)
			}
			us, _ := strconv.ParseFloat(m[1], 64)
			c.rtt[size] = append(c.rtt[size], us*1e3)
		}
		fmt.Fprintf(o.log, "calibration: %d bytes: round trips %v ns\n", size, round(c.rtt[size]))
	}
	for range max(o.reps, 5) {
		dir, err := os.MkdirTemp("", "gopsim-accuracy-")
		if err != nil {
			return nil, err
		}
		_, err = mpirun(2, lib, bin, []string{"2000", strconv.Itoa(small)}, dir, nil)
		if err == nil {
			var f *trace.File
			if f, err = trace.ReadFile(filepath.Join(dir, trace.FileName(0))); err == nil {
				var d []float64
				for _, call := range f.Calls {
					if call.Func == trace.FuncSend {
						d = append(d, float64(call.Duration()))
					}
				}
				c.sendNs = append(c.sendNs, median(d))
			}
		}
		os.RemoveAll(dir)
		if err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(o.log, "calibration: MPI_Send of %d bytes, median per run %v ns\n", small, round(c.sendNs))
	return c, nil
}

// eagerLimit is Open MPI's shared-memory eager limit (ompi_info), 4096 if
// it cannot be read.
func eagerLimit() int64 {
	out, err := exec.Command("ompi_info", "--param", "btl", "vader", "--level", "9", "--parsable").Output()
	if err == nil {
		m := regexp.MustCompile(`btl_vader_eager_limit:value:(\d+)`).FindSubmatch(out)
		if m != nil {
			if v, err := strconv.ParseInt(string(m[1]), 10, 64); err == nil {
				return v
			}
		}
	}
	return 4096
}

// runResult is one mpirun.
type runResult struct {
	wall float64 // s
	out  string
}

// mpirun runs bin on np ranks with Open MPI (as root too), traced into dir
// when lib is given, with cwd as working directory ("" for the current).
func mpirun(np int, lib, bin string, args []string, dir string, cwd *string) (*runResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "mpirun", append([]string{"-np", strconv.Itoa(np), "--oversubscribe", bin}, args...)...)
	cmd.Env = append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMP_NUM_THREADS=1")
	if lib != "" {
		cmd.Env = append(cmd.Env, "LD_PRELOAD="+lib, "GOPSIM_TRACE_DIR="+dir)
	}
	if cwd != nil {
		cmd.Dir = *cwd
	}
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	t0 := time.Now()
	err := cmd.Run()
	wall := time.Since(t0).Seconds()
	if err != nil {
		return nil, fmt.Errorf("mpirun %s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, buf.String())
	}
	return &runResult{wall: wall, out: buf.String()}, nil
}

var loopRE = regexp.MustCompile(`Loop time of ([0-9.eE+-]+) on`)

// measure runs w reps times without and reps times with the tracer,
// alternating, and converts and simulates every trace with every model.
func measure(o *options, np int, lib string, w workload, models []model) (*result, error) {
	r := &result{w: w}
	bin, args := filepath.Join(o.root, w.bin), w.args
	var cwd *string
	if w.lammps {
		work, err := os.MkdirTemp("", "gopsim-accuracy-lammps-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(work)
		cwd = &work
		bin = w.bin
		args = []string{"-in", filepath.Join(o.root, "examples", "lammps", w.args[0]), "-log", "none", "-nocite"}
	}
	loop := func(out string) (float64, error) {
		if !w.lammps {
			return 0, nil
		}
		m := loopRE.FindStringSubmatch(out)
		if m == nil {
			return 0, errors.New("no Loop time in LAMMPS's output")
		}
		return strconv.ParseFloat(m[1], 64)
	}
	var plain, traced, plainLoop, trLoop, region, toFin, fin, comp []float64
	sims := make([][]float64, len(models))
	ratios, ratiosFin := make([][]float64, len(models)), make([][]float64, len(models))
	for i := range o.reps {
		res, err := mpirun(np, "", bin, args, "", cwd)
		if err != nil {
			return nil, err
		}
		lt, err := loop(res.out)
		if err != nil {
			return nil, err
		}
		plain, plainLoop = append(plain, res.wall), append(plainLoop, lt)

		dir, err := os.MkdirTemp("", "gopsim-accuracy-trace-")
		if err != nil {
			return nil, err
		}
		var a *analysis
		if res, err = mpirun(np, lib, bin, args, dir, cwd); err == nil {
			if lt, err = loop(res.out); err == nil {
				a, err = analyse(dir, models)
			}
		}
		os.RemoveAll(dir)
		if err != nil {
			return nil, err
		}
		traced, trLoop = append(traced, res.wall), append(trLoop, lt)
		region, toFin, fin = append(region, a.region), append(toFin, a.toFin), append(fin, a.fin)
		comp = append(comp, a.compute)
		for j, t := range a.sim {
			sims[j] = append(sims[j], t)
			ratios[j] = append(ratios[j], t/a.region)
			ratiosFin[j] = append(ratiosFin[j], t/a.toFin)
		}
		if i == 0 {
			r.calls, r.records, r.size = a.calls, a.records, a.bytes
		}
		fmt.Fprintf(o.log, "%s on %d ranks: run %d: %.3f s untraced, %.3f s traced; region %.2f ms (%.2f ms in MPI_Finalize), simulated %.2f ms\n",
			w.name, np, i+1, plain[i], traced[i], a.region/1e6, a.fin/1e6, a.sim[0]/1e6)
	}
	r.plainWall, r.trWall = median(plain), median(traced)
	r.plainLoop, r.trLoop = median(plainLoop), median(trLoop)
	r.region, r.toFin, r.fin, r.compute = median(region), median(toFin), median(fin), median(comp)
	for j := range models {
		r.sim = append(r.sim, median(sims[j]))
		r.ratio = append(r.ratio, median(ratios[j]))
		r.ratioFin = append(r.ratioFin, median(ratiosFin[j]))
	}
	return r, nil
}

// analysis is what one trace gave.
type analysis struct {
	region, toFin, fin, compute float64   // ns (see result)
	sim                         []float64 // ns, per model
	calls, records, bytes       int64
}

// analyse reads the trace in dir, converts it (as gopsim convert does)
// and simulates it with every model (as gopsim sim does).
func analyse(dir string, models []model) (*analysis, error) {
	d, err := trace.OpenDir(dir)
	if err != nil {
		return nil, err
	}
	a := &analysis{}
	for r := range d.NumRanks() {
		f, err := trace.ReadFile(d.Files[r])
		if err != nil {
			return nil, err
		}
		first, last := f.Calls[0], f.Calls[len(f.Calls)-1]
		if first.Func.Class() != trace.ClassInit || last.Func != trace.FuncFinalize {
			return nil, fmt.Errorf("rank %d: the trace runs from %v to %v", r, first.Func, last.Func)
		}
		a.region = max(a.region, float64(last.End-first.End))
		a.toFin = max(a.toFin, float64(last.Start-first.End))
		a.fin = max(a.fin, float64(last.Duration()))
	}
	st, err := d.Stats()
	if err != nil {
		return nil, err
	}
	a.calls, a.records, a.bytes = st.Calls, st.Records, st.Bytes
	s := goal.NewSchedule(d.NumRanks())
	cs, err := trace.Convert(d, trace.ConvertOptions{}, s.AppendRank)
	if err != nil {
		return nil, err
	}
	a.compute = float64(cs.ComputeNs) / float64(cs.Ranks)
	for i := range models {
		t, err := models[i].simulate(d)
		if err != nil {
			return nil, err
		}
		a.sim = append(a.sim, t)
	}
	return a, nil
}

func report(w io.Writer, o *options, c *calibration, sections []section, started time.Time, load0 string) {
	var np []string
	for _, n := range o.ranks {
		np = append(np, strconv.Itoa(n))
	}
	fmt.Fprintf(w, "Generated by `make accuracy` (`go run ./internal/accuracy -reps %d -np %s`) on %s: %d CPUs (%s), %s, %s; "+
		"load average %s at the start, %s at the end. %d runs per workload without and with the tracer, alternating; medians.\n\n",
		o.reps, strings.Join(np, ","), started.UTC().Format("2006-01-02 15:04 MST"), runtime.NumCPU(), cpuModel(),
		version("mpirun", "--version"), lammpsVersion(), load0, loadAvg(), o.reps)
	if c != nil {
		fmt.Fprintf(w, "Ping-pong on 2 ranks, %d runs each, round trips in ns:", len(c.sendNs))
		for _, size := range []int{small, large} {
			fmt.Fprintf(w, " %d bytes %v;", size, round(c.rtt[size]))
		}
		fmt.Fprintf(w, " median MPI_Send of %d bytes per traced run %v ns. Open MPI's shared-memory eager limit: %d bytes.\n\n",
			small, round(c.sendNs), c.eager)
		fmt.Fprintln(w, "| from the runs' | L ns | o ns | g ns | G ns/byte |")
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|")
		for _, s := range []struct {
			name string
			stat func([]float64) float64
		}{{"minimums (used)", slices.Min[[]float64]}, {"medians", median}} {
			p := c.fit(s.stat, small, large)
			fmt.Fprintf(w, "| %s | %.1f | %.1f | %.1f | %.3f |\n", s.name, p.L, p.o, p.g, p.G)
		}
		fmt.Fprintln(w)
	}
	for _, sec := range sections {
		fmt.Fprintf(w, "### %d ranks\n\nSimulated with:\n\n", sec.ranks)
		for _, m := range sec.models {
			p := m.params
			fmt.Fprintf(w, "- %s: L=%g, o=%g, g=%g, G=%g, O=%g, S=%d bytes", m.name, p.L, p.Overhead, p.Gap, p.GapPerByte, p.OverheadPerByte, p.EagerLimit)
			for _, r := range p.Ranges {
				fmt.Fprintf(w, "; from %d bytes L=%g, o=%g, g=%g, G=%g", r.MinBytes, r.L, r.Overhead, r.Gap, r.GapPerByte)
			}
			switch {
			case m.unit != 1:
				fmt.Fprintf(w, ", in units of %.3g ns (computation x%g, result /%g)", 1/m.unit, m.scale, m.unit)
			case m.scale != 1:
				fmt.Fprintf(w, " (ns), computation x%.3g", m.scale)
			default:
				fmt.Fprint(w, " (ns)")
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w)
		head := "| workload | measured ms | in MPI_Finalize ms | measured to MPI_Finalize ms |"
		rule := "|---|--:|--:|--:|"
		for i, m := range sec.models {
			head += fmt.Sprintf(" simulated, %s ms |", m.name)
			rule += "--:|"
			if i == 0 {
				head += " ratio |"
				rule += "--:|"
			}
			head += " ratio to MPI_Finalize |"
			rule += "--:|"
		}
		fmt.Fprintln(w, head+" computation per rank ms |")
		fmt.Fprintln(w, rule+"--:|")
		for _, r := range sec.results {
			row := fmt.Sprintf("| %s | %.1f | %.1f | %.1f |", r.w.label(), r.region/1e6, r.fin/1e6, r.toFin/1e6)
			for i := range sec.models {
				row += fmt.Sprintf(" %.1f |", r.sim[i]/1e6)
				if i == 0 {
					row += fmt.Sprintf(" %.2f |", r.ratio[i])
				}
				row += fmt.Sprintf(" %.2f |", r.ratioFin[i])
			}
			fmt.Fprintf(w, "%s %.1f |\n", row, r.compute/1e6)
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, "| workload | untraced s | traced s | overhead | calls | records | trace bytes | bytes per call | bytes per record |")
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|--:|--:|--:|")
		for _, r := range sec.results {
			plain, tr := fmt.Sprintf("%.2f", r.plainWall), fmt.Sprintf("%.2f", r.trWall)
			over := fmt.Sprintf("%+.1f%%", 100*(r.trWall/r.plainWall-1))
			if r.w.lammps { // LAMMPS's own timing of its run loop too
				plain += fmt.Sprintf(" (loop %.3f)", r.plainLoop)
				tr += fmt.Sprintf(" (loop %.3f)", r.trLoop)
				over += fmt.Sprintf(" (loop %+.1f%%)", 100*(r.trLoop/r.plainLoop-1))
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %d | %d | %d | %.2f | %.1f |\n", r.w.label(), plain, tr, over,
				r.calls, r.records, r.size, float64(r.size)/float64(r.calls), float64(r.size)/float64(r.records))
		}
		fmt.Fprintln(w)
	}
}

func (w workload) label() string {
	if len(w.args) > 0 && !w.lammps {
		return w.name + " " + strings.Join(w.args, " ")
	}
	return w.name
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

func round(v []float64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(math.Round(x))
	}
	return out
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}

func version(cmd string, args ...string) string {
	out, err := exec.Command(cmd, args...).CombinedOutput()
	if err != nil {
		return cmd + " (version unknown)"
	}
	l, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return l
}

func lammpsVersion() string {
	out, _ := exec.Command("lmp", "-h").CombinedOutput()
	m := regexp.MustCompile(`Large-scale Atomic/Molecular Massively Parallel Simulator - ([^\n]+)`).FindSubmatch(out)
	if m == nil {
		return "LAMMPS (version unknown)"
	}
	return "LAMMPS " + strings.TrimSpace(string(m[1]))
}
