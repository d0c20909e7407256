package dumpi

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/internal/tracetest"
)

// TestMeasureDumpi checks rank 0 of the DUMPI sample against dumpi2ascii's
// rendering of the same file ("MPI_X entering at walltime S.NNNNNNNNN").
func TestMeasureDumpi(t *testing.T) {
	d, err := Open(filepath.Join("testdata", "sstdumpi-testtrace-0000", "testtrace.meta"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := trace.Measure(d)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join("testdata", "sstdumpi-testtrace-0000", "testtrace-0000.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var want trace.RankTimes
	var base, start int64 = -1, 0
	known := tracetest.FuncNames()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) < 5 || w[3] != "walltime" || !strings.HasPrefix(w[0], "MPI_") {
			continue
		}
		sec, frac, _ := strings.Cut(strings.TrimSuffix(w[4], ","), ".")
		s, err1 := strconv.ParseInt(sec, 10, 64)
		n, err2 := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("time %q", w[4])
		}
		ts := s*1_000_000_000 + n
		if base < 0 {
			base = ts
		}
		ts -= base
		switch {
		case w[0] == "MPI_Init" && w[1] == "entering":
			want.InitStart = ts
		case w[0] == "MPI_Init":
			want.InitEnd = ts
		case w[0] == "MPI_Finalize" && w[1] == "entering":
			want.FinalizeStart = ts
		case w[0] == "MPI_Finalize":
			want.FinalizeEnd = ts
		case !known[w[0]]: // local queries (MPI_Comm_rank, ...): not calls
		case w[1] == "entering":
			start = ts
		default:
			want.InMPI += ts - start
			want.Calls++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if got[0] != want || want.Calls == 0 {
		t.Errorf("got  %+v\nwant %+v", got[0], want)
	}
}
