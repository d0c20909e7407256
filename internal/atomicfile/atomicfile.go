package atomicfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrTarget is wrapped by the error about a path that names something
// Write neither replaces nor writes through: a directory, a block device,
// a socket, a dangling symbolic link.
var ErrTarget = errors.New("atomicfile: not a regular file, a character device or a FIFO")

// Write creates or replaces path with the bytes that write produces (see
// the package documentation for what it does with links, devices and
// FIFOs). On an error a replaced file is left as it was.
func Write(path string, write func(io.Writer) error) error {
	target, through, err := resolve(path)
	if err != nil {
		return err
	}
	if through {
		return writeThrough(target, write)
	}
	return replace(target, write)
}

// resolve returns the file Write acts on and whether it is written
// through rather than replaced.
func resolve(path string) (target string, through bool, err error) {
	li, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return path, false, nil
	}
	if err != nil {
		return "", false, err
	}
	if li.Mode().IsRegular() {
		return path, false, nil
	}
	fi := li
	if li.Mode()&fs.ModeSymlink != 0 {
		if fi, err = os.Stat(path); err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return "", false, fmt.Errorf("%s: a symbolic link to a file that does not exist: %w", path, ErrTarget)
			}
			return "", false, err
		}
		if fi.Mode().IsRegular() {
			real, err := filepath.EvalSymlinks(path)
			if err != nil {
				// A link through /proc/self/fd (/dev/stdout
				// redirected to a file): write through it.
				return path, true, nil
			}
			return real, false, nil
		}
	}
	m := fi.Mode()
	switch {
	case m&fs.ModeNamedPipe != 0, m&fs.ModeCharDevice != 0:
		return path, true, nil
	case m.IsDir():
		return "", false, fmt.Errorf("%s is a directory: %w", path, ErrTarget)
	case m&fs.ModeDevice != 0:
		return "", false, fmt.Errorf("%s is a block device: %w", path, ErrTarget)
	case m&fs.ModeSocket != 0:
		return "", false, fmt.Errorf("%s is a socket: %w", path, ErrTarget)
	}
	return "", false, fmt.Errorf("%s (%v): %w", path, m.Type(), ErrTarget)
}

// writeThrough writes to a device or FIFO that exists.
func writeThrough(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	err = write(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// replace writes a temporary file beside path and renames it over path.
func replace(path string, write func(io.Writer) error) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	removeStale(dir, base)
	tmp, err := createTemp(dir, base)
	if err != nil {
		return err
	}
	name := tmp.Name()
	track(name)
	defer func() {
		untrack(name)
		if err != nil {
			tmp.Close()
			os.Remove(name)
		}
	}()
	if st, serr := os.Stat(path); serr == nil {
		if err = tmp.Chmod(st.Mode().Perm()); err != nil {
			return err
		}
	}
	bw := bufio.NewWriterSize(tmp, 1<<16)
	if err = write(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if err = os.Rename(name, path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir fsyncs a directory, so that a new name in it survives a crash;
// where directories cannot be synced it does nothing.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
