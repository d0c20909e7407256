package goal_test

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/gopsim/gopsim/goal"
)

const exampleText = `num_ranks 2
rank 0 {
l1: send 1024b to 1 tag 7
l2: calc 500
l2 requires l1
}
rank 1 {
l1: recv 1024b from 0 tag 7
}
`

func ExampleReadText() {
	s, err := goal.ReadText(strings.NewReader(exampleText), "pingpong.goal")
	if err != nil {
		log.Fatal(err)
	}
	for r := range s.NumRanks {
		for i, op := range s.RankOps(r) {
			g := s.RankStart[r] + int32(i)
			fmt.Printf("rank %d %s: %v size %d peer %d tag %d\n", r, s.Label(g), op.Kind, op.Size, op.Peer, op.Tag)
		}
	}

	// Errors name the file, line and column.
	_, err = goal.ReadText(strings.NewReader("num_ranks 2\nrank 0 {\nsend 8b to 9\n}\n"), "bad.goal")
	fmt.Println(err)
	var se *goal.SyntaxError
	fmt.Println(errors.As(err, &se), se.Line, se.Col, errors.Is(err, goal.ErrSyntax))
	// Output:
	// rank 0 l1: send size 1024 peer 1 tag 7
	// rank 0 l2: calc size 500 peer 0 tag 0
	// rank 1 l1: recv size 1024 peer 0 tag 7
	// bad.goal:3:12: peer rank 9 outside 0..1 (num_ranks 2)
	// true 3 12 true
}

func ExampleWriteText() {
	s, err := goal.ReadText(strings.NewReader(`num_ranks 2
rank 0 { // comments go, clauses get their canonical form
  a:send 8b to 1 tag -1 cpu 1
  calc 20
}
rank 1 {
  recv 8 b from -1
}
`), "in.goal")
	if err != nil {
		log.Fatal(err)
	}
	if err := goal.WriteText(os.Stdout, s); err != nil {
		log.Fatal(err)
	}
	// Output:
	// num_ranks 2
	//
	// rank 0 {
	// a: send 8b to 1 tag -1 cpu 1
	// calc 20
	// }
	//
	// rank 1 {
	// recv 8b from -1 tag 0
	// }
}

func ExampleNewTextReader() {
	// Read one rank block at a time: only one block is held in memory.
	tr := goal.NewTextReader(strings.NewReader(exampleText), "pingpong.goal")
	var b goal.RankBlock // reused by every Next
	for {
		err := tr.Next(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("rank %d of %d: %d ops, %d dependencies\n", b.Rank, tr.NumRanks(), len(b.Ops), len(b.Deps))
		for p := range b.Ops {
			for _, d := range b.Deps[b.DepStart[p]:b.DepStart[p+1]] {
				fmt.Printf("  op %d requires op %d (irequires: %v)\n", d.Succ(), p, d.Start())
			}
		}
	}
	// Output:
	// rank 0 of 2: 2 ops, 1 dependencies
	//   op 1 requires op 0 (irequires: false)
	// rank 1 of 2: 1 ops, 0 dependencies
}

func ExampleNewTextStream() {
	// A text read at any offset (a file) is parsed on all CPUs, a few
	// pieces ahead, and its blocks come in order, as a TextReader's.
	s := goal.NewTextStream(strings.NewReader(exampleText), int64(len(exampleText)), "pingpong.goal", goal.Limits{})
	defer s.Close()
	var b goal.RankBlock
	for {
		err := s.Next(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("rank %d of %d: %d ops\n", b.Rank, s.NumRanks(), len(b.Ops))
	}
	// Output:
	// rank 0 of 2: 2 ops
	// rank 1 of 2: 1 ops
}

func ExampleWriteFile() {
	dir, err := os.MkdirTemp("", "goal-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := goal.ReadText(strings.NewReader(exampleText), "pingpong.goal")
	if err != nil {
		log.Fatal(err)
	}
	// The format follows the file name: .goal is text, anything else binary.
	for _, name := range []string{"pingpong.goal", "pingpong.bin"} {
		path := filepath.Join(dir, name)
		if err := goal.WriteFile(path, s, goal.FormatForPath(path)); err != nil {
			log.Fatal(err)
		}
	}
	text, err := os.ReadFile(filepath.Join(dir, "pingpong.goal"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(string(text))
	// Output:
	// num_ranks 2
	//
	// rank 0 {
	// l1: send 1024b to 1 tag 7
	// l2: calc 500
	// l2 requires l1
	// }
	//
	// rank 1 {
	// l1: recv 1024b from 0 tag 7
	// }
}

func ExampleReadFile() {
	dir, err := os.MkdirTemp("", "goal-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	s, err := goal.ReadText(strings.NewReader(exampleText), "pingpong.goal")
	if err != nil {
		log.Fatal(err)
	}
	for _, f := range []goal.Format{goal.FormatText, goal.FormatBinary} {
		if err := goal.WriteFile(filepath.Join(dir, "pingpong."+f.String()), s, f); err != nil {
			log.Fatal(err)
		}
	}

	// ReadFile sniffs the format from the content, not the name.
	for _, name := range []string{"pingpong.text", "pingpong.binary"} {
		back, format, err := goal.ReadFile(filepath.Join(dir, name))
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %v, %d ranks, %d ops\n", name, format, back.NumRanks, back.NumOps())
	}
	// Output:
	// pingpong.text: text, 2 ranks, 3 ops
	// pingpong.binary: binary, 2 ranks, 3 ops
}

// A text file read at offsets is parsed on all CPUs, cut at its rank
// lines; the schedule and the errors are those of ReadText.
func ExampleReadTextAt() {
	f, err := os.CreateTemp("", "*.goal")
	if err != nil {
		log.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	if _, err := f.WriteString(exampleText); err != nil {
		log.Fatal(err)
	}
	fi, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	s, err := goal.ReadTextAt(f, fi.Size(), "pingpong.goal")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.NumRanks, len(s.Ops), len(s.Deps))
	// Output:
	// 2 3 1
}

// ReadTextBlocks hands out the blocks of a text schedule, as
// ReadBinaryBlocks does for the binary form: alloc learns the totals first,
// so that the blocks can be copied straight into place.
func ExampleReadTextBlocks() {
	var ops []goal.Op
	alloc := func(h goal.Header, numOps, numEdges, workers int) error {
		fmt.Printf("%d ranks, %d ops, %d edges\n", h.NumRanks, numOps, numEdges)
		ops = make([]goal.Op, numOps)
		return nil
	}
	visit := func(w int, b *goal.RankBlock, op, edge int) {
		copy(ops[op:], b.Ops) // blocks of different ranks may come at once
	}
	r := strings.NewReader(exampleText)
	if err := goal.ReadTextBlocks(r, r.Size(), "pingpong.goal", goal.Limits{}, alloc, visit); err != nil {
		log.Fatal(err)
	}
	for _, op := range ops {
		fmt.Println(op.Kind, op.Size)
	}
	// Output:
	// 2 ranks, 3 ops, 1 edges
	// send 1024
	// calc 500
	// recv 1024
}

// ReadAtLimits is ReadAt for a consumer that takes ops of bounded sizes:
// a text, read at offsets on all CPUs, refuses an op beyond them at its
// line and column; a binary schedule, by rank, index and label (see
// ReadLimits). Within the limits, the schedule is ReadAt's.
func ExampleReadAtLimits() {
	for _, lim := range []goal.Limits{{Message: 512}, {Message: 1024, Calc: 500}} {
		r := strings.NewReader(exampleText) // an *os.File reads at offsets too
		s, format, err := goal.ReadAtLimits(r, r.Size(), "pingpong.goal", lim)
		if err != nil {
			fmt.Println(format, err)
			continue
		}
		fmt.Printf("%v: %d ranks, %d ops\n", format, s.NumRanks, s.NumOps())
	}
	// Output:
	// text pingpong.goal:3:10: rank 0 op 0 (l1): send of 1024 bytes beyond the supported 512
	// text: 2 ranks, 3 ops
}

// ReadTextAtLimits is ReadTextAt with the op sizes bounded: the error is a
// *goal.LimitError at the op's line and the column of its size.
func ExampleReadTextAtLimits() {
	r := strings.NewReader(exampleText)
	_, err := goal.ReadTextAtLimits(r, r.Size(), "pingpong.goal", goal.Limits{Calc: 499})
	fmt.Println(err)
	var le *goal.LimitError
	if errors.As(err, &le) {
		fmt.Println(le.Line, le.Col, le.Kind, le.Size, le.Limit)
	}

	s, err := goal.ReadTextAtLimits(r, r.Size(), "pingpong.goal", goal.Limits{Calc: 500})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(s.NumRanks, s.NumOps())
	// Output:
	// pingpong.goal:4:10: rank 0 op 1 (l2): calc of 500 ns beyond the supported 499
	// 4 10 calc 500 499
	// 2 3
}
