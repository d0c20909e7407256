package bench

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/sim"
)

// The pack table is CSV with the header PackHeader and one row per timed
// repetition:
//
//	s_bytes,stride_bytes,pack_ns,unpack_ns
//	16384,1024,9120,8870
//
// s_bytes is the message size (1..MaxSizeBytes), stride_bytes the
// distance between the starts of two consecutive 8-byte elements in the
// user's buffer (at least PackElemBytes; equal to it is contiguous),
// pack_ns and unpack_ns the time to gather the message into a contiguous
// buffer and to scatter it back (positive). Blank lines and lines
// starting with '#' are ignored.
const PackHeader = "s_bytes,stride_bytes,pack_ns,unpack_ns"

// PackElemBytes is the element of a strided message: a double.
const PackElemBytes = 8

// maxPackSpan bounds the strided buffer MeasurePack allocates.
const maxPackSpan = 256 << 20

// PackSample is one timed repetition of MeasurePack.
type PackSample struct {
	SizeBytes, StrideBytes int64
	PackNs, UnpackNs       int64
}

// PackTable is a raw pack table, in measurement order.
type PackTable []PackSample

// PackConfig says what MeasurePack measures; zero values are the
// documented defaults.
type PackConfig struct {
	// Sizes in bytes; nil means 1 KiB, 4 KiB, 16 KiB, 64 KiB.
	Sizes []int64
	// Strides in bytes; nil means 8 (contiguous), 64, 256, 1024, 4096.
	Strides []int64
	// Reps per size and stride; 0 means 50.
	Reps int
}

// MeasurePack times, in Go, packing a message of s bytes made of 8-byte
// elements stride bytes apart into a contiguous buffer, and unpacking it
// back, for every size and stride of cfg: what an MPI library does for a
// vector datatype (log3P's middleware cost). Pairs whose strided buffer
// would exceed 256 MiB are skipped.
func MeasurePack(cfg PackConfig) (PackTable, error) {
	cfg = cfg.withDefaults()
	if cfg.Reps < 1 {
		return nil, fmt.Errorf("bench: %d repetitions, want at least 1", cfg.Reps)
	}
	var t PackTable
	for _, s := range cfg.Sizes {
		if s < PackElemBytes || s > MaxSizeBytes {
			return nil, fmt.Errorf("bench: pack size %d bytes outside %d..%d", s, PackElemBytes, MaxSizeBytes)
		}
		for _, d := range cfg.Strides {
			if d < PackElemBytes || d > MaxSizeBytes {
				return nil, fmt.Errorf("bench: stride %d bytes outside %d..%d", d, PackElemBytes, MaxSizeBytes)
			}
			n := s / PackElemBytes
			if n*d > maxPackSpan {
				continue
			}
			src := make([]byte, n*d)
			dst := make([]byte, n*PackElemBytes)
			for i := range src {
				src[i] = byte(i)
			}
			for r := -1; r < cfg.Reps; r++ { // r = -1 warms up
				t0 := time.Now()
				pack(dst, src, d)
				t1 := time.Now()
				unpack(src, dst, d)
				t2 := time.Now()
				if r >= 0 {
					t = append(t, PackSample{SizeBytes: s, StrideBytes: d, PackNs: max(t1.Sub(t0).Nanoseconds(), 1), UnpackNs: max(t2.Sub(t1).Nanoseconds(), 1)})
				}
			}
		}
	}
	return t, nil
}

// withDefaults returns cfg with MeasurePack's defaults for the fields left
// zero: sizes of 1, 4, 16 and 64 KiB, strides of 8 to 4096 bytes, 50
// repetitions.
func (cfg PackConfig) withDefaults() PackConfig {
	if cfg.Sizes == nil {
		cfg.Sizes = []int64{1 << 10, 4 << 10, 16 << 10, 64 << 10}
	}
	if cfg.Strides == nil {
		cfg.Strides = []int64{8, 64, 256, 1024, 4096}
	}
	if cfg.Reps == 0 {
		cfg.Reps = 50
	}
	return cfg
}

// pack gathers the elements of src, stride bytes apart, into dst.
func pack(dst, src []byte, stride int64) {
	for i, o := int64(0), int64(0); o+PackElemBytes <= int64(len(dst)); i, o = i+stride, o+PackElemBytes {
		copy(dst[o:o+PackElemBytes], src[i:i+PackElemBytes])
	}
}

// unpack scatters the elements of src into dst, stride bytes apart.
func unpack(dst, src []byte, stride int64) {
	for i, o := int64(0), int64(0); o+PackElemBytes <= int64(len(src)); i, o = i+stride, o+PackElemBytes {
		copy(dst[i:i+PackElemBytes], src[o:o+PackElemBytes])
	}
}

// Params returns log3P's table: per size and stride, the medians of the
// pack and unpack times.
func (t PackTable) Params() *sim.Log3PParams {
	type key struct{ s, d int64 }
	byKey := map[key][2][]float64{}
	for _, x := range t {
		k := key{x.SizeBytes, x.StrideBytes}
		v := byKey[k]
		v[0], v[1] = append(v[0], float64(x.PackNs)), append(v[1], float64(x.UnpackNs))
		byKey[k] = v
	}
	keys := make([]key, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.s, b.s)) })
	p := &sim.Log3PParams{Points: []sim.Log3PPoint{}}
	for _, k := range keys {
		v := byKey[k]
		p.Points = append(p.Points, sim.Log3PPoint{Size: uint64(k.s), Stride: uint64(k.d),
			Pack: round(Summarize(v[0]).Median, 1), Unpack: round(Summarize(v[1]).Median, 1)})
	}
	return p
}

// ReadPackTable reads a pack table in CSV form; name is used in errors,
// which are *TableError (and ErrTable) with the line and column.
func ReadPackTable(r io.Reader, name string) (PackTable, error) {
	var t PackTable
	err := readIntTable(r, name, [4]intColumn{{"s_bytes", 1, MaxSizeBytes}, {"stride_bytes", PackElemBytes, MaxSizeBytes}, {"pack_ns", 1, maxPRTTNs}, {"unpack_ns", 1, maxPRTTNs}},
		func(v [4]int64) (int, string) {
			t = append(t, PackSample{SizeBytes: v[0], StrideBytes: v[1], PackNs: v[2], UnpackNs: v[3]})
			return 0, ""
		})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// ReadPackTableFile is ReadPackTable on a named file.
func ReadPackTableFile(path string) (PackTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadPackTable(f, path)
}

// WriteCSV writes t in the form ReadPackTable reads.
func (t PackTable) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(PackHeader + "\n")
	for _, s := range t {
		fmt.Fprintf(bw, "%d,%d,%d,%d\n", s.SizeBytes, s.StrideBytes, s.PackNs, s.UnpackNs)
	}
	return bw.Flush()
}

// WritePackTableFile writes t to path through a temporary file renamed
// into place.
func WritePackTableFile(path string, t PackTable) error {
	if err := atomicfile.Write(path, t.WriteCSV); err != nil {
		return fmt.Errorf("writing pack table %s: %w", path, err)
	}
	return nil
}
