package goal_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/excerpt"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/text")

// testName is the file name the tests give ReadText, so it starts every message.
const testName = "test.goal"

// head opens rank 0 of a two-rank file; the statements that follow are on line 3.
const head = "num_ranks 2\nrank 0 {\n"

// tail closes rank 0 and gives an empty rank 1.
const tail = "}\nrank 1 {\n}\n"

func readString(src string) (*goal.Schedule, error) {
	return goal.ReadText(strings.NewReader(src), testName)
}

// writeString is WriteText into a string.
func writeString(t testing.TB, s *goal.Schedule) string {
	t.Helper()
	var buf bytes.Buffer
	if err := goal.WriteText(&buf, s); err != nil {
		t.Fatalf("WriteText: %v", err)
	}
	return buf.String()
}

// checkSyntaxError checks that err is a *goal.SyntaxError at line:col whose
// message contains msg (or, if full is set, whose Error() is exactly full).
func checkSyntaxError(t *testing.T, err error, line, col int, msg, full string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %d:%d: %s", line, col, msg)
	}
	var se *goal.SyntaxError
	if !errors.As(err, &se) {
		t.Fatalf("error %q (%T) is not a *goal.SyntaxError", err, err)
	}
	if !errors.Is(err, goal.ErrSyntax) {
		t.Errorf("errors.Is(%q, goal.ErrSyntax) = false", err)
	}
	if got, want := err.Error(), fmt.Sprintf("%s:%d:%d: %s", se.File, se.Line, se.Col, se.Msg); got != want {
		t.Errorf("Error() = %q, not FILE:LINE:COL: MSG = %q", got, want)
	}
	if se.File != testName {
		t.Errorf("File = %q, want %q", se.File, testName)
	}
	if se.Line != line || se.Col != col {
		t.Errorf("error %q at %d:%d, want %d:%d", err, se.Line, se.Col, line, col)
	}
	if !strings.Contains(se.Msg, msg) {
		t.Errorf("error %q does not say %q", err, msg)
	}
	if full != "" && err.Error() != full {
		t.Errorf("error\n\t%q, want\n\t%q", err, full)
	}
}

// TestReadTextErrors covers every check that docs/goal-format.md asks of
// gopsim beyond LogGOPSim, and the grammar errors: each must be a
// *SyntaxError at the right FILE:LINE:COL.
func TestReadTextErrors(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		msg       string
		full      string // the whole Error() text, for a few message regressions
	}{
		// Peers outside 0..N-1.
		{name: "send peer out of range", src: head + "send 8b to 2\n" + tail,
			line: 3, col: 12, msg: "peer rank 2 outside 0..1 (num_ranks 2)"},
		{name: "send peer from schedgen", src: head + "l1: send 0b to 9999999\n" + tail,
			line: 3, col: 16, full: "test.goal:3:16: peer rank 9999999 outside 0..1 (num_ranks 2)"},
		{name: "recv peer out of range", src: head + "recv 8b from 7\n" + tail,
			line: 3, col: 14, msg: "peer rank 7 outside 0..1"},
		{name: "recv peer out of range extra blanks", src: head + "recv 8b from \t 7 tag 1\n" + tail,
			line: 3, col: 16, msg: "peer rank 7 outside 0..1"},
		{name: "peer checked when num_ranks comes inside rank 0", src: "rank 0 {\nl1: send 8b to 5\nnum_ranks 2\n}\n",
			line: 2, col: 16, msg: "peer rank 5 outside 0..1"},
		{name: "recv peer checked when num_ranks comes inside rank 0", src: "rank 0 {\nrecv 8b from 3\nnum_ranks 3\n}\n",
			line: 2, col: 14, msg: "peer rank 3 outside 0..2"},
		{name: "send to -1", src: head + "send 8b to -1\n" + tail,
			line: 3, col: 12, full: `test.goal:3:12: expected destination rank (an unsigned integer), found '-'`},
		{name: "recv from -12", src: head + "recv 8b from -12\n" + tail,
			line: 3, col: 14, msg: "expected source rank (an unsigned integer), found '-'"},

		// Missing, repeated, out-of-order rank blocks.
		{name: "missing last rank block", src: "num_ranks 3\nrank 0 {\n}\nrank 1 {\n}\n",
			line: 5, col: 2, full: "test.goal:5:2: file ends after 2 of 3 rank blocks: rank 2 is missing"},
		{name: "no rank blocks", src: "num_ranks 2\n",
			line: 1, col: 12, msg: "file ends after 0 of 2 rank blocks: rank 0 is missing"},
		{name: "repeated rank block", src: "num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n",
			line: 4, col: 6, full: "test.goal:4:6: rank 0 block repeated"},
		{name: "repeated rank block extra blanks", src: "num_ranks 2\nrank 0 {\n}\nrank \t 0 {\n}\n",
			line: 4, col: 8, msg: "rank 0 block repeated"},
		{name: "out of order rank block", src: "num_ranks 3\nrank 0 {\n}\nrank 2 {\n}\nrank 1 {\n}\n",
			line: 4, col: 6, msg: "rank 2 block where rank 1 was expected"},
		{name: "first block not rank 0", src: "num_ranks 2\nrank 1 {\n}\n",
			line: 2, col: 6, msg: "rank 1 block where rank 0 was expected"},
		{name: "rank beyond num_ranks", src: "num_ranks 1\nrank 0 {\n}\nrank 1 {\n}\n",
			line: 4, col: 6, msg: "rank 1 outside 0..0 (num_ranks 1)"},

		// Labels.
		{name: "label used before definition as successor", src: head + "l1: calc 1\nl3 requires l1\nl3: calc 2\n" + tail,
			line: 4, col: 1, full: "test.goal:4:1: label l3 used before it is defined in rank 0"},
		{name: "label used before definition as predecessor", src: head + "l1: calc 1\nl1 requires l2\nl2: calc 2\n" + tail,
			line: 4, col: 13, msg: "label l2 used before it is defined in rank 0"},
		{name: "irequires label used before definition", src: head + "a: calc 1\na  irequires   b\nb: calc 2\n" + tail,
			line: 4, col: 16, msg: "label b used before it is defined"},
		{name: "unlabeled op has no canonical label", src: head + "calc 1\nl2: calc 2\nl2 requires l1\n" + tail,
			line: 5, col: 13, msg: "label l1 used before it is defined"},
		{name: "labels are local to a rank", src: "num_ranks 2\nrank 0 {\na: calc 1\n}\nrank 1 {\nb: calc 1\nb requires a\n}\n",
			line: 7, col: 12, msg: "label a used before it is defined in rank 1"},
		{name: "duplicate label", src: head + "a: calc 1\na: calc 2\n" + tail,
			line: 4, col: 1, full: "test.goal:4:1: label a defined twice in rank 0"},
		{name: "duplicate canonical label", src: head + "l1: calc 1\nl1: calc 2\n" + tail,
			line: 4, col: 1, msg: "label l1 defined twice in rank 0"},
		{name: "duplicate of a label that would be canonical later", src: head + "l2: calc 1\nl2: calc 2\n" + tail,
			line: 4, col: 1, msg: "label l2 defined twice"},
		{name: "duplicate canonical label after unlabeled op", src: head + "calc 1\n  l2: calc 2\nl3: send 1b to 1\nl2: calc 4\n" + tail,
			line: 6, col: 1, msg: "label l2 defined twice"},

		// Dependency cycles.
		{name: "self cycle", src: head + "a: calc 1\na requires a\n" + tail,
			line: 4, col: 1, full: "test.goal:4:1: dependency cycle through this op"},
		{name: "self cycle irequires", src: head + "l1: calc 1\n  l1 irequires l1\n" + tail,
			line: 4, col: 3, msg: "dependency cycle"},

		// Integers that overflow their field.
		{name: "size overflows uint64", src: head + "send 18446744073709551616b to 1\n" + tail,
			line: 3, col: 6, full: "test.goal:3:6: message size in bytes 18446744073709551616 overflows its field (at most 18446744073709551615)"},
		{name: "recv size overflows uint64", src: head + "l1: recv 99999999999999999999b from 1\n" + tail,
			line: 3, col: 10, msg: "message size in bytes 99999999999999999999 overflows"},
		{name: "calc overflows uint64", src: head + "calc 100000000000000000000\n" + tail,
			line: 3, col: 6, msg: "calc time 100000000000000000000 overflows"},
		{name: "tag overflows", src: head + "send 1b to 1 tag 4294967295\n" + tail,
			line: 3, col: 18, full: "test.goal:3:18: tag 4294967295 overflows its field (at most 4294967294)"},
		{name: "tag overflows uint32", src: head + "recv 1b from 1 tag 4294967296\n" + tail,
			line: 3, col: 20, msg: "tag 4294967296 overflows"},
		{name: "cpu overflows", src: head + "calc 1 cpu 65536\n" + tail,
			line: 3, col: 12, msg: "cpu index 65536 overflows its field (at most 65535)"},
		{name: "send cpu overflows", src: head + "send 1b to 1 tag 0 cpu 70000\n" + tail,
			line: 3, col: 24, msg: "cpu index 70000 overflows"},
		{name: "nic overflows", src: head + "send 1b to 1 nic 65536\n" + tail,
			line: 3, col: 18, msg: "nic index 65536 overflows its field (at most 65535)"},
		{name: "num_ranks overflows int32", src: "num_ranks 2147483648\n",
			line: 1, col: 11, full: "test.goal:1:11: number of ranks 2147483648 overflows its field (at most 2147483647)"},
		{name: "rank number overflows", src: "num_ranks 2\nrank 4294967296 {\n}\n",
			line: 2, col: 6, msg: "rank number 4294967296 overflows"},
		{name: "peer overflows int32", src: head + "send 1b to 2147483648\n" + tail,
			line: 3, col: 12, msg: "destination rank 2147483648 overflows"},

		// Grammar errors.
		{name: "missing b", src: head + "send 8 to 1\n" + tail,
			line: 3, col: 8, full: `test.goal:3:8: expected "b" after the size, found 't'`},
		{name: "missing b at end of line", src: head + "recv 8\n" + tail,
			line: 3, col: 7, msg: `expected "b" after the size, found end of line`},
		{name: "missing size", src: head + "send b to 1\n" + tail,
			line: 3, col: 6, msg: "expected message size in bytes (an unsigned integer), found 'b'"},
		{name: "send from", src: head + "send 8b from 1\n" + tail,
			line: 3, col: 9, msg: `expected "to", found 'f'`},
		{name: "recv to", src: head + "recv 8b to 1\n" + tail,
			line: 3, col: 9, msg: `expected "from", found 't'`},
		{name: "clauses out of order", src: head + "send 1b to 1 nic 1 tag 2\n" + tail,
			line: 3, col: 20, msg: "expected end of line, found 't'"},
		{name: "calc with nic", src: head + "calc 5 nic 1\n" + tail,
			line: 3, col: 8, msg: `expected "cpu" or end of line, found 'n'`},
		{name: "calc with tag", src: head + "calc 5 cpu 1 tag 1\n" + tail,
			line: 3, col: 14, msg: "expected end of line, found 't'"},
		{name: "block comment after statement", src: head + "calc 5 /* no */\n" + tail,
			line: 3, col: 8, msg: `expected "cpu" or end of line, found '/'`},
		{name: "label without op", src: head + "l1:\n" + tail,
			line: 3, col: 4, msg: `expected "send", "recv" or "calc", found end of line`},
		{name: "label without colon", src: head + "l1 send 1b to 1\n" + tail,
			line: 3, col: 4, msg: `expected ":", "requires" or "irequires" after label l1, found 's'`},
		{name: "keyword glued to size", src: head + "send10b to 1\n" + tail,
			line: 3, col: 9, msg: `after label send10b`},
		{name: "requires without label", src: head + "a: calc 1\na requires\n" + tail,
			line: 4, col: 11, msg: "expected a label, found end of line"},
		{name: "requires followed by junk", src: head + "a: calc 1\nb: calc 1\nb requires a c\n" + tail,
			line: 5, col: 14, msg: "expected end of line, found 'c'"},
		{name: "rank without brace", src: "num_ranks 1\nrank 0\n}\n",
			line: 2, col: 7, msg: `expected "{", found end of line`},
		{name: "rank without number", src: "num_ranks 1\nrank {\n}\n",
			line: 2, col: 6, msg: "expected rank number (an unsigned integer), found '{'"},
		{name: "num_ranks without number", src: "num_ranks\n",
			line: 1, col: 10, msg: "expected number of ranks (an unsigned integer), found end of line"},
		{name: "unterminated block comment", src: head + "/* open\nsend 1b to 1\n" + tail,
			line: 3, col: 1, full: "test.goal:3:1: comment /* never closed by */"},
		{name: "unterminated block comment after num_ranks", src: "num_ranks 1 /* x",
			line: 1, col: 13, msg: "comment /* never closed by */"},
		{name: "unterminated block comment after closed one", src: "/* a */ /* b */ /*\nnum_ranks 1\n",
			line: 1, col: 17, msg: "comment /* never closed by */"},
		{name: "send outside rank block", src: "num_ranks 1\nsend 8b to 0\nrank 0 {\n}\n",
			line: 2, col: 1, full: "test.goal:2:1: send outside a rank block"},
		{name: "labelled op outside rank block", src: "num_ranks 1\n  l1: calc 5\n",
			line: 2, col: 3, msg: `expected "rank", "num_ranks" or a comment, found "l1"`},
		{name: "requires outside rank block", src: "num_ranks 1\nrank 0 {\nl1: calc 1\n}\nl1 requires l1\n",
			line: 5, col: 1, msg: `expected "rank", "num_ranks" or a comment, found "l1"`},
		{name: "close brace outside rank block", src: "num_ranks 1\n}\n",
			line: 2, col: 1, msg: `expected "rank", "num_ranks" or a comment, found '}'`},
		{name: "missing close brace at EOF", src: "num_ranks 1\nrank 0 {\ncalc 1\n",
			line: 3, col: 7, full: `test.goal:3:7: expected "}" closing rank 0, found end of file`},
		{name: "missing close brace at EOF without newline", src: "num_ranks 1\nrank 0 {\ncalc 1",
			line: 3, col: 7, msg: `expected "}" closing rank 0, found end of file`},
		{name: "missing close brace before next rank", src: "num_ranks 2\nrank 0 {\ncalc 1\nrank 1 {\n}\n",
			line: 4, col: 1, msg: `rank block opened inside rank 0 (missing "}")`},
		{name: "num_ranks repeated", src: "num_ranks 2\n  num_ranks 2\n",
			line: 2, col: 3, full: "test.goal:2:3: num_ranks given again (first on line 1)"},
		{name: "num_ranks repeated after blocks", src: "num_ranks 1\nrank 0 {\n}\nnum_ranks 1\n",
			line: 4, col: 1, msg: "num_ranks given again"},
		{name: "num_ranks missing", src: "rank 0 {\ncalc 1\n}\n",
			line: 3, col: 1, full: "test.goal:3:1: rank 0 closed before num_ranks was given"},
		{name: "num_ranks zero given inside the block", src: "rank 0 {\nnum_ranks 0\n}\n",
			line: 2, col: 1, full: "test.goal:2:1: num_ranks 0: a schedule has at least 1 rank"},
		{name: "zero ranks", src: "num_ranks 0\n",
			line: 1, col: 1, full: "test.goal:1:1: num_ranks 0: a schedule has at least 1 rank"},
		{name: "a huge token is quoted in part", src: "num_ranks 1\nrank 0 {\ncalc " + strings.Repeat("9", 5000) + "\n}\n",
			line: 3, col: 6, full: "test.goal:3:6: calc time " + strings.Repeat("9", excerpt.Keep) + "… (5000 bytes) overflows its field (at most 18446744073709551615)"},
		{name: "a huge word is quoted in part", src: strings.Repeat("x", 3000) + "\n",
			line: 1, col: 1, full: "test.goal:1:1: expected \"rank\", \"num_ranks\" or a comment, found \"" + strings.Repeat("x", excerpt.Keep) + "…\" (3000 bytes)"},
		{name: "num_ranks inside the block below a peer", src: "rank 0 {\nl1: send 8b to 5\nnum_ranks 2\n}\n",
			line: 2, col: 16, msg: "peer rank 5 outside 0..1"},
		{name: "num_ranks missing in file of comments", src: "// nothing\n/* here */\n\n",
			line: 1, col: 1, full: "test.goal:1:1: no num_ranks statement in the file"},
		{name: "empty file", src: "",
			line: 1, col: 1, full: "test.goal:1:1: empty file: expected num_ranks and rank blocks"},
		{name: "non-ASCII label", src: head + "\xc3\xa9: calc 1\n" + tail,
			line: 3, col: 1, full: `test.goal:3:1: expected "send", "recv", "calc", a label, "}" or a comment, found byte 0xc3`},
		{name: "garbage before num_ranks", src: "\xff\xfenum_ranks 1\n",
			line: 1, col: 1, msg: `expected "rank", "num_ranks" or a comment, found byte 0xff`},
		{name: "NUL byte in statement", src: head + "calc 1\x00\n" + tail,
			line: 3, col: 7, msg: "found byte 0x00"},
		{name: "lone carriage return", src: head + "calc 5\r\r\n" + tail,
			line: 3, col: 7, msg: "found byte 0x0d"},
		{name: "uppercase keyword", src: head + "l1: SEND 1b to 1\n" + tail,
			line: 3, col: 5, msg: `expected "send", "recv" or "calc", found 'S'`},

		// Columns stay byte columns with CRLF line endings and tabs.
		{name: "CRLF peer out of range", src: "num_ranks 2\r\nrank 0 {\r\n\tsend 8b to 2\r\n}\r\nrank 1 {\r\n}\r\n",
			line: 3, col: 13, msg: "peer rank 2 outside 0..1"},
		{name: "CRLF end of line", src: "num_ranks 2\r\nrank 0 {\r\nrecv 8\r\n}\r\n",
			line: 3, col: 7, msg: `expected "b" after the size, found end of line`},
		{name: "CRLF missing close brace", src: "num_ranks 1\r\nrank 0 {\r\ncalc 1\r\n",
			line: 3, col: 7, msg: `expected "}" closing rank 0, found end of file`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := readString(tc.src)
			if err == nil {
				t.Fatalf("ReadText accepted %q: %+v", tc.src, s)
			}
			if s != nil {
				t.Errorf("ReadText returned a schedule with error %v", err)
			}
			msg := tc.msg
			if msg == "" {
				_, msg, _ = strings.Cut(tc.full, fmt.Sprintf(":%d:%d: ", tc.line, tc.col))
			}
			checkSyntaxError(t, err, tc.line, tc.col, msg, tc.full)
		})
	}
}

// TestReadTextCycle checks that a cycle is reported on a requires line of
// the cycle, not on one of the edges that lead into or out of it.
func TestReadTextCycle(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		cycle []int // the lines of the requires statements on the cycle
	}{
		{
			name: "three-cycle",
			src: head +
				"x: calc 0\n" + // 3
				"a: calc 1\n" + // 4
				"b: calc 2\n" + // 5
				"c: calc 3\n" + // 6
				"a requires x\n" + // 7: into the cycle
				"b requires a\n" + // 8
				"c requires b\n" + // 9
				"d: calc 4\n" + // 10
				"d requires c\n" + // 11: out of the cycle
				"a requires c\n" + // 12: closes the cycle
				tail,
			cycle: []int{8, 9, 12},
		},
		{
			name: "three-cycle of irequires and requires",
			src: head +
				"l1: calc 1\n" + // 3
				"l2: send 1b to 1\n" + // 4
				"l3: recv 1b from 1\n" + // 5
				"l4: calc 1\n" + // 6
				"l4 requires l3\n" + // 7: out of the cycle
				"l2 irequires l1\n" + // 8
				"l3 requires l2\n" + // 9
				"l1 irequires l3\n" + // 10
				tail,
			cycle: []int{8, 9, 10},
		},
		{
			name: "two-cycle behind a long chain",
			src: head +
				"a: calc 1\nb: calc 1\nc: calc 1\nd: calc 1\ne: calc 1\n" + // 3-7
				"b requires a\nc requires b\nd requires c\ne requires d\n" + // 8-11
				"  d requires e\n", // 12
			cycle: []int{11, 12},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			if !strings.HasSuffix(src, tail) {
				src += tail
			}
			_, err := readString(src)
			var se *goal.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *goal.SyntaxError", err)
			}
			if !slices.Contains(tc.cycle, se.Line) {
				t.Errorf("cycle reported at %v, want one of lines %v", err, tc.cycle)
			}
			// The column is that of the requires statement's first label.
			line := strings.Split(src, "\n")[se.Line-1]
			wantCol := len(line) - len(strings.TrimLeft(line, " \t")) + 1
			checkSyntaxError(t, err, se.Line, wantCol, "dependency cycle through this op", "")
		})
	}
}

// TestReadTextAccepts parses the corner cases of the grammar that
// LogGOPSim's txt2bin accepts, and a few that gopsim adds, and checks the
// schedule through its canonical text form.
func TestReadTextAccepts(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // WriteText of the schedule
	}{
		{
			name: "no blank after colon",
			src:  "num_ranks 2\nrank 0 {\nl1:send 10b to 1\n}\nrank 1 {\n}\n",
			want: "num_ranks 2\n\nrank 0 {\nl1: send 10b to 1 tag 0\n}\n\nrank 1 {\n}\n",
		},
		{
			name: "blank before b",
			src:  "num_ranks 2\nrank 0 {\nsend 10 b to 1\n}\nrank 1 {\nrecv 10 b from 0\n}\n",
			want: "num_ranks 2\n\nrank 0 {\nsend 10b to 1 tag 0\n}\n\nrank 1 {\nrecv 10b from 0 tag 0\n}\n",
		},
		{
			name: "no blanks where tokens cannot run together",
			src: "num_ranks 2\nrank 0{\nl1:send 10bto1tag5cpu1nic2\nl2:calc5cpu3\nl2 requiresl1\n}\n" +
				"rank 1{\nl1 :recv 10bfrom0tag-1\nl2 :recv 3bfrom-1tag7\nl2 irequiresl1\n}\n",
			want: "num_ranks 2\n\nrank 0 {\nl1: send 10b to 1 tag 5 cpu 1 nic 2\nl2: calc 5 cpu 3\nl2 requires l1\n}\n" +
				"\nrank 1 {\nl1: recv 10b from 0 tag -1\nl2: recv 3b from -1 tag 7\nl2 irequires l1\n}\n",
		},
		{
			name: "tabs and trailing blanks",
			src: "\tnum_ranks\t2 \t\nrank\t0\t{\t\n\tl1\t:\tsend\t10b\tto\t1\ttag\t3 \t\n\tl2:calc 1\n" +
				"\tl2 \trequires\tl1\t\n}\t\nrank 1 {\n\t}\n",
			want: "num_ranks 2\n\nrank 0 {\nl1: send 10b to 1 tag 3\nl2: calc 1\nl2 requires l1\n}\n\nrank 1 {\n}\n",
		},
		{
			name: "comments",
			src: "// leading comment\n/* a block\n   comment */ num_ranks 2 // after num_ranks\n" +
				"rank 0 { // after the brace\n// own line\n  /* own line */\n/* spans\nlines */ l1: calc 5\n" +
				"/**/l2: calc 6 // gopsim allows this\nl2 requires l1 // and this\n} // after the block\n" +
				"/* between */ rank 1 { /* after brace */ }\n// trailing\n",
			want: "num_ranks 2\n\nrank 0 {\nl1: calc 5\nl2: calc 6\nl2 requires l1\n}\n\nrank 1 {\n}\n",
		},
		{
			name: "num_ranks on the rank 0 line",
			src:  "num_ranks 2 rank 0 {\ncalc 1\n}\nrank 1 {\n}\n",
			want: "num_ranks 2\n\nrank 0 {\ncalc 1\n}\n\nrank 1 {\n}\n",
		},
		{
			name: "statements right after the brace and blocks on one line",
			src:  "num_ranks 3\nrank 0 { l1: calc 1\n} rank 1 { calc 2\n}rank 2 {}\n",
			want: "num_ranks 3\n\nrank 0 {\nl1: calc 1\n}\n\nrank 1 {\ncalc 2\n}\n\nrank 2 {\n}\n",
		},
		{
			name: "num_ranks inside rank 0",
			src:  "rank 0 {\nnum_ranks 1\ncalc 1\n}\n",
			want: "num_ranks 1\n\nrank 0 {\ncalc 1\n}\n",
		},
		{
			name: "unlabeled ops and wildcards",
			src:  "num_ranks 2\nrank 0 {\nsend 1b to 1 tag -1\ncalc 7\nl3: calc 8\n}\nrank 1 {\nrecv 1b from -1 tag -1\nrecv 0b from -1\n}\n",
			want: "num_ranks 2\n\nrank 0 {\nsend 1b to 1 tag -1\ncalc 7\nl3: calc 8\n}\n\nrank 1 {\nrecv 1b from -1 tag -1\nrecv 0b from -1 tag 0\n}\n",
		},
		{
			name: "cpu and nic clauses",
			src:  "num_ranks 2\nrank 0 {\nsend 1b to 1 cpu 2\nsend 1b to 1 nic 3\nsend 1b to 1 cpu 0 nic 0\ncalc 1 cpu 4\n}\nrank 1 {\nrecv 1b from 0 tag 1 nic 1\n}\n",
			want: "num_ranks 2\n\nrank 0 {\nsend 1b to 1 tag 0 cpu 2\nsend 1b to 1 tag 0 nic 3\nsend 1b to 1 tag 0\ncalc 1 cpu 4\n}\n\nrank 1 {\nrecv 1b from 0 tag 1 nic 1\n}\n",
		},
		{
			name: "irequires and requires",
			src:  "num_ranks 1\nrank 0 {\na: calc 10\nb: calc 20 cpu 1\nb irequires a\nc: calc 5\nc requires a\nc requires b\n}\n",
			want: "num_ranks 1\n\nrank 0 {\na: calc 10\nb: calc 20 cpu 1\nc: calc 5\nb irequires a\nc requires a\nc requires b\n}\n",
		},
		{
			name: "dependency on a later op",
			src:  "num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 2\nl1 requires l2\n}\n",
			want: "num_ranks 1\n\nrank 0 {\nl1: calc 1\nl2: calc 2\nl1 requires l2\n}\n",
		},
		{
			name: "keywords as labels",
			src:  "num_ranks 1\nrank 0 {\nto: calc 1\nrequires: calc 2\nb: calc 3\nrequires requires to\nb irequires requires\n}\n",
			want: "num_ranks 1\n\nrank 0 {\nto: calc 1\nrequires: calc 2\nb: calc 3\nrequires requires to\nb irequires requires\n}\n",
		},
		{
			name: "canonical label on another op",
			src:  "num_ranks 1\nrank 0 {\ncalc 1\nl1: calc 2\nl3: calc 3\nl3 requires l1\n}\n",
			want: "num_ranks 1\n\nrank 0 {\ncalc 1\nl1: calc 2\nl3: calc 3\nl3 requires l1\n}\n",
		},
		{
			name: "leading zeros and limits",
			src: "num_ranks 02\nrank 00 {\nsend 18446744073709551615b to 01 tag 4294967294 cpu 65535 nic 65535\ncalc 18446744073709551615\n}\n" +
				"rank 1 {\n}\n",
			want: "num_ranks 2\n\nrank 0 {\nsend 18446744073709551615b to 1 tag 4294967294 cpu 65535 nic 65535\ncalc 18446744073709551615\n}\n\nrank 1 {\n}\n",
		},
		{
			name: "CRLF line endings",
			src:  "num_ranks 2\r\nrank 0 {\r\nl1: send 1b to 1\r\n// c\r\n/* c\r\n */\r\n}\r\nrank 1 {\r\nrecv 1b from 0\r\n}\r\n",
			want: "num_ranks 2\n\nrank 0 {\nl1: send 1b to 1 tag 0\n}\n\nrank 1 {\nrecv 1b from 0 tag 0\n}\n",
		},
		{
			name: "no final newline",
			src:  "num_ranks 1\nrank 0 {\ncalc 1\n}",
			want: "num_ranks 1\n\nrank 0 {\ncalc 1\n}\n",
		},
		{
			name: "final carriage return",
			src:  "num_ranks 1\r\nrank 0 {\r\ncalc 1\r\n}\r",
			want: "num_ranks 1\n\nrank 0 {\ncalc 1\n}\n",
		},
		{
			name: "no final newline after a comment",
			src:  "num_ranks 1\nrank 0 {\ncalc 1\n}\n// end",
			want: "num_ranks 1\n\nrank 0 {\ncalc 1\n}\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := readString(tc.src)
			if err != nil {
				t.Fatalf("ReadText: %v", err)
			}
			if got := writeString(t, s); got != tc.want {
				t.Errorf("WriteText of the schedule read:\n%s\nwant:\n%s", got, tc.want)
			}
			checkRoundTrip(t, s)
		})
	}
}

// TestReadTextValues checks the fields of the ops and edges read from a
// file that uses every feature.
func TestReadTextValues(t *testing.T) {
	src := "num_ranks 3\n" +
		"rank 0 {\n" +
		"a: send 1024b to 1 tag 7 cpu 1 nic 2\n" +
		"calc 500\n" +
		"l3: calc 20 cpu 3\n" +
		"l3 requires a\n" +
		"l3 irequires a\n" +
		"}\n" +
		"rank 1 {\n" +
		"l1: recv 1024b from -1 tag -1\n" +
		"l2: send 0b to 2 tag -1\n" +
		"l2 requires l1\n" +
		"}\n" +
		"rank 2 {\n" +
		"recv 0b from 1 tag 4294967294\n" +
		"}\n"
	s, err := readString(src)
	if err != nil {
		t.Fatal(err)
	}
	want := &goal.Schedule{
		NumRanks: 3,
		NumCPUs:  4,
		NumNICs:  3,
		Ops: []goal.Op{
			{Kind: goal.Send, Size: 1024, Peer: 1, Tag: 7, CPU: 1, NIC: 2},
			{Kind: goal.Calc, Size: 500},
			{Kind: goal.Calc, Size: 20, CPU: 3},
			{Kind: goal.Recv, Size: 1024, Peer: goal.AnySource, Tag: goal.AnyTag},
			{Kind: goal.Send, Size: 0, Peer: 2, Tag: goal.AnyTag},
			{Kind: goal.Recv, Size: 0, Peer: 1, Tag: goal.MaxTag},
		},
		RankStart: []int32{0, 3, 5, 6},
		DepStart:  []int32{0, 2, 2, 2, 3, 3, 3},
		Deps:      []goal.Dep{goal.MakeDep(2, false), goal.MakeDep(2, true), goal.MakeDep(1, false)},
		Labels:    map[int32]string{0: "a", 1: "", 5: ""},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("ReadText:\n got %+v\nwant %+v", s, want)
	}
	if got := s.Label(0); got != "a" {
		t.Errorf("Label(0) = %q, want a", got)
	}
	if got := s.Label(2); got != "l3" {
		t.Errorf("Label(2) = %q, want l3", got)
	}
	if got := s.Label(4); got != "l2" {
		t.Errorf("Label(4) = %q, want l2", got)
	}
}

// TestReadTextHugeNumRanks checks that num_ranks, a number from the
// input, does not make the reader reserve memory for that many ranks
// before they arrive: this 33-byte file once took 16 GB.
func TestReadTextHugeNumRanks(t *testing.T) {
	src := "num_ranks 2147483647\nrank 0 {\n}\n"
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := readString(src)
	runtime.ReadMemStats(&after)
	checkSyntaxError(t, err, 3, 2, "file ends after 1 of 2147483647 rank blocks: rank 1 is missing", "")
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("reading %d bytes allocated %d bytes", len(src), n)
	}
}

// TestTextReaderStream reads blocks one at a time, reusing one RankBlock,
// and compares each with the same rank of the whole schedule.
func TestTextReaderStream(t *testing.T) {
	path := filepath.Join(conformanceDir, "edge", "edge01_irequires_cpu1.goal")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := goal.ReadText(bytes.NewReader(data), path)
	if err != nil {
		t.Fatal(err)
	}
	tr := goal.NewTextReader(bytes.NewReader(data), path)
	if n := tr.NumRanks(); n != -1 {
		t.Errorf("NumRanks before Next = %d, want -1", n)
	}
	var b, want goal.RankBlock
	r := 0
	for {
		err := tr.Next(&b)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if tr.NumRanks() != whole.NumRanks {
			t.Errorf("NumRanks = %d, want %d", tr.NumRanks(), whole.NumRanks)
		}
		whole.Block(r, &want)
		if !blocksEqual(&b, &want) {
			t.Errorf("block %d:\n got %+v\nwant %+v", r, b, want)
		}
		r++
	}
	if r != whole.NumRanks {
		t.Errorf("read %d blocks, want %d", r, whole.NumRanks)
	}
	if err := tr.Next(&b); err != io.EOF {
		t.Errorf("Next after the end = %v, want io.EOF", err)
	}
}

// blocksEqual compares blocks ignoring nil versus empty slices.
func blocksEqual(a, b *goal.RankBlock) bool {
	return a.Rank == b.Rank && slices.Equal(a.Ops, b.Ops) && slices.Equal(a.DepStart, b.DepStart) &&
		slices.Equal(a.Deps, b.Deps) && slices.Equal(a.Labels, b.Labels)
}

// errReader returns its data, then err.
type errReader struct {
	data []byte
	err  error
}

func (r *errReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestReadTextIOError(t *testing.T) {
	errDisk := errors.New("disk on fire")
	_, err := goal.ReadText(&errReader{data: []byte("num_ranks 1\nrank 0 {\n"), err: errDisk}, testName)
	if !errors.Is(err, errDisk) {
		t.Fatalf("error %v does not wrap the reader's error", err)
	}
	if errors.Is(err, goal.ErrSyntax) {
		t.Errorf("I/O error %v claims to be a syntax error", err)
	}
	if !strings.HasPrefix(err.Error(), testName+": line 3: ") {
		t.Errorf("I/O error %q does not name the file and line", err)
	}
}

const conformanceDir = "../sim/testdata/conformance"

// acceptanceFiles lists the GOAL files that every version of the reader
// must parse: the conformance schedules and the shared samples.
func acceptanceFiles(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{
		filepath.Join(conformanceDir, "goal", "*.goal"),
		filepath.Join(conformanceDir, "edge", "*.goal"),
		filepath.Join(conformanceDir, "network", "*.goal"),
		filepath.Join("testdata", "shared", "*.goal"),
	} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		if len(m) == 0 {
			t.Fatalf("no files match %s", pattern)
		}
		files = append(files, m...)
	}
	return files
}

// checkRoundTrip writes s twice, checks the outputs are identical, and
// reads one back, which must give s again.
func checkRoundTrip(t *testing.T, s *goal.Schedule) {
	t.Helper()
	out1 := writeString(t, s)
	out2 := writeString(t, s)
	if out1 != out2 {
		t.Fatalf("WriteText is not deterministic")
	}
	back, err := readString(out1)
	if err != nil {
		t.Fatalf("reading WriteText output: %v\n%s", err, out1)
	}
	if !reflect.DeepEqual(back, s) {
		t.Fatalf("read → write → read changed the schedule:\n got %+v\nwant %+v", back, s)
	}
	if out3 := writeString(t, back); out3 != out1 {
		t.Fatalf("write → read → write changed the text")
	}
}

func TestReadTextConformance(t *testing.T) {
	for _, path := range acceptanceFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s, format, err := goal.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if format != goal.FormatText {
				t.Errorf("format %v, want text", format)
			}
			if s.NumRanks < 1 || !s.Complete() || s.NumOps() == 0 {
				t.Errorf("schedule of %d ranks, %d ops, complete %v", s.NumRanks, s.NumOps(), s.Complete())
			}
			checkRoundTrip(t, s)
		})
	}
}

// TestTextGolden reads testdata/text/*.goal and compares WriteText of the
// schedule, or the error for a file that must be rejected, with the
// .golden file next to it. go test -run TestTextGolden -update rewrites them.
func TestTextGolden(t *testing.T) {
	inputs, err := filepath.Glob(filepath.Join("testdata", "text", "*.goal"))
	if err != nil {
		t.Fatal(err)
	}
	if len(inputs) == 0 {
		t.Fatal("no testdata/text/*.goal files")
	}
	for _, in := range inputs {
		name := strings.TrimSuffix(filepath.Base(in), ".goal")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			// Use the base name so messages do not depend on the OS's separator.
			s, err := goal.ReadText(bytes.NewReader(data), filepath.Base(in))
			var got []byte
			switch {
			case strings.HasPrefix(name, "err_"):
				if err == nil {
					t.Fatalf("%s was accepted, want an error", in)
				}
				if !errors.Is(err, goal.ErrSyntax) {
					t.Errorf("error %v is not a syntax error", err)
				}
				got = []byte(err.Error() + "\n")
			case err != nil:
				t.Fatal(err)
			default:
				got = []byte(writeString(t, s))
				checkRoundTrip(t, s)
			}
			golden := strings.TrimSuffix(in, ".goal") + ".golden"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestTextGolden -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s:\n--- got\n%s--- want\n%s", golden, got, want)
			}
		})
	}
}

func TestTextWriterErrors(t *testing.T) {
	s, err := readString("num_ranks 2\nrank 0 {\ncalc 1\n}\nrank 1 {\ncalc 1\n}\n")
	if err != nil {
		t.Fatal(err)
	}
	var b goal.RankBlock
	t.Run("rank out of order", func(t *testing.T) {
		w, err := goal.NewTextWriter(io.Discard, 2)
		if err != nil {
			t.Fatal(err)
		}
		s.Block(1, &b)
		if err := w.WriteRank(&b); err == nil {
			t.Error("WriteRank accepted rank 1 first")
		}
	})
	t.Run("too many ranks", func(t *testing.T) {
		w, _ := goal.NewTextWriter(io.Discard, 1)
		s.Block(0, &b)
		if err := w.WriteRank(&b); err != nil {
			t.Fatal(err)
		}
		s.Block(1, &b)
		if err := w.WriteRank(&b); err == nil {
			t.Error("WriteRank accepted a second rank in a schedule of 1")
		}
	})
	t.Run("closed early", func(t *testing.T) {
		w, _ := goal.NewTextWriter(io.Discard, 2)
		s.Block(0, &b)
		if err := w.WriteRank(&b); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err == nil {
			t.Error("Close after 1 of 2 ranks succeeded")
		}
	})
	t.Run("dependency without label", func(t *testing.T) {
		if err := goal.WriteText(io.Discard, unlabeledDeps(t)); err == nil {
			t.Error("WriteText accepted a dependency between unlabeled ops")
		}
	})
	t.Run("unknown kind", func(t *testing.T) {
		bad := goal.NewSchedule(1)
		if err := bad.AppendRank(&goal.RankBlock{Ops: []goal.Op{{Kind: 9}}, DepStart: []int32{0, 0}}); err != nil {
			t.Fatal(err)
		}
		if err := goal.WriteText(io.Discard, bad); err == nil {
			t.Error("WriteText accepted an op of kind 9")
		}
	})
}

// unlabeledDeps is a one-rank schedule whose second op requires its
// first, neither of which has a label: it cannot be written as text.
func unlabeledDeps(t testing.TB) *goal.Schedule {
	t.Helper()
	s := goal.NewSchedule(1)
	err := s.AppendRank(&goal.RankBlock{
		Ops:      []goal.Op{{Kind: goal.Calc, Size: 1}, {Kind: goal.Calc, Size: 2}},
		DepStart: []int32{0, 1, 1},
		Deps:     []goal.Dep{goal.MakeDep(1, false)},
		Labels:   []goal.Label{{Op: 0, Name: ""}, {Op: 1, Name: ""}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const benchFile = conformanceDir + "/goal/allreduce_ring_n64_d65536_seqtag.goal"

func BenchmarkReadText(b *testing.B) {
	data, err := os.ReadFile(benchFile)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := goal.ReadText(bytes.NewReader(data), benchFile); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteText(b *testing.B) {
	s, _, err := goal.ReadFile(benchFile)
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := goal.WriteText(&buf, s); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ReportAllocs()
	for b.Loop() {
		if err := goal.WriteText(io.Discard, s); err != nil {
			b.Fatal(err)
		}
	}
}

// traceText is a text in the shape gopsim convert writes for a traced
// program: per rank a chain of calcs, sends and receives with canonical
// labels, each op requiring the one before, the edges after the ops.
func traceText(ranks, ops int) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "num_ranks %d\n\n", ranks)
	for r := 0; r < ranks; r++ {
		fmt.Fprintf(&b, "rank %d {\n", r)
		for i := 1; i <= ops; i++ {
			switch i % 3 {
			case 0:
				fmt.Fprintf(&b, "l%d: calc %d\n", i, 1000+i*37%100000)
			case 1:
				fmt.Fprintf(&b, "l%d: send %db to %d tag %d\n", i, 8+i*13%40000, (r+1)%ranks, i%5)
			default:
				fmt.Fprintf(&b, "l%d: recv %db from %d tag %d\n", i, 8+i*13%40000, (r+ranks-1)%ranks, i%5)
			}
		}
		for i := 2; i <= ops; i++ {
			fmt.Fprintf(&b, "l%d requires l%d\n", i, i-1)
		}
		b.WriteString("}\n\n")
	}
	return b.Bytes()
}

// BenchmarkTextReaderTrace reads a traced program's text with one
// TextReader: the parser's own speed (bytes/s).
func BenchmarkTextReaderTrace(b *testing.B) {
	data := traceText(64, 3000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	var blk goal.RankBlock
	for b.Loop() {
		t := goal.NewTextReader(bytes.NewReader(data), "trace.goal")
		for {
			if err := t.Next(&blk); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
		}
	}
}
