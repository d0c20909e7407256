package sim

import "testing"

// TestRecPool: pages get blocks when first asked for, keep them until
// given back, and blocks given back are handed out again before new ones,
// so that the pool's memory is its largest number of pages at once.
func TestRecPool(t *testing.T) {
	q, err := newRecPool(10 * recPageOps)
	if err != nil {
		t.Fatal(err)
	}
	defer q.close()
	type step struct {
		give      bool
		page      int32
		wantBlock uint32 // the page's block after the step (0: none)
	}
	for _, s := range []step{
		{page: 3, wantBlock: 1},
		{page: 7, wantBlock: 2},
		{page: 3, wantBlock: 1}, // already has one
		{give: true, page: 3},
		{page: 9, wantBlock: 1}, // reuses page 3's
		{page: 0, wantBlock: 3},
		{give: true, page: 7},
		{give: true, page: 9},
		{page: 5, wantBlock: 1}, // the last given back first
		{page: 6, wantBlock: 2},
	} {
		if s.give {
			q.give(s.page)
		} else {
			recs := q.page(s.page)
			if len(recs) != recPageOps {
				t.Fatalf("page %d: %d records, want %d", s.page, len(recs), recPageOps)
			}
			recs[5].tag = uint32(s.page) // the block is the page's own
			if q.block(q.slot[s.page].blk)[5].tag != uint32(s.page) {
				t.Errorf("page %d: its records are not in block %d", s.page, q.slot[s.page].blk)
			}
		}
		if got := q.slot[s.page].blk; got != s.wantBlock {
			t.Errorf("after %+v: page %d has block %d", s, s.page, got)
		}
	}
	if q.peak != 3 || q.used != 3 || q.bytes() != 3*int64(recBlockSize) {
		t.Errorf("peak %d, used %d, %d bytes; want 3, 3, %d", q.peak, q.used, q.bytes(), 3*recBlockSize)
	}
	q.reset()
	if q.used != 0 || q.slot[5].blk != 0 || q.page(2) == nil || q.slot[2].blk != 1 {
		t.Errorf("after reset: used %d, slot[5] %d, slot[2] %d", q.used, q.slot[5].blk, q.slot[2].blk)
	}
}
