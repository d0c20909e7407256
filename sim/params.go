package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
)

// Params are the LogGOPS parameters, integers in ns, ns per byte and
// bytes. The zero value is not LogGOPSim's default: use DefaultParams.
type Params struct {
	L int64 `json:"L_ns"` // wire latency
	// Overhead is o: CPU time per message, at the sender and the receiver.
	Overhead int64 `json:"o_ns"`
	// Gap is g: time between two messages on one NIC.
	Gap int64 `json:"g_ns"`
	// GapPerByte is G: NIC time per byte after the first.
	GapPerByte int64 `json:"G_ns_per_byte"`
	// OverheadPerByte is O: CPU time per byte after the first.
	OverheadPerByte int64 `json:"O_ns_per_byte"`
	// EagerLimit is S: messages of at most S bytes are eager, larger ones
	// rendezvous.
	EagerLimit int64 `json:"S_bytes"`

	// Ranges, when not empty, give L, o, g, G and O per message size, as
	// calibration finds them on both sides of a protocol change. A message
	// of s bytes uses the range with MinBytes <= s <= MaxBytes, and the
	// fields above when no range holds s. Ranges are sorted and disjoint.
	Ranges []Range `json:"ranges,omitempty"`

	// The parameters of the other models of the family (Options.Model,
	// docs/models.md), each nil when not given: ModelParams fills in
	// the defaults derived from the fields above.
	AlphaBeta *AlphaBetaParams `json:"alphabeta,omitempty"`
	LogfP     *LogfPParams     `json:"logfp,omitempty"`
	PLogP     *PLogPParams     `json:"plogp,omitempty"`
	Log3P     *Log3PParams     `json:"log3p,omitempty"`
}

// Range is the parameter set of one message-size range. Its values may
// have fractions, as calibration measures them: L, o and g are rounded to
// the nearest ns, G and O kept to the picosecond per byte (modern networks
// move a byte in well under a ns), and b·G is rounded to the nearest ns.
type Range struct {
	MinBytes        uint64  `json:"min_bytes"`
	MaxBytes        uint64  `json:"max_bytes"`
	L               float64 `json:"L_ns"`
	Overhead        float64 `json:"o_ns"`
	Gap             float64 `json:"g_ns"`
	GapPerByte      float64 `json:"G_ns_per_byte"`
	OverheadPerByte float64 `json:"O_ns_per_byte"`
}

// DefaultParams are LogGOPSim's defaults: L=2500 o=1500 g=1000 G=6 O=0
// S=65535.
func DefaultParams() Params {
	return Params{L: 2500, Overhead: 1500, Gap: 1000, GapPerByte: 6, OverheadPerByte: 0, EagerLimit: 65535}
}

// MaxParam bounds every parameter so that cost arithmetic cannot overflow
// for messages up to MaxMessage bytes.
const (
	MaxParam   = 1 << 40
	MaxMessage = 1 << 41 // 2 TiB
)

// Validate reports a negative or absurdly large parameter.
func (p Params) Validate() error {
	for _, f := range []struct {
		name string
		v    int64
	}{{"L", p.L}, {"o", p.Overhead}, {"g", p.Gap}, {"G", p.GapPerByte}, {"O", p.OverheadPerByte}, {"S", p.EagerLimit}} {
		if f.v < 0 || f.v > MaxParam {
			hint := ""
			if f.v < 0 {
				hint = " (a calibration can measure such values on a noisy or virtual link; it lists them as warnings in its file)"
			}
			return fmt.Errorf("sim: parameter %s=%d outside 0..%d%s", f.name, f.v, int64(MaxParam), hint)
		}
	}
	for i, r := range p.Ranges {
		if r.MinBytes > r.MaxBytes {
			return fmt.Errorf("sim: range %d: min_bytes %d above max_bytes %d", i, r.MinBytes, r.MaxBytes)
		}
		if i > 0 && r.MinBytes <= p.Ranges[i-1].MaxBytes {
			return fmt.Errorf("sim: range %d (%d..%d bytes) overlaps or precedes range %d (%d..%d bytes); ranges must be sorted and disjoint",
				i, r.MinBytes, r.MaxBytes, i-1, p.Ranges[i-1].MinBytes, p.Ranges[i-1].MaxBytes)
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"L", r.L}, {"o", r.Overhead}, {"g", r.Gap}, {"G", r.GapPerByte}, {"O", r.OverheadPerByte}} {
			if !(f.v >= 0 && f.v <= MaxParam) {
				return fmt.Errorf("sim: range %d (%d..%d bytes): parameter %s=%g outside 0..%d (calibration reports such values as warnings in its file: they are measurement artefacts, not parameters a network can have)",
					i, r.MinBytes, r.MaxBytes, f.name, f.v, int64(MaxParam))
			}
		}
	}
	return p.validateModels()
}

// String formats the parameters with their units.
func (p Params) String() string {
	s := fmt.Sprintf("L=%d ns, o=%d ns, g=%d ns, G=%d ns/byte, O=%d ns/byte, S=%d bytes",
		p.L, p.Overhead, p.Gap, p.GapPerByte, p.OverheadPerByte, p.EagerLimit)
	for _, r := range p.Ranges {
		s += fmt.Sprintf("; %d..%d bytes: L=%g ns, o=%g ns, g=%g ns, G=%g ns/byte, O=%g ns/byte",
			r.MinBytes, r.MaxBytes, r.L, r.Overhead, r.Gap, r.GapPerByte, r.OverheadPerByte)
	}
	if m := p.modelsString(); m != "" {
		s += "; " + m
	}
	return s
}

// paramFile is the JSON form of a parameter file: every key optional,
// missing keys keep the value they had.
type paramFile struct {
	L               *int64   `json:"L_ns"`
	Overhead        *int64   `json:"o_ns"`
	Gap             *int64   `json:"g_ns"`
	GapPerByte      *int64   `json:"G_ns_per_byte"`
	OverheadPerByte *int64   `json:"O_ns_per_byte"`
	EagerLimit      *int64   `json:"S_bytes"`
	Ranges          *[]Range `json:"ranges"`
	// Model sections (docs/models.md); each replaces base's whole.
	AlphaBeta *AlphaBetaParams `json:"alphabeta"`
	LogfP     *LogfPParams     `json:"logfp"`
	PLogP     *PLogPParams     `json:"plogp"`
	Log3P     *Log3PParams     `json:"log3p"`
	// Informational keys that calibration writes; read and ignored.
	Fit      json.RawMessage `json:"fit"`
	Warnings json.RawMessage `json:"warnings"`
	Source   json.RawMessage `json:"source"`
	Comment  json.RawMessage `json:"comment"`
	ModelFit json.RawMessage `json:"model_fit"`
}

// ReadParams reads a JSON parameter file such as
//
//	{"L_ns": 2500, "o_ns": 1500, "g_ns": 1000, "G_ns_per_byte": 6, "O_ns_per_byte": 0, "S_bytes": 65535}
//
// on top of base: keys that are absent keep base's values; unknown keys
// are an error (a misspelt parameter must not be silently ignored), except
// the informational "fit", "warnings", "source", "comment" and
// "model_fit" that calibration writes. "ranges" gives size-dependent parameters:
//
//	"ranges": [{"min_bytes": 0, "max_bytes": 12288, "L_ns": 2500, "o_ns": 1500, "g_ns": 5140, "G_ns_per_byte": 1, "O_ns_per_byte": 0}, ...]
//
// and "alphabeta", "logfp", "plogp" and "log3p" the parameters of those
// models (docs/models.md), each a section with its own keys:
//
//	"alphabeta": {"alpha_ns": 5500, "beta_ns_per_byte": 6}
//	"logfp": {"f": 4, "o_burst_ns": 0, "o_recv_ns": 0}
//	"plogp": {"L_ns": 2500, "points": [{"s_bytes": 1, "os_ns": 1500, "or_ns": 1500, "g_ns": 1000}, ...]}
//	"log3p": {"points": [{"s_bytes": 16384, "stride_bytes": 1024, "pack_ns": 420000, "unpack_ns": 420000}, ...]}
func ReadParams(r io.Reader, name string, base Params) (Params, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f paramFile
	if err := dec.Decode(&f); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return base, fmt.Errorf("%s: byte %d: %w", name, se.Offset, err)
		}
		return base, fmt.Errorf("%s: %w (keys: L_ns, o_ns, g_ns, G_ns_per_byte, O_ns_per_byte, S_bytes, ranges, alphabeta, logfp, plogp, log3p; docs/models.md lists the keys of each section)", name, err)
	}
	p := base
	for _, kv := range []struct {
		src *int64
		dst *int64
	}{{f.L, &p.L}, {f.Overhead, &p.Overhead}, {f.Gap, &p.Gap}, {f.GapPerByte, &p.GapPerByte}, {f.OverheadPerByte, &p.OverheadPerByte}, {f.EagerLimit, &p.EagerLimit}} {
		if kv.src != nil {
			*kv.dst = *kv.src
		}
	}
	if f.Ranges != nil {
		p.Ranges = *f.Ranges
	}
	if f.AlphaBeta != nil {
		p.AlphaBeta = f.AlphaBeta
	}
	if f.LogfP != nil {
		p.LogfP = f.LogfP
	}
	if f.PLogP != nil {
		p.PLogP = f.PLogP
	}
	if f.Log3P != nil {
		p.Log3P = f.Log3P
	}
	if err := p.Validate(); err != nil {
		return base, fmt.Errorf("%s: %w", name, err)
	}
	return p, nil
}

// ReadParamsFile is ReadParams on a named file.
func ReadParamsFile(path string, base Params) (Params, error) {
	f, err := os.Open(path)
	if err != nil {
		return base, err
	}
	defer f.Close()
	return ReadParams(f, path, base)
}

// cost is the parameter set a message pays: L, o and g in ns, G and O in
// picoseconds per byte.
type cost struct {
	L, o, g int64
	Gps     int64
	Ops     int64
}

// perByte is b bytes at ps picoseconds per byte, rounded to the nearest ns
// (exact when ps is a whole number of ns); 128-bit intermediate, so no
// overflow for any valid size and parameter.
func perByte(b, ps int64) int64 {
	if ps == 0 || b == 0 {
		return 0
	}
	hi, lo := bits.Mul64(uint64(b), uint64(ps))
	lo, carry := bits.Add64(lo, 500, 0)
	hi += carry
	if hi >= 1000 { // beyond any simulated time
		return math.MaxInt64 / 4
	}
	q, _ := bits.Div64(hi, lo, 1000)
	return int64(q)
}

// G is the NIC time of b bytes beyond the first.
func (c *cost) G(b int64) int64 { return perByte(b, c.Gps) }

// O is the CPU time of b bytes beyond the first.
func (c *cost) O(b int64) int64 { return perByte(b, c.Ops) }

func roundNs(x float64) int64 { return int64(math.Round(x)) }

// costTable resolves a message size to its cost: costs[0] is the base set,
// costs[i+1] is Ranges[i].
type costTable struct {
	costs []cost
	min   []uint64
	max   []uint64
}

func newCostTable(p *Params) costTable {
	t := costTable{costs: []cost{{p.L, p.Overhead, p.Gap, p.GapPerByte * 1000, p.OverheadPerByte * 1000}}}
	for _, r := range p.Ranges {
		t.costs = append(t.costs, cost{roundNs(r.L), roundNs(r.Overhead), roundNs(r.Gap), roundNs(r.GapPerByte * 1000), roundNs(r.OverheadPerByte * 1000)})
		t.min = append(t.min, r.MinBytes)
		t.max = append(t.max, r.MaxBytes)
	}
	return t
}

// of returns the cost of a message of size bytes.
func (t *costTable) of(size uint64) *cost {
	if len(t.min) == 0 {
		return &t.costs[0]
	}
	lo, hi := 0, len(t.min) // first range with max >= size
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.max[m] < size {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.min) && t.min[lo] <= size {
		return &t.costs[lo+1]
	}
	return &t.costs[0]
}
