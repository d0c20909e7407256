package sim

import (
	"fmt"
	"slices"
	"strconv"
)

// Params are the LogGOPS parameters: L, o and g in ns, G and O in ns
// per byte, S in bytes. Times may have fractions: the engine rounds each
// to a whole picosecond (docs/model.md, "Time unit"). The zero value is
// not LogGOPSim's default: use DefaultParams.
type Params struct {
	L float64 `json:"L_ns"` // wire latency
	// Overhead is o: CPU time per message, at the sender and the receiver.
	Overhead float64 `json:"o_ns"`
	// Gap is g: time between two messages on one NIC.
	Gap float64 `json:"g_ns"`
	// GapPerByte is G: NIC time per byte after the first.
	GapPerByte float64 `json:"G_ns_per_byte"`
	// OverheadPerByte is O: CPU time per byte after the first.
	OverheadPerByte float64 `json:"O_ns_per_byte"`
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

	// Library are the MPI library's one-time costs, which the converter
	// of traces charges; the engine does not use them (LibraryCosts).
	Library *LibraryCosts `json:"library,omitempty"`
}

// Range is the parameter set of one message-size range, in the units of
// Params and rounded as they are.
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

// MaxParam bounds every parameter (ns, ns per byte, bytes) and MaxMessage
// every message. Times themselves are bounded by MaxTime: a cost beyond
// it, such as (s-1)·G of a huge message at a huge G, is an error that
// names the op, never a wrapped or clamped time.
const (
	MaxParam   = 1 << 40
	MaxMessage = 1 << 41 // 2 TiB
)

// Validate reports a parameter that is negative, not a number, or above
// MaxParam.
func (p Params) Validate() error {
	for _, f := range []struct {
		name, unit, key string
		v               float64
	}{{"L", "ns", "L_ns", p.L}, {"o", "ns", "o_ns", p.Overhead}, {"g", "ns", "g_ns", p.Gap}, {"G", "ns/byte", "G_ns_per_byte", p.GapPerByte}, {"O", "ns/byte", "O_ns_per_byte", p.OverheadPerByte}} {
		if !(f.v >= 0 && f.v <= MaxParam) {
			hint := ""
			if f.v < 0 {
				hint = " (a calibration can measure such values on a noisy or virtual link; it lists them as warnings in its file)"
			}
			return &ParamError{Key: f.key, Err: fmt.Errorf("sim: parameter %s=%g %s outside 0..%d%s", f.name, f.v, f.unit, int64(MaxParam), hint)}
		}
	}
	if p.EagerLimit < 0 || p.EagerLimit > MaxParam {
		return &ParamError{Key: "S_bytes", Err: fmt.Errorf("sim: parameter S=%d bytes outside 0..%d", p.EagerLimit, int64(MaxParam))}
	}
	for i, r := range p.Ranges {
		key := fmt.Sprintf("ranges[%d]", i)
		if r.MinBytes > r.MaxBytes {
			return &ParamError{Key: key, Err: fmt.Errorf("sim: range %d: min_bytes %d above max_bytes %d", i, r.MinBytes, r.MaxBytes)}
		}
		if i > 0 && r.MinBytes <= p.Ranges[i-1].MaxBytes {
			return &ParamError{Key: key, Err: fmt.Errorf("sim: range %d (%d..%d bytes) overlaps or precedes range %d (%d..%d bytes); ranges must be sorted and disjoint",
				i, r.MinBytes, r.MaxBytes, i-1, p.Ranges[i-1].MinBytes, p.Ranges[i-1].MaxBytes)}
		}
		for _, f := range []struct {
			name, key string
			v         float64
		}{{"L", "L_ns", r.L}, {"o", "o_ns", r.Overhead}, {"g", "g_ns", r.Gap}, {"G", "G_ns_per_byte", r.GapPerByte}, {"O", "O_ns_per_byte", r.OverheadPerByte}} {
			if !(f.v >= 0 && f.v <= MaxParam) {
				return &ParamError{Key: key + "." + f.key, Err: fmt.Errorf("sim: range %d (%d..%d bytes): parameter %s=%g outside 0..%d (calibration reports such values as warnings in its file: they are measurement artefacts, not parameters a network can have)",
					i, r.MinBytes, r.MaxBytes, f.name, f.v, int64(MaxParam))}
			}
		}
	}
	if err := p.Library.Validate(); err != nil {
		return err
	}
	return p.validateModels()
}

// ParamError is an invalid parameter found by Params.Validate, with the
// key of a parameter file that gives it ("L_ns", "ranges[1]",
// "ranges[1].G_ns_per_byte"), so that ReadParams can say where it is.
type ParamError struct {
	Key string
	Err error
}

func (e *ParamError) Error() string { return e.Err.Error() }
func (e *ParamError) Unwrap() error { return e.Err }

// Override sets the parameter named name (L, o, g, G or O, in ns or ns
// per byte) to v for every message size: the base value and that of every
// range, since a size range holds all five (a calibrated file's ranges
// cover every size, so changing the base alone would change nothing). The
// ranges are copied first, so a Params that shares them with another is
// not changed. It is how a command-line flag or a sweep dimension applies
// a what-if value on top of a parameter file.
func (p *Params) Override(name string, v float64) error {
	base, inRange := p.field(name)
	if base == nil {
		return fmt.Errorf("sim: no parameter %q (want L, o, g, G or O)", name)
	}
	*base = v
	if len(p.Ranges) > 0 {
		p.Ranges = slices.Clone(p.Ranges)
		for i := range p.Ranges {
			*inRange(&p.Ranges[i]) = v
		}
	}
	return nil
}

// field returns the base field of parameter name and how to find it in a
// range, or nil.
func (p *Params) field(name string) (*float64, func(*Range) *float64) {
	switch name {
	case "L":
		return &p.L, func(r *Range) *float64 { return &r.L }
	case "o":
		return &p.Overhead, func(r *Range) *float64 { return &r.Overhead }
	case "g":
		return &p.Gap, func(r *Range) *float64 { return &r.Gap }
	case "G":
		return &p.GapPerByte, func(r *Range) *float64 { return &r.GapPerByte }
	case "O":
		return &p.OverheadPerByte, func(r *Range) *float64 { return &r.OverheadPerByte }
	}
	return nil, nil
}

// FormatRangeEnd is the last size of a range of messages as gopsim
// prints it: "max" for a range that reaches MaxMessage (the last range of
// a calibrated parameter file), else the number of bytes.
func FormatRangeEnd(maxBytes uint64) string {
	if maxBytes == MaxMessage {
		return "max"
	}
	return strconv.FormatUint(maxBytes, 10)
}

// String formats the parameters with their units, G also as the
// bandwidth it is (FormatBandwidth): "G=6 ns/byte (166.7 MB/s)"; a range
// that reaches MaxMessage ends at "max".
func (p Params) String() string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	s := fmt.Sprintf("L=%s ns, o=%s ns, g=%s ns, G=%s ns/byte (%s), O=%s ns/byte, S=%d bytes",
		f(p.L), f(p.Overhead), f(p.Gap), f(p.GapPerByte), FormatBandwidth(p.GapPerByte), f(p.OverheadPerByte), p.EagerLimit)
	for _, r := range p.Ranges {
		s += fmt.Sprintf("; %d..%s bytes: L=%g ns, o=%g ns, g=%g ns, G=%g ns/byte (%s), O=%g ns/byte",
			r.MinBytes, FormatRangeEnd(r.MaxBytes), r.L, r.Overhead, r.Gap, r.GapPerByte, FormatBandwidth(r.GapPerByte), r.OverheadPerByte)
	}
	if m := p.modelsString(); m != "" {
		s += "; " + m
	}
	return s
}
