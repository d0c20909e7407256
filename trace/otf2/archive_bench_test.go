package otf2

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/trace"
)

// decodeArchive reads every event of every location of an archive and
// returns the number of events and of event file bytes.
func decodeArchive(b *testing.B, anchor string) (events, size int64) {
	a, err := OpenArchive(anchor)
	if err != nil {
		b.Fatal(err)
	}
	var ev Event
	for _, l := range a.Defs.Locations {
		r, err := a.Events(l.ID)
		if err != nil {
			b.Fatal(err)
		}
		for {
			err := r.Next(&ev)
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			events++
		}
		r.Close()
		fi, err := os.Stat(a.LocationFile(l.ID, ".evt"))
		if err != nil {
			b.Fatal(err)
		}
		size += fi.Size()
	}
	return events, size
}

func benchArchive(b *testing.B, anchor string) {
	events, size := decodeArchive(b, anchor)
	b.SetBytes(size)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		decodeArchive(b, anchor)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(events*int64(b.N)), "ns/event")
	b.ReportMetric(float64(events), "events")
}

// BenchmarkArchiveDecode decodes whole archives: the Score-P sample (10
// locations, 29 KB of events each) and, where a C compiler and Debian's
// libotf2 are installed, a synthetic archive written by
// testdata/otf2gen.c (8 ranks × 5,000 iterations, 1 MiB chunks).
func BenchmarkArchiveDecode(b *testing.B) {
	b.Run("scorep-2.0.2", func(b *testing.B) { benchArchive(b, sampleScoreP) })
	b.Run("otf2gen-8x5000", func(b *testing.B) {
		dir := b.TempDir()
		gen := filepath.Join(dir, "otf2gen")
		flags, err := exec.Command("pkg-config", "--cflags", "--libs", "otf2").Output()
		if err != nil {
			b.Skip("pkg-config otf2: libotf2 is not installed (apt-get install libotf2-trace-dev)")
		}
		args := append([]string{"-O1", "-o", gen, filepath.Join("testdata", "otf2gen.c")}, strings.Fields(string(flags))...)
		if out, err := exec.Command("cc", args...).CombinedOutput(); err != nil {
			b.Skipf("cannot build otf2gen: %v\n%s", err, out)
		}
		if out, err := exec.Command(gen, filepath.Join(dir, "a"), "big", "8", "5000").CombinedOutput(); err != nil {
			b.Fatalf("otf2gen: %v\n%s", err, out)
		}
		benchArchive(b, filepath.Join(dir, "a", "big.otf2"))
	})
}

// BenchmarkArchiveTrace opens the Score-P sample as a trace (the checking
// pass over every location) and reads every rank's calls (the second
// pass): what gopsim convert does before building the schedule.
func BenchmarkArchiveTrace(b *testing.B) {
	b.ReportAllocs()
	var calls int
	for range b.N {
		src, err := Open(sampleScoreP, Options{Unsupported: "calc"})
		if err != nil {
			b.Fatal(err)
		}
		calls = 0
		var c trace.Call
		for r := range src.NumRanks() {
			rs, err := src.OpenRank(r)
			if err != nil {
				b.Fatal(err)
			}
			for rs.Next(&c) == nil {
				calls++
			}
			rs.Close()
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(calls*b.N), "ns/call")
}
