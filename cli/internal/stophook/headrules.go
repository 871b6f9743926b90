package stophook

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitcmd"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// A stop that finds no record of the ignore rules (no stop of the project
// ran in any work tree, and no person's trust recorded them: a project no
// person trusted, whose first stop adopts HEAD's configuration, or one an
// older version trusted) does not adopt the rules it finds: what the agent
// wrote before that stop would be adopted with them. It compares them with
// the rules HEAD's commit stands for instead (headRules): the .gitignore
// files as that commit holds them, and no rule in the ignore files outside
// the work tree, which no commit holds. A rule written since is then a
// change like one between two stops (rulesNotice), told in every answer of
// the session and of every session for a day.

// headSawRules begins the description of the ignore rules headRules makes.
const headSawRules = "the ignore rules committed at"

// maxHeadRules bounds what is read of the .gitignore files HEAD holds; past
// it the stop has no record to compare with, as before HEAD's first commit.
const maxHeadRules = 32 << 20

// headRules is what a stop that saw the ignore rules files (listed in the
// work tree of p) and has no record of them compares them with, at now:
// each .gitignore file as HEAD's commit holds it, or the merge base of
// HEAD with baseBranch when HEAD is ahead of it (absent when it holds
// none), each ignore file outside the work tree as holding no rule (one
// that holds none, comments or blank lines only, as it is), except those
// an earlier stop saw (prev) and the sparse-checkout patterns, which a
// person sets up and which have their own notice: as they were seen. Nil
// when HEAD names no commit or git cannot say what it holds.
func headRules(ctx context.Context, p place.Place, files, prev map[string]string, baseBranch string, now time.Time) *verdicts.TrustSeen {
	head, err := trust.HeadCommit(ctx, p)
	if err != nil || head == "" {
		return nil
	}
	// The work committed on a branch since it left the base branch is the
	// agent's as much as what it did not commit: the rules are those of
	// the merge base with the base branch when HEAD is ahead of it.
	from, where := head, "HEAD "+shortCommit(head)
	if mb := trust.MergeBaseWith(ctx, p.TopLevel, head, baseBranch); mb != "" && mb != head {
		from, where = mb, "the merge base of HEAD with "+baseBranch+", "+shortCommit(mb)+","
	}
	atHead, err := headGitignores(ctx, p, from)
	if err != nil {
		return nil
	}
	sparse := filepath.Join(p.GitDir, "info", "sparse-checkout")
	out := map[string]string{}
	for n, v := range files {
		switch {
		case n == listedMark || n == sparse || !filepath.IsAbs(n) && !isGitignore(n):
			out[n] = v
		case filepath.IsAbs(n):
			out[n] = v
			if w, ok := prev[n]; ok {
				out[n] = w
			} else if holdsRules(n) {
				out[n] = "absent"
			}
		default:
			out[n] = "absent"
			if w, ok := atHead[n]; ok {
				out[n] = w
			}
		}
	}
	if !listingCut(files) {
		for n, v := range atHead {
			if _, ok := out[n]; !ok {
				out[n] = v // gone from the work tree since
			}
		}
	}
	seen := sealRules(out, nil, true, now)
	seen.Desc = headSawRules + " " + where
	return &seen
}

// listingCut reports whether files fingerprints some .gitignore files
// together (past maxRuleFiles), by no name.
func listingCut(files map[string]string) bool {
	for f := range files {
		if strings.HasSuffix(f, moreGitignores) {
			return true
		}
	}
	return false
}

// headGitignores fingerprints (fileFingerprint's form) every .gitignore
// file the commit head holds, by its top-level-relative path. (ls-tree
// takes no glob pathspec: the files are those a diff from the empty tree
// adds.)
func headGitignores(ctx context.Context, p place.Place, head string) (map[string]string, error) {
	empty, err := gitOut(ctx, p.TopLevel, "hash-object", "-t", "tree", os.DevNull)
	if err != nil {
		return nil, err
	}
	list, err := gitOut(ctx, p.TopLevel, "diff-tree", "-r", "-z", "--no-renames", strings.TrimSpace(string(empty)), head, "--", gitignoreSpec)
	if err != nil {
		return nil, err
	}
	var paths, oids []string
	fields := strings.Split(string(list), "\x00")
	for i := 0; i+1 < len(fields); i += 2 {
		meta, rel := strings.Fields(fields[i]), fields[i+1]
		if len(meta) == 5 && meta[1] != "120000" && meta[1] != "160000" && isGitignore(rel) {
			paths, oids = append(paths, rel), append(oids, meta[3])
		}
	}
	if len(oids) == 0 {
		return map[string]string{}, nil
	}
	res, err := gitcmd.Run(ctx, gitcmd.Call{Dir: p.TopLevel, Args: []string{"cat-file", "--batch"},
		Stdin: strings.Join(oids, "\n") + "\n", Limit: maxHeadRules})
	switch {
	case err != nil:
		return nil, err
	case res.ExitCode != 0 || res.Truncated:
		return nil, fmt.Errorf("git cat-file --batch: exit %d (output cut: %v): %s", res.ExitCode, res.Truncated, strings.TrimSpace(res.Stderr))
	}
	return parseBatch(res.Stdout, paths)
}

// parseBatch reads the contents `git cat-file --batch` wrote (out), one
// object per path of paths in order, as fingerprints by path.
func parseBatch(out []byte, paths []string) (map[string]string, error) {
	fps := map[string]string{}
	for _, rel := range paths {
		header, rest, ok := bytes.Cut(out, []byte("\n"))
		f := strings.Fields(string(header))
		if !ok || len(f) != 3 {
			return nil, fmt.Errorf("git cat-file: unexpected answer %q for %s", header, rel)
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size < 0 || size+1 > len(rest) {
			return nil, fmt.Errorf("git cat-file: bad size %q for %s", f[2], rel)
		}
		sum := sha256.Sum256(rest[:size])
		fps[rel] = hex.EncodeToString(sum[:])
		if size > maxExcludesFile {
			fps[rel] = "unreadable" // as fileFingerprint reads it from the disk
		}
		out = rest[size+1:]
	}
	return fps, nil
}

// holdsRules reports whether the ignore file f holds a rule: a line that
// is neither blank nor a comment. One that cannot be read holds none to
// compare with.
func holdsRules(f string) bool {
	data, err := fsread.File(f, maxExcludesFile)
	if err != nil {
		return false
	}
	for _, l := range strings.Split(string(data), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			return true
		}
	}
	return false
}

// headRulesBefore is what a notice of a change since the rules headRules
// made (from) says of them.
func headRulesBefore(from verdicts.TrustSeen) string {
	where := strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(from.Desc, headSawRules)), ",")
	return fmt.Sprintf(" (no stop before it, and no record of the rules: compared with the .gitignore files committed at %s, "+
		"and no rule in the ignore files outside the work tree)", where)
}
