//go:build !linux

package sim

import "os"

// Without mmap, the record of a streamed run is kept in ordinary memory:
// results are the same, memory is not bounded.
func mapFile(f *os.File, n int) ([]byte, error) { return make([]byte, n), nil }

func unmapFile(b []byte) {}

func dropFile(b []byte) {}

// fileMapped is false: a record file's mapping is ordinary memory, where
// the record stays (recFile.writeRecs).
const fileMapped = false
