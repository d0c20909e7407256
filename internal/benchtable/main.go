// Command benchtable measures gopsim end to end on a set of generated
// schedules and writes the table into docs/performance.md between the
// markers <!-- benchtable:start --> and <!-- benchtable:end -->.
//
// For each row it runs `gopsim gen` (binary output) and then
// `gopsim sim --json FILE` as a child process -runs times, taking the wall
// time from the clock and the peak RSS from the child's rusage, and the
// event count from the JSON result; it reports the fastest run and the
// largest RSS, since on a shared machine other work only ever adds.
// `make bench` runs it after the Go benchmarks.
//
//	go run ./internal/benchtable -gopsim bin/gopsim -doc docs/performance.md [-max-ranks N] [-runs N]
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
}

type simResult struct {
	NumOps int64 `json:"num_ops"`
	Events int64 `json:"events"`
}

func main() {
	gopsim := flag.String("gopsim", "bin/gopsim", "gopsim binary")
	doc := flag.String("doc", "docs/performance.md", "document to update")
	maxRanks := flag.Int("max-ranks", 1<<20, "skip rows with more ranks")
	dir := flag.String("dir", "", "directory for the schedules (default: a temporary one)")
	runs := flag.Int("runs", 3, "runs of each simulation; the table shows the fastest")
	flag.Parse()
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
	fmt.Fprintf(&out, "(`go run ./internal/benchtable -runs %d`: `gopsim gen` (for the trace row, `gopsim extrapolate`) to a binary file (a text file for the GOAL text rows), then `gopsim sim --json FILE` as a\nchild process, %d times; the fastest wall clock and the largest peak RSS of the child).", *runs, *runs)
	if *maxRanks < 1<<20 {
		fmt.Fprintf(&out, " Rows above %d ranks were left out (-max-ranks).", *maxRanks)
	}
	fmt.Fprintf(&out, "\n\n")
	fmt.Fprintln(&out, "| schedule | ranks | ops | events | file bytes/op | wall | events/s | ns/event | peak RSS | RSS bytes/op | LogGOPSim wall | LogGOPSim RSS |")
	fmt.Fprintln(&out, "|---|---|---|---|---|---|---|---|---|---|---|---|")
	for _, r := range rows {
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
		for run := 0; run < max(*runs, 1); run++ {
			sim := exec.Command(*gopsim, "sim", "--json", file)
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
		label := fmt.Sprintf("%s -d %d", r.pattern, r.size)
		if r.label != "" {
			label = r.label
		}
		fmt.Fprintf(&out, "| %s | %s | %.2f M | %.2f M | %.3f | %.3f s | %.2f M | %.0f | %.0f MiB | %.1f | %s | %s |\n",
			label, thousands(r.ranks), float64(res.NumOps)/1e6, float64(res.Events)/1e6, float64(fi.Size())/float64(res.NumOps),
			wall, float64(res.Events)/wall/1e6, wall*1e9/float64(res.Events), rss/(1<<20), rss/float64(res.NumOps),
			ref(r.refWall, r.refWall/wall, "s", "faster"), ref(r.refRSS, r.refRSS/(rss/(1<<20)), "MiB", "less"))
		fmt.Fprintf(os.Stderr, "benchtable: %s %d ranks: %.3f s, %.0f MiB\n", r.pattern, r.ranks, wall, rss/(1<<20))
		os.Remove(file)
	}
	if err := replace(*doc, out.String()); err != nil {
		fail(err)
	}
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
