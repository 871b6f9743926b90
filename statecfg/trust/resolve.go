package trust

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
)

// Source says where a project's trusted configuration comes from.
type Source string

// The sources of a trusted configuration.
const (
	// SourceRecord: the project's record (agent-gauntlet trust, init).
	SourceRecord Source = "record"
	// SourceHEAD: no usable record; the configuration committed at HEAD,
	// never the work tree's uncommitted edits (when HEAD holds none, the
	// one at the merge base of HEAD with the base branch: Trusted.Base).
	SourceHEAD Source = "head"
	// SourceNone: no usable record and no configuration committed at HEAD.
	SourceNone Source = "none"
)

// Trusted is the configuration a project's gates run from.
type Trusted struct {
	Source Source
	// Files are the trusted files (empty for SourceNone, and for a record
	// of a configuration removed on purpose).
	Files config.Files
	// Record is the record (SourceRecord).
	Record *Record
	// Commit is HEAD's commit (SourceHEAD), or the merge base's when HEAD
	// holds no configuration and Base names the branch.
	Commit string
	// Base is the base branch whose merge base with HEAD the configuration
	// comes from when HEAD holds none (SourceHEAD), "" when it is HEAD's.
	Base string
	// Unusable is the error (wrapping ErrUnusable) of a record that exists
	// but could not be used, so HEAD's configuration stands in: the human
	// must be told.
	Unusable error
}

// Resolve returns the trusted configuration of the project at place: its
// record; else, when it has an unusable one, or none in a repository whose
// trust store holds no record at all (Upgraded), the configuration
// committed at HEAD; else none. An unusable record is never read as "no
// gates": HEAD's configuration runs instead and Trusted.Unusable says why.
// When HEAD holds no configuration, the one at the merge base of HEAD with
// the base branch stands in (BaseFiles): a configuration deleted or moved
// away by a commit since is a changed configuration, not "no project".
// In a repository with records, a project without one is untrusted, its
// configuration committed or not: a commit is the agent's to make, and a
// record is a person's. Errors are git's (HEAD's configuration could not
// be read).
func Resolve(ctx context.Context, p place.Place) (Trusted, error) {
	rec, unusable := ReadRecord(p)
	if rec != nil {
		return Trusted{Source: SourceRecord, Files: rec.Files, Record: rec}, nil
	}
	if unusable == nil && !Upgraded(p.CommonDir) {
		return Trusted{Source: SourceNone, Files: config.Files{}}, nil
	}
	head, err := HeadFiles(ctx, p)
	if err != nil {
		return Trusted{}, err
	}
	t := Trusted{Source: SourceNone, Files: config.Files{}, Unusable: unusable}
	if len(head.Files) > 0 {
		t.Source, t.Files, t.Commit = SourceHEAD, head.Files, head.Commit
		return t, nil
	}
	at, base, err := BaseFiles(ctx, p, head.Commit)
	if err != nil {
		return Trusted{}, err
	}
	if len(at.Files) > 0 {
		t.Source, t.Files, t.Commit, t.Base = SourceHEAD, at.Files, at.Commit, base.Branch
	}
	return t, nil
}

// Load loads the trusted configuration for the project at root (see
// config.LoadFiles). Trusted files without config.yml (none, or a record
// of a removed configuration) give a *config.NotFoundError.
func (t Trusted) Load(ctx context.Context, root string) (*config.Config, error) {
	return config.LoadFiles(ctx, root, t.Files)
}

// Pin records HEAD's configuration as the project's trusted one when t
// stands for it because the project has no record at all (the first run
// after an upgrade), so that a later commit changes the gates only through
// agent-gauntlet trust. It does nothing for any other t: a record in
// place, none at HEAD, or an unusable record (a person should look at it;
// agent-gauntlet trust replaces it).
func Pin(p place.Place, t Trusted, now time.Time) error {
	if t.Source != SourceHEAD || t.Unusable != nil {
		return nil
	}
	return WriteRecord(p, Record{TrustedAt: now, How: HowHEAD, Commit: t.Commit, Files: t.Files})
}

// PinAside records the configuration committed at HEAD of the project at
// p as its trusted one, for a project the first stop after an upgrade did
// not judge (CommittedProjects lists it beside the one Pin records), and
// reports whether it did: once one record exists, a project without one
// would be untrusted and named by no stop. The record keeps no commit
// (Record.Commit): no stop judged the project's work, so none of it counts
// as seen. It does nothing for a project with a record, or with no
// configuration committed at HEAD. Errors are git's or the store's.
func PinAside(ctx context.Context, p place.Place, now time.Time) (bool, error) {
	if _, err := os.Lstat(RecordPath(p)); err == nil {
		return false, nil
	}
	head, err := HeadFiles(ctx, p)
	if err != nil || len(head.Files) == 0 {
		return false, err
	}
	return true, WriteRecord(p, Record{TrustedAt: now, How: HowHEAD, Files: head.Files})
}

// Status is how the work tree's configuration of a project stands to its
// trusted one: what validate, status and the stop hook report.
type Status struct {
	// Source is where the trusted configuration comes from.
	Source Source `json:"source"`
	// Trusted reports that the work tree's configuration is the trusted
	// one, file for file.
	Trusted bool `json:"trusted"`
	// TrustedAt, How and Commit describe the record (Commit also HEAD's for
	// SourceHEAD).
	TrustedAt *time.Time `json:"trusted_at,omitempty"`
	How       How        `json:"how,omitempty"`
	Commit    string     `json:"commit,omitempty"`
	// Base is the base branch whose merge base with HEAD (Commit) holds the
	// trusted configuration when HEAD holds none (SourceHEAD).
	Base string `json:"base_branch,omitempty"`
	// Diff lists the files of the work tree that differ from the trusted
	// ones (a file of the work tree that cannot be read counts as changed).
	Diff
	// Digest fingerprints the record's files (Record.Digest); "" without
	// a record.
	Digest string `json:"-"`
	// Record is the record's file; Unusable why it could not be used.
	Record   string `json:"record"`
	Unusable string `json:"unusable_record,omitempty"`
}

// StartPoint is the record's start point (Record.StartPoint): "" for a
// configuration adopted from HEAD, recorded so or not yet, and for none.
func (s *Status) StartPoint() string {
	if s == nil || s.Source != SourceRecord {
		return ""
	}
	return startPoint(s.How, s.Commit)
}

// Inspect compares the work tree's configuration of the project at root
// with its trusted one. It returns the trusted configuration too, for a
// caller that goes on to run it. Errors: the project is in no git work
// tree (place.ErrNoRepository), or git could not read HEAD.
func Inspect(ctx context.Context, root string) (Status, Trusted, error) {
	p, err := place.Locate(ctx, root)
	if err != nil {
		return Status{}, Trusted{}, err
	}
	t, err := Resolve(ctx, p)
	if err != nil {
		return Status{}, Trusted{}, err
	}
	work, werr := config.ReadFiles(root)
	st := Status{Source: t.Source, Record: RecordPath(p), Commit: t.Commit, Base: t.Base, Diff: Compare(t.Files, t.Record.Comparable(root, work))}
	var errs *config.Errors
	if errors.As(werr, &errs) {
		for _, prob := range errs.Problems {
			st.Diff.markUnreadable(filepath.ToSlash(prob.File), t.Files)
		}
	} else if werr != nil {
		return Status{}, Trusted{}, werr
	}
	if t.Record != nil {
		at := t.Record.TrustedAt
		st.TrustedAt, st.How, st.Commit, st.Digest = &at, t.Record.How, t.Record.Commit, t.Record.Digest()
	}
	if t.Unusable != nil {
		st.Unusable = t.Unusable.Error()
	}
	st.Trusted = t.Source != SourceNone && st.Diff.Empty()
	return st, t, nil
}

// markUnreadable counts a work-tree file that could not be read as
// changed (or added, when the trusted configuration lacks it).
func (d *Diff) markUnreadable(path string, trusted config.Files) {
	if slices.Contains(d.Added, path) || slices.Contains(d.Changed, path) {
		return
	}
	if _, ok := trusted[path]; ok {
		d.Changed = append(d.Changed, path)
		slices.Sort(d.Changed)
		d.Removed = slices.DeleteFunc(d.Removed, func(p string) bool { return p == path })
	} else {
		d.Added = append(d.Added, path)
		slices.Sort(d.Added)
	}
}

// AdoptHint tells how the work tree's configuration becomes the trusted
// one.
const AdoptHint = "`agent-gauntlet trust` adopts the work tree's configuration"

// Describe says in one or two sentences how the work tree's configuration
// stands (for validate, status and the stop hook's message).
func (s Status) Describe() string {
	var b strings.Builder
	if s.Unusable != "" {
		fmt.Fprintf(&b, "The trusted configuration record cannot be used (%s); ", s.Unusable)
	}
	switch {
	case s.Trusted && s.Source == SourceRecord:
		fmt.Fprintf(&b, "The configuration is the trusted one (%s, %s).", s.How.Describe(), s.TrustedAt.UTC().Format(time.RFC3339))
	case s.Trusted && s.Base != "":
		fmt.Fprintf(&b, "The configuration is the one committed at %s, the merge base of HEAD with %s (HEAD holds none), trusted until one is recorded.", short(s.Commit), s.Base)
	case s.Trusted:
		fmt.Fprintf(&b, "The configuration is the one committed at HEAD (%s), trusted until one is recorded.", short(s.Commit))
	case s.Source == SourceNone && s.Diff.Empty() && s.Unusable != "":
		b.WriteString("There is no configuration in the work tree, and none committed at HEAD.")
	case s.Source == SourceNone && s.Diff.Empty():
		b.WriteString("There is no configuration: none in the work tree, none trusted, none committed at HEAD.")
	case s.Source == SourceNone:
		fmt.Fprintf(&b, "The configuration is not trusted: no record of a person's trust; %s.", AdoptHint)
	default:
		fmt.Fprintf(&b, "The configuration differs from the trusted one (%s): %s. The stop hook runs the trusted gates; %s.",
			s.trustedDescription(), s.Diff.String(), AdoptHint)
	}
	return b.String()
}

// trustedDescription names the trusted configuration.
func (s Status) trustedDescription() string {
	if s.Source == SourceHEAD && s.Base != "" {
		return "HEAD holds none; the one committed at " + short(s.Commit) + ", the merge base of HEAD with " + s.Base
	}
	if s.Source == SourceHEAD {
		return "the one committed at HEAD, " + short(s.Commit)
	}
	return s.How.Describe() + ", " + s.TrustedAt.UTC().Format(time.RFC3339)
}

// short is a commit id cut to 12 hex digits.
func short(commit string) string { return commit[:min(len(commit), 12)] }

// FindRoot returns the project root of the directory start: the nearest
// directory at or above it holding .gauntlet/config.yml (config.FindRoot);
// else, when the work tree's .gauntlet/ is gone, the nearest directory up
// to the git top level that has a trusted record or a .gauntlet/config.yml
// committed at HEAD. A configuration deleted in the work tree is thus a
// changed configuration, never "not a gauntlet project". A commit counts
// only in an upgraded repository (Upgraded). ok is false when there is
// none; errors are git's, or one wrapping ErrUnusable when none is found
// and the records cannot be read (a store replaced by a symbolic link):
// whether one names a project is not known.
func FindRoot(ctx context.Context, start string) (root string, ok bool, err error) {
	if root, ok := config.FindRoot(start); ok {
		return root, true, nil
	}
	abs, err := filepath.Abs(start)
	if err != nil {
		return "", false, nil
	}
	d, found := gitdir.Find(abs)
	if !found || place.MovedByEnv() {
		return "", false, nil
	}
	var places []place.Place
	for dir := abs; ; dir = filepath.Dir(dir) {
		rel, rerr := filepath.Rel(d.TopLevel, dir)
		if rerr != nil || strings.HasPrefix(rel, "..") {
			break
		}
		p := place.Place{CommonDir: d.CommonDir, GitDir: d.GitDir, TopLevel: d.TopLevel}
		if rel != "." {
			p.Prefix = filepath.ToSlash(rel) + "/"
		}
		places = append(places, p)
		if dir == d.TopLevel || filepath.Dir(dir) == dir {
			break
		}
	}
	// The nearest place with a record, unless one nearer has a committed
	// configuration: git is asked only about the nearer ones, not at all
	// when the nearest has a record.
	recorded := len(places)
	for i, p := range places {
		if _, err := os.Lstat(RecordPath(p)); err == nil {
			recorded = i
			break
		}
	}
	if recorded > 0 && Upgraded(d.CommonDir) {
		committed, err := committedProjects(ctx, d.TopLevel, places[:recorded])
		if err != nil {
			return "", false, err
		}
		for _, p := range places[:recorded] {
			if committed[p.Prefix] {
				return p.Root(), true, nil
			}
		}
	}
	if recorded < len(places) {
		return places[recorded].Root(), true, nil
	}
	// Records that cannot be read leave open whether one names a project
	// here: never "no project" then.
	if err := storeRefused(d.CommonDir, ""); err != nil {
		return "", false, fmt.Errorf("%w: %v", ErrUnusable, err)
	}
	return "", false, nil
}

// committedProjects reports which of places have a .gauntlet/config.yml
// committed at HEAD, or, for those HEAD holds none of, at the merge base
// of HEAD with the base branch (mergeBase: the configuration a person
// committed, which a commit since does not remove unseen), by prefix.
// Nothing when HEAD has no commit.
func committedProjects(ctx context.Context, top string, places []place.Place) (map[string]bool, error) {
	commit, err := headCommit(ctx, top)
	if err != nil || commit == "" {
		return nil, err
	}
	found, err := projectsAt(ctx, top, commit, places)
	if err != nil || len(found) == len(places) {
		return found, err
	}
	base := mergeBase(ctx, top, commit)
	if base.Commit == "" {
		return found, nil
	}
	var rest []place.Place
	for _, p := range places {
		if !found[p.Prefix] {
			rest = append(rest, p)
		}
	}
	more, err := projectsAt(ctx, top, base.Commit, rest)
	if err != nil {
		return nil, err
	}
	for prefix := range more {
		found[prefix] = true
	}
	return found, nil
}

// projectsAt reports which of places have a .gauntlet/config.yml in
// commit, by prefix, with one git process.
func projectsAt(ctx context.Context, top, commit string, places []place.Place) (map[string]bool, error) {
	args := []string{"ls-tree", "-z", "--name-only", "--full-tree", commit, "--"}
	for _, p := range places {
		args = append(args, p.Prefix+config.Dir+"/"+config.ProjectFile)
	}
	out, err := runGit(ctx, top, nil, maxSmallOutput, args...)
	if err != nil {
		return nil, err
	}
	found := map[string]bool{}
	for _, name := range strings.Split(string(out), "\x00") {
		if prefix, ok := strings.CutSuffix(name, config.Dir+"/"+config.ProjectFile); ok {
			found[prefix] = true
		}
	}
	return found, nil
}

// GuardedRoot is FindRoot for the stop hook: a project found there that
// has no trusted record of its own never hides an enclosing project that
// has one (a .gauntlet/ made in a subdirectory of a gated project, by the
// agent or not, is not trusted until a person trusts it there). Then root
// is the enclosing project's, and shadowed the nearer project's root.
func GuardedRoot(ctx context.Context, start string) (root, shadowed string, ok bool, err error) {
	root, ok, err = FindRoot(ctx, start)
	if err != nil || !ok {
		return root, "", ok, err
	}
	d, found := gitdir.Find(root)
	if !found || place.MovedByEnv() {
		return root, "", true, nil
	}
	for dir := root; ; dir = filepath.Dir(dir) {
		rel, rerr := filepath.Rel(d.TopLevel, dir)
		if rerr != nil || strings.HasPrefix(rel, "..") {
			break
		}
		p := place.Place{CommonDir: d.CommonDir, GitDir: d.GitDir, TopLevel: d.TopLevel}
		if rel != "." {
			p.Prefix = filepath.ToSlash(rel) + "/"
		}
		if _, err := os.Lstat(RecordPath(p)); err == nil {
			if dir == root {
				return root, "", true, nil
			}
			return dir, root, true, nil
		}
		if dir == d.TopLevel || filepath.Dir(dir) == dir {
			break
		}
	}
	return root, "", true, nil
}
