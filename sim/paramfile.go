package sim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/internal/excerpt"
)

// paramFile is the JSON form of a parameter file: every key optional,
// missing keys keep the value they had. Keys are matched exactly
// (decodeStrict), by their json tags.
type paramFile struct {
	L               *float64 `json:"L_ns"`
	Overhead        *float64 `json:"o_ns"`
	Gap             *float64 `json:"g_ns"`
	GapPerByte      *float64 `json:"G_ns_per_byte"`
	OverheadPerByte *float64 `json:"O_ns_per_byte"`
	EagerLimit      *int64   `json:"S_bytes"`
	Ranges          *[]Range `json:"ranges"`
	// Model sections (docs/models.md); each replaces base's whole.
	AlphaBeta *AlphaBetaParams `json:"alphabeta"`
	LogfP     *LogfPParams     `json:"logfp"`
	PLogP     *PLogPParams     `json:"plogp"`
	Log3P     *Log3PParams     `json:"log3p"`
	// The MPI library's one-time costs, for the converter.
	Library *LibraryCosts `json:"library"`
	// Informational keys that calibration writes; any value, ignored.
	Fit      infoValue `json:"fit"`
	Warnings infoValue `json:"warnings"`
	Source   infoValue `json:"source"`
	Comment  infoValue `json:"comment"`
	ModelFit infoValue `json:"model_fit"`
}

// infoValue is a value the parameter file may hold and sim ignores.
type infoValue struct{}

// maxParamFile bounds the size of a parameter file.
const maxParamFile = 64 << 20

// ReadParams reads a JSON parameter file such as
//
//	{"L_ns": 2500, "o_ns": 1500, "g_ns": 1000, "G_ns_per_byte": 6, "O_ns_per_byte": 0, "S_bytes": 65535}
//
// on top of base: keys that are absent keep base's values. Values may
// have decimals ("G_ns_per_byte": 0.08), and a key may be given as a
// string with a unit, which is converted to the key's unit: a key ending
// in _ns takes a time ("1.5us"), one ending in _ns_per_byte a per-byte
// cost or a bandwidth ("12.5GB/s"), one ending in _bytes a size ("64KiB");
// ParseDuration, ParsePerByte and ParseBytes say which units. The file is
// read strictly: keys are matched exactly (case included), an unknown or
// repeated key is an error, as is anything after the object; errors give
// the line and column. The informational keys "fit", "warnings",
// "source", "comment" and "model_fit" that calibration writes may hold
// anything. "ranges" gives size-dependent parameters:
//
//	"ranges": [{"min_bytes": 0, "max_bytes": 12288, "L_ns": 2500, "o_ns": 1500, "g_ns": 5140, "G_ns_per_byte": 1, "O_ns_per_byte": 0}, ...]
//
// where every range gives all seven keys (a key left out is an error, not
// 0); and "alphabeta", "logfp", "plogp" and "log3p" the parameters of those
// models (docs/models.md), each a section with its own keys:
//
//	"alphabeta": {"alpha_ns": 5500, "beta_ns_per_byte": 6}
//	"logfp": {"f": 4, "o_burst_ns": 0, "o_recv_ns": 0}
//	"plogp": {"L_ns": 2500, "points": [{"s_bytes": 1, "os_ns": 1500, "or_ns": 1500, "g_ns": 1000}, ...]}
//	"log3p": {"points": [{"s_bytes": 16384, "stride_bytes": 1024, "pack_ns": 420000, "unpack_ns": 420000}, ...]}
//
// "library" holds the MPI library's one-time costs (LibraryCosts), which
// the converter of traces charges and the engine does not use.
func ReadParams(r io.Reader, name string, base Params) (Params, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxParamFile+1))
	if err != nil {
		return base, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > maxParamFile {
		return base, fmt.Errorf("%s: larger than %d MiB; a parameter file is a small JSON object", name, maxParamFile>>20)
	}
	var f paramFile
	d, err := decodeStrictAt(data, &f)
	if err != nil {
		return base, fmt.Errorf("%s:%w", name, err)
	}
	p := base
	for _, kv := range []struct {
		src *float64
		dst *float64
	}{{f.L, &p.L}, {f.Overhead, &p.Overhead}, {f.Gap, &p.Gap}, {f.GapPerByte, &p.GapPerByte}, {f.OverheadPerByte, &p.OverheadPerByte}} {
		if kv.src != nil {
			*kv.dst = *kv.src
		}
	}
	if f.EagerLimit != nil {
		p.EagerLimit = *f.EagerLimit
	}
	if f.Ranges != nil {
		p.Ranges = *f.Ranges
	}
	if f.AlphaBeta != nil {
		p.AlphaBeta = f.AlphaBeta
	}
	if f.LogfP != nil {
		p.LogfP = f.LogfP
	}
	if f.PLogP != nil {
		p.PLogP = f.PLogP
	}
	if f.Log3P != nil {
		p.Log3P = f.Log3P
	}
	if f.Library != nil {
		p.Library = f.Library
	}
	if err := p.Validate(); err != nil {
		if err2 := d.at(err); err2 != err {
			return base, fmt.Errorf("%s:%w", name, err2)
		}
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

// strictDecoder decodes JSON into a struct by its json tags, matching
// keys exactly and refusing repeated keys and trailing data, with errors
// that give the line and column.
type strictDecoder struct {
	data []byte
	dec  *json.Decoder
	pos  map[string]int64 // offset of each value by key ("L_ns", "ranges[1].G_ns_per_byte")
}

var infoType = reflect.TypeOf(infoValue{})

// decodeStrict decodes data into *v. Its errors start with
// "LINE:COL: ".
func decodeStrict(data []byte, v any) error {
	_, err := decodeStrictAt(data, v)
	return err
}

// decodeStrictAt is decodeStrict that also returns the decoder, which
// knows where each key's value is (at).
func decodeStrictAt(data []byte, v any) (*strictDecoder, error) {
	d := &strictDecoder{data: data, dec: json.NewDecoder(bytes.NewReader(data)), pos: map[string]int64{}}
	d.dec.UseNumber()
	if err := d.value(reflect.ValueOf(v).Elem(), ""); err != nil {
		return d, err
	}
	off := d.next()
	if _, err := d.dec.Token(); err != io.EOF {
		return d, d.errAt(off, "unexpected data after the JSON object")
	}
	return d, nil
}

// at prefixes err with the line and column of the value of the key it
// names (a ParamError), when the file gave that key: "3:14: ...".
func (d *strictDecoder) at(err error) error {
	var pe *ParamError
	if !errors.As(err, &pe) {
		return err
	}
	off, ok := d.pos[pe.Key]
	if !ok {
		return err
	}
	return d.errAt(off, "%w", err)
}

// next returns the offset of the next token.
func (d *strictDecoder) next() int64 {
	i := d.dec.InputOffset()
	for i < int64(len(d.data)) && strings.IndexByte(" \t\r\n,:", d.data[i]) >= 0 {
		i++
	}
	return i
}

// errAt is an error at byte offset off: " LINE:COL: message".
func (d *strictDecoder) errAt(off int64, format string, args ...any) error {
	off = min(max(off, 0), int64(len(d.data)))
	line := 1 + bytes.Count(d.data[:off], []byte{'\n'})
	col := off - int64(bytes.LastIndexByte(d.data[:off], '\n'))
	return fmt.Errorf("%d:%d: "+format, append([]any{line, col}, args...)...)
}

// token reads the next token; a syntax error becomes a positioned one.
func (d *strictDecoder) token() (json.Token, int64, error) {
	off := d.next()
	t, err := d.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, off, d.errAt(se.Offset, "%v", err)
		}
		if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, off, d.errAt(int64(len(d.data)), "unexpected end of the file")
		}
		return nil, off, d.errAt(off, "%v", err)
	}
	return t, off, nil
}

// value decodes the next value into v; key names it in errors ("" for
// the whole file).
func (d *strictDecoder) value(v reflect.Value, key string) error {
	t, off, err := d.token()
	if err != nil {
		return err
	}
	if key != "" {
		d.pos[key] = off
	}
	if v.Type() == infoType {
		return d.skip(t)
	}
	if t == nil && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Slice) {
		return nil // null: absent
	}
	switch v.Kind() {
	case reflect.Pointer:
		n := reflect.New(v.Type().Elem())
		if err := d.fill(n.Elem(), t, off, key); err != nil {
			return err
		}
		v.Set(n)
		return nil
	}
	return d.fill(v, t, off, key)
}

// fill decodes the value that starts with token t, at off, into v.
func (d *strictDecoder) fill(v reflect.Value, t json.Token, off int64, key string) error {
	switch v.Kind() {
	case reflect.Struct:
		return d.object(v, t, off, key)
	case reflect.Slice:
		if t != json.Delim('[') {
			return d.errAt(off, "%s: expected an array, found %s", keyName(key), describe(t))
		}
		for i := 0; d.dec.More(); i++ {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := d.value(e, fmt.Sprintf("%s[%d]", key, i)); err != nil {
				return err
			}
			v.Set(reflect.Append(v, e))
		}
		_, _, err := d.token() // ']'
		return err
	case reflect.String:
		x, ok := t.(string)
		if !ok {
			return d.errAt(off, "%s: expected a string, found %s", keyName(key), describe(t))
		}
		v.SetString(x)
		return nil
	case reflect.Float64:
		x, err := d.number(t, off, key)
		if err != nil {
			return err
		}
		v.SetFloat(x)
		return nil
	case reflect.Int64, reflect.Uint64:
		x, err := d.integer(t, off, key)
		if err != nil {
			return err
		}
		if v.Kind() == reflect.Int64 {
			v.SetInt(x)
		} else {
			v.SetUint(uint64(x))
		}
		return nil
	}
	return d.errAt(off, "%s: internal error: cannot decode into %s", keyName(key), v.Type())
}

// object decodes a JSON object into struct v, whose opening brace is t.
func (d *strictDecoder) object(v reflect.Value, t json.Token, off int64, key string) error {
	if t != json.Delim('{') {
		what := "an object"
		if key == "" {
			what = "a JSON object of parameters"
		}
		return d.errAt(off, "%s: expected %s, found %s", keyName(key), what, describe(t))
	}
	typ := v.Type()
	seen := make(map[string]bool)
	for d.dec.More() {
		kt, koff, err := d.token()
		if err != nil {
			return err
		}
		k, _ := kt.(string)
		full := k
		if key != "" {
			full = key + "." + k
		}
		if seen[k] {
			return d.errAt(koff, "key %q given twice", full)
		}
		seen[k] = true
		i := fieldOf(typ, k)
		if i < 0 {
			return d.errAt(koff, "unknown key %q (keys here: %s; names are case-sensitive)", full, strings.Join(keysOf(typ), ", "))
		}
		if err := d.value(v.Field(i), full); err != nil {
			return err
		}
	}
	if typ == rangeType && len(seen) < typ.NumField() {
		var missing []string
		for _, k := range keysOf(typ) {
			if !seen[k] {
				missing = append(missing, strconv.Quote(k))
			}
		}
		return d.errAt(d.next(), "%s: missing %s: a range gives every one of %s (0 is written, not left out)",
			keyName(key), strings.Join(missing, ", "), strings.Join(keysOf(typ), ", "))
	}
	_, _, err := d.token() // '}'
	return err
}

// rangeType is the type of a size range, whose keys are all required: a
// range that left G out would otherwise run with G = 0, an infinitely
// fast network, for its sizes.
var rangeType = reflect.TypeOf(Range{})

// fieldOf returns the index of the field of struct type typ whose json
// name is exactly k, or -1.
func fieldOf(typ reflect.Type, k string) int {
	for i := 0; i < typ.NumField(); i++ {
		if name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); name == k {
			return i
		}
	}
	return -1
}

func keysOf(typ reflect.Type) []string {
	var s []string
	for i := 0; i < typ.NumField(); i++ {
		if name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ","); name != "" && name != "-" {
			s = append(s, name)
		}
	}
	return s
}

// skip skips the value that starts with t.
func (d *strictDecoder) skip(t json.Token) error {
	depth := 0
	for {
		if dl, ok := t.(json.Delim); ok {
			if dl == '{' || dl == '[' {
				depth++
			} else {
				depth--
			}
		}
		if depth == 0 {
			return nil
		}
		var err error
		if t, _, err = d.token(); err != nil {
			return err
		}
	}
}

// number reads a time or per-byte cost: a JSON number in the key's unit,
// or a string with a unit (keys ending in _ns and _ns_per_byte).
func (d *strictDecoder) number(t json.Token, off int64, key string) (float64, error) {
	switch x := t.(type) {
	case json.Number:
		v, err := strconv.ParseFloat(string(x), 64)
		if err != nil || math.IsInf(v, 0) {
			return 0, d.errAt(off, "%s: %s is not a finite number", keyName(key), excerpt.Quote(string(x)))
		}
		return v, nil
	case string:
		var v float64
		var err error
		switch {
		case strings.HasSuffix(key, "_ns_per_byte"):
			v, err = ParsePerByte(x)
		case strings.HasSuffix(key, "_ns"):
			v, err = ParseDuration(x)
		default:
			return 0, d.errAt(off, "%s: expected a number, found the string %s", keyName(key), excerpt.Quote(x))
		}
		if err != nil {
			return 0, d.errAt(off, "%s: %w", keyName(key), err)
		}
		return v, nil
	}
	return 0, d.errAt(off, "%s: expected a number, or a string with a unit such as \"1.5us\", found %s", keyName(key), describe(t))
}

// integer reads a count or a size: a JSON integer, or for keys ending in
// _bytes a string with a unit ("64KiB").
func (d *strictDecoder) integer(t json.Token, off int64, key string) (int64, error) {
	switch x := t.(type) {
	case json.Number:
		if v, err := strconv.ParseInt(string(x), 10, 64); err == nil && v >= 0 {
			return v, nil
		}
		v, err := strconv.ParseFloat(string(x), 64)
		if err != nil || !(v >= 0 && v <= 1<<62) || v != math.Trunc(v) {
			return 0, d.errAt(off, "%s: %s is not a whole number in 0..%d", keyName(key), excerpt.Quote(string(x)), int64(1)<<62)
		}
		return int64(v), nil
	case string:
		if !strings.HasSuffix(key, "_bytes") {
			return 0, d.errAt(off, "%s: expected a whole number, found the string %s", keyName(key), excerpt.Quote(x))
		}
		v, err := ParseBytes(x)
		if err != nil {
			return 0, d.errAt(off, "%s: %w", keyName(key), err)
		}
		return v, nil
	}
	return 0, d.errAt(off, "%s: expected a whole number, found %s", keyName(key), describe(t))
}

func keyName(key string) string {
	if key == "" {
		return "the file"
	}
	return "key " + strconv.Quote(key)
}

// describe names a JSON token for an error.
func describe(t json.Token) string {
	switch x := t.(type) {
	case nil:
		return "null"
	case bool:
		return strconv.FormatBool(x)
	case json.Delim:
		if x == '{' {
			return "an object"
		}
		if x == '[' {
			return "an array"
		}
		return strconv.Quote(string(x))
	case json.Number:
		return "the number " + excerpt.Quote(string(x))
	case string:
		return "the string " + excerpt.Quote(x)
	}
	return fmt.Sprint(t)
}
