package sim

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// repeatText is a GOAL text schedule of n ranks, all alike but rank odd:
// each sends to its right and left neighbours (the peers wrap around),
// receives from any source twice, and three computations wait for the
// first receive (an edge list), one of them for two more ops; with labels.
func repeatText(n, odd int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "num_ranks %d\n", n)
	for r := range n {
		fmt.Fprintf(&b, "rank %d {\n", r)
		if r == odd {
			b.WriteString("x: calc 70\n")
		}
		fmt.Fprintf(&b, "s1: send 64b to %d tag 3\ns2: send 100000b to %d tag 3\n", (r+1)%n, (r+n-1)%n)
		b.WriteString("v1: recv 64b from -1 tag 3\nv2: recv 100000b from -1 tag -1\n")
		b.WriteString("c: calc 50\nc requires v1\nc requires v2\nc requires s2\n")
		b.WriteString("d: calc 10\ne: calc 20\nd requires v1\ne requires v1\n") // v1's successors: an edge list
		b.WriteString("}\n")
	}
	return b.String()
}

// TestStreamRepeats: a binary schedule whose ranks repeat one another's
// blocks (peers relative to the rank, wrapping around, wildcards, edge
// lists, labels) runs streamed exactly as in memory, with the repeats
// spilled from the earlier rank's summary (StreamStats.RepeatRanks),
// whatever the unit and wherever the units are stored.
func TestStreamRepeats(t *testing.T) {
	const n, odd = 9, 4
	bin, mem := textProgram(t, repeatText(n, odd), "repeat.goal")
	opt := Options{Params: DefaultParams(), Record: true, Breakdown: true}
	want, err := mem.Run(opt)
	if err != nil {
		t.Fatal(err)
	}
	// What spilling gives, with the repeats and without.
	for _, unit := range []int{1, 2, 128} {
		p := streamedWith(t, bin, StreamOptions{Unit: unit})
		defer func(old int64) { repeatBytes = old }(repeatBytes)
		repeatBytes = 0
		q := streamedWith(t, bin, StreamOptions{Unit: unit})
		repeatBytes = 64 << 20
		a, b := p.win, q.win
		for _, f := range []struct {
			name string
			x, y any
		}{{"rankUnit", a.rankUnit, b.rankUnit}, {"ref", a.ref, b.ref}, {"listAt", a.listAt, b.listAt},
			{"initHi", a.initHi, b.initHi}, {"span", a.span, b.span}, {"dliveInit", a.dliveInit, b.dliveInit},
			{"start", p.start, q.start}, {"rankStart", p.rankStart, q.rankStart}, {"implicit", p.implicit, q.implicit},
			{"labels", p.labels, q.labels}} {
			if !reflect.DeepEqual(f.x, f.y) {
				t.Errorf("unit %d: %s with repeats %v, without %v", unit, f.name, f.x, f.y)
			}
		}
		if st, _ := q.Stream(); st.RepeatRanks != 0 {
			t.Errorf("unit %d: %d ranks repeated without remembering blocks", unit, st.RepeatRanks)
		}
	}
	for _, so := range append(streamOpts, StreamOptions{Unit: 2}) {
		p := streamedWith(t, bin, so)
		got, err := p.Run(opt)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Fatalf("unit %d, store %d: %+v, %v; in memory %+v", so.Unit, so.StoreBytes, got, err, want)
		}
		samePath(t, p, got, mem, want)
		for g := int32(0); g < int32(mem.NumOps()); g++ {
			if a, b := fmt.Sprint(p.OpInfo(g)), fmt.Sprint(mem.OpInfo(g)); a != b {
				t.Fatalf("unit %d: op %d streamed %s, in memory %s", so.Unit, g, a, b)
			}
		}
		// Every rank but 0 and odd (which computes first) repeats rank 0.
		if st, _ := p.Stream(); st.RepeatRanks != n-2 {
			t.Errorf("unit %d: %d ranks repeated, want %d", so.Unit, st.RepeatRanks, n-2)
		}
	}
}

// TestReadProgramRepeats: ReadProgram copies a rank block that repeats an
// earlier one from that rank's records (builder.repeat) instead of
// decoding it, and the program is field for field the one compiled from
// the schedule: records, edge lists, start states, labels.
func TestReadProgramRepeats(t *testing.T) {
	for _, c := range []struct {
		name string
		s    *goal.Schedule
	}{
		{"ring", func() *goal.Schedule {
			s, err := goal.ReadText(strings.NewReader(repeatText(9, 4)), "repeat.goal")
			if err != nil {
				t.Fatal(err)
			}
			return s
		}()},
		{"dissemination_77", patternSchedule(t, "dissemination", 77, 8)},
		{"allreduce_recdoub_128", patternSchedule(t, "allreduce_recdoub", 128, 1<<16)},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, err := Compile(c.s)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadProgram(bytes.NewReader(binaryOf(t, c.s)))
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []struct {
				name string
				x, y any
			}{{"ops", got.ops, want.ops}, {"deps", got.deps, want.deps}, {"cn", got.cn, want.cn},
				{"start", got.start, want.start}, {"rankStart", got.rankStart, want.rankStart},
				{"implicit", got.implicit, want.implicit}, {"labels", got.labels, want.labels}} {
				if !reflect.DeepEqual(f.x, f.y) {
					t.Errorf("%s read %v\ncompiled %v", f.name, f.x, f.y)
				}
			}
		})
	}
}
