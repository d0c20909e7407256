package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gopsim/gopsim/goal"
)

// ErrIncomplete is wrapped by errors about points that have no row.
var ErrIncomplete = errors.New("sweep: points missing")

// MergeOptions configure Merge.
type MergeOptions struct {
	Log  io.Writer // warnings (torn final lines, shards without a meta file); nil: none
	Tool string    // echoed in the meta file
}

// Merge joins the result CSVs of a sweep's shards (or of any runs of
// spec) into out, sorted by point id, with its meta file. Every point of
// spec must appear exactly once across the inputs, with the spec's
// parameters: a missing point (ErrIncomplete), a point given twice
// (ErrDuplicate) or a row that does not match (ErrMismatch) is an error,
// and out is then left as it was. The inputs' meta files, where present,
// must agree with the spec's input (SHA-256) and base parameters. The
// output is byte-identical to a sorted run of the whole sweep.
func Merge(spec *Spec, out string, inputs []string, opt MergeOptions) error {
	logw := opt.Log
	if logw == nil {
		logw = io.Discard
	}
	if len(inputs) == 0 {
		return errors.New("sweep: merge: no result files to merge")
	}
	lock, err := lockOutput(out)
	if err != nil {
		return err
	}
	defer lock.Release()
	sha, info, err := hashInput(spec.InputPath())
	if err != nil {
		return err
	}
	var rows []record
	for _, in := range inputs {
		m, err := readMeta(MetaPath(in))
		if err != nil {
			return err
		}
		if m == nil {
			fmt.Fprintf(logw, "sweep: warning: %s has no %s: cannot check its input and base parameters\n", in, MetaPath(in))
		} else {
			if m.InputSHA256 != sha {
				return fmt.Errorf("%s: %w: made from input %s (sha256 %.12s), the spec's input %s has sha256 %.12s", MetaPath(in), ErrMismatch, m.Input, m.InputSHA256, spec.InputPath(), sha)
			}
			if !paramsEqual(m.Params, spec.Params) {
				return fmt.Errorf("%s: %w: made with base parameters %v, the spec gives %v", MetaPath(in), ErrMismatch, m.Params, spec.Params)
			}
			if info == nil {
				info = &scheduleInfo{path: spec.InputPath(), sha256: sha, numRanks: m.NumRanks, numOps: m.NumOps}
				if m.InputFormat == "binary" {
					info.format = goal.FormatBinary
				}
			}
		}
		rf, err := readResults(in, spec)
		if err != nil {
			return err
		}
		if len(rf.torn) > 0 {
			fmt.Fprintf(logw, "sweep: warning: %s:%d: ignoring a torn final line (a write was cut short)\n", in, len(rf.rows)+2)
		}
		rows = append(rows, rf.rows...)
	}
	slices.SortStableFunc(rows, func(a, b record) int { return a.id - b.id })
	var errs []error
	var dups []string
	for i := 1; i < len(rows); i++ {
		if rows[i].id == rows[i-1].id {
			dups = append(dups, fmt.Sprintf("point %d at %s and %s", rows[i].id, rows[i-1].where(), rows[i].where()))
		}
	}
	if len(dups) > 0 {
		errs = append(errs, fmt.Errorf("%w: %d rows: %s", ErrDuplicate, len(dups), limitList(dups, 10)))
	}
	var missing []string
	nmissing := 0
	for id, k := 0, 0; id < spec.NumPoints(); id++ {
		for k < len(rows) && rows[k].id < id {
			k++
		}
		if k == len(rows) || rows[k].id != id {
			nmissing++
			if len(missing) < 20 {
				missing = append(missing, strconv.Itoa(id))
			}
		}
	}
	if nmissing > 0 {
		list := strings.Join(missing, ", ")
		if nmissing > len(missing) {
			list += ", ..."
		}
		errs = append(errs, fmt.Errorf("%w: %d of %d points have no row: %s", ErrIncomplete, nmissing, spec.NumPoints(), list))
	}
	if len(errs) > 0 {
		return fmt.Errorf("sweep: merge into %s: %w", out, errors.Join(errs...))
	}
	if info == nil {
		_, in, err := readSchedule(spec.InputPath(), goal.Limits{})
		if err != nil {
			return err
		}
		info = &in
	}
	meta := newMeta(spec, *info, Shard{}, opt.Tool)
	meta.MergedFrom = inputs
	if err := writeRows(out, rows); err != nil {
		return err
	}
	return meta.write(MetaPath(out))
}

func limitList(items []string, n int) string {
	if len(items) > n {
		return strings.Join(items[:n], "; ") + "; ..."
	}
	return strings.Join(items, "; ")
}

// hashInput is the SHA-256 of the schedule at path. A regular file is
// hashed alone (Merge reads it again only if no input has a meta file);
// anything else, a FIFO, which gives its bytes once, is read as a
// schedule in the same pass, and its info is returned too.
func hashInput(path string) (string, *scheduleInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", nil, err
	}
	if fi.Mode().IsRegular() {
		sha, err := hashFile(path)
		return sha, nil, err
	}
	_, in, err := readSchedule(path, goal.Limits{})
	if err != nil {
		return "", nil, err
	}
	return in.sha256, &in, nil
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
