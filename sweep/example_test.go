package sweep_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sweep"
)

// A grid and a listed point, in TOML; the JSON form has the same keys.
func ExampleParseSpec() {
	spec := `
input = "pingpong.goal"
[params]
G_ns_per_byte = 1
[grid]
L_ns = {from = 1000, to = 4000, factor = 2}
compute_scale = [1, 0.5]
[[points]]
o_ns = 0
`
	s, err := sweep.ParseSpec([]byte(spec), "examples/whatif.toml")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(s.NumPoints(), "points, output", s.OutputPath())
	for id := range s.NumPoints() {
		p := s.Point(id)
		fmt.Println(id, sweep.Describe(&p))
	}
	_, err = sweep.ParseSpec([]byte("input = \"a.goal\"\n[grid]\nL_ns = {from = 1, to = 9, step = 0}\n"), "bad.toml")
	fmt.Println(err)
	// Output:
	// 7 points, output examples/whatif.csv
	// 0 compute_scale=1 L_ns=1000 o_ns=1500 g_ns=1000 G_ns_per_byte=1 O_ns_per_byte=0 S_bytes=65535
	// 1 compute_scale=1 L_ns=2000 o_ns=1500 g_ns=1000 G_ns_per_byte=1 O_ns_per_byte=0 S_bytes=65535
	// 2 compute_scale=1 L_ns=4000 o_ns=1500 g_ns=1000 G_ns_per_byte=1 O_ns_per_byte=0 S_bytes=65535
	// 3 compute_scale=0.5 L_ns=1000 o_ns=1500 g_ns=1000 G_ns_per_byte=1 O_ns_per_byte=0 S_bytes=65535
	// 4 compute_scale=0.5 L_ns=2000 o_ns=1500 g_ns=1000 G_ns_per_byte=1 O_ns_per_byte=0 S_bytes=65535
	// 5 compute_scale=0.5 L_ns=4000 o_ns=1500 g_ns=1000 G_ns_per_byte=1 O_ns_per_byte=0 S_bytes=65535
	// 6 compute_scale=1 L_ns=2500 o_ns=0 g_ns=1000 G_ns_per_byte=1 O_ns_per_byte=0 S_bytes=65535
	// bad.toml:3:34: grid: L_ns: step 0 does not lead from 1 to 9
}

// writeSpec writes a spec over examples/pingpong.goal into a new
// directory.
func writeSpec(text string) (string, error) {
	dir, err := os.MkdirTemp("", "sweep-example")
	if err != nil {
		return "", err
	}
	in, err := filepath.Abs("../examples/pingpong.goal")
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, "spec.json")
	return path, os.WriteFile(path, []byte(strings.ReplaceAll(text, "INPUT", in)), 0o644)
}

// Run appends a row per point as it finishes; Sort puts them in point
// order at the end.
func ExampleRun() {
	path, err := writeSpec(`{"input": "INPUT", "output": "pp.csv", "grid": {"compute_scale": [1, 2], "L_ns": [100, 1000]}}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(filepath.Dir(path))
	s, err := sweep.ReadSpec(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	sum, err := sweep.Run(context.Background(), s, sweep.Options{Sort: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Ran, "points run,", sum.Already, "already there")
	data, _ := os.ReadFile(s.OutputPath())
	fmt.Print(string(data))

	// Running again finds every point done.
	sum, _ = sweep.Run(context.Background(), s, sweep.Options{})
	fmt.Println(sum.Ran, "points run,", sum.Already, "already there")
	// Output:
	// 4 points run, 0 already there
	// point,compute_scale,extrapolate_factor,L_ns,o_ns,g_ns,G_ns_per_byte,O_ns_per_byte,S_bytes,noise_period_ns,noise_period_length_ns,noise_interval_ns,noise_length_ns,straggler_fraction,straggler_factor,noise_seed,max_time_ns,max_rank,events,noise_ns
	// 0,1,1,100,1500,1000,6,0,65535,0,0,0,0,0,1,0,33476,0,8,0
	// 1,1,1,1000,1500,1000,6,0,65535,0,0,0,0,0,1,0,35276,0,8,0
	// 2,2,1,100,1500,1000,6,0,65535,0,0,0,0,0,1,0,48476,0,8,0
	// 3,2,1,1000,1500,1000,6,0,65535,0,0,0,0,0,1,0,50276,0,8,0
	// 0 points run, 4 already there
}

// Shards run apart (on the nodes of a cluster) and merge into the file one
// run would have written.
func ExampleMerge() {
	path, err := writeSpec(`{"input": "INPUT", "output": "all.csv", "grid": {"L_ns": [100, 200, 300, 400, 500]}}`)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(filepath.Dir(path))
	s, _ := sweep.ReadSpec(path)
	var shards []string
	for i := range 2 {
		sum, err := sweep.Run(context.Background(), s, sweep.Options{Shard: sweep.Shard{Index: i, Count: 2}})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(filepath.Base(sum.Output), sum.Points, "points")
		shards = append(shards, sum.Output)
	}
	err = sweep.Merge(s, s.OutputPath(), shards[:1], sweep.MergeOptions{})
	fmt.Println(strings.TrimPrefix(err.Error(), "sweep: merge into "+s.OutputPath()+": "))
	if err := sweep.Merge(s, s.OutputPath(), shards, sweep.MergeOptions{}); err != nil {
		fmt.Println(err)
		return
	}
	data, _ := os.ReadFile(s.OutputPath())
	fmt.Print(string(data))
	// Output:
	// all-shard-0-of-2.csv 3 points
	// all-shard-1-of-2.csv 2 points
	// sweep: points missing: 2 of 5 points have no row: 1, 3
	// point,compute_scale,extrapolate_factor,L_ns,o_ns,g_ns,G_ns_per_byte,O_ns_per_byte,S_bytes,noise_period_ns,noise_period_length_ns,noise_interval_ns,noise_length_ns,straggler_fraction,straggler_factor,noise_seed,max_time_ns,max_rank,events,noise_ns
	// 0,1,1,100,1500,1000,6,0,65535,0,0,0,0,0,1,0,33476,0,8,0
	// 1,1,1,200,1500,1000,6,0,65535,0,0,0,0,0,1,0,33676,0,8,0
	// 2,1,1,300,1500,1000,6,0,65535,0,0,0,0,0,1,0,33876,0,8,0
	// 3,1,1,400,1500,1000,6,0,65535,0,0,0,0,0,1,0,34076,0,8,0
	// 4,1,1,500,1500,1000,6,0,65535,0,0,0,0,0,1,0,34276,0,8,0
}

func ExampleParseShard() {
	sh, err := sweep.ParseShard("2/4") // $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sh.Has(2), sh.Has(6), sh.Has(7), sweep.ShardOutput("runs/latency.csv", sh))
	_, err = sweep.ParseShard("4/4")
	fmt.Println(err)
	// Output:
	// true true false runs/latency-shard-2-of-4.csv
	// sweep: shard 4/4: expected I/N with N >= 1 and 0 <= I < N (shards count from 0, as in --array=0-3)
}

func ExampleScaleCompute() {
	s, _, _ := goal.Read(strings.NewReader("num_ranks 1\nrank 0 {\nl1: calc 1000\nl2: calc 3\n}\n"), "calc.goal")
	half, _ := sweep.ScaleCompute(s, 0.5)
	fmt.Println(half.Ops[0].Size, half.Ops[1].Size, s.Ops[0].Size)
	// Output: 500 2 1000
}

// Plot draws one line per value of Series; every other parameter is fixed
// by Where.
func ExamplePlot() {
	f, err := os.Open("testdata/sweep_latency.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer f.Close()
	var svg bytes.Buffer
	err = sweep.Plot(&svg, f, "sweep_latency.csv", sweep.PlotOptions{
		X: "L_ns", Series: "G_ns_per_byte", Where: map[string]string{"o_ns": "1500"}, LogX: true, Format: "svg"})
	fmt.Println(err, strings.Contains(svg.String(), "max_time_ns against L_ns by G_ns_per_byte"))
	// Output: <nil> true
}
