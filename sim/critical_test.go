package sim_test

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/topology"
)

// formatPath prints a critical path as the golden files in
// testdata/critical hold it: a summary line, then one line per step.
func formatPath(p *sim.Program, path *sim.Path) string {
	var b strings.Builder
	c := path.Classes
	fmt.Fprintf(&b, "length %d ns at rank %d: calc %d, overhead %d, latency %d, bandwidth %d, wait %d, noise %d\n",
		path.Length, path.Rank, c.Calc, c.Overhead, c.Latency, c.Bandwidth, c.Wait, c.Noise)
	for _, st := range path.Steps {
		fmt.Fprintf(&b, "[%d, %d] %s rank %d op %d (%s)", st.Start, st.End, st.Kind, st.Rank, st.Index, st.Label)
		switch st.Kind {
		case sim.StepSend, sim.StepMessage:
			fmt.Fprintf(&b, " %d bytes to %d", st.Bytes, st.Peer)
		case sim.StepRecv:
			fmt.Fprintf(&b, " %d bytes from %d", st.Bytes, st.Peer)
		}
		fmt.Fprintf(&b, ": %s", st.What)
		for _, f := range []struct {
			name string
			v    int64
		}{{"calc", st.Calc}, {"overhead", st.Overhead}, {"latency", st.Latency}, {"bandwidth", st.Bandwidth}, {"wait", st.Wait}, {"noise", st.Noise}} {
			if f.v != 0 {
				fmt.Fprintf(&b, "; %s %d", f.name, f.v)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// checkPath checks what every critical path must satisfy: its steps tile
// [0, Length] in order, each step's classes sum to its length, the
// path's classes are the steps' sums, and nothing is left unexplained.
func checkPath(t *testing.T, name string, res *sim.Result, path *sim.Path) {
	t.Helper()
	if path.Length != res.MaxTime || path.Rank != res.MaxRank {
		t.Errorf("%s: path length %d at rank %d, run max %d at rank %d", name, path.Length, path.Rank, res.MaxTime, res.MaxRank)
	}
	if got := path.Classes.Sum(); got != path.Length {
		t.Errorf("%s: classes sum to %d, length %d", name, got, path.Length)
	}
	at := int64(0)
	var sum sim.Classes
	for i, st := range path.Steps {
		if st.Start != at {
			t.Errorf("%s: step %d starts at %d, previous ended at %d", name, i, st.Start, at)
		}
		if st.End < st.Start || st.Classes.Sum() != st.End-st.Start {
			t.Errorf("%s: step %d [%d, %d] has classes summing to %d", name, i, st.Start, st.End, st.Classes.Sum())
		}
		if strings.Contains(st.What, "unexplained") {
			t.Errorf("%s: step %d: %s", name, i, st.What)
		}
		at = st.End
		sum.Calc += st.Calc
		sum.Overhead += st.Overhead
		sum.Latency += st.Latency
		sum.Bandwidth += st.Bandwidth
		sum.Wait += st.Wait
		sum.Noise += st.Noise
	}
	if at != path.Length {
		t.Errorf("%s: steps end at %d, length %d", name, at, path.Length)
	}
	if sum != path.Classes {
		t.Errorf("%s: path classes %+v, steps sum to %+v", name, path.Classes, sum)
	}
}

// TestCriticalPath runs the hand-computed cases in testdata/critical:
//
//	critical [L=..] [o=..] [g=..] [G=..] [O=..] [S=..] [stragglers=R,R] [factor=F]
//	<GOAL text>
//	----
//	<the critical path, as formatPath prints it>
//
// Each file explains its expectations in comments. Rewrite them with
// -rewrite only after checking them by hand.
func TestCriticalPath(t *testing.T) {
	datadriven.Walk(t, "testdata/critical", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "critical" {
				t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			}
			p := sim.DefaultParams()
			var stragglers []int32
			factor := 1.0
			for _, a := range d.CmdArgs {
				if a.Key == "stragglers" {
					for _, v := range a.Vals {
						r, err := strconv.Atoi(v)
						if err != nil {
							t.Fatalf("%s: %v", d.Pos, err)
						}
						stragglers = append(stragglers, int32(r))
					}
					continue
				}
				if len(a.Vals) != 1 {
					t.Fatalf("%s: argument %s needs one value", d.Pos, a.Key)
				}
				if a.Key == "factor" {
					f, err := strconv.ParseFloat(a.Vals[0], 64)
					if err != nil {
						t.Fatalf("%s: %v", d.Pos, err)
					}
					factor = f
					continue
				}
				v, err := strconv.ParseInt(a.Vals[0], 10, 64)
				if err != nil {
					t.Fatalf("%s: %v", d.Pos, err)
				}
				switch a.Key {
				case "L":
					p.L = float64(v)
				case "o":
					p.Overhead = float64(v)
				case "g":
					p.Gap = float64(v)
				case "G":
					p.GapPerByte = float64(v)
				case "O":
					p.OverheadPerByte = float64(v)
				case "S":
					p.EagerLimit = v
				default:
					t.Fatalf("%s: unknown argument %s", d.Pos, a.Key)
				}
			}
			s, err := goal.ReadText(strings.NewReader(d.Input), d.Pos)
			if err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
			prog, err := sim.Compile(s)
			if err != nil {
				t.Fatal(err)
			}
			opt := sim.Options{Params: p, Record: true}
			if len(stragglers) > 0 {
				if opt.Noise, err = noise.New(noise.Config{Stragglers: stragglers, Factor: factor}, s.NumRanks); err != nil {
					t.Fatal(err)
				}
			}
			res, err := prog.Run(opt)
			if err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
			path, err := sim.CriticalPath(prog, res)
			if err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
			checkPath(t, d.Pos, res, path)
			return formatPath(prog, path)
		})
	})
}

// TestCriticalPathInvariants computes the critical path of every
// conformance schedule under parameter sets and noise that exercise each
// kind of link (NIC gaps, rendezvous, O > G, stragglers, periodic
// detours, several CPUs and NICs, congestion), and checks that it tiles
// the run with no unexplained time.
func TestCriticalPathInvariants(t *testing.T) {
	var files []string
	for _, dir := range []string{"testdata/conformance/goal", "testdata/conformance/edge"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.goal"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if testing.Short() {
		files = files[:min(len(files), 6)]
	}
	type variant struct {
		name  string
		p     sim.Params
		noise *noise.Config
	}
	big := sim.DefaultParams()
	big.Gap = 20000
	rndv := sim.DefaultParams()
	rndv.EagerLimit = 100
	perByteO := sim.DefaultParams()
	perByteO.OverheadPerByte = 9
	ranges := sim.DefaultParams()
	ranges.Ranges = []sim.Range{{MinBytes: 0, MaxBytes: 512, L: 900.4, Overhead: 700, Gap: 300, GapPerByte: 0.35, OverheadPerByte: 0.1}}
	variants := []variant{
		{"default", sim.DefaultParams(), nil},
		{"gap", big, nil},
		{"rendezvous", rndv, nil},
		{"O", perByteO, nil},
		{"ranges", ranges, nil},
		{"stragglers", rndv, &noise.Config{Seed: 3, StragglerFraction: 0.3, Factor: 2.5}},
		{"periodic", sim.DefaultParams(), &noise.Config{Seed: 5, PeriodNs: 7000, PeriodDurNs: 900}},
	}
	checked, seen := 0, map[string]bool{}
	for _, f := range files {
		s, _, err := goal.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := sim.Compile(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range variants {
			name := filepath.Base(f) + "/" + v.name
			opt := sim.Options{Params: v.p, Record: true}
			if v.noise != nil {
				if opt.Noise, err = noise.New(*v.noise, s.NumRanks); err != nil {
					t.Fatal(err)
				}
			}
			res, err := prog.Run(opt)
			if err != nil {
				var dl *sim.DeadlockError
				if errors.As(err, &dl) {
					continue // some edge cases deadlock on purpose
				}
				t.Fatal(err)
			}
			path, err := sim.CriticalPath(prog, res)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			checkPath(t, name, res, path)
			checked++
			for _, st := range path.Steps {
				seen[st.What] = true
			}
		}
	}
	if checked < len(files)*len(variants)/2 {
		t.Errorf("only %d runs checked", checked)
	}
	if !testing.Short() {
		for _, what := range []string{"send NIC busy g + (s-1)·G", "receive NIC busy g + (s-1)·G", "rendezvous send completes when matched",
			"receive overhead o + (s-1)·O", "receive overhead o + (s-1)·G", "send overhead o + (s-1)·O", "o + L"} {
			if !seen[what] {
				t.Errorf("no path has a step %q", what)
			}
		}
	}
}

// TestCriticalPathCongestion: under LogGOPSim's simple congestion model
// two messages share a link and arrive late; the path charges the delay
// beyond o + L to wait, and still tiles the run.
func TestCriticalPathCongestion(t *testing.T) {
	dir := "testdata/conformance/network"
	s, _, err := goal.ReadFile(filepath.Join(dir, "two-flows.goal"))
	if err != nil {
		t.Fatal(err)
	}
	g, err := topology.ReadDotFile(filepath.Join(dir, "two-switch.dot"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := topology.Linear(g, s.NumRanks, 1)
	if err != nil {
		t.Fatal(err)
	}
	net, err := topology.NewNetwork(g, m, topology.Options{Model: topology.Simple})
	if err != nil {
		t.Fatal(err)
	}
	prog, err := sim.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := prog.Run(sim.Options{Params: sim.DefaultParams(), Network: net, Record: true})
	if err != nil {
		t.Fatal(err)
	}
	path, err := sim.CriticalPath(prog, res)
	if err != nil {
		t.Fatal(err)
	}
	checkPath(t, "two-flows", res, path)
	if path.Wait == 0 {
		t.Errorf("no congestion wait on the path:\n%s", formatPath(prog, path))
	}
}

func TestCriticalPathErrors(t *testing.T) {
	s := readText(t, calcThenSend)
	prog, err := sim.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	res, err := prog.Run(sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sim.CriticalPath(prog, res); !errors.Is(err, sim.ErrNoRecord) {
		t.Errorf("without a record: %v, want ErrNoRecord", err)
	}
}

// TestProgramInfo reads ops back from a Program: fields, CPUs and NICs,
// labels, and edges stored both inline and as lists.
func TestProgramInfo(t *testing.T) {
	s := readText(t, `num_ranks 2
rank 0 {
a: calc 5 cpu 1
b: send 8b to 1 tag 4 cpu 0 nic 1
c: calc 7
a requires b
c requires b
c irequires a
}
rank 1 {
recv 8b from -1 tag -1
}
`)
	p, err := sim.Compile(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		g     int32
		want  sim.OpInfo
		label string
		succ  []sim.Edge
	}{
		{0, sim.OpInfo{Rank: 0, Index: 0, Kind: goal.Calc, Size: 5, CPU: 1}, "a", []sim.Edge{{Op: 2, Start: true}}},
		{1, sim.OpInfo{Rank: 0, Index: 1, Kind: goal.Send, Peer: 1, Tag: 4, Size: 8, NIC: 1}, "b", []sim.Edge{{Op: 0}, {Op: 2}}},
		{2, sim.OpInfo{Rank: 0, Index: 2, Kind: goal.Calc, Size: 7}, "c", nil},
		{3, sim.OpInfo{Rank: 1, Index: 0, Kind: goal.Recv, Peer: goal.AnySource, Tag: goal.AnyTag, Size: 8}, "", nil},
	} {
		t.Run(tc.label, func(t *testing.T) {
			if got := p.OpInfo(tc.g); got != tc.want {
				t.Errorf("OpInfo(%d) = %+v, want %+v", tc.g, got, tc.want)
			}
			if got := p.Label(tc.g); got != tc.label {
				t.Errorf("Label(%d) = %q, want %q", tc.g, got, tc.label)
			}
			if got := p.Succ(tc.g, nil); fmt.Sprint(got) != fmt.Sprint(tc.succ) {
				t.Errorf("Succ(%d) = %v, want %v", tc.g, got, tc.succ)
			}
		})
	}
	start, preds := p.Preds(0)
	if fmt.Sprint(start) != "[0 1 1 3]" || fmt.Sprint(preds) != "[{1 false} {0 true} {1 false}]" {
		t.Errorf("Preds(0) = %v %v", start, preds)
	}
	if lo, hi := p.RankOps(1); lo != 3 || hi != 4 {
		t.Errorf("RankOps(1) = %d, %d", lo, hi)
	}
}
