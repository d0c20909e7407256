package trace

// Tests of what the importers share (foreign.go); the helpers of their
// sample, corruption and fuzz tests are in internal/tracetest.

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestResolveForeignComms(t *testing.T) {
	world := CommSpec{Origin: OriginWorld, Idx: -1, Size: -1}
	split := func(parent, seq int32, color, key int64) CommSpec {
		return CommSpec{Origin: OriginSplit, Name: "MPI_Comm_split", Parent: parent, Seq: seq, Color: color, Key: key, Idx: -1, Size: -1}
	}
	observed := func(parent, seq, idx, size int32) CommSpec {
		return CommSpec{Origin: OriginObserved, Name: "MPI_Cart_create", Parent: parent, Seq: seq, Idx: idx, Size: size}
	}
	tests := []struct {
		name  string
		specs [][]CommSpec
		want  []string // per rank: its communicators, "id:members" or "?why"
	}{{
		name: "split by color, ordered by key then rank",
		specs: [][]CommSpec{
			{world, split(0, 0, 1, 5)},
			{world, split(0, 0, 0, 0)},
			{world, split(0, 0, 1, 5)},
			{world, split(0, 0, 1, 2)},
		},
		want: []string{"0:[0 1 2 3] 3:[3 0 2]", "0:[0 1 2 3] 2:[1]", "0:[0 1 2 3] 3:[3 0 2]", "0:[0 1 2 3] 3:[3 0 2]"},
	}, {
		name: "dup of a split, and the second split of the world",
		specs: [][]CommSpec{
			{world, split(0, 0, 0, 0), {Origin: OriginDup, Parent: 1, Idx: -1, Size: -1}, split(0, 1, 7, 0)},
			{world, split(0, 0, 0, 0), {Origin: OriginDup, Parent: 1, Idx: -1, Size: -1}, split(0, 1, 7, 0)},
		},
		want: []string{"0:[0 1] 2:[0 1] 4:[0 1] 3:[0 1]", "0:[0 1] 2:[0 1] 4:[0 1] 3:[0 1]"},
	}, {
		name: "observed positions",
		specs: [][]CommSpec{
			{world, observed(0, 0, 1, 2)},
			{world},
			{world, observed(0, 0, 0, 2)},
		},
		want: []string{"0:[0 1 2] 2:[2 0]", "0:[0 1 2]", "0:[0 1 2] 2:[2 0]"},
	}, {
		name: "observed positions that do not make one communicator",
		specs: [][]CommSpec{
			{world, observed(0, 0, 0, 2)},
			{world, observed(0, 0, 0, 2)},
		},
		want: []string{"0:[0 1] ?the ranks' positions in the communicator MPI_Cart_create made do not tell its members", "0:[0 1] ?the ranks' positions in the communicator MPI_Cart_create made do not tell its members"},
	}, {
		name: "observed position contradicts a split",
		specs: [][]CommSpec{
			{world, func() CommSpec { s := split(0, 0, 0, 0); s.Idx, s.Size = 1, 2; return s }()},
			{world, split(0, 0, 0, 0)},
		},
		want: []string{"0:[0 1] ?the trace shows rank 0 as rank 1 of 2 in the communicator MPI_Comm_split made, but its members are [0 1]", "0:[0 1] 2:[0 1]"},
	}, {
		name: "unknown, and what is made from it",
		specs: [][]CommSpec{
			{world, {Origin: OriginUnknown, Why: "no idea"}, {Origin: OriginDup, Parent: 1, Idx: -1, Size: -1}},
		},
		want: []string{"0:[0] ?no idea ?no idea"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := ResolveComms(len(tc.specs), tc.specs)
			for r := range tc.specs {
				var parts []string
				for li := range tc.specs[r] {
					c, why := res.Comm(r, int32(li))
					if c.Local {
						parts = append(parts, "?"+why)
					} else {
						parts = append(parts, fmt.Sprintf("%d:%v", c.ID, c.Members))
					}
				}
				if got := strings.Join(parts, " "); got != tc.want[r] {
					t.Errorf("rank %d: %s\n want %s", r, got, tc.want[r])
				}
			}
		})
	}
}

func TestResolveWildcards(t *testing.T) {
	send := func(to, tag int32, t float64) P2PEvent { return P2PEvent{Send: true, Peer: to, Tag: tag, T: t} }
	recv := func(from, tag int32) P2PEvent { return P2PEvent{Peer: from, Tag: tag} }
	events := [][]P2PEvent{
		{recv(AnySource, AnyTag), recv(1, AnyTag), recv(AnySource, 5), recv(2, 9)},
		{send(0, 4, 20), send(0, 5, 30)},
		{send(0, 5, 10), {Send: true, Peer: 0, Comm: 3, Tag: 1, T: 0}},
	}
	got := ResolveWildcards(events)
	want := []P2PMatch{{2, 5}, {1, 4}, {1, 5}, {2, 9}}
	if !slices.Equal(got[0], want) {
		t.Fatalf("got %v, want %v", got[0], want)
	}
}
