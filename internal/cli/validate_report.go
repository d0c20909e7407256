package cli

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/validation"
)

// validateReport is the result of `gopsim validate`, as JSON (--json) or
// text: the input and the parameters that produced it, the slowest ranks
// compared, and every rank's times.
type validateReport struct {
	Input  string `json:"input"`
	Format string `json:"format"`
	// Library is the MPI library the trace names (its
	// MPI_Get_library_version line), "" when it names none.
	Library    string                `json:"library"`
	NumRanks   int                   `json:"num_ranks"`
	Calls      int64                 `json:"mpi_call_records"`
	NumOps     int                   `json:"num_ops"`
	Model      string                `json:"model"`
	ParamsFile string                `json:"params_file"`
	Params     sim.Params            `json:"params"`
	Convert    validateConvertReport `json:"convert"`

	// The slowest rank of each: measured, simulated, and their ratio.
	MeasuredNs    int64   `json:"measured_ns"`
	MeasuredRank  int     `json:"measured_rank"`
	SimulatedNs   int64   `json:"simulated_ns"`
	SimulatedRank int     `json:"simulated_rank"`
	Ratio         float64 `json:"ratio"`

	PerRank validatePerRank `json:"per_rank"`
}

// validateConvertReport echoes the conversion's options.
type validateConvertReport struct {
	CollAlgo  map[string]string `json:"coll_algo"`  // by collective; absent: auto
	CollRules string            `json:"coll_rules"` // whose choice auto followed: openmpi or mpich
	// LibraryCostsNs is the time of the MPI library's one-time costs the
	// conversion charged (the --params file's library section), all ranks.
	LibraryCostsNs      int64   `json:"library_costs_ns"`
	ComputeScale        float64 `json:"compute_scale"`
	Unsupported         string  `json:"unsupported"` // "error" or "calc"
	ReduceCostNsPerByte float64 `json:"reduce_cost_ns_per_byte"`
	TimeMult            float64 `json:"liballprof_timemult,omitempty"`
	MPI                 string  `json:"liballprof_mpi,omitempty"`
}

// validatePerRank holds one array per quantity, indexed by rank.
type validatePerRank struct {
	MeasuredNs        []int64   `json:"measured_ns"`
	InitFinalizeNs    []int64   `json:"init_finalize_ns"`
	SimulatedNs       []int64   `json:"simulated_ns"`
	Ratio             []float64 `json:"ratio"`
	MeasuredComputeNs []int64   `json:"measured_compute_ns"`
	MeasuredMPINs     []int64   `json:"measured_mpi_ns"`
	MeasuredAsCompNs  []int64   `json:"measured_mpi_as_compute_ns"`
	MeasuredTracerNs  []int64   `json:"measured_tracer_ns"`
	MeasuredCalls     []int64   `json:"measured_mpi_calls"`
	SimulatedCalcNs   []int64   `json:"simulated_calc_ns"`
	SimulatedCommNs   []int64   `json:"simulated_comm_ns"`
	SimulatedWaitNs   []int64   `json:"simulated_wait_ns"`
	ComputeDiffNs     []int64   `json:"compute_diff_ns"`
	MPIDiffNs         []int64   `json:"mpi_diff_ns"`
	NoInit            []int     `json:"ranks_without_mpi_init"`
}

func newValidateReport(o ValidateOptions, from, lib string, res *validation.Result) *validateReport {
	rep := &validateReport{Input: o.Input, Format: from, Library: lib, NumRanks: len(res.Ranks), Calls: res.Stats.Calls, NumOps: res.NumOps,
		Model: "loggops", ParamsFile: o.ParamsFile, Params: res.Params,
		MeasuredNs: res.MeasuredNs, MeasuredRank: res.MeasuredRank, SimulatedNs: res.SimulatedNs,
		SimulatedRank: res.SimulatedRank, Ratio: res.Ratio}
	t := o.Convert.Trace
	c := validateConvertReport{CollAlgo: map[string]string{}, CollRules: res.Stats.CollRules, LibraryCostsNs: res.Stats.LibraryNs,
		ComputeScale: t.ComputeScale, Unsupported: t.Unsupported, ReduceCostNsPerByte: t.ReduceNsPerByte}
	if c.ComputeScale == 0 && !t.NoCompute {
		c.ComputeScale = 1 // options built without the flag
	}
	if c.Unsupported == "" {
		c.Unsupported = "error"
	}
	for op, a := range t.CollAlgo {
		c.CollAlgo[op.String()] = a
	}
	if from == "liballprof" {
		c.TimeMult, c.MPI = o.Convert.TimeMult, o.Convert.MPI
		if c.TimeMult == 0 {
			c.TimeMult = 1000
		}
	}
	rep.Convert = c
	p := &rep.PerRank
	p.NoInit = []int{}
	for r, x := range res.Ranks {
		m := x.Measured
		p.MeasuredNs = append(p.MeasuredNs, m.Measured())
		p.InitFinalizeNs = append(p.InitFinalizeNs, m.Whole())
		p.SimulatedNs = append(p.SimulatedNs, x.Simulated.Finish)
		p.Ratio = append(p.Ratio, x.Ratio())
		p.MeasuredComputeNs = append(p.MeasuredComputeNs, x.MeasuredCompute())
		p.MeasuredMPINs = append(p.MeasuredMPINs, x.MeasuredMPI())
		p.MeasuredAsCompNs = append(p.MeasuredAsCompNs, m.AsCompute)
		p.MeasuredTracerNs = append(p.MeasuredTracerNs, m.Tracer)
		p.MeasuredCalls = append(p.MeasuredCalls, m.Calls)
		p.SimulatedCalcNs = append(p.SimulatedCalcNs, x.Simulated.Calc)
		p.SimulatedCommNs = append(p.SimulatedCommNs, x.SimulatedComm())
		p.SimulatedWaitNs = append(p.SimulatedWaitNs, x.SimulatedMPI()-x.SimulatedComm())
		p.ComputeDiffNs = append(p.ComputeDiffNs, x.ComputeDiff())
		p.MPIDiffNs = append(p.MPIDiffNs, x.MPIDiff())
		if m.NoInit {
			p.NoInit = append(p.NoInit, r)
		}
	}
	return rep
}

// validateTextRanks is the most ranks the text form lists one by one;
// beyond it lists the slowest measured ones.
const validateTextRanks = 64

// text writes the report for people: the input and parameters, two
// per-rank tables and the comparison of the slowest ranks.
func (rep *validateReport) text(w io.Writer) error {
	b := &strings.Builder{}
	of := ""
	if rep.Library != "" {
		of = " of " + shortLibrary(rep.Library)
	}
	fmt.Fprintf(b, "trace:      %s (%s trace%s, %d ranks, %d MPI call records, %d ops)\n", rep.Input, rep.Format, of, rep.NumRanks, rep.Calls, rep.NumOps)
	params := "gopsim sim's defaults"
	if rep.ParamsFile != "" {
		params = rep.ParamsFile
	}
	fmt.Fprintf(b, "model:      LogGOPS, %s (%s)\n", rep.Params, params)
	fmt.Fprintf(b, "convert:    %s\n", rep.Convert.text())
	fmt.Fprintln(b, "measured:   from the end of MPI_Init to the start of MPI_Finalize; init_finalize: from the start of MPI_Init to the end of MPI_Finalize")
	ranks := rep.textRanks(b)
	p := &rep.PerRank
	fmt.Fprintf(b, "%-6s %14s %14s %8s %17s\n", "rank", "measured_ns", "simulated_ns", "ratio", "init_finalize_ns")
	for _, r := range ranks {
		fmt.Fprintf(b, "%-6d %14d %14d %8.3f %17d\n", r, p.MeasuredNs[r], p.SimulatedNs[r], p.Ratio[r], p.InitFinalizeNs[r])
	}
	fmt.Fprintln(b, "where they part, ns: computation (measured: outside MPI calls and in failed polls and datatype commits,")
	fmt.Fprintln(b, "as the converter counts it; simulated: calc), inside the other MPI calls (measured; simulated: communication")
	fmt.Fprintln(b, "o + (s-1)·O and waiting), the tracer's flushes (measured only)")
	fmt.Fprintf(b, "%-6s %14s %14s %14s %14s %14s %14s %14s %12s\n", "rank", "meas_comp_ns", "sim_calc_ns", "comp_diff_ns",
		"meas_mpi_ns", "sim_comm_ns", "sim_wait_ns", "mpi_diff_ns", "tracer_ns")
	for _, r := range ranks {
		fmt.Fprintf(b, "%-6d %14d %14d %14d %14d %14d %14d %14d %12d\n", r, p.MeasuredComputeNs[r], p.SimulatedCalcNs[r],
			p.ComputeDiffNs[r], p.MeasuredMPINs[r], p.SimulatedCommNs[r], p.SimulatedWaitNs[r], p.MPIDiffNs[r], p.MeasuredTracerNs[r])
	}
	fmt.Fprintf(b, "slowest rank: measured %d ns (%.6f s) at rank %d, simulated %d ns (%.6f s) at rank %d: simulated/measured %.3f\n",
		rep.MeasuredNs, float64(rep.MeasuredNs)/1e9, rep.MeasuredRank, rep.SimulatedNs, float64(rep.SimulatedNs)/1e9, rep.SimulatedRank, rep.Ratio)
	_, err := io.WriteString(w, b.String())
	return err
}

// textRanks returns the ranks the text form lists: all of them, or the
// slowest measured ones (noted in b).
func (rep *validateReport) textRanks(b *strings.Builder) []int {
	n := rep.NumRanks
	ranks := make([]int, n)
	for r := range ranks {
		ranks[r] = r
	}
	if n <= validateTextRanks {
		return ranks
	}
	m := rep.PerRank.MeasuredNs
	slices.SortStableFunc(ranks, func(a, b int) int {
		switch {
		case m[a] > m[b]:
			return -1
		case m[a] < m[b]:
			return 1
		}
		return 0
	})
	ranks = ranks[:validateTextRanks]
	slices.Sort(ranks)
	fmt.Fprintf(b, "the %d ranks with the longest measured times of %d (--json has every rank):\n", validateTextRanks, n)
	return ranks
}

func (c validateConvertReport) text() string {
	algos := "auto (" + c.CollRules + " rules)"
	if len(c.CollAlgo) > 0 {
		var parts []string
		for _, op := range slices.Sorted(maps.Keys(c.CollAlgo)) {
			parts = append(parts, op+"="+c.CollAlgo[op])
		}
		algos = strings.Join(parts, ",") + ", others auto (" + c.CollRules + " rules)"
	}
	s := fmt.Sprintf("collectives %s, compute scale %g, reduce cost %g ns/byte, unsupported calls: %s, library one-time costs %s",
		algos, c.ComputeScale, c.ReduceCostNsPerByte, c.Unsupported, libraryCostsText(c.LibraryCostsNs))
	if c.TimeMult != 0 {
		s += fmt.Sprintf(", liballprof µs × %g", c.TimeMult)
		if c.MPI != "" {
			s += ", " + c.MPI + "'s constants"
		}
	}
	return s
}

// libraryCostsText says what the library's one-time costs added.
func libraryCostsText(ns int64) string {
	if ns == 0 {
		return "none"
	}
	return sim.FormatDuration(float64(ns)) + " in all"
}
