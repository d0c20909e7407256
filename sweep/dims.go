package sweep

import (
	"fmt"
	"math"
	"strconv"

	"github.com/gopsim/gopsim/sim"
)

// Point is one simulation of a sweep: the parameters it runs with and the
// transformations applied to the schedule first. ID numbers the points of
// a spec from 0 (Spec.Point).
//
// Every field but ID is a dimension (Dims); a new dimension, such as a
// noise setting once the engine takes noise or an extrapolation factor, is
// a field here, an entry in Dims and its use in the worker (schedule
// transformations go through schedKey, so that points sharing one share
// the transformed schedule).
type Point struct {
	ID     int
	Params sim.Params
	// ComputeScale multiplies every calc op's duration, rounded to the
	// nearest ns; 1 leaves the schedule as it is.
	ComputeScale float64
}

// Dim is one dimension a sweep can vary: its name is both the spec key and
// the CSV column, with the unit in it.
type Dim struct {
	Name     string
	Unit     string  // for help texts: "ns", "ns/byte", "bytes", "factor"
	Int      bool    // values are integers
	Min, Max float64 // inclusive bounds of a value
	Doc      string
	get      func(*Point) float64
	set      func(*Point, float64)
}

// MaxComputeScale bounds compute_scale.
const MaxComputeScale = 1 << 20

// Dims are the dimensions in their canonical order: the order of the CSV
// columns and of the grid expansion, whose first dimension varies slowest.
// Dimensions that transform the schedule come first, so that a sweep holds
// one transformed copy at a time.
var Dims = []*Dim{
	{Name: "compute_scale", Unit: "factor", Min: 0, Max: MaxComputeScale,
		Doc: "multiplies every calc op's duration (rounded to the nearest ns)",
		get: func(p *Point) float64 { return p.ComputeScale }, set: func(p *Point, v float64) { p.ComputeScale = v }},
	{Name: "L_ns", Unit: "ns", Int: true, Max: sim.MaxParam, Doc: "wire latency L",
		get: func(p *Point) float64 { return float64(p.Params.L) }, set: func(p *Point, v float64) { p.Params.L = int64(v) }},
	{Name: "o_ns", Unit: "ns", Int: true, Max: sim.MaxParam, Doc: "CPU overhead o per message",
		get: func(p *Point) float64 { return float64(p.Params.Overhead) }, set: func(p *Point, v float64) { p.Params.Overhead = int64(v) }},
	{Name: "g_ns", Unit: "ns", Int: true, Max: sim.MaxParam, Doc: "NIC gap g between messages",
		get: func(p *Point) float64 { return float64(p.Params.Gap) }, set: func(p *Point, v float64) { p.Params.Gap = int64(v) }},
	{Name: "G_ns_per_byte", Unit: "ns/byte", Int: true, Max: sim.MaxParam, Doc: "NIC gap G per byte",
		get: func(p *Point) float64 { return float64(p.Params.GapPerByte) }, set: func(p *Point, v float64) { p.Params.GapPerByte = int64(v) }},
	{Name: "O_ns_per_byte", Unit: "ns/byte", Int: true, Max: sim.MaxParam, Doc: "CPU overhead O per byte",
		get: func(p *Point) float64 { return float64(p.Params.OverheadPerByte) }, set: func(p *Point, v float64) { p.Params.OverheadPerByte = int64(v) }},
	{Name: "S_bytes", Unit: "bytes", Int: true, Max: sim.MaxParam, Doc: "eager limit S",
		get: func(p *Point) float64 { return float64(p.Params.EagerLimit) }, set: func(p *Point, v float64) { p.Params.EagerLimit = int64(v) }},
}

// DimByName returns the dimension called name, or nil.
func DimByName(name string) *Dim {
	for _, d := range Dims {
		if d.Name == name {
			return d
		}
	}
	return nil
}

func dimIndex(d *Dim) int {
	for i, e := range Dims {
		if e == d {
			return i
		}
	}
	panic("sweep: unknown dimension " + d.Name)
}

func dimNames() string {
	s := ""
	for i, d := range Dims {
		if i > 0 {
			s += ", "
		}
		s += d.Name
	}
	return s
}

// Get returns p's value of d.
func (d *Dim) Get(p *Point) float64 { return d.get(p) }

// check reports why v is not a value of d.
func (d *Dim) check(v float64) error {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return fmt.Errorf("%s: %v is not a number", d.Name, v)
	case d.Int && v != math.Trunc(v):
		return fmt.Errorf("%s: %v is not an integer", d.Name, v)
	case v < d.Min || v > d.Max:
		return fmt.Errorf("%s: %s outside %s..%s", d.Name, d.Format(v), d.Format(d.Min), d.Format(d.Max))
	}
	return nil
}

// Format writes a value of d as it appears in the CSV: an integer, or the
// shortest decimal that reads back as the same float64.
func (d *Dim) Format(v float64) string {
	if d.Int {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
