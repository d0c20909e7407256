package trace

// Communicators and wildcard receives of imported MPI traces: what the
// DUMPI and liballprof importers (trace/dumpi, trace/liballprof) share,
// for any importer of a format with the same gaps (TIT traces know only
// MPI_COMM_WORLD).
//
// Both formats name a communicator by a handle that means something only
// in the process that recorded it, and neither records a communicator's
// members. The converter needs both: members to expand collectives and to
// turn ranks of a communicator into world ranks, and an id that every
// member gives the same communicator. An importer therefore describes, per
// rank, how each communicator the rank had was made (a CommSpec: a dup
// or a split of another one, members computed from earlier communicators,
// ...), in the order the rank made them, and ResolveComms computes
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

type CommOrigin uint8

const (
	OriginWorld    CommOrigin = iota + 1 // MPI_COMM_WORLD
	OriginSelf                           // MPI_COMM_SELF
	OriginDup                            // the parent's members (Comm_dup)
	OriginSplit                          // the parent's members with the same color, ordered by key then parent rank
	OriginExplicit                       // members computed by members() from earlier communicators
	OriginObserved                       // members known only from each member's observed rank and size
	OriginUnknown                        // cannot be resolved; why says why
)

// CommSpec is one communicator of one rank, as the rank made it.
type CommSpec struct {
	Origin CommOrigin
	Name   string // the MPI function that created it, for messages
	Parent int32  // the rank's communicator it was made from (index in the rank's list)
	Seq    int32  // the creating call was the rank's seq-th (from 0) such call on parent
	Color  int64  // split
	Key    int64  // split
	// Deps lists the communicators besides parent that members reads.
	Deps []int32
	// Members computes an explicit communicator's world ranks; get
	// returns a communicator's Members (nil if unresolved).
	Members func(get func(li int32) []int32) ([]int32, error)
	// Idx and Size are the rank's rank in the communicator and its Size
	// as the trace shows them, or -1: resolution checks them.
	Idx, Size int32
	Why       string // fcUnknown: the reason
}

// CommTable is the result: per rank, per communicator of the rank.
type CommTable struct {
	Comms [][]*Comm  // Local (ID >= LocalCommBase) when unresolved
	Why   [][]string // why an unresolved communicator is
}

// LocalCommBase is the first id of the communicators that an importer
// could not resolve: ids from here on are local to a rank (Comm.Local).
const LocalCommBase = 0x40000000

// Comm returns rank r's communicator li and, if it is unresolved, why.
func (t *CommTable) Comm(r int, li int32) (*Comm, string) {
	if r < 0 || r >= len(t.Comms) || li < 0 || int(li) >= len(t.Comms[r]) {
		return nil, "no such communicator"
	}
	return t.Comms[r][li], t.Why[r][li]
}

type fcNode struct {
	rank int32
	li   int32
	spec *CommSpec
	prnk int // split: the rank's rank in the parent
}

// ResolveComms resolves the communicators of a trace of nranks ranks;
// specs[r] lists rank r's communicators in the order it made them (a
// spec's parent and deps come before it). It works level by level: a
// communicator's level is one more than the highest of those it was made
// from (world and self are level 0).
func ResolveComms(nranks int, specs [][]CommSpec) *CommTable {
	rs := &commResolver{
		t:      &CommTable{Comms: make([][]*Comm, nranks), Why: make([][]string, nranks)},
		specs:  specs,
		keys:   make([][]string, nranks),
		levels: make([][]int, nranks),
		nextID: 2,
	}
	maxLevel := rs.seed(nranks)
	for lvl := 1; lvl <= maxLevel; lvl++ {
		groups, memberOf := rs.group(lvl)
		sorted := make([]string, 0, len(groups))
		for k := range groups {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, key := range sorted {
			rs.assign(groups[key], memberOf[key])
		}
	}
	rs.localizeUnresolved()
	return rs.t
}

// commResolver is the state of ResolveComms.
type commResolver struct {
	t      *CommTable
	specs  [][]CommSpec
	keys   [][]string // per rank and communicator: the key that names it in all members
	levels [][]int    // per rank and communicator: its level, -1 if it cannot be resolved
	nextID int32
}

// seed sets world and self, marks the unknown communicators and computes
// every communicator's level; it returns the highest level.
func (rs *commResolver) seed(nranks int) int {
	t := rs.t
	world := &Comm{ID: 0, Members: make([]int32, nranks)}
	for i := range world.Members {
		world.Members[i] = int32(i)
	}
	maxLevel := 0
	for r := range rs.specs {
		n := len(rs.specs[r])
		t.Comms[r], t.Why[r], rs.keys[r], rs.levels[r] = make([]*Comm, n), make([]string, n), make([]string, n), make([]int, n)
		for li := range rs.specs[r] {
			s := &rs.specs[r][li]
			switch s.Origin {
			case OriginWorld:
				t.Comms[r][li], rs.keys[r][li] = world, "w"
				continue
			case OriginSelf:
				t.Comms[r][li], rs.keys[r][li] = &Comm{ID: 1, Members: []int32{int32(r)}}, "s"
				continue
			case OriginUnknown:
				t.Why[r][li], rs.levels[r][li] = s.Why, -1
				continue
			}
			lvl := rs.level(r, li, s)
			rs.levels[r][li] = lvl
			maxLevel = max(maxLevel, lvl)
		}
	}
	return maxLevel
}

// level is the level of rank r's communicator li, made as s, from the
// levels of those it was made from; -1 (with the reason in Why) when one
// of them is unknown or unresolvable.
func (rs *commResolver) level(r, li int, s *CommSpec) int {
	lvl := 0
	for _, d := range append([]int32{s.Parent}, s.Deps...) {
		if d < 0 || int(d) >= li {
			rs.t.Why[r][li] = fmt.Sprintf("%s made it from a communicator not seen before", s.Name)
			return -1
		}
		if rs.levels[r][d] < 0 {
			rs.t.Why[r][li] = rs.t.Why[r][d]
			return -1
		}
		lvl = max(lvl, rs.levels[r][d]+1)
	}
	return lvl
}

// group gives every communicator of level lvl its key and groups them by
// key: a group is one communicator, seen from each of its members.
// memberOf holds the members of the groups whose key determines them
// (dups and explicit member lists).
func (rs *commResolver) group(lvl int) (groups map[string][]fcNode, memberOf map[string][]int32) {
	t := rs.t
	groups, memberOf = map[string][]fcNode{}, map[string][]int32{}
	for r := range rs.specs {
		get := func(li int32) []int32 {
			if li < 0 || int(li) >= len(t.Comms[r]) || t.Comms[r][li] == nil {
				return nil
			}
			return t.Comms[r][li].Members
		}
		for li := range rs.specs[r] {
			if rs.levels[r][li] != lvl {
				continue
			}
			s := &rs.specs[r][li]
			p := t.Comms[r][s.Parent]
			if p == nil {
				t.Why[r][li] = t.Why[r][s.Parent]
				continue
			}
			pk := rs.keys[r][s.Parent] + "/" + strconv.Itoa(int(s.Seq))
			var key string
			node := fcNode{rank: int32(r), li: int32(li), spec: s}
			switch s.Origin {
			case OriginDup:
				key = pk + "d"
				memberOf[key] = p.Members
			case OriginSplit:
				key = pk + "s" + strconv.FormatInt(s.Color, 10)
				node.prnk = p.Rank(int32(r))
			case OriginObserved:
				key = pk + "o"
			case OriginExplicit:
				m, err := s.Members(get)
				if err != nil {
					t.Why[r][li] = fmt.Sprintf("%s: %v", s.Name, err)
					continue
				}
				key = explicitKey(pk, m)
				memberOf[key] = m
			}
			rs.keys[r][li] = key
			groups[key] = append(groups[key], node)
		}
	}
	return groups, memberOf
}

// explicitKey is the key of a communicator with explicit members m made
// by the call named pk.
func explicitKey(pk string, m []int32) string {
	var b strings.Builder
	b.WriteString(pk + "x")
	for i, w := range m {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(int(w)))
	}
	return b.String()
}

// assign gives the communicator that nodes see the next id and its
// members (known, or from a split's colors and keys, or from the observed
// positions), and sets it for each node whose rank and position agree.
func (rs *commResolver) assign(nodes []fcNode, known []int32) {
	t := rs.t
	var members []int32
	switch nodes[0].spec.Origin {
	case OriginSplit:
		slices.SortFunc(nodes, func(a, b fcNode) int {
			if a.spec.Key != b.spec.Key {
				if a.spec.Key < b.spec.Key {
					return -1
				}
				return 1
			}
			return a.prnk - b.prnk
		})
		for _, n := range nodes {
			members = append(members, n.rank)
		}
	case OriginObserved:
		members = observedMembers(nodes)
		if members == nil {
			for _, n := range nodes {
				t.Why[n.rank][n.li] = fmt.Sprintf("the ranks' positions in the communicator %s made do not tell its members", n.spec.Name)
			}
			return
		}
	default:
		members = known
	}
	c := &Comm{ID: rs.nextID, Members: members}
	rs.nextID++
	for _, n := range nodes {
		i := c.Rank(n.rank)
		switch {
		case i < 0:
			t.Why[n.rank][n.li] = fmt.Sprintf("rank %d is not a member of the communicator %s made (members %s)", n.rank, n.spec.Name, shortList(members))
		case n.spec.Idx >= 0 && (int(n.spec.Idx) != i || int(n.spec.Size) != len(members)):
			t.Why[n.rank][n.li] = fmt.Sprintf("the trace shows rank %d as rank %d of %d in the communicator %s made, but its members are %s",
				n.rank, n.spec.Idx, n.spec.Size, n.spec.Name, shortList(members))
		default:
			t.Comms[n.rank][n.li] = c
		}
	}
}

// localizeUnresolved gives every communicator left unresolved a local id
// (LocalCommBase + its index in the rank's list).
func (rs *commResolver) localizeUnresolved() {
	t := rs.t
	for r := range t.Comms {
		for li, c := range t.Comms[r] {
			if c == nil {
				if t.Why[r][li] == "" {
					t.Why[r][li] = "unresolved"
				}
				t.Comms[r][li] = &Comm{ID: LocalCommBase + int32(li), Local: true}
			}
		}
	}
}

// observedMembers returns the members of a communicator that the ranks in
// nodes had, from their observed positions, if those are one consistent
// communicator; nil otherwise.
func observedMembers(nodes []fcNode) []int32 {
	size := nodes[0].spec.Size
	if size <= 0 || int(size) != len(nodes) {
		return nil
	}
	members := make([]int32, size)
	for i := range members {
		members[i] = -1
	}
	for _, n := range nodes {
		if n.spec.Size != size || n.spec.Idx < 0 || n.spec.Idx >= size || members[n.spec.Idx] >= 0 {
			return nil
		}
		members[n.spec.Idx] = n.rank
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

// P2PEvent is a send or a receive of one rank, in program order.
type P2PEvent struct {
	Send bool
	Peer int32   // world rank: destination, or source (AnySource)
	Comm int32   // agreed communicator id
	Tag  int32   // or AnyTag
	T    float64 // start time in the rank's clock
}

// P2PMatch is what a receive got: source and tag, or None (no message).
type P2PMatch struct{ Peer, Tag int32 }

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

// ResolveWildcards returns, per rank, what each of its receives got, in
// the order of its receives.
func ResolveWildcards(events [][]P2PEvent) [][]P2PMatch {
	n := len(events)
	type key struct{ src, comm int32 }
	// queues[d][{s,c}]: the messages s sent d on c.
	queues := make([]map[key]*p2pQueue, n)
	sources := make([]map[int32][]int32, n) // d -> comm -> senders, in order of first message
	for s := range events {
		for i, e := range events[s] {
			if !e.Send || e.Peer < 0 || int(e.Peer) >= n {
				continue
			}
			d := e.Peer
			if queues[d] == nil {
				queues[d], sources[d] = map[key]*p2pQueue{}, map[int32][]int32{}
			}
			k := key{int32(s), e.Comm}
			q := queues[d][k]
			if q == nil {
				q = &p2pQueue{byTag: map[int32][]int32{}, nextT: map[int32]int{}}
				queues[d][k] = q
				sources[d][e.Comm] = append(sources[d][e.Comm], int32(s))
			}
			q.byTag[e.Tag] = append(q.byTag[e.Tag], int32(len(q.msgs)))
			q.msgs = append(q.msgs, int32(i))
			q.used = append(q.used, false)
		}
	}
	out := make([][]P2PMatch, n)
	for d := range events {
		for _, e := range events[d] {
			if e.Send {
				continue
			}
			wild := e.Peer == AnySource || e.Tag == AnyTag
			take := func(q *p2pQueue) int {
				if q == nil {
					return -1
				}
				if e.Tag == AnyTag {
					return q.first()
				}
				return q.firstTag(e.Tag)
			}
			var q *p2pQueue
			pos, src := -1, int32(-1)
			if e.Peer != AnySource {
				if e.Peer >= 0 && int(e.Peer) < n {
					q = queues[d][key{e.Peer, e.Comm}]
					pos, src = take(q), e.Peer
				}
			} else {
				best := 0.0
				for _, s := range sources[d][e.Comm] {
					qs := queues[d][key{s, e.Comm}]
					if p := take(qs); p >= 0 {
						t := events[s][qs.msgs[p]].T
						if pos < 0 || t < best {
							q, pos, src, best = qs, p, s, t
						}
					}
				}
			}
			m := P2PMatch{Peer: None, Tag: None}
			if pos >= 0 {
				q.used[pos] = true
				m = P2PMatch{Peer: src, Tag: events[src][q.msgs[pos]].Tag}
			} else if !wild && e.Peer >= 0 && int(e.Peer) < n {
				m = P2PMatch{Peer: e.Peer, Tag: e.Tag}
			}
			out[d] = append(out[d], m)
		}
	}
	return out
}
