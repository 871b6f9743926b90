package ciwork

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// JSON renders jobs as list-jobs prints them: one compact JSON object on
// one line, HTML characters unescaped (as upstream's JSON.stringify).
func JSON(jobs Jobs) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(jobs); err != nil {
		return nil, fmt.Errorf("encode jobs: %w", err)
	}
	return b.Bytes(), nil
}

// WriteGitHubOutput writes each of Outputs as a `name=<compact JSON>` line
// in GitHub Actions' step-output format: the very value of the same key of
// the list-jobs JSON (a string output, log_dir, is written bare).
func WriteGitHubOutput(w io.Writer, jobs Jobs) error {
	line, err := JSON(jobs)
	if err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil {
		return fmt.Errorf("decode jobs: %w", err)
	}
	var b bytes.Buffer
	for _, name := range Outputs() {
		value := fields[name]
		var s string
		if json.Unmarshal(value, &s) == nil {
			value = []byte(s)
		}
		if bytes.ContainsAny(value, "\r\n") {
			return fmt.Errorf("output %s spans several lines", name)
		}
		fmt.Fprintf(&b, "%s=%s\n", name, value)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// AppendGitHubOutput appends the outputs to the file at path ($GITHUB_OUTPUT).
func AppendGitHubOutput(path string, jobs Jobs) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("open GitHub output: %w", err)
	}
	if err := WriteGitHubOutput(f, jobs); err != nil {
		_ = f.Close()
		return fserr.Wrap("write", path, err)
	}
	if err := f.Close(); err != nil {
		return fserr.Wrap("write", path, err)
	}
	return nil
}

// WriteStarter creates path with content unless it exists; created tells
// whether it did. It never replaces a file.
func WriteStarter(path string, content []byte) (created bool, err error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fserr.Wrap("create", path, err)
	}
	if _, err := f.Write(content); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return false, fserr.Wrap("write", path, err)
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(path)
		return false, fserr.Wrap("write", path, err)
	}
	return true, nil
}

// Result is what InstallWorkflow did.
type Result string

// The results of InstallWorkflow.
const (
	Created   Result = "created"
	Updated   Result = "updated"
	Unchanged Result = "unchanged"
	// Replaced: a file ci init did not write, or one edited since, was
	// replaced because of --force.
	Replaced Result = "replaced"
)

// NotOursError refuses to replace a workflow file without --force.
type NotOursError struct {
	Path  string
	Owner Ownership
}

// Error names the file and says why it was left alone and how to replace it.
func (e *NotOursError) Error() string {
	why := "agent-gauntlet ci init did not write it"
	if e.Owner == Edited {
		why = "it was edited since agent-gauntlet ci init wrote it"
	}
	return fmt.Sprintf("%s left unchanged: %s (run agent-gauntlet ci init --force to replace it)", e.Path, why)
}

// InstallWorkflow writes content to path, the workflow file under top (the
// repository's top level), creating .github/workflows as needed. A file
// that ci init wrote and nobody edited is replaced (Unchanged when it is
// identical); any other file is replaced only with force, else a
// *NotOursError. It never writes through a symbolic link nor over
// anything but a regular file.
func InstallWorkflow(top, path string, content []byte, force bool) (Result, error) {
	if err := owned.CheckFile(top, path); err != nil {
		return "", err
	}
	result := Created
	_, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return "", fserr.Wrap("inspect", path, err)
	default:
		old, err := fsread.File(path, maxWorkflowFile)
		if err != nil {
			return "", fserr.Wrap("read", path, err)
		}
		switch owner := Owner(old); {
		case owner == Generated && bytes.Equal(old, content):
			return Unchanged, nil
		case owner == Generated:
			result = Updated
		case !force:
			return "", &NotOursError{Path: path, Owner: owner}
		default:
			result = Replaced
		}
	}
	if err := owned.FileParent(top, path); err != nil {
		return "", err
	}
	if err := atomicfile.Write(path, content, 0o644); err != nil {
		return "", err
	}
	return result, nil
}

// maxWorkflowFile bounds what is read of an existing workflow file.
const maxWorkflowFile = 16 << 20
