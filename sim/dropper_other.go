//go:build !linux

package sim

// A dropper gives pages back at once where there is no process_madvise.
type dropper struct{}

func newDropper() *dropper { return &dropper{} }

func (d *dropper) drop(b []byte) { dropMem(b) }

func (d *dropper) flush() {}

func (d *dropper) close() {}
