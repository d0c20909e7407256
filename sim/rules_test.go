package sim

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/gopsim/gopsim/goal"
)

// TestRules runs the hand-computed cases in testdata/rules: each is
//
//	run [L=..] [o=..] [g=..] [G=..] [O=..] [S=..]
//	<GOAL text>
//	----
//	<per-rank finishing times, or the error>
//
// Every case runs with both event queues, which must agree. Rewrite the
// expectations with -rewrite only after checking them by hand.
func TestRules(t *testing.T) {
	datadriven.Walk(t, "testdata/rules", func(t *testing.T, path string) {
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "run" {
				t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			}
			p := DefaultParams()
			for _, a := range d.CmdArgs {
				if len(a.Vals) != 1 {
					t.Fatalf("%s: argument %s needs one value", d.Pos, a.Key)
				}
				v, err := strconv.ParseFloat(a.Vals[0], 64)
				if err != nil {
					t.Fatalf("%s: %v", d.Pos, err)
				}
				switch a.Key {
				case "L":
					p.L = v
				case "o":
					p.Overhead = v
				case "g":
					p.Gap = v
				case "G":
					p.GapPerByte = v
				case "O":
					p.OverheadPerByte = v
				case "S":
					p.EagerLimit = int64(v)
				default:
					t.Fatalf("%s: unknown parameter %s", d.Pos, a.Key)
				}
			}
			s, err := goal.ReadText(strings.NewReader(d.Input), d.Pos)
			if err != nil {
				return "parse error: " + err.Error() + "\n"
			}
			out := [2]string{}
			for i, q := range []QueueKind{RadixQueue, HeapQueue} {
				res, err := Run(s, Options{Params: p, Queue: q})
				var b strings.Builder
				if err != nil {
					var dl *DeadlockError
					if !errors.As(err, &dl) {
						t.Fatalf("%s: error is not a DeadlockError: %v", d.Pos, err)
					}
					b.WriteString(err.Error() + "\n")
				} else {
					for r, tm := range res.PerRank {
						fmt.Fprintf(&b, "rank %d: %d ns\n", r, tm)
					}
					fmt.Fprintf(&b, "max: %d ns at rank %d\n", res.MaxTime, res.MaxRank)
				}
				out[i] = b.String()
			}
			if out[0] != out[1] {
				t.Fatalf("%s: radix queue and heap disagree:\n%s\nvs\n%s", d.Pos, out[0], out[1])
			}
			return out[0]
		})
	})
}
