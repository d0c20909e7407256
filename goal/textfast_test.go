package goal_test

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// fastPathTexts are lines the fast path reads and lines that look like
// them but which it must leave to the general path: each reads the same,
// block for block and error for error, with the fast path and without.
var fastPathTexts = map[string]string{
	"every fast statement":  "num_ranks 3\nrank 0 {\nl1: send 1024b to 1 tag 7\nl2: recv 8b from 2 tag 0\nl3: calc 500\nl4: send 1b to 2\nl3 requires l1\nl4 irequires l3\nl4 requires l2\n}\nrank 1 {\nl1: recv 1024b from 0 tag 7\n}\nrank 2 {\nl1: send 8b to 0 tag 0\nl2: recv 1b from 0\n}\n",
	"crlf":                  "num_ranks 1\r\nrank 0 {\r\nl1: calc 5\r\nl2: calc 6\r\nl2 requires l1\r\n}\r\n",
	"blanks and comments":   "num_ranks 2\nrank 0 {\nl1:  send 8b to 1\nl2: calc 5 \nl3: calc\t6\nl2  requires l1\nl3 requires l2 // c\nl1 : calc 1\n}\nrank 1 {\nl1: recv 8b from 0 tag 1 cpu 0\n}\n",
	"wildcards":             "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 3\n}\nrank 1 {\nl1: recv 8b from -1 tag -1\n}\n",
	"label not its op's":    "num_ranks 1\nrank 0 {\nl2: calc 1\nl1: calc 2\nl1 requires l2\n}\n",
	"label defined twice":   "num_ranks 1\nrank 0 {\nl1: calc 1\nl1: calc 2\n}\n",
	"label after a named":   "num_ranks 1\nrank 0 {\nl2: calc 1\nl1: calc 2\nl3: calc 2\nl2: calc 3\n}\n",
	"named as a later op":   "num_ranks 1\nrank 0 {\nl2: calc 1\nl2: calc 2\n}\n",
	"num_ranks in block":    "rank 0 {\nl1: calc 1\nl2: send 8b to 5 tag 1\nnum_ranks 2\n}\nrank 1 {\n}\n",
	"label used too early":  "num_ranks 1\nrank 0 {\nl1: calc 1\nl1 requires l2\nl2: calc 1\n}\n",
	"label l0":              "num_ranks 1\nrank 0 {\nl0: calc 1\nl1: calc 1\nl1 requires l0\n}\n",
	"label with letters":    "num_ranks 1\nrank 0 {\nl1x: calc 1\nl1_: calc 1\nl2: calc 1\nl2 requires l1x\n}\n",
	"leading zero":          "num_ranks 2\nrank 0 {\nl1: send 08b to 01 tag 007\nl2: calc 00\n}\nrank 1 {\nl1: recv 8b from 0 tag 7\n}\n",
	"peer outside":          "num_ranks 2\nrank 0 {\nl1: send 8b to 2\n}\nrank 1 {\n}\n",
	"peer too large":        "num_ranks 2\nrank 0 {\nl1: send 8b to 2147483648\n}\nrank 1 {\n}\n",
	"tag too large":         "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 4294967295\n}\nrank 1 {\n}\n",
	"tag largest":           "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 4294967294\n}\nrank 1 {\nl1: recv 8b from 0 tag 4294967294\n}\n",
	"size of 19 digits":     "num_ranks 2\nrank 0 {\nl1: send 1000000000000000000b to 1\nl2: calc 9999999999999999999\n}\nrank 1 {\n}\n",
	"size overflows":        "num_ranks 2\nrank 0 {\nl1: send 18446744073709551616b to 1\n}\nrank 1 {\n}\n",
	"beyond the limits":     "num_ranks 2\nrank 0 {\nl1: send 101b to 1\nl2: calc 1001\n}\nrank 1 {\nl1: recv 101b from 0\n}\n",
	"missing fields":        "num_ranks 2\nrank 0 {\nl1: send 8b to\nl2: send 8 to 1\nl3: send 8b 1\nl4: calc\nl5: sendx 8b to 1\n}\nrank 1 {\n}\n",
	"tag missing its value": "num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag\n}\nrank 1 {\n}\n",
	"requires malformed":    "num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 1\nl2 requires\nl2 requires l1 l1\nl2 requiresl1\n}\n",
	"cycle":                 "num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 1\nl1 requires l2\nl2 requires l1\n}\n",
	"self edge":             "num_ranks 1\nrank 0 {\nl1: calc 1\nl1 requires l1\n}\n",
	"num_ranks later":       "rank 0 {\nl1: send 8b to 5\n}\nnum_ranks 1\n",
	"no newline at end":     "num_ranks 1\nrank 0 {\nl1: calc 1\nl2: calc 2\nl2 requires l1\n}",
}

// readFastAndGeneral reads text with and without the fast path, under
// limits lim, and fails t unless both give the same blocks and error.
func readFastAndGeneral(t *testing.T, text []byte, lim goal.Limits) {
	t.Helper()
	read := func(fast bool) ([]goal.RankBlock, error) {
		defer goal.SetTextFastPath(fast)()
		tr := goal.NewTextReader(bytes.NewReader(text), "fast.goal")
		tr.SetLimits(lim)
		return readBlocks(tr.Next)
	}
	want, wantErr := read(false)
	got, err := read(true)
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("limits %+v: error %v with the fast path, %v without", lim, err, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("limits %+v: blocks differ with the fast path:\n got %+v\nwant %+v", lim, got, want)
	}
}

var fastPathLimits = []goal.Limits{{}, {Message: 100, Calc: 1000}}

func TestTextFastPath(t *testing.T) {
	for name, text := range fastPathTexts {
		t.Run(name, func(t *testing.T) {
			for _, lim := range fastPathLimits {
				readFastAndGeneral(t, []byte(text), lim)
			}
		})
	}
}

// FuzzTextFastPath checks that the text reader's fast path reads every
// input exactly as the general path does: the same blocks, the same error.
func FuzzTextFastPath(f *testing.F) {
	for _, text := range fastPathTexts {
		f.Add([]byte(text))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > maxFuzzInput {
			t.Skip()
		}
		for _, lim := range fastPathLimits {
			readFastAndGeneral(t, data, lim)
		}
	})
}
