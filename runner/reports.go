package runner

import (
	"io"
	"os"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
)

// LogTail returns the end of the log file at path, for a report: its last
// maxLines lines, at most maxBytes bytes of them, ANSI color codes removed
// and invalid UTF-8 replaced. It reads at most maxBytes of the file; a file
// that cannot be read has no tail ("").
func LogTail(path string, maxLines, maxBytes int) string {
	// Only a regular file: opening a FIFO named like a log would block.
	if fi, err := os.Lstat(path); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return ""
	}
	if fi.Size() > int64(maxBytes) {
		if _, err := f.Seek(-int64(maxBytes), io.SeekEnd); err != nil {
			return ""
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(maxBytes)))
	if err != nil {
		return ""
	}
	if fi.Size() > int64(maxBytes) {
		// The first line was cut: drop it.
		if i := strings.IndexByte(string(data), '\n'); i >= 0 {
			data = data[i+1:]
		}
	}
	text := strings.TrimRight(strings.ToValidUTF8(string(console.StripANSI(data)), "\uFFFD"), "\n")
	lines := strings.Split(text, "\n")
	if len(lines) > maxLines {
		lines = lines[len(lines)-maxLines:]
	}
	return strings.Join(lines, "\n")
}
