package trace_test

import (
	"fmt"

	"github.com/gopsim/gopsim/trace"
	"github.com/gopsim/gopsim/trace/liballprof"
)

// Measure gives per rank the time from the end of MPI_Init to the start
// of MPI_Finalize, and how much of it was spent inside MPI calls. The
// liballprof sample broadcasts 5 times, 1 µs each, in 12 µs.
func ExampleMeasure() {
	l, err := liballprof.Open("liballprof/testdata/bcast-4", liballprof.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	times, err := trace.Measure(l)
	if err != nil {
		fmt.Println(err)
		return
	}
	for r, t := range times {
		fmt.Printf("rank %d: %d ns from MPI_Init to MPI_Finalize, %d ns inside %d MPI calls, %d ns outside\n",
			r, t.Measured(), t.InMPI, t.Calls, t.Outside())
	}
	// Output:
	// rank 0: 12000 ns from MPI_Init to MPI_Finalize, 5000 ns inside 5 MPI calls, 7000 ns outside
	// rank 1: 12000 ns from MPI_Init to MPI_Finalize, 5000 ns inside 5 MPI calls, 7000 ns outside
	// rank 2: 12000 ns from MPI_Init to MPI_Finalize, 5000 ns inside 5 MPI calls, 7000 ns outside
	// rank 3: 12000 ns from MPI_Init to MPI_Finalize, 5000 ns inside 5 MPI calls, 7000 ns outside
}
