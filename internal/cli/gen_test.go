package cli

import (
	"cmp"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// TestGenMatchesSchedgen: gopsim gen writes the conformance schedule that
// Schedgen wrote, in text and binary form, and both simulate to the same
// result as Schedgen's file.
func TestGenMatchesSchedgen(t *testing.T) {
	dir := t.TempDir()
	ref := "../../sim/testdata/conformance/goal/pipelinedringdep_n8_d65536_segmentsize8192.goal"
	txt, bin := filepath.Join(dir, "p.goal"), filepath.Join(dir, "p.bin")
	for _, out := range []string{txt, bin} {
		code, _, e := run("gen", "-p", "pipelinedringdep", "-s", "8", "-d", "65536", "--segmentsize", "8192", "-o", out)
		if code != ExitOK || !strings.Contains(e, "8 ranks, 112 ops") {
			t.Fatalf("exit %d: %s", code, e)
		}
	}
	want, _, err := goal.ReadFile(ref)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{txt, bin} {
		got, _, err := goal.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Ops) != len(want.Ops) || len(got.Deps) != len(want.Deps) {
			t.Fatalf("%s: %d ops %d edges, Schedgen %d %d", f, len(got.Ops), len(got.Deps), len(want.Ops), len(want.Deps))
		}
		for i := range got.Ops {
			if got.Ops[i] != want.Ops[i] {
				t.Fatalf("%s: op %d differs", f, i)
			}
		}
	}
	head, _ := os.ReadFile(txt)
	if !strings.HasPrefix(string(head), "// gopsim gen -d 65536 -p pipelinedringdep -s 8 -segmentsize 8192\nnum_ranks 8\n") {
		t.Fatalf("text output does not echo its parameters: %q", head[:80])
	}
	_, a, _ := run("sim", "--json", ref)
	_, b, _ := run("sim", "--json", bin)
	strip := func(s string) string { return s[strings.Index(s, `"num_ranks"`):] }
	if strip(a) != strip(b) {
		t.Fatalf("simulated results differ:\n%s\n%s", a, b)
	}
}

func TestGenList(t *testing.T) {
	code, out, _ := run("gen", "--list")
	if code != ExitOK {
		t.Fatal(code)
	}
	for _, name := range []string{"binomialtreebcast", "binomialtreereduce", "binarytreebcast", "dissemination",
		"nwaydissemination", "pipelinedring", "pipelinedringdep", "doublering", "gather", "scatter", "linbarrier",
		"linear_alltoall", "linear_alltoallv", "allreduce_recdoub", "allreduce_ring", "random_bisect",
		"mpi_allreduce", "mpi_bcast", "halo2d", "halo3d", "permutation", "incast", "outcast"} {
		if !strings.Contains(out, "  "+name+" ") {
			t.Errorf("--list does not show %s", name)
		}
	}
}

func TestGenErrors(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.bin")
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"-p", "nope", "-o", out}, ExitError, `unknown pattern "nope"`},
		{[]string{"-p", "allreduce_recdoub", "-s", "12", "-o", out}, ExitError, "use -p mpi_allreduce --algo recdoub"},
		{[]string{"-p", "halo2d", "--dims", "2,x", "-o", out}, ExitUsage, "comma-separated list"},
		{[]string{"-p", "dissemination", "extra"}, ExitUsage, `unexpected argument "extra"`},
		// -d is per block; a recursive-doubling allgather of 8 sends 4 blocks at once
		{[]string{"-p", "mpi_allgather", "--algo", "recdoub", "-s", "8", "-d", "1TiB", "-o", out}, ExitError, "rank 0: op 4: a send of 4398046511104 bytes, more than the largest message gopsim sim runs"},
		// integer flags: a value outside the flag's range says what is wanted
		{[]string{"-p", "mpi_bcast", "--tag", "4294967295"}, ExitUsage, `invalid value "4294967295" for flag -tag: want a tag from 0 to 4294967294`},
		{[]string{"-p", "mpi_bcast", "--tag", "-1"}, ExitUsage, `invalid value "-1" for flag -tag: want a tag from 0 to 4294967294`},
		{[]string{"-p", "mpi_gatherv", "--seed", "-1"}, ExitUsage, `invalid value "-1" for flag -seed: want an unsigned integer, 0 to 18446744073709551615`},
		{[]string{"-p", "mpi_allreduce", "-s", "2", "--iterations", "0"}, ExitUsage, `invalid value "0" for flag -iterations: want a count of at least 1`},
		{[]string{"-p", "mpi_allreduce", "-s", "2", "--iterations", "-1"}, ExitUsage, `invalid value "-1" for flag -iterations: want a count of at least 1`},
		{[]string{"-p", "mpi_allreduce", "-s", "two"}, ExitUsage, `invalid value "two" for flag -s: want a number of ranks, at least 1`},
		{[]string{"-p", "mpi_reduce", "--root", "-1"}, ExitUsage, `invalid value "-1" for flag -root: want a rank, 0 to -s minus 1`},
		{[]string{"-p", "mpi_reduce", "-s", "4", "--root", "4"}, ExitUsage, "--root 4: want a rank from 0 to 3 (-s 4)"},
		{[]string{"-p", "nwaydissemination", "--nway", "0"}, ExitUsage, `invalid value "0" for flag -nway: want a fan-out of at least 1`},
		{[]string{"-p", "linear_alltoallv", "--a2av-skew-ratio", "0"}, ExitUsage, `invalid value "0" for flag -a2av-skew-ratio: want a ratio of at least 1`},
		{[]string{"-p", "halo2d", "--stencil", "0"}, ExitUsage, `invalid value "0" for flag -stencil: want 5 or 9 points (halo2d), 7 or 27 (halo3d)`},
		{[]string{"-p", "mpi_allreduce", "--segmentsize", "0"}, ExitUsage, "--segmentsize 0: want at least 1 byte"},
		{[]string{"-p", "mpi_allreduce", "--reduce-cost", "-1"}, ExitUsage, "--reduce-cost -1: want ns/byte >= 0"},
		{[]string{"-p", "mpi_allreduce", "--reduce-cost", "NaN"}, ExitUsage, "--reduce-cost NaN: want ns/byte >= 0"},
		{[]string{"-p", "mpi_allreduce", "-s", "2", "--iterations", "3", "--tag", "4294967294"}, ExitOK, "2 ranks, 12 ops"},
		{[]string{"-p", "allreduce_recdoub", "--rpl-dep-cmp", "-2"}, ExitUsage, "--rpl-dep-cmp -2"},
		{[]string{"-p", "mpi_allreduce", "-s", "4", "-d", "1024", "--reduce-cost", "1e300", "-o", out}, ExitError,
			"--reduce-cost 1e+300: collective: invalid collective: allreduce/recdoub: combining 1024 bytes at the reduction cost 1e+300 ns/byte is 1.024e+303 ns: more than the 4611686018427387903 ns a calc holds"},
		{[]string{"-p", "mpi_scan", "-s", "4", "--algo", "linear", "--reduce-cost", "5e18", "-o", out}, ExitError, "rank 1: --reduce-cost 5e+18: "},
		// sizes and times sim cannot run, refused before anything is written
		{[]string{"-p", "mpi_allreduce", "-s", "2", "-d", "3TiB", "-o", out}, ExitUsage,
			`invalid value "3TiB" for flag -d: 3TiB is 3298534883328 bytes: more than the largest message gopsim sim runs (2 TiB), 2199023255552 bytes`},
		{[]string{"-p", "mpi_allreduce", "-s", "2", "-d", "9223372036854775807", "-o", out}, ExitUsage, "9223372036854775807 bytes: more than the largest message"},
		{[]string{"-p", "mpi_allreduce", "-s", "2", "--compute", "9223372036854775807", "-o", out}, ExitUsage,
			`invalid value "9223372036854775807" for flag -compute: 9223372036854775807 ns: more than the longest calc gopsim sim runs, 4611686018427387903 ns`},
		{[]string{"-p", "mpi_allreduce", "-s", "2", "--compute", "1e30", "-o", out}, ExitUsage, "1e30 is 1e+30 ns: more than the longest calc"},
		{[]string{"-p", "binomialtreebcast", "--nb", "5e18", "-o", out}, ExitUsage, "flag -nb: 5e18 is 5000000000000000000 ns: more than the longest calc"},
		{[]string{"-p", "binomialtreebcast", "--nb", "1", "--nb-poll", "5e18", "-o", out}, ExitUsage, "flag -nb-poll: 5e18 is"},
		{[]string{"-p", "allreduce_recdoub", "--rpl-dep-cmp", "1e19", "-o", out}, ExitUsage, "flag -rpl-dep-cmp: 1e19 is 1e+19 ns: more than the longest calc"},
		{[]string{"-p", "mpi_allreduce", "-s", "2", "-d", "2TiB", "--compute", "4611686018427387903"}, ExitOK, "2 ranks, 10 ops"},
	} {
		code, _, e := run(append([]string{"gen"}, tc.args...)...)
		if code != tc.code || !strings.Contains(e, tc.msg) {
			t.Errorf("gen %v: exit %d, %q; want %d and %q", tc.args, code, e, tc.code, tc.msg)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("files left behind: %v", entries)
	}
}

func TestNoiseMeasure(t *testing.T) {
	out := filepath.Join(t.TempDir(), "noise.txt")
	code, stdout, e := run("noise", "measure", "--duration", "30ms", "-o", out)
	if code != ExitOK || !strings.Contains(stdout, "selfish detour") {
		t.Fatalf("exit %d: %s %s", code, stdout, e)
	}
	data, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(data), "# gopsim noise measure --duration 30ms\n") {
		t.Fatalf("%v: %q", err, data)
	}
	if code, _, _ := run("noise"); code != ExitUsage {
		t.Fatalf("noise without measure: exit %d", code)
	}
}

// TestSimCalibratedParams: a parameter file as gopsim calibrate writes it
// (fractional size ranges, warnings, fit) drives gopsim sim.
func TestSimCalibratedParams(t *testing.T) {
	dir := t.TempDir()
	params := writeFile(t, dir, "p.json", `{"L_ns": 100, "o_ns": 5255, "g_ns": 5130, "G_ns_per_byte": 0, "O_ns_per_byte": 0,
  "ranges": [{"min_bytes": 0, "max_bytes": 2199023255552, "L_ns": 100.7, "o_ns": 5254.93, "g_ns": 5130.05, "G_ns_per_byte": 0.5, "O_ns_per_byte": 0}],
  "warnings": ["o exceeds g"], "fit": {"r2": 0.99}, "source": "tcp loopback"}`)
	sched := writeFile(t, dir, "pp.goal", pingpong)
	code, out, e := run("sim", "--params", params, sched)
	// 1024 bytes, counted in ps and rounded once: sender 5254.93 (5255),
	// arrival 5254.93+100.7 = 5355.63, receiver 5355.63+5254.93+1023·0.5 = 11122.06 (11122).
	if code != ExitOK || !strings.Contains(out, "G=0.5 ns/byte") || !strings.Contains(out, "max finishing time: 11122 ns") {
		t.Fatalf("exit %d:\n%s%s", code, out, e)
	}
}

// TestGenReduceCostBeforeOutput: a --reduce-cost that makes a later rank's
// reduction longer than a calc holds (a binomial reduce rooted at rank 1,
// whose rank 0 is a leaf that combines nothing, or a linear scan) is found
// before anything is written: nothing on stdout (gen printed the ranks
// before the first one that fails), no file with -o, and the same error,
// naming that rank, whatever the output.
func TestGenReduceCostBeforeOutput(t *testing.T) {
	const limit = " ns: more than the 4611686018427387903 ns a calc holds\n"
	for _, tc := range []struct {
		name string
		args []string
		want string // stderr
	}{
		{"binomial reduce rooted at 1", []string{"-p", "mpi_reduce", "--algo", "binomial", "-s", "8", "--root", "1", "-d", "1TiB", "--reduce-cost", "5000000"},
			"gopsim gen: mpi_reduce: pattern: invalid parameters: rank 1: --reduce-cost 5e+06: collective: invalid collective: reduce/binomial: combining 1099511627776 bytes at the reduction cost 5e+06 ns/byte is 5.498e+18" + limit},
		{"linear scan", []string{"-p", "mpi_scan", "--algo", "linear", "-s", "4", "-d", "64", "--reduce-cost", "1e17"},
			"gopsim gen: mpi_scan: pattern: invalid parameters: rank 1: --reduce-cost 1e+17: collective: invalid collective: scan/linear: combining 64 bytes at the reduction cost 1e+17 ns/byte is 6.4e+18" + limit},
	} {
		for _, out := range []string{"", "s.goal", "s.bin"} {
			t.Run(tc.name+"/"+cmp.Or(out, "stdout"), func(t *testing.T) {
				dir := t.TempDir()
				args := append([]string{"gen"}, tc.args...)
				if out != "" {
					args = append(args, "-o", filepath.Join(dir, out))
				}
				code, stdout, stderr := run(args...)
				if code != ExitError || stdout != "" || stderr != tc.want {
					t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1, nothing on stdout and\n%s", code, stdout, stderr, tc.want)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("files left behind: %v", entries)
				}
			})
		}
	}
}

// TestGenMessagesBeforeOutput: a message larger than gopsim sim runs, on
// rank 0 or only on a later rank, is refused before anything is written
// to stdout (and no file is left with -o).
func TestGenMessagesBeforeOutput(t *testing.T) {
	const limit = " bytes, more than the largest message gopsim sim runs (2199023255552 bytes, 2 TiB): lower -d\n"
	for _, tc := range []struct {
		name string
		args []string
		want string // stderr after "gopsim gen: " and an optional "writing FILE: "
	}{
		{"recursive-doubling allgather", []string{"-p", "mpi_allgather", "--algo", "recdoub", "-s", "8", "-d", "1TiB"},
			"rank 0: op 4: a send of 4398046511104" + limit},
		{"binomial gather rooted at 7", []string{"-p", "mpi_gather", "--algo", "binomial", "-s", "8", "--root", "7", "-d", "600GiB"},
			"rank 3: op 2: a send of 2576980377600" + limit},
	} {
		for _, out := range []string{"", "s.goal", "s.bin"} {
			t.Run(tc.name+"/"+cmp.Or(out, "stdout"), func(t *testing.T) {
				dir := t.TempDir()
				args := append([]string{"gen"}, tc.args...)
				want := "gopsim gen: " + tc.want
				if out != "" {
					args = append(args, "-o", filepath.Join(dir, out))
					want = "gopsim gen: writing " + filepath.Join(dir, out) + ": " + tc.want
				}
				code, stdout, stderr := run(args...)
				if code != ExitError || stdout != "" || stderr != want {
					t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit 1, nothing on stdout and\n%s", code, stdout, stderr, want)
				}
				if entries, _ := os.ReadDir(dir); len(entries) != 0 {
					t.Errorf("files left behind: %v", entries)
				}
			})
		}
	}
}
