package goal_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// maxFuzzInput bounds the inputs FuzzReadText looks at.
const maxFuzzInput = 64 << 10

// FuzzReadText checks that ReadText never panics, that every error is a
// *SyntaxError with a sane position, and that a schedule it accepts
// survives WriteText and ReadText unchanged.
func FuzzReadText(f *testing.F) {
	for _, seed := range []string{
		"",
		"num_ranks 0\n",
		"num_ranks 1\nrank 0 {\n}\n",
		"num_ranks 2\nrank 0 {\nl1: send 1024b to 1 tag 7\nl2: calc 500\nl2 requires l1\n}\nrank 1 {\nl1: recv 1024b from 0 tag 7\n}\n",
		"num_ranks 2 rank 0{\nl1:send 10bto1tag-1cpu1nic2\nl2:calc5cpu3\nl2 irequiresl1\n}rank 1{ recv 10 b from -1 tag -1\n}",
		"/* c\n */ num_ranks 1 // c\r\nrank 0 { // c\r\ncalc 1 // c\r\n} /* c */\r",
		"num_ranks 1\nrank 0 {\ncalc 1\nl1: calc 2\nl3: calc 3\nl3 requires l1\n}\n",
		"num_ranks 1\nrank 0 {\nto: calc 1\nrequires: calc 2\nrequires requires to\n}\n",
		"rank 0 {\nnum_ranks 1\n}\n",
		// Errors.
		"num_ranks 2\nrank 0 {\nsend 0b to 9999999\n}\n",
		"num_ranks 2\nrank 0 {\nrecv 8b from 7\n}\n",
		"num_ranks 3\nrank 0 {\n}\nrank 2 {\n}\n",
		"num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n",
		"num_ranks 1\nrank 0 {\nl1 requires l2\n}\n",
		"num_ranks 1\nrank 0 {\na: calc 1\na: calc 2\n}\n",
		"num_ranks 1\nrank 0 {\nl1: calc 1\nl1: calc 2\n}\n",
		"num_ranks 1\nrank 0 {\na: calc 1\na requires a\n}\n",
		"num_ranks 1\nrank 0 {\na: calc 1\nb: calc 1\nc: calc 1\nb requires a\nc requires b\na requires c\n}\n",
		"num_ranks 2\nrank 0 {\nsend 18446744073709551616b to 1 tag 4294967295 cpu 65536 nic 65536\n}\n",
		"num_ranks 2147483648\n",
		"num_ranks 2\nrank 0 {\nsend 8 to 1\n}\n",
		"num_ranks 2\nrank 0 {\nsend 8b to -1\n}\n",
		"num_ranks 1\nrank 0 {\n/* open\n",
		"num_ranks 1\nsend 8b to 0\n",
		"num_ranks 1\nrank 0 {\ncalc 1\n",
		"num_ranks 1\nnum_ranks 1\n",
		"\xc3\xa9\x00\xff",
	} {
		f.Add([]byte(seed))
	}
	for _, dir := range []string{
		filepath.Join(conformanceDir, "edge"),
		filepath.Join(conformanceDir, "network"),
		filepath.Join(conformanceDir, "goal"),
		filepath.Join("testdata", "text"),
		filepath.Join("testdata", "shared"),
	} {
		files, err := filepath.Glob(filepath.Join(dir, "*.goal"))
		if err != nil {
			f.Fatal(err)
		}
		for _, path := range files {
			data, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			if len(data) <= 8<<10 { // small files only: the fuzzer mutates them
				f.Add(data)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			t.Skip()
		}
		s, err := goal.ReadText(bytes.NewReader(data), "fuzz.goal")
		if err != nil {
			checkFuzzError(t, data, err)
			return
		}
		var out1, out2 bytes.Buffer
		if err := goal.WriteText(&out1, s); err != nil {
			t.Fatalf("WriteText of an accepted schedule: %v", err)
		}
		if err := goal.WriteText(&out2, s); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(out1.Bytes(), out2.Bytes()) {
			t.Fatal("WriteText is not deterministic")
		}
		back, err := goal.ReadText(bytes.NewReader(out1.Bytes()), "written.goal")
		if err != nil {
			t.Fatalf("reading WriteText output: %v\n%s", err, out1.Bytes())
		}
		if !reflect.DeepEqual(back, s) {
			t.Fatalf("write → read changed the schedule:\n got %+v\nwant %+v\ntext:\n%s", back, s, out1.Bytes())
		}
	})
}

// checkFuzzError checks that err is a *SyntaxError inside the input.
func checkFuzzError(t *testing.T, data []byte, err error) {
	t.Helper()
	var se *goal.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error %q (%T) is not a *goal.SyntaxError", err, err)
	}
	if !errors.Is(err, goal.ErrSyntax) {
		t.Fatalf("error %q does not unwrap to ErrSyntax", err)
	}
	if got, want := err.Error(), fmt.Sprintf("fuzz.goal:%d:%d: %s", se.Line, se.Col, se.Msg); got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
	lines := bytes.Split(data, []byte("\n"))
	if se.Line < 1 || se.Line > len(lines) {
		t.Fatalf("error %q: line outside 1..%d", err, len(lines))
	}
	if n := len(bytes.TrimSuffix(lines[se.Line-1], []byte("\r"))); se.Col < 1 || se.Col > n+1 {
		t.Fatalf("error %q: column outside 1..%d", err, n+1)
	}
	if se.Msg == "" {
		t.Fatalf("error %q has no message", err)
	}
}

// FuzzReadTextAt checks that reading a text in pieces on several
// goroutines gives exactly ReadText's schedule or error, whatever the text,
// for pieces of a few bytes (so that small inputs are cut too).
func FuzzReadTextAt(f *testing.F) {
	f.Add([]byte(bigText(12)))
	f.Add([]byte("num_ranks 2\nrank 0 {\n/*\nrank 1 {\n*/\n}\nrank 1 {\n}\n"))
	f.Add([]byte("num_ranks 3\nrank 0 {\n}\nrank 1 {\nrank 2 {\n}\n"))
	f.Add([]byte("num_ranks 2\r\nrank 0 {\r\nl1: calc 1\r\n}\r\nrank 1 {\r\n}\r"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			t.Skip()
		}
		checkTextAt(t, "fuzz.goal", string(data), 3, 40)
	})
}

// FuzzTextStream checks that a TextStream hands out exactly a
// TextReader's blocks and first error, whatever the text, for pieces of a
// few bytes (so that small inputs are cut too), without Limits and with
// small ones (a LimitError).
func FuzzTextStream(f *testing.F) {
	f.Add([]byte(bigText(12)))
	f.Add([]byte("num_ranks 2\nrank 0 {\n/*\nrank 1 {\n*/\n}\nrank 1 {\n}\n"))
	f.Add([]byte("num_ranks 3\nrank 0 {\n}\nrank 1 {\nrank 2 {\n}\n"))
	f.Add([]byte("num_ranks 2\r\nrank 0 {\r\nl1: calc 1\r\n}\r\nrank 1 {\r\n}\r"))
	f.Add([]byte("num_ranks 3\nrank 0 {\n}\nrank 1 {\n}\n"))
	f.Add([]byte("num_ranks 2\nrank 0 {\nl1: send 101b to 1\n}\nrank 1 {\nl1: recv 8b from 0\n}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			t.Skip()
		}
		for _, lim := range []goal.Limits{{}, {Message: 100, Calc: 1000}} {
			tr := goal.NewTextReader(bytes.NewReader(data), "fuzz.goal")
			tr.SetLimits(lim)
			want, wantErr := readBlocks(tr.Next)
			for _, size := range []int64{3, 40} {
				restore := goal.SetTextPieceSize(size)
				s := goal.NewTextStream(bytes.NewReader(data), int64(len(data)), "fuzz.goal", lim)
				got, err := readBlocks(s.Next)
				s.Close()
				restore()
				if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
					t.Fatalf("limits %+v, pieces of %d: error %v, want %v", lim, size, err, wantErr)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("limits %+v, pieces of %d: %d blocks, want %d, or other blocks", lim, size, len(got), len(want))
				}
			}
		}
	})
}
