package sweep

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// The result CSV: a header line, then one line per point, every field a
// number, so that no field is ever quoted:
//
//	point,compute_scale,extrapolate_factor,L_ns,o_ns,g_ns,G_ns_per_byte,O_ns_per_byte,S_bytes,noise_period_ns,noise_period_length_ns,noise_interval_ns,noise_length_ns,straggler_fraction,straggler_factor,noise_seed,max_time_ns,max_rank,events,noise_ns
//	0,1,1,250,500,1000,1,0,65535,0,0,0,0,0,1,0,122182,0,144,0
//
// A row depends only on its point, never on the machine or the order in
// which points finish.

// ResultColumns are the columns after the dimensions.
var ResultColumns = []string{"max_time_ns", "max_rank", "events", "noise_ns"}

// Header is the CSV's header: point, every dimension, the results.
func Header() []string {
	h := []string{"point"}
	for _, d := range Dims {
		h = append(h, d.Name)
	}
	return append(h, ResultColumns...)
}

func headerLine() string { return strings.Join(Header(), ",") + "\n" }

// Row is one simulated point.
type Row struct {
	Point   Point
	MaxTime int64  // ns
	MaxRank int    // lowest rank finishing at MaxTime
	Events  uint64 // events the engine processed
	NoiseNs int64  // noise absorbed, summed over ranks
}

// line formats r as a CSV line with its newline.
func (r *Row) line() []byte {
	b := strconv.AppendInt(nil, int64(r.Point.ID), 10)
	for _, d := range Dims {
		b = append(b, ',')
		b = append(b, d.Format(d.get(&r.Point))...)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, r.MaxTime, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.MaxRank), 10)
	b = append(b, ',')
	b = strconv.AppendUint(b, r.Events, 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.NoiseNs, 10)
	return append(b, '\n')
}

// ErrMismatch is wrapped by errors about a row that does not belong to
// the spec: a bad point id, or parameters other than the spec's.
var ErrMismatch = errors.New("sweep: row does not match the spec")

// record is one row of a result file as read: its point id, its line
// (with the newline) and where it is.
type record struct {
	id   int
	line []byte
	file string
	num  int // line number, 1-based
}

func (r record) where() string { return fmt.Sprintf("%s:%d", r.file, r.num) }

// resultFile is a result CSV as read.
type resultFile struct {
	rows []record
	size int64 // bytes up to the end of the last complete line
	torn []byte
}

// readResults reads a result CSV written for spec: the header must be
// this version's and every row must be a point of spec with the spec's
// parameters. A final line without its newline (a write cut short) is not
// a row: it is returned in torn. A missing or empty file has no rows.
func readResults(path string, spec *Spec) (*resultFile, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &resultFile{}, nil
	}
	if err != nil {
		return nil, err
	}
	return parseResults(data, path, spec)
}

func parseResults(data []byte, path string, spec *Spec) (*resultFile, error) {
	rf := &resultFile{}
	if i := bytes.LastIndexByte(data, '\n'); i+1 < len(data) {
		rf.torn = data[i+1:]
		data = data[:i+1]
	}
	rf.size = int64(len(data))
	if len(data) == 0 {
		return rf, nil
	}
	want := headerLine()
	nl := bytes.IndexByte(data, '\n')
	if string(data[:nl+1]) != want {
		return nil, fmt.Errorf("%s:1: %w: the header is not\n\t%s", path, ErrMismatch, strings.TrimSuffix(want, "\n"))
	}
	ncol := len(Header())
	line := 1
	for rest := data[nl+1:]; len(rest) > 0; {
		line++
		nl := bytes.IndexByte(rest, '\n')
		text := rest[:nl+1]
		rest = rest[nl+1:]
		fields := strings.Split(string(text[:nl]), ",")
		if len(fields) != ncol {
			return nil, fmt.Errorf("%s:%d: %w: %d fields, the header has %d", path, line, ErrMismatch, len(fields), ncol)
		}
		id, err := strconv.Atoi(fields[0])
		if err != nil || id < 0 || id >= spec.NumPoints() || strconv.Itoa(id) != fields[0] {
			return nil, fmt.Errorf("%s:%d: %w: point %q is not one of the spec's %d points", path, line, ErrMismatch, fields[0], spec.NumPoints())
		}
		p := spec.Point(id)
		for i, d := range Dims {
			if w := d.Format(d.get(&p)); fields[1+i] != w {
				return nil, fmt.Errorf("%s:%d: %w: point %d has %s=%s, the spec gives it %s=%s", path, line, ErrMismatch, id, d.Name, fields[1+i], d.Name, w)
			}
		}
		for i, c := range ResultColumns {
			f := fields[1+len(Dims)+i]
			if v, err := strconv.ParseUint(f, 10, 64); err != nil || strconv.FormatUint(v, 10) != f {
				return nil, fmt.Errorf("%s:%d: %w: %s %q is not a count", path, line, ErrMismatch, c, f)
			}
		}
		rf.rows = append(rf.rows, record{id: id, line: text, file: path, num: line})
	}
	return rf, nil
}

// bitset records which points are done.
type bitset []uint64

func newBitset(n int) bitset    { return make(bitset, (n+63)/64) }
func (b bitset) has(i int) bool { return b[i/64]&(1<<(i%64)) != 0 }
func (b bitset) set(i int)      { b[i/64] |= 1 << (i % 64) }
