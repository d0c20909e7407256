// Command accuracy regenerates the tables of docs/accuracy.md: it
// calibrates the machine with `gopsim calibrate --backend mpi`, runs every
// MPI example of examples/mpi, LAMMPS on examples/lammps and HPCC on
// examples/hpcc at 2 ranks without and with the tracer, validates each
// trace against its simulation with the calibrated parameters (what
// `gopsim validate --params` does), and prints as Markdown the measured
// and the simulated times, where they part, the tracer's overhead and the
// trace size per call.
//
// Run it through `make accuracy`, which builds gopsim, the tracer, the
// examples and gopsim-prtt first, or from the repository root:
//
//	go run ./internal/accuracy -reps 9 > tables.md
//
// It needs Open MPI, LAMMPS and hpcc (make mpi-deps), takes a few minutes
// with the default 9 repetitions, and its figures are as noisy as the
// machine: run it on an otherwise idle machine. Before each workload it
// measures a reference round trip (the pingpong example at 8 bytes and 64
// KiB), so that each row shows the state of the machine it was measured in.
package main

import (
	"bytes"
	"context"
	"encoding/json"
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

	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/validation"
)

// options of a run (see main's flags).
type options struct {
	root   string // repository root: bin/ and examples/ are under it
	reps   int    // runs per workload without and with the tracer
	short  int    // runs of a workload whose first traced run measured under shortNs
	ranks  []int  // ranks per workload: a table per number
	params string // a parameter file instead of calibrating
	only   string // run only the workloads whose name contains this
	calib  string // extra flags of gopsim calibrate
	recal  bool   // calibrate again right before each workload
	log    io.Writer
}

func main() {
	var o options
	flag.StringVar(&o.root, "root", ".", "repository `dir` (bin/ holds gopsim, gopsim-prtt, the tracer and the examples: make accuracy builds them)")
	flag.IntVar(&o.reps, "reps", 9, "runs of each workload without and with the tracer (medians are reported): the short programs' measured times vary by a quarter from one launch to the next, and the median of 5 by about a tenth")
	flag.IntVar(&o.short, "short-reps", 27, "runs of a workload whose first traced run measured under 10 ms to MPI_Finalize (at least -reps): a launch of those costs little, and their runs' ratios spread the most")
	np := flag.String("np", "2", "MPI ranks per workload, a table for each `list` item (more than 2 oversubscribes this machine's 2 cores, which no network model describes)")
	flag.StringVar(&o.params, "params", "", "LogGOPS parameter `file` (as gopsim sim --params) instead of running gopsim calibrate --backend mpi")
	flag.StringVar(&o.only, "only", "", "run only the workloads whose name contains this `string`")
	flag.StringVar(&o.calib, "calibrate-flags", "", "more `flags` for gopsim calibrate --backend mpi, split at blanks")
	flag.BoolVar(&o.recal, "recalibrate", true, "calibrate again right before each workload and validate its runs with that calibration, as this VM's round trip drifts within minutes (-recalibrate=false: calibrate once, first); not with -params")
	flag.Parse()
	for _, f := range strings.Split(*np, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 2 {
			fmt.Fprintf(os.Stderr, "accuracy: -np %s: want rank counts of at least 2\n", *np)
			os.Exit(2)
		}
		o.ranks = append(o.ranks, n)
	}
	if o.reps < 1 || o.short < o.reps || flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	if o.params != "" {
		set := false
		flag.Visit(func(f *flag.Flag) { set = set || f.Name == "recalibrate" })
		if set && o.recal {
			fmt.Fprintln(os.Stderr, "accuracy: -recalibrate calibrates before each workload, and -params gives a file instead of calibrating: use one of them")
			os.Exit(2)
		}
		o.recal = false
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
	bin    string   // under the root, or on $PATH
	args   []string // its arguments
	input  string   // a file under examples/ copied into the working directory (LAMMPS's input, hpccinf.txt)
	lammps bool     // bin is lmp: input is its -in file
	min    int      // the fewest ranks it runs on
}

func workloads() []workload {
	ex := func(name string, args ...string) workload {
		return workload{name: name, bin: filepath.Join("bin", "examples", "mpi", name), args: args, min: 2}
	}
	return []workload{
		ex("pingpong", "5000", "4096"),
		ex("pingpong", "20000", "8"),
		ex("pingpong", "500", "65536"),
		ex("halo2d", "500", "256", "256"),
		ex("allreduce_loop", "500", "1000"),
		ex("fft_alltoall", "50", "256"),
		ex("strided"),
		ex("fring"),
		ex("fring_f08"),
		ex("irregular"),
		{name: "LAMMPS in.melt", bin: "lmp", input: "lammps/in.melt", lammps: true, min: 1},
		{name: "LAMMPS in.lj", bin: "lmp", input: "lammps/in.lj", lammps: true, min: 1},
		{name: "HPCC", bin: "hpcc", input: "hpcc/hpccinf.txt", min: 2},
	}
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
	var cal *calibration
	if !o.recal {
		if cal, err = parameters(o); err != nil {
			return err
		}
	}
	var sections []section
	for _, np := range o.ranks {
		sec := section{ranks: np}
		for _, w := range workloads() {
			if o.only != "" && !strings.Contains(w.label(), o.only) || np < w.min {
				continue
			}
			c := cal
			if o.recal {
				if c, err = parameters(o); err != nil {
					return fmt.Errorf("calibrating before %s: %w", w.label(), err)
				}
				if cal == nil {
					cal = c // the report shows the first in full
				}
			}
			r, err := measure(o, np, lib, w, c)
			if err != nil {
				return fmt.Errorf("%s on %d ranks: %w", w.label(), np, err)
			}
			sec.results = append(sec.results, r)
		}
		sections = append(sections, sec)
	}
	report(out, o, cal, sections, started, load0)
	return nil
}

// calibration is the parameter file used and how it was made.
type calibration struct {
	params  sim.Params
	file    string // as given with -params, or "" when calibrated here
	command string // the calibrate command that wrote it
	text    []byte // the file
}

// parameters reads -params, or runs gopsim calibrate --backend mpi as a
// user would and reads the file it writes.
func parameters(o *options) (*calibration, error) {
	c := &calibration{file: o.params}
	path := o.params
	if path == "" {
		dir, err := os.MkdirTemp("", "gopsim-accuracy-calibrate-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "params.json")
		args := []string{"calibrate", "--backend", "mpi", "--quiet", "-o", path}
		args = append(args, strings.Fields(o.calib)...)
		c.command = "bin/gopsim " + strings.Join(args, " ")
		c.command = strings.Replace(c.command, path, "params.json", 1)
		fmt.Fprintf(o.log, "accuracy: %s\n", c.command)
		cmd := exec.Command(filepath.Join(o.root, "bin", "gopsim"), args...)
		cmd.Env = mpiEnv()
		cmd.Stdout, cmd.Stderr = o.log, o.log
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("%s: %w", c.command, err)
		}
	}
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := sim.ReadParams(bytes.NewReader(text), path, sim.DefaultParams())
	if err != nil {
		return nil, err
	}
	c.params, c.text = p, text
	fmt.Fprintf(o.log, "accuracy: parameters %s\n", p)
	return c, nil
}

// section is the runs of every workload at one number of ranks.
type section struct {
	ranks   int
	results []*result
}

// result is what the runs of one workload gave: medians over the runs.
type result struct {
	w                    workload
	plainWall, trWall    float64      // s, mpirun's wall time
	plainLoop, trLoop    float64      // s, LAMMPS's own "Loop time" (0 for the others)
	measured, span, sim  float64      // ns: Init end to Finalize start, Init start to Finalize end (slowest rank); simulated
	ratio                float64      // simulated / measured, the median of the runs' ratios
	ratioMin, ratioMax   float64      // the runs' extremes
	compute, compDiff    float64      // ns at the slowest measured rank: measured computation, simulated - measured
	inMPI, mpiDiff       float64      // ns at the slowest measured rank: measured inside MPI, simulated - measured
	calls, records, size int64        // of the first traced run
	ref                  reference    // round trips measured right before the runs
	cal                  *calibration // the parameters the runs were validated with
	runs                 int          // runs without and with the tracer
}

// mpiEnv is the environment of an mpirun: as root too, one OpenMP thread.
func mpiEnv() []string {
	return append(os.Environ(), "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMP_NUM_THREADS=1")
}

// runResult is one mpirun.
type runResult struct {
	wall float64 // s
	out  string
}

// mpirun runs bin on np ranks with Open MPI (as root too), traced into dir
// when lib is given, in the working directory cwd ("" for the current).
func mpirun(np int, lib, bin string, args []string, dir, cwd string) (*runResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	mpiArgs := []string{"-np", strconv.Itoa(np)}
	if np > runtime.NumCPU() {
		mpiArgs = append(mpiArgs, "--oversubscribe")
	}
	cmd := exec.CommandContext(ctx, "mpirun", append(append(mpiArgs, bin), args...)...)
	cmd.Env = mpiEnv()
	if lib != "" {
		cmd.Env = append(cmd.Env, "LD_PRELOAD="+lib, "GOPSIM_TRACE_DIR="+dir)
	}
	cmd.Dir = cwd
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

// command returns w's program, its arguments and its working directory
// (a new temporary one, removed by the returned function).
func (w workload) command(root string) (bin string, args []string, cwd string, done func(), err error) {
	bin, args, done = w.bin, w.args, func() {}
	if !filepath.IsAbs(bin) && strings.Contains(bin, "/") {
		bin = filepath.Join(root, bin)
	}
	if w.input == "" {
		return bin, args, "", done, nil
	}
	cwd, err = os.MkdirTemp("", "gopsim-accuracy-work-")
	if err != nil {
		return "", nil, "", nil, err
	}
	done = func() { os.RemoveAll(cwd) }
	in, err := os.ReadFile(filepath.Join(root, "examples", w.input))
	if err == nil {
		err = os.WriteFile(filepath.Join(cwd, filepath.Base(w.input)), in, 0o666)
	}
	if err != nil {
		done()
		return "", nil, "", nil, err
	}
	if w.lammps {
		args = []string{"-in", filepath.Base(w.input), "-log", "none", "-nocite"}
	}
	return bin, args, cwd, done, nil
}

// loopTime is LAMMPS's "Loop time" in out, 0 for the other programs.
func (w workload) loopTime(out string) (float64, error) {
	if !w.lammps {
		return 0, nil
	}
	m := loopRE.FindStringSubmatch(out)
	if m == nil {
		return 0, errors.New("no Loop time in LAMMPS's output")
	}
	return strconv.ParseFloat(m[1], 64)
}

// shortNs is the measured time, to MPI_Finalize, under which a workload
// is run -short-reps times rather than -reps.
const shortNs = 10e6

// measure runs w reps times without and reps times with the tracer,
// alternating (short-reps times when its first traced run measured under
// shortNs), and validates every trace with c's parameters.
func measure(o *options, np int, lib string, w workload, c *calibration) (*result, error) {
	bin, args, cwd, done, err := w.command(o.root)
	if err != nil {
		return nil, err
	}
	defer done()
	p := c.params
	r := &result{w: w, cal: c}
	if r.ref, err = measureReference(o); err != nil {
		return nil, err
	}
	var plain, traced, plainLoop, trLoop []float64
	var runs []*validation.Result
	reps := o.reps
	for i := 0; i < reps; i++ {
		res, err := mpirun(np, "", bin, args, "", cwd)
		if err != nil {
			return nil, err
		}
		lt, err := w.loopTime(res.out)
		if err != nil {
			return nil, err
		}
		plain, plainLoop = append(plain, res.wall), append(plainLoop, lt)

		v, tr, err := tracedRun(np, lib, bin, args, cwd, w, p, r, i == 0)
		if err != nil {
			return nil, err
		}
		traced, trLoop = append(traced, tr.wall), append(trLoop, tr.loop)
		runs = append(runs, v)
		if i == 0 && float64(v.MeasuredNs) < shortNs {
			reps = o.short
		}
		fmt.Fprintf(o.log, "%s on %d ranks: run %d: %.3f s untraced, %.3f s traced; measured %.3f ms, simulated %.3f ms, ratio %.3f\n",
			w.label(), np, i+1, plain[i], traced[i], float64(v.MeasuredNs)/1e6, float64(v.SimulatedNs)/1e6, v.Ratio)
	}
	r.runs = reps
	r.plainWall, r.trWall = median(plain), median(traced)
	r.plainLoop, r.trLoop = median(plainLoop), median(trLoop)
	r.summarise(runs)
	return r, nil
}

// reference is the pingpong example's round trip at 8 and 65,536 bytes,
// in µs, measured on 2 ranks right before a workload's runs. This VM's
// shared-memory round trip drifts by up to two times within minutes, as
// the host moves its vCPUs (docs/accuracy.md); the reference shows how
// far the machine was from the calibration's when a row was measured.
type reference struct{ small, large float64 }

// referenceRuns are the pingpong example's arguments for reference: enough
// round trips that the first, which includes the first contact (about
// 0.4 ms), adds at most a few percent.
var referenceRuns = [2][2]string{{"20000", "8"}, {"2000", "65536"}}

var pingpongRE = regexp.MustCompile(`round trips of ([0-9]+) bytes, ([0-9.]+) us each`)

func measureReference(o *options) (reference, error) {
	var ref reference
	bin := filepath.Join(o.root, "bin", "examples", "mpi", "pingpong")
	for i, a := range referenceRuns {
		res, err := mpirun(2, "", bin, a[:], "", "")
		if err != nil {
			return ref, fmt.Errorf("reference round trip: %w", err)
		}
		us, err := parsePingpong(res.out, a[1])
		if err != nil {
			return ref, fmt.Errorf("reference round trip: %w", err)
		}
		if i == 0 {
			ref.small = us
		} else {
			ref.large = us
		}
	}
	fmt.Fprintf(o.log, "accuracy: reference round trip %.2f us at 8 B, %.2f us at 64 KiB\n", ref.small, ref.large)
	return ref, nil
}

// parsePingpong is the round trip, µs, that the pingpong example printed
// in out for messages of size bytes.
func parsePingpong(out, size string) (float64, error) {
	m := pingpongRE.FindStringSubmatch(out)
	if m == nil || m[1] != size {
		return 0, fmt.Errorf("pingpong printed no round trip of %s bytes: %q", size, strings.TrimSpace(out))
	}
	return strconv.ParseFloat(m[2], 64)
}

// calibratedRTT is the calibration's measured mean round trip at size
// bytes, µs, from the "fit" section calibrate writes; 0 when the file
// has none at that size (a hand-written parameter file).
func calibratedRTT(text []byte, size int64) float64 {
	var f struct {
		Fit struct {
			Pingpong []struct {
				S        int64   `json:"s_bytes"`
				Measured float64 `json:"measured_rtt_ns"`
			} `json:"pingpong"`
		} `json:"fit"`
	}
	if json.Unmarshal(text, &f) != nil {
		return 0
	}
	for _, p := range f.Fit.Pingpong {
		if p.S == size {
			return p.Measured / 1e3
		}
	}
	return 0
}

// tracedRun is one run under the tracer, validated with p; the first run
// also gives the trace's size to r.
func tracedRun(np int, lib, bin string, args []string, cwd string, w workload, p sim.Params, r *result, first bool) (*validation.Result, struct{ wall, loop float64 }, error) {
	var t struct{ wall, loop float64 }
	dir, err := os.MkdirTemp("", "gopsim-accuracy-trace-")
	if err != nil {
		return nil, t, err
	}
	defer os.RemoveAll(dir)
	res, err := mpirun(np, lib, bin, args, dir, cwd)
	if err != nil {
		return nil, t, err
	}
	if t.loop, err = w.loopTime(res.out); err != nil {
		return nil, t, err
	}
	t.wall = res.wall
	d, err := trace.OpenDir(dir)
	if err != nil {
		return nil, t, err
	}
	if first {
		st, err := d.Stats()
		if err != nil {
			return nil, t, err
		}
		r.calls, r.records, r.size = st.Calls, st.Records, st.Bytes
	}
	v, err := validation.Run(d, validation.Options{Params: p, Convert: trace.ConvertOptions{LibraryCosts: p.Library}})
	return v, t, err
}

// summarise takes the medians of the runs' figures; the ratio is the
// median of the runs' ratios.
func (r *result) summarise(runs []*validation.Result) {
	var measured, span, simulated, ratio, comp, compDiff, inMPI, mpiDiff []float64
	for _, v := range runs {
		slow := v.Ranks[v.MeasuredRank]
		measured = append(measured, float64(v.MeasuredNs))
		span = append(span, float64(slow.Measured.FinalizeEnd-slow.Measured.InitStart))
		simulated = append(simulated, float64(v.SimulatedNs))
		ratio = append(ratio, v.Ratio)
		comp = append(comp, float64(slow.MeasuredCompute()))
		compDiff = append(compDiff, float64(slow.ComputeDiff()))
		inMPI = append(inMPI, float64(slow.MeasuredMPI()))
		mpiDiff = append(mpiDiff, float64(slow.MPIDiff()))
	}
	r.measured, r.span, r.sim = median(measured), median(span), median(simulated)
	r.ratio, r.ratioMin, r.ratioMax = median(ratio), slices.Min(ratio), slices.Max(ratio)
	r.compute, r.compDiff = median(comp), median(compDiff)
	r.inMPI, r.mpiDiff = median(inMPI), median(mpiDiff)
}

func report(w io.Writer, o *options, c *calibration, sections []section, started time.Time, load0 string) {
	var np []string
	for _, n := range o.ranks {
		np = append(np, strconv.Itoa(n))
	}
	recalFlag := "" // the default: calibrate before each workload
	switch {
	case o.params != "":
		recalFlag = " -params " + o.params
	case !o.recal:
		recalFlag = " -recalibrate=false"
	}
	fmt.Fprintf(w, "Generated by `make accuracy` (`go run ./internal/accuracy -reps %d -short-reps %d -np %s%s`) on %s: %d CPUs (%s), %s, %s, %s; "+
		"load average %s at the start, %s at the end. %d runs per workload without and with the tracer, alternating, "+
		"%d of those whose first traced run measured under %g ms; medians.\n\n",
		o.reps, o.short, strings.Join(np, ","), recalFlag, started.UTC().Format("2006-01-02 15:04 MST"), runtime.NumCPU(), cpuModel(),
		version("mpirun", "--version"), lammpsVersion(), hpccVersion(), load0, loadAvg(), o.reps, o.short, shortNs/1e6)
	switch {
	case c == nil: // no workload ran
	case c.file != "":
		fmt.Fprintf(w, "Parameters: the file `%s`:\n\n", c.file)
	case o.recal:
		fmt.Fprintf(w, "Parameters: calibrated right before each workload with `%s` (`-recalibrate`, the default), and each workload's runs "+
			"validated with its own calibration (the last column has its round trips; \"Calibrations\" below, its parameters). "+
			"The first wrote:\n\n", c.command)
	default:
		fmt.Fprintf(w, "Parameters: calibrated first with `%s`, which wrote:\n\n", c.command)
	}
	if c != nil {
		fmt.Fprintf(w, "```\n%s\n```\n\n", paramsExcerpt(c.text))
	}
	referenceNote(w, o, c, sections)
	for _, sec := range sections {
		fmt.Fprintf(w, "### %d ranks\n\n", sec.ranks)
		head, rule := "", ""
		if o.recal {
			head, rule = " calibration's round trip 8 B / 64 KiB us |", "--:|"
		}
		fmt.Fprintln(w, "| workload | measured to MPI_Finalize ms | Init to Finalize ms | simulated ms | ratio | runs' ratios (runs) | within 0.90-1.10 | computation ms | sim - measured computation ms | in MPI ms | sim - measured MPI ms | reference round trip 8 B / 64 KiB us |"+head)
		fmt.Fprintln(w, "|---|--:|--:|--:|--:|--:|:-:|--:|--:|--:|--:|--:|"+rule)
		for _, r := range sec.results {
			in := "yes"
			if r.ratio < 0.90 || r.ratio > 1.10 {
				in = "**no**"
			}
			fmt.Fprintf(w, "| %s | %.2f | %.2f | %.2f | %.3f | %.2f-%.2f (%d) | %s | %.2f | %+.2f | %.2f | %+.2f | %.2f / %.2f |",
				r.w.label(), r.measured/1e6, r.span/1e6, r.sim/1e6, r.ratio, r.ratioMin, r.ratioMax, r.runs, in,
				r.compute/1e6, r.compDiff/1e6, r.inMPI/1e6, r.mpiDiff/1e6, r.ref.small, r.ref.large)
			if o.recal {
				fmt.Fprintf(w, " %.2f / %.2f |", calibratedRTT(r.cal.text, 8), calibratedRTT(r.cal.text, 65536))
			}
			fmt.Fprintln(w)
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
	if o.recal {
		calibrations(w, sections)
	}
}

// calibrations lists, with -recalibrate, the parameters each workload's
// runs were validated with.
func calibrations(w io.Writer, sections []section) {
	fmt.Fprintln(w, "### Calibrations")
	fmt.Fprintln(w)
	for _, sec := range sections {
		for _, r := range sec.results {
			fmt.Fprintf(w, "%s on %d ranks:\n\n```\n%s\n```\n\n", r.w.label(), sec.ranks, paramsExcerpt(r.cal.text))
		}
	}
}

// referenceNote says how the reference round trips measured before each
// workload compare with the calibration's.
func referenceNote(w io.Writer, o *options, c *calibration, sections []section) {
	var small, large, rs, rl []float64
	for _, sec := range sections {
		for _, r := range sec.results {
			small, large = append(small, r.ref.small), append(large, r.ref.large)
			if cs, cl := calibratedRTT(r.cal.text, 8), calibratedRTT(r.cal.text, 65536); cs > 0 && cl > 0 {
				rs, rl = append(rs, r.ref.small/cs), append(rl, r.ref.large/cl)
			}
		}
	}
	if len(small) == 0 {
		return
	}
	if o.recal {
		fmt.Fprintf(w, "Reference round trips (the pingpong example on 2 ranks, %s round trips of %s bytes and %s of %s, right before each workload's runs, "+
			"after its calibration): 8 bytes %.2f to %.2f us, 64 KiB %.2f to %.2f us",
			referenceRuns[0][0], referenceRuns[0][1], referenceRuns[1][0], referenceRuns[1][1],
			slices.Min(small), slices.Max(small), slices.Min(large), slices.Max(large))
		if len(rs) > 0 {
			fmt.Fprintf(w, "; against the round trips of the workload's own calibration, %.2f to %.2f times at 8 bytes and %.2f to %.2f times at 64 KiB",
				slices.Min(rs), slices.Max(rs), slices.Min(rl), slices.Max(rl))
		}
		fmt.Fprint(w, ".\n\n")
		return
	}
	cal := func(size int64) string {
		if v := calibratedRTT(c.text, size); v > 0 {
			return fmt.Sprintf("%.2f us", v)
		}
		return "not in the parameter file"
	}
	fmt.Fprintf(w, "Reference round trips (the pingpong example on 2 ranks, %s round trips of %s bytes and %s of %s, right before each workload's runs): "+
		"8 bytes %.2f to %.2f us, 64 KiB %.2f to %.2f us; the calibration measured %s and %s (its mean round trips at those sizes). "+
		"A row measured while the machine's round trip was far from the calibration's is predicted off by about as much as the program communicates.\n\n",
		referenceRuns[0][0], referenceRuns[0][1], referenceRuns[1][0], referenceRuns[1][1],
		slices.Min(small), slices.Max(small), slices.Min(large), slices.Max(large), cal(8), cal(65536))
}

// paramsExcerpt is what sim reads of the parameter file, one range a
// line; the file's informational sections ("fit", "warnings", "source")
// stay in the file, which calibrate also prints.
func paramsExcerpt(text []byte) string {
	var f struct {
		L     float64           `json:"L_ns"`
		O     float64           `json:"o_ns"`
		G     float64           `json:"g_ns"`
		GB    float64           `json:"G_ns_per_byte"`
		OB    float64           `json:"O_ns_per_byte"`
		S     int64             `json:"S_bytes"`
		Rs    []json.RawMessage `json:"ranges"`
		Warns []string          `json:"warnings"`
	}
	if err := json.Unmarshal(text, &f); err != nil {
		return strings.TrimSpace(string(text))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "{\"L_ns\": %g, \"o_ns\": %g, \"g_ns\": %g, \"G_ns_per_byte\": %g, \"O_ns_per_byte\": %g, \"S_bytes\": %d,\n \"ranges\": [\n",
		f.L, f.O, f.G, f.GB, f.OB, f.S)
	for i, r := range f.Rs {
		var c bytes.Buffer
		if err := json.Compact(&c, r); err != nil {
			c.Write(r)
		}
		sep := ","
		if i == len(f.Rs)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "  %s%s\n", c.String(), sep)
	}
	fmt.Fprintf(&b, " ], ...}  // and %d warnings, \"fit\" and \"source\"", len(f.Warns))
	return b.String()
}

func (w workload) label() string {
	switch {
	case len(w.args) > 0:
		return w.name + " " + strings.Join(w.args, " ")
	default:
		return w.name
	}
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

// hpccVersion is the Debian package's version of hpcc, if dpkg knows it.
func hpccVersion() string {
	out, err := exec.Command("dpkg-query", "-W", "-f", "${Version}", "hpcc").Output()
	if err != nil || len(out) == 0 {
		return "hpcc (version unknown)"
	}
	return "hpcc " + string(out)
}
