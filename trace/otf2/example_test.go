package otf2_test

import (
	"compress/gzip"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/otf2"
)

// Read an OTF2 trace. Open runs otf2-print on the anchor file:
//
//	src, err := otf2.Open("run/traces.otf2", otf2.Options{Unsupported: "calc"})
//
// ReadPrint parses printer output saved earlier (here the sample's,
// compressed).
func ExampleReadPrint() {
	f, err := os.Open("testdata/sstmacro-otf2-10.print.txt.gz")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		log.Fatal(err)
	}
	src, err := otf2.ReadPrint(zr, "traces.otf2", otf2.Options{Unsupported: "calc"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(src.NumRanks(), "ranks")
	rs, err := src.OpenRank(3)
	if err != nil {
		log.Fatal(err)
	}
	var c trace.Call
	for i := 0; i < 3 && rs.Next(&c) != io.EOF; i++ {
		fmt.Println(c.String())
	}
	fmt.Println(src.Unsupported()["MPI_Iallreduce without collective events (not modelled: its time counted as computation)"], "MPI_Iallreduce calls without data")
	// Output:
	// 10 ranks
	// MPI_Init t=141838443+1028366873
	// MPI_Isend t=1170261956+163925 comm=0 peer=4 tag=0 bytes=4 type=1/1 req=1
	// MPI_Irecv t=1170429044+9979 comm=0 peer=any tag=any type=1/1 req=2
	// 360 MPI_Iallreduce calls without data
}
