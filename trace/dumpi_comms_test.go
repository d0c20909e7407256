package trace

// Tests of what the importers share (dumpi_comms.go), and the helpers of
// their sample, corruption and fuzz tests.

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

func TestResolveForeignComms(t *testing.T) {
	world := foreignComm{kind: fcWorld, idx: -1, size: -1}
	split := func(parent, seq int32, color, key int64) foreignComm {
		return foreignComm{kind: fcSplit, name: "MPI_Comm_split", parent: parent, seq: seq, color: color, key: key, idx: -1, size: -1}
	}
	observed := func(parent, seq, idx, size int32) foreignComm {
		return foreignComm{kind: fcObserved, name: "MPI_Cart_create", parent: parent, seq: seq, idx: idx, size: size}
	}
	tests := []struct {
		name  string
		specs [][]foreignComm
		want  []string // per rank: its communicators, "id:members" or "?why"
	}{{
		name: "split by color, ordered by key then rank",
		specs: [][]foreignComm{
			{world, split(0, 0, 1, 5)},
			{world, split(0, 0, 0, 0)},
			{world, split(0, 0, 1, 5)},
			{world, split(0, 0, 1, 2)},
		},
		want: []string{"0:[0 1 2 3] 3:[3 0 2]", "0:[0 1 2 3] 2:[1]", "0:[0 1 2 3] 3:[3 0 2]", "0:[0 1 2 3] 3:[3 0 2]"},
	}, {
		name: "dup of a split, and the second split of the world",
		specs: [][]foreignComm{
			{world, split(0, 0, 0, 0), {kind: fcDup, parent: 1, idx: -1, size: -1}, split(0, 1, 7, 0)},
			{world, split(0, 0, 0, 0), {kind: fcDup, parent: 1, idx: -1, size: -1}, split(0, 1, 7, 0)},
		},
		want: []string{"0:[0 1] 2:[0 1] 4:[0 1] 3:[0 1]", "0:[0 1] 2:[0 1] 4:[0 1] 3:[0 1]"},
	}, {
		name: "observed positions",
		specs: [][]foreignComm{
			{world, observed(0, 0, 1, 2)},
			{world},
			{world, observed(0, 0, 0, 2)},
		},
		want: []string{"0:[0 1 2] 2:[2 0]", "0:[0 1 2]", "0:[0 1 2] 2:[2 0]"},
	}, {
		name: "observed positions that do not make one communicator",
		specs: [][]foreignComm{
			{world, observed(0, 0, 0, 2)},
			{world, observed(0, 0, 0, 2)},
		},
		want: []string{"0:[0 1] ?the ranks' positions in the communicator MPI_Cart_create made do not tell its members", "0:[0 1] ?the ranks' positions in the communicator MPI_Cart_create made do not tell its members"},
	}, {
		name: "observed position contradicts a split",
		specs: [][]foreignComm{
			{world, func() foreignComm { s := split(0, 0, 0, 0); s.idx, s.size = 1, 2; return s }()},
			{world, split(0, 0, 0, 0)},
		},
		want: []string{"0:[0 1] ?the trace shows rank 0 as rank 1 of 2 in the communicator MPI_Comm_split made, but its members are [0 1]", "0:[0 1] 2:[0 1]"},
	}, {
		name: "unknown, and what is made from it",
		specs: [][]foreignComm{
			{world, {kind: fcUnknown, why: "no idea"}, {kind: fcDup, parent: 1, idx: -1, size: -1}},
		},
		want: []string{"0:[0] ?no idea ?no idea"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := resolveForeignComms(len(tc.specs), tc.specs)
			for r := range tc.specs {
				var parts []string
				for li := range tc.specs[r] {
					c, why := res.comm(r, int32(li))
					if c.Local {
						parts = append(parts, "?"+why)
					} else {
						parts = append(parts, fmt.Sprintf("%d:%v", c.ID, c.Members))
					}
				}
				if got := strings.Join(parts, " "); got != tc.want[r] {
					t.Errorf("rank %d: %s\n want %s", r, got, tc.want[r])
				}
			}
		})
	}
}

func TestResolveWildcards(t *testing.T) {
	send := func(to, tag int32, t float64) p2pEvent { return p2pEvent{send: true, peer: to, tag: tag, t: t} }
	recv := func(from, tag int32) p2pEvent { return p2pEvent{peer: from, tag: tag} }
	events := [][]p2pEvent{
		{recv(AnySource, AnyTag), recv(1, AnyTag), recv(AnySource, 5), recv(2, 9)},
		{send(0, 4, 20), send(0, 5, 30)},
		{send(0, 5, 10), {send: true, peer: 0, comm: 3, tag: 1, t: 0}},
	}
	got := resolveWildcards(events)
	want := []p2pMatch{{2, 5}, {1, 4}, {1, 5}, {2, 9}}
	if !slices.Equal(got[0], want) {
		t.Fatalf("got %v, want %v", got[0], want)
	}
}

// sampleSummary converts src with the default options, simulates it with
// the default parameters and returns a line of the samples table.
func sampleSummary(t *testing.T, name string, src Source) string {
	t.Helper()
	s := goal.NewSchedule(src.NumRanks())
	st, err := Convert(src, ConvertOptions{}, s.AppendRank)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t%d", name, st.Ranks, st.Calls, st.Ops, st.ComputeNs, res.MaxTime)
}

const samplesHeader = "# sample\tranks\tcalls\tops\tcompute_ns\tsimulated_ns\n" +
	"# gopsim's default conversion (MPICH's algorithms) and sim.DefaultParams(); go test ./trace -run Samples -update rewrites this file\n"

// checkSamples compares the summary lines with the golden file.
func checkSamples(t *testing.T, golden string, lines []string) {
	t.Helper()
	got := samplesHeader + strings.Join(lines, "\n") + "\n"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to rewrite):\n got:\n%s\nwant:\n%s", golden, got, want)
	}
}

// convertAll reads every call of src through the converter.
func convertAll(src Source) error {
	_, err := Convert(src, ConvertOptions{}, func(*goal.RankBlock) error { return nil })
	return err
}

// damaged returns versions of data cut short and with bytes changed, at
// about n places each.
func damaged(data []byte, n int) [][]byte {
	var out [][]byte
	step := max(len(data)/n, 1)
	for i := 0; i < len(data); i += step {
		out = append(out, data[:i])
		for _, b := range []byte{0xff, '9', ':', ' ', '\n'} {
			d := slices.Clone(data)
			d[i] = b
			out = append(out, d)
		}
	}
	return out
}

// checkDamage fails unless err, an error about damaged input, says where.
func checkDamage(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || !errors.Is(err, ErrFormat) {
		return // accepted, or an error about the content (unsupported calls, ...)
	}
	var te *TextFormatError
	var fe *FormatError
	switch {
	case errors.As(err, &te):
		if te.Line <= 0 {
			t.Errorf("%s: %v: no line", what, err)
		}
	case errors.As(err, &fe):
	default:
		t.Errorf("%s: %v: neither a line nor a byte offset", what, err)
	}
}

// sampleFiles lists the files under dir, relative to it.
func sampleFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
