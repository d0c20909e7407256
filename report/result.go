package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrFormat is wrapped by errors about a file that is not what its reader
// expects: not JSON, not an object, or not a gopsim sim result.
var ErrFormat = errors.New("report: not a gopsim result")

// Result is the JSON result of `gopsim sim --json`. Fields after Events
// are optional: a run without a noise model, a network, or the breakdown
// and critical-path outputs leaves them out, and the report omits their
// sections with a note.
type Result struct {
	Input    string `json:"input"`         // the schedule simulated
	Format   string `json:"format"`        // "text" or "binary"
	NumRanks int    `json:"num_ranks"`     // ranks of the schedule
	NumOps   int64  `json:"num_ops"`       // ops of the schedule
	CPUs     int    `json:"cpus_per_rank"` // CPUs per rank
	NICs     int    `json:"nics_per_rank"` // NICs per rank
	Model    string `json:"model"`         // e.g. "loggops"
	Params   Params `json:"params"`
	MaxTime  int64  `json:"max_time_ns"` // the latest finishing time, ns
	MaxRank  int    `json:"max_rank"`    // the lowest rank finishing at MaxTime
	// PerRank is every rank's finishing time in ns, NumRanks of them.
	PerRank []int64 `json:"per_rank_ns"`
	// Events are the events the engine processed (op starts, message
	// arrivals); QueueOps the events it took from its queues, retries of
	// ops that found a resource busy included (0 in results written
	// before gopsim reported it).
	Events   uint64 `json:"events"`
	QueueOps uint64 `json:"queue_ops,omitempty"`

	Noise        *Noise        `json:"noise,omitempty"`
	Network      *Network      `json:"network,omitempty"`
	Breakdown    *Breakdown    `json:"breakdown,omitempty"`
	CriticalPath *CriticalPath `json:"critical_path,omitempty"`

	WallNs *int64 `json:"wall_time_ns,omitempty"` // with --timing only
}

// Params are the LogGOPS parameters of the run, with the units in the
// JSON keys; times may have fractions of a ns (sim.Params).
type Params struct {
	L               float64 `json:"L_ns"`          // wire latency
	Overhead        float64 `json:"o_ns"`          // CPU overhead per message
	Gap             float64 `json:"g_ns"`          // NIC gap per message
	GapPerByte      float64 `json:"G_ns_per_byte"` // NIC gap per byte
	OverheadPerByte float64 `json:"O_ns_per_byte"` // CPU overhead per byte
	EagerLimit      int64   `json:"S_bytes"`       // eager limit S
	// Ranges, when present, give the parameters per message-size range.
	Ranges []Range `json:"ranges,omitempty"`
}

// Range is the parameter set of one message-size range (values may have
// fractions, as calibration measures them).
type Range struct {
	MinBytes        uint64  `json:"min_bytes"`
	MaxBytes        uint64  `json:"max_bytes"`
	L               float64 `json:"L_ns"`
	Overhead        float64 `json:"o_ns"`
	Gap             float64 `json:"g_ns"`
	GapPerByte      float64 `json:"G_ns_per_byte"`
	OverheadPerByte float64 `json:"O_ns_per_byte"`
}

// Noise is the noise model of the run and the noise every rank absorbed.
type Noise struct {
	// Config is the noise configuration as the simulator wrote it; its
	// keys are shown as they are.
	Config map[string]any `json:"config,omitempty"`
	// AbsorbedPerRank is the noise each rank absorbed, ns.
	AbsorbedPerRank []int64 `json:"absorbed_ns_per_rank,omitempty"`
	TotalNs         int64   `json:"total_ns"` // summed over the ranks
}

// Network is the congestion model of the run and its busiest links.
type Network struct {
	Type         string `json:"type"`     // "none", "simple" or "flow"
	Topology     string `json:"topology"` // a description of the topology
	HottestLinks []Link `json:"hottest_links,omitempty"`
}

// Link is one link's load over the run.
type Link struct {
	Link      string `json:"link"`       // the link's name
	From      string `json:"from"`       // the node it leaves
	To        string `json:"to"`         // the node it enters
	Bytes     int64  `json:"bytes"`      // bytes carried
	BusyNs    int64  `json:"busy_ns"`    // time with at least one flow, ns
	PeakFlows int    `json:"peak_flows"` // most flows at once
}

// Times are where a rank's (or all ranks') time went, in ns. CPU time is
// split into computing, send and receive overhead, waiting and noise;
// NICBusy is the time its NICs were busy, which overlaps the others.
type Times struct {
	Calc         int64 `json:"calc_ns"`
	SendOverhead int64 `json:"send_overhead_ns"`
	RecvOverhead int64 `json:"recv_overhead_ns"`
	Wait         int64 `json:"wait_ns"`
	Noise        int64 `json:"noise_ns"`
	NICBusy      int64 `json:"nic_busy_ns"`
}

// RankTimes are one rank's finishing time and breakdown.
type RankTimes struct {
	Rank   int   `json:"rank"`
	Finish int64 `json:"finish_ns"`
	Times
}

// Breakdown is the per-rank breakdown of a run.
type Breakdown struct {
	Totals  Times       `json:"totals"`   // summed over every rank
	PerRank []RankTimes `json:"per_rank"` // every rank, or a subset in rank order
	Slowest []int       `json:"slowest"`  // the slowest ranks, slowest first
}

// CriticalPath is the chain of ops and messages that decides the maximum
// finishing time, and how its length divides.
type CriticalPath struct {
	Length    int64  `json:"length_ns"`
	Calc      int64  `json:"calc_ns"`
	Overhead  int64  `json:"overhead_ns"`
	Latency   int64  `json:"latency_ns"`
	Bandwidth int64  `json:"bandwidth_ns"`
	Wait      int64  `json:"wait_ns"`
	Noise     int64  `json:"noise_ns"`
	Steps     []Step `json:"steps"` // in time order
}

// Step is one op or message on the critical path.
type Step struct {
	Rank  int    `json:"rank"`
	Op    int64  `json:"op"`    // the op's index in its rank
	Label string `json:"label"` // the op's label in the schedule
	Kind  string `json:"kind"`  // "calc", "send", "recv" or "message"
	Start int64  `json:"start_ns"`
	End   int64  `json:"end_ns"`
	Peer  int    `json:"peer"`  // the other rank of a send, recv or message
	Bytes int64  `json:"bytes"` // message size
	What  string `json:"what"`  // what the step's time is: "calc", "overhead", "latency", ...
}

// DecodeError is an error in a JSON file at a byte offset.
type DecodeError struct {
	File      string // the file's name
	Offset    int64  // byte offset of the error, 0-based
	Line, Col int    // 1-based position of Offset
	Err       error
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("%s:%d:%d (byte offset %d): %v", e.File, e.Line, e.Col, e.Offset, e.Err)
}

func (e *DecodeError) Unwrap() error { return e.Err }

// position returns the 1-based line and column of byte offset off.
func position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = 1 + len(before) - (bytes.LastIndexByte(before, '\n') + 1)
	return line, col
}

// decodeError turns a json error into a DecodeError at its offset.
func decodeError(data []byte, name string, err error, fallback int64) error {
	off := fallback
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		off = max(syn.Offset-1, 0) // Offset is after the offending byte
	case errors.As(err, &typ):
		off = typ.Offset
		if typ.Field != "" {
			err = fmt.Errorf("field %s: %s where %s was expected: %w", typ.Field, typ.Value, typ.Type, ErrFormat)
		}
	case errors.Is(err, io.ErrUnexpectedEOF):
		off = int64(len(data))
		err = fmt.Errorf("unexpected end of the file: %w", err)
	}
	line, col := position(data, off)
	return &DecodeError{File: name, Offset: off, Line: line, Col: col, Err: err}
}

// sniffObject checks that data starts (after blanks) with a JSON object.
func sniffObject(data []byte, name, what string) error {
	trim := bytes.TrimLeft(data, " \t\r\n")
	if len(trim) == 0 {
		return fmt.Errorf("%s: empty file: %w", name, ErrFormat)
	}
	if trim[0] != '{' {
		off := int64(len(data) - len(trim))
		line, col := position(data, off)
		return &DecodeError{File: name, Offset: off, Line: line, Col: col,
			Err: fmt.Errorf("expected a JSON object (%s), found %q: %w", what, trim[0], ErrFormat)}
	}
	return nil
}

// decodeStrict decodes one JSON value from data into v and rejects
// anything after it.
func decodeStrict(data []byte, name string, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(v); err != nil {
		return decodeError(data, name, err, dec.InputOffset())
	}
	off := dec.InputOffset()
	if rest := bytes.TrimLeft(data[off:], " \t\r\n"); len(rest) > 0 {
		off = int64(len(data) - len(rest))
		line, col := position(data, off)
		return &DecodeError{File: name, Offset: off, Line: line, Col: col,
			Err: fmt.Errorf("data after the JSON value: %w", ErrFormat)}
	}
	return nil
}

// ReadResult reads a `gopsim sim --json` result file.
func ReadResult(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseResult(data, path)
}

// ParseResult decodes and validates a `gopsim sim --json` result; name is
// the file's name in errors, which carry the line, column and byte
// offset of the problem.
func ParseResult(data []byte, name string) (*Result, error) {
	if err := sniffObject(data, name, "a gopsim sim --json result"); err != nil {
		return nil, err
	}
	// The required keys must be there: an unrelated JSON object is not a
	// result with every number 0.
	var keys map[string]json.RawMessage
	if err := decodeStrict(data, name, &keys); err != nil {
		return nil, err
	}
	if _, ok := keys["models"]; ok {
		return nil, fmt.Errorf("%s: a result of gopsim sim --model all (a \"models\" key, one row per model), which has no per-rank times to report: run gopsim sim --json with one --model: %w", name, ErrFormat)
	}
	for _, k := range []string{"num_ranks", "params", "max_time_ns", "per_rank_ns"} {
		if _, ok := keys[k]; !ok {
			return nil, fmt.Errorf("%s: no %q key (gopsim sim --json writes one): %w", name, k, ErrFormat)
		}
	}
	var r Result
	if err := decodeStrict(data, name, &r); err != nil {
		return nil, err
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &r, nil
}

// Validate checks that r's parts agree: ranks in range, one finishing time
// per rank, no negative times.
func (r *Result) Validate() error {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("invalid result: "+format+": %w", append(a, ErrFormat)...)
	}
	if r.NumRanks < 1 {
		return bad("num_ranks %d: expected at least 1", r.NumRanks)
	}
	if len(r.PerRank) != r.NumRanks {
		return bad("per_rank_ns has %d times for %d ranks", len(r.PerRank), r.NumRanks)
	}
	if r.MaxRank < 0 || r.MaxRank >= r.NumRanks {
		return bad("max_rank %d: expected a rank in 0..%d", r.MaxRank, r.NumRanks-1)
	}
	if r.MaxTime < 0 {
		return bad("max_time_ns %d is negative", r.MaxTime)
	}
	for i, t := range r.PerRank {
		if t < 0 || t > r.MaxTime {
			return bad("per_rank_ns[%d] = %d: expected 0..max_time_ns (%d)", i, t, r.MaxTime)
		}
	}
	rankOK := func(x int) bool { return x >= 0 && x < r.NumRanks }
	if n := r.Noise; n != nil && len(n.AbsorbedPerRank) != 0 && len(n.AbsorbedPerRank) != r.NumRanks {
		return bad("noise.absorbed_ns_per_rank has %d values for %d ranks", len(n.AbsorbedPerRank), r.NumRanks)
	}
	if b := r.Breakdown; b != nil {
		if len(b.PerRank) > r.NumRanks {
			return bad("breakdown.per_rank has %d entries for %d ranks", len(b.PerRank), r.NumRanks)
		}
		for i, p := range b.PerRank {
			if !rankOK(p.Rank) {
				return bad("breakdown.per_rank[%d].rank %d: expected a rank in 0..%d", i, p.Rank, r.NumRanks-1)
			}
			if p.Finish < 0 || p.Calc < 0 || p.SendOverhead < 0 || p.RecvOverhead < 0 || p.Wait < 0 || p.Noise < 0 || p.NICBusy < 0 {
				return bad("breakdown.per_rank[%d] (rank %d): a negative time", i, p.Rank)
			}
		}
		for i, x := range b.Slowest {
			if !rankOK(x) {
				return bad("breakdown.slowest[%d] = %d: expected a rank in 0..%d", i, x, r.NumRanks-1)
			}
		}
	}
	if c := r.CriticalPath; c != nil {
		if c.Length < 0 || c.Calc < 0 || c.Overhead < 0 || c.Latency < 0 || c.Bandwidth < 0 || c.Wait < 0 || c.Noise < 0 {
			return bad("critical_path: a negative time")
		}
		for i, s := range c.Steps {
			if !rankOK(s.Rank) {
				return bad("critical_path.steps[%d].rank %d: expected a rank in 0..%d", i, s.Rank, r.NumRanks-1)
			}
			if s.End < s.Start {
				return bad("critical_path.steps[%d]: end_ns %d before start_ns %d", i, s.End, s.Start)
			}
		}
	}
	return nil
}
