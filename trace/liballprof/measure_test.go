package liballprof

import (
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/internal/tracetest"
)

// lapIndependent computes a liballprof rank file's times from its text
// alone: every line is NAME:START:...:END in µs ("-" for a time not
// recorded), and the times count from the file's first one.
func lapIndependent(t *testing.T, path string) trace.RankTimes {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	known := tracetest.FuncNames()
	var out trace.RankTimes
	var base float64
	haveBase := false
	ns := func(s string) int64 {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatalf("%s: time %q", path, s)
		}
		if !haveBase {
			base, haveBase = v, true
		}
		return int64(math.Round((v - base) * 1000))
	}
	for line := range strings.Lines(string(data)) {
		f := strings.Split(strings.TrimSpace(line), ":")
		if len(f) < 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "MPI_Init":
			out.InitEnd = ns(f[len(f)-1])
			out.InitStart = out.InitEnd
		case "MPI_Finalize":
			out.FinalizeStart = ns(f[1])
			out.FinalizeEnd = out.FinalizeStart
		default:
			s, e := ns(f[1]), ns(f[len(f)-1])
			// The reader returns the calls of known functions but
			// datatype commits (local work, computation to the converter).
			if known[f[0]] && f[0] != "MPI_Type_commit" && f[0] != "MPI_Type_free" {
				out.InMPI += e - s
				out.Calls++
			}
		}
	}
	return out
}

// TestMeasureLiballprof checks the times the liballprof reader gives
// against those computed from the text of the sample files.
func TestMeasureLiballprof(t *testing.T) {
	for _, name := range []string{"bcast-4", "sphot-4", "sweep3d-2x2", "vladimir-4"} {
		t.Run(name, func(t *testing.T) {
			l, err := Open(filepath.Join("testdata", name), Options{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := trace.Measure(l)
			if err != nil {
				t.Fatal(err)
			}
			for r, g := range got {
				want := lapIndependent(t, l.Files[r])
				// Failed tests are computation for the converter; the text
				// does not say which tests failed.
				g.AsCompute = 0
				if g != want {
					t.Errorf("rank %d: got %+v\nwant %+v", r, g, want)
				}
				if g.Measured() <= 0 {
					t.Errorf("rank %d: measured %d ns", r, g.Measured())
				}
			}
		})
	}
}
