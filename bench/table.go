package bench

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/internal/atomicfile"
)

// The raw PRTT table is CSV with the header TableHeader and one row per
// timed repetition:
//
//	n,d_ns,s_bytes,prtt_ns,round
//	1,0,1024,31250,prtt
//	8,0,1024,74410,prtt
//	8,31000,1024,296800,prtt
//	1,0,1024,2950,exchange
//	8,0,1024,21020,exchange
//
// n is the number of messages of the round (1..MaxRoundMessages), d_ns the
// delay between them in ns, s_bytes the message size (1..MaxSizeBytes) and
// prtt_ns the measured round trip in ns (positive). round is "prtt" for a
// PRTT round and "exchange" for a round of n exchanges (Round.Exchange:
// both ends send s_bytes to each other at once, n times; d_ns 0), whose
// prtt_ns is the time of all n. The round column may be left out (the
// header TableHeaderPRTT, as gopsim wrote before it measured exchanges):
// every row is then a PRTT round. n and s_bytes are integers; d_ns and
// prtt_ns may have decimals (30760.6), as tables written by other tools
// or averaged by hand do. Warm-up rounds are not in the table. Blank lines
// and lines starting with '#' are ignored.
const TableHeader = TableHeaderPRTT + ",round"

// TableHeaderPRTT is the header of a table without the round column,
// whose rows are all PRTT rounds.
const TableHeaderPRTT = "n,d_ns,s_bytes,prtt_ns"

// roundWords are the values of the round column, in the order of their
// codes (0: a PRTT round).
var roundWords = []string{"prtt", "exchange"}

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
	// Exchange marks a round of N exchanges (Round.Exchange); PRTTNs is
	// then the time of all N.
	Exchange bool
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
	cols := []numColumn{{name: "n", min: 1, max: MaxRoundMessages, integer: true}, {name: "d_ns", max: maxDelayNs},
		{name: "s_bytes", min: 1, max: MaxSizeBytes, integer: true}, {name: "prtt_ns", min: 1e-3, max: maxPRTTNs},
		{name: "round", words: roundWords}}
	err := readNumTable(r, name, cols, 4, func(v []float64) (int, string) {
		ex := v[4] == 1
		switch {
		case ex && v[1] != 0:
			return 1, fmt.Sprintf("d_ns=%g in an exchange round: exchanges have no delay", v[1])
		case v[0] == 1 && v[1] != 0:
			return 1, fmt.Sprintf("d_ns=%g with n=1: a single message has no delay", v[1])
		}
		t = append(t, Sample{N: int(v[0]), DelayNs: v[1], SizeBytes: int64(v[2]), PRTTNs: v[3], Exchange: ex})
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
// values must be integers; or, with words, a column of one of those words,
// whose value is the word's index.
type numColumn struct {
	name     string
	min, max float64
	integer  bool
	words    []string
}

// readIntTable is readNumTable for a table of four integer columns, whose
// header is their names.
func readIntTable(r io.Reader, name string, cols [4]intColumn, add func([4]int64) (int, string)) error {
	nc := make([]numColumn, len(cols))
	for i, c := range cols {
		nc[i] = numColumn{name: c.name, min: float64(c.min), max: float64(c.max), integer: true}
	}
	return readNumTable(r, name, nc, len(nc), func(v []float64) (int, string) {
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
	if c.words != nil {
		if i := slices.Index(c.words, f); i >= 0 {
			return float64(i), ""
		}
		return 0, fmt.Sprintf("%s: %q, want %s", c.name, field, strings.Join(c.words, " or "))
	}
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

// columnNames is the header of cols: their names, comma-separated.
func columnNames(cols []numColumn) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	return strings.Join(names, ",")
}

// readNumTable reads a CSV table whose first line is the header of cols
// or of its first required columns or more (columnNames), and whose rows
// have the header's columns within cols' bounds, '#' starting comments; a
// leading byte order mark is skipped. add takes each row, a column left
// out of the header as 0; it returns the column (0-based) and message of
// a row it refuses, or "". Errors are *TableError with the line and
// column.
func readNumTable(r io.Reader, name string, cols []numColumn, required int, add func([]float64) (int, string)) error {
	br := bufio.NewReader(r)
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		br.Discard(3) // a byte order mark, as spreadsheets write
	}
	cr := csv.NewReader(br)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	seen := false
	header, ncols := "", 0
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
			got := strings.Join(rec, ",")
			k := len(rec)
			if k < required || k > len(cols) || got != columnNames(cols[:k]) {
				want := fmt.Sprintf("%q", columnNames(cols))
				if required < len(cols) {
					want += fmt.Sprintf(" (or %q)", columnNames(cols[:required]))
				}
				return &TableError{File: name, Line: line, Col: 1, Msg: fmt.Sprintf("header %q, want %s", got, want)}
			}
			header, ncols = got, k
			seen = true
			continue
		}
		if len(rec) != ncols {
			_, col := cr.FieldPos(len(rec) - 1)
			return &TableError{File: name, Line: line, Col: col, Msg: fmt.Sprintf("%d fields, want %d (%s)", len(rec), ncols, header)}
		}
		v := make([]float64, len(cols))
		for i, c := range cols[:ncols] {
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
		return &TableError{File: name, Line: 1, Col: 1, Msg: fmt.Sprintf("empty table, want the header %q", columnNames(cols))}
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

// WriteCSV writes t in the form ReadTable reads: with the round column
// when t has exchange rounds, with the header TableHeaderPRTT otherwise.
func (t Table) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	ex := slices.ContainsFunc(t, func(s Sample) bool { return s.Exchange })
	if ex {
		bw.WriteString(TableHeader + "\n")
	} else {
		bw.WriteString(TableHeaderPRTT + "\n")
	}
	var buf []byte
	for _, s := range t {
		buf = strconv.AppendInt(buf[:0], int64(s.N), 10)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, s.DelayNs, 'f', -1, 64)
		buf = append(buf, ',')
		buf = strconv.AppendInt(buf, s.SizeBytes, 10)
		buf = append(buf, ',')
		buf = strconv.AppendFloat(buf, s.PRTTNs, 'f', -1, 64)
		if ex {
			buf = append(buf, ',')
			buf = append(buf, roundWords[b2i(s.Exchange)]...)
		}
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
