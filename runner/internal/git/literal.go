package git

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/atomicfile"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// The tree as it is on disk. A gate reads the bytes and modes of the files
// in the work tree; git's own view of them is something else: attributes
// and configuration convert a file on its way into a blob (line endings
// under `text`, `eol` or core.autocrlf, a clean filter, `ident`,
// `working-tree-encoding`), core.fileMode=false and core.symlinks=false
// hide modes and links, index flags (skip-worktree, assume-unchanged) hide
// whole files, and `-diff` or `binary` turn a text file's diff into
// "Binary files differ". So every git command that reads the work tree for
// a snapshot, or shows a diff to a reviewer, runs in a literal view of the
// repository: a private git directory (see diskRepo.prepare) whose
// attributes, read after every .gitattributes file and .git/info/attributes
// and so winning over them, switch every conversion off, and whose
// configuration, included from the repository's, is overridden on the
// command line (literalConfig). The snapshot's own index never carries an
// index flag (see mergeSeed). Nothing is written into the repository's own
// git directory besides the gauntlet's directory and new objects.

// shadowDir is the private git directory of a work tree, in its git
// directory (KeptIndexDir's parent).
const shadowDir = "agent-gauntlet/literal"

// literalAttributes is the private git directory's info/attributes: the
// last word on every path. `!diff` makes diff and binary detection look at
// the content, as for a path no attribute names.
const literalAttributes = "# agent-gauntlet: the literal view of the work tree (no conversion, no driver)\n" +
	"* -text -eol -crlf -filter -ident -working-tree-encoding !diff\n"

// literalConfig are the settings every literal command runs with: no line
// ending conversion, modes and symbolic links as the file system has them,
// every cached stat checked in full, no file system monitor, no split or
// sparse index, the whole work tree.
var literalConfig = func() []string {
	cfg := []string{
		"core.autocrlf=false", "core.safecrlf=false", "core.fileMode=true", "core.symlinks=true",
		"core.checkStat=default", "core.trustctime=true", "core.ignoreStat=false", "core.fsmonitor=false", "core.splitIndex=false",
		"core.sparseCheckout=false", "core.sparseCheckoutCone=false", "index.sparse=false",
	}
	// On a case-sensitive file system (Linux) two names that differ in
	// case are two files, whatever core.ignorecase says; elsewhere git set
	// it from the file system when the repository was made.
	if runtime.GOOS == "linux" {
		cfg = append(cfg, "core.ignorecase=false")
	}
	return cfg
}()

// diskRepo is one work tree as the literal view reads it.
type diskRepo struct {
	// top is the absolute top level of the work tree, gitDir its git
	// directory, commonDir the repository's common directory.
	top, gitDir, commonDir string
	// prefix is the project root below top ("" or "dir/"), as git shows it.
	prefix string
	// objects is the object directory new objects are written to;
	// alternates are more object directories to read from (a nested
	// repository's own, whose objects its index names).
	objects    string
	alternates []string
	// shadow is the private git directory, below owner, the git
	// directory it is kept in: every directory between the two is made or
	// checked without following a link (owned.MkdirAll), so that the view
	// is never written through one planted there.
	shadow, owner string
}

// openDisk describes the work tree of the project at root.
func openDisk(ctx context.Context, root string) (*diskRepo, error) {
	gitDir, _, err := gitPaths(ctx, root)
	if err != nil {
		return nil, err
	}
	pfx, err := showPrefix(ctx, root)
	if err != nil {
		return nil, err
	}
	top := root
	for p := strings.TrimSuffix(pfx, "/"); p != "" && p != "."; p = filepath.Dir(p) {
		top = filepath.Dir(top)
	}
	if !filepath.IsAbs(top) {
		if top, err = filepath.Abs(top); err != nil {
			return nil, err
		}
	}
	d := &diskRepo{top: top, gitDir: gitDir, commonDir: commonDirOf(gitDir), prefix: pfx,
		shadow: filepath.Join(gitDir, filepath.FromSlash(shadowDir)), owner: gitDir}
	if env := os.Getenv("GIT_COMMON_DIR"); env != "" {
		d.commonDir = env
	}
	d.objects = os.Getenv("GIT_OBJECT_DIRECTORY")
	if d.objects == "" {
		d.objects = filepath.Join(d.commonDir, "objects")
	}
	if alt := os.Getenv("GIT_ALTERNATE_OBJECT_DIRECTORIES"); alt != "" {
		d.alternates = filepath.SplitList(alt)
	}
	return d, nil
}

// commonDirOf is the common directory of the git directory gitDir: the one
// its commondir file names (a linked worktree's), else gitDir itself.
func commonDirOf(gitDir string) string {
	data, err := fsread.File(filepath.Join(gitDir, "commondir"), maxGitFile)
	if err != nil {
		return gitDir
	}
	p := strings.TrimSpace(string(data))
	if !filepath.IsAbs(p) {
		p = filepath.Join(gitDir, p)
	}
	return filepath.Clean(p)
}

// literalEnvUnset are the variables a literal command must not inherit:
// they would move it back to the repository's own git directory, index or
// configuration file.
var literalEnvUnset = []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE",
	"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_CONFIG", "GIT_NAMESPACE"}

// call is a git command in the literal view of d, run in dir (a directory
// of the work tree: pathspecs are relative to it), with index as its index
// ("" for none).
func (d *diskRepo) call(dir, index string, args ...string) call {
	env := []string{"GIT_DIR=" + d.shadow, "GIT_WORK_TREE=" + d.top, "GIT_OBJECT_DIRECTORY=" + d.objects}
	if len(d.alternates) > 0 {
		env = append(env, "GIT_ALTERNATE_OBJECT_DIRECTORIES="+strings.Join(d.alternates, string(os.PathListSeparator)))
	}
	if index != "" {
		env = append(env, "GIT_INDEX_FILE="+index)
	}
	return call{root: dir, args: args, env: env, unset: literalEnvUnset, config: literalConfig}
}

// prepare makes or refreshes the private git directory: a HEAD, the
// attributes that switch conversions off, the repository's exclude file,
// and a configuration that includes the repository's (its format and
// extensions copied, since git reads those from the git directory's own
// file only).
func (d *diskRepo) prepare(ctx context.Context) error {
	rel, err := filepath.Rel(d.owner, d.shadow)
	if err != nil {
		return fmt.Errorf("literal view: %w", err)
	}
	for _, sub := range []string{"refs", "info"} {
		if err := owned.MkdirAll(d.owner, filepath.Join(rel, sub), 0o755); err != nil {
			return fmt.Errorf("literal view: %w", err)
		}
	}
	if err := writeIfDiffers(filepath.Join(d.shadow, "HEAD"), d.head()); err != nil {
		return err
	}
	if err := writeIfDiffers(filepath.Join(d.shadow, "info", "attributes"), []byte(literalAttributes)); err != nil {
		return err
	}
	if err := d.mirrorExclude(); err != nil {
		return err
	}
	if err := d.sweep(); err != nil {
		return err
	}
	return d.writeConfig(ctx)
}

// shadowEntries are the entries of the private git directory, by their
// path in it, that prepare writes; the directories among them hold
// nothing else (refs/ nothing at all).
var shadowEntries = map[string]bool{"HEAD": true, "config": true, "refs": true, "info": true,
	"info/attributes": true, "info/exclude": true}

// sweep removes from the private git directory whatever prepare does not
// write there: every file git reads from a git directory can change what
// the view sees (a commondir leading to another repository, a
// config.worktree, grafts, shallow, packed refs, alternates), and the
// directory is the gauntlet's alone, so an entry put there by anyone else
// (the agent, on purpose) is taken out before each use, never followed.
func (d *diskRepo) sweep() error {
	for _, dir := range []string{"", "info", "refs"} {
		ents, err := os.ReadDir(filepath.Join(d.shadow, dir))
		if err != nil {
			return fmt.Errorf("literal view: %w", err)
		}
		for _, e := range ents {
			rel := path.Join(dir, e.Name())
			if dir == "refs" || !shadowEntries[rel] {
				if err := os.RemoveAll(filepath.Join(d.shadow, filepath.FromSlash(rel))); err != nil {
					return fmt.Errorf("literal view: %w", err)
				}
			}
		}
	}
	return nil
}

// literalHead is the private git directory's HEAD when the work tree's
// cannot be mirrored: a branch no commit is on.
const literalHead = "ref: refs/heads/agent-gauntlet-literal\n"

// head is the private git directory's HEAD: the work tree's own, a branch
// (born or not) or a commit, so that a conditional include of the
// repository's configuration on the branch (`includeIf "onbranch:..."`)
// applies to the view exactly when it applies to the user's git; with a
// HEAD of its own the view's git read a configuration that a condition
// naming that branch gave it alone (a core.excludesFile hiding files from
// the snapshot, told nowhere). A HEAD that is neither is replaced by
// literalHead.
func (d *diskRepo) head() []byte {
	data, err := fsread.File(filepath.Join(d.gitDir, "HEAD"), maxGitFile)
	if err != nil {
		return []byte(literalHead)
	}
	line := strings.TrimSpace(string(data))
	if ref, ok := strings.CutPrefix(line, "ref: "); ok && strings.HasPrefix(ref, "refs/heads/") && !strings.ContainsAny(ref, " \t\x00") {
		return []byte("ref: " + ref + "\n")
	}
	if (len(line) == 40 || len(line) == 64) && strings.Trim(line, "0123456789abcdef") == "" {
		return []byte(line + "\n")
	}
	return []byte(literalHead)
}

// mirrorExclude keeps the private git directory's info/exclude equal to
// the repository's, so that the literal view ignores what git ignores.
func (d *diskRepo) mirrorExclude() error {
	own := filepath.Join(d.shadow, "info", "exclude")
	data, err := fsread.File(filepath.Join(d.commonDir, "info", "exclude"), maxOwnFile)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.Remove(own); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("literal view: %w", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("literal view: %w", err)
	}
	return writeIfDiffers(own, data)
}

// configFiles are the repository's configuration files the private one
// includes, in git's order: the common one, then the work tree's own.
func (d *diskRepo) configFiles() []string {
	files := []string{filepath.Join(d.commonDir, "config")}
	if wt := filepath.Join(d.gitDir, "config.worktree"); d.gitDir != d.commonDir || fileExists(wt) {
		files = append(files, wt)
	}
	return files
}

// writeConfig writes the private configuration when the repository's
// files changed since it was written (their identities are noted in it).
func (d *diskRepo) writeConfig(ctx context.Context) error {
	p := filepath.Join(d.shadow, "config")
	var ids strings.Builder
	for _, f := range d.configFiles() {
		id, _ := fileIdentity(f)
		fmt.Fprintf(&ids, "# source %q %s\n", f, id)
	}
	var includes strings.Builder
	for _, f := range d.configFiles() {
		fmt.Fprintf(&includes, "[include]\n\tpath = %s\n", quoteConfig(f))
	}
	if old, err := readOwn(p); err == nil && ownConfig(string(old), ids.String(), includes.String()) {
		return nil
	}
	format, err := d.repositoryFormat(ctx)
	if err != nil {
		return err
	}
	return writeIfDiffers(p, []byte(ids.String()+format+includes.String()))
}

// ownConfig reports whether old is the private configuration writeConfig
// writes for the sources noted in ids and their includes: ids, the
// repository's format as repositoryFormat writes it, then the includes,
// and nothing else. A line added anywhere (the agent's excludesFile, an
// alias, a hook path: it would change what the view's git sees) makes it
// no longer the gauntlet's, and it is written again.
func ownConfig(old, ids, includes string) bool {
	format, ok := strings.CutPrefix(old, ids)
	if !ok {
		return false
	}
	if format, ok = strings.CutSuffix(format, includes); !ok {
		return false
	}
	lines := strings.Split(strings.TrimSuffix(format, "\n"), "\n")
	if len(lines) == 0 || lines[0] != "[core]" {
		return false
	}
	section := "core"
	for _, l := range lines[1:] {
		switch {
		case l == "[extensions]" && section == "core":
			section = "extensions"
		case section == "core" && formatLine.MatchString(l) && strings.HasPrefix(l, "\trepositoryformatversion = "):
		case section == "extensions" && formatLine.MatchString(l):
		default:
			return false
		}
	}
	return true
}

// formatLine is a line of the format writeConfig copies: a name and a
// value quoted by quoteConfig.
var formatLine = regexp.MustCompile(`^\t[A-Za-z][A-Za-z0-9-]* = "(?:[^"\\]|\\.)*"$`)

// repositoryFormat is the configuration text of the repository's format
// version and extensions.
func (d *diskRepo) repositoryFormat(ctx context.Context) (string, error) {
	out, _, err := run(ctx, call{root: d.top, unset: literalEnvUnset, okCodes: []int{1},
		args: []string{"config", "--file", filepath.Join(d.commonDir, "config"), "-z", "--get-regexp", `^(core\.repositoryformatversion|extensions\..*)$`}})
	if err != nil {
		return "", fmt.Errorf("literal view: %w", err)
	}
	var core, ext strings.Builder
	for _, rec := range splitZ(out) {
		key, value, _ := strings.Cut(rec, "\n")
		section, name, _ := strings.Cut(key, ".")
		line := fmt.Sprintf("\t%s = %s\n", name, quoteConfig(value))
		if section == "core" {
			core.WriteString(line)
		} else {
			ext.WriteString(line)
		}
	}
	s := "[core]\n" + core.String()
	if ext.Len() > 0 {
		s += "[extensions]\n" + ext.String()
	}
	return s, nil
}

// objectFormat is the object format of the repository ("sha1" or
// "sha256"), as the private configuration copied it.
func (d *diskRepo) objectFormat() string {
	data, err := readOwn(filepath.Join(d.shadow, "config"))
	if err == nil && bytes.Contains(bytes.ToLower(data), []byte("objectformat = \"sha256\"")) {
		return "sha256"
	}
	return "sha1"
}

// quoteConfig quotes a value for a git configuration file.
func quoteConfig(v string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(v) + `"`
}

// fileIdentity identifies a small file's content by its size and
// modification time ("-" when it does not exist).
func fileIdentity(p string) (string, bool) {
	fi, err := os.Stat(p)
	if err != nil {
		return "-", false
	}
	return fmt.Sprintf("%d.%d", fi.Size(), fi.ModTime().UnixNano()), true
}

// maxOwnFile bounds what is read of a file of the literal view (or of the
// info/exclude it mirrors): more is not one the gauntlet wrote.
const maxOwnFile = 16 << 20

// readOwn reads a file of the literal view: a regular file, never through
// a link, at most maxOwnFile bytes. What the agent may have put there
// instead (a link to a device, a FIFO) is an error, and its caller writes
// the file again, replacing it.
func readOwn(p string) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: p, Err: fmt.Errorf("not a regular file (%s)", fsread.Kind(fi.Mode()))}
	}
	return fsread.File(p, maxOwnFile)
}

// fileExists reports whether p exists.
func fileExists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// writeIfDiffers writes data to p, in a directory prepare checked, unless
// p holds it already as a regular file (a temporary file renamed into
// place: a link at p is replaced, never written through).
func writeIfDiffers(p string, data []byte) error {
	if old, err := readOwn(p); err == nil && bytes.Equal(old, data) {
		return nil
	}
	if err := atomicfile.WriteUnsynced(p, data, 0o644); err != nil {
		return fmt.Errorf("literal view: %w", err)
	}
	return nil
}

// ViewIdentity identifies what, outside the work tree, decides which file
// git converts on checkout (see checkoutView), and so which difference
// from a commit is a change: the configuration files git reads, the
// attribute files outside the work tree, and configuration given in the
// environment. It changes when one of them does; ok is false when the
// repository cannot be located.
func ViewIdentity(ctx context.Context, root string) (string, bool) {
	gitDir, _, err := gitPaths(ctx, root)
	if err != nil {
		return "", false
	}
	common := commonDirOf(gitDir)
	home, _ := os.UserHomeDir()
	xdg := os.Getenv("XDG_CONFIG_HOME")
	if xdg == "" && home != "" {
		xdg = filepath.Join(home, ".config")
	}
	files := []string{filepath.Join(common, "config"), filepath.Join(gitDir, "config.worktree"),
		filepath.Join(common, "info", "attributes"), "/etc/gitconfig", "/etc/gitattributes"}
	if g := os.Getenv("GIT_CONFIG_GLOBAL"); g != "" {
		files = append(files, g)
	} else if home != "" {
		files = append(files, filepath.Join(home, ".gitconfig"))
	}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "git", "config"), filepath.Join(xdg, "git", "attributes"))
	}
	var b strings.Builder
	for _, f := range files {
		id, _ := fileIdentity(f)
		fmt.Fprintf(&b, "%s=%s\n", f, id)
	}
	for _, k := range []string{"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_CONFIG_NOSYSTEM", "GIT_ATTR_NOSYSTEM"} {
		fmt.Fprintf(&b, "%s=%s\n", k, os.Getenv(k))
	}
	if n, err := strconv.Atoi(os.Getenv("GIT_CONFIG_COUNT")); err == nil {
		for i := range n {
			fmt.Fprintf(&b, "%s=%s\n", os.Getenv(fmt.Sprintf("GIT_CONFIG_KEY_%d", i)), os.Getenv(fmt.Sprintf("GIT_CONFIG_VALUE_%d", i)))
		}
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:16]), true
}
