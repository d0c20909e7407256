package extrapolation

import (
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/gopsim/gopsim/trace"
)

// Options control NewSource. The zero value of each field but Factor is
// its documented default.
type Options struct {
	// Factor is K: the output has K·P ranks. It must be at least 1.
	Factor int
	// Grid is the process grid of the traced run, slowest dimension first
	// (MPI_Cart_create's dims), whose product is P. nil: taken from the
	// trace when it has an MPI_Cart_create over all P ranks (the grid that
	// best explains the point-to-point neighbours, see docs/extrapolate.md),
	// else none. Giving it also applies the grid rule to a trace without
	// MPI_Cart_create, whose ranks computed their neighbours themselves
	// (in world rank order).
	Grid []int
	// NoGrid ignores any grid: every copy keeps its point-to-point
	// messages, as Schedgen does.
	NoGrid bool
}

// Source is a trace.Source of K·P ranks made from one of P ranks: rank
// r + P·j replays rank r's calls with its peers, communicators and counts
// rewritten for copy j. It is safe for use by one converter at a time.
type Source struct {
	src  trace.Source
	m    mapper
	grid GridInfo

	mu   sync.Mutex
	full map[int32]*scaledComm // communicators over all P ranks, scaled once for every stream

	// The template ranks' recorded calls (replay.go), under recMu: recs
	// per template rank once complete, recTried for those whose first
	// stream records (or could not), recBytes the recordings' memory.
	recMu    sync.Mutex
	recs     []*recording
	recTried []bool
	recBytes int64
}

type scaledComm struct {
	orig []int32 // the members in the P-rank run
	comm *trace.Comm
}

// GridInfo says how the grid rule was applied.
type GridInfo struct {
	// Dims is the grid of the traced run and Grown the grid of the output
	// (Dims with its first dimension multiplied by the factor); both nil
	// when no grid applies.
	Dims, Grown []int
	// How says where Dims came from: "--grid", "MPI_Cart_create", or why no
	// grid applies.
	How string
	// Agree is the number of ranks whose neighbours the detected grid
	// explains (all of them for a periodic halo exchange); -1 if not
	// detected.
	Agree int
	// Crossing is the number of ranks of the traced run with a
	// point-to-point peer in a neighbouring copy once grown: 0 when every
	// exchange along the first dimension is at exactly half of it (a first
	// dimension of 2), which cannot tell up from down, so that messages
	// stay inside each copy as without a grid.
	Crossing int
}

// String describes the grid for a log line.
func (g GridInfo) String() string {
	if g.Dims == nil {
		return "none (" + g.How + "): point-to-point messages stay inside each copy"
	}
	s := fmt.Sprintf("%s grown to %s (%s", FormatDims(g.Dims), FormatDims(g.Grown), g.How)
	if g.Agree >= 0 {
		s += fmt.Sprintf("; %d of %d ranks have the same neighbours in it", g.Agree, product(g.Dims))
	}
	s += ")"
	if g.Crossing == 0 {
		s += fmt.Sprintf(", but no point-to-point message crosses from one copy to the next (none wraps around the first dimension of %d ranks; one at exactly half of it, as in a dimension of 2, cannot tell up from down): they stay inside each copy, as with --no-grid", g.Dims[0])
	}
	return s
}

// NewSource reads src once to find its process grid (see Options.Grid)
// and returns the K·P-rank source.
func NewSource(src trace.Source, opt Options) (*Source, error) {
	p := src.NumRanks()
	if err := checkFactor(p, opt.Factor); err != nil {
		return nil, err
	}
	x := &Source{src: src, m: mapper{p: p, k: opt.Factor}, full: map[int32]*scaledComm{},
		recs: make([]*recording, p), recTried: make([]bool, p)}
	if opt.Grid != nil && product(opt.Grid) != p {
		return nil, fmt.Errorf("%w: grid %s has %d ranks, the trace %d", ErrOptions, FormatDims(opt.Grid), product(opt.Grid), p)
	}
	if opt.NoGrid {
		x.grid = GridInfo{How: "grid rule turned off", Agree: -1}
		return x, nil
	}
	cart, peers, err := scan(p, x.openTemplate)
	if err != nil {
		return nil, err
	}
	switch {
	case opt.Grid != nil:
		x.grid = GridInfo{Dims: slices.Clone(opt.Grid), How: "--grid", Agree: -1}
		if cart != nil {
			x.grid.How = "--grid, ranks in the order of MPI_Cart_create"
		}
	case cart != nil:
		gp := gridPeers(cart, peers)
		dims, agree := detectDims(p, gp)
		x.grid = GridInfo{Dims: dims, How: "MPI_Cart_create over all ranks, dimensions from the point-to-point neighbours", Agree: agree}
	default:
		x.grid = GridInfo{How: "no MPI_Cart_create over all ranks", Agree: -1}
		return x, nil
	}
	x.grid.Grown = slices.Clone(x.grid.Dims)
	x.grid.Grown[0] *= opt.Factor
	x.m.d0 = x.grid.Dims[0]
	if cart != nil {
		x.m.cart = make([]int32, p)
		for c, w := range cart {
			x.m.cart[w] = int32(c)
		}
	}
	x.grid.Crossing = x.m.crossing(peers, opt.Factor)
	return x, nil
}

// crossing counts the ranks with a peer that copy 0 maps into another
// copy (GridInfo.Crossing); with a factor of 1 there is none to cross to,
// so it counts the ranks that would cross at any larger factor.
func (m *mapper) crossing(peers [][]int32, k int) int {
	mm := *m
	mm.k = max(k, 2)
	n := 0
	for r, ps := range peers {
		for _, q := range ps {
			if mm.peer(int32(r), q, 0) != q {
				n++
				break
			}
		}
	}
	return n
}

// scan reads every rank of the P-rank trace (open opens one): the members of the first MPI_Cart_create
// communicator over all ranks (in grid rank order; nil if none) and, per
// world rank, the world ranks it exchanged point-to-point messages with.
func scan(p int, open func(int) (trace.RankStream, error)) (cart []int32, peers [][]int32, err error) {
	peers = make([][]int32, p)
	var c trace.Call
	for r := range p {
		rd, err := open(r)
		if err != nil {
			return nil, nil, err
		}
		seen := map[int32]bool{}
		add := func(q int32) {
			if q >= 0 && int(q) < p && !seen[q] {
				seen[q] = true
				peers[r] = append(peers[r], q)
			}
		}
		for {
			err := rd.Next(&c)
			if err == io.EOF {
				break
			}
			if err != nil {
				rd.Close()
				return nil, nil, err
			}
			switch c.Func.Class() {
			case trace.ClassSend, trace.ClassIsend, trace.ClassRecv, trace.ClassIrecv:
				add(c.Peer)
			case trace.ClassSendrecv:
				add(c.Peer)
				add(c.RecvPeer)
			case trace.ClassWait, trace.ClassTest:
				for _, d := range c.Done {
					add(d.Peer)
				}
			case trace.ClassCommNew:
				if cart == nil && c.Func == trace.FuncCartCreate && c.NewComm >= 0 {
					if cm := rd.Comm(c.NewComm); cm != nil && !cm.Inter() && cm.Size() == p && isPermutation(cm.Members) {
						cart = slices.Clone(cm.Members)
					}
				}
			}
		}
		if err := rd.Close(); err != nil {
			return nil, nil, err
		}
	}
	return cart, peers, nil
}

func isPermutation(m []int32) bool {
	seen := make([]bool, len(m))
	for _, w := range m {
		if w < 0 || int(w) >= len(m) || seen[w] {
			return false
		}
		seen[w] = true
	}
	return true
}

// gridPeers turns per-world-rank neighbour lists into per-grid-rank ones.
func gridPeers(cart []int32, peers [][]int32) [][]int32 {
	inv := make([]int32, len(cart))
	for c, w := range cart {
		inv[w] = int32(c)
	}
	out := make([][]int32, len(cart))
	for c, w := range cart {
		for _, q := range peers[w] {
			out[c] = append(out[c], inv[q])
		}
	}
	return out
}

// NumRanks is K·P.
func (x *Source) NumRanks() int { return x.m.p * x.m.k }

// Factor is K.
func (x *Source) Factor() int { return x.m.k }

// Grid says whether and how the grid rule applies.
func (x *Source) Grid() GridInfo { return x.grid }

// Library is the MPI library of the trace copied (trace.LibraryOf), so
// that the copies' collectives follow its rules.
func (x *Source) Library() string { return trace.LibraryOf(x.src) }

// Unsupported passes on the counts of calls the wrapped importer could
// not model, if it keeps them (see the cli's convert).
func (x *Source) Unsupported() map[string]int64 {
	if u, ok := x.src.(interface{ Unsupported() map[string]int64 }); ok {
		return u.Unsupported()
	}
	return nil
}

// OpenRank opens rank r + P·j: rank r's calls, rewritten for copy j.
func (x *Source) OpenRank(rank int) (trace.RankStream, error) {
	if rank < 0 || rank >= x.NumRanks() {
		return nil, fmt.Errorf("extrapolation: rank %d outside 0..%d", rank, x.NumRanks()-1)
	}
	r, j := rank%x.m.p, rank/x.m.p
	in, err := x.openTemplate(r)
	if err != nil {
		return nil, err
	}
	return &stream{x: x, in: in, r: int32(r), j: j, comms: map[int32]*trace.Comm{}}, nil
}

type stream struct {
	x     *Source
	in    trace.RankStream
	r     int32 // the template rank
	j     int   // the copy
	comms map[int32]*trace.Comm
}

func (s *stream) Name() string {
	if s.j == 0 {
		return s.in.Name()
	}
	return fmt.Sprintf("%s (copy %d, rank %d)", s.in.Name(), s.j, int(s.r)+s.x.m.p*s.j)
}

func (s *stream) Start() int64 { return s.in.Start() }

// Where is the position of the template rank's call that the call last
// given copies; for copy j > 0, noted "copy j of rank r", since the
// position is in rank r's file.
func (s *stream) Where() trace.Position {
	p := s.in.Where()
	if s.j > 0 {
		p.Note = fmt.Sprintf("copy %d of rank %d", s.j, s.r)
	}
	return p
}

func (s *stream) Close() error { return s.in.Close() }

func (s *stream) Next(c *trace.Call) error {
	if err := s.in.Next(c); err != nil {
		return err
	}
	m := &s.x.m
	c.Peer = m.peer(s.r, c.Peer, s.j)
	c.RecvPeer = m.peer(s.r, c.RecvPeer, s.j)
	for i := range c.Done {
		c.Done[i].Peer = m.peer(s.r, c.Done[i].Peer, s.j)
	}
	if m.k > 1 && (len(c.Counts) > 0 || len(c.RecvCounts) > 0) {
		if cm := s.in.Comm(c.Comm); cm != nil && s.x.isFull(cm) {
			// One collective over K·P ranks: every copy's ranks have the
			// blocks their templates had.
			c.Counts = repeat(c.Counts, m.p, m.k)
			c.RecvCounts = repeat(c.RecvCounts, m.p, m.k)
		}
	}
	return nil
}

func repeat(x []int64, p, k int) []int64 {
	if len(x) != p {
		return x
	}
	out := x[:0:0]
	for range k {
		out = append(out, x...)
	}
	return out
}

// isFull reports whether cm has all P ranks: it becomes one communicator
// of all K·P ranks.
func (x *Source) isFull(cm *trace.Comm) bool {
	return !cm.Local && !cm.Inter() && cm.Size() == x.m.p
}

// Comm returns communicator id as copy j sees it: one over all P ranks
// becomes one over all K·P (grid rank c + P·j is world rank
// Members[c] + P·j), any other is copy j's own (members + P·j).
func (s *stream) Comm(id int32) *trace.Comm {
	cm := s.in.Comm(id)
	if cm == nil {
		return nil
	}
	if s.x.m.k > 1 && s.x.isFull(cm) {
		return s.x.fullComm(cm)
	}
	if out, ok := s.comms[id]; ok && sameMembers(out, cm, s.x.m.p, s.j) {
		return out
	}
	off := int32(s.x.m.p * s.j)
	shift := func(m []int32) []int32 {
		if m == nil {
			return nil
		}
		out := make([]int32, len(m))
		for i, w := range m {
			out[i] = w + off
		}
		return out
	}
	out := &trace.Comm{ID: cm.ID, Members: shift(cm.Members), Remote: shift(cm.Remote), Local: cm.Local}
	s.comms[id] = out
	return out
}

func sameMembers(out, cm *trace.Comm, p, j int) bool {
	if len(out.Members) != len(cm.Members) || len(out.Remote) != len(cm.Remote) {
		return false
	}
	return len(cm.Members) == 0 || out.Members[0] == cm.Members[0]+int32(p*j)
}

func (x *Source) fullComm(cm *trace.Comm) *trace.Comm {
	x.mu.Lock()
	defer x.mu.Unlock()
	if sc, ok := x.full[cm.ID]; ok && slices.Equal(sc.orig, cm.Members) {
		return sc.comm
	}
	p, k := x.m.p, x.m.k
	members := make([]int32, 0, p*k)
	for j := range k {
		for _, w := range cm.Members {
			members = append(members, w+int32(p*j))
		}
	}
	out := &trace.Comm{ID: cm.ID, Members: members}
	x.full[cm.ID] = &scaledComm{orig: slices.Clone(cm.Members), comm: out}
	return out
}
