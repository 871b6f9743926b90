package stophook

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/hookproto"
	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/logdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// site is the project a stop judges and the configuration in force there.
type site struct {
	// root is the project root; where says which directory the search
	// started from and who named it.
	root  string
	where hookproto.Project
	// trust is how the work tree's configuration stands to the trusted
	// one; nil when the project is in no git work tree, where nothing can
	// be trusted.
	trust *trust.Status
	// source is where the configuration in force comes from (the trusted
	// record, HEAD's commit, or none: the work tree's).
	source trust.Source
	// project is the configuration in force: the trusted files when there
	// are any, else the work tree's.
	project *config.Project
	// trusted are the trusted configuration's files; nil when the work
	// tree's configuration is in force.
	trusted config.Files
	// trustChange says how the trusted configuration changed since an
	// earlier stop of this agent session, "" when it did not (watchTrust);
	// pinned that this stop adopted HEAD's configuration as the trusted
	// one, "" when it did not.
	trustChange, pinned string
	// reachChange says how the projects judged or named from the
	// session's directory changed since an earlier stop, "" when they did
	// not (watchReach).
	reachChange string
	// rulesNote tells how the ignore rules changed, when this session is
	// to hear of it, and hidden what that leaves unverified, "" for none
	// (watchTrust): every answer says the one, every approve's "Not
	// verified" sentence names the other.
	rulesNote, hidden string
	// workRead are the files of .gauntlet/ the loader does not read (a
	// script a check runs, its data) where the work tree's differ from the
	// trusted ones (changed, removed, added): a gate runs them as the work
	// tree has them, so a pass is not the trusted gate's (workTreeRead).
	workRead []string
	// shadowed is the root of a configuration without a trusted record
	// that the search met first, "" for none: a trusted project is judged
	// instead (trust.Discover).
	shadowed string
}

// gates is the configuration in force with its gates, read without git;
// an error when there is none or it does not load.
func (s *site) gates() (*config.Config, error) {
	if s.project == nil {
		return nil, config.ErrNotFound
	}
	return s.project.Gates()
}

// differs reports that the work tree's configuration is not the one in
// force, or is not trusted: every answer says so.
func (s *site) differs() bool { return s.trust == nil || !s.trust.Trusted }

// trustNote says how the configuration in force stands to the work tree's,
// and how it changed during the session, "" when the work tree's is the
// trusted one and nothing changed. That this stop adopted HEAD's
// configuration is for an approve to say (block false): a block goes on.
func (s *site) trustNote(block bool) string {
	switch {
	case s.trust == nil:
		return "The project is in no git work tree, so no configuration can be trusted: the stop hook ran the work tree's."
	}
	change := s.trustChange
	if change == "" && !block {
		change = s.pinned
	}
	change = strings.TrimSpace(s.reachChange + " " + change)
	if sh := s.shadowed; sh != "" && within(sh, s.root) {
		change = strings.TrimSpace(fmt.Sprintf("The configuration in %s is not trusted (it has no record), so the stop hook "+
			"judged the enclosing project %s, whose configuration is trusted; `agent-gauntlet trust` run in %s adopts the nested one. %s",
			runner.SafeText(sh), runner.SafeText(s.root), runner.SafeText(sh), change))
	} else if sh != "" {
		change = strings.TrimSpace(fmt.Sprintf("The configuration in %s is not trusted (no record of a person's trust), so the stop hook "+
			"judged the trusted project %s instead; `agent-gauntlet trust` run in %s adopts that configuration. %s",
			runner.SafeText(sh), runner.SafeText(s.root), runner.SafeText(sh), change))
	}
	change = strings.TrimSpace(change + " " + s.rulesNote)
	if s.trust.Trusted && s.trust.Unusable == "" {
		return change
	}
	return strings.TrimSpace(s.trust.Describe() + " " + change)
}

// watchTrust records in the verdict book the trusted configuration this
// stop of session runs with, and says how it changed since an earlier
// stop when this session is the one that saw it change: trust and init
// may be run by the agent itself, on a terminal it made, and a record
// deleted falls back to HEAD's configuration; whoever did it, the session
// in which it happened hears of it in every answer. A book that holds
// neither yet starts from the project's baseline, shared by every work
// tree (inherit, keepBaseline); with none, a person's project says so. A
// project with no verdict book yet (no run yet) or a damaged one is left
// to the run:
// recorded is false, and the caller asks again after the run. The ignore
// rules are watched the same way (ignoreRules; rulesNote and hidden say
// how they changed): a file newly ignored through them is no change to
// any gate. Those in the work tree take a git process to list, so only a
// stop that runs the gates looks at them (inTree): the others keep what
// the last such stop saw.
func (h *hook) watchTrust(ctx context.Context, s *site, session string, rules *seenRules) (note string, recorded bool) {
	if s.trust == nil {
		return "", true
	}
	p, err := place.Locate(ctx, s.root)
	if err != nil {
		return "", true
	}
	k := verdicts.KeyOf(p)
	if err := owned.CheckDir(p.CommonDir, filepath.Dir(k.Path())); err != nil {
		return storeNotUsedNote(err), true
	}
	book, err := verdicts.Read(k)
	if book == nil || err != nil {
		return "", false
	}
	seen, legacy := trustSeen(*s.trust, h.o.Now()), legacyKey(*s.trust)
	if rules == nil {
		rules = cmp.Or(h.rules(ctx, s, false, h.warn), &seenRules{})
	}
	files, inTree := rules.files, rules.inTree
	var change, exChange *verdicts.TrustChange
	var ex verdicts.TrustSeen
	base := verdicts.ReadBaseline(p.CommonDir, p.Project())
	baseBranch := ""
	if cfg, err := s.gates(); err == nil {
		baseBranch = cfg.BaseBranch
	}
	atHead := h.headBaseline(ctx, p, book, base, files, baseBranch)
	noTrustBase, noRulesBase := false, false
	err = verdicts.Update(k, func(b *verdicts.Book) error {
		if b.Damaged != "" {
			return errLeaveBook
		}
		noTrustBase, noRulesBase = inherit(b, base, p)
		b.Trust = rekey(b.Trust, legacy, seen)
		if firstListing(files, b.Excludes) {
			b.Excludes = nil // a first sight is no change
		}
		if b.Excludes == nil && atHead != nil {
			b.Excludes, noRulesBase = atHead, false // compared with HEAD's (headRules)
		}
		b.Excludes = movedRules(b.Excludes, p, files)
		ex = sealRules(files, b.Excludes, inTree, h.o.Now())
		same := b.Trust != nil && b.Trust.Key == seen.Key && b.Excludes != nil && b.Excludes.Key == ex.Key
		change, exChange = b.SeeTrust(seen, session), b.SeeExcludes(ex, session)
		if settle(b, seen, ex) {
			same = false
		}
		if same {
			return errLeaveBook // nothing new to write
		}
		return nil
	})
	if err != nil && !errors.Is(err, errLeaveBook) {
		h.warn("cannot record the trusted configuration seen: %v", err)
	}
	if err == nil || errors.Is(err, errLeaveBook) {
		h.keepBaseline(p, seen, legacy, ex, session)
	}
	// Without a person's record there is nothing a person recorded to
	// compare with, and the answer says so already (trustNote, pinned).
	if byPerson := s.source == trust.SourceRecord && s.trust.How != trust.HowHEAD; byPerson {
		if noTrustBase && change == nil {
			note = noTrustBaselineNote(seen.Desc)
		}
		if noRulesBase && exChange == nil && ex.Files[listedMark] != "" {
			var eps []string
			if cfg, err := s.gates(); err == nil {
				eps = entryPaths(cfg)
			}
			s.rulesNote, s.hidden = noBaselineNote(newlyHidden(ctx, p, nil, entryDirs(eps, p.Prefix), h.o.Getenv))
		}
	}
	if change != nil {
		note = trustChangeNote(change)
	}
	if exChange != nil {
		var reach []string
		if cfg, err := s.gates(); err == nil {
			reach = rulesReach(exChange.Changed(), cfg, p.Prefix)
		}
		f := newlyHidden(ctx, p, exChange, entryDirs(reach, p.Prefix), h.o.Getenv)
		s.rulesNote, s.hidden = rulesNotice(exChange, reach), hiddenUnverified(exChange, reach, f)
	}
	return note, true
}

// storeNotUsedNote is what every answer says while the verdict book's
// directory, in the gauntlet's store, is not a directory of its own (a
// symbolic link put there, a file): the stop reads and writes nothing
// through it (refused), so the record of what earlier stops ran with is
// out of reach, and a change of the trusted configuration since one of
// them cannot be ruled out.
func storeNotUsedNote(err error) string {
	return fmt.Sprintf("The gauntlet's records cannot be used (%s), so whether the trusted configuration changed since an earlier stop "+
		"cannot be told: the record of what earlier stops ran with is out of reach. If no person put it there, the agent did.",
		runner.SafeText(err.Error()))
}

// headBaseline is the record of the ignore rules a stop that listed them
// in the work tree (files) compares them with when neither its book nor
// the project's baseline holds one (headRules, from where the work left
// baseBranch); nil when they do, or when the stop did not list them.
func (h *hook) headBaseline(ctx context.Context, p place.Place, book *verdicts.Book, base verdicts.Baseline, files map[string]string, baseBranch string) *verdicts.TrustSeen {
	if base.Rules != nil || files[listedMark] == "" {
		return nil
	}
	var prev map[string]string
	switch {
	case book.Excludes == nil:
	case firstListing(files, book.Excludes):
		prev = book.Excludes.Files // the rules outside the work tree a stop saw
	default:
		return nil
	}
	return headRules(ctx, p, files, prev, baseBranch, h.o.Now())
}

// errLeaveBook leaves a verdict book as it is (verdicts.Update).
var errLeaveBook = errors.New("leave the book")

// trustSeen is the trusted configuration of st as the verdict book keeps
// it: a record by how and when it was made (one adopted from HEAD by the
// commit, so that pinning it is no change), HEAD's configuration by its
// commit, none, at now.
func trustSeen(st trust.Status, now time.Time) verdicts.TrustSeen {
	seen := verdicts.TrustSeen{At: now}
	switch {
	case st.Source == trust.SourceRecord && st.How == trust.HowHEAD, st.Source == trust.SourceHEAD:
		seen.Key = "head " + st.Commit
		seen.Desc = "the configuration committed at " + shortCommit(st.Commit) + ", no record made by a person"
	case st.Source == trust.SourceRecord && st.TrustedAt != nil:
		seen.Key = cmp.Or(filesKey(st.Digest), legacyKey(st))
		seen.Desc = trustedWhen(st)
	default:
		seen.Key, seen.Desc = "none", "no trusted configuration"
	}
	if st.Unusable != "" {
		seen.Key += " unusable"
		seen.Desc += " (the record cannot be used)"
	}
	return seen
}

// filesKey is the key of a person's record of the files whose digest is
// digest (trust.Record.Digest): recording the same files again, by trust
// or init, keeps it. "" for no digest.
func filesKey(digest string) string {
	if digest == "" {
		return ""
	}
	return "files " + digest
}

// legacyKey is the key older versions gave a person's record st: how and
// when it was recorded ("" for none). A baseline or book holding it is
// rekeyed (rekey), so that upgrading is no change.
func legacyKey(st trust.Status) string {
	if st.Source != trust.SourceRecord || st.TrustedAt == nil || st.How == trust.HowHEAD {
		return ""
	}
	return string(st.How) + " " + st.TrustedAt.UTC().Format(time.RFC3339Nano)
}

// rekey is t with seen's key when an older version keyed it by the very
// record seen is (legacy, see legacyKey); t itself otherwise.
func rekey(t *verdicts.TrustSeen, legacy string, seen verdicts.TrustSeen) *verdicts.TrustSeen {
	if t == nil || legacy == "" || t.Key != legacy || t.Key == seen.Key {
		return t
	}
	c := *t
	c.Key = seen.Key
	return &c
}

// shortCommit is a commit id cut to 12 hex digits.
func shortCommit(id string) string { return id[:min(len(id), 12)] }

// locate finds the project of the session (step 3): the directory the
// client names for it (hookproto.SessionProject; the hook's working
// directory when it names none), or, when no project is at or above that
// one, the input's directory inside it (a project in a subdirectory of the
// session's). A project whose .gauntlet/ is gone from the work tree is
// found through its trusted record or HEAD's commit. The projects an
// earlier stop of the session judged and this one does not are left
// unjudged (sessionLeft), with left the gates kept for those out of
// reach. A non-nil outcome answers: no project, or git failing.
func (h *hook) locate(ctx context.Context, in hookproto.Input) (found trust.Discovery, left outOfReach, where hookproto.Project, stop *Outcome) {
	where = sessionWhere(in, h.o)
	inner := ""
	if dir := resolveDir(in.Dir, h.o.Cwd); where.Env && in.Dir != "" && dir != where.Dir && within(dir, where.Dir) {
		inner = dir
	}
	found, ok, err := discover(ctx, where.Dir, inner, h.o.Now())
	if err == nil {
		recalled := false
		if found, ok, recalled = recall(verdicts.StateHome(h.o.Getenv), where.Dir, found, ok); recalled {
			where.From = recalledFrom
		}
	}
	found, left = sessionLeft(ctx, verdicts.StateHome(h.o.Getenv), in.SessionID, found, ok && err == nil, h.o.Now())
	if ok && where.From != recalledFrom && inner != "" && within(inner, found.Root) && !within(where.Dir, found.Root) {
		row, _ := hookproto.Lookup(in.Agent)
		where = hookproto.Project{Dir: inner, From: "the input's " + row.DirField}
	}
	switch {
	case err != nil:
		out := h.answer(runner.StatusInfrastructureError, fmt.Sprintf("Cannot tell which project %s is in: %v.", where.Dir, err))
		return found, left, where, &out
	case !ok && in.Continuing:
		out := h.answer(runner.StatusStopHookActive, "")
		return found, left, where, &out
	case !ok:
		out := h.answer(runner.StatusNoConfig, noProjectDetail(where))
		out.unverified = joinParts(strayLogs(where.Dir), goneTrusted(where.Dir))
		return found, left, where, &out
	}
	return found, left, where, nil
}

// sessionWhere is the directory the client names for the session
// (hookproto.SessionProject), else the hook's working directory.
func sessionWhere(in hookproto.Input, o Options) hookproto.Project {
	where := hookproto.SessionProject(in, o.Getenv, o.Cwd)
	if where.Dir == "" {
		where = hookproto.Project{Dir: absDir(o.Cwd), From: "the hook's working directory"}
	}
	return where
}

// sessionDir is the session's directory (sessionWhere).
func sessionDir(in hookproto.Input, o Options) string { return sessionWhere(in, o).Dir }

// resolveDir is dir made absolute against cwd.
func resolveDir(dir, cwd string) string {
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(cwd, dir)
	}
	return absDir(dir)
}

// within reports whether dir is base or below it.
func within(dir, base string) bool {
	rel, err := filepath.Rel(base, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// noProjectDetail says where no project was found, and who named that
// directory.
func noProjectDetail(where hookproto.Project) string {
	return fmt.Sprintf("Looked at and above %s (from %s): no .gauntlet/config.yml, no trusted configuration and none committed at HEAD.",
		runner.SafeText(where.Dir), where.From)
}

// joinParts joins the parts of a "Not verified" sentence that are not
// empty.
func joinParts(parts ...string) string {
	return strings.Join(slices.DeleteFunc(parts, func(p string) bool { return p == "" }), "; ")
}

// goneTrusted is what a stop that finds no project from dir says of the
// configurations a person trusted in dir's repository (trust and init
// record each one's baseline, verdicts.Baseline) now that none is found:
// neither the work tree, a trust record nor HEAD holds one (.gauntlet/
// deleted and the deletion committed, the record deleted). No gate can
// run, so whether they pass is not known; "" when no baseline is there.
func goneTrusted(dir string) string {
	d, ok := gitdir.Find(dir)
	if !ok || place.MovedByEnv() {
		return ""
	}
	var descs []string
	for _, b := range verdicts.Baselines(d.CommonDir) {
		if b.Trust != nil {
			descs = append(descs, runner.SafeText(b.Trust.Desc))
		}
	}
	slices.Sort(descs)
	if len(descs) == 0 {
		return ""
	}
	return fmt.Sprintf("the gates of %d configuration(s) a person trusted in this repository (%s), "+
		"whose .gauntlet/ is gone from the work tree and from HEAD and whose trust record is gone too: "+
		"none of them ran; if no person removed them, the agent did", len(descs), namedUpTo(descs, 3))
}

// strayLogs is what a project without a configuration leaves unverified:
// the failures logged in the default log directory of dir, "" when it
// holds none.
func strayLogs(dir string) string {
	logDir := filepath.Join(dir, config.DefaultLogDir)
	if pending, err := logdir.HasPendingLogs(logDir); err != nil || !pending {
		return ""
	}
	return fmt.Sprintf("failure logs in %s from an earlier run", runner.SafeText(logDir))
}

// open resolves the configuration in force in the project at root: the
// trusted one (trust.Inspect: its record, else HEAD's commit, pinned as the
// record on first use), else the work tree's. A non-nil outcome answers:
// git failing (infrastructure_error), a trusted configuration without gates
// (no_config), a configuration that does not load.
func (h *hook) open(ctx context.Context, root string, where hookproto.Project) (*site, *Outcome) {
	s := &site{root: root, where: where}
	f := openInForce(ctx, root)
	if f.inspectErr != nil {
		detail := fmt.Sprintf("Cannot read the trusted configuration: %v.", f.inspectErr)
		if problem := runner.RepositoryProblem(ctx, root); problem != nil {
			detail = problem.Error()
		}
		out := h.answer(runner.StatusInfrastructureError, detail)
		return nil, &out
	}
	s.trust, s.source = f.st, f.t.Source
	if s.source != trust.SourceNone {
		s.trusted = f.t.Files
	}
	if f.st != nil && h.pin(ctx, root, f.t) {
		from := fmt.Sprintf("committed at HEAD (%s)", shortCommit(f.t.Commit))
		if f.t.Base != "" {
			from = fmt.Sprintf("committed at %s, the merge base of HEAD with %s, since HEAD holds none,", shortCommit(f.t.Commit), f.t.Base)
		}
		s.pinned = fmt.Sprintf("The configuration %s was adopted as the trusted one at this stop: "+
			"no record of a person's trust was found (a first stop since an upgrade, or the record was deleted).", from)
	}
	switch {
	case s.source == trust.SourceNone && f.err != nil:
		out := h.configFailure(ctx, root, f.err)
		return s, &out
	case s.source == trust.SourceNone:
		s.project = f.project
		return s, nil
	case errors.Is(f.err, config.ErrNotFound):
		out := h.answer(runner.StatusNoConfig, "The trusted configuration has no gates ("+trustedWhen(*f.st)+").")
		return s, &out
	case f.err != nil:
		if out := h.layoutBlock(ctx, s, errors.Unwrap(f.err)); out != nil {
			return s, out
		}
		out := h.answer(runner.StatusError, "The trusted configuration does not load: "+config.ErrorText(errors.Unwrap(f.err)))
		return s, &out
	}
	s.project, s.workRead = f.project, workTreeRead(root, f.st.Diff, f.t.Files)
	return s, nil
}

// workTreeRead are the paths of diff that no loader reads, neither the
// trusted files' nor the work tree's: the configuration in force holds the
// trusted copy of a file it loads (and a check or review file only the
// work tree has does not run at all), but a check's command reads any
// other file of .gauntlet/ from the work tree. The work tree's files are
// read only when something differs.
func workTreeRead(root string, diff trust.Diff, trusted config.Files) []string {
	if diff.Empty() {
		return nil
	}
	loaded := config.LoadedOnly(root, trusted)
	work, _ := config.ReadFiles(root) // one that cannot be read is in diff already
	maps.Copy(loaded, config.LoadedOnly(root, work))
	var out []string
	for _, paths := range [][]string{diff.Changed, diff.Removed, diff.Added} {
		for _, f := range paths {
			if _, ok := loaded[f]; !ok {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
}

// workReadUnverified is what workRead leaves unverified, for the answer's
// "Not verified:" sentence; "" for none.
func (s *site) workReadUnverified() string {
	if len(s.workRead) == 0 {
		return ""
	}
	return "the gates ran " + named(s.workRead) + " as the work tree has it, not as trusted"
}

// pin records HEAD's configuration as the trusted one when t stands for it
// because the project has no record (the first stop after an upgrade, or
// a record deleted), and reports whether it did; a failure is a warning,
// the stop goes on with HEAD's.
func (h *hook) pin(ctx context.Context, root string, t trust.Trusted) bool {
	if t.Source != trust.SourceHEAD || t.Unusable != nil {
		return false
	}
	p, err := place.Locate(ctx, root)
	if err == nil {
		err = trust.Pin(p, t, h.o.Now())
	}
	if err != nil {
		h.warn("cannot record the configuration committed at HEAD as the trusted one: %v", err)
		return false
	}
	return true
}

// pinAside records, at the stop that adopted HEAD's configuration of the
// project at root (a repository with no record: an upgrade), the
// configuration committed at HEAD of every other project of the
// repository (trust.CommittedProjects, trust.PinAside), and says which it
// recorded: each was trusted as the one adopted was, and without a record
// it would be untrusted from now on, judged and named by no stop. The
// projects in the session's reach are then named as recorded projects
// this stop does not judge. A failure is a warning.
func (h *hook) pinAside(ctx context.Context, root string) string {
	d, ok := gitdir.Find(root)
	if !ok {
		return ""
	}
	committed, err := trust.CommittedProjects(ctx, d)
	if err != nil {
		h.warn("cannot list the configurations committed at HEAD: %v", err)
		return ""
	}
	var aside []string
	for _, k := range committed {
		if k.Gone != "" || k.Root() == root {
			continue
		}
		ok, err := trust.PinAside(ctx, k.Place, h.o.Now())
		if err != nil {
			h.warn("cannot record the configuration committed at HEAD in %s as trusted: %v", k.Root(), err)
		}
		if ok {
			aside = append(aside, runner.SafeText(k.Root()))
		}
	}
	if len(aside) == 0 {
		return ""
	}
	return fmt.Sprintf(" The configurations committed at HEAD in %s were adopted too, and passed over by this stop, "+
		"which judges %s: until a stop judges each of them, a stop that has it in reach names its changes, committed or not, as not verified.",
		strings.Join(aside, ", "), runner.SafeText(root))
}

// trustedWhen says how and when the trusted configuration was recorded.
func trustedWhen(st trust.Status) string {
	switch {
	case st.TrustedAt != nil:
		return st.How.Describe() + ", " + st.TrustedAt.UTC().Format("2006-01-02T15:04:05Z")
	case st.Source == trust.SourceHEAD:
		return "the one committed at HEAD"
	}
	return "none recorded"
}

// configFailure answers for a work tree's configuration that does not
// load when nothing is trusted (err, as config.OpenProject returns it): an
// agent continuing after a block stands down, no configuration is
// no_config, a broken one is judged by configProblem.
func (h *hook) configFailure(ctx context.Context, root string, err error) Outcome {
	switch {
	case h.afterConfigBlock:
		return h.answer(runner.StatusStopHookActive, "The configuration does not load, "+
			"and the stop right after such a block is allowed: the gates did not run.")
	case errors.Is(err, config.ErrNotFound):
		return h.answer(runner.StatusNoConfig, "")
	}
	return h.configProblem(ctx, root, err)
}

// workTreeProblem is the problem of the work tree's configuration when it
// differs from the trusted one in force and does not load (a
// *config.Errors), nil otherwise: the change broke it, and the agent can
// fix it. A work tree without a configuration is a changed one, not a
// broken one. It runs no process.
func (s *site) workTreeProblem() error {
	if s.source == trust.SourceNone || !s.differs() {
		return nil
	}
	_, err := config.LoadWithoutGit(s.root)
	var errs *config.Errors
	if errors.As(err, &errs) {
		return err
	}
	return nil
}
