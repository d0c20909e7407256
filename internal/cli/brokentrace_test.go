package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/trace/otf2"
)

// copyDir copies the trace in src into a new directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// breakFile damages file: "empty" empties it, "truncated" keeps its first
// half, "last-line" drops its last line, "missing" removes it.
func breakFile(t *testing.T, file, how string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	switch how {
	case "empty":
		b = nil
	case "truncated":
		b = b[:len(b)/2]
	case "last-line":
		s := strings.TrimRight(string(b), "\n")
		b = []byte(s[:strings.LastIndex(s, "\n")+1])
	case "missing":
		if err := os.Remove(file); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBrokenTraces: an empty, truncated or missing rank file of any rank
// is an error in every importer, naming the file (or the rank), never a
// conversion that exits 0.
func TestBrokenTraces(t *testing.T) {
	td := "../../trace/"
	for _, tc := range []struct {
		name    string
		trace   string // directory copied
		arg     string // convert's input, relative to the copy ("": the copy)
		file    string // damaged, relative to the copy
		how     string
		want    []string
		needOTF bool
	}{
		{"gopsim empty", "testdata/irregular", "", "rank-000001.gpt", "empty", []string{"rank-000001.gpt"}, false},
		{"gopsim truncated", "testdata/irregular", "", "rank-000002.gpt", "truncated", []string{"rank-000002.gpt", "unexpected EOF"}, false},
		{"gopsim missing middle", "testdata/irregular", "", "rank-000001.gpt", "missing", []string{"missing [1]"}, false},
		{"gopsim missing last", "testdata/irregular", "", "rank-000003.gpt", "missing", []string{"missing [3]"}, false},
		{"liballprof empty", "liballprof/testdata/bcast-4", "", "trace_bcast-1.dat", "empty", []string{"trace_bcast-1.dat", "rank 1 has no MPI calls"}, false},
		{"liballprof empty last", "liballprof/testdata/bcast-4", "", "trace_bcast-3.dat", "empty", []string{"trace_bcast-3.dat", "rank 3 has no MPI calls"}, false},
		{"liballprof cut before finalize", "liballprof/testdata/bcast-4", "", "trace_bcast-2.dat", "last-line", []string{"trace_bcast-2.dat", "ends before MPI_Finalize"}, false},
		{"liballprof truncated", "liballprof/testdata/vladimir-4", "", "pmpi-trace-rank-1.txt", "truncated", []string{"pmpi-trace-rank-1.txt"}, false},
		{"liballprof missing middle", "liballprof/testdata/bcast-4", "", "trace_bcast-1.dat", "missing", []string{"missing [1]"}, false},
		{"liballprof missing last", "liballprof/testdata/bcast-4", "", "trace_bcast-3.dat", "missing", []string{"missing trace_bcast-3.dat"}, false},
		{"liballprof missing last, a file given", "liballprof/testdata/bcast-4", "trace_bcast-0.dat", "trace_bcast-3.dat", "missing", []string{"missing trace_bcast-3.dat"}, false},
		{"dumpi empty", "dumpi/testdata/sstmacro-testtrace-4", "", "testtrace-0001.bin", "empty", []string{"testtrace-0001.bin"}, false},
		{"dumpi truncated", "dumpi/testdata/sstmacro-testtrace-4", "", "testtrace-0002.bin", "truncated", []string{"testtrace-0002.bin", "truncated"}, false},
		{"dumpi missing middle", "dumpi/testdata/sstmacro-testtrace-4", "", "testtrace-0001.bin", "missing", []string{"missing ranks [1]"}, false},
		{"dumpi missing last", "dumpi/testdata/sstmacro-testtrace-4", "", "testtrace-0003.bin", "missing", []string{"missing ranks [3]"}, false},
		{"chakra empty", "chakra/testdata/astrasim-custom-ring-allreduce-8", "", "custom_allreduce.3.et", "empty", []string{"custom_allreduce.3.et", "empty file"}, false},
		{"chakra truncated", "chakra/testdata/astrasim-custom-ring-allreduce-8", "", "custom_allreduce.5.et", "truncated", []string{"custom_allreduce.5.et", "truncated"}, false},
		{"chakra missing middle", "chakra/testdata/astrasim-custom-ring-allreduce-8", "", "custom_allreduce.3.et", "missing", []string{"missing [3]"}, false},
		{"chakra missing last", "chakra/testdata/astrasim-custom-ring-allreduce-8", "", "custom_allreduce.7.et", "missing", []string{"rank files 7 and up missing"}, false},
		{"otf2 empty", "otf2/testdata/sstmacro-otf2-10", "traces.otf2", "traces/3.evt", "empty", []string{"traces/3.evt is empty"}, true},
		{"otf2 truncated", "otf2/testdata/sstmacro-otf2-10", "traces.otf2", "traces/4.evt", "truncated", []string{"otf2-print failed"}, true},
		{"otf2 missing", "otf2/testdata/sstmacro-otf2-10", "traces.otf2", "traces/9.evt", "missing", []string{"traces/9.evt is missing"}, true},
		{"tit empty rank file", "tit/testdata/simgrid-replay-examples", "index.txt", "actions1.txt", "empty", []string{"rank 1", "actions1.txt", "is empty"}, false},
		{"tit missing rank file", "tit/testdata/simgrid-replay-examples", "index.txt", "actions1.txt", "missing", []string{"rank 1", "actions1.txt", "not found"}, false},
		{"tit truncated rank file", "tit/testdata/simgrid-replay-examples", "index.txt", "actions1.txt", "truncated", []string{"actions1.txt"}, false},
		{"tit shared, a rank's lines missing", "tit/testdata/simgrid-replay-examples", "actions_allreduce.txt", "", "rank1", []string{"actions_allreduce.txt", "rank 1 has no actions"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needOTF && !otf2.PrintAvailable() {
				t.Fatal("otf2-print is not installed (Debian's otf2-tools)")
			}
			dir := copyDir(t, td+tc.trace)
			if strings.HasPrefix(tc.trace, "tit/") {
				writeFile(t, dir, "index.txt", "actions0.txt\nactions1.txt\n")
			}
			switch {
			case tc.how == "rank1":
				p := filepath.Join(dir, tc.arg)
				b, _ := os.ReadFile(p)
				var keep []string
				for _, l := range strings.Split(string(b), "\n") {
					if !strings.HasPrefix(l, "1 ") {
						keep = append(keep, l)
					}
				}
				os.WriteFile(p, []byte(strings.Join(keep, "\n")), 0o644)
			default:
				breakFile(t, filepath.Join(dir, tc.file), tc.how)
			}
			in := filepath.Join(dir, tc.arg)
			code, _, e := run("convert", in, filepath.Join(t.TempDir(), "out.bin"))
			if code == ExitOK {
				t.Fatalf("converted with exit 0: %s", e)
			}
			for _, w := range tc.want {
				if !strings.Contains(e, w) {
					t.Errorf("stderr %q lacks %q", e, w)
				}
			}
		})
	}
}
