//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// alive reports whether process pid exists on this host (signal 0 checks
// without sending anything; EPERM means it exists under another user).
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
