package bench_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/gopsim/gopsim/bench"
)

// StartMPI runs gopsim-prtt (make calibrate-deps) on two MPI ranks;
// Measure drives it like any other backend. (Not run as a test: it needs
// an MPI; bench's TestMPIMeasure runs it.)
func ExampleStartMPI() {
	ctx := context.Background()
	p, err := bench.StartMPI(ctx, bench.MPIOptions{
		Launcher: []string{"mpirun", "-np", "2", "--oversubscribe"},
		Program:  "bin/gopsim-prtt",
		Env:      []string{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"},
		Log:      os.Stderr,
	})
	if err != nil {
		log.Fatal(err) // e.g. "bench: mpirun -np 2 ... (exit status 1): gopsim-prtt output:1:1: the output ends, ..."
	}
	info := p.Info()
	fmt.Printf("%s, rank 0 on %s, rank 1 on %s\n", info.Library, info.Hosts[0], info.Hosts[1])
	tab, err := bench.Measure(ctx, p, bench.Config{Sizes: []int64{1, 1024, 8192, 65536}})
	if cerr := p.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		log.Fatal(err)
	}
	pf, err := bench.Fit(tab, bench.FitOptions{})
	if err != nil {
		log.Fatal(err)
	}
	pf.WriteFile("params-shm.json")
}
