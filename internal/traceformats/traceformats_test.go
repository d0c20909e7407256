package traceformats_test

import (
	"slices"
	"testing"

	_ "github.com/gopsim/gopsim/internal/traceformats"
	"github.com/gopsim/gopsim/trace"
)

// TestDetect checks that every format is registered and that each
// sample, in each form an importer takes, is detected as its own format
// and by no other: detection does not depend on the order of the formats.
func TestDetect(t *testing.T) {
	var names []string
	for _, f := range trace.Formats() {
		names = append(names, f.Name)
	}
	if want := []string{"chakra", "dumpi", "liballprof", "otf2", "tit"}; !slices.Equal(names, want) {
		t.Fatalf("registered formats %v, want %v", names, want)
	}
	tests := []struct {
		path, want string // want "" for none
	}{
		{"../../trace/dumpi/testdata/sstmacro-testbgp-7", "dumpi"},
		{"../../trace/dumpi/testdata/sstmacro-testbgp-7/testbgp.meta", "dumpi"},
		{"../../trace/dumpi/testdata/sstmacro-testtrace-4/testtrace-0002.bin", "dumpi"},
		{"../../trace/liballprof/testdata/vladimir-4", "liballprof"},
		{"../../trace/liballprof/testdata/sphot-4/htor-coll-rank-2.dat", "liballprof"},
		{"../../trace/tit/testdata/simgrid-replay-examples/actions_allreduce.txt", "tit"},
		{"../../trace/tit/testdata/titwrite/tiny.tit", "tit"},
		{"../../trace/chakra/testdata/astrasim-allreduce-16npus-1MB", "chakra"},
		{"../../trace/chakra/testdata/astrasim-allreduce-16npus-1MB/all_reduce.3.et", "chakra"},
		{"../../trace/chakra/testdata/astrasim-allreduce-16npus-1MB/all_reduce", "chakra"},
		{"../../trace/otf2/testdata/sstmacro-otf2-10", "otf2"},
		{"../../trace/otf2/testdata/sstmacro-otf2-10/traces.otf2", "otf2"},
		{"../../trace/testdata/irregular", ""},
		{"../../trace/testdata/irregular/rank-000000.gpt", ""},
		{"../../examples/pingpong.goal", ""},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			var got []string
			for _, f := range trace.Formats() {
				if f.Detect(tc.path) {
					got = append(got, f.Name)
				}
			}
			want := []string{}
			if tc.want != "" {
				want = []string{tc.want}
			}
			if !slices.Equal(append([]string{}, got...), want) {
				t.Errorf("detected as %v, want %v", got, want)
			}
		})
	}
}
