package lockfile

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ErrHeld is wrapped by the error of Acquire when another process holds
// the lock (see HeldError).
var ErrHeld = errors.New("lockfile: held by another process")

// HeldError says who holds a lock.
type HeldError struct {
	Path    string
	PID     int    // 0 when the holder has not written it yet
	Command string // the holder's command line, "" when unknown
}

func (e *HeldError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = "pid " + strconv.Itoa(e.PID)
		if e.Command != "" {
			who += " (" + e.Command + ")"
		}
	}
	return fmt.Sprintf("%s: held by %s, which is writing the same output: wait for it to finish, or write elsewhere", e.Path, who)
}

func (e *HeldError) Unwrap() error { return ErrHeld }

// Lock is a held lock.
type Lock struct {
	f    *os.File
	path string
}

// Acquire takes the lock at path, creating the file, without waiting: if
// another process holds it the error is a *HeldError naming it.
func Acquire(path string) (*Lock, error) {
	for try := 0; ; try++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o666)
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if held {
			b := make([]byte, 4096)
			n, _ := f.ReadAt(b, 0)
			f.Close()
			return nil, parseHolder(path, string(b[:n]))
		}
		// The holder before us may have removed the file between our
		// open and our lock: then we locked a name that is gone.
		fi, err1 := f.Stat()
		pi, err2 := os.Stat(path)
		if err1 != nil || err2 != nil || !os.SameFile(fi, pi) {
			f.Close()
			if try < 100 {
				continue
			}
			return nil, fmt.Errorf("lock %s: the file keeps being replaced", path)
		}
		if err := writeHolder(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		return &Lock{f: f, path: path}, nil
	}
}

// writeHolder records this process in the lock file.
func writeHolder(f *os.File) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	cmd := strings.Join(os.Args, " ")
	cmd = strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, cmd)
	if len(cmd) > 200 {
		cmd = cmd[:200] + "…"
	}
	_, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"+cmd+"\n"), 0)
	return err
}

// parseHolder reads "PID\nCOMMAND\n".
func parseHolder(path, s string) *HeldError {
	e := &HeldError{Path: path}
	pid, cmd, _ := strings.Cut(s, "\n")
	if n, err := strconv.Atoi(pid); err == nil && n > 0 {
		e.PID = n
		e.Command = strings.TrimSpace(cmd)
	}
	return e
}

// Release removes the lock file and lets the lock go.
func (l *Lock) Release() error {
	err := os.Remove(l.path)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	return err
}
