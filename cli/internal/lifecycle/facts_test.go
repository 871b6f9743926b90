//go:build unix

package lifecycle

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// facts reads what the oracle needs of git and the disk: branch, HEAD, the
// files of the merge base of main and HEAD and of the episode's base, and
// the paths whose bytes differ from them. The comparison is made here, byte
// for byte, on the blobs git stores and the files on disk: no index flag
// (skip-worktree, assume-unchanged) and no attribute (-diff, binary,
// text=auto) can hide a change from the oracle.
func (h *harness) facts() (facts, error) {
	f := facts{Changed: map[string]bool{}, Maybe: map[string]bool{}, MaybeWhy: map[string]string{}}
	branch, err := h.s.git("symbolic-ref", "-q", "--short", "HEAD")
	if err != nil {
		branch = "HEAD"
	}
	f.Branch = branch
	f.Head, _ = h.s.git("rev-parse", "-q", "--verify", "HEAD^{commit}")
	h.m.unborn = f.Head == ""
	filesAt := func(commit string) (map[string]string, error) {
		if commit == "" {
			return nil, nil
		}
		if c, ok := h.commits[commit]; ok {
			return c, nil
		}
		c, err := h.commitFiles(commit)
		if err == nil {
			h.commits[commit] = c
		}
		return c, err
	}
	if f.Base, err = filesAt(h.mergeBase("main", f.Head)); err != nil {
		return f, err
	}
	episodeBase := h.mergeBase(h.m.mainMark, f.Head)
	if h.m.markTree != "" {
		episodeBase = h.m.markTree
	}
	if f.EpisodeBase, err = filesAt(episodeBase); err != nil {
		return f, err
	}
	work := map[string]string{}
	nested := map[string]bool{}
	for p, c := range h.m.files {
		if i := strings.Index(p, "/.git/"); i >= 0 {
			nested[p[:i]] = true
			continue
		}
		work[p] = c
	}
	inNested := func(p string) bool {
		for d := range nested {
			if strings.HasPrefix(p, d+"/") {
				return true
			}
		}
		return false
	}
	for p, why := range compareTrees(work, f.Base) {
		switch {
		case why == "" && inNested(p):
			f.Maybe[p], f.MaybeWhy[p] = true, "nested"
		case why == "":
			f.Changed[p], f.Maybe[p] = true, true
		default:
			f.Maybe[p], f.MaybeWhy[p] = true, why
		}
	}
	for p := range compareTrees(work, f.EpisodeBase) {
		if !f.Maybe[p] {
			f.Maybe[p], f.MaybeWhy[p] = true, "episode"
		}
	}
	if h.m.hid {
		out, err := h.s.git("ls-files", "-z", "--others", "--ignored", "--exclude-standard")
		if err != nil {
			return f, err
		}
		f.Ignored = map[string]bool{}
		for p := range strings.SplitSeq(out, "\x00") {
			f.Ignored[p] = p != ""
		}
	}
	if f.Head != "" {
		head, err := filesAt(f.Head)
		if err != nil {
			return f, err
		}
		if _, ok := head[gauntletDir+"/config.yml"]; !ok {
			// With no record, a configuration HEAD no longer holds is the
			// one at the merge base of HEAD with the base branch.
			if mb := h.mergeBase(f.Head, "main"); mb != "" && mb != f.Head {
				if head, err = filesAt(mb); err != nil {
					return f, err
				}
			}
		}
		f.HeadGauntlet = gauntletOf(head)
		f.HeadConfigBroken = strings.Contains(head[brokenCheckFile], brokenLine)
	}
	return f, nil
}

// compareTrees returns the paths whose content differs between work and
// base (on one side only included), each with "" or "crlf" when the two
// differ in line endings only.
func compareTrees(work, base map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range work {
		if b, ok := base[p]; !ok || b != c {
			out[p] = ""
			if ok && strings.ReplaceAll(b, "\r\n", "\n") == strings.ReplaceAll(c, "\r\n", "\n") {
				out[p] = "crlf"
			}
		}
	}
	for p := range base {
		if _, ok := work[p]; !ok {
			out[p] = ""
		}
	}
	return out
}

// mergeBase is the merge base of two revisions, "" when either is "" or
// missing, or they share no commit.
func (h *harness) mergeBase(a, b string) string {
	if a == "" || b == "" {
		return ""
	}
	mb, err := h.s.git("merge-base", a, b)
	if err != nil {
		return ""
	}
	return mb
}

// commitFiles returns the files of commit as git stores them (the blobs'
// bytes, no filter applied), leaving out nested repositories (gitlinks).
func (h *harness) commitFiles(commit string) (map[string]string, error) {
	list, err := h.s.git("ls-tree", "-r", "-z", commit)
	if err != nil {
		return nil, err
	}
	var paths, ids []string
	for _, e := range strings.Split(list, "\x00") {
		meta, path, ok := strings.Cut(e, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || fields[1] != "blob" {
			continue
		}
		paths, ids = append(paths, path), append(ids, fields[2])
	}
	out := map[string]string{}
	if len(ids) == 0 {
		return out, nil
	}
	cmd := exec.Command("git", "cat-file", "--batch")
	cmd.Dir, cmd.Env = h.s.repo, h.s.env
	cmd.Stdin = strings.NewReader(strings.Join(ids, "\n") + "\n")
	data, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git cat-file --batch at %s: %w", commit, err)
	}
	r := bufio.NewReader(bytes.NewReader(data))
	for _, p := range paths {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file --batch at %s: %w", commit, err)
		}
		var id, typ string
		var size int
		if _, err := fmt.Sscanf(header, "%s %s %d", &id, &typ, &size); err != nil {
			return nil, fmt.Errorf("git cat-file --batch header %q: %w", header, err)
		}
		body := make([]byte, size+1)
		if _, err := io.ReadFull(r, body); err != nil {
			return nil, err
		}
		out[p] = string(body[:size])
	}
	return out, nil
}
