// Package tracetest holds what the tests of the trace format packages
// (trace/dumpi, trace/liballprof, trace/tit, trace/otf2, trace/chakra)
// share: the table of samples converted and simulated with the default
// parameters, checked against a golden file, and the damaged copies of a
// sample that check an importer's errors.
//
// Example, in a format package's test:
//
//	lines := []string{tracetest.SampleSummary(t, "ring", src)}
//	tracetest.CheckSamples(t, "testdata/samples.golden", lines) // -update rewrites it
package tracetest

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

// Update is the -update flag of the tests that import this package:
// rewrite the golden files in testdata.
var Update = flag.Bool("update", false, "rewrite the golden files in testdata")

// SampleSummary converts src with the default options, simulates it with
// the default parameters and returns a line of the samples table.
func SampleSummary(t *testing.T, name string, src trace.Source) string {
	t.Helper()
	s := goal.NewSchedule(src.NumRanks())
	st, err := trace.Convert(src, trace.ConvertOptions{}, s.AppendRank)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return fmt.Sprintf("%s\t%d\t%d\t%d\t%d\t%d", name, st.Ranks, st.Calls, st.Ops, st.ComputeNs, res.MaxTime)
}

// samplesHeader heads the golden tables. Its command predates the format
// packages (today: go test ./trace/... -run Samples -update); it stays as
// the golden files have it.
const samplesHeader = "# sample\tranks\tcalls\tops\tcompute_ns\tsimulated_ns\n" +
	"# gopsim's default conversion (MPICH's algorithms) and sim.DefaultParams(); go test ./trace -run Samples -update rewrites this file\n"

// CheckSamples compares the summary lines with the golden file.
func CheckSamples(t *testing.T, golden string, lines []string) {
	t.Helper()
	got := samplesHeader + strings.Join(lines, "\n") + "\n"
	if *Update {
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

// ConvertBudget is about the most ops ConvertAll converts a trace into:
// each rank gets an equal share (trace.ConvertOptions.MaxRankOps). A few
// bytes of hostile input can ask for billions (a collective of 275 GB that
// an algorithm pipelines in 32 KiB pieces), which would stall a fuzzer;
// the samples are far below it (sweep3d-2x2: 23,784).
const ConvertBudget = 1_000_000

// ConvertAll reads every call of src through the converter, which stops
// with an error wrapping trace.ErrTooManyOps at the call that gives a rank
// more than its share of ConvertBudget.
func ConvertAll(src trace.Source) error {
	opt := trace.ConvertOptions{MaxRankOps: max(ConvertBudget/int64(max(src.NumRanks(), 1)), 1)}
	_, err := trace.Convert(src, opt, func(*goal.RankBlock) error { return nil })
	return err
}

// Damaged returns versions of data cut short and with bytes changed, at
// about n places each.
func Damaged(data []byte, n int) [][]byte {
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

// CheckDamage fails unless err, an error about Damaged input, says where.
func CheckDamage(t *testing.T, what string, err error) {
	t.Helper()
	if err == nil || !errors.Is(err, trace.ErrFormat) {
		return // accepted, or an error about the content (unsupported calls, too many ops, ...)
	}
	var te *trace.TextFormatError
	var fe *trace.FormatError
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

// SampleFiles lists the files under dir, relative to it.
func SampleFiles(t *testing.T, dir string) []string {
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

// StreamStrings reads every rank's calls of src, printed, with the
// members of their communicators.
func StreamStrings(t *testing.T, src trace.Source) [][]string {
	t.Helper()
	var out [][]string
	for r := 0; r < src.NumRanks(); r++ {
		s, err := src.OpenRank(r)
		if err != nil {
			t.Fatal(err)
		}
		var lines []string
		var c trace.Call
		for {
			err := s.Next(&c)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("rank %d: %v", r, err)
			}
			line := c.String()
			if c.Comm >= 2 {
				line += fmt.Sprintf(" members=%v", s.Comm(c.Comm).Members)
			}
			lines = append(lines, line)
		}
		s.Close()
		out = append(out, lines)
	}
	return out
}

// FuncNames are the names of the MPI functions of trace.Funcs: those an
// importer returns as calls.
func FuncNames() map[string]bool {
	m := map[string]bool{}
	for _, f := range trace.Funcs() {
		m[f.String()] = true
	}
	return m
}

// whereRE splits a conversion error at a call: the call's position, the
// rank, the function and its time.
var whereRE = regexp.MustCompile(`^(.*?): rank (\d+): (MPI_\w+) at t=(-?\d+): `)

// ConvertWhere converts src with at most maxOps ops per rank, which must
// fail at a call, and returns the error's message and the position it
// gives the call; it checks that the rank's stream gives that position
// to a call of that function and time.
func ConvertWhere(t *testing.T, src trace.Source, maxOps int64) (msg string, pos trace.Position) {
	t.Helper()
	_, err := trace.Convert(src, trace.ConvertOptions{MaxRankOps: maxOps, Unsupported: "calc"}, func(*goal.RankBlock) error { return nil })
	if !errors.Is(err, trace.ErrTooManyOps) {
		t.Fatalf("converting with at most %d ops a rank: %v, want an error at a call", maxOps, err)
	}
	m := whereRE.FindStringSubmatch(err.Error())
	if m == nil {
		t.Fatalf("%v: not POSITION: rank R: MPI_X at t=T: ...", err)
	}
	r, _ := strconv.Atoi(m[2])
	rs, err2 := src.OpenRank(r)
	if err2 != nil {
		t.Fatal(err2)
	}
	defer rs.Close()
	var c trace.Call
	for rs.Next(&c) == nil {
		if p := rs.Where(); p.String() == m[1] && c.Func.String() == m[3] && strconv.FormatInt(c.Start, 10) == m[4] {
			return err.Error(), p
		}
	}
	t.Fatalf("%v: rank %d's stream gives no %s at t=%s the position %q", err, r, m[3], m[4], m[1])
	return "", trace.Position{}
}

// CheckLastLine checks the error of converting a text trace whose last
// line lacks its newline: none when want is "", else exactly want, a
// *trace.TextFormatError that unwraps to trace.ErrFormat, and to
// io.ErrUnexpectedEOF exactly when want says the line is incomplete.
func CheckLastLine(t *testing.T, err error, want string) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if err == nil || err.Error() != want {
		t.Fatalf("err = %v\nwant %s", err, want)
	}
	var te *trace.TextFormatError
	if !errors.As(err, &te) || !errors.Is(err, trace.ErrFormat) {
		t.Errorf("%v: not a *trace.TextFormatError", err)
	}
	if incomplete := strings.Contains(want, "incomplete"); errors.Is(err, io.ErrUnexpectedEOF) != incomplete {
		t.Errorf("errors.Is(err, io.ErrUnexpectedEOF) = %v, want %v", !incomplete, incomplete)
	}
}
