package sitemap

import (
	"strconv"

	"github.com/cespare/xxhash/v2"
)

// Chunk is one part of a group's sitemap, cut by Chunks.
type Chunk struct {
	// Key names the chunk, stably: the hash of its last URL, as 12 hex
	// digits, or "" for the last chunk of the URLs (the one no cut ends),
	// so that URLs that make one chunk only keep the name they would have
	// had unchunked.
	Key  string
	URLs []URL // a subslice of the URLs given
	// Sized is set when the chunk ends only because the URL after it would
	// have broken the limits: then where it ends depends on that URL too,
	// not on its own URLs alone.
	Sized bool
}

// Chunks cuts URLs, sorted by Loc, into parts whose boundaries depend on
// the URLs next to them only, not on how many come before: a chunk ends
// after a URL whose Loc hashes to a multiple of target (a cut), provided
// it holds at least target/4 URLs by then; or, failing a cut, when it
// reaches 8 times target URLs or could reach the protocol's limits with
// the next URL. So adding or removing a URL changes the chunk it falls in
// (and, for a cut URL, the next one too): one change rewrites one small
// file, which is all a crawler then fetches again, instead of its group's
// whole sitemap. target <= 0 is one chunk as long as the limits allow.
func Chunks(urls []URL, target int) []Chunk {
	var out []Chunk
	maxN := MaxItems
	if target > 0 {
		maxN = min(MaxItems, 8*target)
	}
	start, size := 0, 0
	for i := range urls {
		u := &urls[i]
		n := i - start + 1
		size += maxEncodedLen(u)
		cut := target > 0 && n >= max(target/4, 1) && xxhash.Sum64String(u.Loc)%uint64(target) == 0
		sized := i+1 < len(urls) && size+maxEncodedLen(&urls[i+1]) > MaxBytes-maxDocOverhead
		if cut || n == maxN || sized {
			out = append(out, Chunk{Key: chunkKey(u.Loc), URLs: urls[start : i+1], Sized: sized && !cut && n != maxN})
			start, size = i+1, 0
		}
	}
	if start < len(urls) {
		out = append(out, Chunk{URLs: urls[start:]})
	}
	return out
}

// chunkKey is the key of a chunk that ends with loc.
func chunkKey(loc string) string {
	k := strconv.FormatUint(xxhash.Sum64String(loc)>>16, 16) // 48 bits
	for len(k) < 12 {
		k = "0" + k
	}
	return k
}

// maxDocOverhead bounds a document's header, namespaces and close.
const maxDocOverhead = 1024

// approxLen is about the bytes AppendURL writes for u, to size the
// encoder's buffer: its URL, alternates and images, escaped as they
// mostly are (not at all), plus their markup.
func approxLen(u *URL) int {
	n := len(u.Loc) + 96
	for _, a := range u.Alternates {
		n += 56 + len(a.Lang) + len(a.Href)
	}
	for _, img := range u.Images {
		n += 48 + len(img)
	}
	return n
}

// maxEncodedLen bounds the bytes AppendURL writes for u: XML escaping at
// most sextuples a byte (`"` is `&quot;`), and the markup around each
// value is under 100 bytes.
func maxEncodedLen(u *URL) int {
	n := 200 + 6*(len(u.Loc)+len(u.ChangeFreq)+len(u.Priority))
	for _, a := range u.Alternates {
		n += 100 + 6*(len(a.Lang)+len(a.Href))
	}
	for _, img := range u.Images {
		n += 100 + 6*len(img)
	}
	return n
}
