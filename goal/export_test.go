package goal

import "io"

// SetTextPieceSize sets the length ReadTextBlocks cuts text at, and
// returns a function that restores it.
func SetTextPieceSize(n int64) (restore func()) {
	old := textPieceSize
	textPieceSize = n
	return func() { textPieceSize = old }
}

// TextPieces is the number of pieces ReadTextBlocks parses the text in
// without reading it again on one goroutine: 0 when it falls back to that.
func TextPieces(r io.ReaderAt, size int64, name string) int {
	return len(cutText(r, size, name, Limits{}))
}

// TextStreamHanded is how many blocks s handed out from pieces parsed in
// parallel, not from a sequential reading.
func TextStreamHanded(s *TextStream) int { return s.handed }

// SetTextFastPath turns the text reader's fast path on or off, and returns
// a function that restores it.
func SetTextFastPath(on bool) (restore func()) {
	old := textFastPath
	textFastPath = on
	return func() { textFastPath = old }
}
