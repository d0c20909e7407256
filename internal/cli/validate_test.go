package cli

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/validation"
)

var updateValidate = flag.Bool("update-validate", false, "rewrite testdata/validate_*")

// checkGolden compares got with testdata/name, which -update-validate
// rewrites.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if *updateValidate {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run TestValidateGolden -update-validate writes it)", err)
	}
	if got != string(want) {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestValidateGolden: the text form of the 4-rank trace in trace's
// testdata, and the JSON form of a liballprof sample with a parameter
// file and conversion flags. Both are the same at every run.
func TestValidateGolden(t *testing.T) {
	cases := []struct {
		golden string
		args   []string
	}{
		{"validate_irregular.txt", []string{"validate", "../../trace/testdata/irregular"}},
		{"validate_bcast.json", []string{"validate", "--json", "--params", "testdata/validate_params.json", "--coll-algo", "bcast=binomial",
			"--compute-scale", "0.5", "../../trace/liballprof/testdata/bcast-4"}},
	}
	for _, tc := range cases {
		t.Run(tc.golden, func(t *testing.T) {
			code, out, errOut := run(tc.args...)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			if !strings.Contains(errOut, "converted ../../trace/") || strings.Contains(out, "converted") {
				t.Errorf("the conversion's log belongs on stderr:\nstdout %s\nstderr %s", out, errOut)
			}
			if strings.Contains(tc.golden, "bcast") && !strings.Contains(errOut, "records the end of MPI_Init and the start of MPI_Finalize only") {
				t.Errorf("no note that liballprof has one end of MPI_Init and MPI_Finalize:\n%s", errOut)
			}
			checkGolden(t, tc.golden, out)
			_, again, _ := run(tc.args...)
			if again != out {
				t.Error("a second run gives another output")
			}
		})
	}
}

// TestValidateJSONKeys checks what another tool reads from --json: the
// input echoed with the MPI library it names, the slowest ranks, per rank.
func TestValidateJSONKeys(t *testing.T) {
	code, out, errOut := run("validate", "--json", "../../trace/testdata/irregular")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Input       string          `json:"input"`
		Library     string          `json:"library"`
		MeasuredNs  int64           `json:"measured_ns"`
		SimulatedNs int64           `json:"simulated_ns"`
		Ratio       float64         `json:"ratio"`
		Params      json.RawMessage `json:"params"`
		PerRank     struct {
			MeasuredNs  []int64   `json:"measured_ns"`
			SimulatedNs []int64   `json:"simulated_ns"`
			Ratio       []float64 `json:"ratio"`
		} `json:"per_rank"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Input != "../../trace/testdata/irregular" || !strings.HasPrefix(rep.Library, "Open MPI v4.1.4, package: ") || !strings.Contains(string(rep.Params), `"L_ns"`) ||
		len(rep.PerRank.MeasuredNs) != 4 || len(rep.PerRank.SimulatedNs) != 4 || len(rep.PerRank.Ratio) != 4 {
		t.Fatalf("report %+v", rep)
	}
	// The slowest rank of each, and their ratio.
	var m, s int64
	for r := range 4 {
		m, s = max(m, rep.PerRank.MeasuredNs[r]), max(s, rep.PerRank.SimulatedNs[r])
	}
	if rep.MeasuredNs != m || rep.SimulatedNs != s || rep.Ratio != float64(s)/float64(m) {
		t.Errorf("measured %d (max %d), simulated %d (max %d), ratio %v", rep.MeasuredNs, m, rep.SimulatedNs, s, rep.Ratio)
	}
}

func TestValidateErrors(t *testing.T) {
	dir := t.TempDir()
	// A copy of the 4-rank trace whose rank 2 was cut short.
	cut := filepath.Join(dir, "cut")
	if err := os.MkdirAll(cut, 0o755); err != nil {
		t.Fatal(err)
	}
	for r := range 4 {
		data, err := os.ReadFile(filepath.Join("../../trace/testdata/irregular", trace.FileName(r)))
		if err != nil {
			t.Fatal(err)
		}
		if r == 2 {
			data = data[:len(data)*2/3]
		}
		writeFile(t, cut, trace.FileName(r), string(data))
	}
	badParams := writeFile(t, dir, "bad.json", `{"L_ns": 1000, "Lns": 3}`)
	untimed := untimedTrace(t, filepath.Join(dir, "untimed"))
	cases := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no trace", []string{"validate"}, ExitUsage, "expected one TRACE, got 0 arguments"},
		{"two traces", []string{"validate", "a", "b"}, ExitUsage, "expected one TRACE, got 2 arguments"},
		{"unknown flag", []string{"validate", "--to", "tit", "x"}, ExitUsage, "flag provided but not defined: -to"},
		{"untimed --from", []string{"validate", "--from", "tit", "x"}, ExitUsage, `"tit": expected one of gopsim, liballprof, dumpi, otf2`},
		{"missing", []string{"validate", filepath.Join(dir, "nothing")}, ExitError, "nothing: no such file or directory"},
		{"TIT", []string{"validate", "../../trace/tit/testdata/simgrid-replay-examples/actions_bcast.txt"}, ExitError,
			"actions_bcast.txt: a SimGrid time-independent trace has no timestamps: validate needs a trace with timestamps"},
		{"Chakra", []string{"validate", "../../trace/chakra/testdata/chakra-feeder-test"}, ExitError,
			"chakra-feeder-test: a Chakra execution trace has durations but no timestamps"},
		{"schedule", []string{"validate", "../../examples/pingpong.goal"}, ExitError,
			"pingpong.goal: not a trace: a GOAL schedule (or an unknown file) has no measured times: validate needs a trace with timestamps"},
		{"--timemult on a gopsim trace", []string{"validate", "--timemult", "10", "../../trace/testdata/irregular"}, ExitUsage,
			"--timemult applies to liballprof traces; ../../trace/testdata/irregular is a gopsim trace"},
		{"bad parameter file", []string{"validate", "--params", badParams, "../../trace/testdata/irregular"}, ExitError, "bad.json"},
		{"cut rank file", []string{"validate", cut}, ExitError, filepath.Join(cut, trace.FileName(2))},
		{"no timestamps", []string{"validate", untimed}, ExitError,
			filepath.Join(untimed, trace.FileName(0)) + ": rank 0: trace: no timestamps: every one of its 3 records is at time 0: validate needs a trace with timestamps"},
		{"unsupported calls", []string{"validate", "../../trace/otf2/testdata/sstmacro-otf2-10"}, ExitError,
			"MPI_Iallgather without collective events"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := run(tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.want) || out != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and %q", code, out, errOut, tc.code, tc.want)
			}
		})
	}
}

func TestValidateHelp(t *testing.T) {
	code, out, _ := run("help", "validate")
	for _, want := range []string{"Usage: gopsim validate [flags] TRACE", "measured_ns", "end of MPI_Init", "-params file", "-coll-algo", "-json"} {
		if code != ExitOK || !strings.Contains(out, want) {
			t.Errorf("help validate (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
	if _, out, _ := run("help"); !strings.Contains(out, "validate") {
		t.Error("the command list lacks validate")
	}
}

// TestValidateMPI traces examples of examples/mpi on 2 ranks, validates
// the traces and checks the numbers against the raw records (read with
// trace.ReadFile) and against gopsim convert followed by gopsim sim.
func TestValidateMPI(t *testing.T) {
	root := tracerBuild(t)
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	mpirun := []string{"mpirun", "-np", "2"}
	if out, _ := exec.Command("mpirun", "--version").CombinedOutput(); strings.Contains(string(out), "Open MPI") {
		mpirun = append(mpirun, "--oversubscribe")
	}
	for _, prog := range [][]string{{"pingpong", "50", "4096"}, {"halo2d", "10", "64", "64"}, {"allreduce_loop", "20", "1000"}} {
		t.Run(prog[0], func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), prog[0])
			args := append([]string{"trace", "-o", dir, "--lib", filepath.Join(root, "bin", TracerLib), "--"}, mpirun...)
			args = append(append(args, filepath.Join(root, "bin", "examples", "mpi", prog[0])), prog[1:]...)
			if code, _, errOut := run(args...); code != ExitOK {
				t.Fatalf("gopsim trace: exit %d: %s", code, errOut)
			}
			checkValidateMPI(t, dir)
		})
	}
	// On 1 rank, irregular (which needs 2) calls MPI_Abort: no
	// MPI_Finalize to measure up to.
	t.Run("abort", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "irregular")
		one := append([]string{"mpirun", "-np", "1"}, mpirun[3:]...)
		args := append([]string{"trace", "-o", dir, "--lib", filepath.Join(root, "bin", TracerLib), "--"}, one...)
		args = append(args, filepath.Join(root, "bin", "examples", "mpi", "irregular"))
		run(args...) // fails: the program aborts
		code, _, errOut := run("validate", dir)
		if code != ExitError || !strings.Contains(errOut, "rank-00000") || !strings.Contains(errOut, "no MPI_Finalize record") {
			t.Errorf("exit %d: %s", code, errOut)
		}
	})
}

// validateJSON is what checkValidateMPI reads of validate --json.
type validateJSON struct {
	MeasuredNs  int64   `json:"measured_ns"`
	SimulatedNs int64   `json:"simulated_ns"`
	Ratio       float64 `json:"ratio"`
	PerRank     struct {
		MeasuredNs     []int64 `json:"measured_ns"`
		InitFinalizeNs []int64 `json:"init_finalize_ns"`
		SimulatedNs    []int64 `json:"simulated_ns"`
		ComputeNs      []int64 `json:"measured_compute_ns"`
		MPINs          []int64 `json:"measured_mpi_ns"`
		AsComputeNs    []int64 `json:"measured_mpi_as_compute_ns"`
		TracerNs       []int64 `json:"measured_tracer_ns"`
	} `json:"per_rank"`
}

func checkValidateMPI(t *testing.T, dir string) {
	t.Helper()
	code, out, errOut := run("validate", "--json", dir)
	if code != ExitOK {
		t.Fatalf("validate: exit %d: %s", code, errOut)
	}
	var v validateJSON
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	// The raw records: MPI_Init first, MPI_Finalize last (the tracer
	// writes them so), the calls in between one after the other.
	var maxM int64
	for r := range 2 {
		f, err := trace.ReadFile(filepath.Join(dir, trace.FileName(r)))
		if err != nil {
			t.Fatal(err)
		}
		init, fin := f.Calls[0], f.Calls[len(f.Calls)-1]
		var inMPI, flush int64
		for _, c := range f.Calls[1 : len(f.Calls)-1] {
			if c.Func == trace.FuncFlush {
				flush += c.End - c.Start
			} else {
				inMPI += c.End - c.Start
			}
		}
		p := &v.PerRank
		if init.Func != trace.FuncInit || fin.Func != trace.FuncFinalize || p.MeasuredNs[r] != fin.Start-init.End ||
			p.InitFinalizeNs[r] != fin.End-init.Start || p.MPINs[r]+p.AsComputeNs[r] != inMPI || p.TracerNs[r] != flush ||
			p.ComputeNs[r]-p.AsComputeNs[r] != fin.Start-init.End-inMPI-flush {
			t.Errorf("rank %d: measured %d, init-finalize %d, MPI %d+%d, tracer %d, computation %d; the records give %d, %d, %d, %d, %d",
				r, p.MeasuredNs[r], p.InitFinalizeNs[r], p.MPINs[r], p.AsComputeNs[r], p.TracerNs[r], p.ComputeNs[r],
				fin.Start-init.End, fin.End-init.Start, inMPI, flush, fin.Start-init.End-inMPI-flush)
		}
		maxM = max(maxM, fin.Start-init.End)
	}
	// The simulation: that of gopsim convert's schedule under gopsim sim.
	sched := filepath.Join(t.TempDir(), "s.bin")
	if code, _, errOut := run("convert", dir, sched); code != ExitOK {
		t.Fatalf("convert: exit %d: %s", code, errOut)
	}
	code, out, errOut = run("sim", "--json", sched)
	if code != ExitOK {
		t.Fatalf("sim: exit %d: %s", code, errOut)
	}
	var s struct {
		MaxTime int64   `json:"max_time_ns"`
		PerRank []int64 `json:"per_rank_ns"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	if v.MeasuredNs != maxM || v.SimulatedNs != s.MaxTime || v.Ratio != float64(s.MaxTime)/float64(maxM) ||
		v.PerRank.SimulatedNs[0] != s.PerRank[0] || v.PerRank.SimulatedNs[1] != s.PerRank[1] {
		t.Errorf("measured %d ns, simulated %d ns %v, ratio %v; want %d, %d %v", v.MeasuredNs, v.SimulatedNs, v.PerRank.SimulatedNs, v.Ratio, maxM, s.MaxTime, s.PerRank)
	}
}

// untimedTrace writes a one-rank trace whose records are all at time 0
// into dir and returns dir.
func untimedTrace(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := trace.NewWriter(&buf, trace.Header{Rank: 0, Size: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*trace.Comm{{ID: 0, Members: []int32{0}}, {ID: 1, Members: []int32{0}}} {
		if err := w.WriteComm(c); err != nil {
			t.Fatal(err)
		}
	}
	bar := trace.NewCall(trace.FuncBarrier, 0, 0)
	bar.Comm = 0
	for _, c := range []trace.Call{trace.NewCall(trace.FuncInit, 0, 0), bar, trace.NewCall(trace.FuncFinalize, 0, 0)} {
		if err := w.WriteCall(&c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(trace.EndFinalize); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, trace.FileName(0), buf.String())
	return dir
}

// TestValidateTextManyRanks: beyond 64 ranks the text form lists the 64
// with the longest measured times, in rank order.
func TestValidateTextManyRanks(t *testing.T) {
	const n = 70
	measured := make([]trace.RankTimes, n)
	res := &sim.Result{PerRank: make([]int64, n), Breakdown: make([]sim.Breakdown, n)}
	for r := range n {
		// Ranks 10..15 have the shortest measured times.
		m := int64(1000 + r)
		if r >= 10 && r < 16 {
			m = int64(r)
		}
		measured[r] = trace.RankTimes{FinalizeStart: m}
		res.PerRank[r], res.Breakdown[r] = 500, sim.Breakdown{Finish: 500, Calc: 500}
	}
	c, err := validation.Compare(measured, res)
	if err != nil {
		t.Fatal(err)
	}
	c.Stats = &trace.ConvertStats{}
	var b strings.Builder
	if err := newValidateReport(ValidateOptions{Input: "big"}, "gopsim", "", c).text(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "the 64 ranks with the longest measured times of 70 (--json has every rank)") {
		t.Errorf("no note of the ranks listed:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		for r := 10; r < 16; r++ {
			if strings.HasPrefix(line, fmt.Sprintf("%-6d ", r)) {
				t.Errorf("rank %d listed: %s", r, line)
			}
		}
	}
	if !strings.Contains(out, "\n69 ") || !strings.Contains(out, "slowest rank: measured 1069 ns (0.000001 s) at rank 69") {
		t.Errorf("rank 69 missing:\n%s", out)
	}
}

// TestCalibrateTraceValidate runs the whole chain a user runs on this
// machine with Open MPI: gopsim calibrate --backend mpi writes a parameter
// file, gopsim trace records a 2-rank ping-pong, and gopsim validate
// --params compares the run with its simulation under those parameters.
// How close they come is docs/accuracy.md's business (it is a
// measurement); here: the chain works, validate echoes the file and its
// parameters, and its simulated time is gopsim sim's on the converted
// trace with the same file, to the ns.
func TestCalibrateTraceValidate(t *testing.T) {
	prog, mpirunCmd := buildMPIProgram(t, "gopsim-prtt", 2)
	warm, _ := buildMPIProgram(t, "gopsim-warmup", 2)
	root := tracerBuild(t)
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
	t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
	dir := t.TempDir()
	params := filepath.Join(dir, "params.json")
	if code, _, errOut := run("calibrate", "--backend", "mpi", "--mpirun", mpirunCmd, "--prtt-bin", prog, "--warmup-bin", warm, "--warmup-runs", "1", "--quiet",
		"--sizes", "1,64,1k,4k,16k,64k", "--reps", "10", "--warmup", "2", "--n", "4", "-o", params); code != ExitOK {
		t.Fatalf("gopsim calibrate: exit %d: %s", code, errOut)
	}
	want, err := sim.ReadParamsFile(params, sim.DefaultParams())
	if err != nil {
		t.Fatalf("sim refuses the file calibrate wrote: %v", err)
	}

	tr := filepath.Join(dir, "pingpong")
	args := append([]string{"trace", "-o", tr, "--lib", filepath.Join(root, "bin", TracerLib), "--"}, strings.Fields(mpirunCmd)...)
	args = append(args, filepath.Join(root, "bin", "examples", "mpi", "pingpong"), "200", "4096")
	if code, _, errOut := run(args...); code != ExitOK {
		t.Fatalf("gopsim trace: exit %d: %s", code, errOut)
	}

	code, out, errOut := run("validate", "--json", "--params", params, tr)
	if code != ExitOK {
		t.Fatalf("gopsim validate --params: exit %d: %s", code, errOut)
	}
	var v struct {
		validateJSON
		ParamsFile string     `json:"params_file"`
		Params     sim.Params `json:"params"`
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	if v.ParamsFile != params || v.Params.String() != want.String() {
		t.Errorf("validate echoes %s: %s; the file holds %s", v.ParamsFile, v.Params, want)
	}
	if !(v.MeasuredNs > 0 && v.SimulatedNs > 0) || v.Ratio != float64(v.SimulatedNs)/float64(v.MeasuredNs) {
		t.Errorf("measured %d ns, simulated %d ns, ratio %v", v.MeasuredNs, v.SimulatedNs, v.Ratio)
	}

	// validate charges the file's library section; convert does with
	// --library-costs, and sim notes that it adds none itself.
	if want.Library == nil || !strings.Contains(errOut, "the library's one-time costs, charged as computation: ") {
		t.Errorf("no library costs charged: %+v\n%s", want.Library, errOut)
	}
	if got := convertSim(t, dir, params, tr, "--library-costs", params); got != v.SimulatedNs {
		t.Errorf("validate simulated %d ns, convert --library-costs + sim %d ns", v.SimulatedNs, got)
	}
	// extrapolate charges them as convert does: ×1 is validate's schedule.
	x1 := filepath.Join(dir, "pingpong-x1.bin")
	if code, _, errOut := run("extrapolate", "--factor", "1", "--library-costs", params, tr, x1); code != ExitOK {
		t.Fatalf("gopsim extrapolate --library-costs: exit %d: %s", code, errOut)
	} else if !strings.Contains(errOut, "the library's one-time costs, charged as computation: ") {
		t.Errorf("extrapolate --library-costs charged no library costs:\n%s", errOut)
	}
	if got := simMaxTime(t, params, x1); got != v.SimulatedNs {
		t.Errorf("validate simulated %d ns, extrapolate --factor 1 --library-costs + sim %d ns", v.SimulatedNs, got)
	}
	code, out, errOut = run("validate", "--json", "--params", params, "--library-costs", "none", tr)
	if code != ExitOK {
		t.Fatalf("gopsim validate --library-costs none: exit %d: %s", code, errOut)
	}
	var none validateJSON
	if err := json.Unmarshal([]byte(out), &none); err != nil {
		t.Fatal(err)
	}
	if got := convertSim(t, dir, params, tr); got != none.SimulatedNs || none.SimulatedNs >= v.SimulatedNs {
		t.Errorf("validate without library costs simulated %d ns, convert + sim %d ns, with them %d ns", none.SimulatedNs, got, v.SimulatedNs)
	}
	t.Logf("calibrated ping-pong of 4 KiB: measured %d ns, simulated %d ns, ratio %.3f", v.MeasuredNs, v.SimulatedNs, v.Ratio)
}

// convertSim converts trace tr with the convert flags given and simulates
// it with parameter file params, returning the simulated time.
func convertSim(t *testing.T, dir, params, tr string, flags ...string) int64 {
	t.Helper()
	bin := filepath.Join(dir, "pingpong.bin")
	if code, _, errOut := run(append(append([]string{"convert"}, flags...), tr, bin)...); code != ExitOK {
		t.Fatalf("gopsim convert %v: exit %d: %s", flags, code, errOut)
	}
	return simMaxTime(t, params, bin)
}

// simMaxTime simulates schedule bin with parameter file params and
// returns the simulated time; sim must note that it adds no library costs.
func simMaxTime(t *testing.T, params, bin string) int64 {
	t.Helper()
	code, out, errOut := run("sim", "--json", "--params", params, bin)
	if code != ExitOK {
		t.Fatalf("gopsim sim --params: exit %d: %s", code, errOut)
	}
	if !strings.Contains(errOut, "note: "+params+"'s \"library\" section") {
		t.Errorf("sim does not note the library section:\n%s", errOut)
	}
	var s struct {
		MaxTimeNs int64 `json:"max_time_ns"`
	}
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatal(err)
	}
	return s.MaxTimeNs
}
