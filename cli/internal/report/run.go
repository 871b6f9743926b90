package report

import (
	"path"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
)

// Tool names the program in every report.
const (
	ToolName = "agent-gauntlet"
	ToolURI  = "https://github.com/agent-gauntlet/agent-gauntlet"
)

// Run is what the reports describe: one run, check or review command.
type Run struct {
	// Command is "run", "check" or "review".
	Command string
	// Version is the program's version.
	Version string
	// Result is the run's result.
	Result runner.RunResult
	// ExitCode is the command's exit code.
	ExitCode int
	// TopLevel is the absolute top level of the git repository and
	// ProjectDir the project root relative to it, slash-separated ("." at
	// the top level): SARIF locates files from the top level. TopLevel ""
	// means unknown (the project root stands in for it).
	TopLevel, ProjectDir string
}

// repoPath is file, relative to the project root, relative to the
// repository's top level instead, slash-separated.
func (r Run) repoPath(file string) string {
	p := filepath.ToSlash(file)
	if r.ProjectDir != "" && r.ProjectDir != "." {
		p = path.Join(r.ProjectDir, p)
	}
	return p
}

// failed reports whether the command failed (a non-zero exit).
func (r Run) failed() bool { return r.ExitCode != 0 }

// writeFile writes a report file atomically.
func writeFile(path string, data []byte) error { return atomicfile.Write(path, data, 0o644) }
