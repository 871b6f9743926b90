package git

import (
	"bytes"
	"context"
	"encoding/hex"
	"fmt"
	"path"
	"strconv"
	"strings"
	"sync"
)

// Object is what one revision names, as `git cat-file --batch` prints it.
// A revision that names no object gives the zero Object.
type Object struct {
	SHA     string
	Type    string
	Content []byte
}

// Objects resolves revs (any revision expression, e.g. "main^{commit}") and
// reads their objects, all in one `git cat-file --batch`. Revisions git
// would read as options, or that hold whitespace (which the batch protocol
// cannot carry), are not asked and give the zero Object, like unknown ones.
func Objects(ctx context.Context, root string, revs ...string) ([]Object, error) {
	objs := make([]Object, len(revs))
	var in strings.Builder
	var asked []int
	for i, rev := range revs {
		if rev == "" || strings.HasPrefix(rev, "-") || strings.ContainsAny(rev, " \t\r\n") {
			continue
		}
		asked = append(asked, i)
		in.WriteString(rev)
		in.WriteByte('\n')
	}
	if len(asked) == 0 {
		return objs, nil
	}
	out, _, err := run(ctx, call{root: root, args: []string{"cat-file", "--batch"}, stdin: in.String()})
	if err != nil {
		return nil, err
	}
	for _, i := range asked {
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("git cat-file --batch: short output for %q", revs[i])
		}
		header := strings.Fields(string(out[:nl]))
		out = out[nl+1:]
		if len(header) != 3 {
			continue // "<rev> missing", "<rev> ambiguous"
		}
		size, err := strconv.Atoi(header[2])
		if err != nil || size < 0 || size+1 > len(out) {
			return nil, fmt.Errorf("git cat-file --batch: bad header %q", strings.Join(header, " "))
		}
		objs[i] = Object{SHA: header[0], Type: header[1], Content: out[:size:size]}
		out = out[size+1:]
	}
	return objs, nil
}

// Refs is what a run needs to know about HEAD and the base branch.
type Refs struct {
	// Head is the SHA of HEAD, "" in a repository with no commits;
	// HeadTree is its tree (read with it: no git process of its own).
	Head, HeadTree string
	// Base is the commit the base branch names (see ResolveBase), "" when
	// BaseErr says why not.
	Base    string
	BaseErr error
	// Remote is the commit the base branch's remote-tracking copy names:
	// origin/<base> for a base without a slash, refs/remotes/<base> for
	// one with (then the base itself when it is one); "" for none.
	Remote string
	// SnapshotBase is the base commit recorded in the snapshot asked for
	// (see CommitTreeOn), "" when none.
	SnapshotBase string
	// SnapshotSince is the change-set origin recorded in that snapshot
	// (see CommitTreeOn), "" when none.
	SnapshotSince string
	// SnapshotTree and SnapshotParent are that snapshot's tree and first
	// parent, "" when none.
	SnapshotTree, SnapshotParent string
	// Snapshot is the commit the snapshot asked for names, "" when it
	// names none; SnapshotLiteral is true when it is a snapshot of the
	// work tree (isSnapshotCommit), not a commit of the repository.
	Snapshot        string
	SnapshotLiteral bool
}

// Holds reports whether rev is the snapshot commit r read: it exists, as
// git.ObjectExists would have said.
func (r Refs) Holds(rev string) bool {
	return rev != "" && r.Snapshot != "" && rev == r.Snapshot
}

// NothingSince reports, without asking git, that ChangedFilesIn finds no
// file changed since from in the snapshot tree tree, read with snap: from
// is the snapshot commit r read, a snapshot of the work tree whose tree is
// tree, and snap holds no repository inside the work tree (whose files
// the tree holds only as links). false says nothing: git must be asked.
func (r Refs) NothingSince(from, tree string, snap *TreeSnapshot) bool {
	return r.Holds(from) && r.SnapshotLiteral && r.SnapshotTree != "" && r.SnapshotTree == tree &&
		(snap == nil || len(snap.nested) == 0)
}

// ResolveRefs resolves HEAD and the base branch and reads the base recorded
// in snapshot (when not ""), in one git process. Base and BaseErr are as
// ResolveBase returns them, SnapshotBase and SnapshotSince as
// the snapshot records them.
func ResolveRefs(ctx context.Context, root, base, snapshot string) (Refs, error) {
	return resolveRefsWith(base, snapshot, func(revs []string) ([]Object, error) { return Objects(ctx, root, revs...) })
}

// ResolveRefsKept is ResolveRefs for the project at root located at loc,
// its objects taken from the refs memo when nothing git reads to resolve
// them changed since the memo was written (see objectsKept), else from
// git.
func ResolveRefsKept(ctx context.Context, loc Location, root, base, snapshot string) (Refs, error) {
	return resolveRefsWith(base, snapshot, func(revs []string) ([]Object, error) {
		objs, _, err := objectsKept(ctx, loc, root, revs)
		return objs, err
	})
}

// resolveRefsWith is ResolveRefs with the objects of the revisions it asks
// read by objects.
func resolveRefsWith(base, snapshot string, objects func(revs []string) ([]Object, error)) (Refs, error) {
	revs := []string{"HEAD^{commit}", "", "", "", ""}
	baseErr := checkRef("base branch", base)
	if baseErr == nil {
		revs[1] = base + "^{commit}"
		if !strings.Contains(base, "/") {
			revs[2] = "origin/" + base + "^{commit}"
		} else {
			revs[4] = "refs/remotes/" + base + "^{commit}"
		}
	}
	if snapshot != "" && checkRef("snapshot", snapshot) == nil {
		revs[3] = snapshot + "^{commit}"
	}
	objs, err := objects(revs)
	if err != nil {
		return Refs{}, err
	}
	r := Refs{Head: objs[0].SHA, HeadTree: commitHeader(objs[0].Content, "tree "), BaseErr: baseErr, Remote: objs[2].SHA + objs[4].SHA, SnapshotBase: recordedBase(objs[3].Content),
		SnapshotSince: trailer(objs[3].Content, sinceTrailer)}
	if objs[3].Type == "commit" {
		r.SnapshotTree, r.SnapshotParent = commitHeader(objs[3].Content, "tree "), commitHeader(objs[3].Content, "parent ")
		r.Snapshot, r.SnapshotLiteral = objs[3].SHA, snapshotMessageOf(objs[3].Content)
	}
	if baseErr == nil {
		switch {
		case objs[1].SHA != "":
			r.Base = objs[1].SHA
		case objs[2].SHA != "":
			r.Base = objs[2].SHA
		default:
			r.BaseErr = &BaseBranchError{Branch: base}
		}
	}
	return r, nil
}

// BranchAndHead returns what Branch and Head return, in one git process
// when HEAD names a commit.
func BranchAndHead(ctx context.Context, root string) (branch, head string, err error) {
	// --abbrev-ref=loose shortens the way `symbolic-ref --short` does.
	// The trailing "--" keeps a file named HEAD from making it ambiguous.
	out, code, err := run(ctx, call{root: root, args: []string{"rev-parse", "HEAD", "--abbrev-ref=loose", "HEAD", "--"}, okCodes: []int{128}})
	if err != nil {
		return "", "", err
	}
	if lines := strings.Fields(string(out)); code == 0 && len(lines) == 3 && lines[2] == "--" {
		return lines[1], lines[0], nil
	}
	// No commits yet (or something odd): the two separate questions.
	if branch, err = Branch(ctx, root); err != nil {
		return "", "", err
	}
	head, err = Head(ctx, root)
	return branch, head, err
}

// HeadState is where HEAD is and what the base branch names.
type HeadState struct {
	// Branch and Head are what Branch and Head return.
	Branch, Head string
	// Base and BaseErr are what ResolveBase returns.
	Base    string
	BaseErr error
}

// ReadHeadState returns the branch, HEAD and the base branch's commit: one
// git process when HEAD and the base name commits, the separate questions
// otherwise.
func ReadHeadState(ctx context.Context, root, base string) (HeadState, error) {
	if checkRef("base branch", base) == nil {
		// --abbrev-ref=loose shortens the way `symbolic-ref --short` does;
		// the trailing "--" keeps files named like the revisions out.
		out, code, err := run(ctx, call{root: root, args: []string{"rev-parse", "HEAD", base + "^{commit}", "--abbrev-ref=loose", "HEAD", "--"}, okCodes: []int{128}})
		if err != nil {
			return HeadState{}, err
		}
		if l := strings.Split(strings.TrimSpace(string(out)), "\n"); code == 0 && len(l) == 4 && isSHA(l[0]) && isSHA(l[1]) && l[3] == "--" {
			return HeadState{Branch: l[2], Head: l[0], Base: l[1]}, nil
		}
	}
	branch, head, err := BranchAndHead(ctx, root)
	if err != nil {
		return HeadState{}, err
	}
	hs := HeadState{Branch: branch, Head: head}
	hs.Base, hs.BaseErr = ResolveBase(ctx, root, base)
	return hs, nil
}

// isSHA reports whether s is a full object name (SHA-1 or SHA-256).
func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// parallel runs the functions concurrently and returns the first error in
// argument order.
func parallel(fns ...func() error) error {
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, f := range fns[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i+1] = f()
		}()
	}
	errs[0] = fns[0]()
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// TreeEntry is what a path names in a tree: the object's id and type
// ("blob" for a file or a symbolic link, "tree", "commit" for a
// submodule) and the mode of its entry as git writes it (100644, 100755,
// 120000 for a symbolic link, 040000, 160000; "" for the tree itself): a
// blob's id says nothing of whether it is executable or a link. The zero
// TreeEntry when it names nothing.
type TreeEntry struct {
	ID, Type, Mode string
}

// TreeEntries returns, for each path (relative to the top level of the
// work tree; "" for tree itself), the entry it names in tree, the zero
// TreeEntry when it names none: one `git cat-file --batch` reads the
// trees of the paths' directories. A path holding a newline cannot be
// asked and is an error.
func TreeEntries(ctx context.Context, root, tree string, paths []string) (map[string]TreeEntry, error) {
	out := make(map[string]TreeEntry, len(paths))
	if len(paths) == 0 {
		return out, nil
	}
	if !isSHA(tree) {
		return nil, fmt.Errorf("tree entries: %q is not an object id", tree)
	}
	byDir := map[string][]string{}
	var dirs []string
	for _, p := range paths {
		if strings.ContainsAny(p, "\n\x00") {
			return nil, fmt.Errorf("tree entries: path %q holds a newline", p)
		}
		if p == "" {
			out[p] = TreeEntry{ID: tree, Type: "tree"}
			continue
		}
		dir, name := "", p
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			dir, name = p[:i], p[i+1:]
		}
		if _, ok := byDir[dir]; !ok {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], name)
		out[p] = TreeEntry{}
	}
	if len(dirs) == 0 {
		return out, nil
	}
	var in strings.Builder
	for _, d := range dirs {
		in.WriteString(tree + ":" + d + "\n")
	}
	res, _, err := run(ctx, call{root: root, args: []string{"cat-file", "--batch"}, stdin: in.String()})
	if err != nil {
		return nil, err
	}
	hashLen := len(tree) / 2
	for _, d := range dirs {
		nl := bytes.IndexByte(res, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("git cat-file --batch: short output for %q", d)
		}
		header := string(res[:nl])
		res = res[nl+1:]
		if strings.HasSuffix(header, " missing") || strings.HasSuffix(header, " ambiguous") {
			continue
		}
		f := strings.Fields(header)
		size := -1
		if len(f) == 3 {
			size, _ = strconv.Atoi(f[2])
		}
		if size < 0 || size+1 > len(res) {
			return nil, fmt.Errorf("git cat-file --batch: bad header %q", header)
		}
		body := res[:size]
		res = res[size+1:]
		if f[1] != "tree" {
			continue
		}
		entries := treeEntries(body, hashLen)
		for _, name := range byDir[d] {
			if e, ok := entries[name]; ok {
				out[path.Join(d, name)] = e
			}
		}
	}
	return out, nil
}

// treeEntries reads a tree object's entries (`<mode> <name>\0<hash>`,
// hashLen bytes of hash) by name.
func treeEntries(body []byte, hashLen int) map[string]TreeEntry {
	entries := map[string]TreeEntry{}
	for len(body) > 0 {
		sp := bytes.IndexByte(body, ' ')
		nul := bytes.IndexByte(body, 0)
		if sp < 0 || nul < sp || nul+1+hashLen > len(body) {
			break
		}
		mode := string(body[:sp])
		if len(mode) < 6 {
			mode = strings.Repeat("0", 6-len(mode)) + mode
		}
		typ := "blob"
		switch mode {
		case "040000":
			typ = "tree"
		case "160000":
			typ = "commit"
		}
		entries[string(body[sp+1:nul])] = TreeEntry{ID: hex.EncodeToString(body[nul+1 : nul+1+hashLen]), Type: typ, Mode: mode}
		body = body[nul+1+hashLen:]
	}
	return entries
}

// commitHeader is the value of the first header line of a commit's text
// starting with key ("tree ", "parent "), "" when the headers have none.
func commitHeader(commit []byte, key string) string {
	for _, l := range strings.Split(string(commit), "\n") {
		if l == "" {
			break // the headers end at the first blank line
		}
		if v, ok := strings.CutPrefix(l, key); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
