package dumpi_test

import (
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/gopsim/gopsim/goal"
	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/dumpi"
)

// Convert a DUMPI trace (its .meta file, a .bin file or their directory).
func ExampleOpen() {
	d, err := dumpi.Open("testdata/sstmacro-testbgp-7/testbgp.meta", dumpi.Options{})
	if err != nil {
		log.Fatal(err) // e.g. "trace: testbgp-0003.bin: byte 4711: trace: malformed DUMPI file: ..."
	}
	s := goal.NewSchedule(d.NumRanks())
	st, err := trace.Convert(d, trace.ConvertOptions{}, s.AppendRank)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s ranks, %d calls, %d collectives\n", d.Meta["hostname"], d.Meta["numprocs"], st.Calls, st.Collectives)
	// Output:
	// R00-M1-N01-J01.challenger: 7 ranks, 1365 calls, 70 collectives
}

// Read the records of one DUMPI file as libundumpi decodes them.
func ExampleOpenFile() {
	f, err := os.Open("testdata/sstdumpi-testtrace-0000/testtrace-0000.bin")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		log.Fatal(err)
	}
	df, err := dumpi.OpenFile(f, fi.Size(), f.Name())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("DUMPI %d.%d.%d from %s\n", df.Version[0], df.Version[1], df.Version[2], df.Hostname)
	recs := df.Records()
	var r dumpi.Record
	for {
		err := recs.Next(&r)
		if err == io.EOF {
			break
		}
		if err != nil {
			log.Fatal(err) // a *trace.FormatError with the byte offset
		}
		var args []string
		for _, a := range r.Args {
			if a.Kind == dumpi.ArgInt {
				args = append(args, fmt.Sprintf("%s=%d", a.Name, a.Int))
			}
		}
		fmt.Println(strings.TrimSpace(fmt.Sprintf("%-13s %7d ns %s", r.Name(), r.Wall[1].Ns()-r.Wall[0].Ns(), strings.Join(args, " "))))
	}
	// Output:
	// DUMPI 1.0.0 from hadalst-mbp.ca.sandia.gov
	// MPI_Init         1000 ns argc=1
	// MPI_Comm_rank    4000 ns comm=2 rank=0
	// MPI_Comm_size    1000 ns comm=2 size=4
	// MPI_Barrier   1947000 ns comm=2
	// MPI_Isend       15000 ns count=1 datatype=9 dest=1 tag=1337 comm=2 request=2
	// MPI_Recv       181000 ns count=1 datatype=9 source=3 tag=1337 comm=2
	// MPI_Wait         6000 ns request=2
	// MPI_Allreduce   23000 ns count=1 datatype=9 op=3 comm=2
	// MPI_Finalize   376000 ns
}
