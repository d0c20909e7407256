// Command memlatency measures this machine's latency for a load whose
// address depends on the load before it, as the memory those loads range
// over grows: the cost of a cache miss (and of the TLB miss that comes
// with it) that the simulator's event loop pays when an event's state is
// far from the last event's. docs/performance.md quotes its table.
//
// For each footprint it links every 64-byte line of a fresh buffer into
// one random cycle, walks the cycle for a while to warm up, then times
// -steps loads along it and prints the mean time per load, once with the
// buffer in 4 KiB pages and once asking for huge pages (transparent huge
// pages, madvise; Linux only, elsewhere both rows use ordinary memory).
//
//	go run ./internal/memlatency [-steps N] [-max-mib N] [-seed N]
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"time"
	"unsafe"
)

func main() {
	steps := flag.Int("steps", 20_000_000, "timed loads per footprint")
	maxMiB := flag.Int("max-mib", 4096, "largest footprint, MiB")
	seed := flag.Uint64("seed", 1, "seed of the random cycles")
	flag.Parse()
	if *steps < 1 || *maxMiB < 1 {
		fmt.Fprintln(os.Stderr, "memlatency: -steps and -max-mib must be at least 1")
		os.Exit(2)
	}
	fmt.Printf("| footprint | ns per dependent load, 4 KiB pages | ns per dependent load, huge pages |\n|---|---|---|\n")
	for kib := 256; kib <= *maxMiB<<10; kib *= 2 {
		var ns [2]float64
		for i, huge := range []bool{false, true} {
			v, err := measure(kib<<10, huge, *steps, *seed)
			if err != nil {
				fmt.Fprintf(os.Stderr, "memlatency: %d KiB: %v\n", kib, err)
				os.Exit(1)
			}
			ns[i] = v
		}
		fmt.Printf("| %s | %.1f | %.1f |\n", footprint(kib), ns[0], ns[1])
	}
}

// footprint prints kib in KiB, MiB or GiB.
func footprint(kib int) string {
	switch {
	case kib >= 1<<20:
		return fmt.Sprintf("%d GiB", kib>>20)
	case kib >= 1<<10:
		return fmt.Sprintf("%d MiB", kib>>10)
	}
	return fmt.Sprintf("%d KiB", kib)
}

// measure returns the mean time of a dependent load over a random cycle
// through every 64-byte line of n fresh bytes.
func measure(n int, huge bool, steps int, seed uint64) (float64, error) {
	mem, err := mapBytes(n, huge)
	if err != nil {
		return 0, err
	}
	defer unmapBytes(mem)
	a := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(mem))), n/8)
	link(a, rand.New(rand.NewPCG(seed, uint64(n))))
	p := uint64(0)
	for i := 0; i < min(steps, 1_000_000); i++ {
		p = a[p]
	}
	t := time.Now()
	for i := 0; i < steps; i++ {
		p = a[p]
	}
	d := time.Since(t)
	sink = p
	return float64(d.Nanoseconds()) / float64(steps), nil
}

// lineWords is the number of 8-byte words in a 64-byte cache line.
const lineWords = 64 / 8

// link makes the first word of every cache line of a the index of the
// first word of the next line in one random cycle through all of them,
// so that a walk p = a[p] from any line visits every line once before it
// comes back.
func link(a []uint64, rng *rand.Rand) {
	lines := len(a) / lineWords
	perm := rng.Perm(lines)
	for i, l := range perm {
		a[l*lineWords] = uint64(perm[(i+1)%lines] * lineWords)
	}
}

// sink keeps the walk from being optimized away.
var sink uint64
