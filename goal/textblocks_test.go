package goal_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/gopsim/gopsim/goal"
)

// bigText is a valid schedule of n ranks in the shape Schedgen writes
// (rank lines at column 0), with requires and irequires edges, a label that
// is not canonical, several CPUs and NICs, and comments.
func bigText(n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "// made by bigText\n/* a comment\n   over lines */\nnum_ranks %d\n\n", n)
	for r := 0; r < n; r++ {
		fmt.Fprintf(&b, "rank %d {\n", r)
		fmt.Fprintf(&b, "l1: send %db to %d tag %d\n", 8*(r+1), (r+1)%n, r%7)
		fmt.Fprintf(&b, "l2: recv %db from %d tag %d cpu %d\n", 8*((r+n-1)%n+1), (r+n-1)%n, (r+n-1)%n%7, r%3)
		fmt.Fprintf(&b, "l3: calc %d // work\n", 100+r)
		b.WriteString("l3 requires l2\n")
		if r%5 == 0 {
			fmt.Fprintf(&b, "x%d: send 1b to %d tag 99 nic 1\n", r, (r+2)%n)
			fmt.Fprintf(&b, "x%d irequires l3\n", r)
			fmt.Fprintf(&b, "l5: recv 1b from %d tag 99\n", (r+n-2)%n)
		}
		b.WriteString("}\n\n")
	}
	return b.String()
}

// textVariants are texts around bigText that cut it where it must not be
// cut, or break it in a late rank, so that the pieces fail or do not join.
func textVariants(t *testing.T) map[string]string {
	base := bigText(120)
	at := func(r int) int { // offset of rank r's line
		i := strings.Index(base, fmt.Sprintf("\nrank %d {\n", r))
		if i < 0 {
			t.Fatalf("no rank %d", r)
		}
		return i + 1
	}
	insert := func(r int, s string) string { i := at(r); return base[:i] + s + base[i:] }
	replace := func(old, new string) string {
		if !strings.Contains(base, old) {
			t.Fatalf("%q not in the text", old)
		}
		return strings.Replace(base, old, new, 1)
	}
	return map[string]string{
		"valid":                        base,
		"crlf":                         strings.ReplaceAll(base, "\n", "\r\n"),
		"no final newline":             strings.TrimRight(base, "\n"),
		"final cr":                     strings.TrimRight(base, "\n") + "\r",
		"rank lines in a comment":      insert(60, "/*\nrank 60 {\nl1: calc 1\n}\nrank 61 {\n*/\n"),
		"rank line in a comment alone": insert(70, "/* what follows is not a block:\nrank 3 {\n*/\n"),
		"comment over the cut":         insert(30, "/*\n"+strings.Repeat("x\n", 300)+"*/ "),
		"indented rank lines":          strings.ReplaceAll(base, "\nrank 4", "\n  rank 4"),
		"tab after rank":               strings.ReplaceAll(base, "\nrank 9 ", "\nrank\t9 "),
		"commented rank lines":         strings.ReplaceAll(base, "\nrank 1", "\n// rank 1 {\nrank 1"),
		"peer out of range late":       replace("l1: send 800b to 100", "l1: send 800b to 100000"),
		"missing brace late":           strings.Replace(base, "}\n\nrank 101 {", "\n\nrank 101 {", 1),
		"missing rank late":            strings.Replace(base, "rank 111 {", "rank 112 {", 1),
		"repeated rank":                strings.Replace(base, "rank 90 {", "rank 89 {", 1),
		"missing last rank":            base[:at(119)],
		"extra rank":                   base + "rank 120 {\n}\n",
		"num_ranks again":              insert(80, "num_ranks 120\n"),
		"num_ranks in rank 0":          strings.Replace(strings.Replace(base, "num_ranks 120\n", "", 1), "rank 0 {\n", "rank 0 {\nnum_ranks 120\n", 1),
		"no num_ranks":                 strings.Replace(base, "num_ranks 120\n", "", 1),
		"unclosed comment at the end":  base + "/* never closed\n",
		"garbage at the end":           base + "rank\n",
		"label named rank":             insert(50, "rank: calc 1\n"),
		"undefined label late":         replace("l3 requires l2\n}\n\nrank 118 {", "l3 requires l9\n}\n\nrank 118 {"),
		"cycle late":                   replace("x115 irequires l3\n", "x115 irequires l3\nl3 requires x115\n"),
		"empty":                        "",
		"only num_ranks":               "num_ranks 0\n",
	}
}

// checkTextAt compares ReadTextAt with ReadText on src, for several piece
// lengths: the same schedule, or the same error.
func checkTextAt(t *testing.T, name, src string, sizes ...int64) {
	t.Helper()
	want, wantErr := goal.ReadText(strings.NewReader(src), name)
	for _, size := range sizes {
		restore := goal.SetTextPieceSize(size)
		got, err := goal.ReadTextAt(strings.NewReader(src), int64(len(src)), name)
		restore()
		switch {
		case wantErr != nil && err == nil:
			t.Fatalf("pieces of %d: no error, want %v", size, wantErr)
		case wantErr == nil && err != nil:
			t.Fatalf("pieces of %d: %v", size, err)
		case err != nil && err.Error() != wantErr.Error():
			t.Fatalf("pieces of %d: error %q, want %q", size, err, wantErr)
		case err == nil && !reflect.DeepEqual(got, want):
			t.Fatalf("pieces of %d: another schedule than ReadText's", size)
		}
	}
}

func TestReadTextAtMatchesReadText(t *testing.T) {
	for name, src := range textVariants(t) {
		t.Run(name, func(t *testing.T) {
			checkTextAt(t, "v.goal", src, 1, 7, 64, 700, 1<<20)
		})
	}
	files, err := filepath.Glob(filepath.Join("testdata", "text", "*.goal"))
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range append(files, acceptanceFiles(t)...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(path), func(t *testing.T) {
			checkTextAt(t, path, string(data), 1, 16, 256, 1<<20)
		})
	}
}

// TestReadTextAtCuts checks that a text in Schedgen's shape is parsed in
// pieces, not read again as a whole, and that texts that must not be cut
// where they are are read as a whole: a pass of the comparison above could
// otherwise come from the sequential reading alone.
func TestReadTextAtCuts(t *testing.T) {
	v := textVariants(t)
	for _, tc := range []struct {
		name string
		cut  bool
	}{
		{"valid", true},
		{"crlf", true},
		{"no final newline", true},
		{"indented rank lines", true},
		{"tab after rank", true},
		{"commented rank lines", true},
		{"rank line in a comment alone", false},
		{"rank lines in a comment", false},
		{"peer out of range late", false},
		{"missing brace late", false},
		{"missing rank late", false},
		{"missing last rank", false},
		{"num_ranks in rank 0", false},
		{"unclosed comment at the end", false},
	} {
		// Pieces of one byte: every line that starts with "rank" is a cut.
		src := v[tc.name]
		restore := goal.SetTextPieceSize(1)
		n := goal.TextPieces(strings.NewReader(src), int64(len(src)), "v.goal")
		restore()
		if tc.cut && n < 100 {
			t.Errorf("%s: %d pieces, want at least 100", tc.name, n)
		}
		if !tc.cut && n != 0 {
			t.Errorf("%s: %d pieces, want a reading as a whole", tc.name, n)
		}
	}
}

// TestReadTextBlocksWorkers checks that the blocks, their indexes and the
// worker numbers follow ReadTextBlocks' contract whatever GOMAXPROCS is.
func TestReadTextBlocksWorkers(t *testing.T) {
	defer goal.SetTextPieceSize(500)()
	src := bigText(300)
	want, err := goal.ReadText(strings.NewReader(src), "w.goal")
	if err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 2, 5} {
		old := runtime.GOMAXPROCS(procs)
		var (
			h        goal.Header
			ops      int
			workers  int
			got      = make([]goal.RankBlock, want.NumRanks)
			firstOp  = make([]int, want.NumRanks)
			badState bool
		)
		alloc := func(hh goal.Header, o, e, w int) error {
			h, ops, workers = hh, o, w
			if e != len(want.Deps) {
				badState = true
			}
			return nil
		}
		visit := func(w int, b *goal.RankBlock, op, edge int) {
			if w < 0 || w >= workers || int(want.DepStart[op]) != edge {
				badState = true
			}
			got[b.Rank] = goal.RankBlock{Rank: b.Rank, Ops: append([]goal.Op(nil), b.Ops...),
				DepStart: append([]int32(nil), b.DepStart...), Deps: append([]goal.Dep(nil), b.Deps...),
				Labels: append([]goal.Label(nil), b.Labels...)}
			firstOp[b.Rank] = op
		}
		err := goal.ReadTextBlocks(strings.NewReader(src), int64(len(src)), "w.goal", goal.Limits{}, alloc, visit)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		if badState || workers < 1 || workers > procs || ops != len(want.Ops) ||
			h != (goal.Header{NumRanks: want.NumRanks, NumCPUs: want.NumCPUs, NumNICs: want.NumNICs}) {
			t.Fatalf("GOMAXPROCS %d: header %+v, %d ops, %d workers, or a visit outside the contract", procs, h, ops, workers)
		}
		for r := range got {
			var b goal.RankBlock
			want.Block(r, &b)
			if !blocksEqual(&got[r], &b) || firstOp[r] != int(want.RankStart[r]) {
				t.Fatalf("GOMAXPROCS %d: rank %d differs", procs, r)
			}
		}
	}
}

// TestReadFileText checks that ReadFile reads a text file in pieces with
// ReadText's result.
func TestReadFileText(t *testing.T) {
	defer goal.SetTextPieceSize(256)()
	src := bigText(200)
	path := filepath.Join(t.TempDir(), "big.goal")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s, format, err := goal.ReadFile(path)
	if err != nil || format != goal.FormatText {
		t.Fatalf("ReadFile: %v, format %v", err, format)
	}
	want, err := goal.ReadText(strings.NewReader(src), path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s, want) {
		t.Fatal("ReadFile gives another schedule than ReadText")
	}
	bad := strings.Replace(src, "rank 150 {", "rank 151 {", 1)
	if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, err = goal.ReadFile(path)
	_, wantErr := goal.ReadText(bytes.NewReader([]byte(bad)), path)
	if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
		t.Fatalf("ReadFile error %v, want %v", err, wantErr)
	}
}

// BenchmarkReadTextAt reads an 8 MB text in the shape Schedgen writes with
// ReadText (one goroutine) and with ReadTextAt (pieces on all CPUs).
func BenchmarkReadTextAt(b *testing.B) {
	src := bigText(40000)
	b.Run("ReadText", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := goal.ReadText(strings.NewReader(src), "b.goal"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ReadTextAt", func(b *testing.B) {
		b.SetBytes(int64(len(src)))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := goal.ReadTextAt(strings.NewReader(src), int64(len(src)), "b.goal"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
