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
func checkMatchQueue(t testing.TB, q *matchQueue, heads []mqHead, ref refMatchQueue) {
	t.Helper()
	want := ref.all()
	if q.len() != len(want) {
		t.Fatalf("len %d, reference %d", q.len(), len(want))
	}
	var got []matchEntry
	for r := range heads {
		q.each(&heads[r], int32(r), func(e matchEntry) { got = append(got, e) })
	}
	if !slices.Equal(got, want) {
		t.Fatalf("entries\n%v\nwant\n%v", got, want)
	}
	// Linear ranks: segments inside the arena, of their class, not
	// overlapping each other or a free segment.
	owner := make([]int, len(q.arena))
	claim := func(off int32, size int, who int) {
		if size < 1 || size > mqLinearMax || int(off)+size > len(q.arena) {
			t.Fatalf("segment %d of %d entries outside the arena of %d", off, size, len(q.arena))
		}
		for i := off; i < off+int32(size); i++ {
			if owner[i] != 0 {
				t.Fatalf("arena entry %d in two segments (%d and %d)", i, owner[i], who)
			}
			owner[i] = who
		}
	}
	for c := uint8(0); c < mqClasses; c++ {
		for f := q.free[c]; f != 0; f = q.arena[f-1].op {
			claim(f-1, mqClassCap(c), -1)
		}
	}
	// Hashed ranks: lists in seq order with back links and wildcard counts.
	inList := 0
	hashed := make([]bool, len(heads))
	lists := 0
	for r := range heads {
		h := &heads[r]
		switch h.cap {
		case 0:
			if h.n != 0 {
				t.Fatalf("rank %d: %d entries without a segment", r, h.n)
			}
			continue
		case mqHashed:
			if h.n != mqHashed || h.off <= 0 || int(h.off) >= len(q.lists) {
				t.Fatalf("rank %d: hashed with n %d, list %d", r, h.n, h.off)
			}
			hashed[r] = true
			lists++
		default:
			claim(h.off, int(h.cap), r+1)
			if h.n > h.cap {
				t.Fatalf("rank %d: %d entries in a segment of %d", r, h.n, h.cap)
			}
			continue
		}
		l := &q.lists[h.off]
		if l.head == 0 {
			t.Fatalf("rank %d: hashed and empty", r)
		}
		var prev int32
		wild := int32(0)
		for n := l.head; n != 0; n = q.nodes[n].rnext {
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
		if l.tail != prev {
			t.Fatalf("rank %d: tail %d, want %d", r, l.tail, prev)
		}
		if l.wild != wild {
			t.Fatalf("rank %d: wild %d, want %d", r, l.wild, wild)
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
		if !hashed[s.rank] {
			t.Fatalf("slot %d: rank %d is not hashed", i, s.rank)
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
	if keys != q.keys || inFIFO != inList {
		t.Fatalf("keys %d (counted %d), %d entries in FIFOs and %d in rank lists", q.keys, keys, inFIFO, inList)
	}
	if 2*q.keys > len(q.slots) {
		t.Fatalf("%d keys in %d slots", q.keys, len(q.slots))
	}
	free := 0
	for n := q.freeNode; n != 0; n = q.nodes[n].next {
		free++
	}
	if len(q.nodes) > 0 && free+inList+1 != len(q.nodes) {
		t.Fatalf("%d free + %d used + 1 != %d nodes", free, inList, len(q.nodes))
	}
	freeLists := 0
	for i := q.freeList; i != 0; i = q.lists[i].head {
		freeLists++
	}
	if len(q.lists) > 0 && freeLists+lists+1 != len(q.lists) {
		t.Fatalf("%d free + %d used lists + 1 != %d", freeLists, lists, len(q.lists))
	}
}

// matchDiff drives a matchQueue and the reference with the same operations.
type matchDiff struct {
	q      matchQueue
	heads  []mqHead
	ref    refMatchQueue
	nranks int
	nextOp int32
	ops    int
}

func newMatchDiff(nranks int) *matchDiff {
	d := &matchDiff{nranks: nranks, ref: make(refMatchQueue, nranks)}
	d.q.init()
	d.heads = make([]mqHead, nranks)
	return d
}

func (d *matchDiff) push(t testing.TB, rank, src int32, tag uint32) {
	d.q.push(&d.heads[rank], rank, src, tag, d.nextOp)
	d.ref.push(matchEntry{rank: rank, src: src, tag: tag, op: d.nextOp})
	d.nextOp++
	d.ops++
}

func (d *matchDiff) take(t testing.TB, rank, src int32, tag uint32) {
	got, ok := d.q.take(&d.heads[rank], rank, src, tag)
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
	}{
		{"tiny", 1, 2, 2, 50, 30, 20000},
		{"collide", 3, 3, 3, 55, 20, 50000},
		{"grow", 8, 6, 5, 70, 10, 50000},
		{"drain", 4, 4, 4, 40, 25, 50000},
		{"no-wildcards", 16, 16, 4, 50, 0, 50000},
		{"mostly-wild", 2, 4, 4, 50, 60, 30000},
		{"many-keys", 64, 64, 16, 55, 5, 100000},
		{"busy", 32, 32, 8, 55, 5, 50000},
		{"small", 4, 4, 4, 50, 20, 20000},
		{"wide", 64, 16, 4, 60, 10, 20000},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(len(tc.name)), uint64(tc.steps)))
			d := newMatchDiff(tc.ranks)
			for step := 0; step < tc.steps; step++ {
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
					checkMatchQueue(t, &d.q, d.heads, d.ref)
				}
			}
			checkMatchQueue(t, &d.q, d.heads, d.ref)
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
			checkMatchQueue(t, &d.q, d.heads, d.ref)
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
	q.init()
	heads := make([]mqHead, 16)
	fill := func() {
		for i := 0; i < 1000; i++ {
			q.push(&heads[i%16], int32(i%16), int32(i%7), uint32(i%5), int32(i))
		}
		for i := 0; i < 1000; i++ {
			if _, ok := q.take(&heads[i%16], int32(i%16), int32(i%7), uint32(i%5)); !ok {
				t.Fatalf("take %d failed", i)
			}
		}
	}
	fill()
	if a := testing.AllocsPerRun(10, fill); a != 0 {
		t.Fatalf("%v allocations per run", a)
	}
}

// TestMatchQueueForms pushes and takes enough entries on one rank to move
// it between the linear and the hashed form again and again, with
// wildcards on both sides.
func TestMatchQueueForms(t *testing.T) {
	d := newMatchDiff(3)
	rng := rand.New(rand.NewPCG(7, 8))
	for round := 0; round < 40; round++ {
		n := 1 + rng.IntN(3*mqLinearMax)
		for i := 0; i < n; i++ {
			src, tag := matchSrc(rng.IntN(64), 6), matchTag(rng.IntN(64), 4)
			d.push(t, int32(rng.IntN(3)), src, tag)
		}
		checkMatchQueue(t, &d.q, d.heads, d.ref)
		for i := 0; i < n+2; i++ {
			src, tag := matchSrc(rng.IntN(64), 6), matchTag(rng.IntN(64), 4)
			d.take(t, int32(rng.IntN(3)), src, tag)
		}
		checkMatchQueue(t, &d.q, d.heads, d.ref)
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
		checkMatchQueue(t, &d.q, d.heads, d.ref)
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
			q.init()
			heads := make([]mqHead, ranks)
			for i := 0; i < live; i++ {
				q.push(&heads[i%ranks], int32(i%ranks), int32(i/ranks), 0, int32(i))
			}
			if tc.wild { // never matched, but every take probes for them
				for r := int32(0); r < ranks; r++ {
					q.push(&heads[r], r, goal.AnySource, 1, -1)
				}
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				j := i + live
				q.push(&heads[j%ranks], int32(j%ranks), int32(j/ranks), 0, int32(j))
				if _, ok := q.take(&heads[i%ranks], int32(i%ranks), int32(i/ranks), 0); !ok {
					b.Fatal("no match")
				}
			}
		})
	}
}
