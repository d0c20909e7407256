package sim

import "syscall"

const mapNoReserve = syscall.MAP_NORESERVE

// noHugePages keeps transparent huge pages out of b, so that dropping a
// 4 KiB page of it gives 4 KiB back instead of splitting a huge page.
func noHugePages(b []byte) { _ = syscall.Madvise(b, syscall.MADV_NOHUGEPAGE) }
