package git

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/gitindex"
)

// A snapshot holds the bytes on disk; a commit holds what git made of them.
// Where git converts a file on checkout (`eol=crlf`, core.autocrlf=true, a
// smudge filter such as Git LFS's, `ident`, `working-tree-encoding`, a link
// under core.symlinks=false), a file nobody touched differs from its
// commit's blob. Comparing a commit with a snapshot therefore goes through
// the commit's checkout view: the commit's tree with each such file as git
// writes it to disk (checkoutView). Files that differ only by git's own
// conversion are then no change; a file changed on disk shows its real
// bytes on both sides.

// rawChange is one record of `git diff-tree --raw`.
type rawChange struct {
	oldMode, newMode, oldID, newID string
	status                         byte
	// path is relative to the top level of the work tree.
	path string
}

// rawDiff lists what differs between the trees (or commits) from and to.
func rawDiff(ctx context.Context, top, from, to string) ([]rawChange, error) {
	out, err := output(ctx, top, "diff-tree", "-r", "-z", "--raw", "--no-renames", "--no-ext-diff", from, to, "--")
	if err != nil {
		return nil, err
	}
	return parseRaw(out)
}

// rawDiffIndex lists what differs between the commit or tree from and the
// snapshot's index (what its Tree holds): `git diff-index --cached`, which
// reads the index rather than the snapshot's trees.
func (s *TreeSnapshot) rawDiffIndex(ctx context.Context, from string) ([]rawChange, error) {
	out, _, err := run(ctx, s.disk.call(s.disk.top, s.index, "diff-index", "--cached", "-z", "--raw", "--no-renames", "--no-ext-diff", from, "--"))
	if err != nil {
		return nil, err
	}
	return parseRaw(out)
}

// parseRaw reads `--raw -z` output.
func parseRaw(out []byte) ([]rawChange, error) {
	fields := bytes.Split(out, []byte{0})
	var list []rawChange
	for i := 0; i+1 < len(fields); i += 2 {
		meta := strings.Fields(strings.TrimPrefix(string(fields[i]), ":"))
		if len(meta) != 5 || len(meta[4]) == 0 {
			return nil, fmt.Errorf("git diff-tree: unexpected record %q", fields[i])
		}
		list = append(list, rawChange{oldMode: meta[0], newMode: meta[1], oldID: meta[2], newID: meta[3],
			status: meta[4][0], path: string(fields[i+1])})
	}
	return list, nil
}

// checkoutAttrs are the attributes that make git convert a file on
// checkout.
var checkoutAttrs = []string{"text", "eol", "crlf", "filter", "ident", "working-tree-encoding"}

// checkoutConfig is the configuration of conversions on checkout.
type checkoutConfig struct {
	autocrlf, eol string
	noSymlinks    bool
	// attributesFile is core.attributesFile, "" when not set.
	attributesFile string
	// smudging are the filter drivers that convert on checkout.
	smudging map[string]bool
}

// readCheckoutConfig reads the configuration of the repository at top
// that conversions on checkout depend on.
func readCheckoutConfig(ctx context.Context, top string) (checkoutConfig, error) {
	out, _, err := run(ctx, call{root: top, okCodes: []int{1},
		args: []string{"config", "-z", "--get-regexp", `^(core\.(autocrlf|eol|symlinks|attributesfile)|filter\..*\.(smudge|process))$`}})
	if err != nil {
		return checkoutConfig{}, err
	}
	cs := checkoutConfig{smudging: map[string]bool{}}
	for _, rec := range splitZ(out) {
		key, value, _ := strings.Cut(rec, "\n")
		switch key {
		case "core.autocrlf":
			cs.autocrlf = strings.ToLower(value)
		case "core.eol":
			cs.eol = strings.ToLower(value)
		case "core.symlinks":
			cs.noSymlinks = isFalse(value)
		case "core.attributesfile":
			cs.attributesFile = value
		default:
			// filter.<driver>.smudge or .process
			name := strings.TrimPrefix(key, "filter.")
			name = name[:strings.LastIndex(name, ".")]
			cs.smudging[name] = value != ""
		}
	}
	return cs, nil
}

// autoCRLF reports whether core.autocrlf converts line endings on checkout.
func (cs checkoutConfig) autoCRLF() bool {
	switch cs.autocrlf {
	case "true", "1", "yes", "on":
		return true
	}
	return false
}

// attributesOutside reports whether an attribute file outside the work
// tree may apply: the repository's info/attributes, the global one
// (core.attributesFile, else git/attributes in the XDG configuration
// directory) or the system's.
func (cs checkoutConfig) attributesOutside(commonDir string) bool {
	files := []string{filepath.Join(commonDir, "info", "attributes")}
	home, _ := os.UserHomeDir()
	switch g := cs.attributesFile; {
	case strings.HasPrefix(g, "~/") && home != "":
		files = append(files, filepath.Join(home, g[2:]))
	case g != "":
		files = append(files, g)
	default:
		xdg := os.Getenv("XDG_CONFIG_HOME")
		if xdg == "" && home != "" {
			xdg = filepath.Join(home, ".config")
		}
		if xdg != "" {
			files = append(files, filepath.Join(xdg, "git", "attributes"))
		}
	}
	if os.Getenv("GIT_ATTR_NOSYSTEM") == "" {
		files = append(files, "/etc/gitattributes")
	}
	for _, f := range files {
		if fi, err := os.Stat(f); err == nil && fi.Size() > 0 {
			return true
		}
	}
	return false
}

// isFalse reports whether a git boolean is false.
func isFalse(v string) bool {
	switch strings.ToLower(v) {
	case "false", "no", "off", "0", "":
		return true
	}
	return false
}

// converts reports whether git may convert a file with attributes attrs
// (name to value: "set", "unset", "unspecified" or a value) when it checks
// it out under cs.
func (cs checkoutConfig) converts(attrs map[string]string) bool {
	if attrs == nil {
		attrs = map[string]string{} // none asked: every attribute unspecified
	}
	get := func(name string) string {
		if v, ok := attrs[name]; ok {
			return v
		}
		return "unspecified"
	}
	attrs = map[string]string{"filter": get("filter"), "ident": get("ident"), "working-tree-encoding": get("working-tree-encoding"),
		"text": get("text"), "crlf": get("crlf"), "eol": get("eol")}
	if f := attrs["filter"]; f != "unset" && f != "unspecified" && f != "set" && cs.smudging[f] {
		return true
	}
	if attrs["ident"] == "set" {
		return true
	}
	if w := attrs["working-tree-encoding"]; w != "unset" && w != "unspecified" && w != "set" {
		return true
	}
	text := attrs["text"]
	if c := attrs["crlf"]; text == "unspecified" && c != "unspecified" {
		text = c // the old name of text
	}
	eol := attrs["eol"]
	switch {
	case text == "unset":
		return false
	case eol == "crlf":
		return true
	case eol == "lf":
		return false
	case text == "unspecified":
		return cs.autoCRLF()
	}
	// text is set or auto: the output line ending is core.eol's, unless
	// core.autocrlf decides.
	return cs.autoCRLF() || (cs.autocrlf != "input" && cs.eol == "crlf")
}

// checkAttrs reads attrs of paths (relative to the top level top).
func checkAttrs(ctx context.Context, top string, paths []string) (map[string]map[string]string, error) {
	var in strings.Builder
	for _, p := range paths {
		in.WriteString(p + "\x00")
	}
	args := append([]string{"check-attr", "-z", "--stdin"}, checkoutAttrs...)
	out, _, err := run(ctx, call{root: top, args: args, stdin: in.String()})
	if err != nil {
		return nil, err
	}
	f := splitZ(out)
	attrs := map[string]map[string]string{}
	for i := 0; i+2 < len(f); i += 3 {
		m := attrs[f[i]]
		if m == nil {
			m = map[string]string{}
			attrs[f[i]] = m
		}
		m[f[i+1]] = f[i+2]
	}
	return attrs, nil
}

// checkoutView is the tree of from (a commit or tree) as git checks it out
// into the work tree, for the paths that differ between from and to (a
// snapshot tree of the work tree): from itself when git converts none of
// them, else a tree with each converted file's blob replaced by the bytes
// git writes (or, for a link under core.symlinks=false, the file it
// writes). Unchanged files are then equal on both sides. changed are the
// paths (relative to the top level) that still differ. noTreeAttrs says
// that no .gitattributes file is in the work tree or the user's index:
// unless attributes come from outside it or core.autocrlf converts, no
// attribute is asked of git.
func checkoutView(ctx context.Context, root, from, to string, noTreeAttrs bool) (view string, changed []string, err error) {
	top, err := topLevel(ctx, root)
	if err != nil {
		return "", nil, err
	}
	changes, err := rawDiff(ctx, top, from, to)
	if err != nil {
		return "", nil, err
	}
	return checkoutViewOf(ctx, top, from, changes, noTreeAttrs)
}

// checkoutViewOf is checkoutView with what differs already listed.
func checkoutViewOf(ctx context.Context, top, from string, changes []rawChange, noTreeAttrs bool) (view string, changed []string, err error) {
	var cands []rawChange
	for _, c := range changes {
		if (isFileMode(c.oldMode) && c.oldMode != "120000" && isFileMode(c.newMode)) ||
			(c.oldMode == "120000" && c.newMode == "100644") {
			cands = append(cands, c)
		}
	}
	explained := map[string]bool{}
	for _, c := range changes {
		changed = append(changed, c.path)
	}
	if len(cands) == 0 {
		return from, changed, nil
	}
	v, err := newViewIndex(ctx, top, from)
	if err != nil {
		return "", nil, err
	}
	defer v.close()
	lines, err := checkoutLines(ctx, v, from, cands, explained, noTreeAttrs)
	if err != nil {
		return "", nil, err
	}
	changed = slices.DeleteFunc(changed, func(p string) bool { return explained[p] })
	if lines == "" {
		return from, changed, nil
	}
	if _, err := v.git(ctx, lines, "update-index", "-z", "--index-info"); err != nil {
		return "", nil, err
	}
	out, err := v.git(ctx, "", "write-tree")
	if err != nil {
		return "", nil, err
	}
	return strings.TrimSpace(string(out)), changed, nil
}

// checkoutLines are the `update-index --index-info -z` records that put
// into from the files of cands as git checks them out, when that is not
// their blob; explained gets the paths where that is the file of the
// snapshot. The files git converts are checked out (into a temporary
// directory, with view's index holding from) to see what git writes.
func checkoutLines(ctx context.Context, v *viewIndex, from string, cands []rawChange, explained map[string]bool, noTreeAttrs bool) (string, error) {
	if len(cands) == 0 {
		return "", nil
	}
	cs, err := readCheckoutConfig(ctx, v.top)
	if err != nil {
		return "", err
	}
	attrs := map[string]map[string]string{}
	if !noTreeAttrs || cs.autoCRLF() || cs.attributesOutside(v.commonDir) {
		paths := make([]string, 0, len(cands))
		for _, c := range cands {
			if c.oldMode != "120000" {
				paths = append(paths, c.path)
			}
		}
		if attrs, err = checkAttrs(ctx, v.top, paths); err != nil {
			return "", err
		}
	}
	var lines strings.Builder
	var smudge []rawChange
	for _, c := range cands {
		switch {
		case c.oldMode == "120000":
			if cs.noSymlinks {
				fmt.Fprintf(&lines, "100644 %s\t%s\x00", c.oldID, c.path)
				explained[c.path] = c.oldID == c.newID
			}
		case cs.converts(attrs[c.path]):
			smudge = append(smudge, c)
		}
	}
	if len(smudge) > 0 {
		ids, err := v.smudged(ctx, from, smudge)
		if err != nil {
			return "", err
		}
		for i, c := range smudge {
			if ids[i] != c.oldID {
				fmt.Fprintf(&lines, "%s %s\t%s\x00", c.oldMode, ids[i], c.path)
			}
			explained[c.path] = ids[i] == c.newID && c.oldMode == c.newMode
		}
	}
	return lines.String(), nil
}

// viewIndex is a temporary index holding a tree, in a temporary directory
// of the git directory, for checkoutView.
type viewIndex struct {
	top, dir, commonDir string
	from                string
	read                bool
}

// newViewIndex makes the temporary directory (the tree is read on first
// use).
func newViewIndex(ctx context.Context, top, from string) (*viewIndex, error) {
	gitDir, _, err := gitPaths(ctx, top)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(gitDir, "agent-gauntlet")
	if err := storeDir(dir, dir); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(dir, "gauntlet-view-")
	if err != nil {
		return nil, err
	}
	return &viewIndex{top: top, dir: tmp, from: from, commonDir: commonDirOf(gitDir)}, nil
}

// close removes the temporary directory.
func (v *viewIndex) close() { os.RemoveAll(v.dir) }

// git runs git with the temporary index.
func (v *viewIndex) git(ctx context.Context, stdin string, args ...string) ([]byte, error) {
	if !v.read {
		if _, _, err := run(ctx, call{root: v.top, env: v.env(), args: []string{"read-tree", v.from}}); err != nil {
			return nil, err
		}
		v.read = true
	}
	out, _, err := run(ctx, call{root: v.top, env: v.env(), args: args, stdin: stdin})
	return out, err
}

// env points git at the temporary index.
func (v *viewIndex) env() []string {
	return []string{"GIT_INDEX_FILE=" + filepath.Join(v.dir, "index")}
}

// smudged returns the ids of the blobs git writes to disk for the files
// of list (checked out from the index), those blobs written into the
// object store.
func (v *viewIndex) smudged(ctx context.Context, from string, list []rawChange) ([]string, error) {
	var in strings.Builder
	for _, c := range list {
		in.WriteString(c.path + "\x00")
	}
	out := filepath.Join(v.dir, "out") + string(filepath.Separator)
	if _, err := v.git(ctx, in.String(), "checkout-index", "-f", "-z", "--stdin", "--prefix="+out); err != nil {
		return nil, err
	}
	ids := make([]string, len(list))
	var write strings.Builder
	for i, c := range list {
		p := filepath.Join(out, filepath.FromSlash(c.path))
		content, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		ids[i] = blobID(content, len(c.oldID))
		if ids[i] != c.oldID && ids[i] != c.newID {
			write.WriteString(p + "\n")
		}
	}
	if write.Len() > 0 {
		if _, _, err := run(ctx, call{root: v.top, args: []string{"hash-object", "-w", "--no-filters", "--stdin-paths"}, stdin: write.String()}); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// isFileMode reports whether a raw diff mode is a file's (a blob).
func isFileMode(m string) bool { return m == "100644" || m == "100755" || m == "120000" }

// blobID is the object id of a blob holding content, for ids of hexLen
// hexadecimal digits (SHA-1 or SHA-256).
func blobID(content []byte, hexLen int) string {
	h := gitindex.NewHash(sha1.Size)
	if hexLen == 2*sha256.Size {
		h = gitindex.NewHash(sha256.Size)
	}
	fmt.Fprintf(h, "blob %d\x00", len(content))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}

// topLevel is the top level of the work tree of root.
func topLevel(ctx context.Context, root string) (string, error) {
	pfx, err := showPrefix(ctx, root)
	if err != nil {
		return "", err
	}
	top := root
	for p := strings.TrimSuffix(pfx, "/"); p != "" && p != "."; p = filepath.Dir(p) {
		top = filepath.Dir(top)
	}
	return top, nil
}
