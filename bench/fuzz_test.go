package bench

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"
)

// FuzzReadTable checks that ReadTable never panics, that every error is a
// *TableError (an ErrTable) with a sane position, that what it accepts is
// within the limits, and that an accepted table survives WriteCSV and
// ReadTable unchanged.
func FuzzReadTable(f *testing.F) {
	for _, seed := range []string{
		"",
		TableHeaderPRTT + "\n",
		TableHeaderPRTT + "\n1,0,8,1000\n8,0,8,5000\n8,2000,8,20000\n2,2000,8,9000\n",
		"\ufeff# c\r\n" + TableHeaderPRTT + "\r\n\r\n1, 0, 8, 1000\r\n",
		TableHeaderPRTT + "\n1,0,8\n",
		TableHeaderPRTT + "\n1,0,\"8\",1000\n",
		TableHeaderPRTT + "\n1,0,\"8,1000\n",
		TableHeaderPRTT + "\n65537,0,8,1000\n",
		TableHeaderPRTT + "\n1,0,1073741825,1000\n",
		TableHeaderPRTT + "\n1,5,8,1000\n",
		TableHeader + "\n1,0,8,1000,prtt\n1,0,8,900,exchange\n8,0,8,5000,exchange\n",
		TableHeader + "\n8,10,8,5000,exchange\n",
		TableHeader + "\n1,0,8,1000,prtt\n8,0,8,5000,prtt\n8,2000,8,20000,prtt\n2,2000,8,9000,prtt\n1,0,8,700,exchange\n8,0,8,4000,exchange\n" +
			"1,0,4096,3000,prtt\n8,0,4096,9000,prtt\n8,4000,4096,40000,prtt\n2,4000,4096,12000,prtt\n1,0,4096,2500,exchange\n8,0,4096,17000,exchange\n" +
			"1,0,65536,20000,prtt\n8,0,65536,90000,prtt\n8,30000,65536,300000,prtt\n2,30000,65536,60000,prtt\n1,0,65536,14000,exchange\n8,0,65536,98000,exchange\n",
		TableHeader + "\n8,0,8,5000,swap\n",
		TableHeaderPRTT + "\n1,0,8,99999999999999999999\n",
		TableHeaderPRTT + "\n1,0,8,30760.6\n8,31000.25,8,1.5e5\n1,0,16,30770\n8,0,16,5e4\n",
		TableHeaderPRTT + "\n1,0,8,1e-3\n1,0,9,NaN\n",
		TableHeaderPRTT + "\n1,0,8.0,100\n",
		"n,d,s,prtt\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 64<<10 {
			t.Skip()
		}
		tab, err := ReadTable(bytes.NewReader(data), "fuzz.csv")
		if err != nil {
			var te *TableError
			if !errors.As(err, &te) || !errors.Is(err, ErrTable) {
				t.Fatalf("error %v (%T) is not a *TableError", err, err)
			}
			if te.Line < 1 || te.Col < 1 || te.File != "fuzz.csv" {
				t.Fatalf("bad position in %v", err)
			}
			return
		}
		for _, s := range tab {
			if s.N < 1 || s.N > MaxRoundMessages || s.DelayNs < 0 || s.SizeBytes < 1 || s.SizeBytes > MaxSizeBytes || !(s.PRTTNs > 0) || math.IsInf(s.DelayNs+s.PRTTNs, 0) || s.N == 1 && s.DelayNs != 0 {
				t.Fatalf("accepted sample out of limits: %+v", s)
			}
		}
		var out bytes.Buffer
		if err := tab.WriteCSV(&out); err != nil {
			t.Fatal(err)
		}
		again, err := ReadTable(&out, "again.csv")
		if err != nil {
			t.Fatalf("rereading a written table: %v", err)
		}
		if !reflect.DeepEqual(again, tab) {
			t.Fatal("round trip changed the table")
		}
		// A table ReadTable accepts never makes Fit panic, and what Fit
		// returns is a file sim accepts.
		if pf, err := Fit(tab, FitOptions{}); err == nil {
			if err := pf.SimParams().Validate(); err != nil {
				t.Fatalf("Fit's parameters are not simulable: %v", err)
			}
		}
	})
}

// FuzzParseSizes checks that ParseSizes never panics and returns sorted,
// distinct sizes within the limits, or an ErrSizes.
func FuzzParseSizes(f *testing.F) {
	for _, seed := range []string{"1", "1k:8k:1k,12288,12289", "1:1000000:*2", "1:1073741824:1", "0", "1:2:*", "4m,1k", ","} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, list string) {
		sizes, err := ParseSizes(list)
		if err != nil {
			if !errors.Is(err, ErrSizes) {
				t.Fatalf("error %v is not ErrSizes", err)
			}
			return
		}
		if len(sizes) == 0 || len(sizes) > maxListSizes+1 || !slices.IsSorted(sizes) || len(slices.Compact(slices.Clone(sizes))) != len(sizes) {
			t.Fatalf("sizes %v: want sorted, distinct, 1..%d of them", sizes, maxListSizes)
		}
		if sizes[0] < 1 || sizes[len(sizes)-1] > MaxSizeBytes {
			t.Fatalf("sizes %v outside 1..%d", sizes, MaxSizeBytes)
		}
	})
}
