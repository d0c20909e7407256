package otf2

import (
	"bufio"
	"compress/gzip"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/internal/tracetest"
)

// TestMeasureOTF2 checks the OTF2 sample against its otf2-print output,
// read here on its own: per location (= rank here) the ENTER and LEAVE
// events of MPI regions, ticks turned into ns since the clock's offset.
func TestMeasureOTF2(t *testing.T) {
	needOTF2Print(t)
	o, err := Open(filepath.Join("testdata", "sstmacro-otf2-10"), Options{Unsupported: "calc"})
	if err != nil {
		t.Fatal(err)
	}
	got, err := trace.Measure(o)
	if err != nil {
		t.Fatal(err)
	}
	// The calls the reader could not model (counted as computation with
	// "calc") are not calls; it names them first in its report.
	skip := map[string]bool{}
	for k := range o.Unsupported() {
		name, _, _ := strings.Cut(k, " ")
		skip[name] = true
	}
	if len(skip) == 0 {
		t.Fatal("the sample has unsupported calls; the reader reports none")
	}
	want := otf2Independent(t, filepath.Join("testdata", "sstmacro-otf2-10.print.txt.gz"), len(got), skip)
	for r := range got {
		g, w := got[r], want[r]
		// The reader truncates each time to whole ns: sums of n calls may
		// differ by n ns.
		near := func(a, b, n int64) bool { return a-b <= n && b-a <= n }
		if !near(g.InitEnd, w.InitEnd, 1) || !near(g.FinalizeStart, w.FinalizeStart, 1) || !near(g.InitStart, w.InitStart, 1) ||
			!near(g.FinalizeEnd, w.FinalizeEnd, 1) || !near(g.InMPI, w.InMPI, 2*w.Calls) || g.Calls != w.Calls {
			t.Errorf("rank %d: got %+v\nwant %+v", r, g, w)
		}
	}
}

func otf2Independent(t *testing.T, path string, ranks int, skip map[string]bool) []trace.RankTimes {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]trace.RankTimes, ranks)
	enter := make([]int64, ranks)
	known := tracetest.FuncNames()
	var tps, off int64
	sc := bufio.NewScanner(z)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "CLOCK_PROPERTIES") {
			w := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == ',' || r == ':' })
			for i := range w[:len(w)-1] {
				switch {
				case w[i] == "Seconds":
					tps, _ = strconv.ParseInt(w[i+1], 10, 64)
				case w[i] == "Offset":
					off, _ = strconv.ParseInt(w[i+1], 10, 64)
				}
			}
			continue
		}
		w := strings.Fields(line)
		if len(w) < 5 || w[0] != "ENTER" && w[0] != "LEAVE" || !strings.HasPrefix(w[4], `"MPI_`) {
			continue
		}
		loc, _ := strconv.Atoi(w[1])
		ticks, _ := strconv.ParseInt(w[2], 10, 64)
		d := new(big.Int).Mul(big.NewInt(ticks-off), big.NewInt(1_000_000_000))
		ns := d.Quo(d, big.NewInt(tps)).Int64()
		name := strings.Trim(w[4], `"`)
		m := &out[loc]
		switch {
		case name == "MPI_Init" && w[0] == "ENTER":
			m.InitStart = ns
		case name == "MPI_Init":
			m.InitEnd = ns
			m.InMPI, m.Calls = 0, 0
		case name == "MPI_Finalize" && w[0] == "ENTER":
			m.FinalizeStart = ns
		case name == "MPI_Finalize":
			m.FinalizeEnd = ns
		case name == "MPI_Initialized" || name == "MPI_Finalized" || !known[name] || skip[name]:
		case w[0] == "ENTER":
			enter[loc] = ns
		default:
			m.InMPI += ns - enter[loc]
			m.Calls++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if tps == 0 {
		t.Fatal("no CLOCK_PROPERTIES")
	}
	return out
}
