package chakra

import (
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkDecode decodes the samples' rank files (the 1 MB allreduce's
// 16, the feeder test's gzip-compressed one) from memory.
//
//	go test -run '^$' -bench Decode ./trace/chakra
func BenchmarkDecode(b *testing.B) {
	for _, glob := range []string{"astrasim-allreduce-16npus-1MB/*.et", "chakra-feeder-test/*.et.gz"} {
		files, _ := filepath.Glob(filepath.Join("testdata", glob))
		var data [][]byte
		size := 0
		for _, f := range files {
			d, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			data, size = append(data, d), size+len(d)
		}
		b.Run(filepath.Dir(glob), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(size))
			for b.Loop() {
				for i, d := range data {
					if _, err := decodeChakra(files[i], d); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
