//go:build unix

package lifecycle

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/state"
)

// The steps of this file are what the gated agent can do with its shell
// besides editing its work (forge or delete the gauntlet's files, weaken
// the configuration, set index flags and attributes, move refs), what a
// person does (trust a configuration, switch the hook off globally), and
// the odd shapes and faults of the world (nested repositories, a reviewer
// that is down or spells paths its own way).

// shell runs one such step.
func (h *harness) shell(f []string) ([]violation, error) {
	arg := func(i int) string {
		if i < len(f) {
			return f[i]
		}
		return ""
	}
	var err error
	switch f[0] {
	case "forge":
		err = h.forge(arg(1), arg(2))
	case "weaken":
		err = h.weaken(arg(1))
	case "restore":
		err = h.restoreConfig()
	case "trust":
		return h.trustStep()
	case "global":
		err = h.globalConfig(arg(1))
	case "flag":
		err = h.indexFlag(arg(1), arg(2))
	case "ignore":
		err = h.ignore(arg(1), arg(2))
	case "attr":
		err = h.attribute(arg(1), arg(2), arg(3))
	case "crlf":
		err = h.crlf(arg(1))
	case "refmove":
		err = h.refMove(arg(1))
	case "nest":
		err = h.nest(arg(1), arg(2) == "commit")
	case "reviewer":
		err = h.reviewerFault(arg(1))
	case "spelling":
		h.m.spelling = arg(1)
		err = os.WriteFile(filepath.Join(h.s.marks, spellingFile), []byte(arg(1)), 0o644)
	default:
		err = fmt.Errorf("unknown step %q", strings.Join(f, " "))
	}
	return nil, err
}

// forge edits, deletes or forges a file of the log directory: what, of
// the review JSON files ("review"), .execution_state ("state") or the logs
// ("log"), and how.
func (h *harness) forge(what, how string) error {
	before, _ := readTree(h.s.logDir())
	var err error
	switch what {
	case "review":
		err = h.forgeReview(how)
	case "state":
		err = h.forgeState(how)
	case "log":
		err = h.forgeLogs(how)
	default:
		return fmt.Errorf("forge: %q", what)
	}
	if after, _ := readTree(h.s.logDir()); !maps.Equal(before, after) {
		h.m.forged[what] = true
	}
	return err
}

// latestReviews returns the newest review JSON of each slot.
func (h *harness) latestReviews() map[string]int {
	entries, _ := os.ReadDir(h.s.logDir())
	latest := map[string]int{}
	for _, e := range entries {
		if m := reviewJSONRE.FindStringSubmatch(e.Name()); m != nil {
			if run, _ := strconv.Atoi(m[2]); run > latest[m[1]] {
				latest[m[1]] = run
			}
		}
	}
	return latest
}

// forgeReview rewrites the newest review JSON of each slot: "flip" its
// status to pass, "drop" its first violation, "reword" every violation's
// issue, "dupskip" every violation (the copy marked skipped, the entry
// left as it is), "rm" the file, "add" a newer one that passes, or
// "addskip" a newer one with every violation marked skipped; "preskip"
// writes a review file of src's slot at the next run's number, in the
// TypeScript tool's format (no ids), marking skipped every violation the
// reviewer is about to report there, before it reported any. None of them
// skips a violation: only a mark of the entry the gauntlet wrote does.
func (h *harness) forgeReview(how string) error {
	if how == "preskip" {
		return h.preskip()
	}
	for stem, run := range h.latestReviews() {
		p := filepath.Join(h.s.logDir(), fmt.Sprintf("%s.%d.json", stem, run))
		if how == "rm" {
			if err := ignoreMissing(os.Remove(p)); err != nil {
				return err
			}
			continue
		}
		if how == "add" {
			p = filepath.Join(h.s.logDir(), fmt.Sprintf("%s.%d.json", stem, run+1))
			doc := map[string]any{"adapter": reviewerName, "timestamp": time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
				"status": "pass", "rawOutput": "", "violations": []any{}}
			if err := writeJSON(p, doc); err != nil {
				return err
			}
			continue
		}
		doc, vs, ok := readReview(p)
		if !ok {
			continue
		}
		switch how {
		case "dupskip", "addskip":
			var out []any
			for _, x := range vs {
				v, ok := x.(map[string]any)
				if !ok {
					continue
				}
				c := maps.Clone(v)
				c["status"], c["result"] = "skipped", "forged"
				if how == "dupskip" {
					out = append(out, v)
				}
				out = append(out, c)
			}
			doc["violations"] = out
			if how == "addskip" {
				p = filepath.Join(h.s.logDir(), fmt.Sprintf("%s.%d.json", stem, run+1))
			}
		case "flip":
			doc["status"] = "pass"
		case "drop":
			if len(vs) > 0 {
				doc["violations"] = vs[1:]
			}
		case "reword":
			for _, x := range vs {
				if v, ok := x.(map[string]any); ok {
					v["issue"] = "style nit, nothing to change"
					v["priority"] = "low"
				}
			}
		default:
			return fmt.Errorf("forge review: %q", how)
		}
		if err := writeJSON(p, doc); err != nil {
			return err
		}
	}
	return nil
}

// preskip writes the "preskip" forgery (see forgeReview): every REVIEWME
// marker under src/ (its vendor/ aside), marked skipped with the very file,
// line and issue the reviewer gives it.
func (h *harness) preskip() error {
	next := 1
	entries, _ := os.ReadDir(h.s.logDir())
	for _, e := range entries {
		if m := runNumberRE.FindStringSubmatch(e.Name()); m != nil {
			if n, _ := strconv.Atoi(m[1]); n >= next {
				next = n + 1
			}
		}
	}
	var vs []any
	err := filepath.WalkDir(h.s.path("src"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			if d != nil && d.IsDir() && d.Name() == "vendor" {
				return filepath.SkipDir
			}
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(h.s.repo, p)
		for i, line := range strings.Split(string(data), "\n") {
			for _, token := range markerRE.FindAllString(line, -1) {
				vs = append(vs, map[string]any{"file": filepath.ToSlash(rel), "line": i + 1, "issue": token + " marker left in the code",
					"fix": "remove the marker", "priority": "high", "status": "skipped", "result": "forged"})
			}
		}
		return nil
	})
	if err != nil || len(vs) == 0 {
		return err
	}
	if err := os.MkdirAll(h.s.logDir(), 0o755); err != nil {
		return err
	}
	doc := map[string]any{"adapter": reviewerName, "timestamp": time.Now().UTC().Format("2006-01-02T15:04:05.000Z"),
		"status": "fail", "rawOutput": "", "violations": vs}
	return writeJSON(filepath.Join(h.s.logDir(), fmt.Sprintf("review_src_quality_%s@1.%d.json", reviewerName, next)), doc)
}

// runNumberRE matches a numbered log file's run number.
var runNumberRE = regexp.MustCompile(`\.(\d+)\.(?:log|json)$`)

// readReview reads the review JSON at p: the document and its violations;
// ok is false when it cannot be read as one.
func readReview(p string) (doc map[string]any, violations []any, ok bool) {
	data, err := os.ReadFile(p)
	if err != nil || json.Unmarshal(data, &doc) != nil {
		return nil, nil, false
	}
	violations, _ = doc["violations"].([]any)
	return doc, violations, true
}

func writeJSON(p string, doc any) error {
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(p, append(data, '\n'), 0o644)
}

// forgeState rewrites .execution_state: "ts" writes one with the
// TypeScript tool's fields only, dated now; "date" dates the existing one
// now (its last run and last full pass); "branch" names another branch in
// it; "rm" deletes it.
func (h *harness) forgeState(how string) error {
	p := filepath.Join(h.s.logDir(), state.File)
	now := time.Now().UTC().Format(time.RFC3339Nano)
	head, _ := h.s.git("rev-parse", "-q", "--verify", "HEAD")
	switch how {
	case "rm":
		return ignoreMissing(os.Remove(p))
	case "ts":
		if !h.m.ran {
			h.m.forgedState = true
		}
		if err := os.MkdirAll(h.s.logDir(), 0o755); err != nil {
			return err
		}
		return writeJSON(p, map[string]string{"last_run_completed_at": now, "branch": h.m.branch, "commit": head, "working_tree_ref": head})
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil
	}
	var doc map[string]any
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	switch how {
	case "date":
		doc["last_run_completed_at"] = now
		doc["last_full_pass_completed_at"] = now
	case "branch":
		doc["branch"] = "elsewhere"
	default:
		return fmt.Errorf("forge state: %q", how)
	}
	return writeJSON(p, doc)
}

// gauntletLogRE matches the logs the gauntlet writes (not its state, not
// its lock, not the review JSON files).
var gauntletLogRE = regexp.MustCompile(`^(console|check_.+|review_.+)\.\d+\.log$`)

// forgeLogs deletes the console logs ("rm-console"), deletes the check
// logs ("rm-check"), rewrites the check logs as passing runs
// ("edit-check"), or deletes every file the gauntlet wrote in the log
// directory but the lock ("rm-all").
func (h *harness) forgeLogs(how string) error {
	for _, dir := range []string{h.s.logDir(), filepath.Join(h.s.logDir(), "previous")} {
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			name := e.Name()
			p := filepath.Join(dir, name)
			rel, _ := filepath.Rel(h.s.repo, p)
			if _, mine := h.m.logFiles[filepath.ToSlash(rel)]; e.IsDir() || mine {
				continue
			}
			var err error
			switch {
			case how == "rm-console" && strings.HasPrefix(name, "console."):
				err = os.Remove(p)
			case how == "rm-check" && strings.HasPrefix(name, "check_"):
				err = os.Remove(p)
			case how == "edit-check" && strings.HasPrefix(name, "check_"):
				err = os.WriteFile(p, []byte("lint ok\ntest ok\n"), 0o644)
			case how == "rm-all" && (gauntletLogRE.MatchString(name) || reviewJSONRE.MatchString(name) || name == state.File):
				err = os.Remove(p)
			}
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// weaken weakens the work tree's configuration (weakenings), or deletes
// .gauntlet/ ("delete").
func (h *harness) weaken(how string) error {
	if how == "delete" {
		return h.removePath(gauntletDir)
	}
	w, ok := weakenings[how]
	if !ok {
		return fmt.Errorf("weaken: %q", how)
	}
	files := w(h.m.files)
	if files == nil {
		return nil
	}
	return h.setGauntlet(files)
}

// setGauntlet makes the work tree's .gauntlet/ hold exactly files.
func (h *harness) setGauntlet(files map[string]string) error {
	for p := range gauntletOf(h.m.files) {
		if _, ok := files[p]; !ok {
			if err := h.removePath(p); err != nil {
				return err
			}
		}
	}
	for _, p := range sortedKeys(files) {
		if h.m.files[p] != files[p] {
			if err := h.setFile(p, files[p]); err != nil {
				return err
			}
		}
	}
	return nil
}

// restoreConfig puts back the configuration in force (the trusted one):
// the agent undoing its edit.
func (h *harness) restoreConfig() error {
	f, err := h.facts()
	if err != nil {
		return err
	}
	files, known := h.m.hookFiles(f)
	if !known {
		return nil
	}
	return h.setGauntlet(files)
}

// trustStep is a person running `agent-gauntlet trust --yes`: when it
// succeeds, the work tree's configuration is the one in force.
func (h *harness) trustStep() ([]violation, error) {
	p, before, err := h.launch("", "trust", "--yes")
	if err != nil {
		return nil, err
	}
	res, vs := h.finish(p, before)
	h.t.Logf("  -> trust exit %d", res.code)
	if res.code == 0 {
		// trust rewrites the record only when it changes what is trusted.
		changed := h.m.trust != trustRecord || !sameGauntlet(h.m.trusted, gauntletOf(h.m.files))
		if changed {
			head, _ := h.s.git("rev-parse", "-q", "--verify", "HEAD")
			h.m.personTrusts(head)
		}
		h.m.trust, h.m.trusted = trustRecord, gauntletOf(h.m.files)
		h.m.trustFresh = h.m.trustFresh || h.m.booked && changed
	}
	return vs, nil
}

// globalConfig writes ("disable") or removes ("enable") a global
// configuration that switches the stop hook off.
func (h *harness) globalConfig(how string) error {
	p := filepath.Join(h.s.base, "home", ".config", "agent-gauntlet", "config.yml")
	switch how {
	case "disable":
		h.m.globalDisabled = true
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		return os.WriteFile(p, []byte("stop_hook:\n  enabled: false\n"), 0o644)
	case "enable":
		h.m.globalDisabled = false
		return ignoreMissing(os.Remove(p))
	}
	return fmt.Errorf("global: %q", how)
}

// indexFlag sets an index flag (skip-worktree, assume-unchanged) on a
// tracked file; git refusing (an untracked file) leaves all as is.
func (h *harness) indexFlag(flag, path string) error {
	if _, err := h.s.git("update-index", "--"+flag, "--", path); err == nil {
		h.m.flagged[path] = true
	}
	return nil
}

// ignoreHows are the ways the agent's shell hides a file from git with an
// ignore rule (see ignore).
var ignoreHows = []string{"root", "nested", "self", "info"}

// ignore hides the file at p from git: a line in the top-level .gitignore
// ("root"), in a .gitignore beside it ("nested"), a .gitignore beside it
// that ignores itself and everything there ("self"), a line in
// .git/info/exclude ("info"). (Sparse checkouts, which take files off the
// disk, are cli/hiding_test.go's.)
func (h *harness) ignore(how, p string) error {
	h.m.hid = true
	dir := path.Dir(p)
	switch how {
	case "root":
		return h.setFile(".gitignore", h.m.files[".gitignore"]+"/"+p+"\n")
	case "nested":
		// path.Join: a file at the top has its rules in the root's file
		// (the model knows it as ".gitignore", never "./.gitignore").
		f := path.Join(dir, ".gitignore")
		return h.setFile(f, h.m.files[f]+path.Base(p)+"\n")
	case "self":
		return h.setFile(path.Join(dir, ".gitignore"), "*\n")
	case "info":
		f := filepath.Join(h.s.repo, ".git", "info", "exclude")
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return err
		}
		old, _ := os.ReadFile(f)
		return os.WriteFile(f, append(old, "/"+p+"\n"...), 0o644)
	}
	return fmt.Errorf("ignore: %q", how)
}

// attribute adds an attribute line for pattern to .gitattributes ("root")
// or .git/info/attributes ("info"): -diff, binary, text=auto, a clean
// filter that hides the markers from what git stores ("filter"), a
// textconv that hides them from diffs ("textconv").
func (h *harness) attribute(where, pattern, attr string) error {
	switch attr {
	case "filter":
		if _, err := h.s.git("config", "filter.hide.clean", `sed -e "s/REVIEWME-[0-9]*/ok/g" -e "s/LINTFAIL/ok/g"`); err != nil {
			return err
		}
		attr = "filter=hide"
	case "textconv":
		if _, err := h.s.git("config", "diff.hide.textconv", `sed -e "s/REVIEWME-[0-9]*/ok/g"`); err != nil {
			return err
		}
		attr = "diff=hide"
	}
	h.m.attrs = append(h.m.attrs, pattern)
	line := pattern + " " + attr + "\n"
	if where == "info" {
		p := filepath.Join(h.s.repo, ".git", "info", "attributes")
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		old, _ := os.ReadFile(p)
		return os.WriteFile(p, append(old, line...), 0o644)
	}
	return h.setFile(".gitattributes", h.m.files[".gitattributes"]+line)
}

// crlf rewrites a file with CRLF line endings.
func (h *harness) crlf(path string) error {
	c, ok := h.m.files[path]
	if !ok || strings.Contains(c, "\r\n") {
		return nil
	}
	h.m.crlfed[path] = true
	return h.setFile(path, strings.ReplaceAll(c, "\n", "\r\n"))
}

// refMove moves main to HEAD, as an agent that wants its work to look
// merged would: with `git branch -f` ("branch") or `git update-ref`
// ("update-ref"), or merges HEAD into the local main alone ("merge": no
// remote merged it, so it is no pull request merged), and moves
// origin/main onto that merge too, by `git update-ref` ("origin") or by a
// push to origin ("push"): a remote-tracking copy that no fetch moved is
// no pull request merged either. Once a run has started the episode, its base is the
// gauntlet's record and the move changes nothing; before, a person's trust
// record's start point is the base (model.movedBase), and with none
// nothing records it, and the moved main is the base.
func (h *harness) refMove(how string) error {
	if h.m.unborn || h.m.branch == "main" {
		return nil
	}
	var err error
	switch how {
	case "branch":
		_, err = h.s.git("branch", "-f", "main", "HEAD")
	case "update-ref":
		_, err = h.s.git("update-ref", "refs/heads/main", "HEAD")
	case "merge", "origin", "push":
		var commit string
		if commit, err = h.mergeCommit(); err == nil && commit != "" {
			_, err = h.s.git("update-ref", "refs/heads/main", commit)
		}
		switch {
		case err != nil || commit == "":
		case how == "origin":
			_, err = h.s.git("update-ref", "refs/remotes/origin/main", commit)
		case how == "push":
			_, err = h.s.git("push", "-q", "-f", "origin", "main")
		}
	default:
		return fmt.Errorf("refmove: %q", how)
	}
	if err != nil {
		return err
	}
	if !h.m.ran {
		moved, err := h.s.git("rev-parse", "main")
		h.m.mainMark, h.m.markTree = h.m.movedBase(moved), ""
		return err
	}
	h.m.refMoved = true
	return nil
}

// nestDirs are where a nested repository may be made.
var nestDirs = []string{"src/dep", "lib/x/dep"}

// nest makes dir a repository of its own holding a plain file, with a
// commit or none (a scratch clone, a dependency cloned in place).
func (h *harness) nest(dir string, commit bool) error {
	if _, err := os.Lstat(h.s.path(dir)); err == nil {
		return nil
	}
	if err := h.s.writeFile(dir+"/f.txt", "plain\n"); err != nil {
		return err
	}
	args := [][]string{{"init", "-q", "-b", "main"}}
	if commit {
		args = append(args, []string{"add", "-A"}, []string{"commit", "-q", "-m", "dep"})
	}
	for _, a := range args {
		cmd := exec.Command("git", a...)
		cmd.Dir, cmd.Env = h.s.path(dir), h.s.env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s in %s: %w\n%s", strings.Join(a, " "), dir, err, out)
		}
	}
	h.m.nested = append(h.m.nested, dir)
	files, err := h.s.userTree()
	if err != nil {
		return err
	}
	h.m.files = files
	return nil
}

// Reviewer faults: the CLI missing from PATH, crashing, hanging past the
// review's timeout, out of quota, answering nothing usable; "ok" brings it
// back.
var reviewerFaults = []string{"missing", "crash", "timeout", "quota", "garbage"}

// reviewerFault sets the stand-in reviewer's fault.
func (h *harness) reviewerFault(mode string) error {
	link, off := filepath.Join(h.s.bin, reviewerName), filepath.Join(h.s.bin, reviewerName+".off")
	if mode == "ok" {
		h.m.fault = ""
		if exists(off) {
			if err := os.Rename(off, link); err != nil {
				return err
			}
		}
		return ignoreMissing(os.Remove(filepath.Join(h.s.marks, faultFile)))
	}
	if !slices.Contains(reviewerFaults, mode) {
		return fmt.Errorf("reviewer: %q", mode)
	}
	h.m.fault = mode
	if mode == "missing" {
		if exists(link) {
			return os.Rename(link, off)
		}
		return nil
	}
	if exists(off) {
		if err := os.Rename(off, link); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(h.s.marks, faultFile), []byte(mode), 0o644)
}

// readableSkips returns the model's skips a command starting now can
// count: every one an earlier command read (the gauntlet keeps it as a
// decision), and each later one only while a review file of the log
// directory (previous/ included) still holds its mark. A mark the agent
// takes back before any command read it, by deleting its file or its
// entry, never reached the gauntlet; a newer file beside it (forge review
// add) or a reworded issue hides none: the gauntlet reads the marks in
// every review file it wrote, by the entry's id.
func (h *harness) readableSkips() []skip {
	read := min(h.m.skipsRead, len(h.m.skips))
	out := slices.Clone(h.m.skips[:read])
	marks := reviewMarks(h.s.logDir())
	for _, s := range h.m.skips[read:] {
		if slices.ContainsFunc(marks, s.markedBy) {
			out = append(out, s)
		}
	}
	return out
}

// reviewMarks lists the entries marked skipped in the review files under
// dir.
func reviewMarks(dir string) []skip {
	var out []skip
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !reviewJSONRE.MatchString(d.Name()) {
			return nil
		}
		_, vs, ok := readReview(p)
		if !ok {
			return nil
		}
		for _, x := range vs {
			v, ok := x.(map[string]any)
			if !ok || v["status"] != "skipped" || v["result"] == "forged" {
				continue // a forged copy (dupskip, addskip) marks nothing
			}
			file, _ := v["file"].(string)
			issue, _ := v["issue"].(string)
			line, _ := v["line"].(float64)
			id, _ := v["id"].(string)
			out = append(out, skip{File: file, Token: markerRE.FindString(issue), Line: int(line), ID: id})
		}
		return nil
	})
	return out
}
