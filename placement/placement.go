package placement

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gopsim/gopsim/goal"
)

// ErrPlacement is returned (wrapped) for jobs that cannot be placed.
var ErrPlacement = errors.New("placement: cannot place the jobs")

// Policy is how the jobs' ranks are laid out on the machine.
type Policy uint8

// The policies.
const (
	Packed     Policy = iota // job after job, each on consecutive ranks
	RoundRobin               // one rank of each job in turn
	Random                   // a seeded random permutation of the packed slots
)

var policyNames = [...]string{Packed: "packed", RoundRobin: "round-robin", Random: "random"}

func (p Policy) String() string {
	if int(p) < len(policyNames) {
		return policyNames[p]
	}
	return fmt.Sprintf("Policy(%d)", uint8(p))
}

// ParsePolicy reads a policy name: packed, round-robin or random.
func ParsePolicy(s string) (Policy, error) {
	for p, name := range policyNames {
		if s == name {
			return Policy(p), nil
		}
	}
	return 0, fmt.Errorf("%w: placement %q: expected packed, round-robin or random", ErrPlacement, s)
}

// Map is a placement: where each job's ranks are on the machine, and back.
type Map struct {
	Policy Policy
	Seed   uint64 // the seed of Random
	// Slot[i][k] is the machine rank of job i's rank k.
	Slot [][]int32
	// Job[m] and JobRank[m] are the job and its rank at machine rank m.
	Job, JobRank []int32
}

// NumRanks is the size of the machine: the sum of the jobs' ranks.
func (m *Map) NumRanks() int { return len(m.Job) }

// Place lays out jobs of sizes[i] ranks with policy p; seed only matters
// for Random, and the same seed gives the same placement.
func Place(sizes []int, p Policy, seed uint64) (*Map, error) {
	if len(sizes) == 0 {
		return nil, fmt.Errorf("%w: no jobs", ErrPlacement)
	}
	total := int64(0)
	for i, n := range sizes {
		if n < 1 {
			return nil, fmt.Errorf("%w: job %d has %d ranks", ErrPlacement, i, n)
		}
		total += int64(n)
	}
	if total > math.MaxInt32 {
		return nil, fmt.Errorf("%w: %d ranks in all, more than the %d a schedule holds", ErrPlacement, total, math.MaxInt32)
	}
	m := &Map{Policy: p, Seed: seed, Slot: make([][]int32, len(sizes)), Job: make([]int32, total), JobRank: make([]int32, total)}
	for i, n := range sizes {
		m.Slot[i] = make([]int32, n)
	}
	next := int32(0)
	switch p {
	case Packed, Random:
		for i, n := range sizes {
			for k := range n {
				m.Slot[i][k] = next
				next++
			}
		}
		if p == Random {
			perm := make([]int32, total)
			for s := range perm {
				perm[s] = int32(s)
			}
			rnd := rand.New(rand.NewPCG(seed, 0x706c616365)) // "place"
			rnd.Shuffle(len(perm), func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
			for i := range m.Slot {
				for k, s := range m.Slot[i] {
					m.Slot[i][k] = perm[s]
				}
			}
		}
	case RoundRobin:
		for k := 0; next < int32(total); k++ {
			for i, n := range sizes {
				if k < n {
					m.Slot[i][k] = next
					next++
				}
			}
		}
	default:
		return nil, fmt.Errorf("%w: unknown policy %v", ErrPlacement, p)
	}
	for i := range m.Slot {
		for k, s := range m.Slot[i] {
			m.Job[s], m.JobRank[s] = int32(i), int32(k)
		}
	}
	return m, nil
}

// MergedHeader is the header of the merged schedule: the machine's ranks,
// and the largest CPU and NIC counts of the jobs.
func MergedHeader(jobs []*goal.Schedule, m *Map) goal.Header {
	h := goal.Header{NumRanks: m.NumRanks(), NumCPUs: 1, NumNICs: 1}
	for _, s := range jobs {
		h.NumCPUs = max(h.NumCPUs, s.NumCPUs)
		h.NumNICs = max(h.NumNICs, s.NumNICs)
	}
	return h
}

// Merge writes the machine's schedule, rank by rank in order, to write:
// machine rank m is rank JobRank[m] of job Job[m], with its peers mapped
// through Slot. AnySource stays the wildcard: only a rank's own job ever
// sends to it, so it still matches only that job's messages. The block
// handed to write is reused for the next rank.
func Merge(jobs []*goal.Schedule, m *Map, write func(*goal.RankBlock) error) error {
	if len(jobs) != len(m.Slot) {
		return fmt.Errorf("%w: %d schedules for a placement of %d jobs", ErrPlacement, len(jobs), len(m.Slot))
	}
	for i, s := range jobs {
		if s.NumRanks != len(m.Slot[i]) {
			return fmt.Errorf("%w: job %d has %d ranks, its placement %d", ErrPlacement, i, s.NumRanks, len(m.Slot[i]))
		}
		if !s.Complete() {
			return fmt.Errorf("%w: job %d has %d of its %d ranks", ErrPlacement, i, len(s.RankStart)-1, s.NumRanks)
		}
	}
	var b goal.RankBlock
	for r := range m.NumRanks() {
		i, k := m.Job[r], m.JobRank[r]
		jobs[i].Block(int(k), &b)
		b.Rank = int32(r)
		slot := m.Slot[i]
		for x := range b.Ops {
			op := &b.Ops[x]
			if op.Kind == goal.Calc || op.Peer == goal.AnySource {
				continue
			}
			op.Peer = slot[op.Peer]
		}
		if err := write(&b); err != nil {
			return fmt.Errorf("placement: machine rank %d (job %d rank %d): %w", r, i, k, err)
		}
	}
	return nil
}

// Ranges describes the machine ranks of job i compactly: "0-15" or
// "0,2,4-6"; at most limit bytes (0: no limit), ending in "..." when cut.
func (m *Map) Ranges(i, limit int) string {
	var out []byte
	s := m.Slot[i]
	for a := 0; a < len(s); {
		b := a
		for b+1 < len(s) && s[b+1] == s[b]+1 {
			b++
		}
		if len(out) > 0 {
			out = append(out, ',')
		}
		out = fmt.Appendf(out, "%d", s[a])
		if b > a {
			out = fmt.Appendf(out, "-%d", s[b])
		}
		if limit > 0 && len(out) > limit {
			return string(out[:limit]) + "..."
		}
		a = b + 1
	}
	return string(out)
}
