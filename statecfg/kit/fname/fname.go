// Package fname fits the file names the gauntlet derives from data it does
// not choose (a branch, a job id, a project's path, a worktree's path) to
// what a file system takes: one path component of at most MaxBytes bytes,
// with no two data sharing a name.
package fname

import (
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"
)

// MaxBytes is the longest file name (one path component) the file systems
// the gauntlet runs on accept: 255 bytes (NAME_MAX on Linux and macOS;
// 255 UTF-16 units on Windows, never fewer than bytes).
const MaxBytes = 255

// HashedTail is the length of the "_<hash>" that ends a shortened name.
const HashedTail = 1 + 20

// Fit is name when it is shorter than limit bytes; otherwise the first
// bytes of name (whole UTF-8 characters) followed by "_" and the hash of
// key, limit bytes in all (fewer only when a character would be cut).
// With name an injective encoding of key whose names of limit bytes or
// more are all shortened, Fit stays injective: an unshortened name is
// shorter than limit, a shortened one (almost always) exactly limit long,
// and two shortened ones differ by their keys' hashes. limit must exceed
// HashedTail.
func Fit(name, key string, limit int) string {
	if len(name) < limit {
		return name
	}
	cut := limit - HashedTail
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	sum := sha256.Sum256([]byte(key))
	return name[:cut] + "_" + hex.EncodeToString(sum[:])[:HashedTail-1]
}
