package report

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// resultColumns are the columns of a sweep CSV that are results, not
// parameters (sweep.ResultColumns; a test keeps them equal).
var resultColumns = []string{"max_time_ns", "max_rank", "events", "noise_ns"}

// Sweep is a result CSV of `gopsim sweep`: a header naming the columns
// (with units: L_ns, G_ns_per_byte), then one row of numbers per point.
type Sweep struct {
	File    string
	Columns []string
	Rows    [][]float64
}

// ReadSweep reads a sweep result CSV.
func ReadSweep(path string) (*Sweep, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseSweep(data, path)
}

// ParseSweep decodes a sweep result CSV; name is the file's name in
// errors, which carry the line (and for CSV syntax the column).
func ParseSweep(data []byte, name string) (*Sweep, error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = true
	head, err := r.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: empty file: %w", name, ErrFormat)
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	s := &Sweep{File: name, Columns: slices.Clone(head)}
	seen := map[string]bool{}
	for _, c := range s.Columns {
		if seen[c] {
			return nil, fmt.Errorf("%s:1: column %q twice: %w", name, c, ErrFormat)
		}
		seen[c] = true
	}
	if !seen["max_time_ns"] {
		return nil, fmt.Errorf("%s:1: no max_time_ns column: %w (a gopsim sweep result CSV has one)", name, ErrFormat)
	}
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		row := make([]float64, len(rec))
		for i, f := range rec {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("%s:%d: column %s: %q is not a number: %w", name, line, s.Columns[i], f, ErrFormat)
			}
			row[i] = v
		}
		s.Rows = append(s.Rows, row)
	}
	return s, nil
}

func csvError(name string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d:%d: %v: %w", name, pe.Line, pe.Column, pe.Err, ErrFormat)
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Column returns the index of column name, or -1.
func (s *Sweep) Column(name string) int { return slices.Index(s.Columns, name) }

// Swept returns the parameter columns that take more than one value, in
// column order.
func (s *Sweep) Swept() []string {
	var out []string
	for i, c := range s.Columns {
		if c == "point" || slices.Contains(resultColumns, c) {
			continue
		}
		first := math.NaN()
		for _, row := range s.Rows {
			if math.IsNaN(first) {
				first = row[i]
			} else if row[i] != first {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// logScale reports whether values are best shown on a logarithmic axis:
// positive and geometric (a constant ratio between neighbours, over a
// range of at least 16), or spanning three decades.
func logScale(values []float64) bool {
	v := slices.Clone(values)
	slices.Sort(v)
	v = slices.Compact(v)
	if len(v) < 2 || v[0] <= 0 {
		return false
	}
	span := v[len(v)-1] / v[0]
	if span >= 1000 {
		return true
	}
	if len(v) < 3 || span < 16 {
		return false
	}
	r := v[1] / v[0]
	for i := 2; i < len(v); i++ {
		if q := v[i] / v[i-1]; math.Abs(q-r) > 0.1*r {
			return false
		}
	}
	return true
}
