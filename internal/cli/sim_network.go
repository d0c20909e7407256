package cli

import (
	"flag"
	"io"

	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/topology"
)

// simNetwork holds the congestion-model flags of `gopsim sim`.
type simNetwork struct{}

func (n *simNetwork) flags(fs *flag.FlagSet) {}

// network builds the run's network, nil for LogGOPS's crossbar.
func (n *simNetwork) network(numRanks int) (*topology.Network, error) { return nil, nil }

// networkReport is the "network" part of the JSON result.
type networkReport struct{}

func (n *simNetwork) report(net *topology.Network, res *sim.Result) *networkReport { return nil }

func (r *networkReport) text(w io.Writer) {}
