package ciwork

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"sync"
)

// markerPrefix starts the first line of every workflow ci init writes; the
// SHA-256 of the rest of the file follows it.
const markerPrefix = "# agent-gauntlet ci init: generated, sha256:"

// markerSuffix ends the marker line.
const markerSuffix = " (edited copies are left alone unless --force)"

var markerRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^` + regexp.QuoteMeta(markerPrefix) + `([0-9a-f]{64})` + regexp.QuoteMeta(markerSuffix) + `\n`)
})

// stamp prefixes body with the marker line holding its checksum.
func stamp(body []byte) []byte {
	sum := sha256.Sum256(body)
	return append([]byte(fmt.Sprintf("%s%s%s\n", markerPrefix, hex.EncodeToString(sum[:]), markerSuffix)), body...)
}

// Ownership says who a workflow file is from.
type Ownership int

// The three ownerships.
const (
	// Foreign: no marker; ci init did not write it (or its marker line was
	// removed to keep it).
	Foreign Ownership = iota
	// Edited: ci init wrote it and someone changed it since.
	Edited
	// Generated: exactly as ci init wrote it.
	Generated
)

// Owner tells whether content is a workflow ci init wrote, unchanged.
func Owner(content []byte) Ownership {
	m := markerRE().FindSubmatch(content)
	if m == nil {
		return Foreign
	}
	sum := sha256.Sum256(content[len(m[0]):])
	if !bytes.Equal([]byte(hex.EncodeToString(sum[:])), m[1]) {
		return Edited
	}
	return Generated
}
