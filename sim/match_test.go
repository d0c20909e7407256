package sim

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// refMatchQueue is the reference for matchQueue: per rank, a plain slice of
// entries in insertion order, scanned from the front.
type refMatchQueue [][]matchEntry

func refMatches(e matchEntry, src int32, tag uint32) bool {
	return (src == goal.AnySource || e.src == goal.AnySource || e.src == src) &&
		(tag == goal.AnyTag || e.tag == goal.AnyTag || e.tag == tag)
}

func (r refMatchQueue) push(e matchEntry) {
	r[e.rank] = append(r[e.rank], e)
}

func (r refMatchQueue) take(rank, src int32, tag uint32) (matchEntry, bool) {
	for i, e := range r[rank] {
		if refMatches(e, src, tag) {
			r[rank] = slices.Delete(r[rank], i, i+1)
			return e, true
		}
	}
	return matchEntry{}, false
}

// all returns the entries by rank, then in insertion order.
func (r refMatchQueue) all() []matchEntry {
	return slices.Concat(r...)
}

// checkMatchQueue verifies the internal structure of q against the
// reference contents ref.
func checkMatchQueue(t testing.TB, q *matchQueue, ref refMatchQueue) {
	t.Helper()
	want := ref.all()
	if q.len() != len(want) {
		t.Fatalf("len %d, reference %d", q.len(), len(want))
	}
	var got []matchEntry
	q.each(func(e matchEntry) { got = append(got, e) })
	if !slices.Equal(got, want) {
		t.Fatalf("entries\n%v\nwant\n%v", got, want)
	}
	// rank lists: seq ascending, back links, wildcard counts
	inList := 0
	for r, rl := range q.ranks {
		var prev int32
		wild := int32(0)
		for n := rl.head; n != 0; n = q.nodes[n].rnext {
			nd := &q.nodes[n]
			if nd.rprev != prev {
				t.Fatalf("rank %d node %d: rprev %d, want %d", r, n, nd.rprev, prev)
			}
			if prev != 0 && q.nodes[prev].seq >= nd.seq {
				t.Fatalf("rank %d: seq %d after %d", r, nd.seq, q.nodes[prev].seq)
			}
			if isWild(nd.src, nd.tag) {
				wild++
			}
			prev = n
			inList++
		}
		if rl.tail != prev {
			t.Fatalf("rank %d: tail %d, want %d", r, rl.tail, prev)
		}
		if rl.wild != wild {
			t.Fatalf("rank %d: wild %d, want %d", r, rl.wild, wild)
		}
	}
	// hash table: every used slot is found from its home slot, its FIFO
	// holds nodes of its key in seq order, and the FIFOs cover all entries.
	keys, inFIFO := 0, 0
	for i, s := range q.slots {
		if s.tail == 0 {
			continue
		}
		keys++
		if j := q.find(s.rank, s.src, s.tag); j != i {
			t.Fatalf("slot %d (%d %d %d) found at %d", i, s.rank, s.src, s.tag, j)
		}
		var prev int32
		for n := q.head(i); ; n = q.nodes[n].next {
			nd := &q.nodes[n]
			if nd.src != s.src || nd.tag != s.tag {
				t.Fatalf("slot %d: node %d has src %d tag %d", i, n, nd.src, nd.tag)
			}
			if prev != 0 && q.nodes[prev].seq >= nd.seq {
				t.Fatalf("slot %d: seq %d after %d", i, nd.seq, q.nodes[prev].seq)
			}
			prev = n
			inFIFO++
			if inFIFO > len(want) {
				t.Fatalf("slot %d: FIFO does not close", i)
			}
			if n == s.tail {
				break
			}
		}
	}
	if keys != q.keys || inFIFO != len(want) || inList != len(want) {
		t.Fatalf("keys %d (counted %d), %d entries in FIFOs and %d in rank lists, want %d", q.keys, keys, inFIFO, inList, len(want))
	}
	if 2*q.keys > len(q.slots) {
		t.Fatalf("%d keys in %d slots", q.keys, len(q.slots))
	}
	free := 0
	for n := q.free; n != 0; n = q.nodes[n].next {
		free++
	}
	if free+len(want)+1 != len(q.nodes) {
		t.Fatalf("%d free + %d used + 1 != %d nodes", free, len(want), len(q.nodes))
	}
}

// matchDiff drives a matchQueue and the reference with the same operations.
type matchDiff struct {
	q      matchQueue
	ref    refMatchQueue
	nranks int
	nextOp int32
	ops    int
}

func newMatchDiff(nranks int) *matchDiff {
	d := &matchDiff{nranks: nranks, ref: make(refMatchQueue, nranks)}
	d.q.init(nranks)
	return d
}

func (d *matchDiff) push(t testing.TB, rank, src int32, tag uint32) {
	d.q.push(rank, src, tag, d.nextOp)
	d.ref.push(matchEntry{rank: rank, src: src, tag: tag, op: d.nextOp})
	d.nextOp++
	d.ops++
}

func (d *matchDiff) take(t testing.TB, rank, src int32, tag uint32) {
	got, ok := d.q.take(rank, src, tag)
	want, wok := d.ref.take(rank, src, tag)
	if ok != wok || got != want {
		t.Fatalf("op %d: take(rank %d, src %d, tag %d) = %v %v, reference %v %v", d.ops, rank, src, tag, got, ok, want, wok)
	}
	d.ops++
}

// matchSrc and matchTag map a byte to a source or tag below n, or to the
// wildcard.
func matchSrc(x, n int) int32 {
	if x%(n+1) == n {
		return goal.AnySource
	}
	return int32(x % (n + 1))
}

func matchTag(x, n int) uint32 {
	if x%(n+1) == n {
		return goal.AnyTag
	}
	return uint32(x % (n + 1))
}

func TestMatchQueueRandom(t *testing.T) {
	for _, tc := range []struct {
		name              string
		ranks, srcs, tags int
		pushPct           int // percent of operations that are pushes
		wildPct           int // percent of sources and tags that are wildcards
		steps             int
		reserve, at       int // reserve(reserve) before step at
	}{
		{"tiny", 1, 2, 2, 50, 30, 20000, 0, 0},
		{"collide", 3, 3, 3, 55, 20, 50000, 0, 0},
		{"grow", 8, 6, 5, 70, 10, 50000, 0, 0},
		{"drain", 4, 4, 4, 40, 25, 50000, 0, 0},
		{"no-wildcards", 16, 16, 4, 50, 0, 50000, 0, 0},
		{"mostly-wild", 2, 4, 4, 50, 60, 30000, 0, 0},
		{"many-keys", 64, 64, 16, 55, 5, 100000, 0, 0},
		{"reserved", 32, 32, 8, 55, 5, 50000, 5000, 0},
		{"reserved-small", 4, 4, 4, 50, 20, 20000, 3, 0},
		{"reserved-late", 64, 16, 4, 60, 10, 20000, 30000, 10000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(len(tc.name)), uint64(tc.steps)))
			d := newMatchDiff(tc.ranks)
			for step := 0; step < tc.steps; step++ {
				if step == tc.at {
					d.q.reserve(tc.reserve)
					checkMatchQueue(t, &d.q, d.ref)
				}
				rank := int32(rng.IntN(tc.ranks))
				src, tag := int32(rng.IntN(tc.srcs)), uint32(rng.IntN(tc.tags))
				if rng.IntN(100) < tc.wildPct {
					src = goal.AnySource
				}
				if rng.IntN(100) < tc.wildPct {
					tag = goal.AnyTag
				}
				if rng.IntN(100) < tc.pushPct {
					d.push(t, rank, src, tag)
				} else {
					d.take(t, rank, src, tag)
				}
				if step%997 == 0 {
					checkMatchQueue(t, &d.q, d.ref)
				}
			}
			checkMatchQueue(t, &d.q, d.ref)
			// drain with full wildcards: oldest first per rank
			for r := int32(0); r < int32(tc.ranks); r++ {
				for {
					before := len(d.ref[r])
					d.take(t, r, goal.AnySource, goal.AnyTag)
					if len(d.ref[r]) == before {
						break
					}
				}
			}
			checkMatchQueue(t, &d.q, d.ref)
			if d.q.len() != 0 || d.q.keys != 0 {
				t.Fatalf("after draining: %d entries, %d keys", d.q.len(), d.q.keys)
			}
		})
	}
}

// TestMatchQueueSteadyStateAllocs checks that once grown, pushes and takes
// allocate nothing.
func TestMatchQueueSteadyStateAllocs(t *testing.T) {
	var q matchQueue
	q.init(16)
	fill := func() {
		for i := 0; i < 1000; i++ {
			q.push(int32(i%16), int32(i%7), uint32(i%5), int32(i))
		}
		for i := 0; i < 1000; i++ {
			if _, ok := q.take(int32(i%16), int32(i%7), uint32(i%5)); !ok {
				t.Fatalf("take %d failed", i)
			}
		}
	}
	fill()
	if a := testing.AllocsPerRun(10, fill); a != 0 {
		t.Fatalf("%v allocations per run", a)
	}
	// after reserve(n), n entries with distinct keys fit
	const n = 5000
	q.init(16)
	q.reserve(n)
	nodes, slots := &q.nodes[0], &q.slots[0]
	for i := 0; i < n; i++ {
		q.push(int32(i%16), int32(i), uint32(i%3), int32(i))
	}
	if &q.nodes[0] != nodes || &q.slots[0] != slots {
		t.Fatalf("%d entries after reserve(%d): the queue grew", q.len(), n)
	}
}

// FuzzMatchQueue runs the differential check on operations decoded from the
// input: each operation is 3 bytes, (kind|rank, src, tag); small ranges
// make keys collide, and the top values of src and tag are wildcards.
func FuzzMatchQueue(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 1, 1})
	f.Add([]byte{0, 0xff, 1, 0, 1, 0xff, 0, 2, 3, 1, 2, 3, 1, 0xff, 0xff})
	f.Add([]byte{0, 1, 2, 2, 3, 1, 4, 5, 6, 0, 7, 7, 1, 7, 7, 1, 0xff, 1, 1, 1, 0xff})
	f.Add([]byte("\x00\x01\x02\x00\x01\x03\x02\x01\xff\x01\x01\x02\x03\xff\x02\x01\x01\x03"))
	const ranks, srcs, tags = 4, 5, 5
	f.Fuzz(func(t *testing.T, data []byte) {
		d := newMatchDiff(ranks)
		for i := 0; i+3 <= len(data); i += 3 {
			rank := int32(data[i]>>1) % ranks
			src, tag := matchSrc(int(data[i+1]), srcs), matchTag(int(data[i+2]), tags)
			if data[i]&1 == 0 {
				d.push(t, rank, src, tag)
			} else {
				d.take(t, rank, src, tag)
			}
		}
		checkMatchQueue(t, &d.q, d.ref)
	})
}

func BenchmarkMatchQueue(b *testing.B) {
	for _, tc := range []struct {
		name string
		wild bool
	}{{"exact", false}, {"wild", true}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			const ranks, live = 4096, 8192
			var q matchQueue
			q.init(ranks)
			for i := 0; i < live; i++ {
				q.push(int32(i%ranks), int32(i/ranks), 0, int32(i))
			}
			if tc.wild { // never matched, but every take probes for them
				for r := int32(0); r < ranks; r++ {
					q.push(r, goal.AnySource, 1, -1)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j := i + live
				q.push(int32(j%ranks), int32(j/ranks), 0, int32(j))
				if _, ok := q.take(int32(i%ranks), int32(i/ranks), 0); !ok {
					b.Fatal("no match")
				}
			}
		})
	}
}
