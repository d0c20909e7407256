package trace

// What the importers of foreign trace formats (trace/dumpi,
// trace/liballprof, trace/otf2, trace/tit, trace/chakra) share besides the
// communicator resolution of foreign.go: the policy for calls they cannot
// model, the error of a malformed text line, and opening a path given on
// the command line as a file system.

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/collective"
)

// DiskFS turns a path given on the command line into what the importers'
// Open*FS functions take: a file system rooted at the path's directory and
// the name within it ("" when path is the directory itself).
func DiskFS(path string) (fsys fs.FS, dir, name string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, "", "", fmt.Errorf("trace: %w", err)
	}
	dir = path
	if !fi.IsDir() {
		dir, name = filepath.Dir(path), filepath.Base(path)
	}
	return os.DirFS(dir), dir, name, nil
}

// DiskPaths sets files[r] to the path under dir of the name an importer
// found for rank r in a file system from diskFS.
func DiskPaths(files []string, dir string, names []string) {
	for r := range files {
		files[r] = filepath.Join(dir, filepath.FromSlash(names[r]))
	}
}

// CountList is "MPI_Put x3, MPI_Win_fence x2", sorted by name.
func CountList(m map[string]int64) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s x%d", k, m[k])
	}
	return strings.Join(parts, ", ")
}

// UnsupportedCalls is the error of an importer whose trace has calls the
// converter cannot model, listed with their counts: "WHAT: unsupported
// MPI calls (use --unsupported=calc ...): MPI_Put x3". what names the
// trace with its package ("trace: otf2 FILE"), so the error leaves out
// ErrUnsupported's own "trace: " prefix; it still unwraps to
// ErrUnsupported.
func UnsupportedCalls(what string, m map[string]int64) error {
	return &unsupportedCalls{what: what, list: CountList(m)}
}

type unsupportedCalls struct{ what, list string }

func (e *unsupportedCalls) Error() string {
	return fmt.Sprintf("%s: %s (use --unsupported=calc to count their time as computation): %s",
		e.what, strings.TrimPrefix(ErrUnsupported.Error(), "trace: "), e.list)
}

func (e *unsupportedCalls) Unwrap() error { return ErrUnsupported }

// CheckUnsupportedPolicy validates an importer's Unsupported option.
func CheckUnsupportedPolicy(p string) error {
	switch p {
	case "", "calc":
		return nil
	}
	return fmt.Errorf("trace: unsupported-call policy %q: expected calc or nothing", p)
}

// TextFormatError is a malformed line of a text trace (liballprof,
// SimGrid time-independent). It unwraps to ErrFormat and to its cause,
// and when Incomplete also to io.ErrUnexpectedEOF.
type TextFormatError struct {
	File      string
	Line, Col int // from 1; Col 0 when the whole line is at fault
	Err       error
	// Incomplete says that the line is the file's last, the file ends
	// inside it (no newline after it), and what is wrong is what a cut
	// would explain: fields missing, or the last one not parsing. A last
	// line without its newline that parses is a complete line.
	Incomplete bool
}

func (e *TextFormatError) Error() string {
	pos := e.File + ":" + strconv.Itoa(e.Line)
	if e.Col > 0 {
		pos += ":" + strconv.Itoa(e.Col)
	}
	if e.Incomplete {
		return fmt.Sprintf("trace: %s: incomplete line, the file ends inside it: %v", pos, e.Err)
	}
	return fmt.Sprintf("trace: %s: %v", pos, e.Err)
}

func (e *TextFormatError) Unwrap() []error {
	if e.Incomplete {
		return []error{ErrFormat, io.ErrUnexpectedEOF, e.Err}
	}
	return []error{ErrFormat, e.Err}
}

// LineScanner is a bufio.SplitFunc, bufio.ScanLines, that notes whether
// the last line it returned lacks its newline: the file ends inside it.
// The text importers set it on their bufio.Scanner (sc.Split(ls.Split))
// and mark a parse error on such a line TextFormatError.Incomplete.
type LineScanner struct {
	// Unterminated is set when the token returned last is a final line
	// without a newline.
	Unterminated bool
}

// Split is bufio.ScanLines, noting an unterminated last line.
func (ls *LineScanner) Split(data []byte, atEOF bool) (advance int, token []byte, err error) {
	advance, token, err = bufio.ScanLines(data, atEOF)
	if atEOF && token != nil && advance == len(data) && data[len(data)-1] != '\n' {
		ls.Unterminated = true
	}
	return advance, token, err
}

// UnsupportedReporter is implemented by the Sources of the importers
// (Chakra, OTF2, liballprof, ...): Unsupported counts, by a description,
// the parts of the input that could not be modelled and whose time was
// counted as computation (their Unsupported option "calc"); it returns a
// copy.
type UnsupportedReporter interface {
	Unsupported() map[string]int64
}

// CountLines renders counts as sorted "what xN" lines.
func CountLines(m map[string]int64) []string {
	var out []string
	for k, v := range m {
		out = append(out, fmt.Sprintf("%s x%d", k, v))
	}
	sort.Strings(out)
	return out
}

// CopyCounts returns a copy of m (empty, not nil, for a nil m): what an
// importer's Unsupported method returns.
func CopyCounts(m map[string]int64) map[string]int64 {
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// CollectiveOp is the collective operation an MPI collective function
// performs, blocking or not (MPI_Iallreduce is Allreduce); ok is false
// for a function that is not a collective operation.
func CollectiveOp(f Func) (op collective.Op, ok bool) {
	op, ok = collOps[f.String()]
	return op, ok
}
