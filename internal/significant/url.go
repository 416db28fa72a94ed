package significant

import "bytes"

// urlBase resolves the URLs a page names against the page's own, so that
// the same link is the same block on every page: Sphinx and MkDocs write
// "../index.html" on one page and "index.html" on another for the same
// target. Same-origin URLs become paths. Only what comparison needs is
// done (RFC 3986's merge and dot segments); no escaping is changed.
type urlBase struct {
	origin []byte // "https://example.com", or nil
	path   []byte // "/docs/a.html", always starting with '/'
	buf    []byte
}

func (u *urlBase) set(pageURL string) {
	u.buf = append(u.buf[:0], pageURL...)
	u.origin, u.path = nil, nil
	b := u.buf
	if i := bytes.Index(b, []byte("://")); i > 0 && hasScheme(b) {
		j := bytes.IndexByte(b[i+3:], '/')
		if j < 0 {
			u.origin, b = b, nil
		} else {
			u.origin, b = b[:i+3+j], b[i+3+j:]
		}
	}
	if k := bytes.IndexAny(b, "?#"); k >= 0 {
		b = b[:k]
	}
	if len(b) == 0 || b[0] != '/' {
		u.path = append([]byte{'/'}, b...)
	} else {
		u.path = b
	}
}

// setBase applies a <base href>.
func (u *urlBase) setBase(href []byte, tmp *[]byte) {
	*tmp = u.resolve((*tmp)[:0], href)
	b := *tmp
	if hasScheme(b) {
		u.set(string(b))
		return
	}
	if k := bytes.IndexAny(b, "?#"); k >= 0 {
		b = b[:k]
	}
	u.path = append([]byte(nil), b...)
}

// hasScheme reports whether b starts with a URL scheme and ':'.
func hasScheme(b []byte) bool {
	for i, c := range b {
		switch {
		case isLetter(c):
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case c == ':':
			return i > 0
		default:
			return false
		}
	}
	return false
}

// resolve appends ref resolved against the page. An empty fragment or
// query ("page.html#") is dropped: Sphinx links the current page as "#".
func (u *urlBase) resolve(dst, ref []byte) []byte {
	ref = trimSpace(ref)
	for len(ref) > 0 && (ref[len(ref)-1] == '#' || ref[len(ref)-1] == '?') {
		ref = ref[:len(ref)-1]
	}
	switch {
	case len(ref) == 0:
		return append(dst, u.path...)
	case ref[0] == '#' || ref[0] == '?':
		return append(append(dst, u.path...), ref...)
	case hasScheme(ref):
		if rest, ok := u.sameOrigin(ref); ok {
			ref = rest
			break
		}
		return append(dst, ref...)
	case len(ref) > 1 && ref[0] == '/' && ref[1] == '/':
		if u.origin != nil {
			if k := bytes.Index(u.origin, []byte("://")); k >= 0 {
				if rest, ok := cutHost(ref[1:], u.origin[k+2:]); ok {
					ref = rest
					break
				}
			}
		}
		return append(dst, ref...)
	}
	if len(ref) == 0 || ref[0] != '/' {
		// Relative: merged with the page's directory.
		dir := u.path[:bytes.LastIndexByte(u.path, '/')+1]
		start := len(dst)
		dst = append(append(dst, dir...), ref...)
		merged := dst[start:]
		// Clean after what is appended: the merged path is copied once.
		tail := len(dst)
		dst = appendClean(dst, merged)
		return append(dst[:start], dst[tail:]...)
	}
	return appendClean(dst, ref)
}

// sameOrigin cuts the page's origin from an absolute URL.
func (u *urlBase) sameOrigin(ref []byte) ([]byte, bool) {
	if u.origin == nil || len(ref) < len(u.origin) || !bytes.EqualFold(ref[:len(u.origin)], u.origin) {
		return nil, false
	}
	rest := ref[len(u.origin):]
	if len(rest) == 0 {
		return []byte("/"), true
	}
	if rest[0] != '/' && rest[0] != '?' && rest[0] != '#' {
		return nil, false
	}
	return rest, true
}

// cutHost: ref is "/host/…", host "/host".
func cutHost(ref, host []byte) ([]byte, bool) {
	if len(ref) < len(host) || !bytes.EqualFold(ref[:len(host)], host) {
		return nil, false
	}
	rest := ref[len(host):]
	if len(rest) == 0 {
		return []byte("/"), true
	}
	return rest, rest[0] == '/'
}

// appendClean appends p (starting with '/') with its dot segments removed;
// its query and fragment as they are.
func appendClean(dst, p []byte) []byte {
	var rest []byte
	if k := bytes.IndexAny(p, "?#"); k >= 0 {
		p, rest = p[:k], p[k:]
	}
	start := len(dst)
	dst = append(dst, '/')
	i := 1
	for i <= len(p) {
		j := bytes.IndexByte(p[i:], '/')
		last := j < 0
		if last {
			j = len(p) - i
		}
		seg := p[i : i+j]
		switch string(seg) {
		case ".":
		case "..":
			if len(dst)-start > 1 {
				k := bytes.LastIndexByte(dst[start:len(dst)-1], '/')
				dst = dst[:start+k+1]
			}
		default:
			dst = append(dst, seg...)
			if !last {
				dst = append(dst, '/')
			}
		}
		i += j + 1
	}
	return append(dst, rest...)
}
