package fleet

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"errors"
)

// vkey identifies a version in etcd and in the mirror: the first 12
// bytes of the SHA-256 of its path (or file name) and its bytes' hash.
// 96 bits: two of a million pages' versions share one with a chance of
// about 1 in 10^17.
type vkey [12]byte

// fileMark starts the rel of a sitemap file's version: no page path
// starts with a NUL.
const fileMark = "\x00"

// versionOf is the key of the version of rel whose bytes hash to sum.
func versionOf(rel string, sum uint64) vkey {
	h := sha256.New()
	h.Write([]byte(rel))
	var b [9]byte
	b[0] = 0 // a path holds no NUL: the sum cannot be mistaken for path bytes
	binary.BigEndian.PutUint64(b[1:], sum)
	h.Write(b[:])
	var k vkey
	copy(k[:], h.Sum(nil))
	return k
}

// versionsDir is where the records are, below the site's prefix.
const versionsDir = "v/"

// keyLen is the length of a key below the prefix: "v/" and 16 base64url
// characters.
const keyLen = len(versionsDir) + 16

// etcdKey is k's key in etcd, below prefix.
func etcdKey(prefix string, k vkey) string {
	return prefix + versionsDir + base64.RawURLEncoding.EncodeToString(k[:])
}

// parseKey reads an etcd key back (below prefix), or reports false for a
// key that is not a record's.
func parseKey(prefix string, key []byte) (vkey, bool) {
	var k vkey
	if len(key) != len(prefix)+keyLen || string(key[:len(prefix)+len(versionsDir)]) != prefix+versionsDir {
		return k, false
	}
	n, err := base64.RawURLEncoding.Decode(k[:], key[len(prefix)+len(versionsDir):])
	return k, err == nil && n == len(k)
}

// A record's value is its time, Unix nanoseconds, as a varint (9 bytes
// for a time of this century).
func encodeTime(t int64) []byte { return binary.AppendVarint(nil, t) }

func decodeTime(b []byte) (int64, error) {
	t, n := binary.Varint(b)
	if n <= 0 || n != len(b) {
		return 0, errors.New("not a fleet record (a varint time)")
	}
	return t, nil
}
