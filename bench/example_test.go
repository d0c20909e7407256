package bench_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"math"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/gopsim/gopsim/bench"
	"github.com/gopsim/gopsim/sim"
)

// Fit recovers the parameters of a table measured on a machine that obeys
// LogGOPS exactly, with an eager/rendezvous change at 12 KiB.
func ExampleFit() {
	eager := bench.Range{L: 3200, Overhead: 1300, Gap: 5140, GapPerByte: 0.73, OverheadPerByte: 0.2}
	rendezvous := bench.Range{L: 7800, Overhead: 2600, Gap: 21390, GapPerByte: 1.03, OverheadPerByte: 0.35}
	var tab bench.Table
	for _, s := range []int64{1, 1024, 4096, 8192, 12288, 12289, 16384, 32768, 65536} {
		r := eager
		if s > 12288 {
			r = rendezvous
		}
		d := r.PRTT(1, 0, s) // Netgauge's delay
		for _, k := range []struct {
			n int
			d float64
		}{{1, 0}, {8, 0}, {8, d}, {2, d}} {
			tab = append(tab, bench.Sample{N: k.n, DelayNs: k.d, SizeBytes: s, PRTTNs: math.Round(r.PRTT(k.n, k.d, s))})
		}
	}
	pf, err := bench.Fit(tab, bench.FitOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range pf.Ranges {
		fmt.Printf("%d..%d bytes: L=%.0f ns o=%.0f ns g=%.0f ns G=%.2f ns/byte O=%.2f ns/byte\n",
			r.MinBytes, r.MaxBytes, r.L, r.Overhead, r.Gap, r.GapPerByte, r.OverheadPerByte)
	}
	fmt.Println("S =", *pf.EagerLimit, "bytes")
	// Output:
	// 0..12288 bytes: L=3200 ns o=1300 ns g=5140 ns G=0.73 ns/byte O=0.20 ns/byte
	// 12289..2199023255552 bytes: L=7800 ns o=2600 ns g=21390 ns G=1.03 ns/byte O=0.35 ns/byte
	// S = 12288 bytes
}

func ExampleReadTable() {
	csv := `n,d_ns,s_bytes,prtt_ns
1,0,1024,31250
8,0,1024,74410.5
8,31000.2,1024,296800
`
	tab, err := bench.ReadTable(strings.NewReader(csv), "prtt.csv")
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range tab {
		fmt.Printf("PRTT(%d,%g,%d) = %g ns\n", s.N, s.DelayNs, s.SizeBytes, s.PRTTNs)
	}
	_, err = bench.ReadTable(strings.NewReader("n,d_ns,s_bytes,prtt_ns\n1,0,1k,31250\n"), "bad.csv")
	fmt.Println(err)
	// Output:
	// PRTT(1,0,1024) = 31250 ns
	// PRTT(8,0,1024) = 74410.5 ns
	// PRTT(8,31000.2,1024) = 296800 ns
	// bad.csv:2:5: s_bytes: "1k" is not an integer
}

func ExampleParseSizes() {
	sizes, err := bench.ParseSizes("1,1k:4k:1k,12288,12289,16k:64k:*2")
	fmt.Println(sizes, err)
	// Output:
	// [1 1024 2048 3072 4096 12288 12289 16384 32768 65536] <nil>
}

func ExampleRange_PRTT() {
	r := bench.Range{L: 2500, Overhead: 1500, Gap: 1000, GapPerByte: 6} // LogGOPSim's defaults
	fmt.Println(r.PRTT(1, 0, 1024))                                     // 2(L + 2o + 1023G)
	fmt.Println(r.PRTT(8, 0, 1024))                                     // + 7(g + 1023G)
	fmt.Println(r.PRTT(8, 100000, 1024))                                // + 7 max(o + d, g + 1023G)
	// Output:
	// 23276
	// 73242
	// 733776
}

// Measure against a tcp backend server. Here the server runs in this
// process to keep the example self-contained; a real calibration runs it
// in another process or on another host (`gopsim calibrate --listen`), as
// StartServerProcess explains.
func ExampleMeasure() {
	ctx := context.Background()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	go bench.ServeOne(ctx, ln)
	p, err := bench.Dial(ctx, ln.Addr().String())
	if err != nil {
		log.Fatal(err)
	}
	tab, err := bench.Measure(ctx, p, bench.Config{Sizes: []int64{64, 4096}, Reps: 10, Warmup: 2, N: 4})
	if err != nil {
		log.Fatal(err)
	}
	if err := p.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(tab), "rows") // 2 sizes x 10 reps x 4 kinds of round
	tab.WriteCSV(os.Stdout)       // varies from run to run
	// Output is not checked: it is a measurement.
}

func ExampleParamFile_Write() {
	var tab bench.Table
	r := bench.Range{L: 5000, Overhead: 2000, Gap: 3000, GapPerByte: 0.25}
	for _, s := range []int64{1, 1000, 2000, 3000} {
		for _, k := range []struct {
			n int
			d float64
		}{{1, 0}, {4, 0}, {4, 50000}, {2, 50000}} {
			tab = append(tab, bench.Sample{N: k.n, DelayNs: k.d, SizeBytes: s, PRTTNs: math.Round(r.PRTT(k.n, k.d, s))})
		}
	}
	pf, err := bench.Fit(tab, bench.FitOptions{})
	if err != nil {
		log.Fatal(err)
	}
	var b bytes.Buffer
	if err := pf.Write(&b); err != nil {
		log.Fatal(err)
	}
	head, _, _ := strings.Cut(b.String(), `  "fit"`)
	fmt.Print(head, "  ...\n") // then fit (medians, residuals, R², standard errors) and source
	// Output:
	// {
	//   "L_ns": 5000.071,
	//   "o_ns": 2000,
	//   "g_ns": 2999.831,
	//   "G_ns_per_byte": 0.250078,
	//   "O_ns_per_byte": 0,
	//   "ranges": [
	//     {
	//       "min_bytes": 0,
	//       "max_bytes": 2199023255552,
	//       "L_ns": 5000.071,
	//       "o_ns": 2000,
	//       "g_ns": 2999.831,
	//       "G_ns_per_byte": 0.250078,
	//       "O_ns_per_byte": 0
	//     }
	//   ],
	//   "warnings": [],
	//   ...
}

func ExampleSummarize() {
	// Round trips in ns; one was disturbed.
	s := bench.Summarize([]float64{31200, 31350, 31100, 31280, 95000, 31190, 31310, 31240})
	fmt.Printf("median %.0f ns, IQR %.0f ns, MAD %.0f ns, %d of %d rejected\n", s.Median, s.IQR, s.MAD, s.Rejected, s.Reps)
	// Output:
	// median 31240 ns, IQR 100 ns, MAD 50 ns, 1 of 8 rejected
}

// Start `gopsim calibrate --listen` on this host as the server of a
// calibration, and measure against it.
func ExampleStartServerProcess() {
	ctx := context.Background()
	cmd := exec.CommandContext(ctx, "gopsim", "calibrate", "--listen", "127.0.0.1:0", "--wait", "1m")
	cmd.Stderr = os.Stderr
	addr, wait, err := bench.StartServerProcess(cmd)
	if err != nil {
		log.Fatal(err)
	}
	p, err := bench.Dial(ctx, addr)
	if err != nil {
		log.Fatal(err)
	}
	tab, err := bench.Measure(ctx, p, bench.Config{})
	p.Close()
	if err := wait(); err != nil {
		log.Print(err)
	}
	if err != nil {
		log.Fatal(err)
	}
	if err := bench.WriteTableFile("prtt.csv", tab); err != nil {
		log.Fatal(err)
	}
}

// Fit a saved table and draw it.
func ExampleParamFile_WritePlotFile() {
	tab, err := bench.ReadTableFile("prtt.csv")
	if err != nil {
		log.Fatal(err) // e.g. "prtt.csv:12:7: prtt_ns: \"x\" is not a number"
	}
	pf, err := bench.Fit(tab, bench.FitOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if err := pf.WritePlotFile("prtt.png"); err != nil { // or .svg, .pdf
		log.Fatal(err)
	}
}

func ExampleSimulatePingPong() {
	p := sim.DefaultParams() // L=2500 o=1500 G=6: 2(L + 2o + (s-1)G) per round trip
	for _, s := range []int64{1, 1024} {
		rtt, err := bench.SimulatePingPong(p, s)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%d bytes: %.0f ns per round trip\n", s, rtt)
	}
	// Output:
	// 1 bytes: 11000 ns per round trip
	// 1024 bytes: 23276 ns per round trip
}

func ExampleParamFile_SimParams() {
	pf := &bench.ParamFile{L: 200, Overhead: 40, Gap: 80, Ranges: []bench.Range{
		{MinBytes: 0, MaxBytes: 4095, L: 180.5, Overhead: 41.2, Gap: 82, GapPerByte: 0.3, OverheadPerByte: 0.1},
		{MinBytes: 4096, MaxBytes: bench.MaxMessageBytes, L: 0, Overhead: 1700, Gap: 1900, GapPerByte: 0.11, OverheadPerByte: 0.07},
	}}
	p := pf.SimParams() // what `gopsim sim --params` reads from the file
	fmt.Println(p.Validate() == nil, len(p.Ranges), p.Ranges[1].MinBytes, p.EagerLimit)
	// Output:
	// true 2 4096 65535
}

func ExampleSummarizeAt() {
	// Round trips on a shared machine: noise only adds time.
	xs := []float64{700, 702, 701, 699, 900, 703, 1500, 700, 698, 5000}
	s := bench.SummarizeAt(xs, 0.1)
	fmt.Printf("10th percentile %.1f ns, median %.1f ns, %d of %d rejected\n", s.Q, s.Median, s.Rejected, s.Reps)
	// Output:
	// 10th percentile 698.7 ns, median 700.5 ns, 2 of 10 rejected
}

// shmProber answers like a shared-memory transport whose round trip jumps
// by a rendezvous handshake above 4071 bytes (its eager limit less a
// header).
type shmProber struct{}

func (shmProber) Rounds(ctx context.Context, s int64, rounds []bench.Round, res []bench.Result) error {
	r := bench.Range{L: 300, Overhead: 50, Gap: 150, GapPerByte: 0.3, OverheadPerByte: 0.1}
	if s > 4071 {
		r = bench.Range{L: 2000, Overhead: 1700, Gap: 1900, GapPerByte: 0.11, OverheadPerByte: 0.05}
	}
	for i, rd := range rounds {
		res[i] = bench.Result{PRTT: time.Duration(r.PRTT(rd.N, float64(rd.Delay), s)), Delay: rd.Delay}
	}
	return nil
}

func ExampleLocateS() {
	ctx := context.Background()
	cfg := bench.Config{Sizes: []int64{256, 512, 1024, 2048, 3072, 4096, 6144, 8192, 16384}, Reps: 20}
	tab, err := bench.Measure(ctx, shmProber{}, cfg)
	if err != nil {
		log.Fatal(err)
	}
	pf, _ := bench.Fit(tab, bench.FitOptions{})
	fmt.Println("S from the sweep:", *pf.EagerLimit)
	tab, steps, err := bench.LocateS(ctx, shmProber{}, tab, cfg, bench.FitOptions{}, 20)
	if err != nil {
		log.Fatal(err)
	}
	pf, _ = bench.Fit(tab, bench.FitOptions{})
	fmt.Println("S after", steps, "bisection steps:", *pf.EagerLimit)
	// Output:
	// S from the sweep: 4095
	// S after 10 bisection steps: 4071
}

// The library's one-time costs from a measurement: what the first call
// of each function and the first contact with a peer cost over warm ones.
func ExampleWarmup_Costs() {
	w := bench.Warmup{Library: "Open MPI v4.1.4", Runs: 5,
		Contact: bench.WarmupCost{Name: "contact", First: 300000, Warm: 2000},
		Calls: []bench.WarmupCost{{Name: "MPI_Comm_split", First: 200000, Warm: 6500},
			{Name: "MPI_Allreduce", First: 50000, Warm: 1000}, {Name: "MPI_Allgather", First: 7000, Warm: 900}}}
	c := w.Costs()
	fmt.Println(c.FirstContactNs, c.CommCreateNs, c.FirstCallNs("MPI_Allreduce"))
	// Output: 298000 2600 49000
}
