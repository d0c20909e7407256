package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gopsim/gopsim/bench"
	"github.com/gopsim/gopsim/sim"
)

// noisyTable is the CSV of a machine with the given ranges (split after
// 12288 bytes) whose round trips carry Gaussian noise of relative size
// rel, written with one decimal, as averaged or exported tables are.
func noisyTable(seed uint64, eager, rendezvous bench.Range, rel float64) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	b.WriteString(bench.TableHeaderPRTT + "\n")
	eachPRTT([]int64{1, 512, 1024, 2048, 4096, 8192, 12288, 12289, 16384, 32768, 65536, 131072}, 50, eager, rendezvous,
		func(n int, d float64, s int64, prtt float64) {
			fmt.Fprintf(&b, "%d,%.1f,%d,%.1f\n", n, d, s, prtt*(1+rel*rng.NormFloat64()))
		})
	return b.String()
}

// checkSimAccepts reads a parameter file that calibrate wrote as `gopsim
// sim --params` does (sim.ReadParamsFile), and simulates a ping-pong with
// it through the command line.
func checkSimAccepts(t *testing.T, params string) sim.Params {
	t.Helper()
	p, err := sim.ReadParamsFile(params, sim.DefaultParams())
	if err != nil {
		data, _ := os.ReadFile(params)
		t.Fatalf("sim refuses the file calibrate wrote: %v\n%s", err, data)
	}
	if len(p.Ranges) == 0 || p.Ranges[0].MinBytes != 0 || p.Ranges[len(p.Ranges)-1].MaxBytes != bench.MaxMessageBytes {
		t.Errorf("ranges %+v do not cover every size", p.Ranges)
	}
	in := writeFile(t, filepath.Dir(params), "pp.goal", pingpong)
	if code, _, errOut := run("sim", "--params", params, in); code != ExitOK {
		t.Errorf("gopsim sim --params %s: exit %d: %s", params, code, errOut)
	}
	return p
}

// pingPongOf reads fit.pingpong of a parameter file.
func pingPongOf(t *testing.T, params string) []bench.PingPongPoint {
	t.Helper()
	data, err := os.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Fit struct {
			PingPong []bench.PingPongPoint `json:"pingpong"`
		} `json:"fit"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	return f.Fit.PingPong
}

// TestCalibrateFilesSimAccepts runs every writer of parameter files, real
// measurements included, and reads each file as `gopsim sim --params`
// does: it must always be accepted, ranges and all.
func TestCalibrateFilesSimAccepts(t *testing.T) {
	// Over TCP loopback the sender's o exceeds half the round trip: L is
	// negative without constraints; the same shape, synthetic, with noise.
	loopbackLike := bench.Range{L: -1500, Overhead: 6000, Gap: 7000, GapPerByte: 0.05, OverheadPerByte: 0.02}
	tests := []struct {
		name string
		// write makes the parameter file in dir and returns its path.
		write func(t *testing.T, dir string) string
		// pingPong: every simulated round trip within 5 % of the
		// measured one (the measured ones are too noisy for that).
		pingPong bool
	}{
		{"calibrate fit, decimals, 0.5 % noise", func(t *testing.T, dir string) string {
			table := writeFile(t, dir, "prtt.csv", noisyTable(1, eagerRange, rendezvousRange, 0.005))
			params := filepath.Join(dir, "p.json")
			if code, _, errOut := run("calibrate", "fit", table, "-o", params, "--quantile", "0.5"); code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			return params
		}, true},
		{"calibrate fit, negative L unconstrained", func(t *testing.T, dir string) string {
			table := writeFile(t, dir, "prtt.csv", noisyTable(2, loopbackLike, loopbackLike, 0.002))
			params := filepath.Join(dir, "p.json")
			code, out, errOut := run("calibrate", "fit", table, "-o", params, "--max-ranges", "1", "--quantile", "0.5")
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			for _, want := range []string{"binding L >= 0", "unconstrained L=-1"} {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if !strings.Contains(errOut, "this measurement cannot be a network: fitted freely, L = -1") {
				t.Errorf("no plain warning about L < 0 on stderr:\n%s", errOut)
			}
			return params
		}, true},
		{"tcp over loopback", func(t *testing.T, dir string) string {
			t.Setenv("GOPSIM_CALIBRATE_HELPER", "1")
			o := CalibrateOptions{Backend: "tcp", Output: filepath.Join(dir, "p.json"), Table: filepath.Join(dir, "t.csv"),
				ServerCommand: []string{os.Args[0], "-test.run=^TestCalibrateHelperProcess$"},
				Config:        bench.Config{Sizes: []int64{1, 1024, 8192, 65536}, Reps: 20, Warmup: 5, N: 4}}
			var out, errOut bytes.Buffer
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := Calibrate(ctx, o, &out, &errOut); err != nil {
				t.Fatalf("%v\n%s", err, errOut.String())
			}
			return o.Output
		}, false},
		{"mpi backend under mpirun", func(t *testing.T, dir string) string {
			prog, mpirun := buildMPIProgram(t, "gopsim-prtt", 2)
			warm, _ := buildMPIProgram(t, "gopsim-warmup", 2)
			t.Setenv("OMPI_ALLOW_RUN_AS_ROOT", "1")
			t.Setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
			params := filepath.Join(dir, "p.json")
			code, _, errOut := run("calibrate", "--backend", "mpi", "--mpirun", mpirun, "--prtt-bin", prog, "--warmup-bin", warm, "--warmup-runs", "1",
				"--sizes", "1,64,256,1k,4k,16k,64k", "--reps", "10", "--warmup", "2", "--n", "4", "-o", params)
			if code != ExitOK {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			return params
		}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			params := tc.write(t, t.TempDir())
			p := checkSimAccepts(t, params)
			pp := pingPongOf(t, params)
			if len(pp) == 0 {
				t.Fatal("no fit.pingpong in the file")
			}
			for _, q := range pp {
				if !(q.MeasuredNs > 0 && q.SimulatedNs > 0) || math.Abs(q.Ratio-q.SimulatedNs/q.MeasuredNs) > 1e-3 {
					t.Errorf("ping-pong point %+v", q)
				}
				if tc.pingPong && math.Abs(q.Ratio-1) > 0.05 {
					t.Errorf("ping-pong at %d bytes: simulated/measured = %.3f, want within 5 %%", q.SizeBytes, q.Ratio)
				}
				// The file's simulation is the engine's on what sim read.
				if got, err := bench.SimulatePingPong(p, q.SizeBytes); err != nil || math.Abs(got-q.SimulatedNs) > 0.05 {
					t.Errorf("%d bytes: simulated again %v ns (%v), the file says %v ns", q.SizeBytes, got, err, q.SimulatedNs)
				}
			}
		})
	}
}
