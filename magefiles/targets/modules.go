package targets

import (
	"bytes"
	"context"
	"fmt"
	"os"

	"github.com/agent-gauntlet/agent-gauntlet/magefiles/internal/release"
)

// Tidy tidies every module's go.mod and go.sum against its siblings as the
// working tree has them, and go.work's replace directives: what `go mod
// tidy` would do with replace directives, which the modules have none of.
func Tidy(ctx context.Context) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	s, err := release.Load(root)
	if err != nil {
		return err
	}
	p, cleanup, err := prepareInStep(ctx, s)
	if err != nil {
		return err
	}
	defer cleanup()
	return p.WriteTidied(s)
}

// Release makes the release vX.Y.Z: from a clean tree whose modules are in
// step, it sets every module's sibling requirements to the version (go.mod,
// go.sum, go.work), proves `go install` from a local module proxy, commits,
// and tags every module; it pushes nothing (RELEASING.md says what next).
func Release(ctx context.Context, version string) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	return release.Cut(ctx, root, version, Out)
}

// modProblems checks what `go mod tidy -diff` checks in each module, with
// siblings resolved without replace directives: every go.mod and go.sum
// must be what Tidy writes, the modules must require one another at one
// version, go.work must serve that version from the working tree, and no
// go.mod may have a replace directive. The tools module is not checked: a
// tidy of it downloads GoReleaser's whole module graph (2.5 GB); dist
// builds it with -mod=readonly, which refuses an inconsistent go.mod.
func modProblems(ctx context.Context, root string) []string {
	s, err := release.Load(root)
	if err != nil {
		return []string{err.Error()}
	}
	if replaces := s.Replaces(); len(replaces) > 0 {
		return replaces
	}
	version, err := s.Version()
	if err != nil {
		return []string{err.Error()}
	}
	problems := s.WorkReplacesProblems(version)
	p, cleanup, err := prepareInStep(ctx, s)
	if err != nil {
		return append(problems, err.Error())
	}
	defer cleanup()
	for _, m := range s.Modules {
		f := p.Tidied(m)
		if !bytes.Equal(f.Mod, m.Mod) {
			problems = append(problems, fmt.Sprintf("%s/go.mod is not tidy (run: go tool mage tidy):\n%s", m.Dir, lineDiff(m.Mod, f.Mod)))
		}
		if !bytes.Equal(f.Sum, m.Sum) {
			problems = append(problems, fmt.Sprintf("%s/go.sum is not tidy (run: go tool mage tidy):\n%s", m.Dir, lineDiff(m.Sum, f.Sum)))
		}
	}
	if len(problems) > 0 {
		problems = append(problems, "(go.work joins the modules; each requires its siblings at the version they are in step at; see RELEASING.md)")
	}
	return problems
}

// prepareInStep prepares the modules of s at the version they are in step
// at (release.Prepare) in a temporary directory that cleanup removes.
func prepareInStep(ctx context.Context, s *release.Set) (*release.Prepared, func(), error) {
	version, err := s.Version()
	if err != nil {
		return nil, nil, err
	}
	work, err := os.MkdirTemp("", "gauntlet-tidy-")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() { _ = os.RemoveAll(work) }
	p, err := release.Prepare(ctx, s, version, work, Out)
	if err != nil {
		cleanup()
		return nil, nil, err
	}
	return p, cleanup, nil
}
