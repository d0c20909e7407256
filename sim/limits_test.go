package sim

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// ringText is a ring of n ranks, each sending 8 bytes to the next, with
// extra appended to rank at's block as its fourth op; it returns the text
// and the line of extra.
func ringText(n, at int, extra string) ([]byte, int) {
	var b bytes.Buffer
	fmt.Fprintf(&b, "num_ranks %d\n", n)
	line := 0
	for r := range n {
		fmt.Fprintf(&b, "rank %d {\nl1: send 8b to %d\nl2: recv 8b from %d\nl3: calc 10\nl3 requires l2\n", r, (r+1)%n, (r+n-1)%n)
		if r == at {
			line = bytes.Count(b.Bytes(), []byte("\n")) + 1
			b.WriteString(extra + "\n")
		}
		b.WriteString("}\n")
	}
	return b.Bytes(), line
}

// TestTextProgramLimits: an op beyond the sizes the engine runs
// (MaxMessage, goal.MaxCalc) is refused as the text is read, at its
// file:line:col, by every text reader: in memory and streamed, in order
// and on all CPUs (a text of 2.5 MB is parsed in pieces, which fail and
// read the text again from its start). Ops at the limits are read. The
// same op in a binary schedule, which has no lines, fails to Run, naming
// its rank, index and label.
func TestTextProgramLimits(t *testing.T) {
	readers := []struct {
		name string
		read func(data []byte, name string, dir string) (*Program, error)
	}{
		{"ReadTextProgram", func(data []byte, name, _ string) (*Program, error) {
			return ReadTextProgram(bytes.NewReader(data), int64(len(data)), name)
		}},
		{"ReadTextProgramFrom", func(data []byte, name, _ string) (*Program, error) {
			return ReadTextProgramFrom(bytes.NewReader(data), name)
		}},
		{"ReadTextProgramStream", func(data []byte, name, dir string) (*Program, error) {
			return ReadTextProgramStream(bytes.NewReader(data), name, StreamOptions{Dir: dir})
		}},
		{"ReadTextProgramStreamAt", func(data []byte, name, dir string) (*Program, error) {
			return ReadTextProgramStreamAt(bytes.NewReader(data), int64(len(data)), name, StreamOptions{Dir: dir})
		}},
	}
	for _, tc := range []struct {
		name      string
		ranks, at int
		extra     string
		want      string // with %d for the line; "" for no error
		binary    string // Run's error on the binary form
	}{
		{"send", 3, 1, "big: send 4398046511104b to 0",
			"x.goal:%d:11: rank 1 op 3 (big): send of 4398046511104 bytes beyond the supported 2199023255552",
			"rank 1 op 3 (big): send of 4398046511104 bytes beyond the supported 2199023255552"},
		{"recv, in pieces", 30000, 29000, "recv 2199023255553b from 5",
			"x.goal:%d:6: rank 29000 op 3: recv of 2199023255553 bytes beyond the supported 2199023255552",
			"rank 29000 op 3: recv of 2199023255553 bytes beyond the supported 2199023255552"},
		{"calc, in pieces", 30000, 17, "l4: calc 4611686018427387904 cpu 1",
			"x.goal:%d:10: rank 17 op 3 (l4): calc of 4611686018427387904 ns beyond the supported 4611686018427387903",
			"rank 17 op 3 (l4): calc of 4611686018427387904 ns beyond the supported 4611686018427387903"},
		{"at the limits", 3, 2, "l4: calc 4611686018427387903\nsend 2199023255552b to 0", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, line := ringText(tc.ranks, tc.at, tc.extra)
			if tc.ranks > 3 && len(data) < 2<<20+1<<16 {
				t.Fatalf("the text has %d bytes, too few to be cut in pieces", len(data))
			}
			want := tc.want
			if want != "" {
				want = fmt.Sprintf(tc.want, line)
			}
			for _, rd := range readers {
				p, err := rd.read(data, "x.goal", t.TempDir())
				if want == "" {
					if err != nil {
						t.Errorf("%s: %v", rd.name, err)
					} else {
						p.Close()
					}
					continue
				}
				var le *goal.LimitError
				if err == nil || err.Error() != want || !errors.As(err, &le) || le.Line != line {
					t.Errorf("%s: %v\nwant %s", rd.name, err, want)
				}
				if err == nil {
					p.Close()
				}
			}
			// The binary form: read, then refused by Run; a goal reader
			// given Limits refuses it as it reads, after the file's name.
			s, err := goal.ReadText(bytes.NewReader(data), "x.goal")
			if err != nil {
				t.Fatal(err)
			}
			var bin bytes.Buffer
			if err := goal.WriteBinary(&bin, s); err != nil {
				t.Fatal(err)
			}
			_, _, err = goal.ReadLimits(bytes.NewReader(bin.Bytes()), "x.bin", Limits())
			if tc.binary == "" && err != nil || tc.binary != "" && (err == nil || err.Error() != "x.bin: "+tc.binary) {
				t.Errorf("goal.ReadLimits with Limits(): %v\nwant x.bin: %s", err, tc.binary)
			}
			for name, read := range map[string]func(io.Reader) (*Program, error){
				"ReadProgram": ReadProgram,
				"ReadProgramStream": func(r io.Reader) (*Program, error) {
					return ReadProgramStream(r, StreamOptions{Dir: t.TempDir()})
				},
			} {
				p, err := read(bytes.NewReader(bin.Bytes()))
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				// SizeError gives Run's error before any run.
				if err := p.SizeError(); tc.binary == "" && err != nil || tc.binary != "" && (err == nil || err.Error() != tc.binary) {
					t.Errorf("%s, SizeError: %v\nwant %q", name, err, tc.binary)
				}
				_, err = p.Run(Options{Params: DefaultParams()})
				p.Close()
				var le *goal.LimitError
				switch {
				case tc.binary == "" && err != nil && !strings.Contains(err.Error(), "beyond the largest time"):
					t.Errorf("%s, Run: %v", name, err)
				case tc.binary != "" && (err == nil || err.Error() != tc.binary || !errors.As(err, &le) || le.Line != 0):
					t.Errorf("%s, Run: %v\nwant %s", name, err, tc.binary)
				}
			}
		})
	}
}
