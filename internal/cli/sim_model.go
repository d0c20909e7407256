package cli

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/gopsim/gopsim/sim"
)

// simModel holds the --model flag of `gopsim sim`.
type simModel struct {
	model sim.Model
	all   bool // --model all: one row per model
}

func (m *simModel) flags(fs *flag.FlagSet) {
	fs.Func("model", "the `model` to simulate: loggops (default, LogGOPSim's), loggp, logp, alphabeta, loggps, logfp, plogp, log3p, or all (one row per model for the same schedule); each model's own parameters come from --params (docs/models.md)", func(v string) error {
		if v == "all" {
			m.all = true
			return nil
		}
		x, err := sim.ParseModel(v)
		if err != nil {
			return fmt.Errorf("%w, or all", err)
		}
		m.model, m.all = x, false
		return nil
	})
}

// flagName is the --model value given.
func (m *simModel) flagName() string {
	if m.all {
		return "all"
	}
	return m.model.String()
}

// name is the model's name in results.
func (m *simModel) name() string { return m.model.String() }

// title is the model's name in the text result.
func (m *simModel) title() string { return m.model.Title() }

// params returns the parameters the model runs with (its defaults filled
// in), which results echo.
func (m *simModel) params(p sim.Params) sim.Params { return p.ModelParams(m.model) }

// checkAll refuses, under --model all, the flags of what a single run
// reports beyond its finishing times (o's outputs, --timing, --hottest):
// the one row per model has no room for them, so they would have no
// effect.
func (m *simModel) checkAll(o *SimOptions) error {
	if !m.all {
		return nil
	}
	var unused []string
	for _, f := range []struct {
		name string
		set  bool
	}{{"--breakdown", o.Outputs.breakdown}, {"--critical-path", o.Outputs.critical}, {"--timeline", o.Outputs.chrome != ""},
		{"--paraver", o.Outputs.paraver != ""}, {"--timeline-ranks", o.Outputs.ranks != ""}, {"--timeline-window", o.Outputs.window != ""},
		{"--timing", o.Timing}, {"--hottest", o.Network.given("hottest")}} {
		if f.set {
			unused = append(unused, f.name)
		}
	}
	if len(unused) == 0 {
		return nil
	}
	return fmt.Errorf("%s: --model all prints one row per model (its maximum and mean finishing times and events) and no more; run one --model for them", strings.Join(unused, ", "))
}

// options sets the model of a run.
func (m *simModel) options(opt *sim.Options) { opt.Model = m.model }

// modelRow is one model's result under --model all.
type modelRow struct {
	Model    string     `json:"model"`
	Params   sim.Params `json:"params"`
	MaxTime  int64      `json:"max_time_ns"`
	MaxRank  int        `json:"max_rank"`
	MeanTime float64    `json:"mean_time_ns"`
	// Ratio is MaxTime over LogGOPS's.
	Ratio    float64 `json:"ratio_to_loggops"`
	Events   uint64  `json:"events"`    // processed (sim.Result)
	QueueOps uint64  `json:"queue_ops"` // taken from the queues, retries included
}

// modelsReport is the JSON result of `gopsim sim --model all --json`.
type modelsReport struct {
	runInput
	ParamsFile string     `json:"params_file,omitempty"` // as in simReport
	Params     sim.Params `json:"params"`
	// GBandwidth is params' G_ns_per_byte as a bandwidth ("166.7 MB/s").
	GBandwidth string `json:"G_bandwidth"`
	// Noise and Network are what every model ran with, as in simReport
	// (noise.config; the network without what a run did on it).
	Noise   *modelsNoise   `json:"noise,omitempty"`
	Network *networkConfig `json:"network,omitempty"`
	Models  []modelRow     `json:"models"`
}

// modelsNoise is the "noise" part of modelsReport: simReport's settings.
type modelsNoise struct {
	Config *noiseConfigReport `json:"config"`
}

// runAll simulates p under every model with opt (its model, breakdown
// and record replaced) and writes one row per model after rep's head (the
// input, the parameter file, the noise and the network). Noise and the
// congestion network apply to every model alike.
func (m *simModel) runAll(p *sim.Program, opt sim.Options, asJSON bool, rep modelsReport, w io.Writer) error {
	in := rep.runInput
	rep.Params, rep.GBandwidth = opt.Params, sim.FormatBandwidth(opt.Params.GapPerByte)
	base := opt.Params
	opt.Breakdown, opt.Record, opt.Progress = false, false, nil
	for _, mod := range sim.Models() {
		opt.Model = mod
		res, err := p.Run(opt)
		if err != nil {
			return fmt.Errorf("%s: model %s: %w", in.Input, mod, err)
		}
		var sum float64
		for _, t := range res.PerRank {
			sum += float64(t)
		}
		row := modelRow{Model: mod.String(), Params: base.ModelParams(mod), MaxTime: res.MaxTime, MaxRank: res.MaxRank,
			MeanTime: sum / float64(max(len(res.PerRank), 1)), Events: res.Events, QueueOps: res.QueueOps}
		if len(rep.Models) > 0 && rep.Models[0].MaxTime > 0 {
			row.Ratio = float64(row.MaxTime) / float64(rep.Models[0].MaxTime)
		} else {
			row.Ratio = 1
		}
		rep.Models = append(rep.Models, row)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "schedule:   %s (%s, %d ranks, %d ops, %d CPU and %d NIC per rank)\n", in.Input, in.Format, p.NumRanks, p.NumOps(), p.NumCPUs, p.NumNICs)
	fmt.Fprintf(bw, "params:     %s\n", base.ModelParams(sim.LogGOPS)) // the model sections below
	if rep.Noise != nil {
		rep.Noise.Config.text(bw)
	}
	if rep.Network != nil {
		fmt.Fprintf(bw, "network:    %s\n", rep.Network.describe())
	}
	tw := tabwriter.NewWriter(bw, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "model\tmax_time_ns\tmax_rank\tmean_time_ns\tvs_loggops\tevents\tqueue_ops\t")
	for _, r := range rep.Models {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.3f\t%d\t%d\t\n", r.Model, r.MaxTime, r.MaxRank, r.MeanTime, r.Ratio, r.Events, r.QueueOps)
	}
	tw.Flush()
	for _, mod := range sim.Models() {
		mp := base.ModelParams(mod)
		var extra string
		switch mod {
		case sim.AlphaBeta:
			extra = fmt.Sprintf("alpha=%g ns, beta=%g ns/byte", mp.AlphaBeta.Alpha, mp.AlphaBeta.Beta)
		case sim.LogfP:
			extra = fmt.Sprintf("f=%d, o_burst=%g ns", mp.LogfP.F, mp.LogfP.OBurst)
			if mp.LogfP.ORecv != nil {
				extra += fmt.Sprintf(", o_recv=%g ns", *mp.LogfP.ORecv)
			}
		case sim.PLogP:
			extra = fmt.Sprintf("L=%g ns, %d table points (o_s, o_r, g by size)", mp.PLogP.L, len(mp.PLogP.Points))
		case sim.Log3P:
			extra = fmt.Sprintf("%d table points (pack, unpack by size and stride); non-contiguous sends are labelled strideD", len(mp.Log3P.Points))
		default:
			continue
		}
		fmt.Fprintf(bw, "%-11s %s\n", mod.String()+":", extra)
	}
	return bw.Flush()
}
