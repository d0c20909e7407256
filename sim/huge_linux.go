package sim

import (
	"syscall"
	"unsafe"
)

// hugePages asks Linux to back the 2 MiB-aligned part of s with huge pages
// (madvise MADV_HUGEPAGE), which transparent huge pages in their default
// "madvise" mode do only on request. It must come before s is first
// written: the pages are allocated then. The engine's op records are
// visited in no order that 4 KiB pages suit, and a program of 10 million
// ops spans 300 MiB, far beyond what the TLB maps; with huge pages a
// 131,072-rank allreduce runs 1.2x faster. Failure changes nothing but
// speed, so it is ignored.
func hugePages[T any](s []T) {
	const huge = 2 << 20
	if len(s) == 0 {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	start := uintptr(p)
	end := start + uintptr(len(s))*unsafe.Sizeof(s[0])
	lo, hi := (start+huge-1)&^(huge-1), end&^(huge-1)
	if hi <= lo {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, lo-start)), hi-lo)
	_ = syscall.Madvise(b, 14) // MADV_HUGEPAGE
}
