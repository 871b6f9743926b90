package stophook

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// unjudgedView is what the trusted projects a stop does not judge leave
// pending (trust.Discovery.Unjudged): a sentence for the answer and the
// gates, each named "<project>: <gate>".
type unjudgedView struct {
	text    string
	pending []string
}

// unjudgedPending names the failures pending in the verdict books of the
// trusted projects in known that this stop does not judge (gone, renamed,
// replaced by a link, beside the one judged): a failure a person's gates
// found there is never dropped because the agent moved the project away
// or planted a configuration in front of it. A project whose directory is
// gone is named whether or not anything is pending there: its changes,
// wherever they went, were judged by no gate of its. A present project
// with nothing pending is not named. A project in left, whose verdict
// book is out of reach, is named with the gates left holds for it.
func unjudgedPending(ctx context.Context, known []trust.Known, left outOfReach, now time.Time) unjudgedView {
	var v unjudgedView
	var parts []string
	for _, k := range known {
		gates, kept := left[k]
		if !kept {
			gates = pendingOfRecord(ctx, k, now)
		}
		if len(gates) == 0 && k.Gone != "" {
			parts = append(parts, fmt.Sprintf("the trusted project %s (%s), whose gates no stop can run: "+
				"its changes, wherever they went, were judged by none of them", runner.SafeText(k.Root()), k.Gone))
		}
		if len(gates) == 0 {
			continue
		}
		why := k.Gone
		if why == "" {
			why = "not the project this stop judged"
		}
		parts = append(parts, fmt.Sprintf("the trusted project %s (%s) has %d gate(s) failing since an earlier run (%s)",
			runner.SafeText(k.Root()), why, len(gates), named(gates)))
		for _, g := range gates {
			v.pending = append(v.pending, k.Place.Project()+": "+g)
		}
	}
	v.text = strings.Join(parts, "; ")
	return v
}

// pendingOfRecord is what waits to be verified in the project k, by its
// record's gates and its verdict book (the book alone without a usable
// record); nil when it has no book or nothing pending.
func pendingOfRecord(ctx context.Context, k trust.Known, now time.Time) []string {
	b, err := verdicts.Read(verdicts.KeyOf(k.Place))
	if b == nil || err != nil {
		return nil
	}
	// A project whose directory is gone does not load on disk (its log
	// directory cannot be resolved), and what is at its path now may be
	// another work tree (atPath); one whose record is gone or unusable
	// (deleted, say, with its .gauntlet/) has no gates to read them by:
	// the book then names every gate it holds failing or dropped, as for
	// a configuration without gates. The book alone says what failed.
	rec, err := trust.ReadRecord(k.Place)
	if rec == nil || err != nil || !atPath(k) {
		return bookFailing(b)
	}
	cfg := &config.Config{Root: k.Root(), LogDir: config.DefaultLogDir}
	if p, err := config.OpenFiles(k.Root(), rec.Files); err == nil {
		if c, err := p.Gates(); err == nil {
			cfg = c
		}
	}
	if gates := pendingFailures(ctx, cfg, now).all(); len(gates) > 0 || goneDir(k.Root()) == "" {
		return gates
	}
	return bookFailing(b)
}

// bookFailing names the jobs the book b holds failing, then those whose
// failures were dropped with no full pass since (a clean), for a project
// whose directory is gone or taken by another work tree: no log
// directory of its is left to read, and the book, kept in the git common
// directory, is all that says what failed there.
func bookFailing(b *verdicts.Book) []string {
	p, _ := b.Pending("", "", nil)
	jobs := slices.Collect(maps.Keys(p.Checks))
	for job := range p.Slots {
		jobs = append(jobs, job)
	}
	slices.Sort(jobs)
	if b.Cleared != nil {
		for _, j := range b.Cleared.Jobs {
			if !slices.Contains(jobs, j) {
				jobs = append(jobs, j)
			}
		}
	}
	return jobs
}

// untrustedUnverified is what an approve of a configuration nobody trusted
// leaves unverified (no record of a person's trust): its gates ran,
// but no person accepted them.
func (s *site) untrustedUnverified() string {
	if s == nil || s.trust == nil || s.source != trust.SourceNone || s.project == nil {
		return ""
	}
	return "the gates are the work tree's configuration in " + runner.SafeText(s.root) +
		", which nobody trusted (no record of a person's trust)"
}

// unjudgedChanged names the trusted projects of known that this stop does
// not judge, present where their records say, whose directories hold
// changes in the work tree (uncommitted, untracked files included; one
// git process for all of them): a stop judges one project, and work in
// another must never pass for judged. A path belongs to the deepest
// project holding it, so the judged project's own files, and those of a
// project nested in an unjudged one, are not counted for it. "" for none,
// and when git cannot tell (the stop's own run reports git failing).
func unjudgedChanged(ctx context.Context, judged string, known []trust.Known) string {
	return eachRepository(known, func(present []trust.Known) string { return changedIn(ctx, judged, present) })
}

// changedIn is unjudgedChanged for present, projects of one repository.
func changedIn(ctx context.Context, judged string, present []trust.Known) string {
	top := present[0].Place.TopLevel
	args := []string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--"}
	for _, k := range present {
		args = append(args, projectSpec(k))
	}
	out, err := gitOut(ctx, top, args...)
	if err != nil {
		return ""
	}
	counts := map[string]int{}
	for _, entry := range strings.Split(string(out), "\x00") {
		if len(entry) < 4 {
			continue
		}
		owner := ownerOf(filepath.Join(top, filepath.FromSlash(entry[3:])), judged, present)
		if owner != judged {
			counts[owner]++
		}
	}
	var parts []string
	for _, k := range present {
		if n := counts[k.Root()]; n > 0 {
			parts = append(parts, fmt.Sprintf("the trusted project %s (not the project this stop judged) has %d changed file(s) in the work tree that no stop judged",
				runner.SafeText(k.Root()), n))
		}
	}
	return strings.Join(parts, "; ")
}

// roots are the roots of known.
func roots(known []trust.Known) []string {
	out := make([]string, len(known))
	for i, k := range known {
		out[i] = k.Root()
	}
	return out
}

// unjudgedCommitted names the trusted projects of known that this stop
// does not judge, present where their records say, whose content at HEAD
// differs from what their gates last saw (commitAnchor): work committed
// in a project no stop judges is as unjudged as work left uncommitted
// there (unjudgedChanged), and a stop whose input's directory moved to
// another project must not leave it behind. A path belongs to the deepest
// project holding it, as in unjudgedChanged. A project without an anchor
// is named with its whole history. "" for none, when HEAD has no commit,
// and when git cannot tell.
func unjudgedCommitted(ctx context.Context, judged string, known []trust.Known) string {
	return eachRepository(known, func(present []trust.Known) string { return committedIn(ctx, judged, present) })
}

// committedIn is unjudgedCommitted for present, projects of one
// repository.
func committedIn(ctx context.Context, judged string, present []trust.Known) string {
	top := present[0].Place.TopLevel
	out, err := gitOut(ctx, top, "rev-parse", "-q", "--verify", "HEAD^{commit}")
	if err != nil {
		return ""
	}
	head := strings.TrimSpace(string(out))
	out, _ = gitOut(ctx, top, "symbolic-ref", "-q", "--short", "HEAD")
	branch := strings.TrimSpace(string(out))
	var parts []string
	for _, k := range present {
		from := commitAnchor(ctx, k, branch, head)
		if from == "" {
			parts = append(parts, fmt.Sprintf("the trusted project %s (not the project this stop judged) has committed work up to HEAD %s "+
				"that no stop judged: no point of it seen to pass, nor a commit its trust was recorded at, is in HEAD's history",
				runner.SafeText(k.Root()), shortCommit(head)))
			continue
		}
		if n := committedSince(ctx, k, judged, present, from, head); n > 0 {
			parts = append(parts, fmt.Sprintf("the trusted project %s (not the project this stop judged) has %d file(s) changed by work "+
				"committed since %s, where its gates last saw it pass or its trust was recorded, that no stop judged",
				runner.SafeText(k.Root()), n, pointName(from)))
		}
	}
	return strings.Join(parts, "; ")
}

// pointName names a point a project was last seen with (commitAnchor).
func pointName(point string) string {
	if point == trust.EmptyStart {
		return "before the repository's first commit"
	}
	return shortCommit(point)
}

// commitAnchor is the commit whose content the project k was last seen
// with: its verdict book's point on branch (the last point its gates were
// seen to pass there), else the newest that HEAD descends from of the
// commit a person recorded its trust at (trust.Record.StartPoint; git's
// empty tree, trust.EmptyStart, for a record made before the first
// commit, which every commit descends from) and its points on other
// branches; "" for none that exists.
func commitAnchor(ctx context.Context, k trust.Known, branch, head string) string {
	top := k.Place.TopLevel
	exists := func(c string) bool {
		_, err := gitOut(ctx, top, "cat-file", "-e", c+"^{commit}")
		return c != "" && err == nil
	}
	type candidate struct {
		commit string
		at     time.Time
	}
	var others []candidate
	if b, err := verdicts.Read(verdicts.KeyOf(k.Place)); err == nil && b != nil {
		if pt, ok := b.VerifiedOn(branch); ok && branch != "" && exists(pt.Commit) {
			return pt.Commit
		}
		for name, pt := range b.Verified {
			if name != branch && pt.Commit != "" {
				others = append(others, candidate{pt.Commit, pt.At})
			}
		}
	}
	if rec, err := trust.ReadRecord(k.Place); err == nil && rec.StartPoint() != "" {
		others = append(others, candidate{rec.StartPoint(), rec.TrustedAt})
	}
	slices.SortFunc(others, func(a, b candidate) int { return b.at.Compare(a.at) })
	for _, c := range others {
		if c.commit == head || c.commit == trust.EmptyStart {
			return c.commit // HEAD descends from the point before the first commit
		}
		if _, err := gitOut(ctx, top, "merge-base", "--is-ancestor", c.commit, head); err == nil {
			return c.commit
		}
	}
	return ""
}

// committedSince counts the files of the project k whose content at head
// differs from the point from and that commits since from changed (a
// point may be a snapshot of the work tree, whose parent is the HEAD of
// then: a file untracked then and still is differs from head without any
// commit), each counted for the deepest project of present (and judged)
// holding it; 0 when git cannot tell.
func committedSince(ctx context.Context, k trust.Known, judged string, present []trust.Known, from, head string) int {
	if from == head {
		return 0
	}
	top := k.Place.TopLevel
	spec := projectSpec(k)
	differs, err := gitOut(ctx, top, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", from, head, "--", spec)
	if err != nil || len(differs) == 0 {
		return 0
	}
	since := from + ".." + head
	if from == trust.EmptyStart {
		since = head // every commit is made after the point before the first
	}
	touched, err := gitOut(ctx, top, "log", "-z", "--format=", "--name-only", "--no-renames", since, "--", spec)
	if err != nil {
		return 0
	}
	byCommit := map[string]bool{}
	for _, name := range strings.Split(string(touched), "\x00") {
		byCommit[name] = name != ""
	}
	n := 0
	for _, name := range strings.Split(string(differs), "\x00") {
		if byCommit[name] && ownerOf(filepath.Join(top, filepath.FromSlash(name)), judged, present) == k.Root() {
			n++
		}
	}
	return n
}

// eachRepository calls name for the projects of known present where
// their records say, one repository at a time (a session's directory may
// be a workspace above several: verdicts.SeeWorkspace), and joins what
// it names.
func eachRepository(known []trust.Known, name func(present []trust.Known) string) string {
	var tops []string
	byTop := map[string][]trust.Known{}
	for _, k := range presentOf(known) {
		top := k.Place.TopLevel
		if _, ok := byTop[top]; !ok {
			tops = append(tops, top)
		}
		byTop[top] = append(byTop[top], k)
	}
	var parts []string
	for _, top := range tops {
		if part := name(byTop[top]); part != "" {
			parts = append(parts, part)
		}
	}
	return strings.Join(parts, "; ")
}

// projectSpec is the pathspec of the files of the project k: its
// directory, the whole work tree for a project at the top level (a
// literal "." matches no path).
func projectSpec(k trust.Known) string { return ":(top,literal)" + k.Place.Prefix }

// presentOf are the projects of known whose directories are where their
// records say.
func presentOf(known []trust.Known) []trust.Known {
	var present []trust.Known
	for _, k := range known {
		if k.Gone == "" {
			present = append(present, k)
		}
	}
	return present
}

// ownerOf is the root of the deepest project holding path: judged or one
// of present ("" for none).
func ownerOf(path, judged string, present []trust.Known) string {
	owner := ""
	for _, root := range append([]string{judged}, roots(present)...) {
		if root != "" && within(path, root) && len(root) > len(owner) {
			owner = root
		}
	}
	return owner
}
