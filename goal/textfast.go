package goal

import "math"

// The fast path of the text reader. Almost every line of a large schedule,
// as gopsim, Schedgen and LogGOPSim's tools write them, is one of
//
//	lN: send SIZEb to PEER tag TAG
//	lN: recv SIZEb from PEER tag TAG
//	lN: calc TIME
//	lN requires lM
//	lN irequires lM
//
// with canonical labels (lN names op N-1 of the block), single blanks and
// nothing after the last field. fastStmt reads such a line in one pass over
// its bytes. Anything else (other blanks, a comment, "cpu" or "nic", a
// wildcard, a label that is not its op's canonical one, a number too large
// for its field, a peer outside num_ranks, an op beyond the limits, the
// ops' count at its bound) it leaves to the general path, having changed
// nothing, so that every line is accepted or refused, with the same
// message, as the general path alone would.

// textFastPath turns the fast path on; tests compare it with the general
// path alone.
var textFastPath = true

// fastStmt reads the statement at t.pos, which starts with 'l', if it is
// one of the fast path's; it reports whether it did.
func (t *TextReader) fastStmt(b *RankBlock) bool {
	l := t.line[t.pos:]
	lab, i := fastLabel(l)
	if i < 0 || i == len(l) {
		return false
	}
	if l[i] == ':' {
		return t.fastOp(b, l, lab, i+1)
	}
	return t.fastEdge(l, lab, i, int32(len(b.Ops)))
}

// fastLabel reads a canonical label at the start of l: it returns its op
// index and the offset after it, or -1 as the offset.
func fastLabel(l []byte) (int64, int) {
	i := 1
	for i < len(l) && isDigit(l[i]) {
		i++
	}
	if i < len(l) && (isLetter(l[i]) || l[i] == '_') {
		return 0, -1 // a longer identifier
	}
	v := canonicalIndex(l[:i])
	if v < 0 {
		return 0, -1
	}
	return v, i
}

// fastUint reads 1 to maxDigits decimal digits at l[i:]; it returns their
// value and the offset after them, or -1 as the offset if there are none
// or more.
func fastUint(l []byte, i, maxDigits int) (uint64, int) {
	var v uint64
	j := i
	for ; j < len(l) && isDigit(l[j]); j++ {
		v = v*10 + uint64(l[j]-'0')
	}
	if j == i || j-i > maxDigits {
		return 0, -1
	}
	return v, j
}

// fastWord reports whether l continues at i with w, and the offset after.
func fastWord(l []byte, i int, w string) (int, bool) {
	if !hasPrefix(l[i:], w) {
		return i, false
	}
	return i + len(w), true
}

// fastOp reads "lN: KIND ..." after the colon at i; lab is N-1.
func (t *TextReader) fastOp(b *RankBlock, l []byte, lab int64, i int) bool {
	idx := len(b.Ops)
	// Only a label naming its own op, with no other label in the block
	// that could be the same name, is certain not to be defined twice.
	if lab != int64(idx) || len(t.labels) > 0 || idx >= math.MaxInt32-1 {
		return false
	}
	if i >= len(l) || l[i] != ' ' {
		return false
	}
	i++
	kcol := t.pos + i + 1 // the keyword's column
	var op Op
	var vcol int
	switch {
	case i+5 <= len(l) && l[i+4] == ' ' && string(l[i:i+4]) == "calc":
		v, j := fastUint(l, i+5, 18)
		if j != len(l) || v > t.maxCalc {
			return false
		}
		op = Op{Kind: Calc, Size: v}
		vcol = kcol
	case i+5 <= len(l) && l[i+4] == ' ' && (string(l[i:i+4]) == "send" || string(l[i:i+4]) == "recv"):
		op.Kind, op.Size = Send, 0
		dir := "b to "
		if l[i] == 'r' {
			op.Kind, dir = Recv, "b from "
		}
		v, j := fastUint(l, i+5, 18)
		if j < 0 || v > t.maxMsg {
			return false
		}
		op.Size = v
		var ok bool
		if j, ok = fastWord(l, j, dir); !ok {
			return false
		}
		vcol = t.pos + j + 1
		p, j := fastUint(l, j, 10)
		if j < 0 || p > MaxRanks || (t.numRanks >= 0 && p >= uint64(t.numRanks)) {
			return false
		}
		op.Peer = int32(p)
		if j < len(l) {
			if j, ok = fastWord(l, j, " tag "); !ok {
				return false
			}
			tag, k := fastUint(l, j, 10)
			if k != len(l) || tag > MaxTag {
				return false
			}
			op.Tag = uint32(tag)
		}
	default:
		return false
	}
	b.Ops = append(b.Ops, op)
	t.opLine = append(t.opLine, int32(t.num))
	t.opCol = append(t.opCol, int32(vcol))
	t.exc = append(t.exc, false)
	t.pos = len(t.line)
	return true
}

// fastEdge reads "lN requires lM" or "lN irequires lM" from i, after the
// first label; succ is N-1 and n the block's ops so far.
func (t *TextReader) fastEdge(l []byte, succ int64, i int, n int32) bool {
	j, ok := fastWord(l, i, " requires ")
	start := false
	if !ok {
		if j, ok = fastWord(l, i, " irequires "); !ok {
			return false
		}
		start = true
	}
	pred, k := fastLabel(l[j:])
	if k != len(l)-j || !t.defined(succ, n) || !t.defined(pred, n) {
		return false
	}
	t.edges = append(t.edges, pendingEdge{pred: int32(pred), succ: int32(succ), start: start, line: int32(t.num), col: int32(t.pos + 1)})
	t.pos = len(t.line)
	return true
}

// defined reports whether op i of a block of n ops so far holds its
// canonical label, as lookup finds it first.
func (t *TextReader) defined(i int64, n int32) bool {
	return i >= 0 && i < int64(n) && !t.exc[i]
}
