package validation_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/liballprof"
	"github.com/gopsim/gopsim/validation"
)

func TestCompareErrors(t *testing.T) {
	two := []trace.RankTimes{{InitEnd: 0, FinalizeStart: 10}, {InitEnd: 0, FinalizeStart: 20}}
	bd := []sim.Breakdown{{Finish: 5, Calc: 5}, {Finish: 7, Calc: 7}}
	cases := []struct {
		name     string
		measured []trace.RankTimes
		res      *sim.Result
		want     string
	}{
		{"no result", two, nil, "no per-rank breakdown"},
		{"no breakdown", two, &sim.Result{PerRank: []int64{5, 7}}, "no per-rank breakdown"},
		{"ranks differ", two[:1], &sim.Result{PerRank: []int64{5, 7}, Breakdown: bd}, "1 ranks measured, 2 simulated"},
		{"negative time", []trace.RankTimes{{InitEnd: 0, FinalizeStart: 10}, {InitEnd: 30, FinalizeStart: 20}},
			&sim.Result{PerRank: []int64{5, 7}, Breakdown: bd}, "rank 1: negative measured time -10 ns"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := validation.Compare(tc.measured, tc.res)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, validation.ErrMismatch) {
				t.Fatalf("error %v, want ErrMismatch with %q", err, tc.want)
			}
		})
	}
}

// TestRunAgrees checks Run against its parts done by hand: the measured
// times are trace.Measure's, the simulated ones those of the schedule
// trace.Convert makes, and each rank's difference is the sum of the
// computation and MPI differences less the tracer's time.
func TestRunAgrees(t *testing.T) {
	for _, dir := range []string{"../trace/testdata/irregular", "../trace/liballprof/testdata/sweep3d-2x2"} {
		t.Run(dir, func(t *testing.T) {
			var src trace.Source
			var err error
			if strings.Contains(dir, "liballprof") {
				src, err = liballprof.Open(dir, liballprof.Options{})
			} else {
				src, err = trace.OpenDir(dir)
			}
			if err != nil {
				t.Fatal(err)
			}
			params := sim.DefaultParams()
			params.L = 5000
			res, err := validation.Run(src, validation.Options{Params: params, Convert: trace.ConvertOptions{ComputeScale: 0.5}})
			if err != nil {
				t.Fatal(err)
			}
			measured, err := trace.Measure(src)
			if err != nil {
				t.Fatal(err)
			}
			s := goal.NewSchedule(src.NumRanks())
			if _, err := trace.Convert(src, trace.ConvertOptions{ComputeScale: 0.5}, s.AppendRank); err != nil {
				t.Fatal(err)
			}
			p, err := sim.Compile(s)
			if err != nil {
				t.Fatal(err)
			}
			plain, err := p.Run(sim.Options{Params: params})
			if err != nil {
				t.Fatal(err)
			}
			if res.Params.L != 5000 || res.NumOps != len(s.Ops) || res.Stats == nil || res.Stats.Ops != int64(len(s.Ops)) {
				t.Errorf("params %v, %d ops, stats %+v; want L=5000 and %d ops", res.Params, res.NumOps, res.Stats, len(s.Ops))
			}
			if res.SimulatedNs != plain.MaxTime || res.SimulatedRank != plain.MaxRank {
				t.Errorf("simulated %d ns at rank %d, sim gives %d at rank %d", res.SimulatedNs, res.SimulatedRank, plain.MaxTime, plain.MaxRank)
			}
			var maxM int64
			for r, x := range res.Ranks {
				if x.Measured != measured[r] || x.Simulated.Finish != plain.PerRank[r] {
					t.Errorf("rank %d: %+v, want measured %+v and simulated %d", r, x, measured[r], plain.PerRank[r])
				}
				if got, want := x.Simulated.Finish-x.Measured.Measured(), x.ComputeDiff()+x.MPIDiff()-x.Measured.Tracer; got != want {
					t.Errorf("rank %d: simulated - measured = %d, parts sum to %d", r, got, want)
				}
				maxM = max(maxM, x.Measured.Measured())
			}
			if res.MeasuredNs != maxM || res.Ratio != float64(res.SimulatedNs)/float64(maxM) {
				t.Errorf("measured %d ns (max %d), ratio %v", res.MeasuredNs, maxM, res.Ratio)
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	d, err := trace.OpenDir("../trace/testdata/irregular")
	if err != nil {
		t.Fatal(err)
	}
	bad := sim.DefaultParams()
	bad.EagerLimit = -1
	if _, err := validation.Run(d, validation.Options{Params: bad}); err == nil {
		t.Error("negative S accepted")
	}
	if _, err := validation.Run(d, validation.Options{Params: sim.DefaultParams(), Convert: trace.ConvertOptions{ComputeScale: -1}}); err == nil {
		t.Error("negative compute scale accepted")
	}
}
