package tit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

// TestTITLayouts: the ways SimGrid lays out a trace (a shared file, an
// index of per-rank files, an index of one line naming a shared file, a
// directory holding the index) are all read, and a directory that holds
// no index or several is a clear error.
func TestTITLayouts(t *testing.T) {
	shared := []byte("0 init\n1 init\n2 init\n0 send 1 0 8\n1 recv 0 0 8\n2 compute 1e9\n0 finalize\n1 finalize\n2 finalize\n")
	rank0 := []byte("0 init\n0 send 1 0 8\n0 finalize\n")
	rank1 := []byte("1 init\n1 recv 0 0 8\n1 finalize\n")
	fsys := fstest.MapFS{
		"shared.txt":             {Data: shared},
		"one-line.txt":           {Data: []byte("# SimGrid's index of a shared file\nshared.txt\n")},
		"split/index.txt":        {Data: []byte("files/0.txt\nfiles/1.txt\n")},
		"split/files/0.txt":      {Data: rank0},
		"split/files/1.txt":      {Data: rank1},
		"one/index":              {Data: []byte("traces/all.txt\n")},
		"one/traces/all.txt":     {Data: shared},
		"none/shared.txt":        {Data: shared},
		"two/a.txt":              {Data: []byte("r0.txt\n")},
		"two/b.txt":              {Data: []byte("r0.txt\n")},
		"two/r0.txt":             {Data: []byte("0 init\n0 finalize\n")},
		"hidden/.index":          {Data: []byte("r0.txt\n")},
		"hidden/r0.txt":          {Data: []byte("0 init\n0 finalize\n")},
		"empty-index/index.txt":  {Data: []byte("r0.txt\n")},
		"empty-index/r0.txt":     {Data: nil},
		"not-a-trace/readme.txt": {Data: []byte("hello world\n")},
		"not-a-trace/index.txt":  {Data: []byte("readme.txt\n")},
	}
	tests := []struct {
		name, path string
		ranks      int
		shared     bool
		files      []string
		err        string // a substring of the error; "" for none
	}{
		{"shared file", "shared.txt", 3, true, []string{"shared.txt"}, ""},
		{"index of one line naming a shared file", "one-line.txt", 3, true, []string{"shared.txt"}, ""},
		{"directory with an index of per-rank files", "split", 2, false, []string{"split/files/0.txt", "split/files/1.txt"}, ""},
		{"index of per-rank files", "split/index.txt", 2, false, []string{"split/files/0.txt", "split/files/1.txt"}, ""},
		{"directory with an index of one line", "one", 3, true, []string{"one/traces/all.txt"}, ""},
		{"directory without an index", "none", 0, false, nil, "none: a directory without an index file"},
		{"directory with two indexes", "two", 0, false, nil, "two: a directory with 2 index files (a.txt, b.txt): give one"},
		{"hidden files are not indexes", "hidden", 0, false, nil, "hidden: a directory without an index file"},
		{"directory whose index names an empty file", "empty-index", 0, false, nil, "empty-index: a directory without an index file"},
		{"directory whose only index candidate names no trace", "not-a-trace", 0, false, nil, "without an index file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := OpenFS(fsys, tc.path, Options{})
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("got %v, want an error with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tr.NumRanks() != tc.ranks || tr.Shared != tc.shared || strings.Join(tr.Files, " ") != strings.Join(tc.files, " ") {
				t.Fatalf("%d ranks, shared %v, files %v; want %d, %v, %v", tr.NumRanks(), tr.Shared, tr.Files, tc.ranks, tc.shared, tc.files)
			}
		})
	}
}

// TestTITDetectDirectory: Detect takes a directory with an index file,
// and Open reads it from the disk as from the index.
func TestTITDetectDirectory(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("trace/files/0.txt", "0 init\n0 send 1 0 8\n0 finalize\n")
	write("trace/files/1.txt", "1 init\n1 recv 0 0 8\n1 finalize\n")
	write("empty/readme.md", "not a trace\n")
	tests := []struct {
		name, path string
		want       bool
	}{
		{"no index yet", "trace", false},
		{"no trace", "empty", false},
		{"missing", "nothing", false},
	}
	for _, tc := range tests {
		if got := Detect(filepath.Join(dir, tc.path)); got != tc.want {
			t.Errorf("%s: Detect = %v, want %v", tc.name, got, tc.want)
		}
	}
	write("trace/index.txt", "files/0.txt\nfiles/1.txt\n")
	if !Detect(filepath.Join(dir, "trace")) {
		t.Fatal("Detect(directory with its index) = false")
	}
	tr, err := Open(filepath.Join(dir, "trace"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(dir, "trace", "files", "0.txt"), filepath.Join(dir, "trace", "files", "1.txt")}
	if tr.NumRanks() != 2 || tr.Shared || strings.Join(tr.Files, " ") != strings.Join(want, " ") {
		t.Fatalf("%d ranks, shared %v, files %v", tr.NumRanks(), tr.Shared, tr.Files)
	}
}
