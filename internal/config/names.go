package config

import (
	"path"
	"strconv"
	"strings"
)

// PartName is the file name of part n (1-based) of a sitemap or index
// called name: part 1 is name itself, part n is "stem-n.xml". Names are
// stable, so a group that grows a part keeps the names of the parts it had.
func PartName(name string, n int) string {
	if n <= 1 {
		return name
	}
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "-" + strconv.Itoa(n) + ext
}

// ChunkName is the file name of the part of a sitemap called name whose
// key is key (sitemap.Chunk.Key): name itself for the unkeyed last part,
// "stem-KEY.xml" for the others.
func ChunkName(name, key string) string {
	if key == "" {
		return name
	}
	ext := path.Ext(name)
	return strings.TrimSuffix(name, ext) + "-" + key + ext
}

// IsPartName reports whether file is some part of name (ignoring a ".gz"
// suffix): name itself, "stem-N.xml" for N >= 2 (PartName),
// "stem-KEY.xml" for a 12-hex-digit key (ChunkName), or "stem-sitemapd.xml"
// (OwnKey: the last part of a group an app's sitemap displaces).
func IsPartName(file, name string) bool {
	file = strings.TrimSuffix(file, ".gz")
	if file == name {
		return true
	}
	// stem-num.ext, compared in place: the walk asks this of every file.
	ext := path.Ext(name)
	stem := name[:len(name)-len(ext)]
	if len(file) < len(stem)+1+len(ext) || !strings.HasPrefix(file, stem) || file[len(stem)] != '-' || !strings.HasSuffix(file, ext) {
		return false
	}
	num := file[len(stem)+1 : len(file)-len(ext)]
	if isChunkKey(num) || num == OwnKey {
		return true
	}
	n, err := strconv.Atoi(num)
	return err == nil && n >= 2 && strconv.Itoa(n) == num
}

// isChunkKey reports whether s is a chunk key: 12 lower-case hex digits.
func isChunkKey(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// NormalizeGlob anchors a user glob: patterns starting with "/" match from
// the site root, others match at any depth ("*.pdf" means "**/*.pdf").
func NormalizeGlob(g string) string {
	if strings.HasPrefix(g, "/") {
		return g
	}
	return "/**/" + strings.TrimPrefix(g, "**/")
}
