package goal_test

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// dirNames lists the names in dir.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileNoPartialFile(t *testing.T) {
	bad := unlabeledDeps(t) // WriteText rejects it after writing some of it
	good, err := readString(exampleText)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("new file", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.goal")
		if err := goal.WriteFile(path, bad, goal.FormatText); err == nil {
			t.Fatal("WriteFile accepted a dependency between unlabeled ops")
		}
		if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("Stat(%s) after a failed WriteFile: %v, want not exist", path, err)
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Errorf("failed WriteFile left %v in the directory", names)
		}
	})

	t.Run("existing file kept", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.goal")
		if err := goal.WriteFile(path, good, goal.FormatText); err != nil {
			t.Fatal(err)
		}
		before, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := goal.WriteFile(path, bad, goal.FormatText); err == nil {
			t.Fatal("WriteFile accepted a dependency between unlabeled ops")
		}
		after, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(before, after) {
			t.Errorf("failed WriteFile changed the existing file:\n%s", after)
		}
		if names := dirNames(t, dir); !reflect.DeepEqual(names, []string{"out.goal"}) {
			t.Errorf("directory holds %v, want only out.goal", names)
		}
	})

	t.Run("missing directory", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "no", "such", "dir", "out.goal")
		if err := goal.WriteFile(path, good, goal.FormatText); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("WriteFile into a missing directory: %v, want not exist", err)
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Errorf("failed WriteFile left %v", names)
		}
	})

	t.Run("incomplete schedule in binary", func(t *testing.T) {
		dir := t.TempDir()
		path := filepath.Join(dir, "out.bin")
		if err := goal.WriteFile(path, goal.NewSchedule(3), goal.FormatBinary); err == nil {
			t.Fatal("WriteFile accepted a schedule without its ranks")
		}
		if names := dirNames(t, dir); len(names) != 0 {
			t.Errorf("failed WriteFile left %v", names)
		}
	})
}

func TestWriteFileText(t *testing.T) {
	s, err := readString(exampleText)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "out.goal")
	if err := goal.WriteFile(path, s, goal.FormatText); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := writeString(t, s); string(got) != want {
		t.Errorf("file holds\n%s\nwant\n%s", got, want)
	}

	// The file gets the permissions of os.Create, not CreateTemp's 0600.
	ref := filepath.Join(filepath.Dir(path), "ref")
	f, err := os.Create(ref)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	ri, err := os.Stat(ref)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode() != ri.Mode() {
		t.Errorf("WriteFile made a file of mode %v, os.Create one of %v", fi.Mode(), ri.Mode())
	}
}

// TestRead checks that Read and ReadFile sniff the format from the bytes,
// whatever the file is called.
func TestRead(t *testing.T) {
	s, err := readString(exampleText)
	if err != nil {
		t.Fatal(err)
	}
	var bin bytes.Buffer
	if err := goal.WriteBinary(&bin, s); err != nil {
		t.Fatal(err)
	}
	if !goal.IsBinary(bin.Bytes()) {
		t.Fatal("WriteBinary output does not start with BinaryMagic")
	}
	tests := []struct {
		name   string
		data   []byte
		format goal.Format
	}{
		{"text", []byte(exampleText), goal.FormatText},
		{"text with comment first", []byte("// x\n" + exampleText), goal.FormatText},
		{"text CRLF", []byte(strings.ReplaceAll(exampleText, "\n", "\r\n")), goal.FormatText},
		{"binary", bin.Bytes(), goal.FormatBinary},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, format, err := goal.Read(bytes.NewReader(tc.data), "in")
			if err != nil {
				t.Fatal(err)
			}
			if format != tc.format {
				t.Errorf("format %v, want %v", format, tc.format)
			}
			if !reflect.DeepEqual(got, s) {
				t.Errorf("Read:\n got %+v\nwant %+v", got, s)
			}

			// The same through a file whose name says the opposite.
			path := filepath.Join(t.TempDir(), "in.goal")
			if tc.format == goal.FormatText {
				path = filepath.Join(t.TempDir(), "in.bin")
			}
			if err := os.WriteFile(path, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, format, err = goal.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if format != tc.format || !reflect.DeepEqual(got, s) {
				t.Errorf("ReadFile(%s): format %v, schedule %+v", path, format, got)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	s, err := readString(exampleText)
	if err != nil {
		t.Fatal(err)
	}
	var bin bytes.Buffer
	if err := goal.WriteBinary(&bin, s); err != nil {
		t.Fatal(err)
	}

	t.Run("cut binary", func(t *testing.T) {
		cut := bin.Bytes()[:len(goal.BinaryMagic)+2]
		_, format, err := goal.Read(bytes.NewReader(cut), "cut.bin")
		if err == nil {
			t.Fatal("Read accepted a cut binary file")
		}
		if format != goal.FormatBinary {
			t.Errorf("format %v, want binary", format)
		}
		if !errors.Is(err, goal.ErrBinary) || errors.Is(err, goal.ErrSyntax) {
			t.Errorf("error %v: want ErrBinary, not ErrSyntax", err)
		}
		if !strings.HasPrefix(err.Error(), "cut.bin: ") {
			t.Errorf("error %q does not start with the name", err)
		}
	})
	t.Run("part of the magic is text", func(t *testing.T) {
		_, format, err := goal.Read(bytes.NewReader(goal.BinaryMagic[:4]), "short")
		if format != goal.FormatText {
			t.Errorf("format %v, want text", format)
		}
		var se *goal.SyntaxError
		if !errors.As(err, &se) || se.File != "short" || se.Line != 1 || se.Col != 1 {
			t.Errorf("error %v, want a syntax error at short:1:1", err)
		}
	})
	t.Run("text error", func(t *testing.T) {
		_, _, err := goal.Read(strings.NewReader("num_ranks 2\nrank 1 {\n}\n"), "x.goal")
		if got, want := err.Error(), "x.goal:2:6: rank 1 block where rank 0 was expected (blocks come in order 0..N-1)"; got != want {
			t.Errorf("error %q, want %q", got, want)
		}
	})
	t.Run("empty", func(t *testing.T) {
		_, format, err := goal.Read(bytes.NewReader(nil), "empty")
		if format != goal.FormatText || !errors.Is(err, goal.ErrSyntax) {
			t.Errorf("Read(empty) = %v, %v; want text, a syntax error", format, err)
		}
	})
	t.Run("missing file", func(t *testing.T) {
		_, _, err := goal.ReadFile(filepath.Join(t.TempDir(), "none.goal"))
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("ReadFile of a missing file: %v, want not exist", err)
		}
	})
}

// TestWriteFileReadFile writes every acceptance file in both formats and
// reads it back.
func TestWriteFileReadFile(t *testing.T) {
	dir := t.TempDir()
	for _, in := range acceptanceFiles(t) {
		t.Run(filepath.Base(in), func(t *testing.T) {
			s, _, err := goal.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, f := range []goal.Format{goal.FormatText, goal.FormatBinary} {
				path := filepath.Join(dir, filepath.Base(in)+"."+f.String())
				if err := goal.WriteFile(path, s, f); err != nil {
					t.Fatalf("WriteFile %v: %v", f, err)
				}
				back, format, err := goal.ReadFile(path)
				if err != nil {
					t.Fatalf("ReadFile %v: %v", f, err)
				}
				if format != f {
					t.Errorf("wrote %v, read %v", f, format)
				}
				if !reflect.DeepEqual(back, s) {
					t.Errorf("%v round trip changed the schedule", f)
				}
			}
		})
	}
}

func TestFormatForPath(t *testing.T) {
	tests := []struct {
		path string
		want goal.Format
	}{
		{"a.goal", goal.FormatText},
		{"dir/a.goal", goal.FormatText},
		{"A.GOAL", goal.FormatText},
		{"a.Goal", goal.FormatText},
		{".goal", goal.FormatText},
		{"a.bin", goal.FormatBinary},
		{"a.goalbin", goal.FormatBinary},
		{"a.goal.bin", goal.FormatBinary},
		{"a.goal.gz", goal.FormatBinary},
		{"a", goal.FormatBinary},
		{"goal", goal.FormatBinary},
		{"dir.goal/a", goal.FormatBinary},
		{"", goal.FormatBinary},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			if got := goal.FormatForPath(tc.path); got != tc.want {
				t.Errorf("FormatForPath(%q) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
	if goal.FormatText.String() != "text" || goal.FormatBinary.String() != "binary" {
		t.Errorf("Format names %q, %q", goal.FormatText, goal.FormatBinary)
	}
}
