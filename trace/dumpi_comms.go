package trace

// Communicators and unsupported calls of imported MPI traces. This file
// holds what the DUMPI and liballprof importers share (the file is named
// after the first; TIT traces know only MPI_COMM_WORLD).
//
// Both formats name a communicator by a handle that means something only
// in the process that recorded it, and neither records a communicator's
// members. The converter needs both: members to expand collectives and to
// turn ranks of a communicator into world ranks, and an id that every
// member gives the same communicator. An importer therefore describes, per
// rank, how each communicator the rank had was made (a foreignComm: a dup
// or a split of another one, members computed from earlier communicators,
// ...), in the order the rank made them, and resolveForeignComms computes
// from all ranks' descriptions the members of each communicator and an id
// agreed by all its members.
//
// Identity. MPI orders the collective calls on a communicator the same way
// in all its members, so the seq-th communicator-creating call a rank
// makes on a parent communicator is the same call in every member of the
// parent. A communicator is then named by a key: its parent's key, seq,
// and what tells apart the communicators one call makes (the color of a
// split, the member list of a Comm_create or Cart_sub). Keys are resolved
// level by level (a communicator after those it was made from); ids are
// given in the order of levels and keys, world 0 and self 1 as in gopsim's
// own traces.

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
)

type fcKind uint8

const (
	fcWorld    fcKind = iota + 1 // MPI_COMM_WORLD
	fcSelf                       // MPI_COMM_SELF
	fcDup                        // the parent's members (Comm_dup)
	fcSplit                      // the parent's members with the same color, ordered by key then parent rank
	fcExplicit                   // members computed by members() from earlier communicators
	fcObserved                   // members known only from each member's observed rank and size
	fcUnknown                    // cannot be resolved; why says why
)

// foreignComm is one communicator of one rank, as the rank made it.
type foreignComm struct {
	kind   fcKind
	name   string // the MPI function that created it, for messages
	parent int32  // the rank's communicator it was made from (index in the rank's list)
	seq    int32  // the creating call was the rank's seq-th (from 0) such call on parent
	color  int64  // split
	key    int64  // split
	// deps lists the communicators besides parent that members reads.
	deps []int32
	// members computes an explicit communicator's world ranks; get
	// returns a communicator's members (nil if unresolved).
	members func(get func(li int32) []int32) ([]int32, error)
	// idx and size are the rank's rank in the communicator and its size
	// as the trace shows them, or -1: resolution checks them.
	idx, size int32
	why       string // fcUnknown: the reason
}

// foreignComms is the result: per rank, per communicator of the rank.
type foreignComms struct {
	comms [][]*Comm  // Local (ID >= LocalCommBase) when unresolved
	why   [][]string // why an unresolved communicator is
}

// LocalCommBase is the first id of the communicators that an importer
// could not resolve: ids from here on are local to a rank (Comm.Local).
const LocalCommBase = 0x40000000

// comm returns rank r's communicator li and, if it is unresolved, why.
func (t *foreignComms) comm(r int, li int32) (*Comm, string) {
	if r < 0 || r >= len(t.comms) || li < 0 || int(li) >= len(t.comms[r]) {
		return nil, "no such communicator"
	}
	return t.comms[r][li], t.why[r][li]
}

type fcNode struct {
	rank int32
	li   int32
	spec *foreignComm
	prnk int // split: the rank's rank in the parent
}

// resolveForeignComms resolves the communicators of a trace of nranks
// ranks; specs[r] lists rank r's communicators in the order it made them
// (a spec's parent and deps come before it).
func resolveForeignComms(nranks int, specs [][]foreignComm) *foreignComms {
	t := &foreignComms{comms: make([][]*Comm, nranks), why: make([][]string, nranks)}
	world := &Comm{ID: 0, Members: make([]int32, nranks)}
	for i := range world.Members {
		world.Members[i] = int32(i)
	}
	keys := make([][]string, nranks)
	levels := make([][]int, nranks)
	maxLevel := 0
	for r := range specs {
		n := len(specs[r])
		t.comms[r], t.why[r], keys[r], levels[r] = make([]*Comm, n), make([]string, n), make([]string, n), make([]int, n)
		for li := range specs[r] {
			s := &specs[r][li]
			switch s.kind {
			case fcWorld:
				t.comms[r][li], keys[r][li] = world, "w"
				continue
			case fcSelf:
				t.comms[r][li], keys[r][li] = &Comm{ID: 1, Members: []int32{int32(r)}}, "s"
				continue
			case fcUnknown:
				t.why[r][li], levels[r][li] = s.why, -1
				continue
			}
			lvl := 0
			for _, d := range append([]int32{s.parent}, s.deps...) {
				if d < 0 || int(d) >= li {
					t.why[r][li] = fmt.Sprintf("%s made it from a communicator not seen before", s.name)
					lvl = -1
					break
				}
				if levels[r][d] < 0 {
					t.why[r][li] = t.why[r][d]
					lvl = -1
					break
				}
				lvl = max(lvl, levels[r][d]+1)
			}
			levels[r][li] = lvl
			maxLevel = max(maxLevel, lvl)
		}
	}
	get := func(r int) func(li int32) []int32 {
		return func(li int32) []int32 {
			if li < 0 || int(li) >= len(t.comms[r]) || t.comms[r][li] == nil {
				return nil
			}
			return t.comms[r][li].Members
		}
	}
	nextID := int32(2)
	for lvl := 1; lvl <= maxLevel; lvl++ {
		groups := map[string][]fcNode{}
		memberOf := map[string][]int32{}
		for r := range specs {
			for li := range specs[r] {
				if levels[r][li] != lvl {
					continue
				}
				s := &specs[r][li]
				p := t.comms[r][s.parent]
				if p == nil {
					t.why[r][li] = t.why[r][s.parent]
					continue
				}
				pk := keys[r][s.parent] + "/" + strconv.Itoa(int(s.seq))
				var key string
				node := fcNode{rank: int32(r), li: int32(li), spec: s}
				switch s.kind {
				case fcDup:
					key = pk + "d"
					memberOf[key] = p.Members
				case fcSplit:
					key = pk + "s" + strconv.FormatInt(s.color, 10)
					node.prnk = p.Rank(int32(r))
				case fcObserved:
					key = pk + "o"
				case fcExplicit:
					m, err := s.members(get(r))
					if err != nil {
						t.why[r][li] = fmt.Sprintf("%s: %v", s.name, err)
						continue
					}
					var b strings.Builder
					b.WriteString(pk + "x")
					for i, w := range m {
						if i > 0 {
							b.WriteByte(',')
						}
						b.WriteString(strconv.Itoa(int(w)))
					}
					key = b.String()
					memberOf[key] = m
				}
				keys[r][li] = key
				groups[key] = append(groups[key], node)
			}
		}
		sorted := make([]string, 0, len(groups))
		for k := range groups {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, key := range sorted {
			nodes := groups[key]
			var members []int32
			switch nodes[0].spec.kind {
			case fcSplit:
				slices.SortFunc(nodes, func(a, b fcNode) int {
					if a.spec.key != b.spec.key {
						if a.spec.key < b.spec.key {
							return -1
						}
						return 1
					}
					return a.prnk - b.prnk
				})
				for _, n := range nodes {
					members = append(members, n.rank)
				}
			case fcObserved:
				members = observedMembers(nodes)
				if members == nil {
					for _, n := range nodes {
						t.why[n.rank][n.li] = fmt.Sprintf("the ranks' positions in the communicator %s made do not tell its members", n.spec.name)
					}
					continue
				}
			default:
				members = memberOf[key]
			}
			c := &Comm{ID: nextID, Members: members}
			nextID++
			for _, n := range nodes {
				i := c.Rank(n.rank)
				switch {
				case i < 0:
					t.why[n.rank][n.li] = fmt.Sprintf("rank %d is not a member of the communicator %s made (members %s)", n.rank, n.spec.name, shortList(members))
				case n.spec.idx >= 0 && (int(n.spec.idx) != i || int(n.spec.size) != len(members)):
					t.why[n.rank][n.li] = fmt.Sprintf("the trace shows rank %d as rank %d of %d in the communicator %s made, but its members are %s",
						n.rank, n.spec.idx, n.spec.size, n.spec.name, shortList(members))
				default:
					t.comms[n.rank][n.li] = c
				}
			}
		}
	}
	for r := range t.comms {
		for li, c := range t.comms[r] {
			if c == nil {
				if t.why[r][li] == "" {
					t.why[r][li] = "unresolved"
				}
				t.comms[r][li] = &Comm{ID: LocalCommBase + int32(li), Local: true}
			}
		}
	}
	return t
}

// observedMembers returns the members of a communicator that the ranks in
// nodes had, from their observed positions, if those are one consistent
// communicator; nil otherwise.
func observedMembers(nodes []fcNode) []int32 {
	size := nodes[0].spec.size
	if size <= 0 || int(size) != len(nodes) {
		return nil
	}
	members := make([]int32, size)
	for i := range members {
		members[i] = -1
	}
	for _, n := range nodes {
		if n.spec.size != size || n.spec.idx < 0 || n.spec.idx >= size || members[n.spec.idx] >= 0 {
			return nil
		}
		members[n.spec.idx] = n.rank
	}
	return members
}

// shortList prints a member list, eliding the middle of long ones.
func shortList(m []int32) string {
	if len(m) <= 8 {
		return fmt.Sprint(m)
	}
	return fmt.Sprintf("%v ... %v (%d ranks)", m[:4], m[len(m)-2:], len(m))
}

// foreignCountList is "MPI_Put x3, MPI_Win_fence x2", sorted by name.
func foreignCountList(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s x%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// unsupportedError is the error of an importer whose trace has calls the
// converter cannot model, listed with their counts.
func unsupportedError(what string, m map[string]int64) error {
	return fmt.Errorf("%s: %w (use --unsupported=calc to count their time as computation): %s", what, ErrUnsupported, foreignCountList(m))
}

// checkUnsupportedPolicy validates an importer's Unsupported option.
func checkUnsupportedPolicy(p string) error {
	switch p {
	case "", "calc":
		return nil
	}
	return fmt.Errorf("trace: unsupported-call policy %q: expected calc or nothing", p)
}

// TextFormatError is a malformed line of a text trace (liballprof,
// SimGrid time-independent). It unwraps to ErrFormat and to its cause.
type TextFormatError struct {
	File      string
	Line, Col int // from 1; Col 0 when the whole line is at fault
	Err       error
}

func (e *TextFormatError) Error() string {
	if e.Col > 0 {
		return fmt.Sprintf("trace: %s:%d:%d: %v", e.File, e.Line, e.Col, e.Err)
	}
	return fmt.Sprintf("trace: %s:%d: %v", e.File, e.Line, e.Err)
}

func (e *TextFormatError) Unwrap() []error { return []error{ErrFormat, e.Err} }

// Wildcard receives. A trace without receive statuses (liballprof, DUMPI
// with statuses off) does not say which message an MPI_ANY_SOURCE or
// MPI_ANY_TAG receive got. Left as a wildcard, the receive could take in
// the simulation a message MPI would never give it: one of a collective
// or of another communicator (the converter keeps them apart by tag, and
// a wildcard tag matches every tag). resolveWildcards matches each rank's
// receives, in the order the rank posted them, with the messages sent to
// it: a receive from a given source takes that source's first unmatched
// message on the communicator (with its tag, if given), as MPI's
// non-overtaking rule says; a wildcard source takes, among the first
// unmatched messages of every source, the one sent first by the trace's
// clocks (a stand-in for the order of arrival).

// p2pEvent is a send or a receive of one rank, in program order.
type p2pEvent struct {
	send bool
	peer int32   // world rank: destination, or source (AnySource)
	comm int32   // agreed communicator id
	tag  int32   // or AnyTag
	t    float64 // start time in the rank's clock
}

// p2pMatch is what a receive got: source and tag, or None (no message).
type p2pMatch struct{ peer, tag int32 }

type p2pQueue struct {
	msgs  []int32           // indices into the sender's events
	used  []bool            // matched, by position in msgs
	next  int               // first position not yet matched
	byTag map[int32][]int32 // tag -> positions in msgs
	nextT map[int32]int     // tag -> first position in byTag[tag] not matched
}

func (q *p2pQueue) first() int {
	for q.next < len(q.msgs) && q.used[q.next] {
		q.next++
	}
	if q.next < len(q.msgs) {
		return q.next
	}
	return -1
}

func (q *p2pQueue) firstTag(tag int32) int {
	pos := q.byTag[tag]
	i := q.nextT[tag]
	for i < len(pos) && q.used[pos[i]] {
		i++
	}
	q.nextT[tag] = i
	if i < len(pos) {
		return int(pos[i])
	}
	return -1
}

// resolveWildcards returns, per rank, what each of its receives got, in
// the order of its receives.
func resolveWildcards(events [][]p2pEvent) [][]p2pMatch {
	n := len(events)
	type key struct{ src, comm int32 }
	// queues[d][{s,c}]: the messages s sent d on c.
	queues := make([]map[key]*p2pQueue, n)
	sources := make([]map[int32][]int32, n) // d -> comm -> senders, in order of first message
	for s := range events {
		for i, e := range events[s] {
			if !e.send || e.peer < 0 || int(e.peer) >= n {
				continue
			}
			d := e.peer
			if queues[d] == nil {
				queues[d], sources[d] = map[key]*p2pQueue{}, map[int32][]int32{}
			}
			k := key{int32(s), e.comm}
			q := queues[d][k]
			if q == nil {
				q = &p2pQueue{byTag: map[int32][]int32{}, nextT: map[int32]int{}}
				queues[d][k] = q
				sources[d][e.comm] = append(sources[d][e.comm], int32(s))
			}
			q.byTag[e.tag] = append(q.byTag[e.tag], int32(len(q.msgs)))
			q.msgs = append(q.msgs, int32(i))
			q.used = append(q.used, false)
		}
	}
	out := make([][]p2pMatch, n)
	for d := range events {
		for _, e := range events[d] {
			if e.send {
				continue
			}
			wild := e.peer == AnySource || e.tag == AnyTag
			take := func(q *p2pQueue) int {
				if q == nil {
					return -1
				}
				if e.tag == AnyTag {
					return q.first()
				}
				return q.firstTag(e.tag)
			}
			var q *p2pQueue
			pos, src := -1, int32(-1)
			if e.peer != AnySource {
				if e.peer >= 0 && int(e.peer) < n {
					q = queues[d][key{e.peer, e.comm}]
					pos, src = take(q), e.peer
				}
			} else {
				best := 0.0
				for _, s := range sources[d][e.comm] {
					qs := queues[d][key{s, e.comm}]
					if p := take(qs); p >= 0 {
						t := events[s][qs.msgs[p]].t
						if pos < 0 || t < best {
							q, pos, src, best = qs, p, s, t
						}
					}
				}
			}
			m := p2pMatch{peer: None, tag: None}
			if pos >= 0 {
				q.used[pos] = true
				m = p2pMatch{peer: src, tag: events[src][q.msgs[pos]].tag}
			} else if !wild && e.peer >= 0 && int(e.peer) < n {
				m = p2pMatch{peer: e.peer, tag: e.tag}
			}
			out[d] = append(out[d], m)
		}
	}
	return out
}
