// Package repo answers what `init` asks of the git repository around a
// project: its top level, the files in it, the base branch its changes
// should be compared with, and whether a path is ignored. Every git command
// runs through statecfg/kit/gitcmd, with a deadline.
package repo

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
)

// gitTimeout bounds one git command.
const gitTimeout = 30 * time.Second

// git runs git in dir and returns its trimmed stdout; a non-zero exit is an
// error carrying git's first stderr line (an *exitError).
func git(ctx context.Context, dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	res, err := gitcmd.Run(ctx, gitcmd.Call{Dir: dir, Args: args})
	if ctx.Err() != nil {
		return "", fmt.Errorf("git %s: %w", args[0], ctx.Err())
	}
	if err != nil {
		return "", fmt.Errorf("git %s: %w", args[0], err)
	}
	if res.ExitCode != 0 {
		return "", &exitError{sub: args[0], code: res.ExitCode, stderr: res.Stderr}
	}
	return strings.TrimRight(string(res.Stdout), "\n"), nil
}

// exitError is a git command that exited non-zero.
type exitError struct {
	sub    string
	code   int
	stderr string
}

// Error names the subcommand and git's first stderr line (its exit status
// when it said nothing).
func (e *exitError) Error() string {
	line, _, _ := strings.Cut(strings.TrimSpace(e.stderr), "\n")
	if line == "" {
		return fmt.Sprintf("git %s: exit status %d", e.sub, e.code)
	}
	return fmt.Sprintf("git %s: %s", e.sub, line)
}

// TopLevel returns the top level of the git work tree holding dir, or an
// error when dir is not in one (or git is missing).
func TopLevel(ctx context.Context, dir string) (string, error) {
	return git(ctx, dir, "rev-parse", "--show-toplevel")
}

// Files lists the files below dir that git knows or would add (tracked,
// and untracked but not ignored), relative to dir and slash-separated.
func Files(ctx context.Context, dir string) ([]string, error) {
	out, err := git(ctx, dir, "-c", "core.quotePath=false", "ls-files", "--cached", "--others", "--exclude-standard", "-z")
	if err != nil {
		return nil, err
	}
	var files []string
	for _, f := range strings.Split(out, "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files, nil
}

// exists reports whether ref names a commit.
func exists(ctx context.Context, dir, ref string) bool {
	_, err := git(ctx, dir, "rev-parse", "--verify", "-q", "--end-of-options", ref+"^{commit}")
	return err == nil
}

// BaseBranch is the ref a project's changes are best compared with, and why:
//  1. a remote's default branch (origin first): refs/remotes/<r>/HEAD;
//  2. <remote>/main or <remote>/master when the remote's HEAD is not known;
//  3. a local main or master branch;
//  4. the current branch's upstream;
//  5. the current branch itself (a repository with no other branch, maybe
//     without a commit yet: its changes are the uncommitted ones);
//
// and ok false when none applies (not a repository, detached HEAD).
func BaseBranch(ctx context.Context, dir string) (ref, why string, ok bool) {
	remotes := Remotes(ctx, dir)
	for _, r := range remotes {
		if head, err := git(ctx, dir, "symbolic-ref", "-q", "--short", "refs/remotes/"+r+"/HEAD"); err == nil && head != "" {
			return head, "the default branch of remote " + r, true
		}
	}
	for _, r := range remotes {
		for _, b := range []string{"main", "master"} {
			if exists(ctx, dir, "refs/remotes/"+r+"/"+b) {
				return r + "/" + b, "a branch of remote " + r, true
			}
		}
	}
	for _, b := range []string{"main", "master"} {
		if exists(ctx, dir, "refs/heads/"+b) {
			return b, "the local " + b + " branch; there is no remote", true
		}
	}
	if up, err := git(ctx, dir, "rev-parse", "--abbrev-ref", "--symbolic-full-name", "@{upstream}"); err == nil && up != "" {
		return up, "the current branch's upstream", true
	}
	if cur, err := git(ctx, dir, "symbolic-ref", "-q", "--short", "HEAD"); err == nil && cur != "" {
		return cur, "the current branch; there is no remote, main or master", true
	}
	return "", "", false
}

// Remotes lists the repository's remotes, origin first.
func Remotes(ctx context.Context, dir string) []string {
	out, err := git(ctx, dir, "remote")
	if err != nil || out == "" {
		return nil
	}
	var rs []string
	for _, r := range strings.Fields(out) {
		if r == "origin" {
			rs = append([]string{r}, rs...)
		} else {
			rs = append(rs, r)
		}
	}
	return rs
}

// Ignored reports whether git ignores rel (a path relative to dir, which
// need not exist; a trailing slash asks about a directory).
func Ignored(ctx context.Context, dir, rel string) (bool, error) {
	_, err := git(ctx, dir, "check-ignore", "-q", "--no-index", "--", rel)
	if err == nil {
		return true, nil
	}
	var exitErr *exitError
	if errors.As(err, &exitErr) && exitErr.code == 1 {
		return false, nil
	}
	return false, err
}
