package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
)

// Timeline is a Chrome trace-event file (the format chrome://tracing and
// Perfetto load), as `gopsim sim --timeline` writes it: one process per
// rank (pid is the rank), one thread per CPU or NIC, ops as complete
// events and messages as flows.
type Timeline struct {
	Events []TraceEvent
}

// TraceEvent is one trace event. The report uses complete events (Ph
// "X": Name, Cat, Ts and Dur in µs, Pid, Tid), flow starts and ends (Ph
// "s" and "f", joined by ID) and metadata (Ph "M": Name
// "process_name" or "thread_name" with Args["name"]); it ignores others.
type TraceEvent struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`            // µs
	Dur  float64        `json:"dur,omitempty"` // µs
	Pid  ID             `json:"pid"`
	Tid  ID             `json:"tid"`
	ID   ID             `json:"id,omitempty"`
	BP   string         `json:"bp,omitempty"` // flow binding point: "e" binds to the enclosing slice
	Args map[string]any `json:"args,omitempty"`
}

// ID is a trace-event identifier: the format allows a number or a string.
type ID string

// UnmarshalJSON accepts a JSON number or string.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = ID(s)
		return nil
	}
	if string(b) == "null" {
		*id = ""
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("an id must be a number or a string, not %s", b)
	}
	*id = ID(n.String())
	return nil
}

// MarshalJSON writes an integer id as a number, others as a string.
func (id ID) MarshalJSON() ([]byte, error) {
	if _, err := strconv.ParseInt(string(id), 10, 64); err == nil {
		return []byte(id), nil
	}
	return json.Marshal(string(id))
}

// Int returns the id as an integer, and whether it is one.
func (id ID) Int() (int64, bool) {
	n, err := strconv.ParseInt(string(id), 10, 64)
	return n, err == nil
}

// ReadTimeline reads a Chrome trace-event file: an object with a
// traceEvents array, or a bare array of events.
func ReadTimeline(path string) (*Timeline, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseTimeline(data, path)
}

// ParseTimeline decodes a Chrome trace-event file; name is the file's
// name in errors, which carry the line, column and byte offset.
func ParseTimeline(data []byte, name string) (*Timeline, error) {
	trim := bytes.TrimLeft(data, " \t\r\n")
	var events []TraceEvent
	if len(trim) > 0 && trim[0] == '[' {
		if err := decodeStrict(data, name, &events); err != nil {
			return nil, err
		}
	} else {
		if err := sniffObject(data, name, "a trace-event file"); err != nil {
			return nil, err
		}
		var doc struct {
			TraceEvents *[]TraceEvent `json:"traceEvents"`
		}
		if err := decodeStrict(data, name, &doc); err != nil {
			return nil, err
		}
		if doc.TraceEvents == nil {
			return nil, fmt.Errorf("%s: no \"traceEvents\" array (gopsim sim --timeline writes one): %w", name, ErrFormat)
		}
		events = *doc.TraceEvents
	}
	for i, e := range events {
		if e.Ph == "" {
			return nil, fmt.Errorf("%s: event %d: no \"ph\" (phase): %w", name, i, ErrFormat)
		}
		if e.Ph == "X" && e.Dur < 0 {
			return nil, fmt.Errorf("%s: event %d (%q): negative duration %g µs: %w", name, i, e.Name, e.Dur, ErrFormat)
		}
	}
	return &Timeline{Events: events}, nil
}
