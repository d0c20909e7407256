package topology

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// Mapping places ranks on hosts: Mapping[r] is the host index of rank r.
// Several ranks may share a host (their messages then share its links;
// two ranks on one host exchange messages without using the network).
type Mapping []int32

// Check reports a host index outside the graph.
func (m Mapping) Check(g *Graph) error {
	for r, h := range m {
		if h < 0 || int(h) >= g.NumHosts() {
			return errTopo("mapping: rank %d on host %d, outside 0..%d", r, h, g.NumHosts()-1)
		}
	}
	return nil
}

func slots(g *Graph, ranks, ppn int) (int, error) {
	if ppn < 1 {
		ppn = 1
	}
	if ranks < 0 || int64(ranks) > int64(g.NumHosts())*int64(ppn) {
		return 0, errTopo("mapping: %d ranks do not fit on %d hosts with %d rank(s) per host", ranks, g.NumHosts(), ppn)
	}
	return ppn, nil
}

// Linear puts rank r on host r/ppn (ppn ranks per host, 1 if ppn < 1):
// LogGOPSim's placement, rank i on the i-th host.
func Linear(g *Graph, ranks, ppn int) (Mapping, error) {
	ppn, err := slots(g, ranks, ppn)
	if err != nil {
		return nil, err
	}
	m := make(Mapping, ranks)
	for r := range m {
		m[r] = int32(r / ppn)
	}
	return m, nil
}

// RoundRobin deals ranks over the switches hosts attach to (leaves of a
// fat tree, routers of a torus or dragonfly, a dot host's first
// neighbour), in order of their first host: rank 0 on the first switch,
// rank 1 on the second, and so on, each switch filling its hosts in order,
// ppn ranks per host. Neighbouring ranks thus land on different switches.
func RoundRobin(g *Graph, ranks, ppn int) (Mapping, error) {
	ppn, err := slots(g, ranks, ppn)
	if err != nil {
		return nil, err
	}
	// Group hosts by attachment switch, switches in order of first host.
	idx := make([]int32, g.NumNodes())
	for i := range idx {
		idx[i] = -1
	}
	var count []int32
	sw := make([]int32, g.NumHosts())
	for h := range sw {
		a := g.Attach(int32(h))
		if idx[a] < 0 {
			idx[a] = int32(len(count))
			count = append(count, 0)
		}
		sw[h] = idx[a]
		count[idx[a]]++
	}
	start := make([]int32, len(count)+1)
	for i, c := range count {
		start[i+1] = start[i] + c
	}
	hosts := make([]int32, g.NumHosts())
	next := append([]int32(nil), start[:len(count)]...)
	for h, s := range sw {
		hosts[next[s]] = int32(h)
		next[s]++
	}
	m := make(Mapping, 0, ranks)
	for round := 0; len(m) < ranks; round++ {
		for s := range count {
			if len(m) == ranks {
				break
			}
			if k := round; k < int(count[s])*ppn {
				m = append(m, hosts[int(start[s])+k/ppn])
			}
		}
	}
	return m, nil
}

// Random places ranks on a random choice of host slots (ppn per host),
// drawn from seed with gopsim's own generator (SplitMix64 and a partial
// Fisher-Yates shuffle), so the same seed gives the same mapping on every
// platform and Go version.
func Random(g *Graph, ranks, ppn int, seed uint64) (Mapping, error) {
	ppn, err := slots(g, ranks, ppn)
	if err != nil {
		return nil, err
	}
	n := g.NumHosts() * ppn
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	s := seed
	m := make(Mapping, ranks)
	for r := range m {
		j := r + int(uniform(&s, uint64(n-r)))
		perm[r], perm[j] = perm[j], perm[r]
		m[r] = perm[r] / int32(ppn)
	}
	return m, nil
}

// splitMix64 advances s and returns the next value (Steele, Lea, Flood).
func splitMix64(s *uint64) uint64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// uniform returns an unbiased value in [0, n), n > 0, by rejection.
func uniform(s *uint64, n uint64) uint64 {
	limit := -n % n // 2^64 mod n
	for {
		x := splitMix64(s)
		if x >= limit {
			return x % n
		}
	}
}

// ReadMappingFile reads a mapping file; see ReadMapping.
func ReadMappingFile(path string, g *Graph, ranks int) (Mapping, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("topology: %w", err)
	}
	defer f.Close()
	return ReadMapping(path, f, g, ranks)
}

// ReadMapping reads a mapping file: one host index per rank, rank 0
// first, one per line; blank lines and everything after # are ignored.
// It must list exactly ranks ranks, each on a host of g; errors are
// SyntaxErrors at FILE:LINE:COL.
func ReadMapping(name string, r io.Reader, g *Graph, ranks int) (Mapping, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	var m Mapping
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		f := strings.TrimLeft(text, " \t\r")
		col := len(text) - len(f) + 1
		f = strings.TrimRight(f, " \t\r")
		if f == "" {
			continue
		}
		if strings.ContainsAny(f, " \t") {
			return nil, &SyntaxError{name, line, col, fmt.Sprintf("%q: one host index per line", f)}
		}
		h, err := strconv.ParseInt(f, 10, 32)
		if err != nil || h < 0 || h >= int64(g.NumHosts()) {
			return nil, &SyntaxError{name, line, col, fmt.Sprintf("host %q for rank %d: want an integer from 0 to %d", f, len(m), g.NumHosts()-1)}
		}
		if len(m) == ranks {
			return nil, &SyntaxError{name, line, col, fmt.Sprintf("more than %d ranks", ranks)}
		}
		m = append(m, int32(h))
	}
	if err := sc.Err(); err != nil {
		return nil, &SyntaxError{name, line + 1, 1, err.Error()}
	}
	if len(m) != ranks {
		return nil, &SyntaxError{name, line + 1, 1, fmt.Sprintf("%d ranks listed, want %d", len(m), ranks)}
	}
	return m, nil
}

// MappingSpec is a parsed --mapping string:
//
//	linear[:ppn=N]            rank r on host r/N (N ranks per host, default 1)
//	roundrobin[:ppn=N]        dealt over leaf switches / routers (alias rr)
//	random[:seed=S][,ppn=N]   a seeded random placement (seed default 1)
//	file:PATH                 one host index per rank, per line
type MappingSpec struct {
	Kind string // "linear", "roundrobin", "random" or "file"
	PPN  int
	Seed uint64
	Path string
}

// MappingFlag names mapping spec strings in errors.
const MappingFlag = "--mapping"

// ParseMapping parses a --mapping spec; the empty string is linear.
func ParseMapping(s string) (MappingSpec, error) {
	if s == "" {
		return MappingSpec{Kind: "linear", PPN: 1}, nil
	}
	if k, path, ok := strings.Cut(s, ":"); ok && strings.EqualFold(k, "file") {
		if path == "" {
			return MappingSpec{}, &SyntaxError{MappingFlag, 1, 6, "file: needs a path"}
		}
		return MappingSpec{Kind: "file", Path: path}, nil
	}
	kind, args, err := splitSpec(MappingFlag, s)
	if err != nil {
		return MappingSpec{}, err
	}
	if kind == "rr" {
		kind = "roundrobin"
	}
	m := MappingSpec{Kind: kind, PPN: 1}
	switch kind {
	case "linear", "roundrobin", "random":
	default:
		return MappingSpec{}, &SyntaxError{MappingFlag, 1, 1, fmt.Sprintf("unknown mapping %q (want linear, roundrobin, random or file:PATH)", kind)}
	}
	if kind == "random" {
		m.Seed = 1
	}
	for _, a := range args {
		switch {
		case a.key == "ppn":
			n, err := specInt(MappingFlag, a)
			if err != nil {
				return MappingSpec{}, err
			}
			if n < 1 {
				return MappingSpec{}, &SyntaxError{MappingFlag, 1, a.vcol, "ppn must be at least 1"}
			}
			m.PPN = n
		case a.key == "seed" && kind == "random":
			n, err := strconv.ParseUint(a.val, 10, 64)
			if err != nil {
				return MappingSpec{}, &SyntaxError{MappingFlag, 1, a.vcol, fmt.Sprintf("seed=%q: want an unsigned integer", a.val)}
			}
			m.Seed = n
		default:
			name := a.key
			if name == "" {
				name = a.val
			}
			return MappingSpec{}, &SyntaxError{MappingFlag, 1, a.col, fmt.Sprintf("unknown parameter %q for %s", name, kind)}
		}
	}
	return m, nil
}

// String returns the canonical spec.
func (m MappingSpec) String() string {
	var s string
	switch m.Kind {
	case "file":
		return "file:" + m.Path
	case "random":
		s = fmt.Sprintf("random:seed=%d", m.Seed)
		if m.PPN > 1 {
			s += fmt.Sprintf(",ppn=%d", m.PPN)
		}
		return s
	}
	if m.PPN > 1 {
		return fmt.Sprintf("%s:ppn=%d", m.Kind, m.PPN)
	}
	return m.Kind
}

// Build places ranks ranks on g's hosts.
func (m MappingSpec) Build(g *Graph, ranks int) (Mapping, error) {
	switch m.Kind {
	case "linear", "":
		return Linear(g, ranks, m.PPN)
	case "roundrobin":
		return RoundRobin(g, ranks, m.PPN)
	case "random":
		return Random(g, ranks, m.PPN, m.Seed)
	case "file":
		return ReadMappingFile(m.Path, g, ranks)
	}
	return nil, errTopo("unknown mapping %q", m.Kind)
}
