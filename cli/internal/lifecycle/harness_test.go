//go:build unix

package lifecycle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/lock"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
)

// tb is what the harness needs of *testing.T and *rapid.T.
type tb interface {
	Helper()
	Logf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// harness runs the steps of one sequence in one sandbox and checks every
// property after each of them.
type harness struct {
	t     tb
	bin   string
	s     *sandbox
	m     *model
	steps []string
	// known holds the signatures already found (soak): a step that breaks
	// only those does not fail; the model takes the disk as it is and the
	// sequence goes on.
	known map[string]bool
	rec   *recorder
	// failed, when set, is called before a violation fails the test.
	failed func()
	// commits caches the files of commits (commitFiles).
	commits map[string]map[string]string
	// planted are the links storeLink planted, by their place in the
	// store, to what was there before, put aside ("" for nothing).
	planted map[string]string
}

// newHarness creates the sandbox of a sequence under parent.
func newHarness(t tb, parent string, cfg projectConfig, known map[string]bool, rec *recorder) (*harness, error) {
	bin, err := gauntletBinary()
	if err != nil {
		return nil, err
	}
	s, err := newSandbox(parent, bin, cfg)
	if err != nil {
		return nil, err
	}
	files, err := s.userTree()
	if err != nil {
		s.remove()
		return nil, err
	}
	m := newModel(cfg, files)
	if !cfg.NoCommits {
		if m.mainMark, err = s.git("rev-parse", "main"); err != nil {
			s.remove()
			return nil, err
		}
		if cfg.Trusted {
			// The person trusted with HEAD at main's commit (newSandbox):
			// the record's start point.
			m.start = m.mainMark
		}
	}
	return &harness{t: t, bin: bin, s: s, m: m, known: known, rec: rec, commits: map[string]map[string]string{}}, nil
}

// close kills what a sequence may have left running and removes the sandbox.
func (h *harness) close() {
	if data, err := os.ReadFile(filepath.Join(h.s.marks, "sleeping")); err == nil {
		if pgid, err := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && pgid > 1 {
			_ = syscall.Kill(-pgid, syscall.SIGKILL)
		}
	}
	h.s.remove()
}

// sequence is the replayable text of the steps so far.
func (h *harness) sequence() string {
	return h.m.cfg.String() + "\n" + strings.Join(h.steps, "\n") + "\n"
}

// do runs one step and checks the properties; a violation fails the test
// (or, when every one is known, ends the checking of this sequence).
func (h *harness) do(step string) {
	h.t.Helper()
	h.steps = append(h.steps, step)
	h.t.Logf("step %d: %s", len(h.steps), step)
	start := time.Now()
	vs, err := h.exec(step)
	if d := time.Since(start); d > time.Second {
		h.t.Logf("  (%s)", d.Round(time.Millisecond))
	}
	if err != nil {
		h.t.Fatalf("step %q: %v", step, err)
	}
	vs = append(vs, h.invariants()...)
	if err := h.checkTrustModel(); err != nil {
		h.t.Fatalf("step %q: %v", step, err)
	}
	if ranBinary(step) {
		if err := h.unplant(); err != nil {
			h.t.Fatalf("step %q: %v", step, err)
		}
	}
	if len(vs) == 0 {
		return
	}
	for _, v := range vs {
		h.t.Logf("VIOLATION %s", v)
	}
	if h.rec != nil {
		h.rec.record(vs, h.sequence())
	}
	for _, v := range vs {
		if !h.known[v.Sig] && !h.known[sigClass(v.Sig)] {
			if h.failed != nil {
				h.failed()
			}
			h.t.Fatalf("lifecycle property violated: %s", v.Sig)
		}
	}
	h.resync()
}

// checkTrustModel checks the model's trust state against the trusted
// record on disk: while the model holds none (trustHead), the oracle judges
// by the configuration committed at HEAD, so no record may exist; once it
// holds one (trustRecord), one must. Invariant: every step that records
// trust in the binary (a stop hook past its start however it ended: an
// answer, any signal in the middle of a gate; trust; init) records it in
// the model. A divergence is the harness's defect, not a property of the
// binary: it ends the sequence. Not checked while a link is planted in the
// store, nor when the model left the record open (trustUnknown).
func (h *harness) checkTrustModel() error {
	if len(h.planted) > 0 || h.m.trust == trustUnknown {
		return nil
	}
	p, err := place.Locate(context.Background(), h.s.repo)
	if err != nil {
		return nil // no repository to hold a record (a broken HEAD, a removed .git)
	}
	rec, err := trust.ReadRecord(p)
	exists := rec != nil || err != nil
	switch {
	case h.m.trust == trustHead && exists:
		return fmt.Errorf("the model holds no trusted record, but %s exists (a step recorded trust the model does not follow)", trust.RecordPath(p))
	case h.m.trust == trustRecord && !exists:
		return fmt.Errorf("the model holds a trusted record, but %s does not exist", trust.RecordPath(p))
	}
	return nil
}

// ranBinary reports whether step runs the gauntlet: after it, the links
// storeLink planted are taken away (unplant), so that a sequence goes on
// with its store as it was.
func ranBinary(step string) bool {
	f := strings.Fields(step)
	return len(f) > 0 && slices.Contains([]string{"run", "check", "review", "detect", "clean", "hook", "signal", "cache"}, f[0])
}

// unplant removes the links storeLink planted and puts back what they
// replaced; the person's directories stay, no longer watched.
func (h *harness) unplant() error {
	for _, at := range slices.Backward(slices.Sorted(maps.Keys(h.planted))) {
		if err := os.Remove(at); err != nil {
			return fmt.Errorf("unplant: %w", err)
		}
		if aside := h.planted[at]; aside != "" {
			if err := os.Rename(aside, at); err != nil {
				return fmt.Errorf("unplant: %w", err)
			}
		}
	}
	h.planted = nil
	clear(h.m.storeLinks)
	return nil
}

// storeLink plants, at rel in the gauntlet's store (.git/agent-gauntlet;
// "." for the store itself), a link to a person's directory outside the
// project holding one file, in place of what was there (put aside until
// the next step that runs the gauntlet, see unplant).
func (h *harness) storeLink(rel string) error {
	if rel == "" || !filepath.IsLocal(rel) && rel != "." {
		return fmt.Errorf("storelink: bad path %q", rel)
	}
	dir := filepath.Join(h.s.outside(), "store-"+strings.NewReplacer("/", "_", ".", "_").Replace(rel))
	files := map[string]string{"keep.txt": "the person's own, at " + rel + "\n"}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "keep.txt"), []byte(files["keep.txt"]), 0o644); err != nil {
		return err
	}
	at := filepath.Join(h.s.repo, ".git", "agent-gauntlet", rel)
	if _, ok := h.planted[at]; ok {
		return nil // planted already
	}
	for p := range h.planted {
		sep := string(filepath.Separator)
		if strings.HasPrefix(at, p+sep) || strings.HasPrefix(p, at+sep) {
			return nil // below or above a link planted already: one of them
		}
	}
	if err := os.MkdirAll(filepath.Dir(at), 0o755); err != nil {
		return err
	}
	aside := ""
	if _, err := os.Lstat(at); err == nil {
		aside = filepath.Join(h.s.base, fmt.Sprintf("aside-%d", len(h.steps)))
		if err := os.Rename(at, aside); err != nil {
			return err
		}
	}
	if h.planted == nil {
		h.planted = map[string]string{}
	}
	h.planted[at] = aside
	h.m.storeLinks[dir] = files
	return os.Symlink(dir, at)
}

// resync makes the model's files what the disk holds, after a known
// violation, so that the sequence goes on from there.
func (h *harness) resync() {
	if files, err := h.s.userTree(); err == nil {
		h.m.files = files
	}
	for p, c := range h.m.logFiles {
		if data, err := os.ReadFile(h.s.path(p)); err != nil || string(data) != c {
			delete(h.m.logFiles, p)
		}
	}
}

// invariants are checked after every step: the user's files (a), the
// execution state and the reviewer's calls (e).
func (h *harness) invariants() []violation {
	tree, err := h.s.userTree()
	if err != nil {
		return []violation{{"a:unreadable-tree", err.Error()}}
	}
	vs := checkUserFiles(h.m, tree, func(rel string) (string, bool) {
		data, err := os.ReadFile(h.s.path(rel))
		return string(data), err == nil
	})
	vs = append(vs, checkStoreLinks(h.m, func(dir string) (map[string]string, error) { return readTree(dir) })...)
	data, err := os.ReadFile(filepath.Join(h.s.logDir(), state.File))
	vs = append(vs, checkState(data, err == nil)...)
	errs, _ := os.ReadFile(filepath.Join(h.s.marks, reviewerErrors))
	vs = append(vs, checkReviewer(errs)...)
	if len(errs) > 0 {
		_ = os.Remove(filepath.Join(h.s.marks, reviewerErrors))
	}
	if bin, err := os.ReadFile(filepath.Join(h.s.marks, binaryFile)); err == nil {
		vs = append(vs, violation{"e:reviewer-binary-diff", "the reviewer was shown a text file as binary: " + strings.TrimSpace(string(bin))})
		_ = os.Remove(filepath.Join(h.s.marks, binaryFile))
	}
	return vs
}

// exec runs one step; an error is a broken harness, not a property.
func (h *harness) exec(step string) ([]violation, error) {
	f := strings.Fields(step)
	if len(f) == 0 {
		return nil, fmt.Errorf("empty step")
	}
	arg := func(i int) string {
		if i < len(f) {
			return f[i]
		}
		return ""
	}
	switch f[0] {
	case "edit":
		n, err := strconv.Atoi(arg(2))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("edit: bad line %q", arg(2))
		}
		return nil, h.edit(arg(1), n, arg(3))
	case "insert":
		return nil, h.insertTop(arg(1))
	case "rm":
		return nil, h.removePath(arg(1))
	case "rmdir":
		return nil, h.removePath(arg(1))
	case "logfile":
		rel := logDirName + "/" + arg(1)
		content := "the user's own notes: " + arg(1) + "\n"
		h.m.logFiles[rel] = content
		return nil, h.s.writeFile(rel, content)
	case "storelink":
		return nil, h.storeLink(arg(1))
	case "commit":
		return nil, h.commit()
	case "branch", "checkout":
		return nil, h.checkout(arg(1), f[0] == "branch")
	case "merge":
		return nil, h.merge()
	case "pull":
		return nil, h.pull()
	case "mark":
		n, _ := strconv.Atoi(arg(2))
		return nil, h.mark(arg(1), n, arg(3) == "old")
	case "config":
		return nil, h.config(arg(1))
	case "lock":
		return nil, h.placeLock(lockKind(arg(1)))
	case "forge", "weaken", "restore", "trust", "global", "flag", "ignore", "attr", "crlf", "refmove", "nest", "reviewer", "spelling":
		return h.shell(f)
	case "unlock":
		h.m.lock, h.m.lockContent = lockNone, ""
		return nil, ignoreMissing(os.Remove(lock.Path(h.s.logDir())))
	case "run", "check", "review", "detect", "clean":
		r, err := parseRunCall(f)
		if err != nil {
			return nil, err
		}
		return h.runCommand(r)
	case "hook":
		n, err := strconv.Atoi(strings.TrimPrefix(arg(1), "s"))
		if err != nil {
			return nil, fmt.Errorf("hook: bad session %q", arg(1))
		}
		return h.hook(hookCall{Session: sessionID(n), Active: arg(2), Where: arg(3)})
	case "signal":
		return h.signal(arg(1), arg(2))
	case "cache":
		return h.cacheClear()
	}
	return nil, fmt.Errorf("unknown step %q", step)
}

func ignoreMissing(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return err
}

// nulToken in an edit's text is a NUL byte: git then calls the file
// binary, and its reviewer must still be shown its lines.
const nulToken = "<NUL>"

// edit sets line n of path to text (filling missing lines with "plain").
func (h *harness) edit(path string, n int, text string) error {
	text = strings.ReplaceAll(text, nulToken, "\x00")
	var lines []string
	if c, ok := h.m.files[path]; ok {
		lines = strings.Split(strings.TrimSuffix(c, "\n"), "\n")
	}
	for len(lines) < n {
		lines = append(lines, "plain")
	}
	lines[n-1] = text
	return h.setFile(path, strings.Join(lines, "\n")+"\n")
}

// config breaks the work tree's configuration (a field error in a check
// file) or fixes it.
func (h *harness) config(what string) error {
	c := strings.ReplaceAll(h.m.files[brokenCheckFile], brokenLine, "")
	switch what {
	case "break":
		c += brokenLine
	case "fix":
	default:
		return fmt.Errorf("config: %q", what)
	}
	return h.setFile(brokenCheckFile, c)
}

// insertTop inserts a plain line at the top of an existing file: every
// line below moves by one.
func (h *harness) insertTop(path string) error {
	c, ok := h.m.files[path]
	if !ok {
		return nil
	}
	return h.setFile(path, "plain\n"+c)
}

func (h *harness) setFile(path, content string) error {
	h.m.files[path] = content
	return h.s.writeFile(path, content)
}

// removePath deletes a file or a directory of the work tree.
func (h *harness) removePath(path string) error {
	delete(h.m.files, path)
	for p := range h.m.files {
		if strings.HasPrefix(p, path+"/") { // a nested repository's .git/ too
			delete(h.m.files, p)
		}
	}
	h.m.nested = slices.DeleteFunc(h.m.nested, func(d string) bool { return d == path || strings.HasPrefix(d, path+"/") })
	return os.RemoveAll(h.s.path(path))
}

// commit commits everything (an empty commit when nothing changed: a new
// commit all the same).
func (h *harness) commit() error {
	if err := h.addAll(h.s.env); err != nil {
		return err
	}
	if _, err := h.s.git("commit", "-q", "--allow-empty", "-m", fmt.Sprintf("step %d", len(h.steps))); err != nil {
		return err
	}
	if h.m.unborn {
		h.m.unborn = false
		if !slices.Contains(h.m.branches, h.m.branch) {
			h.m.branches = append(h.m.branches, h.m.branch)
		}
		if h.m.unbornPass != nil && h.m.branch == "main" {
			// The binary marked the tree the pass verified (recordEnd): the
			// first commit records it, or the work since it.
			head, err := h.s.git("rev-parse", "HEAD")
			if err != nil {
				return err
			}
			h.m.mainMark, h.m.refMoved, h.m.markTree = strings.TrimSpace(head), false, ""
			if !maps.Equal(h.m.unbornPass, h.m.files) {
				h.m.markTree = h.m.unbornTree
			}
		}
	}
	h.m.unbornPass, h.m.unbornTree = nil, ""
	return nil
}

// addAll runs `git add -A` in the repository with env; a nested
// repository with no commit, which cannot be added, is left out, as an
// agent whose `git add -A` failed would.
func (h *harness) addAll(env []string) error {
	add := func(args ...string) error {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = h.s.repo, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %v: %w\n%s", args, err, out)
		}
		return nil
	}
	if add("add", "-A") == nil {
		return nil
	}
	args := []string{"add", "-A", "--", "."}
	for _, d := range h.m.nested {
		args = append(args, ":(exclude)"+d)
	}
	return add(args...)
}

// notePassTree makes, after a pass on main before its first commit
// (model.notePassMarked), a commit of no parent holding the work tree as
// that pass saw it (git add -A into an index of its own).
func (h *harness) notePassTree() error {
	if h.m.unbornPass == nil || h.m.unbornTree != "" {
		return nil
	}
	index := filepath.Join(h.s.base, "pass.index")
	defer os.Remove(index)
	env := append(slices.Clone(h.s.env), "GIT_INDEX_FILE="+index)
	if err := h.addAll(env); err != nil {
		return fmt.Errorf("pass tree: %w", err)
	}
	cmd := exec.Command("git", "write-tree")
	cmd.Dir, cmd.Env = h.s.repo, env
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("pass tree: git write-tree: %w", err)
	}
	commit, err := h.s.git("commit-tree", "-m", "the tree a pass judged", strings.TrimSpace(string(out)))
	if err != nil {
		return err
	}
	h.m.unbornTree = strings.TrimSpace(commit)
	return nil
}

// checkout switches to branch name (creating it when create and it does
// not exist); git refusing (local changes in the way) leaves all as is.
func (h *harness) checkout(name string, create bool) error {
	if h.m.unborn {
		return nil
	}
	args := []string{"checkout", "-q", name}
	if create && !slices.Contains(h.m.branches, name) {
		args = []string{"checkout", "-q", "-b", name}
	}
	if _, err := h.s.git(args...); err != nil {
		return nil
	}
	if !slices.Contains(h.m.branches, name) {
		h.m.branches = append(h.m.branches, name)
	}
	h.m.branch = name
	files, err := h.s.userTree()
	if err != nil {
		return err
	}
	h.m.files = files
	return nil
}

// merge merges HEAD into main without touching the work tree (the pull
// request of the committed work is merged on the remote, fetched and
// pulled: origin/main and main name the merge); a conflict leaves all as
// is.
func (h *harness) merge() error {
	if h.m.branch == "main" || h.m.unborn {
		return nil
	}
	commit, err := h.mergeCommit()
	if err != nil || commit == "" {
		return err
	}
	if _, err = h.s.git("update-ref", "refs/heads/main", commit); err != nil {
		return err
	}
	// The remote's main gains the merge (as its host merges a pull
	// request), and origin/main takes it by a fetch.
	if _, err = h.s.git("push", "-q", "-f", h.s.remote(), commit+":refs/heads/main"); err != nil {
		return err
	}
	if _, err = h.s.git("fetch", "-q", "origin"); err != nil {
		return err
	}
	h.m.mainMark, h.m.refMoved, h.m.markTree = commit, false, ""
	return nil
}

// pull merges main into the current branch, as `git merge main` does
// (a fast-forward when it can): whatever main holds, a commit the agent
// made there past its last point seen to pass included, comes into HEAD.
// A conflict or local changes in the way leave all as is.
func (h *harness) pull() error {
	if h.m.branch == "main" || h.m.unborn {
		return nil
	}
	if _, err := h.s.git("merge", "-q", "--no-edit", "main"); err != nil {
		_, _ = h.s.git("merge", "--abort")
		return nil
	}
	files, err := h.s.userTree()
	if err != nil {
		return err
	}
	h.m.files = files
	return nil
}

// mergeCommit makes the commit merging HEAD into main, "" on a conflict.
func (h *harness) mergeCommit() (string, error) {
	out, err := h.s.git("merge-tree", "--write-tree", "main", "HEAD")
	if err != nil {
		return "", nil
	}
	tree, _, _ := strings.Cut(out, "\n")
	return h.s.git("commit-tree", tree, "-p", "main", "-p", "HEAD", "-m", "merge "+h.m.branch)
}

// reviewJSONRE matches a review slot's JSON: <stem>.<run>.json.
var reviewJSONRE = regexp.MustCompile(`^(review_.+)\.(\d+)\.json$`)

// mark sets the status of the n-th (1-based, wrapping) violation still
// "new" in the latest review JSON of each slot (old: in the one before it,
// when a slot has one; a hand edit may pick any), as an agent does after
// a block; skipped ones become model skips on this branch.
func (h *harness) mark(status string, n int, old bool) error {
	entries, err := os.ReadDir(h.s.logDir())
	if err != nil {
		return nil
	}
	runs := map[string][]int{}
	for _, e := range entries {
		if m := reviewJSONRE.FindStringSubmatch(e.Name()); m != nil {
			run, _ := strconv.Atoi(m[2])
			runs[m[1]] = append(runs[m[1]], run)
		}
	}
	latest := map[string]int{}
	for stem, list := range runs {
		slices.Sort(list)
		pick := len(list) - 1
		if old && pick > 0 {
			pick--
		}
		latest[stem] = list[pick]
	}
	type cand struct {
		path string
		doc  map[string]any
		v    map[string]any
	}
	var cands []cand
	for _, stem := range sortedKeys(latest) {
		p := filepath.Join(h.s.logDir(), fmt.Sprintf("%s.%d.json", stem, latest[stem]))
		doc, vs, ok := readReview(p)
		if !ok {
			continue
		}
		for _, x := range vs {
			if v, ok := x.(map[string]any); ok && v["status"] == "new" {
				cands = append(cands, cand{p, doc, v})
			}
		}
	}
	if len(cands) == 0 || n < 1 {
		return nil
	}
	c := cands[(n-1)%len(cands)]
	c.v["status"] = status
	c.v["result"] = "lifecycle test: marked " + status
	data, err := json.MarshalIndent(c.doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(c.path, append(data, '\n'), 0o644); err != nil {
		return err
	}
	if status == "skipped" {
		file, _ := c.v["file"].(string)
		issue, _ := c.v["issue"].(string)
		line, _ := c.v["line"].(float64)
		if tok := markerRE.FindString(issue); tok != "" {
			id, _ := c.v["id"].(string)
			h.m.skips = append(h.m.skips, skip{Branch: h.m.branch, File: file, Token: tok, Line: int(line), Cleans: h.m.cleans, ID: id})
		}
	}
	return nil
}

// placeLock writes a stray lock file of kind (when none is there).
func (h *harness) placeLock(kind lockKind) error {
	path := lock.Path(h.s.logDir())
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	now := time.Now()
	owner := func(pid int, host string, at time.Time) string {
		data, _ := json.Marshal(map[string]any{"pid": pid, "host": host, "started_at": at.UTC().Format(time.RFC3339Nano)})
		return string(data)
	}
	var content string
	mtime := now
	switch kind {
	case lockLive:
		content = owner(os.Getpid(), h.s.host, now)
	case lockDead:
		c := exec.Command("true")
		if err := c.Run(); err != nil {
			return err
		}
		content = owner(c.Process.Pid, h.s.host, now)
	case lockReused:
		// The lock says a run of ours took it twenty seconds ago (recent
		// enough for a run to hold it); its pid now belongs to a process
		// started after that.
		c := exec.Command("sleep", "3600")
		if err := c.Start(); err != nil {
			return err
		}
		h.s.sleepers = append(h.s.sleepers, c)
		content = owner(c.Process.Pid, h.s.host, now.Add(-20*time.Second))
	case lockForeign:
		content = owner(4242, "build-agent-7.example", now)
	case lockEmpty:
	case lockTS:
		content = "4242\n"
	case lockOld:
		mtime = now.Add(-48 * time.Hour)
		content = owner(4242, "build-agent-7.example", mtime)
	case lockOldEmpty:
		mtime = now.Add(-48 * time.Hour)
	default:
		return fmt.Errorf("unknown lock kind %q", kind)
	}
	if err := os.MkdirAll(h.s.logDir(), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		return err
	}
	if err := os.Chtimes(path, mtime, mtime); err != nil {
		return err
	}
	h.m.lock, h.m.lockContent = kind, content
	return nil
}

// parseRunCall parses "run -g lint -c HEAD~1 ..." (a rev for -c).
func parseRunCall(f []string) (runCall, error) {
	r := runCall{Cmd: f[0]}
	for i := 1; i < len(f); i++ {
		next := func() string {
			if i+1 < len(f) {
				i++
				return f[i]
			}
			return ""
		}
		switch f[i] {
		case "-g":
			r.Gate = next()
		case "-c":
			r.Commit = next()
		case "-b":
			r.Base = next()
		case "-u":
			r.Uncommitted = true
		case "--no-cache":
			r.NoCache = true
		default:
			return r, fmt.Errorf("unknown flag %q", f[i])
		}
	}
	return r, nil
}

// gitState is the user's git state: HEAD, refs, index, stash.
func (h *harness) gitState() string {
	cmd := exec.Command("sh", "-c", "git symbolic-ref -q HEAD; git rev-parse HEAD; git for-each-ref; git ls-files -s; git ls-files -v; git stash list")
	cmd.Dir, cmd.Env = h.s.repo, h.s.env
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// lockContent reads the lock file (nil when there is none).
func (h *harness) lockContent() *string {
	data, err := os.ReadFile(lock.Path(h.s.logDir()))
	if err != nil {
		return nil
	}
	s := string(data)
	return &s
}
