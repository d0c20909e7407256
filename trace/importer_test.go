package trace_test

import (
	"errors"
	"testing"

	"github.com/gopsim/gopsim/trace"
)

// TestUnsupportedCalls: the importers' error names the trace once with
// its "trace: FORMAT FILE" prefix, not again with ErrUnsupported's, and
// still is ErrUnsupported.
func TestUnsupportedCalls(t *testing.T) {
	for _, tc := range []struct {
		name, what string
		calls      map[string]int64
		want       string
	}{
		{"one call", "trace: dumpi t.meta", map[string]int64{"MPI_Put": 3},
			"trace: dumpi t.meta: unsupported MPI calls (use --unsupported=calc to count their time as computation): MPI_Put x3"},
		{"sorted", "trace: otf2 x.otf2", map[string]int64{"MPI_Win_fence": 2, "MPI_Abort": 1},
			"trace: otf2 x.otf2: unsupported MPI calls (use --unsupported=calc to count their time as computation): MPI_Abort x1, MPI_Win_fence x2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := trace.UnsupportedCalls(tc.what, tc.calls)
			if !errors.Is(err, trace.ErrUnsupported) {
				t.Errorf("%v is not ErrUnsupported", err)
			}
			if err.Error() != tc.want {
				t.Errorf("got  %q\nwant %q", err, tc.want)
			}
		})
	}
}
