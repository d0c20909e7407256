package sim

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/pattern"
)

// TestReadProgram reads every conformance schedule through its binary form
// with ReadProgram, under GOMAXPROCS 1 and 2, and runs it twice (the
// second run starts from the state the first left): every run must give
// what Run gives on the schedule, events included.
func TestReadProgram(t *testing.T) {
	files := conformanceGoals()
	if len(files) < 30 {
		t.Fatalf("only %d schedules", len(files))
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	params := []Params{DefaultParams(), {L: 0, Overhead: 7, Gap: 100, GapPerByte: 1, OverheadPerByte: 3, EagerLimit: 0}}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s := loadText(t, f)
			var bin bytes.Buffer
			if err := goal.WriteBinary(&bin, s); err != nil {
				t.Fatal(err)
			}
			for _, procs := range []int{1, 2} {
				runtime.GOMAXPROCS(procs)
				p, err := ReadProgram(bytes.NewReader(bin.Bytes()))
				if err != nil {
					t.Fatal(err)
				}
				if p.NumRanks != s.NumRanks || p.NumOps() != len(s.Ops) {
					t.Fatalf("%d ranks and %d ops, want %d and %d", p.NumRanks, p.NumOps(), s.NumRanks, len(s.Ops))
				}
				for _, par := range params {
					want, werr := Run(s, Options{Params: par})
					for run := 0; run < 2; run++ {
						got, err := p.Run(Options{Params: par})
						if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
							t.Fatalf("GOMAXPROCS %d, run %d, %v: got %+v, %v; Run gives %+v, %v", procs, run, par, got, err, want, werr)
						}
					}
				}
			}
		})
	}
}

// TestProgramDeadlock: a stuck schedule read with ReadProgram reports the
// same ops, with their labels, as Run on the schedule.
func TestProgramDeadlock(t *testing.T) {
	s, err := goal.ReadText(bytes.NewReader([]byte(`num_ranks 3
rank 0 {
  first: send 10b to 1 tag 5
  recv 70000b from 2 tag 1
  calc 5
  last: calc 7
  last requires first
}
rank 1 {
  recv 10b from 0 tag 6
  send 70000b to 2 tag 9
}
rank 2 {
  lonely: recv 1b from 1 tag 2
}
`)), "stuck.goal")
	if err != nil {
		t.Fatal(err)
	}
	var bin bytes.Buffer
	if err := goal.WriteBinary(&bin, s); err != nil {
		t.Fatal(err)
	}
	p, err := ReadProgram(&bin)
	if err != nil {
		t.Fatal(err)
	}
	_, want := Run(s, Options{Params: DefaultParams()})
	_, got := p.Run(Options{Params: DefaultParams()})
	var d *DeadlockError
	if !errors.As(got, &d) || got.Error() != want.Error() {
		t.Fatalf("ReadProgram then Run: %v\nRun: %v", got, want)
	}
	if d.Total != 5 || d.Stuck[0].Label != "first" {
		t.Fatalf("%d stuck, first %+v:\n%v", d.Total, d.Stuck[0], got)
	}
}

// TestProgramLimits: sizes beyond what the engine takes are reported at
// run time, as by Run, with the op's label.
func TestProgramLimits(t *testing.T) {
	s := goal.NewSchedule(2)
	var b goal.RankBlock
	b.Reset(0)
	b.Ops = append(b.Ops, goal.Op{Kind: goal.Calc, Size: 3}, goal.Op{Kind: goal.Send, Size: MaxMessage + 1, Peer: 1})
	b.DepStart = append(b.DepStart, 0, 0, 0)
	b.Labels = append(b.Labels, goal.Label{Op: 1, Name: "huge"})
	if err := s.AppendRank(&b); err != nil {
		t.Fatal(err)
	}
	b.Reset(1)
	b.Ops = append(b.Ops, goal.Op{Kind: goal.Calc, Size: 1 << 63})
	b.DepStart = append(b.DepStart, 0, 0)
	if err := s.AppendRank(&b); err != nil {
		t.Fatal(err)
	}
	var bin bytes.Buffer
	if err := goal.WriteBinary(&bin, s); err != nil {
		t.Fatal(err)
	}
	p, err := ReadProgram(&bin)
	if err != nil {
		t.Fatal(err)
	}
	_, got := p.Run(Options{Params: DefaultParams()})
	_, want := Run(s, Options{Params: DefaultParams()})
	const msg = "rank 0 op 1 (huge): send of 2199023255553 bytes beyond the supported 2199023255552"
	if got == nil || want == nil || got.Error() != msg || want.Error() != msg {
		t.Fatalf("ReadProgram then Run: %v\nRun: %v\nwant %s", got, want, msg)
	}
}

// TestProgramWideRanks: with more CPUs and NICs than fit in a rank's
// record, the clocks live outside it (engine.ext); unused resources
// change nothing, so the results must match those of the narrow form.
func TestProgramWideRanks(t *testing.T) {
	for _, f := range []string{"goal/allreduce_recdoub_n64_d65536.goal", "goal/linear_alltoall_n8_d1024.goal", "edge/edge05_nic_and_gap.goal", "edge/edge01_irequires_cpu1.goal"} {
		s := loadText(t, "testdata/conformance/"+f)
		want, werr := Run(s, Options{Params: DefaultParams()})
		wide := *s
		wide.NumCPUs, wide.NumNICs = max(s.NumCPUs, 4), max(s.NumNICs, 3)
		got, err := Run(&wide, Options{Params: DefaultParams()})
		if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got.PerRank, want.PerRank) || got.Events != want.Events {
			t.Errorf("%s: %d CPUs and %d NICs give %v, %v; %d and %d give %v, %v", f, wide.NumCPUs, wide.NumNICs, got, err, s.NumCPUs, s.NumNICs, want, werr)
		}
	}
}

// TestImplicitScan: whether a rank keeps its receives posted at time 0
// implicitly or moves them into its posted queue at the first match
// (engine.explicit) or never does changes nothing: the schedules of the
// conformance data, a linear all-to-all and receives matched in reverse
// order give the same results with every scan limit.
func TestImplicitScan(t *testing.T) {
	defer func(n int32) { implicitScan = n }(implicitScan)
	var scheds []*goal.Schedule
	for _, f := range conformanceGoals() {
		scheds = append(scheds, loadText(t, f))
	}
	scheds = append(scheds, patternSchedule(t, "linear_alltoall", 70, 100000), reversed(t, 300))
	params := []Params{DefaultParams(), {L: 0, Overhead: 0, Gap: 0, GapPerByte: 0, OverheadPerByte: 0, EagerLimit: 100}}
	for i, s := range scheds {
		for _, par := range params {
			implicitScan = 1 << 30
			want, werr := Run(s, Options{Params: par})
			for _, n := range []int32{0, 1, 3, 256} {
				implicitScan = n
				got, err := Run(s, Options{Params: par})
				if fmt.Sprint(err) != fmt.Sprint(werr) || !reflect.DeepEqual(got, want) {
					t.Fatalf("schedule %d, %v, scan limit %d: %+v, %v; without a limit %+v, %v", i, par, n, got, err, want, werr)
				}
			}
		}
	}
}

// reversed returns a schedule where rank 0 posts n receives from rank 1 at
// time 0, tags 0..n-1, and rank 1 sends them with tags n-1..0, with a
// wildcard receive and an unmatched send for good measure.
func reversed(t *testing.T, n int) *goal.Schedule {
	s := goal.NewSchedule(2)
	var b goal.RankBlock
	b.Reset(0)
	for i := 0; i < n; i++ {
		b.Ops = append(b.Ops, goal.Op{Kind: goal.Recv, Size: 8, Peer: 1, Tag: uint32(i)})
	}
	b.Ops = append(b.Ops, goal.Op{Kind: goal.Recv, Size: 8, Peer: goal.AnySource, Tag: goal.AnyTag})
	b.DepStart = make([]int32, len(b.Ops)+1)
	if err := s.AppendRank(&b); err != nil {
		t.Fatal(err)
	}
	b.Reset(1)
	for i := n - 1; i >= 0; i-- {
		b.Ops = append(b.Ops, goal.Op{Kind: goal.Send, Size: 8, Peer: 0, Tag: uint32(i)})
	}
	b.Ops = append(b.Ops, goal.Op{Kind: goal.Send, Size: 8, Peer: 0, Tag: 7777}, goal.Op{Kind: goal.Send, Size: 8, Peer: 0, Tag: 8888})
	b.DepStart = make([]int32, len(b.Ops)+1)
	if err := s.AppendRank(&b); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestReadTextProgram reads text schedules straight into a Program with
// ReadTextProgram, under GOMAXPROCS 1 and 2: the program must be the one
// Compile builds from goal.ReadText, and errors must be ReadText's. The
// generated schedule is large enough (4 MB of text) to be parsed in
// pieces on several goroutines.
func TestReadTextProgram(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	texts := map[string][]byte{}
	for _, f := range conformanceGoals() {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		texts[f] = data
	}
	var big bytes.Buffer
	if err := goal.WriteText(&big, patternScheduleWith(t, "dissemination", pattern.Params{Ranks: 4096, Size: 8})); err != nil {
		t.Fatal(err)
	}
	if big.Len() < 3<<20 {
		t.Fatalf("the generated text has %d bytes, too few to be cut", big.Len())
	}
	texts["dissemination.goal"] = big.Bytes()
	texts["late error.goal"] = bytes.Replace(big.Bytes(), []byte("rank 4000 {"), []byte("rank 4001 {"), 1)
	texts["a cut inside a comment.goal"] = bytes.Replace(big.Bytes(), []byte("rank 3000 {"), []byte("/*\nrank 7 {\n*/\nrank 3000 {"), 1)
	for name, data := range texts {
		s, werr := goal.ReadText(bytes.NewReader(data), name)
		var want *Program
		if werr == nil {
			var err error
			if want, err = Compile(s); err != nil {
				t.Fatal(err)
			}
		}
		for _, procs := range []int{1, 2} {
			runtime.GOMAXPROCS(procs)
			p, err := ReadTextProgram(bytes.NewReader(data), int64(len(data)), name)
			if fmt.Sprint(err) != fmt.Sprint(werr) {
				t.Fatalf("%s, GOMAXPROCS %d: error %v, want %v", name, procs, err, werr)
			}
			if werr == nil && !reflect.DeepEqual(p, want) {
				t.Fatalf("%s, GOMAXPROCS %d: another program than Compile's", name, procs)
			}
		}
	}
}

// TestInlineWord checks which edges an op keeps in its edge word and
// that they come back in order with their kinds.
func TestInlineWord(t *testing.T) {
	dep := goal.MakeDep
	for _, c := range []struct {
		name   string
		op     int32
		ds     []goal.Dep
		inline bool
	}{
		{"none", 5, nil, true},
		{"one next", 5, []goal.Dep{dep(6, false)}, true},
		{"one irequires", 5, []goal.Dep{dep(9, true)}, true},
		{"one at the farthest", 0, []goal.Dep{dep(maxEdgeDelta, false)}, true},
		{"one too far", 0, []goal.Dep{dep(maxEdgeDelta+1, false)}, false},
		{"one before", 5, []goal.Dep{dep(4, false)}, false},
		{"two near", 5, []goal.Dep{dep(7, false), dep(6, true)}, true},
		{"two at the farthest", 5, []goal.Dep{dep(5+maxPairDelta, true), dep(5+maxPairDelta, false)}, true},
		{"two, one too far", 5, []goal.Dep{dep(6, false), dep(6+maxPairDelta, false)}, false},
		{"two, one before", 5, []goal.Dep{dep(6, false), dep(2, false)}, false},
		{"three", 5, []goal.Dep{dep(6, false), dep(7, false), dep(8, true)}, false},
	} {
		ed, ok := inlineWord(c.ds, c.op)
		if ok != c.inline {
			t.Errorf("%s: inline %v, want %v", c.name, ok, c.inline)
			continue
		}
		if !ok {
			continue
		}
		if ed&edgeList != 0 {
			t.Errorf("%s: word %#x has the list bit", c.name, ed)
		}
		got := appendInline(nil, ed, c.op)
		if len(got) != len(c.ds) {
			t.Errorf("%s: %d edges back, want %d", c.name, len(got), len(c.ds))
			continue
		}
		for k, d := range c.ds {
			if got[k] != (Edge{Op: d.Succ(), Start: d.Start()}) {
				t.Errorf("%s: edge %d is %+v, want to %d start %v", c.name, k, got[k], d.Succ(), d.Start())
			}
		}
		far, start := c.op, false
		for _, d := range c.ds {
			far = max(far, d.Succ())
			start = start || d.Start()
		}
		if hs := hasStart(&opRec{edge: ed}, nil); hs != start {
			t.Errorf("%s: hasStart %v, want %v", c.name, hs, start)
		}
		if m := furthestSuccessor(ed, nil, c.op); m != far {
			t.Errorf("%s: furthest successor %d, want %d", c.name, m, far)
		}
	}
}

// TestCalcSizeLimit: a calc of 2^62 ns, one more than the record's 62 bits
// of size hold, is refused in memory and streamed (it was kept as 0 ns),
// and one of 2^62-1 is read (the run then stops at MaxTime).
func TestCalcSizeLimit(t *testing.T) {
	for _, tc := range []struct {
		size uint64
		want string
	}{
		{1 << 62, "calc of 4611686018427387904 ns beyond the supported 4611686018427387903"},
		{1<<62 - 1, "beyond the largest time"},
	} {
		s := goal.NewSchedule(1)
		var b goal.RankBlock
		b.Reset(0)
		b.Ops = append(b.Ops, goal.Op{Kind: goal.Calc, Size: tc.size}, goal.Op{Kind: goal.Calc, Size: 5})
		b.DepStart = append(b.DepStart, 0, 0, 0)
		if err := s.AppendRank(&b); err != nil {
			t.Fatal(err)
		}
		var bin bytes.Buffer
		if err := goal.WriteBinary(&bin, s); err != nil {
			t.Fatal(err)
		}
		data := bin.Bytes()
		p, err := ReadProgram(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		q, err := ReadProgramStream(bytes.NewReader(data), StreamOptions{Dir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		for name, run := range map[string]func() (*Result, error){
			"Run":       func() (*Result, error) { return Run(s, Options{Params: DefaultParams()}) },
			"in memory": func() (*Result, error) { return p.Run(Options{Params: DefaultParams()}) },
			"streamed":  func() (*Result, error) { return q.Run(Options{Params: DefaultParams()}) },
		} {
			res, err := run()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("calc %d, %s: %v, %v; want an error with %q", tc.size, name, res, err, tc.want)
			}
		}
		q.Close()
	}
}
