package cli

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/sweep"
)

// errSized stops sim.ReadProgramIf once it has handed over the size.
var errSized = errors.New("sized")

// checkSweepInput refuses a directory as a sweep's input (a trace,
// most likely) with what to do instead; other errors are left to the
// reading.
func checkSweepInput(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("input %s is a directory (a trace?); a sweep's input is a schedule, GOAL text or binary: convert or extrapolate the trace first (gopsim convert %s s.bin)", path, path)
	}
	return nil
}

// scheduleSize returns the size of the schedule at path as its header
// gives it (a binary one), or an estimate from the file's size (a text
// one: its program takes about as many bytes as its text, 0.8 to 0.9
// times on LAMMPS and Schedgen files; Ops and Edges are then unknown,
// -1). Anything but a regular file (a FIFO, /dev/stdin) has no size (0
// bytes) and is not opened: it can be read only once, by the sweep, and
// opening a FIFO only to close it would take its writer's data or leave
// the sweep's own open waiting for a writer that is gone.
func scheduleSize(path string) (sim.ProgramSize, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return sim.ProgramSize{}, err
	}
	if !fi.Mode().IsRegular() {
		return sim.ProgramSize{Ops: -1, Edges: -1}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return sim.ProgramSize{}, err
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return sim.ProgramSize{}, err
	}
	br := bufio.NewReaderSize(f, 1<<16)
	if prefix, _ := br.Peek(len(goal.BinaryMagic)); !goal.IsBinary(prefix) {
		return sim.ProgramSize{Ops: -1, Edges: -1, Bytes: fi.Size()}, nil
	}
	var size sim.ProgramSize
	_, err = sim.ReadProgramIf(br, func(s sim.ProgramSize) error {
		size = s
		return errSized
	})
	if !errors.Is(err, errSized) {
		if err == nil {
			err = errors.New("no header")
		}
		return sim.ProgramSize{}, fmt.Errorf("%s: %w", path, err)
	}
	return size, nil
}

// sweepStreams decides gopsim sweep --stream auto: it returns why the
// sweep of spec (the points of shard sh, on workers workers, 0 for every
// core) should stream, or "" when it should hold its schedule. Held, a
// sweep keeps the schedule and a compiled copy per worker, each as large
// as the schedule times the largest extrapolate_factor; streamed, the
// schedule is spilled once per transformation and each simulation keeps
// its active window (sweep.Options.Stream). streamWhy decides, as for
// gopsim sim --stream auto.
func sweepStreams(spec *sweep.Spec, sh sweep.Shard, workers int) (string, error) {
	size, err := scheduleSize(spec.InputPath())
	if err != nil {
		return "", err
	}
	points, k := 0, 1
	for id := range spec.NumPoints() {
		if sh.Has(id) {
			points++
			k = max(k, spec.Point(id).Extrapolate)
		}
	}
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(min(workers, points), 1)
	prog := size.Bytes * int64(k)
	need := size.Bytes + int64(workers)*prog
	what := fmt.Sprintf("the schedule (%d ranks, %d ops)", size.Ranks, size.Ops)
	if size.Ops < 0 {
		what = fmt.Sprintf("the text schedule (%d MiB)", size.Bytes>>20)
	}
	if k > 1 {
		what += fmt.Sprintf(" extrapolated up to ×%d", k)
	}
	return streamWhy(size, need, what+fmt.Sprintf(" and a compiled copy for each of %d workers need", workers), prog, what+" needs, per worker,"), nil
}
