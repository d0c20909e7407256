package tit

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/trace"
)

// writeRing writes the TIT trace of a ring of ranks: iters iterations of
// compute, isend to the right, irecv from the left and waitall, with an
// allreduce every 10 iterations; 4,096 ranks and 100 iterations make the
// 1.68 M actions of issue 22. rank(r) is the writer of rank r's lines: one
// for all (a shared file, written iteration by iteration, the ranks'
// lines interleaved as SimGrid's tracer writes them) or one per rank.
func writeRing(ranks, iters int, rank func(r int) io.Writer) {
	line := func(r int, format string, args ...any) {
		fmt.Fprintf(rank(r), "%d "+format+"\n", append([]any{r}, args...)...)
	}
	for r := range ranks {
		line(r, "init")
	}
	for it := range iters {
		for r := range ranks {
			line(r, "compute 1e6")
			line(r, "isend %d %d 1024", (r+1)%ranks, it)
			line(r, "irecv %d %d 1024", (r+ranks-1)%ranks, it)
			line(r, "waitall")
			if it%10 == 9 {
				line(r, "allreduce 1024 1e5")
			}
		}
	}
	for r := range ranks {
		line(r, "finalize")
	}
}

// ringFS is writeRing's trace in a file system: "shared.txt", or
// "index.txt" naming "rank-R.txt".
func ringFS(ranks, iters int, shared bool) fstest.MapFS {
	fsys := fstest.MapFS{}
	if shared {
		var b bytes.Buffer
		writeRing(ranks, iters, func(int) io.Writer { return &b })
		fsys["shared.txt"] = &fstest.MapFile{Data: b.Bytes()}
		return fsys
	}
	bufs := make([]bytes.Buffer, ranks)
	writeRing(ranks, iters, func(r int) io.Writer { return &bufs[r] })
	var index bytes.Buffer
	for r := range bufs {
		name := "rank-" + strconv.Itoa(r) + ".txt"
		fsys[name] = &fstest.MapFile{Data: bufs[r].Bytes()}
		index.WriteString(name + "\n")
	}
	fsys["index.txt"] = &fstest.MapFile{Data: index.Bytes()}
	return fsys
}

// convertFS opens name in fsys and converts it to a schedule.
func convertFS(tb testing.TB, fsys fstest.MapFS, name string) *goal.Schedule {
	t, err := OpenFS(fsys, name, Options{})
	if err != nil {
		tb.Fatal(err)
	}
	s := goal.NewSchedule(t.NumRanks())
	if _, err := trace.Convert(t, trace.ConvertOptions{}, s.AppendRank); err != nil {
		tb.Fatal(err)
	}
	return s
}

// BenchmarkRing opens and converts writeRing's trace from one shared file
// and from one file per rank: both read every line once.
//
//	go test -run '^$' -bench Ring -benchtime 1x ./trace/tit
func BenchmarkRing(b *testing.B) {
	for _, ranks := range []int{256, 4096} {
		for _, shared := range []bool{true, false} {
			fsys, name := ringFS(ranks, 100, shared), "index.txt"
			if shared {
				name = "shared.txt"
			}
			b.Run(fmt.Sprintf("ranks=%d/%s", ranks, name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					convertFS(b, fsys, name)
				}
			})
		}
	}
}

// TestRingSharedAsPerRank checks that a shared file, read in one pass and
// split by rank, converts to the same schedule, byte for byte, as the
// same trace in one file per rank, and that an error in a shared file
// names its line in the file.
func TestRingSharedAsPerRank(t *testing.T) {
	for _, tc := range []struct{ ranks, iters int }{{1, 3}, {2, 10}, {5, 12}, {64, 20}} {
		t.Run(fmt.Sprintf("ranks=%d,iters=%d", tc.ranks, tc.iters), func(t *testing.T) {
			var shared, perRank bytes.Buffer
			if err := goal.WriteText(&shared, convertFS(t, ringFS(tc.ranks, tc.iters, true), "shared.txt")); err != nil {
				t.Fatal(err)
			}
			if err := goal.WriteText(&perRank, convertFS(t, ringFS(tc.ranks, tc.iters, false), "index.txt")); err != nil {
				t.Fatal(err)
			}
			if shared.Len() == 0 || !bytes.Equal(shared.Bytes(), perRank.Bytes()) {
				t.Fatalf("shared and per-rank schedules differ (%d and %d bytes)", shared.Len(), perRank.Len())
			}
		})
	}
	fsys := ringFS(3, 2, true)
	data := string(fsys["shared.txt"].Data)
	// Line 13 is rank 2's isend of the first iteration: make its count bad.
	lines := bytes.Split([]byte(data), []byte("\n"))
	if got := string(lines[12]); got != "2 isend 0 0 1024" {
		t.Fatalf("line 13 is %q", got)
	}
	lines[12] = []byte("2 isend 0 0 x")
	fsys["shared.txt"].Data = bytes.Join(lines, []byte("\n"))
	_, err := OpenFS(fsys, "shared.txt", Options{})
	var te *trace.TextFormatError
	if !errors.As(err, &te) || te.Line != 13 || te.Col != 13 || !strings.Contains(err.Error(), `count "x" is not a number`) {
		t.Fatalf("got %v, want shared.txt:13:13: count \"x\" is not a number", err)
	}
}
