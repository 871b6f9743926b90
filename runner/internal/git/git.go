// Package git is the runner's only door to git: change detection, the
// working-tree snapshot, review diffs and diff statistics. Every call goes
// through statecfg/kit/gitcmd with the caller's context as `git -C <root>
// <args>`, never a shell; paths travel NUL-separated (-z) or after `--`.
package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
)

// Program is the git executable, looked up in PATH.
const Program = gitcmd.Program

// ErrGitMissing is wrapped by every error caused by git not being on PATH.
var ErrGitMissing = errors.New("git executable not found in PATH")

// ErrNoCommits is returned when HEAD does not name a commit yet.
var ErrNoCommits = errors.New("repository has no commits yet")

// ErrNoBase is returned for a change set that began before the
// repository's first commit: there is no commit to compare it with, and
// nothing in it existed before.
var ErrNoBase = errors.New("the changes began before the repository's first commit: nothing existed before them")

// emptyTree is the id of git's empty tree, the "parent" of a root commit.
const emptyTree = gitcmd.EmptyTree

// CommandError is a git command that exited non-zero.
type CommandError struct {
	Args   []string
	Code   int
	Stderr string
}

// maxErrorText bounds the part of git's stderr an error message shows.
const maxErrorText = 300

// Error names the git subcommand, its exit code and what git said, on one
// line (git's lines joined, at most maxErrorText bytes of them).
func (e *CommandError) Error() string {
	sub := "command"
	for _, a := range e.Args {
		if !strings.HasPrefix(a, "-") && !strings.Contains(a, "=") {
			sub = a
			break
		}
	}
	msg := strings.Join(strings.Fields(e.Stderr), " ")
	if len(msg) > maxErrorText {
		msg = msg[:maxErrorText] + "..."
	}
	if msg == "" {
		return fmt.Sprintf("git %s failed (exit code %d)", sub, e.Code)
	}
	return fmt.Sprintf("git %s failed (exit code %d): %s", sub, e.Code, msg)
}

// ErrRepository is wrapped by every *RepoError (gitcmd.ErrRepository).
var ErrRepository = gitcmd.ErrRepository

// RepoError is a repository git refuses to work in (gitcmd.RepoError).
type RepoError = gitcmd.RepoError

// repoProblem reads git's stderr for a repository it refuses to work in
// (gitcmd.RepoProblem).
func repoProblem(dir, stderr string) *RepoError { return gitcmd.RepoProblem(dir, stderr) }

// call is one git invocation.
type call struct {
	root string
	args []string
	// env is appended to the parent's environment.
	env []string
	// okCodes are exit codes other than 0 that are not errors.
	okCodes []int
	// limit, when positive, bounds the stdout kept; more sets truncated.
	limit int
	// stdin, when not "", is the command's standard input.
	stdin string
	// config are `-c name=value` settings given before args (they win
	// over every configuration file and variable).
	config []string
	// unset are variables removed from the parent's environment.
	unset []string
}

// run executes c and returns its stdout and exit code.
func run(ctx context.Context, c call) ([]byte, int, error) {
	out, _, code, err := runLimited(ctx, c)
	return out, code, err
}

// runLimited executes c (through gitcmd), keeping at most c.limit bytes of
// stdout (all when zero), and reports whether stdout exceeded it and git's
// exit code.
func runLimited(ctx context.Context, c call) ([]byte, bool, int, error) {
	args := make([]string, 0, 2*len(c.config)+len(c.args))
	for _, kv := range c.config {
		args = append(args, "-c", kv)
	}
	args = append(args, c.args...)
	res, err := gitcmd.Run(ctx, gitcmd.Call{Dir: c.root, Args: args, Env: c.env, Stdin: c.stdin, Limit: c.limit, Unset: c.unset})
	if err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return res.Stdout, false, -1, fmt.Errorf("%w: %w", ErrGitMissing, err)
		}
		return res.Stdout, false, -1, fmt.Errorf("git %s: %w", strings.Join(c.args, " "), err)
	}
	if res.ExitCode != 0 {
		// Whatever the command expects to fail with, a repository git
		// refuses is never an answer.
		if re := repoProblem(c.root, res.Stderr); re != nil {
			return res.Stdout, res.Truncated, res.ExitCode, re
		}
		for _, ok := range c.okCodes {
			if res.ExitCode == ok {
				return res.Stdout, res.Truncated, res.ExitCode, nil
			}
		}
		return res.Stdout, res.Truncated, res.ExitCode, &CommandError{Args: c.args, Code: res.ExitCode, Stderr: res.Stderr}
	}
	return res.Stdout, res.Truncated, 0, nil
}

// output runs git in root and returns its stdout.
func output(ctx context.Context, root string, args ...string) ([]byte, error) {
	out, _, err := run(ctx, call{root: root, args: args})
	return out, err
}

// line runs git in root and returns its trimmed stdout.
func line(ctx context.Context, root string, args ...string) (string, error) {
	out, err := output(ctx, root, args...)
	return strings.TrimSpace(string(out)), err
}

// splitZ splits NUL-terminated output into its non-empty fields.
func splitZ(out []byte) []string {
	var names []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			names = append(names, string(f))
		}
	}
	return names
}

// Available reports an error wrapping ErrGitMissing when git cannot be run.
func Available() error {
	if _, err := exec.LookPath(Program); err != nil {
		return fmt.Errorf("%w: %w", ErrGitMissing, err)
	}
	return nil
}

// plainEnv reports whether no GIT_* variable moves the git directory, the
// index or the work tree away from where the file system says they are.
func plainEnv() bool {
	for _, k := range []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE"} {
		if os.Getenv(k) != "" {
			return false
		}
	}
	return true
}

// showPrefix returns root's path below the top level of its work tree,
// slash-separated with a trailing slash ("" at the top level), as
// `git rev-parse --show-prefix` prints it. The project root may lie below
// the top level (config.FindRoot), while `git status` reports paths relative to
// the top level. In a plain repository the nearest ".git" at or above root
// (the one config.FindRoot stops at) tells, without a git process.
func showPrefix(ctx context.Context, root string) (string, error) {
	if plainEnv() && filepath.IsAbs(root) {
		rel := ""
		for dir := filepath.Clean(root); ; {
			if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
				return rel, nil
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			rel = filepath.Base(dir) + "/" + rel
			dir = parent
		}
	}
	return line(ctx, root, "rev-parse", "--show-prefix")
}

// Branch returns the current branch name, "HEAD" when detached. It works in a
// repository with no commits (the unborn branch's name).
func Branch(ctx context.Context, root string) (string, error) {
	out, code, err := run(ctx, call{root: root, args: []string{"symbolic-ref", "--short", "-q", "HEAD"}, okCodes: []int{1}})
	if err != nil {
		return "", err
	}
	if code == 1 {
		return "HEAD", nil
	}
	return strings.TrimSpace(string(out)), nil
}

// ResolveCommit returns the commit SHA that rev names, or "" when it names
// none (unknown ref, unborn HEAD, not a commit).
func ResolveCommit(ctx context.Context, root, rev string) (string, error) {
	out, code, err := run(ctx, call{root: root, args: []string{"rev-parse", "--verify", "-q", "--end-of-options", rev + "^{commit}"}, okCodes: []int{1, 128}})
	if err != nil {
		return "", err
	}
	if code != 0 {
		return "", nil
	}
	return strings.TrimSpace(string(out)), nil
}

// Head returns the SHA of HEAD, or "" in a repository with no commits.
func Head(ctx context.Context, root string) (string, error) {
	return ResolveCommit(ctx, root, "HEAD")
}

// ObjectExists reports whether rev names an object in the repository (a
// working-tree snapshot may have been garbage collected).
func ObjectExists(ctx context.Context, root, rev string) (bool, error) {
	if rev == "" {
		return false, nil
	}
	_, code, err := run(ctx, call{root: root, args: []string{"cat-file", "-e", "--end-of-options", rev}, okCodes: []int{1, 128}})
	if err != nil {
		return false, err
	}
	return code == 0, nil
}

// MergeBase returns the best common ancestor of the commits a and b, ""
// when they have none.
func MergeBase(ctx context.Context, root, a, b string) (string, error) {
	if err := checkRef("commit", a); err != nil {
		return "", err
	}
	if err := checkRef("commit", b); err != nil {
		return "", err
	}
	out, _, err := run(ctx, call{root: root, args: []string{"merge-base", a, b}, okCodes: []int{1}})
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// CountBetween is the number of commits reachable from to and not from
// from (git rev-list --count from..to).
func CountBetween(ctx context.Context, root, from, to string) (int, error) {
	if err := checkRef("commit", from); err != nil {
		return 0, err
	}
	if err := checkRef("commit", to); err != nil {
		return 0, err
	}
	out, err := output(ctx, root, "rev-list", "--count", from+".."+to)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// CountReachable is the number of commits reachable from tip (git
// rev-list --count tip).
func CountReachable(ctx context.Context, root, tip string) (int, error) {
	if err := checkRef("commit", tip); err != nil {
		return 0, err
	}
	out, err := output(ctx, root, "rev-list", "--count", tip, "--")
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(out)))
}

// Unreached lists the commits reachable from tip and from none of not
// (git rev-list tip --not not...), newest first; a commit of not that does
// not exist is left out of it.
func Unreached(ctx context.Context, root, tip string, not []string) ([]string, error) {
	if err := checkRef("commit", tip); err != nil {
		return nil, err
	}
	args := []string{"rev-list", "--ignore-missing", tip, "--not"}
	for _, n := range not {
		if n == "" {
			continue
		}
		if err := checkRef("commit", n); err != nil {
			return nil, err
		}
		args = append(args, n)
	}
	out, err := output(ctx, root, append(args, "--")...)
	if err != nil {
		return nil, err
	}
	return strings.Fields(string(out)), nil
}

// IsAncestor reports whether commit is an ancestor of (or equal to) of.
func IsAncestor(ctx context.Context, root, commit, of string) (bool, error) {
	_, code, err := run(ctx, call{root: root, args: []string{"merge-base", "--is-ancestor", commit, of}, okCodes: []int{1}})
	if err != nil {
		return false, err
	}
	return code == 0, nil
}
