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

// Open an OTF2 archive (natively: no OTF2 tool needed) and read a rank's
// calls: the OTF2 3 sample's MPI_Iallreduce and MPI_Ibcast are
// collectives with requests, which the MPI_Waitall completes.
func ExampleOpen() {
	src, err := otf2.Open("testdata/otf2gen-3.0.2/ring.otf2", otf2.Options{})
	if err != nil {
		log.Fatal(err) // e.g. "otf2: testdata/otf2gen-3.0.2/ring/2.evt: byte 924: ... (file cut short?)"
	}
	fmt.Println(src.NumRanks(), "ranks;", len(src.Warnings), "kinds of events ignored")
	rs, err := src.OpenRank(0)
	if err != nil {
		log.Fatal(err)
	}
	defer rs.Close()
	var c trace.Call
	for rs.Next(&c) == nil {
		if c.Func == trace.FuncIallreduce || c.Func == trace.FuncIbcast || c.Func == trace.FuncWaitall && c.Done[0].Kind == trace.ReqCollective {
			fmt.Println(c.String())
		}
		if c.Func == trace.FuncWaitall && c.Done[0].Kind == trace.ReqCollective {
			break
		}
	}
	// Output:
	// 4 ranks; 9 kinds of events ignored
	// MPI_Iallreduce t=1088000+2000 comm=0 bytes=128 type=1/1 req=3
	// MPI_Ibcast t=1091000+2000 comm=0 bytes=256 type=1/1 root=0 req=4
	// MPI_Waitall t=1097000+3000 done=[3:collective 4:collective]
}

// ReadPrint parses the text of otf2-print, OTF2's reference printer
// (otf2-print -A run/traces.otf2), here saved earlier of the Score-P
// sample and compressed: the tests' oracle for Open.
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
	fmt.Println(src.Unsupported()["MPI_Iallreduce without collective events"], "MPI_Iallreduce calls without data")
	// Output:
	// 10 ranks
	// MPI_Init t=141838443+1028366873
	// MPI_Isend t=1170261956+163925 comm=0 peer=4 tag=0 bytes=4 type=1/1 req=1
	// MPI_Irecv t=1170429044+9979 comm=0 peer=any tag=any type=1/1 req=2
	// 360 MPI_Iallreduce calls without data
}
