package cli

import (
	"flag"
	"io"

	"github.com/gopsim/gopsim/sim"
)

// simOutputs holds the flags of `gopsim sim` for what it reports beyond
// finishing times: breakdown, critical path, timelines.
type simOutputs struct{}

func (s *simOutputs) flags(fs *flag.FlagSet) {}

// options asks the engine for what the outputs need.
func (s *simOutputs) options(opt *sim.Options) {}

type breakdownReport struct{}
type criticalPathReport struct{}

// simResults is what the outputs computed from a run.
type simResults struct{}

func (s *simOutputs) results(p *sim.Program, res *sim.Result) (*simResults, error) {
	return &simResults{}, nil
}

func (r *simResults) fill(rep *simReport) {}
func (r *simResults) text(w io.Writer)    {}
