package trace_test

import (
	"fmt"
	"log"
	"strings"

	_ "github.com/gopsim/gopsim/internal/traceformats" // registers every trace format
	"github.com/gopsim/gopsim/trace"
)

// Detect the format of a trace and open it through the registry, as
// `gopsim convert` does.
func ExampleDetectFormat() {
	path := "dumpi/testdata/sstmacro-testbgp-7"
	f, ok := trace.DetectFormat(path)
	if !ok {
		log.Fatalf("%s: not a trace of a registered format", path)
	}
	t, err := f.Open(path, trace.OpenOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s trace of %d ranks\n", f.Name, t.Source.NumRanks())
	var names []string
	for _, f := range trace.Formats() {
		names = append(names, f.Name)
	}
	fmt.Println(strings.Join(names, " "))
	// Output:
	// dumpi trace of 7 ranks
	// chakra dumpi liballprof otf2 tit
}
