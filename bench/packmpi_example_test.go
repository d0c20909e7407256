package bench_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/gopsim/gopsim/bench"
)

// MeasurePackMPI times MPI_Pack and MPI_Unpack of vector datatypes with
// gopsim-pack (make calibrate-deps) on one MPI process; its table gives
// log3P's parameters as MeasurePack's does. (Not run as a test: it needs
// an MPI; bench's TestMeasurePackMPI runs it.)
func ExampleMeasurePackMPI() {
	tab, err := bench.MeasurePackMPI(context.Background(), bench.PackMPIOptions{
		PackConfig: bench.PackConfig{Sizes: []int64{16384}, Strides: []int64{8, 1024}},
		Launcher:   []string{"mpirun", "-np", "1"}, // or Direct: true, a singleton
		Program:    "bin/gopsim-pack",
		Env:        []string{"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"},
		Log:        os.Stderr,
	})
	if err != nil {
		log.Fatal(err) // e.g. "bench: mpirun -np 1 bin/gopsim-pack ... (exit status 1): bin/gopsim-pack output:3:1: gopsim-pack: ..."
	}
	for _, p := range tab.Params().Points {
		fmt.Printf("%d bytes at stride %d: pack %.0f ns, unpack %.0f ns\n", p.Size, p.Stride, p.Pack, p.Unpack)
	}
	if err := bench.WritePackTableFile("pack-mpi.csv", tab); err != nil {
		log.Fatal(err)
	}
}
