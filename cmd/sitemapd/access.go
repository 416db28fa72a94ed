package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/sitemapd/sitemapd/internal/lock"
)

// What `sitemapd check` works out of a directory's permissions for the
// user the service runs as. access(2) cannot answer for another user, and
// for root it ignores the permission bits: so the answer is computed as
// the kernel computes it, from the owner, group and mode of each
// directory and its POSIX ACL (the man page's PERMISSIONS grants write
// with one), for the user's uid and groups.
//
// Not seen from here: the systemd unit's sandbox (ProtectSystem=strict
// and ReadWritePaths=, ProtectHome=), its Group= (the groups are the
// user's own, from /etc/group), LSMs (AppArmor, SELinux), and capabilities
// other than root's.

// The permission bits, as in a mode's rwx triplets and in ACL entries.
const (
	mayRead   = 4
	mayWrite  = 2
	maySearch = 1
)

// account is a user as the kernel checks it.
type account struct {
	lock.User
	gids []uint32 // the primary group and the others
}

// me is the account the process runs as: its effective ids and its
// actual groups, which may differ from /etc/group's.
func me() account {
	a := account{User: lock.Me(), gids: []uint32{uint32(os.Getegid())}}
	groups, _ := os.Getgroups()
	for _, g := range groups {
		a.gids = append(a.gids, uint32(g))
	}
	return a
}

// lookupAccount finds a user by name or uid, with the groups
// /etc/group (or NSS) gives it, as systemd's User= would start it. A uid
// no user has (a container's, often) is taken as it is, with no group.
func lookupAccount(name string) (account, error) {
	u, err := user.Lookup(name)
	uid, nerr := strconv.Atoi(name)
	if err != nil && nerr == nil {
		if u, err = user.LookupId(name); err != nil && uid >= 0 {
			return account{User: lock.User{UID: uid}}, nil
		}
	}
	if err != nil {
		return account{}, fmt.Errorf("look up user %q: %w", name, err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	a := account{User: lock.User{Name: u.Username, UID: uid}}
	ids, err := u.GroupIds()
	if err != nil {
		ids = []string{u.Gid} // its primary group at least
	}
	for _, id := range append([]string{u.Gid}, ids...) {
		if g, err := strconv.ParseUint(id, 10, 32); err == nil && !slices.Contains(a.gids, uint32(g)) {
			a.gids = append(a.gids, uint32(g))
		}
	}
	return a, nil
}

// denied is a path that refuses an account what it asks.
type denied struct {
	path  string // the path asked about, or the directory above it that refuses
	above bool   // path is a directory above: it refuses search
	want  uint32 // what was refused
}

// about says what the account cannot do, for "user X ...", in a message
// about where.
func (d *denied) about(where string) string {
	switch {
	case d.above:
		return "cannot search " + d.path + ", above it"
	case d.path == where:
		return "cannot " + verbs(d.want) + " it"
	}
	return "cannot " + verbs(d.want) + " " + d.path
}

// may reports whether a can do want (mayRead, mayWrite, maySearch bits)
// with the directory path, reaching it through every directory above it;
// nil when it can. Symlinks are resolved first: their targets are what
// the kernel checks.
func (a account) may(path string, want uint32) (*denied, error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", path, err)
	}
	for _, dir := range above(real) {
		ok, err := a.permits(dir, maySearch)
		if err != nil {
			return nil, err
		}
		if !ok {
			return &denied{dir, true, maySearch}, nil
		}
	}
	ok, err := a.permits(real, want)
	if err != nil || ok {
		return nil, err
	}
	return &denied{real, false, want}, nil
}

// above lists the directories above an absolute path, from the root
// down: the order the kernel walks them in, so the first refusal found is
// the one it meets.
func above(path string) []string {
	var dirs []string
	for dir := filepath.Dir(path); ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if dir == filepath.Dir(dir) {
			break
		}
	}
	slices.Reverse(dirs)
	return dirs
}

// verbs names permission bits for messages.
func verbs(want uint32) string {
	switch {
	case want&mayWrite != 0:
		return "write"
	case want&mayRead != 0:
		return "read"
	}
	return "search"
}

// permits reports whether a may do want with path itself.
func (a account) permits(path string, want uint32) (bool, error) {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return false, fmt.Errorf("stat %s: %w", path, err)
	}
	if a.UID == 0 {
		return true, nil // root passes the permission bits of a directory
	}
	acl, err := readACL(path)
	if err != nil {
		return false, err
	}
	if acl != nil {
		return acl.permits(a, &st, want), nil
	}
	return modePerm(a, &st)&want == want, nil
}

// modePerm is the triplet of a file's mode that applies to a.
func modePerm(a account, st *unix.Stat_t) uint32 {
	switch {
	case st.Uid == uint32(a.UID):
		return st.Mode >> 6 & 7
	case slices.Contains(a.gids, st.Gid):
		return st.Mode >> 3 & 7
	}
	return st.Mode & 7
}

// The tags of a POSIX ACL's entries, as Linux stores them in the
// system.posix_acl_access attribute (acl_ea.h).
const (
	aclUserObj  = 0x01
	aclUser     = 0x02
	aclGroupObj = 0x04
	aclGroup    = 0x08
	aclMask     = 0x10
	aclOther    = 0x20
)

type aclEntry struct {
	tag, perm uint16
	id        uint32
}

type acl []aclEntry

// readACL reads path's access ACL; nil when it has none, or its file
// system keeps none: its mode then says it all.
func readACL(path string) (acl, error) {
	buf := make([]byte, 4+8*64)
	n, err := unix.Getxattr(path, "system.posix_acl_access", buf)
	switch {
	case errors.Is(err, unix.ENODATA) || errors.Is(err, unix.ENOTSUP):
		return nil, nil
	case errors.Is(err, unix.ERANGE): // more entries than room: ask its size
		if n, err = unix.Getxattr(path, "system.posix_acl_access", nil); err == nil {
			buf = make([]byte, n)
			n, err = unix.Getxattr(path, "system.posix_acl_access", buf)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("read the ACL of %s: %w", path, err)
	}
	return parseACL(buf[:n])
}

// parseACL decodes the attribute: a little-endian version 2, then 8 bytes
// an entry (tag, permissions, id).
func parseACL(b []byte) (acl, error) {
	if len(b) < 4 || binary.LittleEndian.Uint32(b) != 2 || (len(b)-4)%8 != 0 {
		return nil, errors.New("unknown ACL format")
	}
	var out acl
	for b = b[4:]; len(b) >= 8; b = b[8:] {
		out = append(out, aclEntry{binary.LittleEndian.Uint16(b), binary.LittleEndian.Uint16(b[2:]), binary.LittleEndian.Uint32(b[4:])})
	}
	return out, nil
}

// permits is acl(5)'s access check: the owner's entry for the owner; a
// named user's entry, within the mask; else, if any group entry matches
// one of the user's groups, whether one of them grants it all (within the
// mask); else the other entry.
func (l acl) permits(a account, st *unix.Stat_t, want uint32) bool {
	mask, other := uint16(7), l.perm(aclOther)
	if slices.ContainsFunc(l, func(e aclEntry) bool { return e.tag == aclMask }) {
		mask = l.perm(aclMask)
	}
	w := uint16(want)
	if st.Uid == uint32(a.UID) {
		return l.perm(aclUserObj)&w == w
	}
	for _, e := range l {
		if e.tag == aclUser && e.id == uint32(a.UID) {
			return e.perm&mask&w == w
		}
	}
	matched := false
	for _, e := range l {
		gid := e.id
		if e.tag == aclGroupObj {
			gid = st.Gid
		}
		if (e.tag == aclGroupObj || e.tag == aclGroup) && slices.Contains(a.gids, gid) {
			if e.perm&mask&w == w {
				return true
			}
			matched = true
		}
	}
	return !matched && other&w == w
}

// perm is the permissions of the entry of tag, one of those an ACL holds
// once.
func (l acl) perm(tag uint16) uint16 {
	for _, e := range l {
		if e.tag == tag {
			return e.perm
		}
	}
	return 0
}

// readOnly reports whether path is on a file system mounted read-only,
// which no permission lifts.
func readOnly(path string) bool {
	var fs unix.Statfs_t
	return unix.Statfs(path, &fs) == nil && fs.Flags&unix.ST_RDONLY != 0
}
