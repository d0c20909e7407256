package sim

import (
	"fmt"
	"os"
	"syscall"
)

// mapFile maps the n bytes of f read-only and shared: the mapping shows
// what is written to the file, and pages given back with dropFile read
// from it again when next touched.
func mapFile(f *os.File, n int) ([]byte, error) {
	if n == 0 {
		return nil, nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("sim: mapping the %d-byte record file: %w", n, err)
	}
	noHugePages(b)
	return b, nil
}

// unmapFile releases a mapping of mapFile.
func unmapFile(b []byte) {
	if len(b) > 0 {
		_ = syscall.Munmap(b)
	}
}

// dropFile gives the pages of b, whole pages of a mapFile mapping, back
// to the system; their contents stay in the file.
func dropFile(b []byte) {
	if len(b) > 0 {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}

// fileMapped says that a record file is read through a mapping of the
// file (mapFile), which shows what was written to the file.
const fileMapped = true
