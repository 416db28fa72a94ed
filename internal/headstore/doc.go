// Package headstore keeps what pages' heads said across runs, in
// state_dir, so that a build reads again only the heads of files whose
// mtime or size changed since the last full build, not every head of the
// site: reading heads costs far more than the walk.
//
// A store is a cache, trusted only as far as it proves sound: a file for
// another configuration (Key), of another version or with a wrong checksum
// is refused by Open, and the caller reads every head instead. It is not
// synced: one torn by a crash fails its checksum.
//
// Layout: a magic line, the configuration key (a SHA-256), then one block
// per directory, then a CRC-32C of all that precedes it. A block is the
// directory (uvarint length and bytes), its page count, and per page its
// name, mtime (varint ns), size (varint), whether its head keeps it out (a
// byte) and its packed alternates. Directories come in any order; Open
// sorts their offsets for lookup.
//
// Limits: a store is at most 4 GiB; it is mapped, so a file truncated by
// another process while mapped would fault (sitemapd replaces it by rename,
// never truncates it).
package headstore
