package trace_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/gopsim/gopsim/trace"
)

// BenchmarkReader decodes rank 0 of the LAMMPS in.lj trace that make
// bench extrapolates (2,786 calls in 41 KB), record by record.
func BenchmarkReader(b *testing.B) {
	data, err := os.ReadFile("../internal/benchtable/testdata/lammps-lj-4/rank-000000.gpt")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var c trace.Call
	for b.Loop() {
		r, err := trace.NewReader(bytes.NewReader(data), "rank-000000.gpt")
		if err != nil {
			b.Fatal(err)
		}
		for {
			if err := r.Next(&c); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				b.Fatal(err)
			}
		}
	}
}

// TestReaderChunks reads a trace through readers that return it in
// pieces (a byte at a time, half of what is asked, the last bytes with
// io.EOF) and wants the same calls and, for a file cut short, the same
// error as from one read; and a read error after 1,000 bytes reported
// with its offset.
func TestReaderChunks(t *testing.T) {
	data, err := os.ReadFile("../internal/benchtable/testdata/lammps-lj-4/rank-000000.gpt")
	if err != nil {
		t.Fatal(err)
	}
	readAll := func(r io.Reader) ([]trace.Call, error) {
		rd, err := trace.NewReader(r, "rank-000000.gpt")
		if err != nil {
			return nil, err
		}
		var out []trace.Call
		var c trace.Call
		for {
			if err := rd.Next(&c); err != nil {
				if errors.Is(err, io.EOF) {
					return out, nil
				}
				return out, err
			}
			out = append(out, c.Clone())
		}
	}
	for _, cut := range []int{len(data), len(data) - 1, len(data) / 2, 9} {
		want, wantErr := readAll(bytes.NewReader(data[:cut]))
		if cut == len(data) && (wantErr != nil || len(want) < 2000) {
			t.Fatalf("whole file: %d calls, %v", len(want), wantErr)
		}
		if cut < len(data) && wantErr == nil {
			t.Fatalf("cut at %d: no error", cut)
		}
		for name, r := range map[string]io.Reader{
			"one byte": iotest.OneByteReader(bytes.NewReader(data[:cut])),
			"half":     iotest.HalfReader(bytes.NewReader(data[:cut])),
			"data+EOF": iotest.DataErrReader(bytes.NewReader(data[:cut])),
		} {
			got, err := readAll(r)
			if fmt.Sprint(err) != fmt.Sprint(wantErr) || !reflect.DeepEqual(got, want) {
				t.Errorf("cut at %d, %s: %d calls, %v; want %d, %v", cut, name, len(got), err, len(want), wantErr)
			}
		}
	}
	boom := errors.New("boom")
	_, err = readAll(io.MultiReader(bytes.NewReader(data[:1000]), iotest.ErrReader(boom)))
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "at byte 1000") {
		t.Errorf("read error after 1000 bytes: %v", err)
	}
}
