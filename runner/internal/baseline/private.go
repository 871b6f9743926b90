package baseline

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// The base run's world is private: it runs in a checkout of its own
// (git.PrivateCheckout), with private copies of the work tree's dependency
// directories, and with an environment in which every path into the
// project names the checkout instead. Whatever names the user's project
// by its absolute path (a link npm left, an editable install's .pth, an
// activated virtual environment's PATH and VIRTUAL_ENV, an exported
// PYTHONPATH) would otherwise make the base run read the agent's code,
// and write the user's files.

// relocation maps absolute paths of the user's project (its git work
// tree's top, as given and with links resolved, and the targets of linked
// dependency directories) to where the base run has them.
type relocation struct{ pairs []pathPair }

// pathPair is one mapping: from, an absolute directory, is to.
type pathPair struct{ from, to string }

// newRelocation maps the work tree's top workTop to the base checkout's
// top baseTop.
func newRelocation(workTop, baseTop string) *relocation {
	r := &relocation{}
	r.add(workTop, baseTop)
	return r
}

// add maps from (and from with its links resolved) to to; longer
// directories are matched first.
func (r *relocation) add(from, to string) {
	for _, f := range []string{filepath.Clean(from), resolved(from)} {
		if f == "/" || f == "." || f == "" {
			continue
		}
		dup := false
		for _, p := range r.pairs {
			dup = dup || p.from == f
		}
		if !dup {
			r.pairs = append(r.pairs, pathPair{f, filepath.Clean(to)})
		}
	}
	for i := 1; i < len(r.pairs); i++ {
		for j := i; j > 0 && len(r.pairs[j].from) > len(r.pairs[j-1].from); j-- {
			r.pairs[j], r.pairs[j-1] = r.pairs[j-1], r.pairs[j]
		}
	}
}

// path maps one absolute path; ok is false when it lies outside every
// mapped directory.
func (r *relocation) path(p string) (string, bool) {
	for _, pr := range r.pairs {
		if p == pr.from {
			return pr.to, true
		}
		if rest, ok := strings.CutPrefix(p, pr.from+string(filepath.Separator)); ok {
			return filepath.Join(pr.to, rest), true
		}
	}
	return p, false
}

// text replaces in s, in one pass, every mapped directory that stands as
// a path of its own (not the tail of a longer name, nor the head of one:
// /proj is not in /proj2 nor in /x/proj) by its mapping; changed reports a
// replacement.
func (r *relocation) text(s string) (out string, changed bool) { return r.replace(s, false) }

// replace is text; with existing, a path is replaced only when its
// mapping exists, or it does not exist either: a directory of the user's
// that the base has no copy of (a TMPDIR, a cache, a tools directory
// inside the project, all ignored by git) stays the user's.
func (r *relocation) replace(s string, existing bool) (out string, changed bool) {
	found := false
	for _, pr := range r.pairs {
		found = found || strings.Contains(s, pr.from)
	}
	if !found {
		return s, false
	}
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '/' || i > 0 && pathByte(s[i-1]) && !strings.HasSuffix(s[:i], "://") {
			continue
		}
		for _, pr := range r.pairs {
			end := i + len(pr.from)
			if strings.HasPrefix(s[i:], pr.from) && (end == len(s) || !pathByte(s[end]) || s[end] == '/') {
				if existing && !mappedExists(s[i:], pr, end-i) {
					break
				}
				b.WriteString(s[last:i] + pr.to)
				last, changed = end, true
				i = end - 1
				break
			}
		}
	}
	b.WriteString(s[last:])
	return b.String(), changed
}

// mappedExists reports whether the path at the start of s (its mapped
// directory pr.from n bytes long) exists where pr maps it, or does not
// exist where it is.
func mappedExists(s string, pr pathPair, n int) bool {
	j := n
	for j < len(s) && pathByte(s[j]) {
		j++
	}
	if _, err := os.Lstat(pr.to + s[n:j]); err == nil {
		return true
	}
	_, err := os.Lstat(s[:j])
	return err != nil
}

// pathByte reports whether c can be part of a file name in a path.
func pathByte(c byte) bool {
	return c == '/' || c == '.' || c == '-' || c == '_' || c == '~' || c == '+' || c == '@' ||
		'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// gitLocationVars move git away from the repository the file system shows:
// the base run's git must find its own checkout.
var gitLocationVars = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_INDEX_FILE": true, "GIT_COMMON_DIR": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_NAMESPACE": true,
}

// environ is env for the base run: every value naming a path in the
// project names the same path in the base checkout where the base has it
// (PATH, VIRTUAL_ENV, PYTHONPATH, NODE_PATH, PWD, ...), and git's location
// variables are left out.
func (r *relocation) environ(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		if gitLocationVars[k] {
			continue
		}
		if nv, ok := r.replace(v, true); ok {
			kv = k + "=" + nv
		}
		out = append(out, kv)
	}
	return out
}

// DependencyDirs are the directories of installed dependencies that a
// project keeps untracked beside its files (npm's node_modules, Python's
// virtual environments): a fresh checkout of the base has none, and a
// check run there would fail for want of its tools (eslint, pytest), not
// for the code. See copyDependencies.
var DependencyDirs = []string{"node_modules", ".venv", "venv"}

// copyDependencies gives the base checkout (the project at base) the
// dependency directories of the work tree (the project at work) that it
// lacks, in the project root and every directory down to the check's
// working directory wd (relative, slash-separated), as private copies
// relocated by r (privateCopy): whatever the base run does to them (npm ci
// empties node_modules, pip installs into a virtual environment) stays in
// the checkout, removed with it. A dependency directory that is a link to
// a directory elsewhere is copied from its target, and r learns that the
// target is now the copy. copies holds the checkout's copies (their
// project paths, made by earlier calls too) with, for each, why it does
// not hold what its package manager installed ("" when it does;
// verifyDependency, checked as it is copied). It returns those reasons for
// the copies this working directory sees: a base failure with any is no
// evidence.
func copyDependencies(ctx context.Context, work, base, wd string, r *relocation, copies map[string]string) (unverified []string) {
	dirs := []string{"."}
	if wd != "." && wd != "" {
		parts := strings.Split(path.Clean(wd), "/")
		for i := range parts {
			dirs = append(dirs, strings.Join(parts[:i+1], "/"))
		}
	}
	for _, d := range dirs {
		for _, name := range DependencyDirs {
			rel := path.Join(d, name)
			if problem, done := copies[rel]; done {
				if problem != "" {
					unverified = append(unverified, problem)
				}
				continue
			}
			src := filepath.Join(work, filepath.FromSlash(d), name)
			dst := filepath.Join(base, filepath.FromSlash(d), name)
			if !isDir(src) {
				continue
			}
			if _, err := os.Lstat(dst); err == nil || !isDir(filepath.Dir(dst)) {
				continue // the base has its own, or not that directory
			}
			target := resolved(src)
			if _, inside := r.path(target); !inside {
				r.add(target, dst) // a link out of the project: its target is the copy now
			}
			problem := verifyDependency(ctx, target, rel)
			if err := privateCopy(target, dst, name, r); err != nil {
				_ = os.RemoveAll(dst) // the run goes on without it
				continue
			}
			copies[rel] = problem
			if problem != "" {
				unverified = append(unverified, problem)
			}
		}
	}
	return unverified
}

// maxCopiedBytes bounds what privateCopy copies: beyond it the base run
// goes without the dependency directory (and fails, saying so, if it
// needs it).
const maxCopiedBytes = 1 << 30

// maxRelocatedBytes bounds the files whose text privateCopy relocates:
// scripts, .pth files, editable finders, direct_url.json, egg-links, not
// data.
const maxRelocatedBytes = 64 << 10

// privateCopy makes dst a copy of the directory tree src that nothing done
// in dst can change src through, relocated by r: directories and files are
// copied (large ones by the kernel, which shares blocks where the file
// system can), symbolic links made anew, an absolute target in the project
// pointing where r maps it; a small text file that names the project by
// its absolute path (a virtual environment's scripts and activate files,
// an editable install's .pth and finder, direct_url.json, an egg-link)
// names the base checkout instead. Hard links are not used: a write into a
// linked file would reach the work tree's. What tools write there as they
// run (notCopied, by the directory's name) is left out.
func privateCopy(src, dst, name string, r *relocation) error {
	copied := int64(0)
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		if notCopied(name, filepath.ToSlash(rel), d.IsDir()) {
			return fs.SkipDir
		}
		to := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			return os.Mkdir(to, info.Mode().Perm()|0o700)
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(copiedLink(src, p, target, r), to)
		case !info.Mode().IsRegular():
			return nil // sockets, fifos: nothing a check reads
		}
		if copied += info.Size(); copied > maxCopiedBytes {
			return fmt.Errorf("more than %d MB to copy", maxCopiedBytes>>20)
		}
		if info.Size() <= maxRelocatedBytes {
			return copyRelocated(p, to, info.Mode().Perm(), r)
		}
		return copyFile(p, to, info.Mode().Perm())
	})
}

// copiedLink is the target the copy of the link p (in the tree src) to
// target is given: an absolute target in the project where r maps it; a
// relative one kept when it stays in src or leads into the project (the
// base checkout has the same files at the same distance), and made
// absolute when it leads out of both (npm install ../shared links
// node_modules/shared to ../../shared), since from the copy's place the
// same relative path would lead nowhere.
func copiedLink(src, p, target string, r *relocation) string {
	if filepath.IsAbs(target) {
		mapped, _ := r.path(filepath.Clean(target))
		return mapped
	}
	abs := filepath.Join(filepath.Dir(p), target)
	if inside, err := filepath.Rel(src, abs); err == nil && filepath.IsLocal(inside) {
		return target
	}
	if _, inProject := r.path(abs); inProject {
		return target
	}
	return abs
}

// copyRelocated copies the small file from to to with mode, its text
// relocated by r (a file with a NUL byte is binary and copied as is).
func copyRelocated(from, to string, mode fs.FileMode, r *relocation) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	if bytes.IndexByte(b, 0) < 0 {
		if s, ok := r.text(string(b)); ok {
			b = []byte(s)
		}
	}
	f, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// copyFile copies the file from to a new file to with mode.
func copyFile(from, to string, mode fs.FileMode) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}

// isDir reports whether p is a directory (through links).
func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}
