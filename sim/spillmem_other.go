//go:build !linux

package sim

// Without mmap, a streamed Program keeps its records in ordinary memory,
// which dropMem cannot give back: results are the same, memory is not
// bounded.
func mapMem(n int) ([]byte, error) { return make([]byte, n), nil }

func unmapMem(b []byte) {}

func dropMem(b []byte) { clear(b) }
