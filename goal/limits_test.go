package goal_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// simLimits are gopsim sim's: messages of up to 2 TiB, calcs of up to
// goal.MaxCalc ns.
var simLimits = goal.Limits{Message: 1 << 41, Calc: goal.MaxCalc}

// TestTextLimits: a reader given Limits refuses an op beyond them with a
// *goal.LimitError at the line of the op and the column of its size,
// naming its rank, index and label (if it has one); the sequential
// reader, the pieces parsed on all CPUs (which read the text again on one
// goroutine when one fails) and the stream of pieces give the same error.
// Sizes at the limits, and any size without limits, are read.
func TestTextLimits(t *testing.T) {
	base := bigText(120)
	// edit replaces the first old in src, and returns the text and the
	// line of the change.
	edit := func(src, old, new string) (string, int) {
		i := strings.Index(src, old)
		if i < 0 {
			t.Fatalf("%q not in the text", old)
		}
		return src[:i] + new + src[i+len(old):], strings.Count(src[:i], "\n") + 1
	}
	sendLate, sendLine := edit(base, "l1: send 808b to 101", "l1: send 4398046511104b to 101")
	recvText, recvLine := edit(base, "l2: recv 456b from 56", "l2: recv 2199023255553b from 56")
	calcText, calcLine := edit(base, "l3: calc 103 // work", "l3: calc   4611686018427387904 // work")
	unlabelled, unlabelledLine := edit(base, "}\n\nrank 82 {", "send 99999999999999b to 3\n}\n\nrank 82 {")
	atLimits, _ := edit(base, "l1: send 808b to 101", "l1: send 2199023255552b to 101")
	atLimits, _ = edit(atLimits, "l3: calc 103 // work", "l3: calc 4611686018427387903 // work")
	peerFirst, _ := edit(sendLate, "l1: send 168b to 21", "l1: send 168b to 2100")
	lineOf := func(s string) int { return strings.Count(sendLate[:strings.Index(sendLate, s)], "\n") + 1 }

	for _, tc := range []struct {
		name string
		src  string
		lim  goal.Limits
		want string           // the error; "" for none
		le   *goal.LimitError // its fields, without File, Line and Col
	}{
		{"send, late", sendLate, simLimits,
			fmt.Sprintf("b.goal:%d:10: rank 100 op 0 (l1): send of 4398046511104 bytes beyond the supported 2199023255552", sendLine),
			&goal.LimitError{Rank: 100, Op: 0, Label: "l1", Kind: goal.Send, Size: 4398046511104, Limit: 1 << 41}},
		{"recv", recvText, simLimits,
			fmt.Sprintf("b.goal:%d:10: rank 57 op 1 (l2): recv of 2199023255553 bytes beyond the supported 2199023255552", recvLine),
			&goal.LimitError{Rank: 57, Op: 1, Label: "l2", Kind: goal.Recv, Size: 1<<41 + 1, Limit: 1 << 41}},
		{"calc", calcText, simLimits,
			fmt.Sprintf("b.goal:%d:12: rank 3 op 2 (l3): calc of 4611686018427387904 ns beyond the supported 4611686018427387903", calcLine),
			&goal.LimitError{Rank: 3, Op: 2, Label: "l3", Kind: goal.Calc, Size: 1 << 62, Limit: goal.MaxCalc}},
		{"without a label", unlabelled, goal.Limits{Message: 1 << 40},
			fmt.Sprintf("b.goal:%d:6: rank 81 op 3: send of 99999999999999 bytes beyond the supported 1099511627776", unlabelledLine),
			&goal.LimitError{Rank: 81, Op: 3, Kind: goal.Send, Size: 99999999999999, Limit: 1 << 40}},
		{"calc limit only", sendLate, goal.Limits{Calc: 150},
			fmt.Sprintf("b.goal:%d:10: rank 51 op 2 (l3): calc of 151 ns beyond the supported 150", lineOf("l3: calc 151 ")),
			&goal.LimitError{Rank: 51, Op: 2, Label: "l3", Kind: goal.Calc, Size: 151, Limit: 150}},
		{"an earlier error first", peerFirst, simLimits, "peer rank 2100 outside 0..119", nil},
		{"at the limits", atLimits, simLimits, "", nil},
		{"no limits", sendLate, goal.Limits{}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			check := func(how string, err error) {
				t.Helper()
				switch {
				case tc.want == "" && err != nil:
					t.Errorf("%s: %v, want no error", how, err)
				case tc.want == "":
				case err == nil:
					t.Errorf("%s: no error, want %q", how, tc.want)
				case tc.le == nil && !strings.Contains(err.Error(), tc.want):
					t.Errorf("%s: %v, want an error with %q", how, err, tc.want)
				case tc.le != nil && err.Error() != tc.want:
					t.Errorf("%s: %v\nwant %s", how, err, tc.want)
				}
				if tc.le == nil || err == nil {
					return
				}
				var le *goal.LimitError
				if !errors.As(err, &le) {
					t.Fatalf("%s: %T, want a *goal.LimitError", how, err)
				}
				got := *le
				got.File, got.Line, got.Col = "", 0, 0
				if got != *tc.le {
					t.Errorf("%s: %+v, want %+v", how, got, *tc.le)
				}
				if errors.Is(err, goal.ErrSyntax) {
					t.Errorf("%s: a LimitError is not a syntax error", how)
				}
			}
			_, err := goal.ReadTextLimits(strings.NewReader(tc.src), "b.goal", tc.lim)
			check("ReadTextLimits", err)
			_, _, err = goal.ReadLimits(strings.NewReader(tc.src), "b.goal", tc.lim)
			check("ReadLimits", err)
			_, _, err = goal.ReadAtLimits(strings.NewReader(tc.src), int64(len(tc.src)), "b.goal", tc.lim)
			check("ReadAtLimits", err)
			_, err = goal.ReadTextAtLimits(strings.NewReader(tc.src), int64(len(tc.src)), "b.goal", tc.lim)
			check("ReadTextAtLimits", err)
			checkBinaryLimits(t, tc.src, tc.lim, tc.le)
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
			for _, size := range []int64{700, 1 << 20} {
				restore := goal.SetTextPieceSize(size)
				r := strings.NewReader(tc.src)
				err := goal.ReadTextBlocks(r, r.Size(), "b.goal", tc.lim,
					func(goal.Header, int, int, int) error { return nil }, func(int, *goal.RankBlock, int, int) {})
				check(fmt.Sprintf("ReadTextBlocks, pieces of %d", size), err)
				s := goal.NewTextStream(r, r.Size(), "b.goal", tc.lim)
				_, err = readBlocks(s.Next)
				s.Close()
				check(fmt.Sprintf("TextStream, pieces of %d", size), err)
				restore()
			}
			// The pieces of 700 bytes are used: the text without the op
			// beyond the limits is read in pieces.
			restore := goal.SetTextPieceSize(700)
			defer restore()
			if n := goal.TextPieces(strings.NewReader(base), int64(len(base)), "b.goal"); n < 10 {
				t.Errorf("the text is read in %d pieces of 700 bytes", n)
			}
		})
	}
}

// checkBinaryLimits writes the text src (read without limits, when it
// reads) in the binary form, and checks that ReadLimits, ReadAtLimits and
// Limits.Check refuse the op beyond lim as le, without a position and,
// from the readers, after the file's name; le nil: nothing is refused.
func checkBinaryLimits(t *testing.T, src string, lim goal.Limits, le *goal.LimitError) {
	t.Helper()
	s, err := goal.ReadText(strings.NewReader(src), "b.goal")
	if err != nil {
		return // an error of the text itself
	}
	if err := lim.Check(s); le == nil && err != nil || le != nil && (err == nil || err.Error() != le.Error()) {
		t.Errorf("Check: %v, want %v", err, le)
	}
	var bin bytes.Buffer
	if err := goal.WriteBinary(&bin, s); err != nil {
		t.Fatal(err)
	}
	for how, read := range map[string]func() error{
		"ReadLimits, binary": func() error {
			_, _, err := goal.ReadLimits(bytes.NewReader(bin.Bytes()), "b.bin", lim)
			return err
		},
		"ReadAtLimits, binary": func() error {
			_, _, err := goal.ReadAtLimits(bytes.NewReader(bin.Bytes()), int64(bin.Len()), "b.bin", lim)
			return err
		},
	} {
		err := read()
		if le == nil {
			if err != nil {
				t.Errorf("%s: %v, want no error", how, err)
			}
			continue
		}
		var got *goal.LimitError
		if want := "b.bin: " + le.Error(); err == nil || err.Error() != want || !errors.As(err, &got) || *got != *le {
			t.Errorf("%s: %v\nwant %s", how, err, want)
		}
	}
}

// TestTextReaderLimitsStream: a TextReader with limits hands out the
// blocks before the op beyond them, then stops at it.
func TestTextReaderLimitsStream(t *testing.T) {
	src := "num_ranks 3\nrank 0 {\nl1: calc 5\n}\nrank 1 {\nl1: calc 6\nbig: calc 7 cpu 1\n}\nrank 2 {\n}\n"
	tr := goal.NewTextReader(strings.NewReader(src), "s.goal")
	tr.SetLimits(goal.Limits{Calc: 6})
	var b goal.RankBlock
	if err := tr.Next(&b); err != nil || b.Rank != 0 || len(b.Ops) != 1 {
		t.Fatalf("rank 0: %v, %+v", err, b)
	}
	const want = "s.goal:7:11: rank 1 op 1 (big): calc of 7 ns beyond the supported 6"
	if err := tr.Next(&b); err == nil || err.Error() != want {
		t.Fatalf("rank 1: %v, want %s", err, want)
	}
	// Without limits the same text reads to its end.
	tr = goal.NewTextReader(strings.NewReader(src), "s.goal")
	n := 0
	for {
		err := tr.Next(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if n != 3 {
		t.Errorf("%d blocks without limits, want 3", n)
	}
}
