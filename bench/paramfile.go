package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/sim"
)

// MaxMessageBytes is the max_bytes of the last range of a parameter file:
// the largest message gopsim simulates (sim.MaxMessage).
const MaxMessageBytes = 1 << 41

// baseValue is the type of the parameter file's base keys L_ns, o_ns,
// g_ns, G_ns_per_byte and O_ns_per_byte: that of sim.Params' fields, so
// that the file is what `gopsim sim --params` reads. sim takes fractions
// of a ns (and of a ns per byte) there.
type baseValue = float64

// toBase converts a fitted value to a base key, to the precision of the
// ranges (round keeps the file readable; sim rounds to whole ps itself).
func toBase(v float64) baseValue { return round(v, 6) }

// ParamFile is the parameter file that calibration writes. Its first keys
// are those sim.ReadParams reads (from the smallest-size range, through
// toBase); Ranges holds the fitted values of every size range, which cover
// every message size; Warnings says what makes no physical sense; Fit and
// Source say how the numbers came about.
type ParamFile struct {
	L               baseValue `json:"L_ns"`
	Overhead        baseValue `json:"o_ns"`
	Gap             baseValue `json:"g_ns"`
	GapPerByte      baseValue `json:"G_ns_per_byte"`
	OverheadPerByte baseValue `json:"O_ns_per_byte"`
	// EagerLimit is S: the upper end of the range below the first change
	// that shows a jump (eager to rendezvous). Absent when there is none.
	EagerLimit *int64  `json:"S_bytes,omitempty"`
	Ranges     []Range `json:"ranges"`
	// Library are the MPI library's one-time costs (the mpi backend's
	// MeasureWarmup), which the converter of traces charges.
	Library  *sim.LibraryCosts `json:"library,omitempty"`
	Warnings []string          `json:"warnings"`
	Fit      FitReport         `json:"fit"`
	Source   Source            `json:"source"`
}

// Range holds the LogGOPS parameters of messages of MinBytes..MaxBytes
// bytes (inclusive). The ranges of a file are contiguous, the first starts
// at 0 and the last ends at MaxMessageBytes.
type Range struct {
	MinBytes        int64   `json:"min_bytes"`
	MaxBytes        int64   `json:"max_bytes"`
	L               float64 `json:"L_ns"`
	Overhead        float64 `json:"o_ns"`
	Gap             float64 `json:"g_ns"`
	GapPerByte      float64 `json:"G_ns_per_byte"`
	OverheadPerByte float64 `json:"O_ns_per_byte"`
}

// PRTT is the LogGP model's round trip of n messages of s bytes, d ns
// apart, one reply (Hoefler, Lichei, Rehm 2007), with b = s-1:
//
//	PRTT(1,0,s) = 2(L + 2o + b max(G, O))
//	PRTT(n,d,s) = PRTT(1,0,s) + (n-1) max(o + bO + d, g + bG)
//
// (max(G, O) is gopsim's receive cost; with O <= G it is the paper's G).
func (r Range) PRTT(n int, dNs float64, s int64) float64 {
	b := float64(max(s-1, 0))
	p1 := 2 * (r.L + 2*r.Overhead + b*max(r.GapPerByte, r.OverheadPerByte))
	if n <= 1 {
		return p1
	}
	return p1 + float64(n-1)*max(r.Overhead+b*r.OverheadPerByte+dNs, r.Gap+b*r.GapPerByte)
}

// Source echoes what the parameters were computed from.
type Source struct {
	Table   string `json:"table,omitempty"` // the raw PRTT table
	Rows    int    `json:"rows"`
	Backend string `json:"backend,omitempty"`
	Peer    string `json:"peer,omitempty"`
	Reps    int    `json:"reps,omitempty"`
	Warmup  int    `json:"warmup,omitempty"`
	N       int    `json:"n,omitempty"`
	Passes  int    `json:"passes,omitempty"`
	// Launches is the number of fresh launches of the prober the passes
	// were spread over (bench.Config.Launches); 0 or 1: one.
	Launches int `json:"launches,omitempty"`
	// DelayNs is the d asked for; 0 means per size the median warm-up
	// PRTT(1,0,s).
	DelayNs *int64 `json:"delay_ns,omitempty"`
	// Sleep is true when the prober slept through the delays.
	Sleep bool `json:"sleep,omitempty"`
	// LocateReps is the number of PRTT(1,0,s) rounds per size with which
	// S was located to the byte after the sweep (LocateS); 0: it was not.
	LocateReps int `json:"locate_reps,omitempty"`
	// BufferOffset is where the mpi backend's message buffers started past
	// a page boundary, bytes (MPIBufferOffset); nil for other backends.
	BufferOffset *int64  `json:"buffer_offset_bytes,omitempty"`
	Sizes        []int64 `json:"sizes_bytes"`
}

// Write writes the parameter file as indented JSON.
func (p *ParamFile) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// WriteFile writes the parameter file to path through a temporary file
// renamed into place.
func (p *ParamFile) WriteFile(path string) error {
	if err := atomicfile.Write(path, p.Write); err != nil {
		return fmt.Errorf("writing parameter file %s: %w", path, err)
	}
	return nil
}

// SimParams returns the parameters p gives `gopsim sim --params`: the
// base keys, S (sim.DefaultParams' when p has none), the ranges and the
// library's one-time costs.
func (p *ParamFile) SimParams() sim.Params {
	sp := sim.DefaultParams()
	sp.L, sp.Overhead, sp.Gap, sp.GapPerByte, sp.OverheadPerByte = p.L, p.Overhead, p.Gap, p.GapPerByte, p.OverheadPerByte
	if p.EagerLimit != nil {
		sp.EagerLimit = *p.EagerLimit
	}
	sp.Ranges = nil
	for _, r := range p.Ranges {
		sp.Ranges = append(sp.Ranges, sim.Range{MinBytes: uint64(r.MinBytes), MaxBytes: uint64(r.MaxBytes),
			L: r.L, Overhead: r.Overhead, Gap: r.Gap, GapPerByte: r.GapPerByte, OverheadPerByte: r.OverheadPerByte})
	}
	sp.Library = p.Library
	return sp
}

// RangeFor returns the range holding messages of s bytes.
func (p *ParamFile) RangeFor(s int64) Range {
	for _, r := range p.Ranges {
		if s <= r.MaxBytes {
			return r
		}
	}
	return p.Ranges[len(p.Ranges)-1]
}

// round rounds x to the given number of decimals (JSON stays readable).
func round(x float64, decimals int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return x
	}
	p := math.Pow10(decimals)
	return math.Round(x*p)/p + 0 // + 0: no "-0" in the file
}

// finite returns a pointer to x rounded, or nil when x is NaN or infinite
// (JSON has no NaN).
func finite(x float64, decimals int) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	r := round(x, decimals)
	return &r
}
