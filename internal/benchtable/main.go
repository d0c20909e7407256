// Command benchtable measures gopsim end to end on a set of generated
// schedules and writes the table into docs/performance.md between the
// markers <!-- benchtable:start --> and <!-- benchtable:end -->.
//
// For each row it runs `gopsim gen` (binary output) and then
// `gopsim sim --json FILE` as a child process -runs times, taking the wall
// time from the clock and the peak RSS from the child's rusage, and the
// events processed and queue operations from the JSON result (events/s
// and ns/event are per event processed); it reports the fastest run and the
// largest RSS, since on a shared machine other work only ever adds.
// `make bench` runs it after the Go benchmarks.
//
// With -rows REGEXP it measures only the rows whose schedule column
// matches and keeps the other rows' lines from the table in the document
// (`make bench-apps` measures the application rows of issue 20 this way).
//
//	go run ./internal/benchtable -gopsim bin/gopsim -doc docs/performance.md [-max-ranks N] [-runs N] [-rows REGEXP]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/gopsim/gopsim/internal/atomicfile"
)

type row struct {
	pattern string
	ranks   int
	size    int
	// LogGOPSim's figures on this kind of machine (issue 4), 0 if none.
	refWall float64 // s
	refRSS  float64 // MiB
	// Optional: more gen flags, what the schedule column says instead of
	// "pattern -d size", and the environment of the simulation.
	gen   []string
	label string
	env   []string
	// make, when set, writes the schedule instead of gen: gopsim's
	// arguments, to which the output file is appended.
	make []string
	// text: the schedule is written and simulated in the GOAL text form
	// (as Schedgen writes it) instead of the binary one.
	text bool
	// sim: more `gopsim sim` flags; runs: how many runs (0: -runs).
	sim  []string
	runs int
}

var rows = []row{
	{pattern: "dissemination", ranks: 1024, size: 1024, refWall: 0, refRSS: 0},
	{pattern: "dissemination", ranks: 65536, size: 1024, refWall: 1.42, refRSS: 445},
	{pattern: "dissemination", ranks: 131072, size: 1024, refWall: 3.98, refRSS: 902},
	{pattern: "binomialtreebcast", ranks: 131072, size: 1024, refWall: 0.20, refRSS: 86},
	{pattern: "allreduce_recdoub", ranks: 131072, size: 1048576, refWall: 10.9, refRSS: 1761},
	{pattern: "allreduce_ring", ranks: 4096, size: 1048576, refWall: 0, refRSS: 0},
	{pattern: "linear_alltoall", ranks: 1024, size: 1024, refWall: 0, refRSS: 0},
	{pattern: "dissemination", ranks: 1048576, size: 1024, refWall: 0, refRSS: 0},
	{pattern: "allreduce_recdoub", ranks: 1048576, size: 1048576, refWall: 0, refRSS: 0},
	// From LogGOPSim's own input, a Schedgen text file (LogGOPSim's figures
	// are of its binary file, without the txt2bin it needs first).
	{pattern: "dissemination", ranks: 65536, size: 1024, refWall: 1.42, refRSS: 445, text: true,
		label: "dissemination -d 1024, GOAL text"},
	{pattern: "allreduce_recdoub", ranks: 131072, size: 1048576, refWall: 10.9, refRSS: 1761, text: true,
		label: "allreduce_recdoub -d 1048576, GOAL text"},
	// Larger than memory: 160.6 M ops, 7.3 GiB in memory; streamed
	// (--stream auto) within GOMEMLIMIT=4GiB.
	{pattern: "mpi_allreduce", ranks: 16384, size: 8, gen: []string{"--algo", "recdoub", "--iterations", "350"},
		label: "mpi_allreduce --algo recdoub -d 8 --iterations 350, GOMEMLIMIT=4GiB (streamed)", env: []string{"GOMEMLIMIT=4GiB"}},
	// From a trace: few events share a time, unlike the patterns above.
	{pattern: "sweep3d", ranks: 4096, make: []string{"extrapolate", "--factor", "1024", "trace/liballprof/testdata/sweep3d-2x2"},
		label: "sweep3d-2x2 liballprof trace, `gopsim extrapolate --factor 1024`"},
	{pattern: "sweep3d", ranks: 4096, make: []string{"extrapolate", "--factor", "1024", "trace/liballprof/testdata/sweep3d-2x2"},
		label: "sweep3d-2x2 liballprof trace ×1024, streamed (`--stream on`)", sim: []string{"--stream", "on"}},
	// Issue 20: a 4-rank LAMMPS trace extrapolated, with LogGOPSim's
	// figures from the issue (its binary file of the same schedule).
	lammps(256, 2.35, 263, false, nil),
	lammps(256, 2.35, 263, false, []string{"--stream", "on"}),
	lammps(256, 2.35, 263, true, nil),
	lammps(1024, 15.98, 1096, false, nil),
	lammps(1024, 15.98, 1096, false, []string{"--stream", "on"}),
	lammps(1024, 15.98, 1096, true, nil),
	lammps(4096, 0, 0, false, []string{"--stream", "on"}),
}

// lammps is the row of the 4-rank LAMMPS in.lj trace in testdata
// extrapolated ×k, LogGOPSim taking wall s and rss MiB, simulated from its
// GOAL text or binary form with the sim flags.
func lammps(k int, wall, rss float64, text bool, sim []string) row {
	label := fmt.Sprintf("LAMMPS in.lj 4-rank trace ×%d", k)
	switch {
	case text:
		label += ", GOAL text"
	case sim != nil:
		label += ", streamed (`" + strings.Join(sim, " ") + "`)"
	}
	runs := 0
	if k >= 4096 {
		runs = 1 // a minute a run
	}
	return row{pattern: "lammps", ranks: 4 * k, refWall: wall, refRSS: rss, text: text, sim: sim, runs: runs, label: label,
		make: []string{"extrapolate", "--factor", fmt.Sprint(k), "internal/benchtable/testdata/lammps-lj-4"}}
}

type simResult struct {
	NumOps   int64 `json:"num_ops"`
	Events   int64 `json:"events"`    // processed: op starts, message arrivals
	QueueOps int64 `json:"queue_ops"` // taken from the engine's queues, retries included
}

func main() {
	gopsim := flag.String("gopsim", "bin/gopsim", "gopsim binary")
	doc := flag.String("doc", "docs/performance.md", "document to update")
	maxRanks := flag.Int("max-ranks", 1<<20, "skip rows with more ranks")
	dir := flag.String("dir", "", "directory for the schedules (default: a temporary one)")
	runs := flag.Int("runs", 3, "runs of each simulation; the table shows the fastest")
	only := flag.String("rows", "", "measure only the rows whose schedule column matches this `regexp`, keeping the others' lines of the table in -doc")
	flag.Parse()
	var sel *regexp.Regexp
	if *only != "" {
		var err error
		if sel, err = regexp.Compile(*only); err != nil {
			fail(fmt.Errorf("-rows: %w", err))
		}
	}
	old, err := oldRows(*doc)
	if err != nil {
		fail(err)
	}
	if *dir == "" {
		d, err := os.MkdirTemp("", "gopsim-bench")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(d)
		*dir = d
	}
	var out strings.Builder
	fmt.Fprintf(&out, "Measured %s on %s (%d CPUs visible, %s/%s, %s) by `make bench`\n", time.Now().UTC().Format("2006-01-02"), cpuModel(), runtime.NumCPU(), runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Fprintf(&out, "(`go run ./internal/benchtable -runs %d`: `gopsim gen` (for the trace rows, `gopsim extrapolate`) to a binary file (a text file for the GOAL text rows), then `gopsim sim --json FILE` as a\nchild process, %d times (once for the 16,384-rank LAMMPS row); the fastest wall clock and the largest peak RSS of the child).", *runs, *runs)
	if *maxRanks < 1<<20 {
		fmt.Fprintf(&out, " Rows above %d ranks were left out (-max-ranks).", *maxRanks)
	}
	if sel != nil {
		fmt.Fprintf(&out, " Only the rows matching `%s` were measured then (`-rows`); the others are from the table before:\n%s", *only, old.header)
	}
	fmt.Fprintf(&out, "\n\n")
	fmt.Fprintln(&out, "| "+strings.Join(columns, " | ")+" |")
	fmt.Fprintln(&out, strings.Repeat("|---", len(columns))+"|")
	for _, r := range rows {
		if sel != nil && !sel.MatchString(r.name()) {
			if cells, ok := old.rows[r.key()]; ok {
				fmt.Fprintln(&out, relayout(cells, old.columns))
			}
			continue
		}
		if r.ranks > *maxRanks {
			continue
		}
		ext := ".bin"
		if r.text {
			ext = ".goal" // gen writes text for this extension
		}
		file := filepath.Join(*dir, fmt.Sprintf("%s_%d_%d%s", r.pattern, r.ranks, r.size, ext))
		gen := exec.Command(*gopsim, append([]string{"gen", "-p", r.pattern, "-s", fmt.Sprint(r.ranks), "-d", fmt.Sprint(r.size), "-o", file}, r.gen...)...)
		if r.make != nil {
			gen = exec.Command(*gopsim, append(slices.Clone(r.make), file)...)
		}
		if msg, err := gen.CombinedOutput(); err != nil {
			fail(fmt.Errorf("%v: %v\n%s", gen.Args, err, msg))
		}
		fi, err := os.Stat(file)
		if err != nil {
			fail(err)
		}
		var (
			res       simResult
			wall, rss float64
		)
		n := *runs
		if r.runs > 0 {
			n = min(n, r.runs)
		}
		for run := 0; run < max(n, 1); run++ {
			sim := exec.Command(*gopsim, append(append([]string{"sim", "--json"}, r.sim...), file)...)
			sim.Env = append(os.Environ(), r.env...)
			var stdout, stderr bytes.Buffer
			sim.Stdout, sim.Stderr = &stdout, &stderr
			start := time.Now()
			err = sim.Run()
			w := time.Since(start).Seconds()
			if err != nil {
				fail(fmt.Errorf("%v: %v\n%s", sim.Args, err, stderr.String()))
			}
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
				fail(fmt.Errorf("%v: %v", sim.Args, err))
			}
			if run == 0 || w < wall {
				wall = w
			}
			rss = max(rss, float64(sim.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)*1024) // bytes
		}
		ref := func(theirs, ratio float64, unit, better string) string {
			if theirs == 0 {
				return "–"
			}
			v := fmt.Sprintf("%.3g", theirs)
			if theirs >= 100 {
				v = fmt.Sprintf("%.0f", theirs)
			}
			return fmt.Sprintf("%s %s (%.1fx %s)", v, unit, ratio, better)
		}
		label := r.name()
		fmt.Fprintf(&out, "| %s | %s | %.2f M | %.2f M | %.2f M | %.3f | %.3f s | %.2f M | %.0f | %.0f MiB | %.1f | %s | %s |\n",
			label, thousands(r.ranks), float64(res.NumOps)/1e6, float64(res.Events)/1e6, float64(res.QueueOps)/1e6, float64(fi.Size())/float64(res.NumOps),
			wall, float64(res.Events)/wall/1e6, wall*1e9/float64(res.Events), rss/(1<<20), rss/float64(res.NumOps),
			ref(r.refWall, r.refWall/wall, "s", "faster"), ref(r.refRSS, r.refRSS/(rss/(1<<20)), "MiB", "less"))
		fmt.Fprintf(os.Stderr, "benchtable: %s %d ranks: %.3f s, %.0f MiB\n", r.pattern, r.ranks, wall, rss/(1<<20))
		os.Remove(file)
	}
	if err := replace(*doc, out.String()); err != nil {
		fail(err)
	}
}

// name is what the schedule column of row r says.
func (r row) name() string {
	if r.label != "" {
		return r.label
	}
	return fmt.Sprintf("%s -d %d", r.pattern, r.size)
}

// key tells row r's line in the table from the others: its schedule and
// ranks columns.
func (r row) key() string { return r.name() + " | " + thousands(r.ranks) }

// columns are the table's columns, in order.
var columns = []string{"schedule", "ranks", "ops", "events", "queue ops", "file bytes/op", "wall", "events/s", "ns/event", "peak RSS", "RSS bytes/op", "LogGOPSim wall", "LogGOPSim RSS"}

// previous is the table that doc has between the markers: the lines before
// its header row, its columns, and its rows' cells by their key.
type previous struct {
	header  string
	columns []string
	rows    map[string][]string
}

// relayout writes a row kept from a table with the columns old as a line
// of today's columns: a column the old table lacked is "–".
func relayout(cells, old []string) string {
	at := map[string]string{}
	for i, c := range old {
		if i < len(cells) {
			at[c] = cells[i]
		}
	}
	out := make([]string, len(columns))
	for i, c := range columns {
		v, ok := at[c]
		if !ok {
			v = "–"
		}
		out[i] = v
	}
	return "| " + strings.Join(out, " | ") + " |"
}

// tableCells splits a Markdown table line into its trimmed cells.
func tableCells(l string) []string {
	l = strings.TrimSpace(l)
	l = strings.TrimSuffix(strings.TrimPrefix(l, "|"), "|")
	cells := strings.Split(l, " | ")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

func oldRows(doc string) (previous, error) {
	b, err := os.ReadFile(doc)
	if err != nil {
		return previous{}, err
	}
	s := string(b)
	i, j := strings.Index(s, startMark), strings.Index(s, endMark)
	if i < 0 || j < i {
		return previous{}, fmt.Errorf("%s: no %s ... %s markers", doc, startMark, endMark)
	}
	prev := previous{rows: map[string][]string{}}
	var head []string
	for _, l := range strings.Split(strings.TrimSpace(s[i+len(startMark):j]), "\n") {
		cells := tableCells(l)
		switch {
		case !strings.HasPrefix(l, "|"):
			if len(prev.rows) == 0 && prev.columns == nil && strings.TrimSpace(l) != "" {
				if !strings.HasPrefix(l, ">") {
					l = "> " + l
				}
				head = append(head, l)
			}
		case cells[0] == "schedule":
			prev.columns = cells
		case len(cells) > 1 && !strings.HasPrefix(l, "|---"):
			prev.rows[cells[0]+" | "+cells[1]] = cells
		}
	}
	if prev.columns == nil {
		return previous{}, fmt.Errorf("%s: the table between %s and %s has no header row", doc, startMark, endMark)
	}
	prev.header = strings.Join(head, "\n") + "\n"
	return prev, nil
}

// thousands formats n with commas between groups of three digits.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			if i := strings.Index(l, ":"); i >= 0 {
				return strings.TrimSpace(l[i+1:])
			}
		}
	}
	return "unknown CPU"
}

const startMark, endMark = "<!-- benchtable:start -->", "<!-- benchtable:end -->"

// replace puts table between the markers of doc, atomically.
func replace(doc, table string) error {
	b, err := os.ReadFile(doc)
	if err != nil {
		return err
	}
	s := string(b)
	i, j := strings.Index(s, startMark), strings.Index(s, endMark)
	if i < 0 || j < i {
		return fmt.Errorf("%s: no %s ... %s markers", doc, startMark, endMark)
	}
	s = s[:i+len(startMark)] + "\n" + table + s[j:]
	return atomicfile.Write(doc, func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	})
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchtable:", err)
	os.Exit(1)
}
