package validation

import (
	"errors"
	"fmt"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// ErrMismatch is returned (wrapped) by Compare when the measurements and
// the simulation do not describe the same ranks.
var ErrMismatch = errors.New("validation: measurements and simulation do not match")

// Options configure Run.
type Options struct {
	// Params are the model's parameters; there is no usable zero value:
	// start from sim.DefaultParams() or a parameter file.
	Params sim.Params
	// Convert are the options of the trace's conversion to a schedule.
	Convert trace.ConvertOptions
}

// Rank is one rank's measured and simulated times, in ns.
type Rank struct {
	Measured trace.RankTimes
	// Simulated is the engine's breakdown of the rank; Finish is its
	// simulated time.
	Simulated sim.Breakdown
}

// Ratio is the simulated time over the measured one (0 when nothing was
// measured).
func (r Rank) Ratio() float64 {
	m := r.Measured.Measured()
	if m <= 0 {
		return 0
	}
	return float64(r.Simulated.Finish) / float64(m)
}

// SimulatedComm is the simulated communication: the send and receive
// overheads.
func (r Rank) SimulatedComm() int64 { return r.Simulated.SendOverhead + r.Simulated.RecvOverhead }

// SimulatedMPI is the simulated time inside MPI: communication and
// waiting (and noise, which the plain model has none of).
func (r Rank) SimulatedMPI() int64 { return r.Simulated.Finish - r.Simulated.Calc }

// MeasuredCompute is the measured computation as the converter counts
// it: the time outside MPI calls and in the calls it takes for
// computation (trace.RankTimes.AsCompute: failed polls, datatype
// commits).
func (r Rank) MeasuredCompute() int64 { return r.Measured.Outside() + r.Measured.AsCompute }

// MeasuredMPI is the measured time inside the other MPI calls.
func (r Rank) MeasuredMPI() int64 { return r.Measured.InMPI - r.Measured.AsCompute }

// ComputeDiff is the simulated calc minus the measured computation.
func (r Rank) ComputeDiff() int64 { return r.Simulated.Calc - r.MeasuredCompute() }

// MPIDiff is the simulated time inside MPI minus the measured one.
func (r Rank) MPIDiff() int64 { return r.SimulatedMPI() - r.MeasuredMPI() }

// Result is a comparison of a traced run with its simulation.
type Result struct {
	Ranks []Rank
	// MeasuredNs is the largest measured time, at the lowest rank
	// MeasuredRank that has it; SimulatedNs and SimulatedRank the same for
	// the simulated times; Ratio is SimulatedNs / MeasuredNs.
	MeasuredNs, SimulatedNs     int64
	MeasuredRank, SimulatedRank int
	Ratio                       float64

	// Params are the parameters simulated (Run), NumOps the size of the
	// schedule and Stats the conversion's statistics (Run only).
	Params sim.Params
	NumOps int
	Stats  *trace.ConvertStats
}

// Compare pairs the measured times of each rank with a simulation of the
// same ranks, run with sim.Options.Breakdown.
func Compare(measured []trace.RankTimes, res *sim.Result) (*Result, error) {
	if res == nil || len(res.Breakdown) != len(res.PerRank) {
		return nil, fmt.Errorf("%w: the simulation has no per-rank breakdown (sim.Options.Breakdown)", ErrMismatch)
	}
	if len(measured) != len(res.PerRank) {
		return nil, fmt.Errorf("%w: %d ranks measured, %d simulated", ErrMismatch, len(measured), len(res.PerRank))
	}
	out := &Result{Ranks: make([]Rank, len(measured)), Params: res.Params, NumOps: res.NumOps, MeasuredRank: -1, SimulatedRank: -1}
	for r, m := range measured {
		if m.Measured() < 0 {
			return nil, fmt.Errorf("%w: rank %d: negative measured time %d ns", ErrMismatch, r, m.Measured())
		}
		out.Ranks[r] = Rank{Measured: m, Simulated: res.Breakdown[r]}
		if out.MeasuredRank < 0 || m.Measured() > out.MeasuredNs {
			out.MeasuredNs, out.MeasuredRank = m.Measured(), r
		}
		if s := res.Breakdown[r].Finish; out.SimulatedRank < 0 || s > out.SimulatedNs {
			out.SimulatedNs, out.SimulatedRank = s, r
		}
	}
	if out.MeasuredNs > 0 {
		out.Ratio = float64(out.SimulatedNs) / float64(out.MeasuredNs)
	}
	return out, nil
}

// Run measures every rank of src (trace.Measure), converts it into a
// schedule (trace.Convert), simulates the schedule under opt.Params with
// the per-rank breakdown and compares the two.
func Run(src trace.Source, opt Options) (*Result, error) {
	if err := opt.Params.Validate(); err != nil {
		return nil, err
	}
	measured, err := trace.Measure(src)
	if err != nil {
		return nil, err
	}
	s := goal.NewSchedule(src.NumRanks())
	st, err := trace.Convert(src, opt.Convert, s.AppendRank)
	if err != nil {
		return nil, err
	}
	res, err := simulate(s, opt.Params)
	if err != nil {
		return nil, fmt.Errorf("simulating the schedule converted from the trace: %w", err)
	}
	out, err := Compare(measured, res)
	if err != nil {
		return nil, err
	}
	out.Stats = st
	return out, nil
}

// simulate runs schedule s under params with the per-rank breakdown.
func simulate(s *goal.Schedule, params sim.Params) (*sim.Result, error) {
	p, err := sim.Compile(s)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Run(sim.Options{Params: params, Breakdown: true})
}
