package runner

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/console"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// checkReports refuses a report file (Options.Reports) inside the log
// directory, whose files are the gauntlet's own (clean archives them, run
// numbering and verification read them), or inside .gauntlet/, the
// configuration. Paths are compared after resolving symbolic links.
func (e *execution) checkReports() error {
	dirs := []struct{ what, path string }{
		{"the log directory", e.logDir},
		{"the configuration directory", filepath.Join(e.root, config.Dir)},
	}
	for _, p := range e.opts.Reports {
		real := resolvePath(p)
		for _, d := range dirs {
			if within(real, resolvePath(d.path)) {
				return &ReportPathError{Path: p, Reason: fmt.Sprintf("it is in %s %s, which holds only the gauntlet's own files: write it elsewhere", d.what, d.path)}
			}
		}
		if fi, err := os.Stat(p); err == nil && fi.IsDir() {
			return &ReportPathError{Path: p, Reason: "it is a directory"}
		}
	}
	return nil
}

// ReportPathError refuses a report file of Options.Reports (a ConfigErr):
// the caller writes no report then.
type ReportPathError struct {
	Path, Reason string
}

// Error names the file and why it is refused.
func (e *ReportPathError) Error() string { return fmt.Sprintf("report file %s: %s", e.Path, e.Reason) }

// resolvePath is the absolute path p with the symbolic links of its
// longest existing prefix resolved.
func resolvePath(p string) string {
	p, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	rest := ""
	for dir := p; ; dir = filepath.Dir(dir) {
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(real, rest)
		}
		if filepath.Dir(dir) == dir {
			return p
		}
		rest = filepath.Join(filepath.Base(dir), rest)
	}
}

// within reports whether p is dir or lies below it.
func within(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

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
