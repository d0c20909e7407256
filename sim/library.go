package sim

import (
	"fmt"
	"slices"
	"strings"
)

// LibraryCosts are the one-time costs of an MPI library that a process
// pays beside its messages: the connection to a peer at the first message
// exchanged with it, the first call of each MPI function (code and state
// the library sets up, or pages in, the first time), and the local work
// of creating a communicator. `gopsim calibrate --backend mpi` measures
// them (bench.MeasureWarmup) and writes them as the parameter file's
// "library" section:
//
//	"library": {"name": "Open MPI v4.1.4", "first_contact_ns": 290000, "comm_create_ns": 4700,
//	            "first_call": [{"function": "MPI_Allreduce", "extra_ns": 50000}, ...]}
//
// The engine does not use them: the converter of traces charges them, as
// computation, to the ranks that pay them (trace.ConvertOptions.Library),
// so they are part of a schedule converted with them and of no other.
type LibraryCosts struct {
	// Name is the library they were measured with (the first line of
	// MPI_Get_library_version).
	Name string `json:"name"`
	// FirstContactNs is charged to both ranks of a pair at the first
	// message between them.
	FirstContactNs float64 `json:"first_contact_ns"`
	// CommCreateNs is charged to every member of a communicator created
	// (split, duplicated, created from a group, or a topology), beside
	// the communication of its creation.
	CommCreateNs float64 `json:"comm_create_ns"`
	// FirstCall is the extra cost of a rank's first call of a function,
	// over a warm call of it: one entry per function measured, sorted by
	// name. A function not listed has none.
	FirstCall []FirstCallCost `json:"first_call"`
}

// LibraryName returns an MPI library's name as the first line of
// MPI_Get_library_version gives it, with every run of spaces and tabs
// (MPICH writes "MPICH Version:\t4.0.2") made one space and none at
// either end, as it is stored and printed.
func LibraryName(line string) string {
	return strings.Join(strings.Fields(line), " ")
}

// FirstCallCost is the extra cost, in ns, of the first call of an MPI
// function (its C name, "MPI_Allreduce").
type FirstCallCost struct {
	Function string  `json:"function"`
	Ns       float64 `json:"extra_ns"`
}

// FirstCallNs returns the extra cost of the first call of function fn,
// or 0 when none was measured.
func (c *LibraryCosts) FirstCallNs(fn string) float64 {
	if c == nil {
		return 0
	}
	i, ok := slices.BinarySearchFunc(c.FirstCall, fn, func(f FirstCallCost, fn string) int {
		switch {
		case f.Function < fn:
			return -1
		case f.Function > fn:
			return 1
		}
		return 0
	})
	if !ok {
		return 0
	}
	return c.FirstCall[i].Ns
}

// Validate checks that every cost is a time in 0..MaxParam ns and that
// the functions are named once each, in order.
func (c *LibraryCosts) Validate() error {
	if c == nil {
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"first_contact_ns", c.FirstContactNs}, {"comm_create_ns", c.CommCreateNs}} {
		if !(f.v >= 0 && f.v <= MaxParam) {
			return fmt.Errorf("sim: library.%s=%g outside 0..%d ns", f.name, f.v, int64(MaxParam))
		}
	}
	for i, f := range c.FirstCall {
		if f.Function == "" {
			return fmt.Errorf("sim: library.first_call[%d]: no function named", i)
		}
		if !(f.Ns >= 0 && f.Ns <= MaxParam) {
			return fmt.Errorf("sim: library.first_call[%d] (%s): extra_ns=%g outside 0..%d", i, f.Function, f.Ns, int64(MaxParam))
		}
		if i > 0 && f.Function <= c.FirstCall[i-1].Function {
			return fmt.Errorf("sim: library.first_call[%d] (%s) after %s: functions must be sorted by name and given once", i, f.Function, c.FirstCall[i-1].Function)
		}
	}
	return nil
}
