package trace

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// measureBytes measures one rank's trace held in data.
func measureBytes(t *testing.T, data []byte) (RankTimes, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), "test.gpt")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	return MeasureRank(r)
}

// TestMeasureSample checks the times of the sample trace against sums
// worked out by hand from its records (reader_test.go, sample).
func TestMeasureSample(t *testing.T) {
	h, comms, calls := sample()
	got, err := measureBytes(t, encode(t, h, comms, calls, EndFinalize))
	if err != nil {
		t.Fatal(err)
	}
	// MPI_Init 900,000..999,000; MPI_Finalize 3,000,000..3,100,000.
	// Inside MPI: Isend 300, Irecv 100, the failed Test run 89,300,
	// Waitall, Comm_split, Sendrecv and Alltoallv 100,000 each, Bcast 500,
	// ten calls of 100: 491,200 ns in 18 records. The flush: 4,900 ns.
	want := RankTimes{InitStart: 900_000, InitEnd: 999_000, FinalizeStart: 3_000_000, FinalizeEnd: 3_100_000,
		InMPI: 491_200, AsCompute: 89_300, Tracer: 4_900, Calls: 18}
	if got != want {
		t.Fatalf("got  %+v\nwant %+v", got, want)
	}
	if got.Measured() != 2_001_000 || got.Whole() != 2_200_000 || got.Outside() != 2_001_000-491_200-4_900 {
		t.Errorf("measured %d, whole %d, outside %d", got.Measured(), got.Whole(), got.Outside())
	}
}

func TestMeasureCases(t *testing.T) {
	h := testHeader(0, 1)
	world := []*Comm{{ID: 0, Members: []int32{0}}, {ID: 1, Members: []int32{0}}}
	bar := func(s, e int64) Call { c := call(FuncBarrier, s, e); c.Comm = 0; return c }
	cases := []struct {
		name  string
		calls []Call
		end   EndReason
		want  RankTimes
		err   string // a substring of the error, "" for none
		isErr error
	}{
		{name: "overlapping calls count once",
			calls: []Call{call(FuncInit, 0, 100), bar(200, 500), bar(400, 700), bar(450, 600), call(FuncFinalize, 1000, 1200)},
			end:   EndFinalize,
			want:  RankTimes{InitStart: 0, InitEnd: 100, FinalizeStart: 1000, FinalizeEnd: 1200, InMPI: 500, Calls: 3}},
		{name: "calls before MPI_Init are outside",
			calls: []Call{bar(0, 50), call(FuncInitThread, 60, 100), bar(200, 300), call(FuncFinalize, 400, 410)},
			end:   EndFinalize,
			want:  RankTimes{InitStart: 60, InitEnd: 100, FinalizeStart: 400, FinalizeEnd: 410, InMPI: 100, Calls: 1}},
		{name: "records after MPI_Finalize are ignored",
			calls: []Call{call(FuncInit, 0, 100), call(FuncFinalize, 400, 410), call(FuncFlush, 420, 430)},
			end:   EndFinalize,
			want:  RankTimes{InitStart: 0, InitEnd: 100, FinalizeStart: 400, FinalizeEnd: 410}},
		{name: "without MPI_Init, from the stream's start",
			calls: []Call{bar(1_000_200, 1_000_300), call(FuncFinalize, 1_000_400, 1_000_500)},
			end:   EndFinalize,
			want:  RankTimes{InitStart: 1_000_000, InitEnd: 1_000_000, FinalizeStart: 1_000_400, FinalizeEnd: 1_000_500, NoInit: true, InMPI: 100, Calls: 1}},
		{name: "no MPI_Finalize", calls: []Call{call(FuncInit, 0, 100), bar(200, 300)}, end: EndExit,
			err: "no MPI_Finalize record in 2 records"},
		{name: "no timestamps", calls: []Call{call(FuncInit, 0, 0), bar(0, 0), call(FuncFinalize, 0, 0)}, end: EndFinalize,
			isErr: ErrNoTimestamps, err: "every one of its 3 records is at time 0"},
		{name: "MPI_Finalize before MPI_Init ended", calls: []Call{call(FuncInit, 0, 900), call(FuncFinalize, 500, 600)}, end: EndFinalize,
			err: "MPI_Finalize starts at 500 ns, before MPI_Init ended (900 ns)"},
		{name: "a call ends after MPI_Finalize started", calls: []Call{call(FuncInit, 0, 100), bar(200, 900), call(FuncFinalize, 500, 600)}, end: EndFinalize,
			err: "an MPI call ends at 900 ns, after MPI_Finalize started (500 ns)"},
		{name: "two MPI_Init", calls: []Call{call(FuncInit, 0, 100), call(FuncInit, 200, 300), call(FuncFinalize, 500, 600)}, end: EndFinalize,
			err: "test.gpt: record 4 at byte 67: MPI_Init at t=200 ns: a second MPI_Init"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := h
			h.T0 = 1_000_000
			if tc.name != "without MPI_Init, from the stream's start" {
				h.T0 = 0
			}
			got, err := measureBytes(t, encode(t, h, world, tc.calls, tc.end))
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if got != tc.want {
					t.Errorf("got  %+v\nwant %+v", got, tc.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("error %v, want one containing %q", err, tc.err)
			}
			if tc.isErr != nil && !errors.Is(err, tc.isErr) {
				t.Errorf("error %v does not unwrap to %v", err, tc.isErr)
			}
		})
	}
}

// TestMeasureErrorNamesFile checks that Measure names the rank's file.
func TestMeasureErrorNamesFile(t *testing.T) {
	dir := t.TempDir()
	world := []*Comm{{ID: 0, Members: []int32{0, 1}}}
	for r := range 2 {
		calls := []Call{call(FuncInit, 0, 100), call(FuncFinalize, 500, 600)}
		end := EndFinalize
		if r == 1 {
			calls, end = calls[:1], EndAbort
		}
		world[0].Members = []int32{0, 1}
		if err := os.WriteFile(filepath.Join(dir, FileName(r)), encode(t, testHeader(r, 2), world, calls, end), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d, err := OpenDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Measure(d)
	want := filepath.Join(dir, FileName(1)) + ": rank 1: no MPI_Finalize record"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("error %v, want one containing %q", err, want)
	}
}
