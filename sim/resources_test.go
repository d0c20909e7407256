package sim

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// TestSparseResources: one op naming CPU 65535 (or NIC 65535) on a
// schedule of many ranks would make every rank keep 65,536 clocks; it is
// refused with a message, before anything is allocated, and small or
// dense uses of several CPUs and NICs run.
func TestSparseResources(t *testing.T) {
	text := func(ranks int, op string) string {
		var b strings.Builder
		fmt.Fprintf(&b, "num_ranks %d\nrank 0 {\n%s\n}\n", ranks, op)
		for r := 1; r < ranks; r++ {
			fmt.Fprintf(&b, "rank %d {\n}\n", r)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, src, want string
	}{
		{"cpu 65535 on 20000 ranks", text(20000, "calc 5 cpu 65535"), "ops name CPUs up to 65535 and NICs up to 0, so every one of the 20000 ranks gets 65536 CPU and 1 NIC clocks"},
		{"nic 65535 on 10000 ranks", text(10000, "send 8b to 1 tag 0 nic 65535"), "NICs up to 65535"},
		{"cpu 3 on 4 ranks", text(4, "calc 5 cpu 3"), ""},
		{"cpu 9 on 2000 ranks", text(2000, "calc 5 cpu 9"), ""}, // 18,000 idle clocks: under minSparse
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := goal.ReadText(strings.NewReader(tc.src), "t.goal")
			if err != nil {
				t.Fatal(err)
			}
			p, err := Compile(s)
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Run(Options{Params: DefaultParams()})
			if tc.want == "" && err != nil {
				t.Fatalf("Run: %v", err)
			}
			if tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Run: %v, want %q", err, tc.want)
			}
		})
	}
}

// TestNoRanks: a schedule of 0 ranks built in memory is an error, not a
// 0 ns result at a rank that does not exist.
func TestNoRanks(t *testing.T) {
	s := goal.NewSchedule(0)
	if _, err := Run(s, Options{Params: DefaultParams()}); err == nil || !strings.Contains(err.Error(), "0 ranks") {
		t.Errorf("Run: %v", err)
	}
	if p, err := Compile(s); err == nil {
		if _, err := p.Run(Options{Params: DefaultParams()}); err == nil || !strings.Contains(err.Error(), "0 ranks") {
			t.Errorf("Program.Run: %v", err)
		}
	}
}
