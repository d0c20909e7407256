package placement_test

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/pattern"
	"github.com/gopsim/gopsim/placement"
	"github.com/gopsim/gopsim/sim"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

func TestPlace(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
		p     placement.Policy
		want  [][]int32
	}{
		{"packed", []int{3, 2, 4}, placement.Packed, [][]int32{{0, 1, 2}, {3, 4}, {5, 6, 7, 8}}},
		{"round-robin", []int{3, 2, 4}, placement.RoundRobin, [][]int32{{0, 3, 6}, {1, 4}, {2, 5, 7, 8}}},
		{"round-robin equal", []int{2, 2}, placement.RoundRobin, [][]int32{{0, 2}, {1, 3}}},
		{"one job", []int{4}, placement.RoundRobin, [][]int32{{0, 1, 2, 3}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := placement.Place(tc.sizes, tc.p, 0)
			if err != nil {
				t.Fatal(err)
			}
			for i := range tc.want {
				if !slices.Equal(m.Slot[i], tc.want[i]) {
					t.Errorf("job %d: %v, want %v", i, m.Slot[i], tc.want[i])
				}
			}
			checkMap(t, m, tc.sizes)
		})
	}
}

// checkMap: Slot is a bijection onto the machine and Job/JobRank invert it.
func checkMap(t *testing.T, m *placement.Map, sizes []int) {
	t.Helper()
	total := 0
	for _, n := range sizes {
		total += n
	}
	if m.NumRanks() != total {
		t.Fatalf("%d machine ranks, want %d", m.NumRanks(), total)
	}
	seen := make([]bool, total)
	for i, slots := range m.Slot {
		if len(slots) != sizes[i] {
			t.Fatalf("job %d: %d slots", i, len(slots))
		}
		for k, s := range slots {
			if s < 0 || int(s) >= total || seen[s] {
				t.Fatalf("job %d rank %d: slot %d used twice or outside", i, k, s)
			}
			seen[s] = true
			if m.Job[s] != int32(i) || m.JobRank[s] != int32(k) {
				t.Fatalf("machine rank %d: job %d rank %d, want %d %d", s, m.Job[s], m.JobRank[s], i, k)
			}
		}
	}
}

// TestPlaceRandom: a permutation, the same for the same seed, another for
// another seed.
func TestPlaceRandom(t *testing.T) {
	sizes := []int{16, 8, 40}
	a, err := placement.Place(sizes, placement.Random, 7)
	if err != nil {
		t.Fatal(err)
	}
	checkMap(t, a, sizes)
	b, _ := placement.Place(sizes, placement.Random, 7)
	c, _ := placement.Place(sizes, placement.Random, 8)
	if !slices.Equal(a.Job, b.Job) || !slices.Equal(a.JobRank, b.JobRank) {
		t.Error("seed 7 gave two placements")
	}
	if slices.Equal(a.Job, c.Job) && slices.Equal(a.JobRank, c.JobRank) {
		t.Error("seeds 7 and 8 gave the same placement")
	}
	p, _ := placement.Place(sizes, placement.Packed, 0)
	if slices.Equal(a.Job, p.Job) {
		t.Error("random placement is the packed one")
	}
}

func TestPlaceErrors(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
		p     placement.Policy
		want  string
	}{
		{"no jobs", nil, placement.Packed, "no jobs"},
		{"empty job", []int{4, 0}, placement.Packed, "job 1 has 0 ranks"},
		{"too large", []int{1 << 30, 1 << 30}, placement.Packed, "more than the 2147483647"},
		{"policy", []int{2}, placement.Policy(9), "unknown policy"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := placement.Place(tc.sizes, tc.p, 0)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, placement.ErrPlacement) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
	for _, s := range []string{"packed", "round-robin", "random"} {
		if p, err := placement.ParsePolicy(s); err != nil || p.String() != s {
			t.Errorf("%s: %v %v", s, p, err)
		}
	}
	if _, err := placement.ParsePolicy("scatter"); err == nil || !strings.Contains(err.Error(), "expected packed, round-robin or random") {
		t.Errorf("scatter: %v", err)
	}
}

func generate(t *testing.T, name string, p pattern.Params) *goal.Schedule {
	t.Helper()
	g, err := pattern.New(name, p)
	if err != nil {
		t.Fatal(err)
	}
	s := goal.NewSchedule(g.NumRanks())
	if err := pattern.Write(g, s.AppendRank); err != nil {
		t.Fatal(err)
	}
	return s
}

func merged(t *testing.T, jobs []*goal.Schedule, m *placement.Map) *goal.Schedule {
	t.Helper()
	out := goal.NewSchedule(m.NumRanks())
	if err := placement.Merge(jobs, m, out.AppendRank); err != nil {
		t.Fatal(err)
	}
	h := placement.MergedHeader(jobs, m)
	out.NumCPUs, out.NumNICs = h.NumCPUs, h.NumNICs
	return out
}

// TestMergeAlone: LogGOPS without congestion has no interference between
// jobs, so under every placement each job's ranks finish at the times
// they have when the job runs alone.
func TestMergeAlone(t *testing.T) {
	jobs := []*goal.Schedule{
		generate(t, "halo2d", pattern.Params{Ranks: 16, Size: 4096, Iterations: 5, Compute: 20000, Periodic: true}),
		generate(t, "mpi_allreduce", pattern.Params{Ranks: 8, Size: 65536, Iterations: 3}),
		generate(t, "binomialtreebcast", pattern.Params{Ranks: 5, Size: 100000}),
	}
	alone := make([][]int64, len(jobs))
	for i, s := range jobs {
		res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
		if err != nil {
			t.Fatal(err)
		}
		alone[i] = res.PerRank
	}
	for _, p := range []placement.Policy{placement.Packed, placement.RoundRobin, placement.Random} {
		t.Run(p.String(), func(t *testing.T) {
			m, err := placement.Place([]int{16, 8, 5}, p, 42)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(merged(t, jobs, m), sim.Options{Params: sim.DefaultParams()})
			if err != nil {
				t.Fatal(err)
			}
			for i, slots := range m.Slot {
				for k, s := range slots {
					if res.PerRank[s] != alone[i][k] {
						t.Errorf("job %d rank %d (machine rank %d): %d ns, alone %d ns", i, k, s, res.PerRank[s], alone[i][k])
					}
				}
			}
		})
	}
}

const jobA = `num_ranks 2
rank 0 {
l1: send 8b to 1 tag 3
l2: calc 100 cpu 1
l2 requires l1
}
rank 1 {
l1: recv 8b from -1 tag 3
}
`

const jobB = `num_ranks 3
rank 0 {
x: send 16b to 2 tag 9 nic 1
}
rank 1 {
l1: calc 5
}
rank 2 {
y: recv 16b from 0 tag -1 nic 1
}
`

// TestMergeGolden: two small jobs merged round-robin, against
// testdata/merge_round_robin.goal (go test -update rewrites it): peers
// remapped, wildcards, tags, labels, CPUs and NICs kept.
func TestMergeGolden(t *testing.T) {
	var jobs []*goal.Schedule
	for i, text := range []string{jobA, jobB} {
		s, err := goal.ReadText(strings.NewReader(text), "job"+string(rune('A'+i)))
		if err != nil {
			t.Fatal(err)
		}
		jobs = append(jobs, s)
	}
	m, err := placement.Place([]int{2, 3}, placement.RoundRobin, 0)
	if err != nil {
		t.Fatal(err)
	}
	s := merged(t, jobs, m)
	if s.NumCPUs != 2 || s.NumNICs != 2 {
		t.Errorf("%d CPUs, %d NICs", s.NumCPUs, s.NumNICs)
	}
	var b strings.Builder
	if err := goal.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "merge_round_robin.goal")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != string(want) {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	if got := m.Ranges(1, 0); got != "1,3-4" {
		t.Errorf("job 1 ranges %q", got)
	}
}

func TestMergeErrors(t *testing.T) {
	s, _ := goal.ReadText(strings.NewReader(jobA), "a")
	m, _ := placement.Place([]int{2, 2}, placement.Packed, 0)
	if err := placement.Merge([]*goal.Schedule{s}, m, func(*goal.RankBlock) error { return nil }); err == nil || !strings.Contains(err.Error(), "1 schedules for a placement of 2 jobs") {
		t.Errorf("error %v", err)
	}
	m3, _ := placement.Place([]int{3}, placement.Packed, 0)
	if err := placement.Merge([]*goal.Schedule{s}, m3, func(*goal.RankBlock) error { return nil }); err == nil || !strings.Contains(err.Error(), "job 0 has 2 ranks, its placement 3") {
		t.Errorf("error %v", err)
	}
}
