package bench

import (
	"fmt"
	"slices"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// pingPongIterations is the number of round trips of the simulated
// ping-pong: more than one, so that a gap g + (s-1)G longer than a round
// trip, which delays the next send, shows.
const pingPongIterations = 10

// PingPongPoint compares, at one measured size, the round trip of a
// ping-pong simulated with the fitted parameters (sim.Run on a GOAL
// schedule of pingPongIterations round trips between two ranks, divided
// by their number) with the measured PRTT(1,0,s) (the fit's quantile).
type PingPongPoint struct {
	SizeBytes   int64   `json:"s_bytes"`
	MeasuredNs  float64 `json:"measured_rtt_ns"`
	SimulatedNs float64 `json:"simulated_rtt_ns"`
	Ratio       float64 `json:"ratio"` // simulated / measured
	// Probe marks a size that LocateS measured after the sweep, with
	// PRTT(1,0,s) rounds alone, to place S; the parameters come from the
	// sweep, so a probe's ratio also shows how far the machine drifted
	// between the two.
	Probe bool `json:"probe,omitempty"`
}

// twoRanks is a schedule of two ranks, each built by rank (peer: the
// other rank).
func twoRanks(rank func(b *goal.Builder, peer int32)) (*goal.Schedule, error) {
	sch := goal.NewSchedule(2)
	var b goal.Builder
	for r := range int32(2) {
		b.Reset(r)
		rank(&b, 1-r)
		if err := sch.AppendRank(b.Block()); err != nil {
			return nil, err
		}
	}
	return sch, nil
}

// pingPongSchedule is a ping-pong of n round trips of s bytes: rank 0
// sends and then receives, rank 1 receives and then sends.
func pingPongSchedule(s int64, n int) (*goal.Schedule, error) {
	return twoRanks(func(b *goal.Builder, peer int32) {
		prev := int32(-1)
		for range n {
			var first, second int32
			if peer == 1 {
				first, second = b.Send(uint64(s), peer, 0, 0, 0), b.Recv(uint64(s), peer, 0, 0, 0)
			} else {
				first, second = b.Recv(uint64(s), peer, 0, 0, 0), b.Send(uint64(s), peer, 0, 0, 0)
			}
			b.Requires(second, first)
			if prev >= 0 {
				b.Requires(first, prev)
			}
			prev = second
		}
	})
}

// SimulatePingPong returns the mean round trip, in ns, of a ping-pong of
// s-byte messages between two ranks simulated with p (sim.Run, LogGOPS):
// rank 0 sends, rank 1 replies, pingPongIterations times.
func SimulatePingPong(p sim.Params, s int64) (float64, error) {
	sch, err := pingPongSchedule(s, pingPongIterations)
	if err != nil {
		return 0, fmt.Errorf("bench: ping-pong schedule: %w", err)
	}
	res, err := sim.Run(sch, sim.Options{Params: p})
	if err != nil {
		return 0, fmt.Errorf("bench: simulating a ping-pong of %d bytes: %w", s, err)
	}
	return float64(res.PerRank[0]) / pingPongIterations, nil
}

// pingPong simulates the ping-pong at every measured size with pf's
// parameters (as `gopsim sim --params` reads them) and compares it with
// the measured round trip.
func pingPong(pf *ParamFile, pts, probes []point) ([]PingPongPoint, error) {
	p := pf.SimParams()
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("bench: the fitted parameters are not simulable: %w", err)
	}
	out := make([]PingPongPoint, 0, len(pts))
	for _, q := range pts {
		got, err := SimulatePingPong(p, q.size)
		if err != nil {
			return nil, err
		}
		out = append(out, PingPongPoint{SizeBytes: q.size, MeasuredNs: round(q.p1.Q, 1), SimulatedNs: round(got, 1),
			Ratio: round(got/q.p1.Q, 4), Probe: slices.ContainsFunc(probes, func(p point) bool { return p.size == q.size })})
	}
	return out, nil
}

// ExchangePoint compares, at one size with exchange rounds, an exchange
// simulated with the fitted parameters (SimulateExchange) with the
// measured one, (X(n,s) - X(1,s))/(n-1) at the fit's statistic.
type ExchangePoint struct {
	SizeBytes   int64   `json:"s_bytes"`
	MeasuredNs  float64 `json:"measured_ns"`
	SimulatedNs float64 `json:"simulated_ns"`
	Ratio       float64 `json:"ratio"` // simulated / measured
}

// exchangeSchedule is n exchanges of s bytes between two ranks: each
// rank sends to the other and receives from it, and the next exchange
// starts when both are done (MPI_Sendrecv).
func exchangeSchedule(s int64, n int) (*goal.Schedule, error) {
	return twoRanks(func(b *goal.Builder, peer int32) {
		var send, recv int32
		for i := range n {
			ps, pr := send, recv
			send, recv = b.Send(uint64(s), peer, 0, 0, 0), b.Recv(uint64(s), peer, 0, 0, 0)
			if i > 0 {
				b.Requires(send, ps)
				b.Requires(send, pr)
				b.Requires(recv, ps)
				b.Requires(recv, pr)
			}
		}
	})
}

// SimulateExchange returns the time, in ns, of an exchange of s-byte
// messages between two ranks simulated with p (sim.Run, LogGOPS): both
// send to each other and receive, and the next exchange starts when both
// are done. As the measurement does, it takes the slope between one
// exchange and pingPongIterations+1 in a row, so that the last exchange,
// which no next send waits for (a gap g + (s-1)G longer than the CPUs'
// part ends after it), counts as the others.
func SimulateExchange(p sim.Params, s int64) (float64, error) {
	var t [2]float64
	for i, n := range []int{1, pingPongIterations + 1} {
		sch, err := exchangeSchedule(s, n)
		if err != nil {
			return 0, fmt.Errorf("bench: exchange schedule: %w", err)
		}
		res, err := sim.Run(sch, sim.Options{Params: p})
		if err != nil {
			return 0, fmt.Errorf("bench: simulating an exchange of %d bytes: %w", s, err)
		}
		t[i] = float64(max(res.PerRank[0], res.PerRank[1]))
	}
	return (t[1] - t[0]) / pingPongIterations, nil
}

// exchanges simulates an exchange at every size of pts with exchange
// rounds, with pf's parameters, and compares it with the measured one.
func exchanges(pf *ParamFile, pts []point) ([]ExchangePoint, error) {
	p := pf.SimParams()
	var out []ExchangePoint
	for _, q := range pts {
		if !q.has[sExch] {
			continue
		}
		got, err := SimulateExchange(p, q.size)
		if err != nil {
			return nil, err
		}
		out = append(out, ExchangePoint{SizeBytes: q.size, MeasuredNs: round(q.y[sExch], 1), SimulatedNs: round(got, 1),
			Ratio: round(got/q.y[sExch], 4)})
	}
	return out, nil
}
