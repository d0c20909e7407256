package sweep

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/sim"
)

// runRows runs spec and returns its rows as maps from column to value.
func runRows(t *testing.T, s *Spec) []map[string]string {
	t.Helper()
	if _, err := Run(context.Background(), s, Options{Sort: true, Workers: 2}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(s.OutputPath())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	head := strings.Split(lines[0], ",")
	var rows []map[string]string
	for _, l := range lines[1:] {
		m := map[string]string{}
		for i, v := range strings.Split(l, ",") {
			m[head[i]] = v
		}
		rows = append(rows, m)
	}
	return rows
}

// TestSweepStragglers: every rank a straggler (fraction 1) of factor f
// makes every piece of CPU work f times longer; in the ping-pong (calc
// 10,000 and 5,000 ns, 1024 bytes, L=2500 o=1500 g=1000 G=6) each
// message arrives o + L after its send starts whatever noise the send
// overhead absorbs (docs/model.md), then costs the receiver o + 1023·G:
// max time = f·(10,000 + 5,000 + 2·(1500 + 1023·6)) + 2·(1500 + 2500),
// and the noise is (f-1) times all CPU work, send overheads included.
func TestSweepStragglers(t *testing.T) {
	s := setup(t, "s.toml", `input = "pp.goal"
[noise]
straggler_fraction = 1
[grid]
straggler_factor = [1, 2, 3]
`)
	rows := runRows(t, s)
	if len(rows) != 3 {
		t.Fatalf("%d rows", len(rows))
	}
	for i, r := range rows {
		f := int64(i + 1)
		want := f*(10000+5000+2*(1500+1023*6)) + 2*(1500+2500)
		if got, _ := strconv.ParseInt(r["max_time_ns"], 10, 64); got != want {
			t.Errorf("straggler_factor %d: max_time_ns %d, want %d", f, got, want)
		}
		wantNoise := (f - 1) * (10000 + 5000 + 4*1500 + 2*1023*6)
		if got, _ := strconv.ParseInt(r["noise_ns"], 10, 64); got != wantNoise {
			t.Errorf("straggler_factor %d: noise_ns %d, want %d", f, got, wantNoise)
		}
		if r["straggler_fraction"] != "1" {
			t.Errorf("row %v: straggler_fraction not echoed", r)
		}
	}
}

// TestSweepNoiseMatchesSim: random detours swept over seeds give, row by
// row, what sim.Run gives with the same noise.Config, and different seeds
// differ (the seed reaches the model).
func TestSweepNoiseMatchesSim(t *testing.T) {
	s := setup(t, "n.toml", `input = "pp.goal"
[noise]
dist = "pareto"
alpha = 2.5
noise_interval_ns = 2000
noise_length_ns = 300
[grid]
noise_seed = [1, 2, 3, 4]
`)
	rows := runRows(t, s)
	sched, _, err := goal.ReadFile(s.InputPath())
	if err != nil {
		t.Fatal(err)
	}
	distinct := map[string]bool{}
	for _, r := range rows {
		seed, _ := strconv.ParseUint(r["noise_seed"], 10, 64)
		m, err := noise.New(noise.Config{Seed: seed, Dist: "pareto", Alpha: 2.5, MeanIntervalNs: 2000, MeanDurNs: 300}, 2)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(sched, sim.Options{Params: sim.DefaultParams(), Noise: m})
		if err != nil {
			t.Fatal(err)
		}
		if want := strconv.FormatInt(res.MaxTime, 10); r["max_time_ns"] != want {
			t.Errorf("seed %d: max_time_ns %s, sim.Run %s", seed, r["max_time_ns"], want)
		}
		if want := strconv.FormatInt(m.Absorbed(0)+m.Absorbed(1), 10); r["noise_ns"] != want {
			t.Errorf("seed %d: noise_ns %s, sim.Run %s", seed, r["noise_ns"], want)
		}
		distinct[r["max_time_ns"]] = true
	}
	if len(distinct) < 2 {
		t.Errorf("four seeds gave one max time: %v", rows)
	}
}

func TestSweepNoiseSpecErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ spec, want string }{
		{"[noise]\nbogus = 1\n", `noise: unknown key "bogus"`},
		{"[noise]\ndist = \"gauss\"\n", `expected "exp" or "pareto"`},
		{"[noise]\nalpha = 1\n", "Pareto shape above 1"},
		{"[noise]\ncosched = 1\n", "expected true or false"},
		{"[noise]\ntrace = \"missing.txt\"\n", "missing.txt"},
		{"[noise]\nstraggler_fraction = 2\n", "straggler_fraction: 2 outside 0..1"},
		{"[noise]\nL_ns = 2\n", `noise: unknown key "L_ns"`},
		{"noise = 3\n", "noise: expected a table"},
	} {
		path := filepath.Join(dir, "bad.toml")
		if err := os.WriteFile(path, []byte("input = \"x.goal\"\n"+tc.spec), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := ReadSpec(path)
		var se *SpecError
		if err == nil || !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "bad.toml:") {
			t.Errorf("spec %q: error %v, want a SpecError with %q", tc.spec, err, tc.want)
		}
	}
}

// TestOnProgress: the callback sees the points done rise by one per row,
// from those already in the CSV to all of the shard's.
func TestOnProgress(t *testing.T) {
	s := setup(t, "p.toml", "input = \"pp.goal\"\n[grid]\nL_ns = [1, 2, 3, 4, 5]\n")
	run := func() []int {
		var seen []int
		_, err := Run(context.Background(), s, Options{Workers: 2, OnProgress: func(done, total int) {
			if total != 5 {
				t.Errorf("total %d, want 5", total)
			}
			seen = append(seen, done)
		}})
		if err != nil {
			t.Fatal(err)
		}
		return seen
	}
	if got := run(); strings.Trim(strings.Join(strings.Fields(fmt.Sprint(got)), ","), "[]") != "0,1,2,3,4,5" {
		t.Errorf("first run: %v, want [0 1 2 3 4 5]", got)
	}
	if got := run(); len(got) != 1 || got[0] != 5 {
		t.Errorf("resumed run with every point done: %v, want [5]", got)
	}
}

// ringText is a ring of n ranks: each computes, sends 4 KiB to its right
// neighbour and receives from its left one.
func ringText(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "num_ranks %d\n", n)
	for r := 0; r < n; r++ {
		fmt.Fprintf(&b, "rank %d {\nc: calc %d\ns: send 4096b to %d tag 0\nr: recv 4096b from %d tag 0\ns requires c\n}\n", r, 1000*(r+1), (r+1)%n, (r+n-1)%n)
	}
	return b.String()
}

// TestSweepExtrapolate: extrapolate_factor K turns the 4-rank ring, whose
// grid is given as "4", into one ring of 4K ranks (the message that
// wrapped around now goes to the next copy), each copy keeping its calc
// times; it simulates exactly like that ring written by hand.
func TestSweepExtrapolate(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ring.goal"), []byte(ringText(4)), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := filepath.Join(dir, "x.toml")
	if err := os.WriteFile(spec, []byte("input = \"ring.goal\"\nextrapolate_grid = \"4\"\n[grid]\nextrapolate_factor = [1, 2, 3]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := ReadSpec(spec)
	if err != nil {
		t.Fatal(err)
	}
	rows := runRows(t, s)
	for i, r := range rows {
		k := i + 1
		// The reference: ranks r + 4j compute like rank r, and the ring
		// closes over all 4k ranks.
		var b strings.Builder
		n := 4 * k
		fmt.Fprintf(&b, "num_ranks %d\n", n)
		for q := 0; q < n; q++ {
			fmt.Fprintf(&b, "rank %d {\nc: calc %d\ns: send 4096b to %d tag 0\nr: recv 4096b from %d tag 0\ns requires c\n}\n", q, 1000*(q%4+1), (q+1)%n, (q+n-1)%n)
		}
		ref, _, err := goal.Read(strings.NewReader(b.String()), "ref.goal")
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(ref, sim.Options{Params: sim.DefaultParams()})
		if err != nil {
			t.Fatal(err)
		}
		if r["extrapolate_factor"] != strconv.Itoa(k) || r["max_time_ns"] != strconv.FormatInt(res.MaxTime, 10) || r["events"] != strconv.FormatUint(res.Events, 10) {
			t.Errorf("extrapolate_factor %d: row %v, the %d-rank ring gives max %d ns, %d events", k, r, n, res.MaxTime, res.Events)
		}
	}
}
