package topology

import (
	"errors"
	"fmt"
)

// ErrTopology is the sentinel that invalid topology parameters unwrap to.
var ErrTopology = errors.New("topology: invalid topology")

// SyntaxError is an error in a dot file, a mapping file or a spec string,
// positioned at FILE:LINE:COL (1-based line and byte column; a spec string
// is line 1 of a file named after its flag).
type SyntaxError struct {
	File string
	Line int
	Col  int
	Msg  string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Col, e.Msg)
}

// Unwrap lets errors.Is(err, ErrSyntax) identify malformed input.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// ErrSyntax is the sentinel every SyntaxError unwraps to.
var ErrSyntax = errors.New("topology: malformed input")

func errTopo(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrTopology}, args...)...)
}
