package stophook

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/trust"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/verdicts"
)

// watchReach records the projects a stop whose session is in dir judges
// or names (found: the one judged and the recorded ones in reach it does
// not judge), and says how that set changed since an earlier stop, to the
// session that first saw it and to every session for a day
// (verdicts.SeeReach, the trust-change notice's record), "" when it did
// not. A project's own trusted configuration changing is watchTrust's to
// tell; this tells the project itself changing: a record the agent made
// for a configuration of its own, beside, above or below the one judged
// before, takes the stop over only with the person told which project is
// no longer judged, and why.
func (h *hook) watchReach(dir string, found trust.Discovery, session string) string {
	d, ok := gitdir.Find(dir)
	if !ok || found.Root == "" || place.MovedByEnv() {
		return ""
	}
	at, ok := placeOf(d, dir)
	if !ok {
		return ""
	}
	// Only the projects of dir's own repository are its reach: one in a
	// repository below it (a workspace's) is kept by verdicts.SeeWorkspace.
	if jd, ok := gitdir.Find(found.Root); !ok || jd.TopLevel != d.TopLevel {
		return ""
	}
	judged, ok := placeOf(d, found.Root)
	if !ok {
		return ""
	}
	moved := ""
	if was, err := verdicts.SeeJudged(at, judged.Project(), h.o.Now()); err != nil {
		h.warn("cannot record the project judged from %s: %v", dir, err)
	} else if was != nil {
		moved = judgedMoved(judged, was)
	}
	projects := map[string]string{judged.Project(): recordDesc(judged)}
	for _, k := range found.Unjudged {
		if k.Place.TopLevel != d.TopLevel {
			continue
		}
		projects[k.Place.Project()] = recordDesc(k.Place)
	}
	names := slices.Sorted(maps.Keys(projects))
	seen := verdicts.TrustSeen{Key: strings.Join(names, "\n"), Files: projects, At: h.o.Now()}
	seen.Desc = describeReach(d.TopLevel, names, projects)
	c, err := verdicts.SeeReach(at, seen, session)
	if err != nil {
		h.warn("cannot record the projects judged from %s: %v", dir, err)
		return moved
	}
	if c == nil {
		return moved
	}
	return strings.TrimSpace(reachNotice(c, d.TopLevel, judged) + " " + moved)
}

// judgedMoved tells that the project judged, the one at judged, is not
// the one the last stop from the same directory judged (was): the
// input's directory moved, or the projects in reach changed. The project
// left behind is named as not verified wherever it holds work no stop
// judged (unjudgedChanged, unjudgedCommitted).
func judgedMoved(judged place.Place, was *verdicts.JudgedSeen) string {
	p := judged
	p.Prefix = ""
	if was.Project != "." {
		p.Prefix = was.Project + "/"
	}
	return fmt.Sprintf("This stop judges %s; an earlier stop from here judged %s (at %s), which this stop does not judge: "+
		"its work since, committed or not, is named below as not verified when there is any.",
		runner.SafeText(judged.Root()), runner.SafeText(p.Root()), stamp(was.At))
}

// placeOf is the place of the directory dir in the work tree of d; false
// when dir is outside it.
func placeOf(d gitdir.Dirs, dir string) (place.Place, bool) {
	rel, err := filepath.Rel(d.TopLevel, dir)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return place.Place{}, false
	}
	p := place.Place{CommonDir: d.CommonDir, GitDir: d.GitDir, TopLevel: d.TopLevel}
	if rel != "." {
		p.Prefix = filepath.ToSlash(rel) + "/"
	}
	return p, true
}

// recordDesc says how and when the record of the project at p was made,
// "no record" when it has none (an upgraded repository's, or an untrusted
// configuration judged for want of any other).
func recordDesc(p place.Place) string {
	rec, err := trust.ReadRecord(p)
	switch {
	case err != nil:
		return "its record cannot be used"
	case rec == nil:
		return "no record"
	}
	return "trusted: " + rec.How.Describe() + ", at " + stamp(rec.TrustedAt)
}

// describeReach names the projects of a reach, each with its record.
func describeReach(top string, names []string, projects map[string]string) string {
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s (%s)", runner.SafeText(filepath.Join(top, filepath.FromSlash(n))), runner.SafeText(projects[n]))
	}
	return strings.Join(parts, ", ")
}

// reachNotice tells the change c of the projects judged or named from a
// session's directory, naming each project judged or named before that
// this stop, which judges judged, does not judge, and why.
func reachNotice(c *verdicts.TrustChange, top string, judged place.Place) string {
	var why []string
	for _, n := range slices.Sorted(maps.Keys(c.From.Files)) {
		if n == judged.Project() {
			continue
		}
		p := judged
		p.Prefix = ""
		if n != "." {
			p.Prefix = n + "/"
		}
		reason := "another project is judged from here now, " + runner.SafeText(judged.Root())
		if _, err := os.Lstat(trust.RecordPath(p)); err != nil {
			reason = "its record was removed"
		} else if gone := goneDir(p.Root()); gone != "" {
			reason = gone
		}
		why = append(why, fmt.Sprintf("%s is not judged by this stop: %s", runner.SafeText(p.Root()), reason))
	}
	text := fmt.Sprintf("The trusted projects judged or named from here changed since an earlier stop: they are %s, seen first at %s; "+
		"at the stop of %s they were %s.", c.To.Desc, stamp(c.To.At), stamp(c.From.At), c.From.Desc)
	if len(why) > 0 {
		text += " " + strings.Join(why, "; ") + "."
	}
	return text + " If no person did that, the agent changed its own gates."
}

// goneDir says why dir is not a directory, "" when it is one.
func goneDir(dir string) string {
	fi, err := os.Lstat(dir)
	switch {
	case err != nil:
		return "its directory is gone, moved or deleted"
	case !fi.IsDir():
		return "its directory is now a file or a link"
	}
	return ""
}
