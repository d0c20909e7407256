package sim_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// The worked example of docs/model.md: one 1024-byte eager message.
func ExampleRun() {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 2
rank 0 {
send 1024b to 1 tag 7
}
rank 1 {
recv 1024b from 0 tag 7
}
`), "example.goal")
	if err != nil {
		panic(err)
	}
	res, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.PerRank, res.MaxTime, res.MaxRank)
	// Output: [1500 11638] 11638 1
}

// A receive that no send matches: the error lists the stuck op.
func ExampleDeadlockError() {
	s, _ := goal.ReadText(strings.NewReader("num_ranks 2\nrank 0 {\nr: recv 8b from 1 tag 3\n}\nrank 1 {\n}\n"), "stuck.goal")
	_, err := sim.Run(s, sim.Options{Params: sim.DefaultParams()})
	var d *sim.DeadlockError
	fmt.Println(errors.As(err, &d), d.Total)
	fmt.Println(d.Stuck[0])
	// Output:
	// true 1
	// rank 0 op 0 (r): recv 8 bytes from 1 tag 3: receive posted, no matching message arrived
}

// A large binary schedule is best read straight into a Program, decoded
// on all CPUs; it can then be run with several parameter sets.
func ExampleReadProgram() {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 2
rank 0 {
send 1024b to 1 tag 7
}
rank 1 {
recv 1024b from 0 tag 7
}
`), "example.goal")
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer // a file written by gopsim gen or convert, say
	if err := goal.WriteBinary(&file, s); err != nil {
		panic(err)
	}
	p, err := sim.ReadProgram(&file)
	if err != nil {
		panic(err)
	}
	for _, L := range []float64{2500, 500} {
		params := sim.DefaultParams()
		params.L = L
		res, err := p.Run(sim.Options{Params: params})
		if err != nil {
			panic(err)
		}
		fmt.Println(p.NumRanks, p.NumOps(), res.PerRank)
	}
	// Output:
	// 2 2 [1500 11638]
	// 2 2 [1500 9638]
}

// Deciding from a schedule's size, before any op is read, whether to hold
// it: here a program beyond 100 bytes is refused, and the caller would
// stream it (ReadProgramStream) instead.
func ExampleReadProgramIf() {
	s, err := goal.ReadText(strings.NewReader("num_ranks 2\nrank 0 {\nsend 8b to 1 tag 0\n}\nrank 1 {\nrecv 8b from 0 tag 0\n}\n"), "example.goal")
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer
	if err := goal.WriteBinary(&file, s); err != nil {
		panic(err)
	}
	tooBig := errors.New("stream it")
	_, err = sim.ReadProgramIf(&file, func(size sim.ProgramSize) error {
		fmt.Println(size.Ranks, size.Ops, size.Edges, size.Bytes > 0)
		if size.Bytes > 100 {
			return tooBig
		}
		return nil
	})
	fmt.Println(errors.Is(err, tooBig))
	// Output:
	// 2 2 0 true
	// true
}

// A text schedule, as LogGOPSim's Schedgen writes it, read straight into
// a program: a large file is parsed on all CPUs.
func ExampleReadTextProgram() {
	text := `num_ranks 2
rank 0 {
l1: send 1024b to 1 tag 7
l2: calc 100
l2 requires l1
}
rank 1 {
l1: recv 1024b from 0 tag 7
}
`
	// An *os.File works the same way: it too reads at offsets.
	p, err := sim.ReadTextProgram(strings.NewReader(text), int64(len(text)), "example.goal")
	if err != nil {
		panic(err)
	}
	res, err := p.Run(sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.NumRanks, p.NumOps(), res.PerRank)

	// Errors are those of goal.ReadText.
	bad := strings.Replace(text, "from 0", "from 2", 1)
	_, err = sim.ReadTextProgram(strings.NewReader(bad), int64(len(bad)), "bad.goal")
	fmt.Println(err)
	// Output:
	// 2 3 [1600 11638]
	// bad.goal:8:21: peer rank 2 outside 0..1 (num_ranks 2)
}

// A schedule larger than memory is streamed: its op records go to a spill
// file and a run loads them as it needs them, giving back the pages of
// finished ops. The results are those of the program held in memory.
func ExampleReadProgramStream() {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 2
rank 0 {
send 1024b to 1 tag 7
calc 100
}
rank 1 {
recv 1024b from 0 tag 7
}
`), "example.goal")
	if err != nil {
		panic(err)
	}
	var file bytes.Buffer
	if err := goal.WriteBinary(&file, s); err != nil {
		panic(err)
	}
	p, err := sim.ReadProgramStream(&file, sim.StreamOptions{}) // spill file in os.TempDir()
	if err != nil {
		panic(err)
	}
	defer p.Close()
	res, err := p.Run(sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		panic(err)
	}
	st, _ := p.Stream()
	fmt.Println(res.PerRank, st.Loads, st.ResidentOps)
	// Output: [1600 11638] 2 0
}

// A text schedule too large for memory streams the same way, read once by
// a goal.TextReader.
func ExampleReadTextProgramStream() {
	text := `num_ranks 2
rank 0 {
l1: send 1024b to 1 tag 7
l2: calc 100 cpu 1
l2 requires l1
}
rank 1 {
l1: recv 1024b from 0 tag 7
}
`
	p, err := sim.ReadTextProgramStream(strings.NewReader(text), "big.goal", sim.StreamOptions{Dir: os.TempDir()})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	res, err := p.Run(sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		panic(err)
	}
	st, _ := p.Stream()
	fmt.Println(p.NumRanks, p.NumCPUs, p.NumOps(), res.PerRank, st.Units)
	// Output:
	// 2 2 3 [1600 11638] 2
}

// A text in a file (an io.ReaderAt) streams parsed on all CPUs, a few
// pieces ahead of the spill (goal.TextStream).
func ExampleReadTextProgramStreamAt() {
	text := "num_ranks 2\nrank 0 {\nl1: send 1024b to 1 tag 7\n}\nrank 1 {\nl1: recv 1024b from 0 tag 7\n}\n"
	p, err := sim.ReadTextProgramStreamAt(strings.NewReader(text), int64(len(text)), "big.goal", sim.StreamOptions{Dir: os.TempDir()})
	if err != nil {
		panic(err)
	}
	defer p.Close()
	res, err := p.Run(sim.Options{Params: sim.DefaultParams()})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.NumRanks, p.NumOps(), res.PerRank)
	// Output:
	// 2 2 [1500 11638]
}

func ExampleReadParams() {
	p, err := sim.ReadParams(strings.NewReader(`{"L_ns": 1000, "o_ns": 850.5, "G_ns_per_byte": "100Gb/s", "S_bytes": "16KiB"}`), "params.json", sim.DefaultParams())
	fmt.Println(p, err)
	_, err = sim.ReadParams(strings.NewReader(`{"G_ns": 6}`), "params.json", sim.DefaultParams())
	fmt.Println(err)
	// Output:
	// L=1000 ns, o=850.5 ns, g=1000 ns, G=0.08 ns/byte (12.5 GB/s), O=0 ns/byte, S=16384 bytes <nil>
	// params.json:1:2: unknown key "G_ns" (keys here: L_ns, o_ns, g_ns, G_ns_per_byte, O_ns_per_byte, S_bytes, ranges, alphabeta, logfp, plogp, log3p, library, fit, warnings, source, comment, model_fit; names are case-sensitive)
}

func ExampleParseDuration() {
	for _, s := range []string{"2500", "1.5us", "0.35 µs", "2ms", "1.5xs"} {
		ns, err := sim.ParseDuration(s)
		fmt.Println(ns, err)
	}
	// Output:
	// 2500 <nil>
	// 1500 <nil>
	// 350 <nil>
	// 2e+06 <nil>
	// 0 sim: bad quantity "1.5xs": unknown time unit "xs" (expected ns, us (µs), ms, s or ps)
}

func ExampleParsePerByte() {
	for _, s := range []string{"6", "80ps/B", "12.5GB/s", "100Gb/s", "800MB/s"} {
		g, err := sim.ParsePerByte(s)
		fmt.Println(g, sim.FormatBandwidth(g), err)
	}
	// Output:
	// 6 166.7 MB/s <nil>
	// 0.08 12.5 GB/s <nil>
	// 0.08 12.5 GB/s <nil>
	// 0.08 12.5 GB/s <nil>
	// 1.25 800 MB/s <nil>
}

func ExampleParseBytes() {
	for _, s := range []string{"65535", "64KiB", "1.5kB", "1.5"} {
		n, err := sim.ParseBytes(s)
		fmt.Println(n, err)
	}
	// Output:
	// 65535 <nil>
	// 65536 <nil>
	// 1500 <nil>
	// 0 sim: bad quantity "1.5": 1.5 bytes is not a whole number of bytes
}

// The memory the per-op record of a critical path or a timeline takes in
// a run in memory of a million ops: parameters in whole ns, and with a
// fraction of a ns, which the run counts in ps and converts.
func ExampleRecordBytes() {
	p := sim.DefaultParams()
	fmt.Println(sim.RecordBytes(p, 1_000_000))
	p.GapPerByte = 0.08
	fmt.Println(sim.RecordBytes(p, 1_000_000))
	// Output:
	// 96000000
	// 192000000
}

// LibraryName makes the first line of MPI_Get_library_version one line
// of single spaces, as gopsim stores and prints it.
func ExampleLibraryName() {
	fmt.Printf("%q\n", sim.LibraryName("MPICH Version:\t4.0.2\n"))
	// Output: "MPICH Version: 4.0.2"
}

// FormatRangeEnd prints the last size of a range of messages, "max" for
// the range that reaches MaxMessage, as calibrated files end.
func ExampleFormatRangeEnd() {
	fmt.Println(sim.FormatRangeEnd(4040), sim.FormatRangeEnd(sim.MaxMessage))
	// Output: 4040 max
}

// A schedule in the binary form holds ops larger than the engine runs;
// SizeError names the first such op as soon as the program is read, by
// rank, index and label (a binary schedule has no lines), and Run fails
// with the same error. A program within the limits has none.
func ExampleProgram_SizeError() {
	for _, size := range []string{"2199023255553b", "2199023255552b"} { // MaxMessage+1, MaxMessage
		s, err := goal.ReadText(strings.NewReader("num_ranks 2\nrank 0 {\nhuge: send "+size+" to 1\n}\nrank 1 {\nrecv "+size+" from 0\n}\n"), "x.goal")
		if err != nil {
			panic(err)
		}
		var file bytes.Buffer
		if err := goal.WriteBinary(&file, s); err != nil {
			panic(err)
		}
		p, err := sim.ReadProgram(&file)
		if err != nil {
			panic(err)
		}
		err = p.SizeError()
		fmt.Println("x.bin:", err)
		if err != nil {
			_, runErr := p.Run(sim.Options{Params: sim.DefaultParams()})
			var le *goal.LimitError
			fmt.Println(errors.As(runErr, &le), runErr.Error() == err.Error())
		}
	}
	// Output:
	// x.bin: rank 0 op 0 (huge): send of 2199023255553 bytes beyond the supported 2199023255552
	// true true
	// x.bin: <nil>
}

// Limits gives the engine's op sizes to goal's readers, so that a tool
// that reads a schedule for sim refuses an op beyond them as it reads it,
// at its line in a text, as sim's own text readers do.
func ExampleLimits() {
	l := sim.Limits()
	fmt.Println(l.Message == sim.MaxMessage, l.Calc == goal.MaxCalc)
	text := "num_ranks 1\nrank 0 {\nl1: calc 4611686018427387903\nl2: calc 4611686018427387904\n}\n"
	_, _, err := goal.ReadLimits(strings.NewReader(text), "long.goal", l)
	fmt.Println(err)
	_, _, err = goal.ReadLimits(strings.NewReader(text), "long.goal", goal.Limits{}) // valid GOAL
	fmt.Println(err)
	// Output:
	// true true
	// long.goal:4:10: rank 0 op 1 (l2): calc of 4611686018427387904 ns beyond the supported 4611686018427387903
	// <nil>
}
