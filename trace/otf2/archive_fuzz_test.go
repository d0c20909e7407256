package otf2

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds adds the files of the samples (and small hand-made buffers) to
// a fuzz corpus, cut at 512 bytes: Go's fuzzer minimizes every new
// interesting input byte by byte, which takes minutes (0 execs/s shown)
// on inputs of a few KiB that decode to the end.
func fuzzSeeds(f *testing.F, pattern string, extra ...[]byte) {
	for _, dir := range []string{filepath.Dir(sampleScoreP), filepath.Dir(sampleGen)} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, p := range m {
			b, err := os.ReadFile(p)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b[:min(len(b), 512)])
		}
	}
	for _, b := range extra {
		f.Add(b)
	}
}

// checkFuzzErr fails unless err is io.EOF or a *ArchiveError that names
// the file and an offset inside the data (or just past it).
func checkFuzzErr(t *testing.T, err error, name string, size int) {
	t.Helper()
	if err == nil || err == io.EOF {
		return
	}
	var fe *ArchiveError
	if !errors.As(err, &fe) {
		t.Fatalf("error %v is not a *ArchiveError", err)
	}
	if fe.File != name || fe.Offset < 0 || fe.Offset > int64(size) {
		t.Fatalf("error %v: file %q, offset %d outside 0..%d", err, fe.File, fe.Offset, size)
	}
}

// FuzzArchiveEvents decodes arbitrary bytes as an event file, in chunks
// of 1 MiB and of 64 bytes: never a panic, an error names the file and
// an offset in it.
func FuzzArchiveEvents(f *testing.F) {
	fuzzSeeds(f, filepath.Join("*", "*.evt"),
		evtBuf(3, []byte{12, 1, 5}, []byte{6, 6, 1, 1, 0, 3, 1, 7}, []byte{13, 1, 5}, []byte{86, 13, 3, 1, 1, 1, 2, 2, 0, 1, 2, 0, 2, 1, 0x19}),
		evtBuf(1, []byte{99, 0xff, 2, 0, 0, 0, 0, 0, 0, 0, 7, 7}),
		chunked(20, 64))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, chunk := range []uint64{1 << 20, 64} {
			l := &Local{offsets: []clockOffset{{time: 0, offset: 5}, {time: 1 << 40, offset: -1 << 30}}}
			r := NewEventReader("x.evt", bytes.NewReader(data), chunk, l)
			var ev Event
			var err error
			for n := 0; err == nil && n <= len(data); n++ {
				err = r.Next(&ev)
			}
			if err == nil {
				t.Fatalf("%d events from %d bytes", len(data)+1, len(data))
			}
			checkFuzzErr(t, err, "x.evt", len(data))
		}
	})
}

// FuzzArchiveDefs decodes arbitrary bytes as a global and as a local
// definition file.
func FuzzArchiveDefs(f *testing.F) {
	fuzzSeeds(f, "*.def")
	fuzzSeeds(f, filepath.Join("*", "*.def"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := DecodeGlobalDefs("x.def", bytes.NewReader(data), 1<<20)
		checkFuzzErr(t, err, "x.def", len(data))
		l, err := DecodeLocalDefs("x.def", bytes.NewReader(data), 1<<20)
		checkFuzzErr(t, err, "x.def", len(data))
		if err == nil {
			l.correct(12345) // any offsets: no panic
		}
	})
}

// FuzzArchiveAnchor decodes arbitrary bytes as an anchor file.
func FuzzArchiveAnchor(f *testing.F) {
	fuzzSeeds(f, "*.otf2")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := DecodeAnchor("x.otf2", data)
		checkFuzzErr(t, err, "x.otf2", len(data))
	})
}
