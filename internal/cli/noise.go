package cli

import (
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/noise"
)

func noiseFlags(out *string, d, threshold *time.Duration) *flag.FlagSet {
	fs := flag.NewFlagSet("noise", flag.ContinueOnError)
	fs.StringVar(out, "o", "", "output noise trace `file` (LogGOPSim's format: start<TAB>duration in ns)")
	fs.DurationVar(d, "duration", 10*time.Second, "how long to measure, e.g. 30s")
	fs.DurationVar(threshold, "threshold", 0, "a clock step longer than this is a detour, > 0 (default: 10x the fastest step, at least 1µs)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim noise measure -o FILE [--duration D] [--threshold T]

Records this machine's operating-system noise with a selfish-detour loop: one
thread reads the clock back to back, and every step longer than the threshold
is a detour (the CPU was taken away). The trace, with its measurement echoed
in comments, feeds gopsim sim --noise-trace. Pin the process to a CPU
(taskset -c N) to measure one core.

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

func runNoise(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "measure" {
		fmt.Fprintln(stderr, "gopsim noise: expected the subcommand measure (gopsim help noise)")
		return ExitUsage
	}
	var out string
	var d, threshold time.Duration
	fs := noiseFlags(&out, &d, &threshold)
	if code, ok := parseFlags(fs, args[1:], stdout, stderr); !ok {
		return code
	}
	if out == "" || fs.NArg() != 0 {
		fmt.Fprintln(stderr, "gopsim noise measure: expected -o FILE and no arguments")
		return ExitUsage
	}
	if d <= 0 {
		fmt.Fprintf(stderr, "gopsim noise measure: --duration %v: want a duration > 0\n", d)
		return ExitUsage
	}
	// 0 is the default (10x the fastest step), not a threshold: given, it
	// would make every clock step a detour.
	if setFlags(fs)["threshold"] && threshold <= 0 {
		fmt.Fprintf(stderr, "gopsim noise measure: --threshold %v: want a duration > 0 (e.g. 2us): every clock step is longer than %v, so every step would be a detour; leave --threshold out for 10x the fastest step, at least 1µs\n", threshold, threshold)
		return ExitUsage
	}
	// The output's directory is checked before the measurement, which
	// would be lost.
	if err := checkOutputDir("-o", out); err != nil {
		fmt.Fprintf(stderr, "gopsim noise measure: %v\n", err)
		return ExitError
	}
	fmt.Fprintf(stderr, "gopsim noise measure: measuring for %v...\n", d)
	res, err := noise.Measure(d, threshold)
	if err != nil {
		printErr(stderr, "noise measure", err)
		return ExitError
	}
	summary := fmt.Sprintf("selfish detour: %v, %d iterations, fastest step %d ns, threshold %d ns, %d detours, longest step %d ns, noise %.4f%% of the time",
		res.Duration.Round(time.Millisecond), res.Iterations, res.MinStep.Nanoseconds(), res.Threshold.Nanoseconds(), res.NumDetours, res.LongestStep.Nanoseconds(), 100*res.NoiseFrac)
	err = atomicfile.Write(out, func(w io.Writer) error {
		return noise.WriteTrace(w, res.Trace, "gopsim noise measure --duration "+d.String(), summary, "start_ns\tduration_ns")
	})
	if err != nil {
		fmt.Fprintf(stderr, "gopsim noise measure: writing %s: %v\n", out, err)
		return ExitError
	}
	fmt.Fprintf(stdout, "%s: %s\n", out, summary)
	return ExitOK
}
