package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/extrapolation"
	"github.com/gopsim/gopsim/noise"
	"github.com/gopsim/gopsim/sim"
)

// Limits that keep a mistyped range from asking for billions of points.
const (
	MaxAxisValues = 1 << 20 // values of one grid dimension
	MaxPoints     = 1 << 26 // points of a spec
)

// ErrSpec is wrapped by every error about a spec's content.
var ErrSpec = errors.New("sweep: bad spec")

// SpecError is a mistake in a spec file, at its line and column (0 when
// not known).
type SpecError struct {
	File      string
	Line, Col int
	Err       error
}

func (e *SpecError) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("%s:%d:%d: %v", e.File, e.Line, e.Col, e.Err)
	case e.Line > 0:
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *SpecError) Unwrap() []error { return []error{ErrSpec, e.Err} }

func specErr(file string, p pos, format string, args ...any) error {
	return &SpecError{File: file, Line: p.line, Col: p.col, Err: fmt.Errorf(format, args...)}
}

// Spec is a parsed sweep specification: a schedule, base parameters, and
// the points to simulate, a grid (the cartesian product of its axes)
// followed by a list.
type Spec struct {
	// File is the spec's path; the relative paths in it are relative to
	// its directory.
	File string
	// Input is the schedule (GOAL text or binary), as written in the spec.
	Input string
	// Output is the result CSV as written in the spec; "" means File with
	// the extension .csv.
	Output string
	// ParamsFile is the parameter file the base parameters came from, as
	// written, or "" when the spec gives them inline.
	ParamsFile string
	// Params are the base parameters: every point starts from them.
	Params  sim.Params
	Comment string
	// Axes are the grid's dimensions in Dims order; the last varies
	// fastest.
	Axes []Axis
	// List holds the listed points, after the grid's.
	List []Point

	// The [noise] table: a measured noise trace (as written; see
	// NoiseTracePath), co-scheduled noise, the distribution of random
	// detours ("exp" or "pareto", with shape NoiseAlpha) and base values
	// of the noise dimensions.
	NoiseTrace   string
	NoiseCosched bool
	NoiseDist    string
	NoiseAlpha   float64
	NoiseBase    NoisePoint

	// ExtrapolateGrid is the input's process grid (extrapolate_grid =
	// "4x4", slowest dimension first), grown along its first dimension
	// by extrapolate_factor; nil: copies keep their messages.
	ExtrapolateGrid []int

	gridN     int
	index     []map[float64]int // per axis, value to position (gridID)
	outputPos pos               // where output is given (zero: it is not)
}

// Axis is one dimension of the grid and its values, in order.
type Axis struct {
	Dim    *Dim
	Values []float64
	Line   int // where the spec gives it
}

// ReadSpec reads a spec file: JSON if its name ends in .json, TOML if in
// .toml.
func ReadSpec(path string) (*Spec, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSpec(data, path)
}

// ParseSpec parses a spec held in memory; name gives its format (by
// extension) and directory, and prefixes errors. A spec whose params name
// a file reads that file.
func ParseSpec(data []byte, name string) (*Spec, error) {
	var root *node
	var err error
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		root, err = parseJSON(data, name)
	case ".toml":
		root, err = parseTOML(data, name)
	default:
		return nil, &SpecError{File: name, Err: errors.New("a spec's name must end in .json or .toml")}
	}
	if err != nil {
		return nil, err
	}
	return build(root, name)
}

var topKeys = "input, output, params, noise, extrapolate_grid, grid, points, comment"

func build(root *node, name string) (*Spec, error) {
	fail := func(p pos, format string, args ...any) error { return specErr(name, p, format, args...) }
	if root.kind != kObject {
		return nil, fail(root.pos, "expected a table of %s, found %s", topKeys, root.kind)
	}
	s := &Spec{File: name, Params: sim.DefaultParams(), NoiseDist: "exp", NoiseAlpha: 2, NoiseBase: NoisePoint{StragglerFactor: 1}}
	var grid, points *node
	given := map[noise.Settings]pos{} // the noise settings the spec gives, where first
	giveNoise := func(d *Dim, p pos) {
		if _, ok := given[d.noise]; d.noise != 0 && !ok {
			given[d.noise] = p
		}
	}
	str := func(f field) (string, error) {
		switch {
		case f.val.kind != kString:
			return "", fail(f.val.pos, "%s: expected a file name, found %s", f.key, f.val.kind)
		case f.val.str == "":
			return "", fail(f.val.pos, "%s: empty file name", f.key)
		}
		return f.val.str, nil
	}
	for _, f := range root.fields {
		var err error
		switch f.key {
		case "input":
			s.Input, err = str(f)
		case "output":
			s.Output, err = str(f)
			s.outputPos = f.val.pos
		case "comment":
			if f.val.kind != kString {
				err = fail(f.val.pos, "comment: expected a string, found %s", f.val.kind)
			}
			s.Comment = f.val.str
		case "params":
			err = s.readParams(f, name)
		case "noise":
			err = s.readNoise(f, name, given)
		case "extrapolate_grid":
			if f.val.kind != kString {
				err = fail(f.val.pos, "extrapolate_grid: expected a grid such as \"4x4\", found %s", f.val.kind)
			} else if s.ExtrapolateGrid, err = extrapolation.ParseDims(f.val.str); err != nil {
				err = fail(f.val.pos, "extrapolate_grid: %v", err)
			}
		case "grid":
			grid = f.val
			if grid.kind != kObject {
				err = fail(f.val.pos, "grid: expected a table of dimensions (%s), found %s", dimNames(), f.val.kind)
			}
		case "points":
			points = f.val
			if points.kind != kArray {
				err = fail(f.val.pos, "points: expected a list of tables, found %s", f.val.kind)
			}
		default:
			err = fail(f.keyPos, "unknown key %q (keys: %s)", f.key, topKeys)
		}
		if err != nil {
			return nil, err
		}
	}
	if s.Input == "" {
		return nil, fail(root.pos, "no input: name the schedule with input = \"FILE\"")
	}
	if grid != nil {
		for _, f := range grid.fields {
			d := DimByName(f.key)
			if d == nil {
				return nil, fail(f.keyPos, "grid: unknown dimension %q (dimensions: %s)", f.key, dimNames())
			}
			vals, err := axisValues(d, f.val, name)
			if err != nil {
				return nil, err
			}
			giveNoise(d, f.keyPos)
			s.Axes = append(s.Axes, Axis{Dim: d, Values: vals, Line: f.keyPos.line})
		}
		sortAxes(s.Axes)
		s.gridN = 1
		for _, a := range s.Axes {
			if s.gridN > MaxPoints/len(a.Values) {
				return nil, fail(grid.pos, "grid: more than %d points", MaxPoints)
			}
			s.gridN *= len(a.Values)
		}
		if len(s.Axes) == 0 {
			s.gridN = 0
		}
	}
	if points != nil {
		seen := map[string]int{}
		for i, e := range points.elems {
			if e.kind != kObject {
				return nil, fail(e.pos, "points[%d]: expected a table of dimensions, found %s", i, e.kind)
			}
			p := s.Base()
			for _, f := range e.fields {
				d := DimByName(f.key)
				if d == nil {
					return nil, fail(f.keyPos, "points[%d]: unknown dimension %q (dimensions: %s)", i, f.key, dimNames())
				}
				if err := unitValues(d, f.val, name); err != nil {
					return nil, err
				}
				if f.val.kind != kNumber {
					return nil, fail(f.val.pos, "points[%d]: %s: expected a number, found %s", i, f.key, f.val.kind)
				}
				if err := d.check(f.val.num); err != nil {
					return nil, fail(f.val.pos, "points[%d]: %w", i, err)
				}
				d.set(&p, f.val.num)
				giveNoise(d, f.keyPos)
			}
			k := pointKey(&p)
			if j, ok := seen[k]; ok {
				return nil, fail(e.pos, "points[%d] is points[%d] again (line %d)", i, j, points.elems[j].pos.line)
			}
			seen[k] = i
			if id, ok := s.gridID(&p); ok {
				return nil, fail(e.pos, "points[%d] is grid point %d again", i, id)
			}
			if s.gridN+len(s.List) >= MaxPoints {
				return nil, fail(e.pos, "more than %d points", MaxPoints)
			}
			s.List = append(s.List, p)
		}
	}
	if s.NumPoints() == 0 {
		return nil, fail(root.pos, "no points: give a grid with at least one dimension, or points")
	}
	for i := range s.List {
		s.List[i].ID = s.gridN + i
	}
	if err := s.checkNoise(given); err != nil {
		return nil, err
	}
	return s, nil
}

// paramKeys are the keys of a sim parameter file (sim.ReadParams).
var paramKeys = []string{"L_ns", "o_ns", "g_ns", "G_ns_per_byte", "O_ns_per_byte", "S_bytes", "ranges", "fit", "warnings", "source", "comment"}

func (s *Spec) readParams(f field, name string) error {
	v := f.val
	switch v.kind {
	case kString:
		if v.str == "" {
			return specErr(name, v.pos, "params: expected a parameter file's name or a table of parameters")
		}
		s.ParamsFile = v.str
		if st, err := os.Stat(s.resolve(v.str)); err != nil {
			return specErr(name, v.pos, "params: %w", err)
		} else if !st.Mode().IsRegular() {
			return specErr(name, v.pos, "params: %s is not a regular file", s.resolve(v.str))
		}
		p, err := sim.ReadParamsFile(s.resolve(v.str), sim.DefaultParams())
		if err != nil {
			return specErr(name, v.pos, "params: %w", err)
		}
		s.Params = p
		return nil
	case kObject:
		for _, pf := range v.fields {
			known := false
			for _, k := range paramKeys {
				known = known || k == pf.key
			}
			if !known {
				return specErr(name, pf.keyPos, "params: unknown key %q (keys: %s)", pf.key, strings.Join(paramKeys[:7], ", "))
			}
			if d := DimByName(pf.key); d != nil {
				if err := unitValues(d, pf.val, name); err != nil {
					return err
				}
				if pf.val.kind != kNumber {
					return specErr(name, pf.val.pos, "params: %s: expected a number, found %s", pf.key, pf.val.kind)
				}
				if err := d.check(pf.val.num); err != nil {
					return specErr(name, pf.val.pos, "params: %w", err)
				}
			}
		}
		var b bytes.Buffer
		if err := v.json(&b); err != nil {
			return specErr(name, v.pos, "params: %w", err)
		}
		p, err := sim.ReadParams(&b, "params", sim.DefaultParams())
		if err != nil {
			return specErr(name, v.pos, "%w", err)
		}
		s.Params = p
		return nil
	}
	return specErr(name, v.pos, "params: expected a parameter file's name or a table of parameters, found %s", v.kind)
}

// axisValues reads the values of one grid dimension: a number, a list of
// numbers, {from, to, step} or {from, to, factor}.
func axisValues(d *Dim, v *node, name string) ([]float64, error) {
	fail := func(p pos, format string, args ...any) error {
		return specErr(name, p, "grid: %s: "+format, append([]any{d.Name}, args...)...)
	}
	if err := unitValues(d, v, name); err != nil {
		return nil, err
	}
	var vals []float64
	switch v.kind {
	case kNumber:
		vals = []float64{v.num}
	case kArray:
		if len(v.elems) == 0 {
			return nil, fail(v.pos, "empty list")
		}
		if len(v.elems) > MaxAxisValues {
			return nil, fail(v.pos, "more than %d values", MaxAxisValues)
		}
		seen := make(map[float64]int, len(v.elems))
		for i, e := range v.elems {
			if e.kind != kNumber {
				return nil, fail(e.pos, "value %d: expected a number, found %s", i+1, e.kind)
			}
			if err := d.check(e.num); err != nil {
				return nil, specErr(name, e.pos, "grid: %w", err)
			}
			if j, ok := seen[e.num]; ok {
				return nil, fail(e.pos, "value %d repeats value %d (%s)", i+1, j+1, d.Format(e.num))
			}
			seen[e.num] = i
			vals = append(vals, e.num)
		}
		return vals, nil
	case kObject:
		var from, to, step, factor *node
		for _, f := range v.fields {
			switch f.key {
			case "from":
				from = f.val
			case "to":
				to = f.val
			case "step":
				step = f.val
			case "factor":
				factor = f.val
			default:
				return nil, fail(f.keyPos, "unknown key %q in a range (keys: from, to, step or factor)", f.key)
			}
			if f.val.kind != kNumber {
				return nil, fail(f.val.pos, "%s: expected a number, found %s", f.key, f.val.kind)
			}
			if math.IsNaN(f.val.num) || math.IsInf(f.val.num, 0) {
				return nil, fail(f.val.pos, "%s: %v is not a number", f.key, f.val.num)
			}
		}
		switch {
		case from == nil || to == nil:
			return nil, fail(v.pos, "a range needs from and to")
		case (step == nil) == (factor == nil):
			return nil, fail(v.pos, "a range needs one of step (arithmetic) or factor (geometric)")
		}
		for _, e := range []*node{from, to} {
			if err := d.check(e.num); err != nil {
				return nil, specErr(name, e.pos, "grid: %w", err)
			}
		}
		var err error
		if step != nil {
			vals, err = arithmetic(d, from.num, to.num, step.num)
			if err != nil {
				return nil, fail(step.pos, "%w", err)
			}
		} else {
			vals, err = geometric(d, from.num, to.num, factor.num)
			if err != nil {
				return nil, fail(factor.pos, "%w", err)
			}
		}
	default:
		return nil, fail(v.pos, "expected a number, a list or {from, to, step|factor}, found %s", v.kind)
	}
	for _, x := range vals {
		if err := d.check(x); err != nil {
			return nil, specErr(name, v.pos, "grid: %w", err)
		}
	}
	return vals, nil
}

// unitValues turns the strings with units in a grid value of d ("1.5us",
// ["100Gb/s", "12.5GB/s"], {from = "1us", to = "4us", step = "0.5us"})
// into numbers in d's unit; a factor stays a number.
func unitValues(d *Dim, v *node, name string) error {
	conv := func(n *node) error {
		if n.kind != kString {
			return nil
		}
		x, ok, err := d.parse(n.str)
		if !ok {
			return nil // "expected a number" follows
		}
		if err != nil {
			return specErr(name, n.pos, "%s: %w", d.Name, err)
		}
		n.kind, n.num, n.isInt = kNumber, x, false
		return nil
	}
	switch v.kind {
	case kString:
		return conv(v)
	case kArray:
		for _, e := range v.elems {
			if err := conv(e); err != nil {
				return err
			}
		}
	case kObject:
		for _, f := range v.fields {
			if f.key != "factor" {
				if err := conv(f.val); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// tidy rounds a computed float value to 12 significant digits, so that
// from 0.1 by 0.1 gives 0.3, not 0.30000000000000004.
func tidy(x float64) float64 {
	y, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	return y
}

// arithmetic gives from, from+step, ... up to to (down to it with a
// negative step).
func arithmetic(d *Dim, from, to, step float64) ([]float64, error) {
	if step == 0 || (to-from)/step < 0 {
		return nil, fmt.Errorf("step %v does not lead from %v to %v", step, from, to)
	}
	if d.Int && step != math.Trunc(step) {
		return nil, fmt.Errorf("step %v is not an integer", step)
	}
	n := math.Floor((to-from)/step+1e-9) + 1
	if n > MaxAxisValues {
		return nil, fmt.Errorf("%v values, more than %d", n, MaxAxisValues)
	}
	vals := make([]float64, int(n))
	for i := range vals {
		vals[i] = from + float64(i)*step
		if !d.Int {
			vals[i] = tidy(vals[i])
		}
	}
	return vals, nil
}

// geometric gives from, from·factor, from·factor², ... up to to (down to
// it with a factor below 1); integer dimensions round each value to the
// nearest integer and drop the repeats that makes.
func geometric(d *Dim, from, to, factor float64) ([]float64, error) {
	if from <= 0 || to <= 0 {
		return nil, fmt.Errorf("a geometric range needs from and to above 0 (from %v, to %v)", from, to)
	}
	if factor <= 0 || factor == 1 || (factor > 1) != (to >= from) && from != to {
		return nil, fmt.Errorf("factor %v does not lead from %v to %v", factor, from, to)
	}
	n := math.Floor(math.Log(to/from)/math.Log(factor)+1e-9) + 1
	if from == to {
		n = 1
	}
	if !(n <= MaxAxisValues) {
		return nil, fmt.Errorf("%v values, more than %d", n, MaxAxisValues)
	}
	lo, hi := min(from, to), max(from, to)
	var vals []float64
	for i := 0; i < int(n); i++ {
		x := from * math.Pow(factor, float64(i))
		if d.Int {
			x = min(max(math.Round(x), lo), hi)
		} else {
			x = tidy(x)
		}
		if len(vals) > 0 && vals[len(vals)-1] == x {
			continue
		}
		vals = append(vals, x)
	}
	return vals, nil
}

func sortAxes(axes []Axis) {
	for i := 1; i < len(axes); i++ {
		for j := i; j > 0 && dimIndex(axes[j].Dim) < dimIndex(axes[j-1].Dim); j-- {
			axes[j], axes[j-1] = axes[j-1], axes[j]
		}
	}
}

// pointKey identifies a point by its coordinates.
func pointKey(p *Point) string {
	var b strings.Builder
	for _, d := range Dims {
		b.WriteString(d.Format(d.get(p)))
		b.WriteByte(',')
	}
	return b.String()
}

// gridID returns the grid point with p's coordinates, if there is one.
func (s *Spec) gridID(p *Point) (int, bool) {
	if s.gridN == 0 {
		return 0, false
	}
	if s.index == nil {
		for _, a := range s.Axes {
			m := make(map[float64]int, len(a.Values))
			for i, v := range a.Values {
				m[v] = i
			}
			s.index = append(s.index, m)
		}
	}
	base := s.Base()
	id, ax := 0, 0
	for _, d := range Dims {
		v := d.get(p)
		if ax == len(s.Axes) || s.Axes[ax].Dim != d {
			if v != d.get(&base) {
				return 0, false
			}
			continue
		}
		k, ok := s.index[ax][v]
		if !ok {
			return 0, false
		}
		id = id*len(s.Axes[ax].Values) + k
		ax++
	}
	return id, true
}

// readNoise reads the [noise] table, and notes in given where it gives each
// noise setting.
func (s *Spec) readNoise(f field, name string, given map[noise.Settings]pos) error {
	v := f.val
	if v.kind != kObject {
		return specErr(name, v.pos, "noise: expected a table (trace, cosched, dist, alpha and noise dimensions), found %s", v.kind)
	}
	p := Point{Noise: s.NoiseBase}
	for _, nf := range v.fields {
		x := nf.val
		switch nf.key {
		case "trace":
			if x.kind != kString || x.str == "" {
				return specErr(name, x.pos, "noise: trace: expected a noise trace file's name, found %s", x.kind)
			}
			if _, err := os.Stat(s.resolve(x.str)); err != nil {
				return specErr(name, x.pos, "noise: trace: %w", err)
			}
			s.NoiseTrace = x.str
			given[noise.SettingTrace] = nf.keyPos
		case "cosched":
			if x.kind != kBool {
				return specErr(name, x.pos, "noise: cosched: expected true or false, found %s", x.kind)
			}
			s.NoiseCosched = x.b
			if x.b {
				given[noise.SettingCosched] = nf.keyPos
			}
		case "dist":
			if x.kind != kString || (x.str != "exp" && x.str != "pareto") {
				return specErr(name, x.pos, "noise: dist: expected \"exp\" or \"pareto\"")
			}
			s.NoiseDist = x.str
			given[noise.SettingDist] = nf.keyPos
		case "alpha":
			if x.kind != kNumber || !(x.num > 1) {
				return specErr(name, x.pos, "noise: alpha: expected a Pareto shape above 1")
			}
			s.NoiseAlpha = x.num
			given[noise.SettingAlpha] = nf.keyPos
		default:
			d := DimByName(nf.key)
			if d == nil || !isNoiseDim(d) {
				return specErr(name, nf.keyPos, "noise: unknown key %q (keys: trace, cosched, dist, alpha, %s)", nf.key, noiseDimNames())
			}
			if err := unitValues(d, x, name); err != nil {
				return err
			}
			if x.kind != kNumber {
				return specErr(name, x.pos, "noise: %s: expected a number, found %s", nf.key, x.kind)
			}
			if err := d.check(x.num); err != nil {
				return specErr(name, x.pos, "noise: %w", err)
			}
			d.set(&p, x.num)
			given[d.noise] = nf.keyPos
		}
	}
	s.NoiseBase = p.Noise
	return nil
}

// checkNoise refuses a noise setting the spec gives (given: where) that no
// point of it draws on, with what the setting needs: the rule of gopsim
// sim's noise flags (noise.Unused). The grid's points are told apart, for
// noise, by its noise dimensions only: their combinations are enough.
func (s *Spec) checkNoise(given map[noise.Settings]pos) error {
	var want noise.Settings
	for k := range given {
		want |= k
	}
	if want == 0 {
		return nil
	}
	ns := noiseSpec{cosched: s.NoiseCosched, dist: s.NoiseDist, alpha: s.NoiseAlpha}
	if s.NoiseTrace != "" {
		ns.trace = &noise.Trace{} // read when the sweep runs; here only its presence counts
	}
	var used, present noise.Settings
	done := func(p *Point) bool {
		c := ns.settings(p)
		used |= c.Used()
		present |= c.Present()
		return want&^used == 0
	}
	if s.gridN > 0 {
		var axes []*Axis
		for i := range s.Axes {
			if isNoiseDim(s.Axes[i].Dim) {
				axes = append(axes, &s.Axes[i])
			}
		}
		p := s.Base()
		at := make([]int, len(axes))
		for {
			for i, a := range axes {
				a.Dim.set(&p, a.Values[at[i]])
			}
			if done(&p) {
				return nil
			}
			i := len(at) - 1
			for ; i >= 0; i-- {
				if at[i]++; at[i] < len(axes[i].Values) {
					break
				}
				at[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}
	for i := range s.List {
		if done(&s.List[i]) {
			return nil
		}
	}
	err := noise.Unused(want, used, present, specNoiseKey)
	var ne *noise.NeedError
	if !errors.As(err, &ne) {
		return err
	}
	return specErr(s.File, given[ne.Setting], "no effect at any point of the spec: %w", err)
}

// specNoiseKey spells a noise setting as a spec's key; the ranks of
// stragglers are not one (straggler_fraction chooses them).
func specNoiseKey(st noise.Settings) string {
	switch st {
	case noise.SettingTrace:
		return "trace"
	case noise.SettingCosched:
		return "cosched"
	case noise.SettingDist:
		return "dist"
	case noise.SettingAlpha:
		return "alpha"
	}
	for _, d := range Dims {
		if d.noise == st {
			return d.Name
		}
	}
	return ""
}

// ParamsPath is the parameter file's path (params = "FILE") resolved
// against the spec's directory, "" without one.
func (s *Spec) ParamsPath() string {
	if s.ParamsFile == "" {
		return ""
	}
	return s.resolve(s.ParamsFile)
}

// NoiseTracePath is the noise trace's path resolved against the spec's
// directory, "" without one.
func (s *Spec) NoiseTracePath() string {
	if s.NoiseTrace == "" {
		return ""
	}
	return s.resolve(s.NoiseTrace)
}

// NumPoints is the number of points: the grid's, then the list's.
func (s *Spec) NumPoints() int { return s.gridN + len(s.List) }

// GridPoints is the number of grid points (the first ids).
func (s *Spec) GridPoints() int { return s.gridN }

// Base is the point every point starts from: the base parameters and no
// transformation of the schedule.
func (s *Spec) Base() Point {
	return Point{Params: s.Params, ComputeScale: 1, Extrapolate: 1, Noise: s.NoiseBase}
}

// Point returns point id, 0 <= id < NumPoints. Grid points come first, in
// the order of nested loops over the axes with the last axis innermost;
// listed points follow in their order.
func (s *Spec) Point(id int) Point {
	if id < 0 || id >= s.NumPoints() {
		panic(fmt.Sprintf("sweep: point %d of a spec with %d points", id, s.NumPoints()))
	}
	if id >= s.gridN {
		return s.List[id-s.gridN]
	}
	p := s.Base()
	p.ID = id
	rem := id
	for i := len(s.Axes) - 1; i >= 0; i-- {
		a := &s.Axes[i]
		a.Dim.set(&p, a.Values[rem%len(a.Values)])
		rem /= len(a.Values)
	}
	return p
}

func (s *Spec) resolve(path string) string {
	if filepath.IsAbs(path) || s.File == "" {
		return path
	}
	return filepath.Join(filepath.Dir(s.File), path)
}

// InputPath is the schedule's path, resolved against the spec's directory.
func (s *Spec) InputPath() string { return s.resolve(s.Input) }

// OutputPath is the result CSV's path, resolved against the spec's
// directory: Output, or the spec's own name with the extension .csv.
func (s *Spec) OutputPath() string {
	if s.Output != "" {
		return s.resolve(s.Output)
	}
	return strings.TrimSuffix(s.File, filepath.Ext(s.File)) + ".csv"
}

// OutputError returns err, about the output the spec names (OutputPath or
// its shard's), as a *SpecError at the spec's output key (at the file
// alone when the output is the default name).
func (s *Spec) OutputError(err error) error {
	return &SpecError{File: s.File, Line: s.outputPos.line, Col: s.outputPos.col, Err: err}
}
