package sweep

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/sim"
)

// Point is one simulation of a sweep: the parameters it runs with and the
// transformations applied to the schedule first. ID numbers the points of
// a spec from 0 (Spec.Point).
//
// Every field but ID is a dimension (Dims); a new dimension is a field
// here, an entry in Dims and its use in the worker (schedule
// transformations go through schedKey, so that points sharing one share
// the transformed schedule).
type Point struct {
	ID     int
	Params sim.Params
	// ComputeScale multiplies every calc op's duration, rounded to the
	// nearest ns; 1 leaves the schedule as it is.
	ComputeScale float64
	// Extrapolate is K: the schedule's P ranks become K·P, copy j of rank
	// r being rank r + P·j (package extrapolation; the spec's
	// extrapolate_grid grows a process grid); 1 leaves it as it is.
	Extrapolate int
	Noise       NoisePoint
}

// NoisePoint holds a point's noise dimensions (package noise); the spec's
// [noise] table adds what is not a number: a trace file, co-scheduling,
// the distribution of random detours. All zero (and a straggler factor
// of 1) is no noise.
type NoisePoint struct {
	Seed                  int64   // noise_seed
	PeriodNs, PeriodLenNs int64   // noise_period_ns, noise_period_length_ns
	IntervalNs, LengthNs  float64 // noise_interval_ns, noise_length_ns: random detours' means
	StragglerFraction     float64 // straggler_fraction
	StragglerFactor       float64 // straggler_factor
}

// Dim is one dimension a sweep can vary: its name is both the spec key and
// the CSV column, with the unit in it.
type Dim struct {
	Name     string
	Unit     string  // for help texts: "ns", "ns/byte", "bytes", "factor"
	Int      bool    // values are integers
	Plain    bool    // values may have decimals, written without an exponent
	Min, Max float64 // inclusive bounds of a value
	Doc      string
	noise    noise.Settings // the noise setting a noise dimension gives
	get      func(*Point) float64
	set      func(*Point, float64)
}

// MaxComputeScale bounds compute_scale.
const MaxComputeScale = 1 << 20

// MaxExtrapolate bounds extrapolate_factor.
const MaxExtrapolate = 1 << 20

// Dims are the dimensions in their canonical order: the order of the CSV
// columns and of the grid expansion, whose first dimension varies slowest.
// Dimensions that transform the schedule come first, so that a sweep holds
// one transformed copy at a time.
var Dims = []*Dim{
	{Name: "compute_scale", Unit: "factor", Min: 0, Max: MaxComputeScale,
		Doc: "multiplies every calc op's duration (rounded to the nearest ns)",
		get: func(p *Point) float64 { return p.ComputeScale }, set: func(p *Point, v float64) { p.ComputeScale = v }},
	{Name: "extrapolate_factor", Unit: "factor", Int: true, Min: 1, Max: MaxExtrapolate,
		Doc: "K: the schedule's P ranks become K·P (Schedgen's copies; see gopsim extrapolate)",
		get: func(p *Point) float64 { return float64(p.Extrapolate) }, set: func(p *Point, v float64) { p.Extrapolate = int(v) }},
	{Name: "L_ns", Plain: true, Unit: "ns", Max: sim.MaxParam, Doc: "wire latency L",
		get: func(p *Point) float64 { return p.Params.L }, set: func(p *Point, v float64) { p.Params.Override("L", v) }},
	{Name: "o_ns", Plain: true, Unit: "ns", Max: sim.MaxParam, Doc: "CPU overhead o per message",
		get: func(p *Point) float64 { return p.Params.Overhead }, set: func(p *Point, v float64) { p.Params.Override("o", v) }},
	{Name: "g_ns", Plain: true, Unit: "ns", Max: sim.MaxParam, Doc: "NIC gap g between messages",
		get: func(p *Point) float64 { return p.Params.Gap }, set: func(p *Point, v float64) { p.Params.Override("g", v) }},
	{Name: "G_ns_per_byte", Plain: true, Unit: "ns/byte", Max: sim.MaxParam, Doc: "NIC gap G per byte",
		get: func(p *Point) float64 { return p.Params.GapPerByte }, set: func(p *Point, v float64) { p.Params.Override("G", v) }},
	{Name: "O_ns_per_byte", Plain: true, Unit: "ns/byte", Max: sim.MaxParam, Doc: "CPU overhead O per byte",
		get: func(p *Point) float64 { return p.Params.OverheadPerByte }, set: func(p *Point, v float64) { p.Params.Override("O", v) }},
	{Name: "S_bytes", Unit: "bytes", Int: true, Max: sim.MaxParam, Doc: "eager limit S",
		get: func(p *Point) float64 { return float64(p.Params.EagerLimit) }, set: func(p *Point, v float64) { p.Params.EagerLimit = int64(v) }},
	{Name: "noise_period_ns", Unit: "ns", Int: true, Max: sim.MaxParam, Doc: "periodic detours: one every so many ns (0: none)", noise: noise.SettingPeriod,
		get: func(p *Point) float64 { return float64(p.Noise.PeriodNs) }, set: func(p *Point, v float64) { p.Noise.PeriodNs = int64(v) }},
	{Name: "noise_period_length_ns", Unit: "ns", Int: true, Max: sim.MaxParam, Doc: "periodic detours: each so long", noise: noise.SettingPeriodDur,
		get: func(p *Point) float64 { return float64(p.Noise.PeriodLenNs) }, set: func(p *Point, v float64) { p.Noise.PeriodLenNs = int64(v) }},
	{Name: "noise_interval_ns", Unit: "ns", Max: sim.MaxParam, Doc: "random detours: mean inter-arrival time (0: none; distribution from [noise] dist)", noise: noise.SettingMeanInterval,
		get: func(p *Point) float64 { return p.Noise.IntervalNs }, set: func(p *Point, v float64) { p.Noise.IntervalNs = v }},
	{Name: "noise_length_ns", Unit: "ns", Max: sim.MaxParam, Doc: "random detours: mean length", noise: noise.SettingMeanDur,
		get: func(p *Point) float64 { return p.Noise.LengthNs }, set: func(p *Point, v float64) { p.Noise.LengthNs = v }},
	{Name: "straggler_fraction", Unit: "fraction", Min: 0, Max: 1, Doc: "fraction of the ranks that straggle, chosen from noise_seed", noise: noise.SettingStragglerFraction,
		get: func(p *Point) float64 { return p.Noise.StragglerFraction }, set: func(p *Point, v float64) { p.Noise.StragglerFraction = v }},
	{Name: "straggler_factor", Unit: "factor", Min: 1, Max: MaxComputeScale, Doc: "stragglers' CPU work takes this many times longer", noise: noise.SettingFactor,
		get: func(p *Point) float64 { return p.Noise.StragglerFactor }, set: func(p *Point, v float64) { p.Noise.StragglerFactor = v }},
	{Name: "noise_seed", Unit: "seed", Int: true, Max: 1 << 53, Doc: "seed of noise offsets, random detours and straggler choice", noise: noise.SettingSeed,
		get: func(p *Point) float64 { return float64(p.Noise.Seed) }, set: func(p *Point, v float64) { p.Noise.Seed = int64(v) }},
}

func isNoiseDim(d *Dim) bool { return d.noise != 0 }

func noiseDimNames() string {
	var names []string
	for _, d := range Dims {
		if isNoiseDim(d) {
			names = append(names, d.Name)
		}
	}
	return strings.Join(names, ", ")
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

// parse reads a value of d written with a unit: a time for a dimension
// in ns ("1.5us"), a per-byte cost or a bandwidth for one in ns/byte
// ("12.5GB/s"), a size for one in bytes ("64KiB"). ok is false for a
// dimension without such units.
func (d *Dim) parse(s string) (v float64, ok bool, err error) {
	switch d.Unit {
	case "ns":
		v, err = sim.ParseDuration(s)
	case "ns/byte":
		v, err = sim.ParsePerByte(s)
	case "bytes":
		var n int64
		n, err = sim.ParseBytes(s)
		v = float64(n)
	default:
		return 0, false, nil
	}
	return v, true, err
}

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
// shortest decimal that reads back as the same float64 (with an exponent
// for large and small values, except for the LogGOPS parameters).
func (d *Dim) Format(v float64) string {
	if d.Int {
		return strconv.FormatInt(int64(v), 10)
	}
	if d.Plain {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
