package sim

import (
	"syscall"
	"unsafe"
)

// Linux's numbers for pidfd_open and process_madvise, the same on every
// architecture (both came after the system call tables were unified).
const (
	sysPidfdOpen      = 434
	sysProcessMadvise = 440
)

// maxDropRanges is how many ranges one process_madvise gives back: the
// kernel takes at most UIO_MAXIOV (1,024) at a time.
const maxDropRanges = 1024

// A dropper gives pages of mapMem mappings back to the system in batches.
// Each madvise(MADV_DONTNEED) flushes the TLB, which in a virtual machine
// is a call into the hypervisor and, with another CPU running one of the
// process's threads, an interrupt to that CPU: a quarter of a streamed
// run went there, one call per 4 KiB page. process_madvise (Linux 6.13
// for the calling process itself) gives back up to 1,024 ranges at a time
// with one flush (since Linux 6.16). Pages wait in the batch until it is
// full: at most 4 MiB that a run no longer needs. Where process_madvise
// fails, each range goes by madvise.
type dropper struct {
	iov   []syscall.Iovec
	pidfd int // -1: no process_madvise
}

func newDropper() *dropper {
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(syscall.Getpid()), 0, 0)
	d := &dropper{pidfd: -1, iov: make([]syscall.Iovec, 0, maxDropRanges)}
	if errno == 0 {
		d.pidfd = int(fd)
	}
	return d
}

// drop gives b, whole pages of a mapMem mapping, back: now, or with the
// batch.
func (d *dropper) drop(b []byte) {
	if len(b) == 0 {
		return
	}
	if d.pidfd < 0 {
		dropMem(b)
		return
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if n := len(d.iov); n > 0 {
		last := &d.iov[n-1]
		if uintptr(unsafe.Pointer(last.Base))+uintptr(last.Len) == base {
			last.Len += uint64(len(b))
			return
		}
	}
	if len(d.iov) == maxDropRanges {
		d.flush()
	}
	d.iov = append(d.iov, syscall.Iovec{Base: unsafe.SliceData(b), Len: uint64(len(b))})
}

// flush gives back every range of the batch.
func (d *dropper) flush() {
	if len(d.iov) == 0 {
		return
	}
	total := uint64(0)
	for _, v := range d.iov {
		total += v.Len
	}
	n, _, errno := syscall.Syscall6(sysProcessMadvise, uintptr(d.pidfd), uintptr(unsafe.Pointer(&d.iov[0])), uintptr(len(d.iov)), syscall.MADV_DONTNEED, 0, 0)
	if errno != 0 || uint64(n) != total {
		// Not supported (before Linux 6.13), or stopped part way:
		// giving a page back twice is harmless.
		for _, v := range d.iov {
			dropMem(unsafe.Slice(v.Base, v.Len))
		}
		if errno == syscall.ENOSYS || errno == syscall.EINVAL || errno == syscall.EPERM {
			d.close()
		}
	}
	d.iov = d.iov[:0]
}

// close flushes the batch and releases the pidfd.
func (d *dropper) close() {
	if d.pidfd < 0 {
		return
	}
	fd := d.pidfd
	d.pidfd = -1
	_ = syscall.Close(fd)
	for _, v := range d.iov {
		dropMem(unsafe.Slice(v.Base, v.Len))
	}
	d.iov = d.iov[:0]
}
