package stophook

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
)

// maxNotice bounds what is read of a notice.
const maxNotice = 64 << 10

// leaveNotice records msg for the next session (logdir.NoticeFile: the
// message of a stop let through unverified where the client's allow shows
// no message, hookproto.AllowTells); the next session's start hook tells
// it, once (best effort: the answer is written either way).
func leaveNotice(logDir, msg string) {
	if logDir == "" {
		return
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return
	}
	path := filepath.Join(logDir, logdir.NoticeFile)
	if !logdir.Owned(path) {
		return // a person's file at its name: never written over
	}
	if atomicfile.Write(path, []byte(msg+"\n"), 0o644) == nil {
		_ = logdir.Note(path, false)
	}
}

// TakeNotice returns the notice a stop hook left in logDir, "" when none
// (or when the file at its name is not one the gauntlet wrote, which stays
// as it is), and removes it: it is told once.
func TakeNotice(logDir string) string {
	path := filepath.Join(logDir, logdir.NoticeFile)
	if !logdir.Owned(path) {
		return ""
	}
	data, err := fsread.File(path, maxNotice)
	if err != nil {
		return ""
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "" // told once, or not at all
	}
	return strings.TrimSpace(string(data))
}
