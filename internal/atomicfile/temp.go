package atomicfile

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// tempPrefix is how the temporary files of the output base begin.
func tempPrefix(base string) string { return "." + base + ".tmp." }

// hostname is this host's name as temporary file names carry it.
var hostname = sync.OnceValue(func() string {
	h, _ := os.Hostname()
	return strings.ReplaceAll(h, "/", "_")
})

// createTemp creates ".BASE.tmp.PID.RANDOM@HOST" in dir with the
// permissions of os.Create (0666 less the umask), not os.CreateTemp's
// 0600, so that the file renamed over the output is not private.
func createTemp(dir, base string) (*os.File, error) {
	prefix := filepath.Join(dir, tempPrefix(base)+strconv.Itoa(os.Getpid())+".")
	for try := 0; ; try++ {
		name := prefix + strconv.FormatUint(rand.Uint64(), 36) + "@" + hostname()
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}

// parseTemp returns the process id and host in the name of a temporary
// file of base; ok is false for any other name.
func parseTemp(name, base string) (pid int, host string, ok bool) {
	rest, ok := strings.CutPrefix(name, tempPrefix(base))
	if !ok {
		return 0, "", false
	}
	p, rest, ok1 := strings.Cut(rest, ".")
	_, host, ok2 := strings.Cut(rest, "@")
	pid, err := strconv.Atoi(p)
	if !ok1 || !ok2 || err != nil || pid <= 0 {
		return 0, "", false
	}
	return pid, host, true
}

// removeStale removes the temporary files of base in dir left by
// processes of this host that are gone (killed before they could clean
// up). Errors are ignored: a file that stays is only clutter.
func removeStale(dir, base string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, host, ok := parseTemp(e.Name(), base)
		if ok && host == hostname() && pid != os.Getpid() && !alive(pid) {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// live holds the temporary files of the Writes in progress.
var live struct {
	sync.Mutex
	names map[string]bool
}

func track(name string) {
	live.Lock()
	if live.names == nil {
		live.names = map[string]bool{}
	}
	live.names[name] = true
	live.Unlock()
}

func untrack(name string) {
	live.Lock()
	delete(live.names, name)
	live.Unlock()
}

// RemoveTemporaries removes the temporary files of the Writes in progress
// and returns how many it removed; those Writes then fail. A command calls
// it when a signal ends it, just before exiting.
func RemoveTemporaries() int {
	live.Lock()
	defer live.Unlock()
	n := 0
	for name := range live.names {
		if os.Remove(name) == nil {
			n++
		}
		delete(live.names, name)
	}
	return n
}
