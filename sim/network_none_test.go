package sim

import (
	"slices"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/topology"
)

// TestNoneNetworkIsLogGOPS: with Options.Network set to a topology.None
// network (a fat tree large enough for every schedule), every row of
// LogGOPSim's conformance tables gives LogGOPSim's times, and the result
// is the plain run's, events included.
func TestNoneNetworkIsLogGOPS(t *testing.T) {
	rows := readConformance(t, "testdata/conformance/expected.csv")
	rows = append(rows, readConformance(t, "testdata/conformance/edge/expected.csv")...)
	if len(rows) < 90 {
		t.Fatalf("only %d conformance rows", len(rows))
	}
	g, err := topology.Generate("fattree:k=8,n=2") // 64 hosts
	if err != nil {
		t.Fatal(err)
	}
	sched := map[string]*goal.Schedule{}
	for _, c := range rows {
		t.Run(c.name, func(t *testing.T) {
			s := sched[c.file]
			if s == nil {
				s = loadText(t, c.file)
				sched[c.file] = s
			}
			plain, err := Run(s, Options{Params: c.p})
			if err != nil {
				t.Fatal(err)
			}
			m, err := topology.Linear(g, s.NumRanks, 1)
			if err != nil {
				t.Fatal(err)
			}
			net, err := topology.NewNetwork(g, m, topology.Options{Model: topology.None})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(s, Options{Params: c.p, Network: net})
			if err != nil {
				t.Fatal(err)
			}
			if len(c.perRank) > 0 && !c.orderSensitive && !slices.Equal(res.PerRank, c.perRank) {
				t.Errorf("per-rank times %v, LogGOPSim %v", res.PerRank, c.perRank)
			}
			if !slices.Equal(res.PerRank, plain.PerRank) || res.MaxTime != plain.MaxTime ||
				res.MaxRank != plain.MaxRank || res.Events != plain.Events {
				t.Errorf("None network: max %d at rank %d, %d events; plain run: max %d at rank %d, %d events",
					res.MaxTime, res.MaxRank, res.Events, plain.MaxTime, plain.MaxRank, plain.Events)
			}
			if net.Messages() != 0 {
				t.Errorf("the None network saw %d messages", net.Messages())
			}
		})
	}
}
