package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
)

// RepoPath is the repository's import path. Every module's path is
// RepoPath + "/" + its directory: that is what makes the tag
// "<dir>/vX.Y.Z" name the module's version vX.Y.Z.
const RepoPath = "github.com/agent-gauntlet/agent-gauntlet"

// BuildModule is the directory of the module holding the build targets. It
// is tidied and checked with the others but never tagged: nothing imports
// it.
const BuildModule = "magefiles"

// Module is one module of the repository, as its files are now.
type Module struct {
	// Dir is the module's directory relative to the repository root,
	// slash-separated.
	Dir string
	// Path is the module path.
	Path string
	// Mod and Sum are the contents of go.mod and go.sum (Sum may be empty).
	Mod, Sum []byte
	file     *modfile.File
}

// Set is the repository's modules, in go.work order.
type Set struct {
	// Root is the repository root.
	Root    string
	Modules []*Module
	// work is the parsed go.work.
	work *modfile.WorkFile
}

// IsSibling reports whether a module path belongs to this repository.
func IsSibling(modPath string) bool {
	return strings.HasPrefix(modPath, RepoPath+"/")
}

// Load reads go.work at root, and the go.mod and go.sum of each module it
// uses.
func Load(root string) (*Set, error) {
	gowork := filepath.Join(root, "go.work")
	data, err := os.ReadFile(gowork)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", gowork, err)
	}
	work, err := modfile.ParseWork(gowork, data, nil)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", gowork, err)
	}
	s := &Set{Root: root, work: work}
	for _, u := range work.Use {
		m, err := loadModule(root, path.Clean(filepath.ToSlash(u.Path)))
		if err != nil {
			return nil, err
		}
		s.Modules = append(s.Modules, m)
	}
	if len(s.Modules) == 0 {
		return nil, fmt.Errorf("%s uses no module", gowork)
	}
	return s, nil
}

func loadModule(root, dir string) (*Module, error) {
	gomod := filepath.Join(root, filepath.FromSlash(dir), "go.mod")
	data, err := os.ReadFile(gomod)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", gomod, err)
	}
	f, err := modfile.Parse(gomod, data, nil)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", gomod, err)
	}
	if f.Module == nil {
		return nil, fmt.Errorf("%s: no module line", gomod)
	}
	if want := RepoPath + "/" + dir; f.Module.Mod.Path != want {
		return nil, fmt.Errorf("%s: module %s: must be %s, or the tag %s/vX.Y.Z would not name it", gomod, f.Module.Mod.Path, want, dir)
	}
	sum, err := os.ReadFile(filepath.Join(filepath.Dir(gomod), "go.sum"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("read go.sum of %s: %w", dir, err)
	}
	return &Module{Dir: dir, Path: f.Module.Mod.Path, Mod: data, Sum: sum, file: f}, nil
}

// byPath returns the module with a module path, or nil.
func (s *Set) byPath(modPath string) *Module {
	for _, m := range s.Modules {
		if m.Path == modPath {
			return m
		}
	}
	return nil
}

// Published returns the modules a release tags: all but BuildModule.
func (s *Set) Published() []*Module {
	var pub []*Module
	for _, m := range s.Modules {
		if m.Dir != BuildModule {
			pub = append(pub, m)
		}
	}
	return pub
}

// Version returns the one version at which the modules require one
// another. Requirements at different versions (modules out of step), or of
// a sibling that go.work does not list, are an error naming each of them.
func (s *Set) Version() (string, error) {
	byVersion := map[string][]string{}
	var problems []string
	for _, m := range s.Modules {
		for _, r := range m.file.Require {
			if !IsSibling(r.Mod.Path) {
				continue
			}
			where := fmt.Sprintf("%s/go.mod requires %s %s", m.Dir, r.Mod.Path, r.Mod.Version)
			if s.byPath(r.Mod.Path) == nil {
				problems = append(problems, where+", a module go.work does not list")
				continue
			}
			byVersion[r.Mod.Version] = append(byVersion[r.Mod.Version], where)
		}
	}
	if len(problems) > 0 {
		return "", errors.New(strings.Join(problems, "\n"))
	}
	switch len(byVersion) {
	case 0:
		return "", errors.New("no module requires another: nothing says which version the modules are at")
	case 1:
		for v := range byVersion {
			return v, nil
		}
	}
	var lines []string
	for _, where := range byVersion {
		lines = append(lines, where...)
	}
	sort.Strings(lines)
	return "", fmt.Errorf("modules out of step: they require one another at %d versions (each release sets them all to one):\n%s", len(byVersion), strings.Join(lines, "\n"))
}

// Replaces returns one line per replace directive in any module: published
// modules must have none (`go install <pkg>@<version>` refuses them), and
// go.work joins the modules in development.
func (s *Set) Replaces() []string {
	var lines []string
	for _, m := range s.Modules {
		for _, r := range m.file.Replace {
			lines = append(lines, fmt.Sprintf("%s/go.mod: replace %s: no replace directives (go.work joins the modules; go install refuses a module that has them)", m.Dir, r.Old.Path))
		}
	}
	return lines
}

// Order returns the modules so that each comes after every sibling its
// packages and their tests import, as go list sees them in the workspace:
// the requirements `go mod tidy` will write, whatever go.mod says now. A
// release needs that order: a module's go.sum holds the hash of each
// sibling's content, go.sum included.
func (s *Set) Order(ctx context.Context) ([]*Module, error) {
	deps := map[*Module][]*Module{}
	for _, m := range s.Modules {
		cmd := exec.CommandContext(ctx, "go", "list", "-e", "-deps", "-test", "-f", "{{with .Module}}{{.Path}}{{end}}", "./...")
		cmd.Dir = filepath.Join(s.Root, filepath.FromSlash(m.Dir))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list in %s: %w: %s", m.Dir, err, strings.TrimSpace(stderr.String()))
		}
		for _, p := range strings.Fields(string(out)) {
			if dep := s.byPath(p); dep != nil && dep != m && !slices.Contains(deps[m], dep) {
				deps[m] = append(deps[m], dep)
			}
		}
	}
	return topoSort(s.Modules, deps)
}

// topoSort orders mods so that each follows its deps, keeping the given
// order where deps allow; a cycle is an error.
func topoSort(mods []*Module, deps map[*Module][]*Module) ([]*Module, error) {
	const (
		visiting = 1
		done     = 2
	)
	state := map[*Module]int{}
	var order []*Module
	var visit func(m *Module, chain []string) error
	visit = func(m *Module, chain []string) error {
		chain = append(chain, m.Dir)
		switch state[m] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("modules import one another in a cycle (%s): a release could not compute their go.sum lines", strings.Join(chain, " -> "))
		}
		state[m] = visiting
		for _, d := range deps[m] {
			if err := visit(d, chain); err != nil {
				return err
			}
		}
		state[m] = done
		order = append(order, m)
		return nil
	}
	for _, m := range mods {
		if err := visit(m, nil); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// moduleFile returns the path of a module's file relative to the
// repository root, slash-separated.
func (m *Module) moduleFile(name string) string { return path.Join(m.Dir, name) }

// workReplace is one versioned replace directive of go.work.
type workReplace struct{ path, version, dir string }

// wantWorkReplaces returns the replace directives go.work must have when
// the modules are in step at version: one per published module, of that
// version, by its directory. In workspace mode the go command still reads
// the go.mod of every version that a module requires, siblings included
// (go.work's use lines only add roots to the module graph); these
// directives serve those from the working tree, so the workspace never
// fetches a sibling, even one not released yet.
func (s *Set) wantWorkReplaces(version string) []workReplace {
	var want []workReplace
	for _, m := range s.Published() {
		want = append(want, workReplace{m.Path, version, "./" + m.Dir})
	}
	return want
}

// WorkReplacesProblems returns one line per go.work replace directive of a
// sibling that is missing, extra, or not at version.
func (s *Set) WorkReplacesProblems(version string) []string {
	have := map[workReplace]bool{}
	for _, r := range s.work.Replace {
		if IsSibling(r.Old.Path) {
			have[workReplace{r.Old.Path, r.Old.Version, r.New.Path}] = true
		}
	}
	var problems []string
	for _, w := range s.wantWorkReplaces(version) {
		if !have[w] {
			problems = append(problems, fmt.Sprintf("go.work: missing replace %s %s => %s", w.path, w.version, w.dir))
		}
		delete(have, w)
	}
	for r := range have {
		problems = append(problems, fmt.Sprintf("go.work: replace %s %s => %s: not a published module at %s", r.path, r.version, r.dir, version))
	}
	sort.Strings(problems)
	return problems
}

// WorkFile returns go.work with its sibling replace directives set for
// version (see wantWorkReplaces); everything else is kept.
func (s *Set) WorkFile(version string) ([]byte, error) {
	work, err := modfile.ParseWork("go.work", modfile.Format(s.work.Syntax), nil)
	if err != nil {
		return nil, err
	}
	for _, r := range s.work.Replace {
		if IsSibling(r.Old.Path) {
			if err := work.DropReplace(r.Old.Path, r.Old.Version); err != nil {
				return nil, err
			}
		}
	}
	for _, w := range s.wantWorkReplaces(version) {
		if err := work.AddReplace(w.path, w.version, w.dir, ""); err != nil {
			return nil, err
		}
	}
	work.Cleanup()
	return modfile.Format(work.Syntax), nil
}

// Command is the package users install: `go install Command@<version>`.
const Command = RepoPath + "/cli/cmd/agent-gauntlet"
