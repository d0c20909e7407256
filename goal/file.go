package goal

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/gopsim/gopsim/internal/atomicfile"
)

// Format is the on-disk form of a schedule.
type Format uint8

const (
	FormatText   Format = iota // LogGOPSim's GOAL text grammar
	FormatBinary               // gopsim's compressed binary form (binary.go)
)

func (f Format) String() string {
	if f == FormatBinary {
		return "binary"
	}
	return "text"
}

// FormatForPath is the format a file of that name is written in: ".goal"
// is text, any other name binary.
func FormatForPath(path string) Format {
	if strings.EqualFold(filepath.Ext(path), ".goal") {
		return FormatText
	}
	return FormatBinary
}

// Read reads a schedule in either form, sniffing the binary magic; name
// is used in error messages.
func Read(r io.Reader, name string) (*Schedule, Format, error) {
	return ReadLimits(r, name, Limits{})
}

// ReadLimits is Read with the op sizes bounded by l: an op beyond them
// is a *LimitError, at its line in a text (ReadTextLimits); in a binary
// schedule, which has no lines, it names the op's rank, index and label
// after name (Limits.Check).
func ReadLimits(r io.Reader, name string, l Limits) (*Schedule, Format, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	prefix, _ := br.Peek(len(BinaryMagic))
	if IsBinary(prefix) {
		s, err := ReadBinary(br)
		if err == nil {
			err = l.Check(s)
		}
		if err != nil {
			return nil, FormatBinary, fmt.Errorf("%s: %w", name, err)
		}
		return s, FormatBinary, nil
	}
	s, err := ReadTextLimits(br, name, l)
	return s, FormatText, err
}

// ReadFile reads the schedule stored at path in either form; a regular
// file in the text form is parsed on all CPUs (ReadAt).
func ReadFile(path string) (*Schedule, Format, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, FormatText, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
		return ReadAt(f, fi.Size(), path)
	}
	return Read(f, path)
}

// ReadAt is Read for the size bytes of r read at offsets: a schedule in
// the text form is parsed on all CPUs (ReadTextAt).
func ReadAt(r io.ReaderAt, size int64, name string) (*Schedule, Format, error) {
	return ReadAtLimits(r, size, name, Limits{})
}

// ReadAtLimits is ReadAt with the op sizes bounded by l, as ReadLimits
// bounds them.
func ReadAtLimits(r io.ReaderAt, size int64, name string, l Limits) (*Schedule, Format, error) {
	prefix := make([]byte, len(BinaryMagic))
	n, _ := r.ReadAt(prefix, 0)
	if !IsBinary(prefix[:n]) {
		s, err := ReadTextAtLimits(r, size, name, l)
		return s, FormatText, err
	}
	return ReadLimits(io.NewSectionReader(r, 0, size), name, l)
}

// WriteFile writes s to path in format f. The schedule goes to a
// temporary file in the same directory that is renamed over path only
// once complete, so an error never leaves a partial file behind.
func WriteFile(path string, s *Schedule, f Format) error {
	return atomicfile.Write(path, func(w io.Writer) error {
		if f == FormatBinary {
			return WriteBinary(w, s)
		}
		return WriteText(w, s)
	})
}

// AtomicWrite creates or replaces path with the bytes that write
// produces, as every gopsim output is written (internal/atomicfile): a
// temporary file beside it, fsynced and renamed over it; written through
// for a FIFO or a character device such as /dev/stdout; refused for a
// directory or a block device. It is the public face of that internal
// package, for library users; gopsim's own writers call atomicfile.Write.
func AtomicWrite(path string, write func(io.Writer) error) error {
	return atomicfile.Write(path, write)
}
