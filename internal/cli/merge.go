package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/placement"
)

// MergeOptions are the options of `gopsim merge`.
type MergeOptions struct {
	Jobs      []string // the jobs' schedules, text or binary
	Output    string   // the merged schedule: text if it ends in .goal, else binary
	Placement string   // packed (default), round-robin or random
	Seed      uint64   // random: the seed of the permutation
	Map       string   // if not "", the placement map is written there
}

func mergeFlags(o *MergeOptions) *flag.FlagSet {
	fs := flag.NewFlagSet("merge", flag.ContinueOnError)
	fs.StringVar(&o.Output, "o", "", "the merged schedule `FILE`: text if it ends in .goal, binary otherwise (required)")
	fs.StringVar(&o.Placement, "placement", "packed", "`POLICY`: packed (job after job), round-robin (one rank of each job in turn) or random (a seeded permutation)")
	fs.Uint64Var(&o.Seed, "seed", 0, "random placement: the `seed` (same seed, same placement)")
	fs.StringVar(&o.Map, "map", "", "write the placement map to `FILE`: one line per machine rank with its job and the rank in the job")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `Usage: gopsim merge -o OUT [--placement packed|round-robin|random] [--seed N] [--map FILE] A B ...

Places several GOAL schedules (text or binary) onto one machine as one
schedule, so that the interference between jobs can be studied: the jobs
run side by side from time 0 and never exchange messages.

  packed       job 0 gets ranks 0..P0-1, job 1 the next P1 ranks, and so on
  round-robin  one rank of each job in turn: job 0 rank 0, job 1 rank 0, ...,
               job 0 rank 1, ...; a job out of ranks is skipped
  random       a permutation of the packed slots drawn from --seed

Each machine rank gets its job rank's ops with the peers remapped through
the placement; tags, sizes, dependencies and labels are kept. Every rank
has the largest CPU and NIC counts of the jobs. The placement of each job
is printed on stderr (and as comments at the top of a text OUT); --map
writes it whole.

Flags:
`)
		fs.PrintDefaults()
	}
	return fs
}

// mergeArgs parses flags and job files in any order: Go's flag package
// stops at the first argument, and "merge A B -o OUT" is natural.
func mergeArgs(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (jobs []string, code int, ok bool) {
	for {
		if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
			return nil, code, false
		}
		args = fs.Args()
		for len(args) > 0 && !strings.HasPrefix(args[0], "-") {
			jobs = append(jobs, args[0])
			args = args[1:]
		}
		if len(args) == 0 {
			return jobs, ExitOK, true
		}
		if args[0] == "--" {
			return append(jobs, args[1:]...), ExitOK, true
		}
	}
}

func runMerge(args []string, stdout, stderr io.Writer) int {
	var o MergeOptions
	fs := mergeFlags(&o)
	jobs, code, ok := mergeArgs(fs, args, stdout, stderr)
	if !ok {
		return code
	}
	o.Jobs = jobs
	if len(o.Jobs) == 0 {
		fmt.Fprintln(stderr, "gopsim merge: expected the jobs' schedules A B ...")
		return ExitUsage
	}
	if o.Output == "" {
		fmt.Fprintln(stderr, "gopsim merge: expected -o OUT")
		return ExitUsage
	}
	if _, err := placement.ParsePolicy(o.Placement); err != nil {
		fmt.Fprintf(stderr, "gopsim merge: --placement: %v\n", err)
		return ExitUsage
	}
	if err := needsFlags(setFlags(fs), mergeNeeds(o.Placement)); err != nil {
		printErr(stderr, "merge", err)
		return ExitUsage
	}
	if err := checkScheduleOut("-o", o.Output); err != nil {
		printErr(stderr, "merge", err)
		return ExitUsage
	}
	if err := checkNotInput("-o", o.Output, o.Jobs...); err != nil {
		printErr(stderr, "merge", err)
		return ExitUsage
	}
	if err := checkNotInput("--map", o.Map, append([]string{o.Output}, o.Jobs...)...); err != nil {
		printErr(stderr, "merge", err)
		return ExitUsage
	}
	if err := Merge(o, stderr); err != nil {
		printErr(stderr, "merge", err)
		return ExitError
	}
	return ExitOK
}

// Merge reads o.Jobs, places them with o.Placement and writes the merged
// schedule to o.Output (and the map to o.Map); the placement goes to log.
func Merge(o MergeOptions, log io.Writer) error {
	policy, err := placement.ParsePolicy(o.Placement)
	if err != nil {
		return err
	}
	jobs := make([]*goal.Schedule, len(o.Jobs))
	sizes := make([]int, len(o.Jobs))
	for i, in := range o.Jobs {
		if jobs[i], _, err = goal.ReadFile(in); err != nil {
			return fmt.Errorf("job %d: %w", i, err)
		}
		sizes[i] = jobs[i].NumRanks
	}
	m, err := placement.Place(sizes, policy, o.Seed)
	if err != nil {
		return err
	}
	h := placement.MergedHeader(jobs, m)
	how := "--placement " + policy.String()
	if policy == placement.Random {
		how += fmt.Sprintf(" --seed %d", o.Seed)
	}
	comment := []string{fmt.Sprintf("gopsim merge %s: %d jobs on %d ranks, %d CPUs and %d NICs per rank", how, len(jobs), h.NumRanks, h.NumCPUs, h.NumNICs)}
	for i, in := range o.Jobs {
		comment = append(comment, fmt.Sprintf("job %d: %s, %d ranks (%d CPUs, %d NICs) on machine ranks %s", i, in, sizes[i], jobs[i].NumCPUs, jobs[i].NumNICs, m.Ranges(i, 0)))
	}
	ops, err := writeSchedule(o.Output, h, comment, func(write func(*goal.RankBlock) error) error {
		return placement.Merge(jobs, m, write)
	})
	if err != nil {
		return err
	}
	if o.Map != "" {
		err := atomicfile.Write(o.Map, func(w io.Writer) error {
			for _, c := range comment {
				if _, err := fmt.Fprintf(w, "# %s\n", c); err != nil {
					return err
				}
			}
			if _, err := fmt.Fprintln(w, "rank job job_rank"); err != nil {
				return err
			}
			for r := range m.NumRanks() {
				if _, err := fmt.Fprintf(w, "%d %d %d\n", r, m.Job[r], m.JobRank[r]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("writing %s: %w", o.Map, err)
		}
	}
	fmt.Fprintf(log, "merged %d jobs with %s into %s (%s): %d ranks, %d ops, %d CPUs and %d NICs per rank\n",
		len(jobs), how, o.Output, goal.FormatForPath(o.Output), h.NumRanks, ops, h.NumCPUs, h.NumNICs)
	for i, in := range o.Jobs {
		fmt.Fprintf(log, "  job %d: %s, %d ranks on machine ranks %s\n", i, in, sizes[i], m.Ranges(i, 200))
	}
	if o.Map != "" {
		fmt.Fprintf(log, "placement map: %s\n", o.Map)
	}
	return nil
}
