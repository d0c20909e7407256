package goal

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// ringText is a GOAL text schedule of n ranks that each send to the next
// and receive from the previous one, all alike but rank odd, which
// computes first.
func ringText(n, odd int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "num_ranks %d\n", n)
	for r := range n {
		fmt.Fprintf(&b, "rank %d {\n", r)
		if r == odd {
			b.WriteString("c: calc 100\n")
		}
		fmt.Fprintf(&b, "s: send 64b to %d tag 3\nv: recv 64b from %d tag 3\nw: calc 50\nw requires v\n}\n", (r+1)%n, (r+n-1)%n)
	}
	return b.String()
}

// TestNextRepeat: a reader that remembers blocks tells which ranks repeat
// an earlier one, and those ranks' blocks, decoded, are the earlier
// rank's with the peers moved by the rank difference; a budget too small
// for a block remembers none; without RememberBlocks nothing repeats.
func TestNextRepeat(t *testing.T) {
	const n, odd = 7, 3
	s, err := ReadText(strings.NewReader(ringText(n, odd)), "ring.goal")
	if err != nil {
		t.Fatal(err)
	}
	var bin bytes.Buffer
	if err := WriteBinary(&bin, s); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		budget   int64 // -1: no RememberBlocks
		wantSame []int32
	}{
		{"remembered", 1 << 20, []int32{-1, 0, 0, -1, 0, 0, 0}},
		{"no room", 1, []int32{-1, -1, -1, -1, -1, -1, -1}},
		{"not asked", -1, []int32{-1, -1, -1, -1, -1, -1, -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := NewReader(bytes.NewReader(bin.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if tc.budget >= 0 {
				r.RememberBlocks(tc.budget)
			}
			var b, want RankBlock
			for rank := range n {
				same, kept, err := r.NextRepeat(&b)
				if err != nil {
					t.Fatal(err)
				}
				if same != tc.wantSame[rank] || b.Rank != int32(rank) {
					t.Fatalf("rank %d: block of rank %d, same %d; want %d", rank, b.Rank, same, tc.wantSame[rank])
				}
				if wantKept := tc.budget > 1 && (rank == 0 || rank == odd); kept != wantKept {
					t.Errorf("rank %d: kept %v", rank, kept)
				}
				s.Block(rank, &want)
				if same >= 0 {
					if len(b.Ops) != 0 {
						t.Errorf("rank %d: a repeat decoded to %d ops", rank, len(b.Ops))
					}
					continue
				}
				if fmt.Sprint(b.Ops, b.DepStart, b.Deps) != fmt.Sprint(want.Ops, want.DepStart, want.Deps) {
					t.Errorf("rank %d: decoded %v, want %v", rank, b.Ops, want.Ops)
				}
			}
			if _, _, err := r.NextRepeat(&b); err == nil || err.Error() != "EOF" {
				t.Errorf("after the last rank: %v", err)
			}
		})
	}
}
