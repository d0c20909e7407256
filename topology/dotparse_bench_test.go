package topology

import (
	"bytes"
	"testing"
)

// BenchmarkParseDot is ReadDot's parse alone (precheck, gonum's parser,
// nodes and edges), without the routing tables and their check, on
// WriteDot's file of a fat tree.
func BenchmarkParseDot(b *testing.B) {
	for _, spec := range []string{"fattree:k=8,n=3", "fattree:k=16,n=3"} {
		b.Run(spec, func(b *testing.B) {
			g, err := Generate(spec)
			if err != nil {
				b.Fatal(err)
			}
			var buf bytes.Buffer
			if err := WriteDot(&buf, g); err != nil {
				b.Fatal(err)
			}
			src := buf.Bytes()
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parseDot("bench.dot", src[:len(src):len(src)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
