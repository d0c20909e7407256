package sim

import (
	"fmt"
	"syscall"
)

// mapMem returns n bytes of zeroed memory outside the Go heap that costs
// nothing until touched (an anonymous private mapping, not reserved
// against swap), for the op records of a streamed Program. Transparent
// huge pages are refused: dropMem gives memory back a page at a time.
func mapMem(n int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|mapNoReserve)
	if err != nil {
		return nil, fmt.Errorf("sim: mapping %d bytes for a streamed run: %w", n, err)
	}
	noHugePages(b)
	return b, nil
}

// unmapMem releases a mapping of mapMem.
func unmapMem(b []byte) {
	if len(b) > 0 {
		_ = syscall.Munmap(b)
	}
}

// dropMem gives the pages of b, whole pages of a mapMem mapping, back to
// the system; they read as zeros, or as their old contents, afterwards.
func dropMem(b []byte) {
	_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
}
