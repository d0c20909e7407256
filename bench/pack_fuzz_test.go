package bench

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzReadPackTable: a pack table never panics the reader, and what it
// reads writes back to the same table.
func FuzzReadPackTable(f *testing.F) {
	f.Add(PackHeader + "\n16384,1024,9120,8870\n")
	f.Add(PackHeader + "\n# c\n\n8,8,1,1\n1073741824,1073741824,1,1\n")
	f.Add("s_bytes,stride_bytes\n1,2\n")
	f.Add(PackHeader + "\n1,8,\"3\n")
	f.Fuzz(func(t *testing.T, in string) {
		tab, err := ReadPackTable(strings.NewReader(in), "fuzz.csv")
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := tab.WriteCSV(&buf); err != nil {
			t.Fatal(err)
		}
		again, err := ReadPackTable(&buf, "again.csv")
		if err != nil || len(again) != len(tab) {
			t.Fatalf("round trip: %d rows, %v", len(again), err)
		}
		for i := range tab {
			if again[i] != tab[i] {
				t.Fatalf("row %d: %+v, then %+v", i, tab[i], again[i])
			}
		}
		_ = tab.Params()
	})
}
