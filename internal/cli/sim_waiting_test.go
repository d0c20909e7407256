package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/internal/simswitch"
)

// burstGoal is a schedule whose ranks have many sends and calcs ready at
// time 0 on two CPUs and two NICs, the case the engine's waiting lists
// are for.
func burstGoal(ranks, perRank int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "num_ranks %d\n", ranks)
	for r := 0; r < ranks; r++ {
		fmt.Fprintf(&b, "rank %d {\n", r)
		for i := 0; i < perRank; i++ {
			to := (r + 1 + i%(ranks-1)) % ranks
			fmt.Fprintf(&b, "s%d: send %db to %d tag %d cpu %d nic %d\n", i, 1+i*997%9000, to, i, i%2, i/2%2)
			from := (r - 1 - i%(ranks-1) + 2*ranks) % ranks
			fmt.Fprintf(&b, "r%d: recv %db from %d tag %d cpu %d nic %d\n", i, 1+i*997%9000, from, i, i/2%2, i%2)
			if i%3 == 0 {
				fmt.Fprintf(&b, "c%d: calc %d cpu %d\n", i, 100*(i%7), i%2)
			}
		}
		for i := 4; i < perRank; i += 5 {
			fmt.Fprintf(&b, "s%d irequires s%d\ns%d requires r%d\n", i, i-1, i, i-4)
		}
		for i := 3; i < perRank; i += 6 {
			fmt.Fprintf(&b, "c%d requires r%d\n", i, i-1)
		}
		b.WriteString("}\n")
	}
	return b.String()
}

var queueOpsField = regexp.MustCompile(`"queue_ops": (\d+)`)

// simBoth runs `gopsim sim` with args with the engine's waiting lists and
// with the rules' put-backs (internal/simswitch), and returns both
// outputs and the files each run wrote (outs, read after each run).
func simBoth(t *testing.T, args []string, outs []string) (lists, putBack []string) {
	t.Helper()
	for _, pb := range []bool{false, true} {
		simswitch.PutBack.Store(pb)
		code, stdout, stderr := run(append([]string{"sim"}, args...)...)
		simswitch.PutBack.Store(false)
		if code != ExitOK {
			t.Fatalf("%v (put-backs %v): exit %d: %s", args, pb, code, stderr)
		}
		got := []string{stdout}
		for _, f := range outs {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, string(b))
		}
		if pb {
			putBack = got
		} else {
			lists = got
		}
	}
	return lists, putBack
}

// TestSimWaitingListsJSON: `gopsim sim --json` prints byte-identical
// results whether the engine parks ops that wait for a busy resource in
// its waiting lists or puts them back into the queue at every retry as
// the rules say, queue_ops aside: on small and medium schedules
// (put-back-heavy ones: linear all-to-alls, sends ready at time 0 on
// several CPUs and NICs; conformance schedules), in memory and streamed,
// with both queues, every model, noise, both congestion models, the
// breakdown and the critical path; the timeline and Paraver files are
// identical too. On the all-to-alls queue_ops is far smaller.
func TestSimWaitingListsJSON(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, g := range [][]string{
		{"-p", "linear_alltoall", "-s", "48", "-d", "1024"},
		{"-p", "mpi_alltoall", "-s", "32", "-d", "4096"},
		{"-p", "allreduce_recdoub", "-s", "64", "-d", "65536"},
	} {
		f := filepath.Join(dir, g[1]+".bin")
		if code, _, errOut := run(append(append([]string{"gen"}, g...), "-o", f)...); code != ExitOK {
			t.Fatalf("gen %v: exit %d: %s", g, code, errOut)
		}
		files = append(files, f)
	}
	files = append(files,
		writeFile(t, dir, "burst.goal", burstGoal(12, 40)),
		filepath.Join("..", "..", "sim", "testdata", "conformance", "goal", "linear_alltoall_n64_d1024.goal"),
		filepath.Join("..", "..", "sim", "testdata", "conformance", "edge", "edge05_nic_and_gap.goal"))
	tl, prv := filepath.Join(dir, "tl.json"), filepath.Join(dir, "trace")
	modes := []struct {
		args []string
		outs []string
	}{
		{args: []string{"--stream", "off"}},
		{args: []string{"--stream", "on", "--stream-unit", "7"}},
		{args: []string{"--queue", "heap"}},
		{args: []string{"--stream", "on", "--queue", "heap", "--breakdown"}},
		{args: []string{"--breakdown", "--critical-path", "--timeline", tl, "--paraver", prv}, outs: []string{tl, prv + ".prv"}},
		{args: []string{"--model", "all"}},
		{args: []string{"--model", "loggps", "--breakdown", "--queue", "heap"}},
		{args: []string{"--model", "logfp", "--critical-path"}},
		{args: []string{"--noise-period", "9us", "--noise-period-length", "400ns", "--seed", "3", "--stream", "on", "--breakdown"}},
		{args: []string{"--network-type", "flow", "--topology", "fattree:k=8,n=2", "--critical-path"}},
		{args: []string{"--network-type", "simple", "--topology", "fattree:k=8,n=2", "--stream", "on"}},
		{args: []string{"-o", "0", "-g", "0", "-G", "0", "-S", "100"}}, // ops that start leave their resources free at once
	}
	for _, f := range files {
		for _, m := range modes {
			args := append(append([]string{"--json", "--quiet"}, m.args...), f)
			lists, putBack := simBoth(t, args, m.outs)
			name := fmt.Sprintf("%s %v", filepath.Base(f), m.args)
			for i := range lists {
				a, b := lists[i], putBack[i]
				if i == 0 {
					if !queueOpsField.MatchString(a) {
						t.Fatalf("%s: no queue_ops in\n%s", name, a)
					}
					a, b = queueOpsField.ReplaceAllString(a, ""), queueOpsField.ReplaceAllString(b, "")
				}
				if a != b {
					t.Fatalf("%s: output %d differs:\nwaiting lists:\n%s\nput-backs:\n%s", name, i, a, b)
				}
			}
			if strings.Contains(f, "linear_alltoall") && len(m.args) == 2 && m.args[1] == "off" {
				n, o := queueOps(t, lists[0]), queueOps(t, putBack[0])
				if 4*n > o {
					t.Errorf("%s: %d queue operations, %d with put-backs: want at least 4x fewer", name, n, o)
				}
			}
		}
	}
}

func queueOps(t *testing.T, out string) uint64 {
	m := queueOpsField.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no queue_ops in %s", out)
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSimTextEvents: the text summary gives the events processed and the
// queue operations apart: a ping-pong's 2 ops and 1 message are 3 events
// (its receive is posted at time 0 without an event), and 2 queue
// operations.
func TestSimTextEvents(t *testing.T) {
	f := writeFile(t, t.TempDir(), "pp.goal", pingpong)
	code, out, errOut := run("sim", "--quiet", f)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !bytes.Contains([]byte(out), []byte("events:     3 processed (op starts and message arrivals), 2 queue operations\n")) {
		t.Errorf("no events line with 3 processed and 2 queue operations in\n%s", out)
	}
}
