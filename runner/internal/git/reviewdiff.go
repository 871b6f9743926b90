package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/review/parse"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// ReviewDiff is what a reviewer is shown of a change: the unified diff,
// and the changed paths of the scope it does not show as text.
type ReviewDiff struct {
	Text     string
	NotShown []gate.NotShown
}

// Diff returns the unified diff a reviewer sees for spec, limited to
// scope: exactly the changed files it selects, each as text, or named in
// NotShown with why. Paths reach git as arguments after `--`, never
// through a shell, and literally (GIT_LITERAL_PATHSPECS): a glob is
// matched by scope, not by git, whose own pathspec patterns mean something
// else. git runs in the project root root, and --relative names the files
// relative to it. Modes are described at ChangedFiles; untracked files
// appear as new-file diffs.
//
// The diff is of the files as a program in the work tree reads them:
//   - a file git calls binary that is text all the same (a stray NUL,
//     UTF-16) is shown decoded (see asText);
//   - a repository of its own inside the work tree (a submodule, a clone)
//     is shown as its files, against the commit the project records for
//     it (spec.ReadTree, see expandGitlinks);
//   - a link pointing out of the project is shown as git holds it (its
//     target) and named: its reviewer cannot see what it reads.
//
// Output longer than MaxDiffBytes is cut and ends with TruncatedNote; the
// paths it no longer holds are named.
func Diff(ctx context.Context, root string, spec gate.DiffSpec, scope Scope) (ReviewDiff, error) {
	rd, err := reviewDiff(ctx, root, spec, scope)
	if err != nil {
		return ReviewDiff{}, fmt.Errorf("review diff: %w", err)
	}
	return rd, nil
}

// reviewDiff is Diff without the error's context.
func reviewDiff(ctx context.Context, root string, spec gate.DiffSpec, scope Scope) (ReviewDiff, error) {
	mode := EffectiveMode(spec)
	worktreeSide := mode != gate.DiffCommit && mode != gate.DiffCI
	if worktreeSide && spec.WorkTree == "" {
		snap, err := newTreeSnapshot(ctx, root, false, nil)
		if err != nil {
			return ReviewDiff{}, err
		}
		defer snap.Close()
		spec.WorkTree, spec.ReadTree = snap.Tree, snap.KeyTree
	}
	from, to, _, err := Range(ctx, root, spec)
	if err != nil {
		return ReviewDiff{}, err
	}
	// Attributes never turn a text file into "Binary files differ" nor
	// run a driver: the diff is shown in the literal view.
	d, err := openDisk(ctx, root)
	if err == nil {
		err = d.prepare(ctx)
	}
	if err != nil {
		return ReviewDiff{}, err
	}
	if worktreeSide && spec.ReadTree != "" {
		to = spec.ReadTree
	}
	changes, err := rawChanges(ctx, d, root, from, to, scope.Dir())
	if err != nil {
		return ReviewDiff{}, err
	}
	if hasGitlink(changes) {
		var expanded bool
		if from, to, d, expanded, err = expandGitlinks(ctx, d, root, from, to, changes); err != nil {
			return ReviewDiff{}, err
		}
		if expanded {
			if changes, err = rawChanges(ctx, d, root, from, to, scope.Dir()); err != nil {
				return ReviewDiff{}, err
			}
		}
	}
	var entries []rawChange
	for _, e := range changes {
		if scope.Selects(e.path) {
			entries = append(entries, e)
		}
	}
	if len(entries) == 0 {
		return ReviewDiff{}, nil
	}
	text, cut, err := gitDiffText(ctx, d, root, from, to, scope, entries)
	if err != nil {
		return ReviewDiff{}, err
	}
	r := renderer{ctx: ctx, d: d, root: root}
	out, err := r.render(text)
	if err != nil {
		return ReviewDiff{}, err
	}
	return r.bound(out, cut, entries), nil
}

// rawChanges lists what differs between from and to under dir, in
// git's order, paths relative to root.
func rawChanges(ctx context.Context, d *diskRepo, root, from, to, dir string) ([]rawChange, error) {
	c := d.call(root, "", "diff", "--raw", "-z", "--no-renames", "--relative", "--no-abbrev", "--no-ext-diff", from, to, "--", dir)
	c.env = append(c.env, literalPathspecs...)
	out, _, err := run(ctx, c)
	if err != nil {
		return nil, err
	}
	return parseRaw(out)
}

// hasGitlink reports whether a change has a gitlink on either side.
func hasGitlink(changes []rawChange) bool {
	for _, e := range changes {
		if e.oldMode == modeGitlink || e.newMode == modeGitlink {
			return true
		}
	}
	return false
}

// gitDiffText is git's unified diff of entries (all of scope when it is
// whole), full object ids in its index lines, cut at MaxDiffBytes (cut
// reports it).
func gitDiffText(ctx context.Context, d *diskRepo, root, from, to string, scope Scope, entries []rawChange) (string, bool, error) {
	batches := [][]string{{scope.Dir()}}
	if !scope.Whole() {
		batches = pathBatches(entries)
	}
	var diff bytes.Buffer
	for _, paths := range batches {
		room := MaxDiffBytes - diff.Len()
		if room <= 0 {
			return diff.String(), true, nil
		}
		args := append([]string{"diff", "--no-color", "--relative", "--no-ext-diff", "--no-textconv", "--no-renames", "--full-index",
			"--src-prefix=a/", "--dst-prefix=b/", from, to, "--"}, paths...)
		c := d.call(root, "", args...)
		c.env, c.limit = append(c.env, literalPathspecs...), room
		out, truncated, _, err := runLimited(ctx, c)
		if err != nil {
			return "", false, err
		}
		diff.Write(out)
		if truncated {
			return diff.String(), true, nil
		}
	}
	return diff.String(), false, nil
}

// pathBatches are the paths of entries in batches of at most
// maxPathspecBytes.
func pathBatches(entries []rawChange) [][]string {
	var batches [][]string
	var cur []string
	size := 0
	for _, e := range entries {
		if len(cur) > 0 && size+len(e.path)+1 > maxPathspecBytes {
			batches, cur, size = append(batches, cur), nil, 0
		}
		cur = append(cur, e.path)
		size += len(e.path) + 1
	}
	if len(cur) > 0 {
		batches = append(batches, cur)
	}
	return batches
}

// expandGitlinks replaces in from and to each gitlink of changes (what
// differs between them) by the tree of the commit it records, read from
// the repository at its path in the work tree (a submodule, a clone);
// expanded says whether any was, and d becomes a literal view that reads
// those repositories' objects too. The work-tree side of a
// review (the snapshot's KeyTree) already holds such a repository as its
// files: its base is then the commit the project records. A gitlink whose
// repository or commit is not there stays (the diff then shows the
// commits, and the review names it); so does a pair of which one side
// cannot be read.
func expandGitlinks(ctx context.Context, d *diskRepo, root, from, to string, changes []rawChange) (string, string, *diskRepo, bool, error) {
	pfx, err := showPrefix(ctx, root)
	if err != nil {
		return "", "", nil, false, err
	}
	ext := *d
	ext.alternates = append([]string(nil), d.alternates...)
	var olds, news []gitlink
	for _, e := range changes {
		oldLink, newLink := e.oldMode == modeGitlink, e.newMode == modeGitlink
		if !oldLink && !newLink {
			continue
		}
		top := path.Join(pfx, e.path)
		objects, ok := nestedObjects(filepath.Join(d.top, filepath.FromSlash(top)))
		if !ok {
			continue
		}
		one := *d
		one.alternates = append(append([]string(nil), d.alternates...), objects)
		canOld := oldLink && hasTree(ctx, &one, root, e.oldID)
		canNew := newLink && hasTree(ctx, &one, root, e.newID)
		if (oldLink && !canOld) || (newLink && !canNew) {
			continue
		}
		ext.alternates = append(ext.alternates, objects)
		if oldLink {
			olds = append(olds, gitlink{top: top, commit: e.oldID})
		}
		if newLink {
			news = append(news, gitlink{top: top, commit: e.newID})
		}
	}
	if len(olds)+len(news) == 0 {
		return from, to, d, false, nil
	}
	if from, err = withGitlinksExpanded(ctx, &ext, from, olds); err != nil {
		return "", "", nil, false, err
	}
	if to, err = withGitlinksExpanded(ctx, &ext, to, news); err != nil {
		return "", "", nil, false, err
	}
	return from, to, &ext, true, nil
}

// gitlink is a gitlink at the top-level-relative path top to commit.
type gitlink struct{ top, commit string }

// nestedObjects is the object directory of the repository whose work
// tree is dir; ok is false when there is none.
func nestedObjects(dir string) (string, bool) {
	gitDir, ok := nestedGitDir(dir)
	if !ok {
		return "", false
	}
	return filepath.Join(commonDirOf(gitDir), "objects"), true
}

// hasTree reports whether d reads the tree of the commit id.
func hasTree(ctx context.Context, d *diskRepo, root, id string) bool {
	_, code, err := run(ctx, withOK(d.call(root, "", "cat-file", "-e", id+"^{tree}"), 1, 128))
	return err == nil && code == 0
}

// withGitlinksExpanded is tree with each of links replaced by the tree of
// its commit (tree itself when there are none).
func withGitlinksExpanded(ctx context.Context, d *diskRepo, tree string, links []gitlink) (string, error) {
	if len(links) == 0 {
		return tree, nil
	}
	tmp, err := os.MkdirTemp("", "gauntlet-review-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")
	if _, _, err := run(ctx, d.call(d.top, index, "read-tree", tree)); err != nil {
		return "", err
	}
	var remove strings.Builder
	for _, l := range links {
		remove.WriteString(l.top + "\x00")
	}
	rm := d.call(d.top, index, "update-index", "--force-remove", "-z", "--stdin")
	rm.stdin = remove.String()
	if _, _, err := run(ctx, rm); err != nil {
		return "", err
	}
	for _, l := range links {
		if _, _, err := run(ctx, d.call(d.top, index, "read-tree", "--prefix="+l.top+"/", l.commit+"^{tree}")); err != nil {
			return "", err
		}
	}
	out, _, err := run(ctx, d.call(d.top, index, "write-tree"))
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// modeGitlink is the mode of a gitlink, modeLink that of a symbolic link.
const (
	modeGitlink = "160000"
	modeLink    = "120000"
)

// withOK is c with more exit codes that are not errors.
func withOK(c call, codes ...int) call {
	c.okCodes = append(c.okCodes, codes...)
	return c
}

// renderer rewrites git's diff for a reviewer (see Diff) and collects
// what it could not show.
type renderer struct {
	ctx      context.Context
	d        *diskRepo
	root     string
	notShown []gate.NotShown
	// shown are the paths with a section in the diff.
	shown map[string]bool
}

// section is one file's part of a unified diff: its `diff --git` line,
// the header lines up to the first hunk, and the rest.
type section struct {
	first      string
	aTok, bTok string
	path       string
	header     []string
	body       string
}

// splitSections cuts a unified diff at its `diff --git` lines (a hunk's
// lines start with ' ', '+', '-' or '\', so no other line starts so).
func splitSections(text string) []section {
	var out []section
	lines := strings.SplitAfter(text, "\n")
	for i := 0; i < len(lines); {
		if !strings.HasPrefix(lines[i], "diff --git ") {
			i++
			continue
		}
		s := section{first: lines[i]}
		s.aTok, s.bTok, s.path = headerTokens(strings.TrimSuffix(strings.TrimPrefix(lines[i], "diff --git "), "\n"))
		i++
		var body strings.Builder
		inHeader := true
		for ; i < len(lines) && !strings.HasPrefix(lines[i], "diff --git "); i++ {
			if inHeader && strings.HasPrefix(lines[i], "@@") {
				inHeader = false
			}
			if inHeader {
				s.header = append(s.header, lines[i])
			} else {
				body.WriteString(lines[i])
			}
		}
		s.body = body.String()
		out = append(out, s)
	}
	return out
}

// headerTokens reads `a/P b/P` (no renames: the same path twice), each
// side quoted or not, into its two tokens as written and the path.
func headerTokens(rest string) (aTok, bTok, p string) {
	if strings.HasPrefix(rest, `"`) {
		end := parse.ClosingQuote(rest)
		if end < 0 {
			return "", "", ""
		}
		aTok, bTok = rest[:end+1], strings.TrimPrefix(rest[end+1:], " ")
		return aTok, bTok, strings.TrimPrefix(parse.Unquote(aTok), "a/")
	}
	if (len(rest)-5)%2 != 0 || len(rest) < 7 {
		return "", "", ""
	}
	n := (len(rest) - 5) / 2
	p = rest[2 : 2+n]
	if rest[:2] != "a/" || rest[2+n:] != " b/"+p {
		return "", "", ""
	}
	return "a/" + p, "b/" + p, p
}

// render rewrites each section of text whose content git did not show.
// The sections git calls binary are read and diffed together: one
// cat-file and one diff for all of them.
func (r *renderer) render(text string) (string, error) {
	r.shown = map[string]bool{}
	secs := splitSections(text)
	var bins []int
	for i, s := range secs {
		if s.path != "" {
			r.shown[s.path] = true
		}
		if s.path != "" && (hasLine(s.header, "Binary files ") || hasLine(s.header, "GIT binary patch")) {
			bins = append(bins, i)
		}
	}
	decoded, err := r.binaries(secs, bins)
	if err != nil {
		return "", err
	}
	var out strings.Builder
	for i, s := range secs {
		if got, ok := decoded[i]; ok {
			out.WriteString(got)
			continue
		}
		out.WriteString(r.section(s))
	}
	return out.String(), nil
}

// section is s as the reviewer sees it, when git showed its content, and
// notes what it does not show.
func (r *renderer) section(s section) string {
	whole := s.first + strings.Join(s.header, "") + s.body
	switch {
	case s.path == "":
	case newMode(s.header) == modeGitlink && hasSubprojectAdd(s.body):
		r.note(s.path, "a repository of its own whose files could not be read: only the commit it points at is shown")
	case newMode(s.header) == modeLink:
		if target, ok := linkTarget(s.body); ok && r.outside(s.path, target) {
			r.note(s.path, fmt.Sprintf("a symbolic link to %s, outside the project: the reviewer sees the link, not what it points at", target))
		}
	}
	return whole
}

// hasSubprojectAdd reports whether a hunk body adds a gitlink's commit.
func hasSubprojectAdd(body string) bool {
	for _, l := range strings.Split(body, "\n") {
		if strings.HasPrefix(l, "+Subproject commit ") {
			return true
		}
	}
	return false
}

// hasLine reports whether a header line starts with prefix.
func hasLine(header []string, prefix string) bool {
	for _, l := range header {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// newMode is the mode of the new side a section's header names ("" for
// a deletion or none named).
func newMode(header []string) string {
	for _, l := range header {
		l = strings.TrimSuffix(l, "\n")
		if m, ok := strings.CutPrefix(l, "new file mode "); ok {
			return m
		}
		if m, ok := strings.CutPrefix(l, "new mode "); ok {
			return m
		}
		if rest, ok := strings.CutPrefix(l, "index "); ok {
			if f := strings.Fields(rest); len(f) == 2 {
				return f[1]
			}
		}
	}
	return ""
}

// indexIDs are the old and new object ids of a section's index line ("" for
// a side that does not exist).
func indexIDs(header []string) (oldID, newID string) {
	for _, l := range header {
		rest, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), "index ")
		if !ok {
			continue
		}
		ids, _, _ := strings.Cut(rest, " ")
		a, b, _ := strings.Cut(ids, "..")
		return nonZero(a), nonZero(b)
	}
	return "", ""
}

// nonZero is id, or "" for git's all-zero id of a side that does not exist.
func nonZero(id string) string {
	if strings.Trim(id, "0") == "" {
		return ""
	}
	return id
}

// linkTarget is the target a link's section adds.
func linkTarget(body string) (string, bool) {
	for _, l := range strings.Split(body, "\n") {
		if t, ok := strings.CutPrefix(l, "+"); ok {
			return t, true
		}
	}
	return "", false
}

// outside reports whether a link at the root-relative path p to target
// points out of the project: by its text, or by where it resolves on disk
// (a target that reads as inside may pass through a directory link that
// leads out).
func (r *renderer) outside(p, target string) bool {
	if filepath.IsAbs(target) || strings.HasPrefix(target, "/") {
		return true
	}
	joined := path.Join(path.Dir(p), target)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return true
	}
	return resolvesOutside(r.root, filepath.FromSlash(joined))
}

// resolvesOutside reports whether the root-relative path rel, its links
// followed as far as they exist on disk, lies out of root. A part that
// does not exist is taken as written.
func resolvesOutside(root, rel string) bool {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return false
	}
	at, rest := filepath.Join(root, rel), ""
	for {
		real, err := filepath.EvalSymlinks(at)
		if err == nil {
			real = filepath.Join(real, rest)
			return real != realRoot && !strings.HasPrefix(real, realRoot+string(filepath.Separator))
		}
		parent := filepath.Dir(at)
		if parent == at {
			return false
		}
		rest = filepath.Join(filepath.Base(at), rest)
		at = parent
	}
}

// note adds p to what is not shown.
func (r *renderer) note(p, why string) {
	r.notShown = append(r.notShown, gate.NotShown{Path: p, Why: why})
}

// binJob is a section git calls binary, on its way to the reviewer.
type binJob struct {
	sec              section
	oldText, newText string
	oldEnc, newEnc   encoding
	oldNote          string
	hasOld, hasNew   bool
}

// binaries are the sections secs[at] (git called them binary) as the
// reviewer sees them, by index: both sides read as text where they are
// (see asText) and diffed; git's section and a note where the new side is
// no text. A deletion (the file removed, or replaced by a link or a
// directory) is its old side's lines removed when that side is text, and
// stays as git shows it otherwise.
func (r *renderer) binaries(secs []section, at []int) (map[int]string, error) {
	out := map[int]string{}
	var ids []string
	for _, i := range at {
		oldID, newID := indexIDs(secs[i].header)
		ids = append(ids, oldID, newID)
	}
	blobs, err := r.blobs(ids)
	if err != nil {
		return nil, err
	}
	jobs := map[int]*binJob{}
	for _, i := range at {
		oldID, newID := indexIDs(secs[i].header)
		var j *binJob
		if newID == "" {
			j = deletionJob(secs[i], blobs[oldID])
		} else {
			j = r.changeJob(secs[i], oldID, blobs, blobs[newID])
		}
		if j != nil {
			jobs[i] = j
		}
	}
	hunks, err := textHunks(r.ctx, jobs)
	if err != nil {
		return nil, err
	}
	for i, j := range jobs {
		out[i] = j.render(hunks[i])
	}
	return out, nil
}

// changeJob is the job of section s, whose new side is content (nil when
// too large to read), its old side oldID in blobs ("" for a new file);
// nil, with a note, when the new side cannot be shown as text.
func (r *renderer) changeJob(s section, oldID string, blobs map[string][]byte, content []byte) *binJob {
	if content == nil {
		r.note(s.path, fmt.Sprintf("content git calls binary, too large for the diff's bound of %d bytes", MaxDiffBytes))
		return nil
	}
	j := &binJob{sec: s, hasOld: oldID != "", hasNew: true}
	var ok bool
	if j.newText, j.newEnc, ok = asText(content); !ok {
		r.note(s.path, fmt.Sprintf("binary content of %d bytes that is text in no encoding known", len(content)))
		return nil
	}
	if j.hasOld {
		old, found := blobs[oldID]
		if j.oldText, j.oldEnc, ok = asText(old); !ok || !found {
			j.oldText, j.oldEnc, j.oldNote = "", "", " (the old content is binary: shown as empty)"
		}
	}
	return j
}

// deletionJob is the job of section s, a deletion whose old side is old
// (nil when it has none or it is too large to read); nil when that side is
// no text: git's section stays.
func deletionJob(s section, old []byte) *binJob {
	if old == nil {
		return nil
	}
	text, enc, ok := asText(old)
	if !ok {
		return nil
	}
	return &binJob{sec: s, oldText: text, oldEnc: enc, hasOld: true}
}

// render is the section of j with hunks, the diff of its texts.
func (j *binJob) render(hunks string) string {
	s := j.sec
	var b strings.Builder
	b.WriteString(s.first)
	for _, l := range s.header {
		if strings.HasPrefix(l, "Binary files ") || strings.HasPrefix(l, "GIT binary patch") {
			continue
		}
		b.WriteString(l)
	}
	how := "shown as text read as " + string(j.newEnc)
	switch {
	case !j.hasNew:
		how = "its removed text read as " + string(j.oldEnc)
	case j.oldEnc != "" && j.oldEnc != j.newEnc:
		how += " (was " + string(j.oldEnc) + ")"
	}
	fmt.Fprintf(&b, "# agent-gauntlet: git calls this file binary; %s, control characters as \\xNN%s\n", how, j.oldNote)
	if hunks == "" {
		b.WriteString("# agent-gauntlet: the text is the same; only its bytes changed\n")
		return b.String()
	}
	aName, bName := s.aTok, s.bTok
	if !j.hasOld {
		aName = "/dev/null"
	}
	if !j.hasNew {
		bName = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ %s\n%s", aName, bName, hunks)
	return b.String()
}

// blobs are the contents of the objects ids ("" ids skipped), read by one
// `git cat-file --batch`; an object over MaxDiffBytes, or past that many
// bytes in all, is left out.
func (r *renderer) blobs(ids []string) (map[string][]byte, error) {
	var want []string
	for _, id := range ids {
		if id != "" {
			want = append(want, id)
		}
	}
	if len(want) == 0 {
		return map[string][]byte{}, nil
	}
	c := r.d.call(r.root, "", "cat-file", "--batch-check")
	c.stdin = strings.Join(want, "\n") + "\n"
	out, _, err := run(r.ctx, c)
	if err != nil {
		return nil, err
	}
	var take []string
	total := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		if len(f) != 3 || f[1] != "blob" {
			continue
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size > MaxDiffBytes || total+size > MaxDiffBytes {
			continue
		}
		total += size
		take = append(take, f[0])
	}
	blobs := map[string][]byte{}
	if len(take) == 0 {
		return blobs, nil
	}
	c = r.d.call(r.root, "", "cat-file", "--batch")
	c.stdin = strings.Join(take, "\n") + "\n"
	if out, _, err = run(r.ctx, c); err != nil {
		return nil, err
	}
	for len(out) > 0 {
		nl := bytes.IndexByte(out, '\n')
		if nl < 0 {
			break
		}
		f := strings.Fields(string(out[:nl]))
		out = out[nl+1:]
		if len(f) != 3 {
			continue
		}
		size, err := strconv.Atoi(f[2])
		if err != nil || size+1 > len(out) {
			return nil, fmt.Errorf("git cat-file --batch: unexpected output for %s", f[0])
		}
		blobs[f[0]] = out[:size]
		out = out[size+1:]
	}
	return blobs, nil
}

// textHunks are the hunks of the unified diff of each job's two texts, by
// index ("" when they are the same): one `git diff --no-index` of two
// temporary directories, a file per job in each.
func textHunks(ctx context.Context, jobs map[int]*binJob) (map[int]string, error) {
	hunks := map[int]string{}
	if len(jobs) == 0 {
		return hunks, nil
	}
	tmp, err := os.MkdirTemp("", "gauntlet-text-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	for _, side := range []string{"a", "b"} {
		if err := os.Mkdir(filepath.Join(tmp, side), 0o700); err != nil {
			return nil, err
		}
	}
	for i, j := range jobs {
		name := strconv.Itoa(i)
		if err := os.WriteFile(filepath.Join(tmp, "a", name), []byte(j.oldText), 0o600); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(tmp, "b", name), []byte(j.newText), 0o600); err != nil {
			return nil, err
		}
	}
	out, _, err := run(ctx, call{root: tmp, okCodes: []int{1}, unset: literalEnvUnset,
		args: []string{"diff", "--no-index", "--no-color", "--no-ext-diff", "--no-textconv", "--text", "--no-renames", "-U3",
			"--src-prefix=a/", "--dst-prefix=b/", "--", "a", "b"}})
	if err != nil {
		return nil, err
	}
	for _, s := range splitSections(string(out)) {
		// Each file is a/N against b/N: "+++ b/b/N" names it.
		for _, l := range s.header {
			if n, ok := strings.CutPrefix(strings.TrimSuffix(l, "\n"), "+++ b/b/"); ok {
				if i, err := strconv.Atoi(n); err == nil {
					hunks[i] = s.body
				}
			}
		}
	}
	return hunks, nil
}

// bound is the rendered diff cut at MaxDiffBytes, with every entry it no
// longer holds (or never held: cut is git's output cut) named.
func (r *renderer) bound(text string, cut bool, entries []rawChange) ReviewDiff {
	const why = "the review diff is cut at its size bound before it"
	if len(text) > MaxDiffBytes {
		text = text[:MaxDiffBytes]
		cut = true
		r.shown = map[string]bool{}
		for _, s := range splitSections(text) {
			r.shown[s.path] = true
		}
	}
	if cut {
		// The last section may be cut short: it is not shown whole.
		secs := splitSections(text)
		if n := len(secs); n > 0 {
			delete(r.shown, secs[n-1].path)
		}
		text += TruncatedNote
	}
	noted := map[string]bool{}
	for _, n := range r.notShown {
		noted[n.Path] = true
	}
	for _, e := range entries {
		if !r.shown[e.path] && !noted[e.path] && (cut || e.newMode != "000000") {
			why := why
			if !cut {
				why = "git showed no difference for it"
			}
			r.note(e.path, why)
			noted[e.path] = true
		}
	}
	return ReviewDiff{Text: text, NotShown: r.notShown}
}

// whyUnlisted is why a changed path the review diff holds no section of
// is not shown.
const whyUnlisted = "changed, but the review diff holds no change of it"

// Account is rd with every path of listed (the change set's paths in the
// diff's scope, as the lister of the run gives them) that rd neither
// shows nor names added to NotShown: the diff is built by a path of its
// own through nested repositories, links and odd names, and whatever it
// misses is named, never dropped. A listed directory (a repository whose
// files could not be listed) counts as shown when the diff shows a path
// below it.
func Account(rd ReviewDiff, listed []string) ReviewDiff {
	if len(listed) == 0 {
		return rd
	}
	shown := map[string]bool{}
	for _, s := range splitSections(rd.Text) {
		if s.path != "" {
			shown[s.path] = true
		}
	}
	if strings.HasSuffix(rd.Text, TruncatedNote) {
		// The last section may be cut short: bound named it.
		if secs := splitSections(rd.Text); len(secs) > 0 {
			delete(shown, secs[len(secs)-1].path)
		}
	}
	named := map[string]bool{}
	for _, n := range rd.NotShown {
		named[n.Path] = true
	}
	out := rd
	out.NotShown = slices.Clone(rd.NotShown)
	for _, p := range listed {
		if shown[p] || named[p] || shownBelow(shown, p) {
			continue
		}
		named[p] = true
		out.NotShown = append(out.NotShown, gate.NotShown{Path: p, Why: whyUnlisted})
	}
	return out
}

// shownBelow reports whether shown holds a path below dir, when it names
// a directory (ends in "/").
func shownBelow(shown map[string]bool, dir string) bool {
	if !strings.HasSuffix(dir, "/") {
		return false
	}
	for p := range shown {
		if strings.HasPrefix(p, dir) {
			return true
		}
	}
	return false
}
