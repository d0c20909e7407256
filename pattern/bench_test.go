package pattern

import (
	"io"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// BenchmarkGenerate streams patterns into the binary writer (discarding the
// bytes), as gopsim gen does: ops/s and allocations per schedule.
func BenchmarkGenerate(b *testing.B) {
	for _, bc := range []struct {
		name    string
		pattern string
		p       Params
	}{
		{"allreduce_recdoub/65536", "allreduce_recdoub", Params{Ranks: 1 << 16, Size: 1 << 20}},
		{"allreduce_recdoub/1048576", "allreduce_recdoub", Params{Ranks: 1 << 20, Size: 1 << 20}},
		{"dissemination/1048576", "dissemination", Params{Ranks: 1 << 20, Size: 1024}},
		{"mpi_allreduce_rabenseifner/65536", "mpi_allreduce", Params{Ranks: 1 << 16, Size: 1 << 20, Algo: "rabenseifner"}},
		{"halo3d/262144", "halo3d", Params{Ranks: 1 << 18, Size: 4096, Stencil: 27, Iterations: 4, Compute: 1000}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			var ops int64
			for i := 0; i < b.N; i++ {
				g, err := New(bc.pattern, bc.p)
				if err != nil {
					b.Skip(err) // an algorithm not registered in this build
				}
				w, err := goal.NewWriter(io.Discard, goal.Header{NumRanks: g.NumRanks(), NumCPUs: 1, NumNICs: 1})
				if err != nil {
					b.Fatal(err)
				}
				ops = 0
				if err := Write(g, func(blk *goal.RankBlock) error {
					ops += int64(len(blk.Ops))
					return w.WriteRank(blk)
				}); err != nil {
					b.Fatal(err)
				}
				if err := w.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(ops)*float64(b.N)/b.Elapsed().Seconds(), "ops/s")
			b.ReportMetric(float64(ops), "ops")
		})
	}
}
