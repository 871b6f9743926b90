package trust

import (
	"cmp"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fsread"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/store"
)

// Known is a project the repository's trust store has a record of.
type Known struct {
	// Place is the project's place in the work tree asked about.
	Place place.Place
	// Gone says why its directory is not a directory of the work tree
	// ("its directory is gone", "... is a symbolic link"), "" when it is.
	Gone string
}

// Root is the project's root.
func (k Known) Root() string { return k.Place.Root() }

// KnownProjects lists the projects that have a record in the trust store
// of the repository d (every file of <git common dir>/agent-gauntlet/trust/,
// by the project its record names), as places of d's work tree, sorted by
// root. A record whose project cannot be read from it is left out: it is
// no project's (ReadRecord refuses it for the project its name says).
func KnownProjects(d gitdir.Dirs) []Known {
	dir := filepath.Dir(store.Open(d.CommonDir, Kind).Path("x"))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Known
	for _, e := range entries {
		if !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		project, ok := recordProject(filepath.Join(dir, e.Name()))
		if !ok {
			continue
		}
		k := KnownAt(d, project)
		if RecordPath(k.Place) != filepath.Join(dir, e.Name()) {
			continue // a record copied under another project's name
		}
		out = append(out, k)
	}
	slices.SortFunc(out, func(a, b Known) int { return strings.Compare(a.Place.Prefix, b.Place.Prefix) })
	return out
}

// KnownAt is the project key project ("." or a slash path) of the
// repository d, as a place of d's work tree, with Gone saying why its
// directory is not one of the work tree when it is not.
func KnownAt(d gitdir.Dirs, project string) Known {
	p := place.Place{CommonDir: d.CommonDir, GitDir: d.GitDir, TopLevel: d.TopLevel}
	if project != "." {
		p.Prefix = project + "/"
	}
	return Known{Place: p, Gone: goneWhy(d.TopLevel, project)}
}

// recordProject reads the project a record file names, without reading
// the files it holds (they follow the project in the record).
func recordProject(path string) (string, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer f.Close()
	dec := json.NewDecoder(f)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		if t == "project" {
			var project string
			if dec.Decode(&project) != nil || !validProject(project) {
				return "", false
			}
			return project, true
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return "", false
		}
	}
	return "", false
}

// validProject reports whether project is a project key a place gives:
// "." or a clean relative slash path inside the work tree.
func validProject(project string) bool {
	if project == "." {
		return true
	}
	clean := filepath.ToSlash(filepath.Clean(filepath.FromSlash(project)))
	return project != "" && clean == project && !strings.HasPrefix(project, "/") &&
		project != ".." && !strings.HasPrefix(project, "../") && !strings.Contains(project, "/../")
}

// goneWhy says why the project's directory is not a directory of the
// work tree at top, "" when it is: each step of its path must be a real
// directory, not a link (the record's place is the path, and a link
// leads elsewhere).
func goneWhy(top, project string) string {
	if project == "." {
		return ""
	}
	dir := top
	for _, part := range strings.Split(project, "/") {
		dir = filepath.Join(dir, part)
		fi, err := os.Lstat(dir)
		switch {
		case err != nil:
			return "its directory is gone, moved or deleted"
		case fi.Mode()&fs.ModeSymlink != 0:
			return "its directory is now a symbolic link"
		case !fi.IsDir():
			return "its directory is now a file"
		}
	}
	return ""
}

// Discovery is the project a stop judges (Discover), and what of the
// repository's trust store it does not judge.
type Discovery struct {
	// Root is the project judged, "" for none.
	Root string
	// Shadowed is the root of a configuration that has neither a record
	// nor a commit at HEAD which the search met and passed over for a
	// trusted project, "" for none.
	Shadowed string
	// Unjudged are the projects with a record (in an upgraded repository,
	// with a configuration committed at HEAD), at or below the session's
	// directory, the configuration passed over or the project judged, that
	// this stop does not judge: gone (Known.Gone), beside the one judged,
	// or nested in it.
	Unjudged []Known
}

// Discover finds the project of a stop hook whose session is in dir, and
// inner, the input's directory when it lies below dir ("" for none). The
// trust store decides before the work tree: a configuration without a
// record (the agent's, until a person trusts it; committed or not, since a
// repository with records trusts no commit: Upgraded) never hides a
// project that has a record.
//
//   - The nearest project at or above dir, else inner (GuardedRoot: a
//     record wins over a nearer configuration without one), when it has a
//     record or a configuration committed at HEAD.
//   - Else a project with a record at or below dir, or below the untrusted
//     configuration found: the one that holds inner, else the first by
//     path for which pending reports failures waiting to be verified
//     (nil: none does), else the first by path. The untrusted
//     configuration is Shadowed.
//   - Else the untrusted configuration found, if any.
//
// Every other project with a record in that scope, or nested in the one
// judged, is Unjudged: a stop names its pending failures and changes
// rather than dropping them. In an upgraded repository every committed
// configuration counts as a record here (CommittedProjects). ok is false when
// no project is judged; errors are git's.
func Discover(ctx context.Context, dir, inner string, pending func(Known) bool) (Discovery, bool, error) {
	root, shadowed, ok, err := GuardedRoot(ctx, dir)
	fromDir := ok
	if err == nil && !ok && inner != "" {
		root, shadowed, ok, err = GuardedRoot(ctx, inner)
	}
	if err != nil {
		return Discovery{}, false, err
	}
	d, found := gitdir.Find(dir)
	if !found || place.MovedByEnv() {
		return Discovery{Root: root, Shadowed: shadowed}, ok, nil
	}
	known, err := knownOrCommitted(ctx, d)
	if err != nil {
		return Discovery{}, false, err
	}
	untrusted := ""
	if ok {
		trusted, err := hasTrust(d, root, known)
		if err != nil {
			return Discovery{}, false, err
		}
		if !trusted {
			untrusted = root
		}
	}
	if untrusted != "" && fromDir && inner != "" && inner != dir {
		// The input's directory may lie in a trusted project of its own
		// below the untrusted configuration.
		r2, sh2, ok2, err := GuardedRoot(ctx, inner)
		if err != nil {
			return Discovery{}, false, err
		}
		if trusted, err := hasTrust(d, r2, known); err != nil {
			return Discovery{}, false, err
		} else if ok2 && trusted {
			root, shadowed, untrusted = r2, cmp.Or(sh2, root), root
		}
	}
	var scope []Known
	for _, k := range known {
		if within(k.Root(), dir) || untrusted != "" && within(k.Root(), untrusted) {
			scope = append(scope, k)
		}
	}
	out := Discovery{Root: root, Shadowed: shadowed}
	if !ok || untrusted == root {
		if pick := choose(scope, inner, pending); pick >= 0 {
			out.Root, out.Shadowed = scope[pick].Root(), untrusted
		}
	}
	for _, k := range known {
		nested := out.Root != "" && within(k.Root(), out.Root)
		if k.Root() != out.Root && (nested || slices.Contains(scope, k)) {
			out.Unjudged = append(out.Unjudged, k)
		}
	}
	return out, out.Root != "", nil
}

// knownOrCommitted are the projects of the repository d a stop judges or
// names: those with a record, or, in an upgraded repository (Upgraded),
// every one with a configuration committed at HEAD (CommittedProjects),
// so that adopting one of them never hides another.
func knownOrCommitted(ctx context.Context, d gitdir.Dirs) ([]Known, error) {
	if !Upgraded(d.CommonDir) {
		return KnownProjects(d), nil
	}
	return CommittedProjects(ctx, d)
}

// CommittedProjects lists the projects of the repository d whose
// .gauntlet/config.yml is committed at HEAD, as places of d's work tree
// sorted by root (none when HEAD has no commit): the configurations an
// older version gated, which an upgraded repository trusts. A
// configuration the index no longer holds is listed all the same (git
// ls-files --with-tree overlays HEAD's tree); each is confirmed at HEAD.
// One HEAD no longer holds is listed when the merge base of HEAD with the
// base branch holds it (committedProjects): a commit since deleting or
// moving it does not end the project.
// Errors are git's.
func CommittedProjects(ctx context.Context, d gitdir.Dirs) ([]Known, error) {
	suffix := config.Dir + "/" + config.ProjectFile
	out, err := runGit(ctx, d.TopLevel, nil, maxSmallOutput, "ls-files", "-z", "--full-name", "--with-tree=HEAD",
		"--", ":(top,glob)**/"+suffix)
	if err != nil {
		if commit, herr := headCommit(ctx, d.TopLevel); herr == nil && commit == "" {
			return nil, nil // no commit: nothing is committed
		}
		return nil, err
	}
	based, err := baseProjectFiles(ctx, d.TopLevel, suffix)
	if err != nil {
		return nil, err
	}
	names := append(strings.Split(string(out), "\x00"), based...)
	var places []place.Place
	for _, name := range names {
		prefix, ok := strings.CutSuffix(name, suffix)
		if !ok || prefix != "" && !strings.HasSuffix(prefix, "/") || !validProject(cmp.Or(strings.TrimSuffix(prefix, "/"), ".")) {
			continue
		}
		places = append(places, place.Place{CommonDir: d.CommonDir, GitDir: d.GitDir, TopLevel: d.TopLevel, Prefix: prefix})
	}
	if len(places) == 0 {
		return nil, nil
	}
	committed, err := committedProjects(ctx, d.TopLevel, places)
	if err != nil {
		return nil, err
	}
	var known []Known
	for _, p := range places {
		if committed[p.Prefix] && !slices.ContainsFunc(known, func(k Known) bool { return k.Place.Prefix == p.Prefix }) {
			known = append(known, Known{Place: p, Gone: goneWhy(d.TopLevel, p.Project())})
		}
	}
	slices.SortFunc(known, func(a, b Known) int { return strings.Compare(a.Place.Prefix, b.Place.Prefix) })
	var adoptable []Known
	for _, k := range known {
		newer, err := enclosesOlder(ctx, d.TopLevel, k, known)
		if err != nil {
			return nil, err
		}
		if !newer {
			adoptable = append(adoptable, k)
		}
	}
	return adoptable, nil
}

// baseProjectFiles lists the paths ending in suffix at the merge base of
// HEAD with the base branch (mergeBase), and in the index, none when there
// is no such base: what is listed is confirmed by committedProjects.
func baseProjectFiles(ctx context.Context, top, suffix string) ([]string, error) {
	head, err := headCommit(ctx, top)
	if err != nil || head == "" {
		return nil, err
	}
	base := mergeBase(ctx, top, head)
	if base.Commit == "" {
		return nil, nil
	}
	out, err := runGit(ctx, top, nil, maxSmallOutput, "ls-files", "-z", "--full-name", "--with-tree="+base.Commit,
		"--", ":(top,glob)**/"+suffix)
	if err != nil {
		return nil, err
	}
	return strings.Split(string(out), "\x00"), nil
}

// enclosesOlder reports whether the configuration committed in k was
// added after one of known nested in it was committed (that one is there
// at the parent of the last commit that added k's config.yml): a
// configuration placed over a gated project later, by whoever, is not
// adopted over it without a person's record.
func enclosesOlder(ctx context.Context, top string, k Known, known []Known) (bool, error) {
	var nested []Known
	for _, o := range known {
		if o.Place.Prefix != k.Place.Prefix && strings.HasPrefix(o.Place.Prefix, k.Place.Prefix) {
			nested = append(nested, o)
		}
	}
	if len(nested) == 0 {
		return false, nil
	}
	path := k.Place.Prefix + config.Dir + "/" + config.ProjectFile
	out, err := runGit(ctx, top, nil, maxSmallOutput, "log", "-1", "--format=%H", "--diff-filter=A", "HEAD", "--", ":(top,literal)"+path)
	if err != nil {
		return false, err
	}
	added := strings.TrimSpace(string(out))
	if added == "" {
		return false, nil
	}
	for _, o := range nested {
		spec := added + "^:" + o.Place.Prefix + config.Dir + "/" + config.ProjectFile
		if _, err := runGit(ctx, top, nil, maxSmallOutput, "cat-file", "-e", spec); err == nil {
			return true, nil
		}
	}
	return false, nil
}

// choose is the index of the project of scope a stop judges when the
// search found no trusted one: a present one holding inner, else the first
// present one with failures pending, else the first present one; -1 for
// none.
func choose(scope []Known, inner string, pending func(Known) bool) int {
	present := func(k Known) bool { return k.Gone == "" }
	if inner != "" {
		if i := slices.IndexFunc(scope, func(k Known) bool { return present(k) && within(inner, k.Root()) }); i >= 0 {
			return i
		}
	}
	if pending != nil {
		if i := slices.IndexFunc(scope, func(k Known) bool { return present(k) && pending(k) }); i >= 0 {
			return i
		}
	}
	return slices.IndexFunc(scope, present)
}

// Upgraded reports whether the trust store of the repository whose git
// common directory is commonDir holds no record at all: a repository the
// TypeScript tool or an older version gated, where a configuration
// committed at HEAD is trusted until one is recorded (Resolve). Once any
// project has a record, a project without one is untrusted, committed or
// not: a configuration the agent commits never hides a recorded project
// nor is adopted in its place.
//
// Only a record counts: a file in the store that is none (junk, one edited
// or cut short, one under another project's name) does not make the
// repository one with records, or an agent that deleted its project's
// record and left any file there would have its own uncommitted
// configuration run in place of the one committed at HEAD.
func Upgraded(commonDir string) bool {
	st := store.Open(commonDir, Kind)
	dir := filepath.Dir(st.Path("x"))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return true
	}
	return !slices.ContainsFunc(entries, func(e fs.DirEntry) bool {
		return e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") && isRecord(st, filepath.Join(dir, e.Name()))
	})
}

// isRecord reports whether the file path of the trust store st is a
// usable record, kept under its project's name.
func isRecord(st store.Store, path string) bool {
	data, err := fsread.File(path, MaxRecordBytes)
	if err != nil {
		return false
	}
	var head struct {
		Project string `json:"project"`
	}
	if json.Unmarshal(data, &head) != nil || st.Path(head.Project) != path {
		return false
	}
	rec, _ := decode(data, head.Project)
	return rec != nil
}

// hasTrust reports whether the project at root has a record, or, in an
// upgraded repository (Upgraded), is one of known (knownOrCommitted: a
// configuration committed at HEAD that encloses no older one).
func hasTrust(d gitdir.Dirs, root string, known []Known) (bool, error) {
	rel, err := filepath.Rel(d.TopLevel, root)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false, nil
	}
	p := place.Place{CommonDir: d.CommonDir, GitDir: d.GitDir, TopLevel: d.TopLevel}
	if rel != "." {
		p.Prefix = filepath.ToSlash(rel) + "/"
	}
	if _, err := os.Lstat(RecordPath(p)); err == nil {
		return true, nil
	}
	if !Upgraded(d.CommonDir) {
		return false, nil
	}
	return slices.ContainsFunc(known, func(k Known) bool { return k.Place.Prefix == p.Prefix }), nil
}

// within reports whether dir is base or below it.
func within(dir, base string) bool {
	rel, err := filepath.Rel(base, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
