package bench

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/internal/atomicfile"
)

// The raw PRTT table is CSV with the header TableHeader and one row per
// timed repetition:
//
//	n,d_ns,s_bytes,prtt_ns
//	1,0,1024,31250
//	8,0,1024,74410
//	8,31000,1024,296800
//
// n is the number of messages of the round (1..MaxRoundMessages), d_ns the
// delay between them in ns, s_bytes the message size (1..MaxSizeBytes) and
// prtt_ns the measured round trip in ns (positive). n and s_bytes are
// integers; d_ns and prtt_ns may have decimals (30760.6), as tables
// written by other tools or averaged by hand do. Warm-up rounds are not
// in the table. Blank lines and lines starting with '#' are ignored.
const TableHeader = "n,d_ns,s_bytes,prtt_ns"

// Limits on what a table (and the TCP protocol) may hold.
const (
	MaxSizeBytes     = 1 << 30 // largest message size
	MaxRoundMessages = 1 << 16 // largest n
	maxDelayNs       = 1 << 40 // about 18 minutes
	maxPRTTNs        = 1 << 50
)

// ErrTable is wrapped by every error about the content of a PRTT table.
var ErrTable = errors.New("bench: bad PRTT table")

// Sample is one timed round: n messages of SizeBytes bytes, DelayNs apart,
// and one reply, which took PRTTNs.
type Sample struct {
	N         int
	DelayNs   float64
	SizeBytes int64
	PRTTNs    float64
}

// Table is a raw PRTT table, in measurement order.
type Table []Sample

// TableError is a problem at a position of a PRTT table (1-based line and
// column, as "FILE:LINE:COL: msg").
type TableError struct {
	File      string
	Line, Col int
	Msg       string
}

func (e *TableError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Unwrap makes every TableError an ErrTable.
func (e *TableError) Unwrap() error { return ErrTable }

// ReadTable reads a PRTT table in CSV form; name is used in errors.
func ReadTable(r io.Reader, name string) (Table, error) {
	var t Table
	cols := [4]numColumn{{"n", 1, MaxRoundMessages, true}, {"d_ns", 0, maxDelayNs, false}, {"s_bytes", 1, MaxSizeBytes, true}, {"prtt_ns", 1e-3, maxPRTTNs, false}}
	err := readNumTable(r, name, TableHeader, cols, func(v [4]float64) (int, string) {
		if v[0] == 1 && v[1] != 0 {
			return 1, fmt.Sprintf("d_ns=%g with n=1: a single message has no delay", v[1])
		}
		t = append(t, Sample{N: int(v[0]), DelayNs: v[1], SizeBytes: int64(v[2]), PRTTNs: v[3]})
		return 0, ""
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// intColumn is a column of a table of integers and its bounds.
type intColumn struct {
	name     string
	min, max int64
}

// numColumn is a column of a table of numbers, its bounds and whether its
// values must be integers.
type numColumn struct {
	name     string
	min, max float64
	integer  bool
}

// readIntTable is readNumTable for a table of four integer columns.
func readIntTable(r io.Reader, name, header string, cols [4]intColumn, add func([4]int64) (int, string)) error {
	var nc [4]numColumn
	for i, c := range cols {
		nc[i] = numColumn{c.name, float64(c.min), float64(c.max), true}
	}
	return readNumTable(r, name, header, nc, func(v [4]float64) (int, string) {
		var iv [4]int64
		for i, x := range v {
			iv[i] = int64(x)
		}
		return add(iv)
	})
}

// parseNumber reads a column's value: an integer for an integer column, a
// decimal number (digits, an optional fraction and exponent) otherwise.
func parseNumber(field string, c numColumn) (float64, string) {
	f := strings.TrimSpace(field)
	if c.integer {
		x, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0, fmt.Sprintf("%s: %q is not an integer", c.name, field)
		}
		if x < int64(c.min) || x > int64(c.max) {
			return 0, fmt.Sprintf("%s=%d outside %d..%d", c.name, x, int64(c.min), int64(c.max))
		}
		return float64(x), ""
	}
	x, err := strconv.ParseFloat(f, 64)
	if err != nil || f == "" || strings.Trim(f, "0123456789.eE+-") != "" || math.IsInf(x, 0) {
		return 0, fmt.Sprintf("%s: %q is not a number", c.name, field)
	}
	if x < c.min || x > c.max {
		return 0, fmt.Sprintf("%s=%s outside %g..%g", c.name, f, c.min, c.max)
	}
	return x, ""
}

// readNumTable reads a CSV table whose first line is header and whose rows
// are four numbers within cols' bounds, '#' starting comments; a leading
// byte order mark is skipped. add takes each row; it returns the column
// (0-based) and message of a row it refuses, or "". Errors are
// *TableError with the line and column.
func readNumTable(r io.Reader, name, header string, cols [4]numColumn, add func([4]float64) (int, string)) error {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3) // a byte order mark, as spreadsheets write
	}
	cr := csv.NewReader(br)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	seen := false
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return &TableError{File: name, Line: pe.Line, Col: pe.Column, Msg: pe.Err.Error()}
			}
			return fmt.Errorf("%s: %w", name, err)
		}
		line, _ := cr.FieldPos(0)
		if !seen {
			if got := strings.Join(rec, ","); got != header {
				return &TableError{File: name, Line: line, Col: 1, Msg: fmt.Sprintf("header %q, want %q", got, header)}
			}
			seen = true
			continue
		}
		if len(rec) != 4 {
			_, col := cr.FieldPos(len(rec) - 1)
			return &TableError{File: name, Line: line, Col: col, Msg: fmt.Sprintf("%d fields, want 4 (%s)", len(rec), header)}
		}
		var v [4]float64
		for i, c := range cols {
			x, msg := parseNumber(rec[i], c)
			if msg != "" {
				_, col := cr.FieldPos(i)
				return &TableError{File: name, Line: line, Col: col, Msg: msg}
			}
			v[i] = x
		}
		if at, msg := add(v); msg != "" {
			_, col := cr.FieldPos(at)
			return &TableError{File: name, Line: line, Col: col, Msg: msg}
		}
	}
	if !seen {
		return &TableError{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("empty table, want the header %q", header)}
	}
	return nil
}

// ReadTableFile is ReadTable on a named file.
func ReadTableFile(path string) (Table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadTable(f, path)
}

// WriteCSV writes t in the form ReadTable reads.
func (t Table) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(TableHeader + "\n")
	var buf []byte
	for _, s := range t {
		buf = strconv.AppendInt(buf[:0], int64(s.N), 10)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, s.DelayNs, 'f', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, s.SizeBytes, 10)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, s.PRTTNs, 'f', -1, 64)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	return bw.Flush()
}

// WriteTableFile writes t to path through a temporary file renamed into
// place, so that path never holds a partial table.
func WriteTableFile(path string, t Table) error {
	if err := atomicfile.Write(path, t.WriteCSV); err != nil {
		return fmt.Errorf("writing PRTT table %s: %w", path, err)
	}
	return nil
}
