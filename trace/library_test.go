package trace_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
	"github.com/gopsim/gopsim/trace"
)

func TestLibraryRules(t *testing.T) {
	for _, tc := range []struct {
		lib  string
		want string // "" unknown
	}{
		{"Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022", "openmpi"},
		{"Open MPI v5.0.3, package: Open MPI builder Distribution, ident: 5.0.3", "openmpi"},
		{"MPICH Version:\t4.0.2", "mpich"},
		{"MVAPICH2 Version      :\t2.3.7", "mpich"},
		{"Intel(R) MPI Library 2021.5 for Linux* OS", "mpich"},
		{"", ""},
		{"Spectrum MPI 10.4", ""},
	} {
		r, ok := trace.LibraryRules(tc.lib)
		got := ""
		if ok {
			got = r.String()
		}
		if got != tc.want {
			t.Errorf("%q: rules %q, want %q", tc.lib, got, tc.want)
		}
	}
}

// collTrace is 4 ranks that each run a barrier and an allreduce of 600
// doubles (4800 B): Open MPI runs its linear barrier and recursive
// doubling, MPICH dissemination and Rabenseifner.
func collTrace(t *testing.T, lib string) *trace.Dir {
	var ranks [][]trace.Call
	for r := 0; r < 4; r++ {
		ranks = append(ranks, []trace.Call{
			call(trace.FuncInit, 900, 1000, nil),
			call(trace.FuncBarrier, 2000, 2100, func(c *trace.Call) { c.Comm = 0 }),
			call(trace.FuncAllreduce, 3000, 3100, func(c *trace.Call) {
				c.Comm, c.Bytes, c.Type = 0, 4800, trace.Datatype{Size: 8, Extent: 8}
			}),
			call(trace.FuncFinalize, 4000, 4100, nil),
		})
	}
	return writeTraceLib(t, lib, ranks)
}

const (
	openMPILib = "Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022"
	mpichLib   = "MPICH Version:\t4.0.2"
)

// TestConvertCollSelect: auto follows the library the trace names, MPICH's
// rules with a note when it names none; openmpi and mpich force a choice.
func TestConvertCollSelect(t *testing.T) {
	ompi := map[string]int64{"barrier/ompi_linear": 4, "allreduce/recdoub": 4}
	mpich := map[string]int64{"barrier/dissemination": 4, "allreduce/rabenseifner": 4}
	for _, tc := range []struct {
		name, lib, sel string
		rules          string
		note           bool
		algs           map[string]int64
	}{
		{"auto open mpi", openMPILib, "", "openmpi", false, ompi},
		{"auto mpich", mpichLib, "auto", "mpich", false, mpich},
		{"auto unknown", "", "auto", "mpich", true, mpich},
		{"auto other", "Spectrum MPI 10.4", "", "mpich", true, mpich},
		{"forced openmpi", "", "openmpi", "openmpi", false, ompi},
		{"forced mpich", openMPILib, "mpich", "mpich", false, mpich},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := collTrace(t, tc.lib)
			// The header's tab comes back as a space (sim.LibraryName).
			if got, want := trace.LibraryOf(d), strings.ReplaceAll(tc.lib, "\t", " "); got != want {
				t.Fatalf("library %q, want %q", got, want)
			}
			_, st := convert(t, d, trace.ConvertOptions{CollSelect: tc.sel})
			if st.CollRules != tc.rules || (st.CollNote != "") != tc.note {
				t.Errorf("rules %s, note %q; want %s, a note %v", st.CollRules, st.CollNote, tc.rules, tc.note)
			}
			if fmt.Sprint(st.CollAlgorithms) != fmt.Sprint(tc.algs) {
				t.Errorf("algorithms %v, want %v", st.CollAlgorithms, tc.algs)
			}
		})
	}
	// Open MPI's linear barrier: rank 0 hears from 1, 2, 3, then answers.
	s, _ := convert(t, collTrace(t, openMPILib), trace.ConvertOptions{})
	var kinds []string
	for _, op := range s.RankOps(0) {
		if op.Kind != goal.Calc && op.Size == 0 {
			kinds = append(kinds, fmt.Sprintf("%v%d", op.Kind, op.Peer))
		}
	}
	if got := strings.Join(kinds, " "); got != "recv1 recv2 recv3 send1 send2 send3" {
		t.Errorf("rank 0's barrier: %s", got)
	}
	if _, err := trace.Convert(collTrace(t, ""), trace.ConvertOptions{CollSelect: "lam"}, func(*goal.RankBlock) error { return nil }); err == nil || !strings.Contains(err.Error(), "openmpi, mpich or auto") {
		t.Errorf("--coll-select lam: %v", err)
	}
}

// TestConvertLibraryNote: one-time costs measured with another library
// than the trace's are charged, with a note naming both; the same library
// (its name up to spacing) or a trace that names none gives no note.
func TestConvertLibraryNote(t *testing.T) {
	for _, tc := range []struct {
		name, traced, measured string
		note                   bool
	}{
		{"other library", openMPILib, mpichLib, true},
		{"same library", mpichLib, "MPICH Version: 4.0.2", false},
		{"trace names none", "", mpichLib, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lib := &sim.LibraryCosts{Name: tc.measured, FirstContactNs: 1000}
			_, st := convert(t, collTrace(t, tc.traced), trace.ConvertOptions{LibraryCosts: lib})
			if (st.LibraryNote != "") != tc.note {
				t.Errorf("note %q, want one: %v", st.LibraryNote, tc.note)
			}
			if tc.note && (!strings.Contains(st.LibraryNote, "MPICH Version: 4.0.2") || !strings.Contains(st.LibraryNote, "Open MPI v4.1.4")) {
				t.Errorf("note %q does not name both libraries", st.LibraryNote)
			}
			if st.LibraryContacts == 0 {
				t.Errorf("the costs were not charged: %+v", st)
			}
		})
	}
}
