package trace

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// diskFS turns a path given on the command line into what the importers'
// Open*FS functions take: a file system rooted at the path's directory and
// the name within it ("" when path is the directory itself).
func diskFS(path string) (fsys fs.FS, dir, name string, err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, "", "", fmt.Errorf("trace: %w", err)
	}
	dir = path
	if !fi.IsDir() {
		dir, name = filepath.Dir(path), filepath.Base(path)
	}
	return os.DirFS(dir), dir, name, nil
}

// diskPaths sets files[r] to the path under dir of the name an importer
// found for rank r in a file system from diskFS.
func diskPaths(files []string, dir string, names []string) {
	for r := range files {
		files[r] = filepath.Join(dir, filepath.FromSlash(names[r]))
	}
}
