package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
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
			return fmt.Errorf("sim: parameter %s=%d outside 0..%d", f.name, f.v, int64(MaxParam))
		}
	}
	return nil
}

// String formats the parameters with their units.
func (p Params) String() string {
	return fmt.Sprintf("L=%d ns, o=%d ns, g=%d ns, G=%d ns/byte, O=%d ns/byte, S=%d bytes",
		p.L, p.Overhead, p.Gap, p.GapPerByte, p.OverheadPerByte, p.EagerLimit)
}

// paramFile is the JSON form of a parameter file: every key optional,
// missing keys keep the value they had.
type paramFile struct {
	L               *int64 `json:"L_ns"`
	Overhead        *int64 `json:"o_ns"`
	Gap             *int64 `json:"g_ns"`
	GapPerByte      *int64 `json:"G_ns_per_byte"`
	OverheadPerByte *int64 `json:"O_ns_per_byte"`
	EagerLimit      *int64 `json:"S_bytes"`
}

// ReadParams reads a JSON parameter file such as
//
//	{"L_ns": 2500, "o_ns": 1500, "g_ns": 1000, "G_ns_per_byte": 6, "O_ns_per_byte": 0, "S_bytes": 65535}
//
// on top of base: keys that are absent keep base's values; unknown keys
// are an error (a misspelt parameter must not be silently ignored).
func ReadParams(r io.Reader, name string, base Params) (Params, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var f paramFile
	if err := dec.Decode(&f); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return base, fmt.Errorf("%s: byte %d: %w", name, se.Offset, err)
		}
		return base, fmt.Errorf("%s: %w (keys: L_ns, o_ns, g_ns, G_ns_per_byte, O_ns_per_byte, S_bytes)", name, err)
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
