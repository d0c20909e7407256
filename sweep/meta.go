package sweep

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"slices"

	"github.com/gopsim/gopsim/extrapolation"
	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/internal/atomicfile"
	"github.com/gopsim/gopsim/sim"
)

// Meta is the sidecar OUT.csv.meta.json that echoes what produced a
// result CSV: the spec, the input (with its SHA-256), the base parameters
// with their size ranges, the grid and listed points, the shard.
type Meta struct {
	Tool        string      `json:"tool,omitempty"`
	Spec        string      `json:"spec"`
	Comment     string      `json:"comment,omitempty"`
	Input       string      `json:"input"`
	InputSHA256 string      `json:"input_sha256"`
	InputFormat string      `json:"input_format"`
	NumRanks    int         `json:"num_ranks"`
	NumOps      int         `json:"num_ops"`
	ParamsFile  string      `json:"params_file,omitempty"`
	Params      sim.Params  `json:"base_params"`
	Noise       *MetaNoise  `json:"noise,omitempty"`
	ExtrapGrid  string      `json:"extrapolate_grid,omitempty"`
	Grid        []MetaAxis  `json:"grid,omitempty"`
	Points      []MetaPoint `json:"points,omitempty"`
	NumPoints   int         `json:"num_points"`
	Shard       string      `json:"shard,omitempty"` // "I/N"
	ShardPoints int         `json:"shard_points"`
	Columns     []string    `json:"columns"`
	MergedFrom  []string    `json:"merged_from,omitempty"`
	Notes       []string    `json:"notes,omitempty"`
}

// MetaNoise echoes the spec's [noise] table in Meta.
type MetaNoise struct {
	Trace   string             `json:"trace,omitempty"`
	Cosched bool               `json:"cosched"`
	Dist    string             `json:"dist"`
	Alpha   float64            `json:"alpha,omitempty"`
	Base    map[string]float64 `json:"base,omitempty"`
}

func newMetaNoise(spec *Spec) *MetaNoise {
	base := Point{Noise: spec.NoiseBase}
	m := &MetaNoise{Trace: spec.NoiseTrace, Cosched: spec.NoiseCosched, Dist: spec.NoiseDist, Base: map[string]float64{}}
	if spec.NoiseDist == "pareto" {
		m.Alpha = spec.NoiseAlpha
	}
	for _, d := range Dims {
		if v := d.get(&base); isNoiseDim(d) && v != 0 && !(d.Name == "straggler_factor" && v == 1) {
			m.Base[d.Name] = v
		}
	}
	if m.Trace == "" && !m.Cosched && len(m.Base) == 0 && m.Dist == "exp" {
		return nil // no [noise] settings
	}
	return m
}

// MetaAxis is one grid dimension in Meta.
type MetaAxis struct {
	Dim    string    `json:"dim"`
	Values []float64 `json:"values"`
}

// MetaPoint is one listed point in Meta: its id and every dimension.
type MetaPoint struct {
	ID     int                `json:"point"`
	Values map[string]float64 `json:"values"`
}

// MetaPath is the sidecar's path for a result CSV.
func MetaPath(csv string) string { return csv + ".meta.json" }

// scheduleInfo is what Meta says about the input.
type scheduleInfo struct {
	path     string
	sha256   string
	format   goal.Format
	numRanks int
	numOps   int
}

// readSchedule reads the schedule at path and hashes its bytes, on
// another goroutine while it is parsed: a text schedule is parsed on all
// CPUs (goal.ReadTextAt), which needs to read it at offsets. An op beyond
// lim is an error (goal.ReadLimits): at its line in a text, by rank, op
// and label after path in a binary schedule.
func readSchedule(path string, lim goal.Limits) (*goal.Schedule, scheduleInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, scheduleInfo{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, scheduleInfo{}, err
	}
	if !fi.Mode().IsRegular() { // a pipe: one pass, hashed on the way
		h := sha256.New()
		tee := io.TeeReader(f, h)
		s, format, err := goal.ReadLimits(tee, path, lim)
		if err != nil {
			return nil, scheduleInfo{}, err
		}
		if _, err := io.Copy(io.Discard, tee); err != nil {
			return nil, scheduleInfo{}, err
		}
		return s, scheduleInfo{path, hex.EncodeToString(h.Sum(nil)), format, s.NumRanks, len(s.Ops)}, nil
	}
	size := fi.Size()
	h := sha256.New()
	hashed := make(chan error, 1)
	go func() {
		_, err := io.Copy(h, io.NewSectionReader(f, 0, size))
		hashed <- err
	}()
	s, format, err := goal.ReadAtLimits(f, size, path, lim)
	if herr := <-hashed; err == nil && herr != nil {
		err = fmt.Errorf("%s: %w", path, herr)
	}
	if err != nil {
		return nil, scheduleInfo{}, err
	}
	return s, scheduleInfo{path, hex.EncodeToString(h.Sum(nil)), format, s.NumRanks, len(s.Ops)}, nil
}

func newMeta(spec *Spec, in scheduleInfo, sh Shard, tool string) *Meta {
	m := &Meta{Tool: tool, Spec: spec.File, Comment: spec.Comment, Input: in.path, InputSHA256: in.sha256,
		InputFormat: in.format.String(), NumRanks: in.numRanks, NumOps: in.numOps, ParamsFile: spec.ParamsFile,
		Params: spec.Params, Noise: newMetaNoise(spec), ExtrapGrid: extrapolation.FormatDims(spec.ExtrapolateGrid), NumPoints: spec.NumPoints(), ShardPoints: sh.size(spec.NumPoints()), Columns: Header()}
	if sh.Count > 1 {
		m.Shard = sh.String()
	}
	for _, a := range spec.Axes {
		m.Grid = append(m.Grid, MetaAxis{a.Dim.Name, a.Values})
	}
	for _, p := range spec.List {
		mp := MetaPoint{ID: p.ID, Values: map[string]float64{}}
		for _, d := range Dims {
			mp.Values[d.Name] = d.get(&p)
		}
		m.Points = append(m.Points, mp)
	}
	if len(spec.Params.Ranges) > 0 {
		m.Notes = append(m.Notes, "the base parameters have size ranges: a swept L_ns, o_ns, g_ns, G_ns_per_byte or O_ns_per_byte replaces that parameter in every range too (sim.Params.Override)")
	}
	return m
}

func (m *Meta) write(path string) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := w.Write(append(data, '\n'))
		return err
	})
}

// readMeta reads a sidecar; a missing one is nil without error.
func readMeta(path string) (*Meta, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var m Meta
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// agrees reports how the results described by old cannot be continued
// under m: another input, other base parameters, another shard.
func (m *Meta) agrees(old *Meta, path string) error {
	switch {
	case old.InputSHA256 != m.InputSHA256:
		return fmt.Errorf("%s: %w: the results were made from input %s (sha256 %.12s), the spec's input %s has sha256 %.12s", path, ErrMismatch, old.Input, old.InputSHA256, m.Input, m.InputSHA256)
	case !paramsEqual(old.Params, m.Params):
		return fmt.Errorf("%s: %w: the results were made with base parameters %v, the spec gives %v", path, ErrMismatch, old.Params, m.Params)
	case old.ExtrapGrid != m.ExtrapGrid:
		return fmt.Errorf("%s: %w: the results were made with extrapolate_grid %q, the spec gives %q", path, ErrMismatch, old.ExtrapGrid, m.ExtrapGrid)
	case !reflect.DeepEqual(old.Noise, m.Noise):
		return fmt.Errorf("%s: %w: the results were made with other [noise] settings than the spec's", path, ErrMismatch)
	case old.Shard != m.Shard:
		return fmt.Errorf("%s: %w: the results are shard %q, this run is shard %q", path, ErrMismatch, old.Shard, m.Shard)
	}
	return nil
}

func paramsEqual(a, b sim.Params) bool {
	return a.L == b.L && a.Overhead == b.Overhead && a.Gap == b.Gap && a.GapPerByte == b.GapPerByte &&
		a.OverheadPerByte == b.OverheadPerByte && a.EagerLimit == b.EagerLimit && slices.Equal(a.Ranges, b.Ranges)
}
