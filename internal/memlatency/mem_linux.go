package main

import "syscall"

// mapBytes maps n fresh bytes, advised for huge pages or against them.
func mapBytes(n int, huge bool) ([]byte, error) {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	advice := 15 // MADV_NOHUGEPAGE
	if huge {
		advice = 14 // MADV_HUGEPAGE
	}
	if err := syscall.Madvise(b, advice); err != nil {
		syscall.Munmap(b)
		return nil, err
	}
	return b, nil
}

func unmapBytes(b []byte) { syscall.Munmap(b) }
