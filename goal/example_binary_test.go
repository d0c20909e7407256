package goal_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log"
	"strings"

	"github.com/gopsim/gopsim/goal"
)

// A ping-pong between two ranks, written and read back whole.
func ExampleWriteBinary() {
	s := goal.NewSchedule(2)
	for r := int32(0); r < 2; r++ {
		b := goal.RankBlock{
			Rank: r,
			Ops: []goal.Op{
				{Kind: goal.Send, Size: 8, Peer: 1 - r, Tag: 7},
				{Kind: goal.Recv, Size: 8, Peer: 1 - r, Tag: 7},
			},
			DepStart: []int32{0, 0, 1},
			Deps:     []goal.Dep{goal.MakeDep(0, false)}, // rank r sends after its receive
			Labels:   []goal.Label{{Op: 1, Name: "pong"}},
		}
		if r == 0 { // rank 0 starts: its receive waits for its send
			b.DepStart = []int32{0, 1, 1}
			b.Deps = []goal.Dep{goal.MakeDep(1, false)}
		}
		if err := s.AppendRank(&b); err != nil {
			log.Fatal(err)
		}
	}

	var file bytes.Buffer
	if err := goal.WriteBinary(&file, s); err != nil {
		log.Fatal(err)
	}
	fmt.Println("binary:", goal.IsBinary(file.Bytes()))

	t, err := goal.ReadBinary(&file)
	if err != nil {
		log.Fatal(err)
	}
	for g, op := range t.Ops {
		fmt.Printf("rank %d %s: %s %d bytes, peer %d\n", t.RankOf(int32(g)), t.Label(int32(g)), op.Kind, op.Size, op.Peer)
	}
	// Output:
	// binary: true
	// rank 0 l1: send 8 bytes, peer 1
	// rank 0 pong: recv 8 bytes, peer 1
	// rank 1 l1: send 8 bytes, peer 0
	// rank 1 pong: recv 8 bytes, peer 0
}

// A schedule too large to hold in memory is written and read one rank at
// a time: here a ring, each rank sending 1 KiB to its right neighbour.
func ExampleNewWriter() {
	const ranks = 1000
	var file bytes.Buffer
	w, err := goal.NewWriter(&file, goal.Header{NumRanks: ranks, NumCPUs: 1, NumNICs: 1})
	if err != nil {
		log.Fatal(err)
	}
	var b goal.RankBlock
	for r := int32(0); r < ranks; r++ {
		b.Reset(r)
		b.Ops = append(b.Ops,
			goal.Op{Kind: goal.Send, Size: 1024, Peer: (r + 1) % ranks},
			goal.Op{Kind: goal.Recv, Size: 1024, Peer: (r + ranks - 1) % ranks})
		b.DepStart = append(b.DepStart, 0, 0, 0)
		if err := w.WriteRank(&b); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("under 1 byte per op:", file.Len() < 2*ranks)

	r, err := goal.NewReader(&file)
	if err != nil {
		log.Fatal(err)
	}
	ops := 0
	for {
		err := r.Next(&b) // b's storage is reused
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		ops += len(b.Ops)
	}
	fmt.Printf("%+v, %d ops\n", r.Header(), ops)
	// Output:
	// under 1 byte per op: true
	// {NumRanks:1000 NumCPUs:1 NumNICs:1}, 2000 ops
}

// ReadBinaryBlocks hands out the rank blocks of a whole file for the
// caller to store in its own form, at indexes known before decoding: here
// a per-rank count of sends, filled from several goroutines at once, and
// the bytes sent in all, summed per decoding goroutine without contention.
func ExampleReadBinaryBlocks() {
	const ranks = 1000
	var file bytes.Buffer
	w, err := goal.NewWriter(&file, goal.Header{NumRanks: ranks, NumCPUs: 1, NumNICs: 1})
	if err != nil {
		log.Fatal(err)
	}
	var b goal.RankBlock
	for r := int32(0); r < ranks; r++ {
		b.Reset(r)
		b.Ops = append(b.Ops,
			goal.Op{Kind: goal.Send, Size: 1024, Peer: (r + 1) % ranks},
			goal.Op{Kind: goal.Recv, Size: 1024, Peer: (r + ranks - 1) % ranks})
		b.DepStart = append(b.DepStart, 0, 0, 0)
		if err := w.WriteRank(&b); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	var (
		sends []int    // per rank; each visit writes only its own rank's
		sent  []uint64 // bytes, per decoding goroutine
	)
	err = goal.ReadBinaryBlocks(&file,
		func(h goal.Header, ops, edges, workers int) error {
			fmt.Printf("%d ranks, %d ops, %d edges\n", h.NumRanks, ops, edges)
			sends = make([]int, h.NumRanks)
			sent = make([]uint64, workers)
			return nil
		},
		func(w int, b *goal.RankBlock, op, edge int) {
			for _, o := range b.Ops {
				if o.Kind == goal.Send {
					sends[b.Rank]++
					sent[w] += o.Size
				}
			}
		})
	if err != nil {
		log.Fatal(err)
	}
	var total uint64
	for _, n := range sent {
		total += n
	}
	fmt.Println(sends[0], sends[ranks-1], total, "bytes sent")
	// Output:
	// 1000 ranks, 2000 ops, 0 edges
	// 1 1 1024000 bytes sent
}

// CalcSize rounds a computed time to a calc's size in whole ns, and
// refuses one no calc holds instead of wrapping or clamping it.
func ExampleCalcSize() {
	for _, ns := range []float64{1234.6, 1e30} {
		size, err := goal.CalcSize(ns)
		fmt.Println(size, err)
	}
	// Output:
	// 1235 <nil>
	// 0 1e+30 ns: more than the 4611686018427387903 ns a calc holds
}

// ReadLimits reads either form for a consumer that takes ops of bounded
// sizes: a binary schedule, which has no lines, names the op beyond them
// by rank, index and label after the file's name; one within them is read.
func ExampleReadLimits() {
	s, err := goal.ReadText(strings.NewReader("num_ranks 2\nrank 0 {\nbig: send 4096b to 1\n}\nrank 1 {\nrecv 4096b from 0\n}\n"), "big.goal")
	if err != nil {
		log.Fatal(err)
	}
	var file bytes.Buffer
	if err := goal.WriteBinary(&file, s); err != nil {
		log.Fatal(err)
	}
	for _, lim := range []goal.Limits{{Message: 1024}, {Message: 4096}} {
		s, format, err := goal.ReadLimits(bytes.NewReader(file.Bytes()), "big.bin", lim)
		var le *goal.LimitError
		if errors.As(err, &le) {
			fmt.Printf("%v: %v\n", format, err)
			fmt.Println(le.Rank, le.Op, le.Label, le.Size, le.Limit)
			continue
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%v: %d ops within %d bytes\n", format, s.NumOps(), lim.Message)
	}
	// Output:
	// binary: big.bin: rank 0 op 0 (big): send of 4096 bytes beyond the supported 1024
	// 0 0 big 4096 1024
	// binary: 2 ops within 4096 bytes
}

// Check bounds a schedule already in memory, built or read without
// limits: the first op beyond them, in rank order, by rank, index and
// label.
func ExampleLimits_Check() {
	s, err := goal.ReadText(strings.NewReader("num_ranks 2\nrank 0 {\ncalc 100\nsend 8b to 1\n}\nrank 1 {\nrecv 8b from 0\nlong: calc 5000\n}\n"), "x.goal")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(goal.Limits{Calc: 1000}.Check(s))
	fmt.Println(goal.Limits{Calc: 5000, Message: 8}.Check(s))
	fmt.Println(goal.Limits{}.Check(s)) // the zero Limits bound nothing
	// Output:
	// rank 1 op 1 (long): calc of 5000 ns beyond the supported 1000
	// <nil>
	// <nil>
}
