package bench

// The MPI library's one-time costs. MeasureWarmup runs gopsim-warmup
// (bench/mpi/warmup.c, built into bin/ by `make calibrate-deps`) on two
// ranks, Runs times, each a fresh pair of processes:
//
//	mpirun -np 2 gopsim-warmup REPS
//
// and reads what rank 0 prints (warmup.c specifies it):
//
//	# gopsim-warmup VERSION LIBRARY
//	contact FIRST_NS|- WARM_NS         - when rank 1 was not waiting for it
//	call NAME FIRST_NS WARM_NS         one line per probed function
//	# end
//	error: MESSAGE                     in place of any line
//
// Every run must name the same functions in the same order. The reader
// is strict: a missing, repeated or malformed line is an *MPIOutputError
// with the line and column.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/sim"
)

// contactUnknown is WarmupCost.First of a run whose first contact was
// not timed ("contact - WARM_NS").
const contactUnknown = -1

const (
	warmupVersion = 2
	warmupTag     = "# gopsim-warmup "
	warmupMaxReps = 1000
)

// DefaultWarmupProgram is the name of the one-time cost probe
// (bench/mpi/warmup.c), as `make calibrate-deps` builds it into bin/.
const DefaultWarmupProgram = "gopsim-warmup"

// WarmupOptions say how MeasureWarmup runs gopsim-warmup. The zero value
// of every field is its documented default.
type WarmupOptions struct {
	// Runs is the number of fresh runs (0 means 9); each figure of the
	// result is the median over them.
	Runs int
	// Reps is the number of warm calls timed per probe and run (0 means
	// 15); their median is the run's warm time.
	Reps int
	// Launcher starts two ranks, the program's path and arguments
	// appended; nil means DefaultMPILauncher.
	Launcher []string
	// Program is the path of gopsim-warmup; "" means
	// DefaultWarmupProgram on $PATH.
	Program string
	// Env is added to the environment.
	Env []string
	// Log receives the program's standard error; nil discards it.
	Log io.Writer
}

// WarmupCost is one probe's times, in ns: its first call in a process,
// and a warm call.
type WarmupCost struct {
	Name        string
	First, Warm int64
}

// Extra is the first call's cost over a warm one, at least 0.
func (c WarmupCost) Extra() int64 { return max(c.First-c.Warm, 0) }

// Warmup is what MeasureWarmup measured: the library, the first round
// trip with a peer against a warm one, and each probed function's first
// and warm call, each the median over the runs.
type Warmup struct {
	Library string
	Runs    int
	// ContactRuns is the number of runs whose first round trip was timed:
	// a run whose rank 1 left MPI_Init so late that it did not wait for
	// rank 0's first message has none (warmup.c).
	ContactRuns int
	Contact     WarmupCost
	Calls       []WarmupCost
}

// MeasureWarmup measures the MPI library's one-time costs on two ranks:
// o.Runs fresh runs of gopsim-warmup, medians per figure. Errors about
// the output are *MPIOutputError, wrapped with the command line, its exit
// status and the end of its standard error.
func MeasureWarmup(ctx context.Context, o WarmupOptions) (Warmup, error) {
	runs, reps := o.Runs, o.Reps
	if runs == 0 {
		runs = 9
	}
	if reps == 0 {
		reps = 15
	}
	if runs < 1 || runs > 1000 || reps < 1 || reps > warmupMaxReps {
		return Warmup{}, fmt.Errorf("bench: warm-up probe: %d runs of %d repetitions, want 1..1000 runs and 1..%d repetitions", runs, reps, warmupMaxReps)
	}
	prog, err := mpiProgram(o.Program, DefaultWarmupProgram)
	if err != nil {
		return Warmup{}, err
	}
	launcher := o.Launcher
	if len(launcher) == 0 {
		launcher = DefaultMPILauncher
	}
	argv := append(slices.Clone(launcher), prog, strconv.Itoa(reps))
	var all []Warmup
	for i := 0; i < runs; i++ {
		w, err := runWarmup(ctx, argv, o)
		if err != nil {
			return Warmup{}, err
		}
		if len(all) > 0 && !sameProbes(all[0], w) {
			return Warmup{}, fmt.Errorf("bench: %s: run %d probed other functions than run 1", strings.Join(argv, " "), i+1)
		}
		all = append(all, w)
	}
	w := medianWarmup(all)
	if w.ContactRuns == 0 {
		return Warmup{}, fmt.Errorf("bench: %s: in none of the %d runs did rank 1 wait in MPI_Recv for rank 0's first message (rank 0 waits 50 ms before it), so the first contact could not be timed apart from the ranks' start: is the machine busy?", strings.Join(argv, " "), runs)
	}
	return w, nil
}

// runWarmup runs gopsim-warmup once.
func runWarmup(ctx context.Context, argv []string, o WarmupOptions) (Warmup, error) {
	var w Warmup
	err := runOnce(ctx, argv, strings.Join(argv, " "), o.Env, o.Log, "a complete output", func(r io.Reader, _ io.Writer) error {
		var err error
		w, err = readWarmup(r, argv[len(argv)-2]+" output")
		return err
	})
	return w, err
}

// warmupLines reads gopsim-warmup's output line by line, naming the
// line in errors.
type warmupLines struct {
	sc   *bufio.Scanner
	name string
	line int
}

func (r *warmupLines) fail(col int, err error, format string, a ...any) error {
	return &MPIOutputError{Name: r.name, Line: r.line, Col: col, Msg: fmt.Sprintf(format, a...), Err: err}
}

// next returns the next line that is not blank; "error:" lines are the
// program's errors.
func (r *warmupLines) next(what string) (string, error) {
	for r.sc.Scan() {
		r.line++
		t := strings.TrimSpace(r.sc.Text())
		if t == "" {
			continue
		}
		if msg, ok := strings.CutPrefix(t, "error:"); ok {
			return "", r.fail(1, ErrMPIProgram, "%s: %s", DefaultWarmupProgram, strings.TrimSpace(msg))
		}
		return t, nil
	}
	r.line++
	if err := r.sc.Err(); err != nil {
		return "", r.fail(1, ErrProtocol, "%v, want %s", err, what)
	}
	return "", r.fail(1, io.ErrUnexpectedEOF, "the output ends, want %s", what)
}

// times parses the two times at the end of fields, the first at field
// index i.
func (r *warmupLines) times(fields []string, i int) (int64, int64, error) {
	var v [2]int64
	for k := range v {
		x, err := strconv.ParseInt(fields[i+k], 10, 64)
		if err != nil || x < 0 || x > sim.MaxParam {
			return 0, 0, r.fail(i+k+1, ErrProtocol, "field %d %q: want a time in 0..%d ns", i+k+1, fields[i+k], int64(sim.MaxParam))
		}
		v[k] = x
	}
	return v[0], v[1], nil
}

// readWarmup reads one run's output (name is used in errors).
func readWarmup(rd io.Reader, name string) (Warmup, error) {
	sc := bufio.NewScanner(rd)
	sc.Buffer(make([]byte, 0, 4096), mpiMaxLineSize)
	r := &warmupLines{sc: sc, name: name}
	var w Warmup
	const versionWhat = `"# gopsim-warmup VERSION LIBRARY"`
	t, err := r.next(versionWhat)
	if err != nil {
		return w, err
	}
	rest, ok := strings.CutPrefix(t, warmupTag)
	if !ok {
		return w, r.fail(1, ErrProtocol, "%q, want %s (is it %s, from bench/mpi/warmup.c?)", t, versionWhat, DefaultWarmupProgram)
	}
	ver, lib, _ := strings.Cut(rest, " ")
	if ver != strconv.Itoa(warmupVersion) {
		return w, r.fail(len(warmupTag)+1, ErrProtocol, "version %q, want %d: rebuild it with 'make calibrate-deps'", ver, warmupVersion)
	}
	w.Library, w.Runs = sim.LibraryName(lib), 1
	if t, err = r.next(`"contact FIRST_NS WARM_NS"`); err != nil {
		return w, err
	}
	f := strings.Fields(t)
	if len(f) != 3 || f[0] != "contact" {
		return w, r.fail(1, ErrProtocol, "%q, want \"contact FIRST_NS WARM_NS\"", t)
	}
	unknown := f[1] == "-"
	if unknown {
		f[1] = "0"
	}
	if w.Contact.First, w.Contact.Warm, err = r.times(f, 1); err != nil {
		return w, err
	}
	if unknown {
		w.Contact.First = contactUnknown
	}
	w.Contact.Name = "contact"
	return w, r.calls(&w)
}

// calls reads the call lines up to "# end".
func (r *warmupLines) calls(w *Warmup) error {
	for {
		t, err := r.next(`"call NAME FIRST_NS WARM_NS" or "# end"`)
		if err != nil {
			return err
		}
		if t == "# end" {
			if len(w.Calls) == 0 {
				return r.fail(1, ErrProtocol, "no call line before \"# end\"")
			}
			return nil
		}
		f := strings.Fields(t)
		if len(f) != 4 || f[0] != "call" || !strings.HasPrefix(f[1], "MPI_") {
			return r.fail(1, ErrProtocol, "%q, want \"call MPI_NAME FIRST_NS WARM_NS\" or \"# end\"", t)
		}
		for _, c := range w.Calls {
			if c.Name == f[1] {
				return r.fail(6, ErrProtocol, "%s probed twice", f[1])
			}
		}
		c := WarmupCost{Name: f[1]}
		if c.First, c.Warm, err = r.times(f, 2); err != nil {
			return err
		}
		w.Calls = append(w.Calls, c)
	}
}

// sameProbes tells whether a and b probed the same functions in order.
func sameProbes(a, b Warmup) bool {
	return slices.EqualFunc(a.Calls, b.Calls, func(x, y WarmupCost) bool { return x.Name == y.Name })
}

// medianWarmup is the runs' median of every figure (the upper median of
// an even number); the first contact's over the runs that timed it. The
// runs probed the same functions.
func medianWarmup(runs []Warmup) Warmup {
	med := func(rs []Warmup, get func(Warmup) int64) int64 {
		v := make([]int64, len(rs))
		for i, w := range rs {
			v[i] = get(w)
		}
		slices.Sort(v)
		return v[len(v)/2]
	}
	timed := slices.DeleteFunc(slices.Clone(runs), func(w Warmup) bool { return w.Contact.First == contactUnknown })
	out := Warmup{Library: runs[0].Library, Runs: len(runs), ContactRuns: len(timed)}
	out.Contact = WarmupCost{Name: "contact", First: contactUnknown,
		Warm: med(runs, func(w Warmup) int64 { return w.Contact.Warm })}
	if len(timed) > 0 {
		out.Contact.First = med(timed, func(w Warmup) int64 { return w.Contact.First })
	}
	for i, c := range runs[0].Calls {
		out.Calls = append(out.Calls, WarmupCost{Name: c.Name,
			First: med(runs, func(w Warmup) int64 { return w.Calls[i].First }),
			Warm:  med(runs, func(w Warmup) int64 { return w.Calls[i].Warm })})
	}
	return out
}

// call returns the probe of function name, if any.
func (w Warmup) call(name string) (WarmupCost, bool) {
	for _, c := range w.Calls {
		if c.Name == name {
			return c, true
		}
	}
	return WarmupCost{}, false
}

// Costs are the library costs the converter charges (sim.LibraryCosts):
//   - first contact: the first round trip with the peer less a warm one;
//   - first call of each probed function: its first call less a warm one;
//   - creating a communicator: a warm MPI_Comm_split less the warm
//     collectives the converter models it with (docs/formats.md), whose
//     cost the schedule already simulates: an MPI_Allgather and the
//     context-id agreement, one MPI_Allreduce (MPICH) or three (Open MPI,
//     by the library's name); at least 0.
func (w Warmup) Costs() *sim.LibraryCosts {
	c := &sim.LibraryCosts{Name: w.Library, FirstContactNs: float64(w.Contact.Extra())}
	if split, ok := w.call("MPI_Comm_split"); ok {
		comm := split.Warm
		if x, ok := w.call("MPI_Allgather"); ok {
			comm -= x.Warm
		}
		rounds := int64(1)
		if strings.Contains(w.Library, "Open MPI") {
			rounds = 3
		}
		if x, ok := w.call("MPI_Allreduce"); ok {
			comm -= rounds * x.Warm
		}
		c.CommCreateNs = float64(max(comm, 0))
	}
	for _, x := range w.Calls {
		c.FirstCall = append(c.FirstCall, sim.FirstCallCost{Function: x.Name, Ns: float64(x.Extra())})
	}
	slices.SortFunc(c.FirstCall, func(a, b sim.FirstCallCost) int { return strings.Compare(a.Function, b.Function) })
	return c
}
