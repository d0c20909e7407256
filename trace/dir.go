package trace

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
)

// FileName is the name of rank's file in a trace directory.
func FileName(rank int) string { return fmt.Sprintf("rank-%06d.gpt", rank) }

var fileRE = regexp.MustCompile(`^rank-([0-9]{6,})\.gpt$`)

// RankFiles returns the rank files in dir (names as FileName writes them)
// by rank, without opening them.
func RankFiles(dir string) (map[int]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	files := map[int]string{}
	for _, e := range ents {
		m := fileRE.FindStringSubmatch(e.Name())
		if m == nil || e.IsDir() {
			continue
		}
		r, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		files[r] = filepath.Join(dir, e.Name())
	}
	return files, nil
}

// Dir is a trace directory: one file per rank of one run.
type Dir struct {
	Path    string
	Files   []string // by rank
	Headers []Header // by rank
}

// OpenDir reads the headers of the rank files in path and checks that
// they are one run's: every rank 0..size-1 once, of the same world size.
// Open reads a rank's records.
func OpenDir(path string) (*Dir, error) {
	files, err := RankFiles(path)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("trace: %s: no rank files (rank-NNNNNN.gpt)", path)
	}
	d := &Dir{Path: path}
	ranks := make([]int, 0, len(files))
	for r := range files {
		ranks = append(ranks, r)
	}
	slices.Sort(ranks)
	for _, r := range ranks {
		rd, err := Open(files[r])
		if err != nil {
			return nil, err
		}
		h := rd.Header()
		rd.Close()
		if h.Rank != r {
			return nil, fmt.Errorf("trace: %s holds rank %d", files[r], h.Rank)
		}
		if len(d.Headers) > 0 && h.Size != d.Headers[0].Size {
			return nil, fmt.Errorf("trace: %s: world of %d ranks, but %s has %d (files of different runs?)",
				files[r], h.Size, d.Files[0], d.Headers[0].Size)
		}
		d.Files = append(d.Files, files[r])
		d.Headers = append(d.Headers, h)
	}
	size := d.Headers[0].Size
	if len(ranks) != size || ranks[len(ranks)-1] != size-1 {
		var missing []int
		for r := 0; r < size && len(missing) < 10; r++ {
			if _, ok := files[r]; !ok {
				missing = append(missing, r)
			}
		}
		return nil, fmt.Errorf("trace: %s: %d rank files for a world of %d ranks (missing %v)", path, len(files), size, missing)
	}
	return d, nil
}

// NumRanks is the world size.
func (d *Dir) NumRanks() int { return len(d.Files) }

// Open opens rank's file; the caller closes the Reader.
func (d *Dir) Open(rank int) (*Reader, error) {
	if rank < 0 || rank >= len(d.Files) {
		return nil, fmt.Errorf("trace: rank %d outside 0..%d", rank, len(d.Files)-1)
	}
	return Open(d.Files[rank])
}

// File is a whole rank file in memory.
type File struct {
	Header Header
	Calls  []Call
	Comms  []*Comm // in the order of their definition
	// Types are the derived datatypes the calls use, in the order of
	// their definition (version 2).
	Types []*TypeDef
	End   EndReason
}

// ReadFile reads the whole rank file at path: for tests and small traces;
// Reader streams.
func ReadFile(path string) (*File, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f := &File{Header: r.Header()}
	var c Call
	for {
		err := r.Next(&c)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		f.Calls = append(f.Calls, c.Clone())
	}
	f.Comms, f.Types, f.End = r.Comms(), r.TypeDefs(), r.End()
	return f, nil
}

// FuncCount is how often one function was called.
type FuncCount struct {
	Func    Func
	Calls   int64 // calls, counting each poll of a run
	Records int64
	Time    int64 // ns inside the calls
}

// Stats sums up a trace directory.
type Stats struct {
	Ranks   int
	Records int64 // call, flush and communicator records, in all files
	Calls   int64 // MPI calls, counting each poll of a run
	Bytes   int64 // size of the files
	Comms   int   // distinct communicators (by id and members), MPI_COMM_SELF counted once
	Funcs   []FuncCount
	// Span is the longest time between a rank's first and last record, in ns.
	Span int64
	// Ends counts the ranks by how their trace ended.
	Ends map[EndReason]int
	// Cut lists the ranks whose files end early (killed ranks, typically
	// after another one called MPI_Abort); their records up to the cut
	// are counted.
	Cut []int
}

// Stats reads every rank file and sums them up. A file that ends early is
// counted up to the cut and listed in Cut; other errors are returned.
func (d *Dir) Stats() (*Stats, error) {
	s := &Stats{Ranks: d.NumRanks(), Ends: map[EndReason]int{}}
	per := map[Func]*FuncCount{}
	comms := map[string]bool{}
	var c Call
	for rank := range d.Files {
		r, err := d.Open(rank)
		if err != nil {
			return nil, err
		}
		first, last := int64(0), int64(0)
		n := 0
		for {
			err = r.Next(&c)
			if err != nil {
				break
			}
			if n == 0 {
				first = c.Start
			}
			last = max(last, c.End)
			n++
			s.Records++
			if c.Func == FuncFlush {
				continue
			}
			fc := per[c.Func]
			if fc == nil {
				fc = &FuncCount{Func: c.Func}
				per[c.Func] = fc
			}
			fc.Calls += c.Polls
			fc.Records++
			fc.Time += c.Duration()
			s.Calls += c.Polls
		}
		s.Bytes += r.Offset()
		r.Close()
		switch {
		case errors.Is(err, io.EOF):
			s.Ends[r.End()]++
		case errors.Is(err, io.ErrUnexpectedEOF):
			s.Cut = append(s.Cut, rank)
		default:
			return nil, err
		}
		s.Records += int64(len(r.Comms()))
		if n > 0 {
			s.Span = max(s.Span, last-first)
		}
		for _, cm := range r.Comms() {
			key := fmt.Sprint(cm.ID, cm.Members, cm.Remote)
			if cm.Local {
				key = fmt.Sprint("local", rank, cm.ID)
			}
			if cm.ID == 1 {
				key = "self"
			}
			comms[key] = true
		}
	}
	s.Comms = len(comms)
	for _, fc := range per {
		s.Funcs = append(s.Funcs, *fc)
	}
	slices.SortFunc(s.Funcs, func(a, b FuncCount) int { return int(a.Func) - int(b.Func) })
	return s, nil
}
