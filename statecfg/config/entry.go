package config

import (
	"bytes"
	"path"
	"strings"
)

// An entry is how a copy of the configuration (Files) holds one of the
// other files of .gauntlet/ (addOthers): what a gate may run or read
// there, as the entry is, not as it reads through a link. A regular file
// is its content; an executable one, a symbolic link, and a file whose
// content would read as an entry are marked, so that a link re-pointed,
// a file swapped for a link (or back) and a mode changed all differ from
// the trusted copy the way an edited file does, on disk and in a commit
// alike (git keeps the same three kinds: 100644, 100755, 120000).
const (
	// entryMark starts a marked entry: a NUL byte, which no text file
	// starts with, then the kind and a line break.
	entryMark = "\x00agent-gauntlet entry: "
	kindLink  = "symbolic link"
	kindExec  = "executable file"
	kindFile  = "file"
)

// fileEntry is the entry of a regular file holding data; exec reports its
// executable bit.
func fileEntry(data []byte, exec bool) []byte {
	switch {
	case exec:
		return marked(kindExec, data)
	case bytes.HasPrefix(data, []byte(entryMark)):
		return marked(kindFile, data) // a file never reads as another kind
	}
	return data
}

// linkEntry is the entry of a symbolic link to target (as written in the
// link, never resolved).
func linkEntry(target string) []byte { return marked(kindLink, []byte(target)) }

// marked is an entry of kind holding body.
func marked(kind string, body []byte) []byte {
	out := make([]byte, 0, len(entryMark)+len(kind)+1+len(body))
	out = append(out, entryMark...)
	out = append(out, kind...)
	out = append(out, '\n')
	return append(out, body...)
}

// decodeEntry returns the kind (kindFile, kindExec or kindLink) and body
// (a file's content, a link's target) of an entry.
func decodeEntry(data []byte) (kind string, body []byte) {
	rest, ok := bytes.CutPrefix(data, []byte(entryMark))
	if !ok {
		return kindFile, data
	}
	k, b, ok := bytes.Cut(rest, []byte("\n"))
	if !ok {
		return kindFile, data
	}
	switch string(k) {
	case kindLink, kindExec, kindFile:
		return string(k), b
	}
	return kindFile, data
}

// EntryText is an entry of a copy of the configuration as a person reads
// it in a diff: a file's content, an executable one's under a line saying
// so, a link as the line "symbolic link to <target>".
func EntryText(data []byte) []byte {
	kind, body := decodeEntry(data)
	switch kind {
	case kindLink:
		return []byte("(symbolic link to " + string(body) + ")\n")
	case kindExec:
		return append([]byte("(executable file)\n"), body...)
	}
	return body
}

// IsLeftOut reports whether an entry of a copy of the configuration holds
// only the size and digest of a file past the copy's bounds (LeftOutPrefix).
func IsLeftOut(data []byte) bool {
	_, body := decodeEntry(data)
	return bytes.HasPrefix(data, []byte(LeftOutPrefix)) || bytes.HasPrefix(body, []byte(LeftOutPrefix))
}

// maxLinkHops bounds the symbolic links of a Files followed in a row.
const maxLinkHops = 8

// real returns the key that key names through the link entries of the
// set, each of its directories resolved as the disk resolves them, up to
// maxLinkHops links in all; false when a link leads out of .gauntlet/ (an
// absolute target included) or the hops run out. The last element, when
// it is a link itself, is followed too.
func (f Files) real(key string) (string, bool) {
	parts := strings.Split(key, "/")
	cur, hops := parts[0], 0
	for _, part := range parts[1:] {
		cur += "/" + part
		for {
			data, ok := f[cur]
			if !ok {
				break
			}
			kind, body := decodeEntry(data)
			if kind != kindLink {
				break
			}
			if hops++; hops > maxLinkHops || path.IsAbs(string(body)) {
				return "", false
			}
			cur = path.Join(path.Dir(cur), string(body))
			if !strings.HasPrefix(cur, Dir+"/") {
				return "", false
			}
		}
	}
	return cur, true
}

// resolve returns the content the file key of files reads as: its
// entry's content, through the links of the set that stay under
// .gauntlet/ (real); false when it leads out of .gauntlet/ or to no file
// of the set (as a commit's .gauntlet/ reads it).
func (f Files) resolve(key string) ([]byte, bool) {
	real, ok := f.real(key)
	if !ok {
		return nil, false
	}
	data, ok := f[real]
	if !ok {
		return nil, false
	}
	_, body := decodeEntry(data)
	return body, true
}

// Legacy returns all with the other files as copies made before entries
// were marked held them: a link inside .gauntlet/ as the content it leads
// to, one leading out or nowhere left out, a file's mode not kept. A
// record of that version is compared with the work tree's configuration in
// that form, so that an upgrade alone never reads as a change.
func Legacy(all Files) Files {
	out := Files{}
	for key := range all {
		if data, ok := all.resolve(key); ok {
			out[key] = data
		}
	}
	return out
}

// TreeEntry is the entry of a file of a commit (a git tree holds the same
// kinds): a symbolic link whose blob is its target, or a regular file,
// executable or not.
func TreeEntry(exec, link bool, blob []byte) []byte {
	if link {
		return linkEntry(string(blob))
	}
	return fileEntry(blob, exec)
}
