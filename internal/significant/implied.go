package significant

// The ends the HTML parser implies before a start tag (a p closed by a
// block, an li by the next li, cells and rows): the few that matter to
// grouping text into blocks.

// impliesEnds are the tag ids whose start tag may end elements besides
// an open p (implied's cases): most tags skip the call.
var impliesEnds = func() (t [256]bool) {
	for _, id := range []uint8{tLi, tDt, tDd, tTr, tTd, tTh, tOption, tA, tH} {
		t[id] = true
	}
	return t
}()

// implied ends elements the HTML parser ends before this one starts.
func (r *reader) implied(t tagInfo) {
	switch {
	case t.id == tLi:
		r.closeUntil(func(f *frame) int {
			if f.id == tLi {
				return 1
			}
			if f.kind&kBlock != 0 && f.id != tP && !isDivLike(f) {
				return -1
			}
			return 0
		})
	case t.id == tDt || t.id == tDd:
		r.closeUntil(func(f *frame) int {
			if f.id == tDt || f.id == tDd {
				return 1
			}
			if f.kind&kBlock != 0 && f.id != tP && !isDivLike(f) {
				return -1
			}
			return 0
		})
	case t.id == tTr:
		r.closeUntil(func(f *frame) int {
			if f.id == tTr {
				return 1
			}
			if f.id == tTable {
				return -1
			}
			return 0
		})
	case t.id == tTd || t.id == tTh:
		r.closeUntil(func(f *frame) int {
			if f.id == tTd || f.id == tTh {
				return 1
			}
			if f.id == tTr || f.id == tTable {
				return -1
			}
			return 0
		})
	case t.id == tOption:
		if n := len(r.stack); n > 0 && r.stack[n-1].id == tOption {
			r.pop()
		}
	case t.id == tA:
		if k := r.link; k >= 0 {
			for len(r.stack) > k {
				r.pop()
			}
		}
	case t.id == tH:
		if n := len(r.stack); n > 0 && r.stack[n-1].id == tH {
			r.pop()
		}
	}
	// No p open (the usual case: the last one ended with its </p>): none
	// to close, and the stack need not be walked.
	if r.openP > 0 && closesP(t) {
		r.closeUntil(func(f *frame) int {
			switch f.id {
			case tP:
				return 1
			case tHTML, tTable, tTd, tTh, tTemplate, tButton:
				return -1
			}
			if f.name == captionHash {
				return -1
			}
			return 0
		})
	}
}

var captionHash = nameHash([]byte("caption"))

func isDivLike(f *frame) bool {
	return f.name == divHash || f.name == addressHash
}

var divHash, addressHash = nameHash([]byte("div")), nameHash([]byte("address"))

// closeUntil walks the stack down: at a frame where stop says 1 it pops to
// and with it, at -1 it gives up.
func (r *reader) closeUntil(stop func(*frame) int) {
	for k := len(r.stack) - 1; k >= 0; k-- {
		switch stop(&r.stack[k]) {
		case 1:
			for len(r.stack) > k {
				r.pop()
			}
			return
		case -1:
			return
		}
	}
}
