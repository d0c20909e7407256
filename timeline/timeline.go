package timeline

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/sim"
)

// DefaultRanks is how many ranks a Chrome timeline shows when
// Options.Ranks is nil: ranks 0 to DefaultRanks-1 (a viewer loads the
// JSON whole). A Paraver trace shows every rank by default.
const DefaultRanks = 64

// ErrNoRecord is returned for a result without per-op records.
var ErrNoRecord = errors.New("timeline: the result has no per-op record (run with sim.Options.Record)")

// Options bound a timeline. The zero value shows the whole run: every
// rank in Paraver, the first DefaultRanks in Chrome's form.
type Options struct {
	// Ranks are the ranks to show, in this order, each once; empty means
	// every rank (Paraver) or the first DefaultRanks (Chrome; all, if
	// fewer).
	Ranks []int
	// From and To are the time window in ns: what overlaps [From, To] is
	// shown. To == 0 means the end of the run.
	From, To int64
	// Input names the schedule, for the files' metadata.
	Input string
	// Model, Noise and Network say, for the files' metadata, what shaped
	// the run beyond the LogGOPS parameters: the model and its own
	// parameters ("alphabeta: alpha=5500 ns, beta=6 ns/byte"), the noise,
	// the congestion network; "" for none.
	Model, Noise, Network string
	// TempDir is where WritePRV sorts the .prv body (a scratch file,
	// removed at once); "" is os.TempDir().
	TempDir string
}

// CheckRanks checks a list of ranks to show (Options.Ranks) against a
// schedule of numRanks ranks: each in range, each once. A program checks
// it before the run whose timelines show them.
func CheckRanks(ranks []int, numRanks int) error {
	seen := make(map[int]bool, len(ranks))
	for _, r := range ranks {
		if r < 0 || r >= numRanks {
			return fmt.Errorf("timeline: rank %d: the schedule has ranks 0 to %d", r, numRanks-1)
		}
		if seen[r] {
			return fmt.Errorf("timeline: rank %d listed twice", r)
		}
		seen[r] = true
	}
	return nil
}

// ShownRanks returns the ranks a timeline of a run of numRanks ranks
// shows under opt, as a list such as "0-63" (Options.Ranks, or the
// default of the format: every rank for Paraver, the first DefaultRanks
// for Chrome).
func ShownRanks(numRanks int, opt Options, paraver bool) string {
	if len(opt.Ranks) > 0 {
		return rankList(opt.Ranks)
	}
	return rankList(defaultRanks(numRanks, paraver))
}

// defaultRanks are the ranks shown without Options.Ranks.
func defaultRanks(numRanks int, all bool) []int {
	n := numRanks
	if !all {
		n = min(n, DefaultRanks)
	}
	r := make([]int, max(n, 0))
	for i := range r {
		r[i] = i
	}
	return r
}

// ParseRanks parses a rank list such as "0-15,32" (ranges inclusive).
func ParseRanks(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		lo, hi, isRange := strings.Cut(f, "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil || a < 0 {
			return nil, fmt.Errorf("timeline: rank list %q: %q is not a rank", s, f)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil || b < a {
				return nil, fmt.Errorf("timeline: rank list %q: %q is not a range a-b with a <= b", s, f)
			}
		}
		if b-a > 1<<24 {
			return nil, fmt.Errorf("timeline: rank list %q: range %q too large", s, f)
		}
		for r := a; r <= b; r++ {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("timeline: rank list %q is empty", s)
	}
	return out, nil
}

// ParseWindow parses a time window "T0:T1"; either side may be empty
// (from 0, to the end). A time is in ns unless it has a unit, and may
// have decimals ("1.5us:0.5ms", sim.ParseDuration); a fraction of a ns
// widens the window to whole ns (T0 rounded down, T1 up).
func ParseWindow(s string) (from, to int64, err error) {
	a, b, ok := strings.Cut(s, ":")
	if !ok {
		return 0, 0, fmt.Errorf("timeline: window %q: want T0:T1 (ns, or with a unit: 1.5us:2ms)", s)
	}
	if a = strings.TrimSpace(a); a != "" {
		if from, err = windowTime(s, a, math.Floor); err != nil {
			return 0, 0, err
		}
	}
	if b = strings.TrimSpace(b); b != "" {
		if to, err = windowTime(s, b, math.Ceil); err != nil {
			return 0, 0, err
		}
		if to <= 0 {
			return 0, 0, fmt.Errorf("timeline: window %q: the end %q is not after time 0", s, b)
		}
		if to < from {
			return 0, 0, fmt.Errorf("timeline: window %q ends before it starts", s)
		}
	}
	return from, to, nil
}

// windowTime reads side t of window s in ns, rounded to whole ns by round.
func windowTime(s, t string, round func(float64) float64) (int64, error) {
	x, err := sim.ParseDuration(t)
	if err != nil || x < 0 || round(x) >= math.MaxInt64 {
		return 0, fmt.Errorf("timeline: window %q: %q is not a time (ns, or with a unit: 1.5us, 2ms)", s, t)
	}
	return int64(round(x)), nil
}

// view is a checked Options over one run.
type view struct {
	p      *sim.Program
	res    *sim.Result
	costs  *sim.Costs
	ranks  []int
	slot   []int32 // per rank of the run: its position in ranks, or -1
	from   int64
	to     int64 // inclusive; MaxInt64 without a bound
	nc, nn int
	input  string
	setup  [3][2]string // model, noise and network: key and Options' text
	read   int          // records read since the record pages were last given back
}

// releaseEvery is how many records a writer reads between two calls of
// Program.ReleaseRecordPages, which gives back the pages of a streamed
// run's record that reading brought in (about 88 MiB).
const releaseEvery = 1 << 20

// info returns the static fields of op g, and counts a record read.
func (v *view) info(g int32) sim.OpInfo {
	if v.read++; v.read >= releaseEvery {
		v.p.ReleaseRecordPages()
		v.read = 0
	}
	return v.p.OpInfo(g)
}

// newView checks opt against the run; without Options.Ranks it shows
// every rank when all is set, else the first DefaultRanks.
func newView(p *sim.Program, res *sim.Result, opt Options, all bool) (*view, error) {
	if res.Record == nil {
		return nil, ErrNoRecord
	}
	if len(res.Record) != p.NumOps() || res.NumRanks != p.NumRanks {
		return nil, fmt.Errorf("timeline: the result (%d ranks, %d ops) is not the program's (%d ranks, %d ops)",
			res.NumRanks, len(res.Record), p.NumRanks, p.NumOps())
	}
	if opt.From < 0 || opt.To < 0 || (opt.To > 0 && opt.To < opt.From) {
		return nil, fmt.Errorf("timeline: window [%d, %d] ns is not a time window", opt.From, opt.To)
	}
	v := &view{p: p, res: res, costs: sim.NewCosts(res.Params), from: opt.From, to: opt.To,
		nc: p.NumCPUs, nn: p.NumNICs, input: opt.Input,
		setup: [3][2]string{{"model", opt.Model}, {"noise", opt.Noise}, {"network", opt.Network}}}
	if v.to == 0 {
		v.to = 1<<63 - 1
	}
	v.ranks = opt.Ranks
	if len(v.ranks) == 0 {
		v.ranks = defaultRanks(p.NumRanks, all)
	}
	v.slot = make([]int32, p.NumRanks)
	for i := range v.slot {
		v.slot[i] = -1
	}
	if err := CheckRanks(v.ranks, p.NumRanks); err != nil {
		return nil, err
	}
	for i, r := range v.ranks {
		v.slot[r] = int32(i)
	}
	return v, nil
}

// overlaps reports whether [s, e] meets the window.
func (v *view) overlaps(s, e int64) bool { return e >= v.from && s <= v.to }

// What a slice is; the names are those of the Chrome form.
type sliceKind uint8

const (
	sCalc sliceKind = iota
	sOSend
	sORecv
	sNoise
	sNICSend
	sNICRecv
)

var sliceNames = [...]string{"calc", "o_send", "o_recv", "noise", "send", "recv"}

// slice is one busy interval of a rank's resource: track c < nc is CPU c,
// nc+2n NIC n sending, nc+2n+1 NIC n receiving.
type slice struct {
	kind       sliceKind
	track      int
	start, end int64
	op         int32 // the calc, the send (o_send, send), the receive (o_recv, recv); for noise the op of the work it follows
	msg        int32 // the send of the message a slice belongs to, -1 for a calc's
}

// slices calls fn with the slices of rank r that overlap the window, op
// by op: a calc's or send's own, then those of the message a receive got.
func (v *view) slices(r int, fn func(s slice) error) error {
	lo, hi := v.p.RankOps(r)
	rec := v.res.Record
	emit := func(s slice) error {
		if v.overlaps(s.start, s.end) {
			return fn(s)
		}
		return nil
	}
	for g := lo; g < hi; g++ {
		in := v.info(g)
		rc := &rec[g]
		if rc.End < 0 && in.Kind != goal.Recv {
			continue // never started (a failed run)
		}
		var err error
		switch in.Kind {
		case goal.Calc:
			work := rc.CPUEnd - rc.Noise
			err = emit(slice{kind: sCalc, track: int(in.CPU), start: rc.Start, end: work, op: g, msg: -1})
			if err == nil && rc.Noise > 0 {
				err = emit(slice{kind: sNoise, track: int(in.CPU), start: work, end: rc.CPUEnd, op: g, msg: -1})
			}
		case goal.Send:
			work := rc.CPUEnd - rc.Noise
			err = emit(slice{kind: sOSend, track: int(in.CPU), start: rc.Start, end: work, op: g, msg: g})
			if err == nil && rc.Noise > 0 {
				err = emit(slice{kind: sNoise, track: int(in.CPU), start: work, end: rc.CPUEnd, op: g, msg: g})
			}
			if err == nil {
				err = emit(slice{kind: sNICSend, track: v.nc + 2*int(in.NIC), start: rc.Start, end: rc.NICEnd, op: g, msg: g})
			}
		case goal.Recv:
			s := rc.Match
			if s < 0 || rec[s].Arrive < 0 {
				continue
			}
			sin := v.info(s)
			sr := &rec[s]
			work := sr.RecvCPUEnd - sr.RecvNoise
			err = emit(slice{kind: sORecv, track: int(sin.CPU), start: sr.Arrive, end: work, op: g, msg: s})
			if err == nil && sr.RecvNoise > 0 {
				err = emit(slice{kind: sNoise, track: int(sin.CPU), start: work, end: sr.RecvCPUEnd, op: g, msg: s})
			}
			if err == nil {
				err = emit(slice{kind: sNICRecv, track: v.nc + 2*int(sin.NIC) + 1, start: sr.Arrive, end: sr.RecvNICEnd, op: g, msg: s})
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// flow reports whether the message of send s is drawn: both its ends
// are shown (ranks and window).
func (v *view) flow(s int32) bool {
	rec := v.res.Record
	sr := &rec[s]
	if sr.Match < 0 || sr.Arrive < 0 {
		return false
	}
	in := v.info(s)
	if v.slot[in.Rank] < 0 || in.Peer < 0 || int(in.Peer) >= len(v.slot) || v.slot[in.Peer] < 0 {
		return false
	}
	return v.overlaps(sr.Start, sr.CPUEnd-sr.Noise) && v.overlaps(sr.Arrive, sr.RecvCPUEnd-sr.RecvNoise)
}

// tag returns a message tag as a number, -1 for goal.AnyTag.
func tag(t uint32) int64 {
	if t == goal.AnyTag {
		return -1
	}
	return int64(t)
}

// trackName names track k of a rank.
func (v *view) trackName(k int) string {
	if k < v.nc {
		return "CPU " + strconv.Itoa(k)
	}
	n := (k - v.nc) / 2
	if (k-v.nc)%2 == 0 {
		return "NIC " + strconv.Itoa(n) + " send"
	}
	return "NIC " + strconv.Itoa(n) + " recv"
}
