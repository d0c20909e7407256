package topology_test

import (
	"bytes"
	"testing"

	"github.com/gopsim/gopsim/topology"
)

// alltoallWaves drives the flows of a P-rank linear alltoall through net:
// in wave w = 1..P-1 every rank r sends bytes to rank (r+w) mod P; a wave
// starts when the previous one has drained (a barrier between waves). It
// returns the simulated time.
func alltoallWaves(net *topology.Network, P int, bytes int64) int64 {
	var t int64
	for w := 1; w < P; w++ {
		for r := 0; r < P; r++ {
			h := net.Start(t, int32(r), int32((r+w)%P), bytes, int32(r))
			net.Arrive(h, t) // parks: drains later
		}
		for {
			_, tw, ok := net.Wake(topology.Never)
			if !ok {
				break
			}
			t = tw
		}
	}
	return t
}

// alltoallSelfTimed is the same pattern without barriers: rank r starts
// its message of wave w+1 the moment its message of wave w drains, so
// flows start and end at many different times.
func alltoallSelfTimed(net *topology.Network, P int, bytes int64) int64 {
	wave := make([]int, P)
	for r := 0; r < P; r++ {
		wave[r] = 1
		net.Arrive(net.Start(0, int32(r), int32((r+1)%P), bytes, int32(r)), 0)
	}
	var t int64
	for {
		id, tw, ok := net.Wake(topology.Never)
		if !ok {
			return t
		}
		t = tw
		if r := int(id); wave[r]+1 < P {
			wave[r]++
			net.Arrive(net.Start(t, id, int32((r+wave[r])%P), bytes, id), t)
		}
	}
}

// BenchmarkFlowAlltoall: the flows of a 1,024-rank alltoall (1,047,552
// flows of 64 KiB) on a 4,096-host fat tree (k=16, n=3) under the Flow
// model; one op is the whole alltoall.
func BenchmarkFlowAlltoall(b *testing.B) {
	const P, bytes = 1024, 64 << 10
	for _, tc := range []struct {
		name    string
		spec    string
		mapping string
		routing topology.Routing
		waves   bool
	}{
		{"waves/linear", "fattree:k=16,n=3", "linear", topology.Static, true},
		{"waves/random", "fattree:k=16,n=3", "random:seed=1", topology.Static, true},
		{"waves/random/adaptive", "fattree:k=16,n=3", "random:seed=1", topology.Adaptive, true},
		{"waves/random/oversub=4", "fattree:k=16,n=3,oversub=4", "random:seed=1", topology.Static, true},
		{"selftimed/linear", "fattree:k=16,n=3", "linear", topology.Static, false},
		{"selftimed/random", "fattree:k=16,n=3", "random:seed=1", topology.Static, false},
	} {
		b.Run(tc.name, func(b *testing.B) {
			g := mustGenerate(b, tc.spec)
			ms, _ := topology.ParseMapping(tc.mapping)
			m, err := ms.Build(g, P)
			if err != nil {
				b.Fatal(err)
			}
			net, _ := topology.NewNetwork(g, m, topology.Options{Model: topology.Flow, Routing: tc.routing})
			b.ReportAllocs()
			var simT int64
			for b.Loop() {
				net.Reset()
				if tc.waves {
					simT = alltoallWaves(net, P, bytes)
				} else {
					simT = alltoallSelfTimed(net, P, bytes)
				}
			}
			b.ReportMetric(float64(net.Messages())*float64(b.N)/b.Elapsed().Seconds(), "flows/s")
			b.ReportMetric(float64(net.Recomputes()), "recomputes")
			b.ReportMetric(float64(simT)/1e6, "sim-ms")
		})
	}
}

// BenchmarkSimpleAlltoall: the same waves under LogGOPSim's Simple model
// on a smaller tree (its arrivals retry until drained, as LogGOPSim's
// engine does).
func BenchmarkSimpleAlltoall(b *testing.B) {
	const P, bytes = 256, 64 << 10
	g := mustGenerate(b, "fattree:k=16,n=2")
	m, _ := topology.Linear(g, P, 1)
	net, _ := topology.NewNetwork(g, m, topology.Options{Model: topology.Simple})
	hs := make([]int32, P)
	next := make([]int64, P)
	b.ReportAllocs()
	for b.Loop() {
		net.Reset()
		var t int64
		for w := 1; w < P; w++ {
			for r := 0; r < P; r++ {
				hs[r] = net.Start(t, int32(r), int32((r+w)%P), bytes, int32(r))
				next[r] = t
			}
			for left := P; left > 0; {
				// Query every pending arrival at the earliest retry time.
				tm := topology.Never
				for r := range next {
					if hs[r] != topology.NoFlow {
						tm = min(tm, next[r])
					}
				}
				for r := range next {
					if hs[r] != topology.NoFlow && next[r] == tm {
						if at := net.Arrive(hs[r], tm); at == tm {
							hs[r] = topology.NoFlow
							left--
						} else {
							next[r] = at
						}
					}
				}
				t = tm
			}
		}
	}
}

func BenchmarkRoute(b *testing.B) {
	for _, spec := range []string{"fattree:k=16,n=3", "torus:16x16x16", "dragonfly:a=16,p=8,h=8,g=129"} {
		b.Run(spec, func(b *testing.B) {
			g := mustGenerate(b, spec)
			H := int32(g.NumHosts())
			load := make([]int32, g.NumLinks())
			buf := make([]int32, 0, g.MaxHops())
			b.ReportAllocs()
			i := int32(0)
			for b.Loop() {
				buf = g.RouteAdaptive(buf[:0], i%H, (i*7919+13)%H, load)
				i++
			}
		})
	}
}

// BenchmarkReadDot reads WriteDot's file of a fat tree: parse, routing
// tables and the check of every host pair's routes (which dominates: it
// walks every host's routes to every other host).
func BenchmarkReadDot(b *testing.B) {
	for _, spec := range []string{
		"fattree:k=8,n=3",  // 512 hosts, 704 nodes, 0.68 MB
		"fattree:k=16,n=3", // 4,096 hosts, 4,864 nodes, 22 MB
	} {
		b.Run(spec, func(b *testing.B) {
			g := mustGenerate(b, spec)
			var buf bytes.Buffer
			if err := topology.WriteDot(&buf, g); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(buf.Len()))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := topology.ReadDot("bench.dot", bytes.NewReader(buf.Bytes())); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
