package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/semver"
)

// CheckVersion returns why version cannot follow cur, the version the
// modules are in step at, given the repository's tags; nil when it can.
// A release version is canonical semver (vX.Y.Z or vX.Y.Z-pre), of major
// version 0 or 1 (a v2 would need /v2 module paths), newer than cur and
// than every module tag, and not tagged yet.
func (s *Set) CheckVersion(cur, version string, tags []string) error {
	switch {
	case !semver.IsValid(version) || semver.Canonical(version) != version:
		return fmt.Errorf("version %q: want a full semantic version such as v1.2.3 or v1.2.3-rc.1 (no build metadata)", version)
	case semver.Major(version) != "v0" && semver.Major(version) != "v1":
		return fmt.Errorf("version %s: major version %s needs module paths ending in /%s; not supported", version, semver.Major(version), semver.Major(version))
	case semver.Compare(version, cur) <= 0:
		return fmt.Errorf("version %s is not newer than %s, the version the modules require one another at", version, cur)
	}
	for _, want := range releaseTags(s.Modules, version) {
		for _, t := range tags {
			if t == want {
				return fmt.Errorf("tag %s exists already: a released version is never tagged again (release the next patch version)", t)
			}
		}
	}
	for _, t := range tags {
		for _, m := range s.Published() {
			if v, ok := strings.CutPrefix(t, m.Dir+"/"); ok && semver.IsValid(v) && semver.Compare(version, v) <= 0 {
				return fmt.Errorf("version %s is not newer than the tag %s", version, t)
			}
		}
	}
	return nil
}

// releaseTags returns the tags of a release of mods, in the order they are
// created and pushed: each published module's "<dir>/<version>" in the
// order of mods (dependencies first), then the plain "<version>" that
// names the release (archives, npm packages).
func releaseTags(mods []*Module, version string) []string {
	var tags []string
	for _, m := range mods {
		if m.Dir != BuildModule {
			tags = append(tags, m.Dir+"/"+version)
		}
	}
	return append(tags, version)
}

// Cut releases version from the repository at root: it refuses a dirty
// working tree, modules out of step, a go.work that does not match them,
// and a version that cannot follow (CheckVersion). It then prepares every
// module at version (Prepare), proves `go install Command@version` from
// the prepared proxy, writes the prepared go.mod and go.sum files and
// go.work, commits them, and tags the commit with every published
// module's tag, then the release tag. It pushes nothing: it prints what to
// push, in order.
func Cut(ctx context.Context, root, version string, log io.Writer) error {
	if status, err := git(ctx, root, "status", "--porcelain"); err != nil {
		return err
	} else if status != "" {
		return fmt.Errorf("the working tree has changes; a release is made from a clean commit:\n%s", status)
	}
	s, err := Load(root)
	if err != nil {
		return err
	}
	cur, err := s.Version()
	if err != nil {
		return err
	}
	if problems := s.WorkReplacesProblems(cur); len(problems) > 0 {
		return fmt.Errorf("%s\n(run: go tool mage tidy)", strings.Join(problems, "\n"))
	}
	tagList, err := git(ctx, root, "tag", "--list")
	if err != nil {
		return err
	}
	if err := s.CheckVersion(cur, version, strings.Fields(tagList)); err != nil {
		return err
	}

	work, err := os.MkdirTemp("", "gauntlet-release-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	p, err := Prepare(ctx, s, version, work, log)
	if err != nil {
		return err
	}
	if err := p.CheckInstall(ctx, filepath.Join(work, "install"), log); err != nil {
		return err
	}
	if err := p.write(s, func(m *Module) Files { return p.Files[m.Dir] }); err != nil {
		return err
	}
	tags := releaseTags(p.Order, version)
	if _, err := git(ctx, root, append([]string{"add", "-A", "--"}, s.files()...)...); err != nil {
		return err
	}
	if _, err := git(ctx, root, "commit", "-q", "-m", "Release "+version,
		"-m", "Every module requires its siblings at "+version+"; go.sum holds their hashes; go.work serves them from the working tree."); err != nil {
		return err
	}
	for _, t := range tags {
		if _, err := git(ctx, root, "tag", "-a", t, "-m", "agent-gauntlet "+t); err != nil {
			return err
		}
	}
	fmt.Fprintf(log, "\nReleased %s: one commit, tags %s.\nPublish (RELEASING.md):\n  git push origin HEAD:main\n  git push --atomic origin %s\n",
		version, strings.Join(tags, " "), strings.Join(tags, " "))
	return nil
}

// CheckInstall installs Command from the prepared proxy into dir (see
// GoInstall) and checks that the binary reports p.Version.
func (p *Prepared) CheckInstall(ctx context.Context, dir string, log io.Writer) error {
	bin, err := p.GoInstall(ctx, Command, dir, log)
	if err != nil {
		return err
	}
	out, err := exec.CommandContext(ctx, bin, "--version").CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s --version: %w\n%s", bin, err, out)
	}
	if got := strings.TrimSpace(string(out)); got != p.Version {
		return fmt.Errorf("go install %s@%s gave a binary that reports version %q", Command, p.Version, got)
	}
	return nil
}

// files returns the files a release rewrites, relative to the root: each
// go.mod, each go.sum that exists now or did before, and go.work.
func (s *Set) files() []string {
	files := []string{"go.work"}
	for _, m := range s.Modules {
		files = append(files, m.moduleFile("go.mod"))
		sum := m.moduleFile("go.sum")
		if _, err := os.Stat(filepath.Join(s.Root, filepath.FromSlash(sum))); err == nil || len(m.Sum) > 0 {
			files = append(files, sum)
		}
	}
	return files
}

// WriteTidied writes every module's Tidied go.mod and go.sum, and go.work
// with its replace directives at p.Version: `go tool mage tidy`.
func (p *Prepared) WriteTidied(s *Set) error {
	return p.write(s, p.Tidied)
}

// write stores the go.mod and go.sum files of every module, and go.work
// with its replace directives at p.Version.
func (p *Prepared) write(s *Set, files func(*Module) Files) error {
	for _, m := range s.Modules {
		f := files(m)
		dir := filepath.Join(s.Root, filepath.FromSlash(m.Dir))
		if err := os.WriteFile(filepath.Join(dir, "go.mod"), f.Mod, 0o644); err != nil {
			return err
		}
		if err := writeOrRemove(filepath.Join(dir, "go.sum"), f.Sum); err != nil {
			return err
		}
	}
	work, err := s.WorkFile(p.Version)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(s.Root, "go.work"), work, 0o644)
}

// writeOrRemove writes data to path, or removes path when data is empty
// (a module without dependencies has no go.sum).
func writeOrRemove(path string, data []byte) error {
	if len(data) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		return nil
	}
	return os.WriteFile(path, data, 0o644)
}

// git runs git in root and returns its trimmed output.
func git(ctx context.Context, root string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(stdout.String()), nil
}
