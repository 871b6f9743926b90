package config

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
)

// Reading selects how much of a project's configuration LoadProject reads.
type Reading int

// What LoadProject reads.
const (
	// ReadAll reads config.yml and every check and review gate file, and
	// asks git whether log_dir holds tracked files (Load).
	ReadAll Reading = iota
	// ReadSettings reads config.yml only, without checking entry points
	// against the gates (LoadProjectFile): the stop hook's fast path.
	ReadSettings
	// ReadGates reads config.yml and every gate like ReadAll but runs no
	// process (LoadWithoutGit): for reading the gates' settings on the stop
	// hook's fast paths, never for running them.
	ReadGates
)

// Project is one command's view of a project's configuration: config.yml
// is read once, by OpenProject, and the gate files once, when a level that
// needs them is first asked for; every level (Settings, Gates, All) is
// made from those reads, so that a command sees one configuration however
// many of its steps look at it (the stop hook reads the settings, then the
// gates when a lock exists, then hands the project to the run). A Project
// is safe for concurrent use; what its levels return is shared and must
// not be changed.
type Project struct {
	// Root is the absolute project root.
	Root string
	// data is config.yml as OpenProject read it; src is where every file
	// of .gauntlet/ is read from: the disk under Root (OpenProject), or a
	// set of files (OpenFiles).
	data []byte
	src  source

	settingsOnce sync.Once
	settings     *Config
	settingsErr  error

	gatesOnce sync.Once
	gates     *loaded

	allOnce sync.Once
	all     *Config
	allErr  error
}

// OpenProject finds the project of dir, the nearest directory at or above
// it holding .gauntlet/config.yml (the search stops at the git top level),
// and reads its config.yml. Without a project the error is a
// *NotFoundError naming dir; a config.yml that cannot be read is an
// *Errors. A directory that cannot be resolved (a deleted working
// directory) has no project. It runs no process.
func OpenProject(dir string) (*Project, error) {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	root, ok := FindRoot(dir)
	if !ok {
		return nil, &NotFoundError{Dir: dir}
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolve project root %s: %w", root, err)
	}
	data, err := readProjectFile(abs, diskSource{root: abs})
	if err != nil {
		return nil, err
	}
	return &Project{Root: abs, data: data, src: diskSource{root: abs}}, nil
}

// OpenFiles is the project at root whose .gauntlet/ is files instead of
// the disk (a trusted configuration): every level is the one LoadFiles
// loads, so a command that runs it runs exactly those gates, while the
// paths the configuration names outside .gauntlet/ (log_dir,
// working_directory) are still judged in the project at root on disk.
// files without config.yml give a *NotFoundError naming root; a path of
// files that is not a clean relative path under .gauntlet/ is an error.
// It runs no process.
func OpenFiles(root string, files Files) (*Project, error) {
	if err := files.Check(); err != nil {
		return nil, err
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolve project root %s: %w", root, err)
	}
	src := filesSource{files: files}
	data, err := readProjectFile(abs, src)
	if err != nil {
		return nil, err
	}
	return &Project{Root: abs, data: data, src: src}, nil
}

// Settings is the project's config.yml alone, as LoadProjectFile loads it.
func (p *Project) Settings() (*Config, error) {
	p.settingsOnce.Do(func() { p.settings, p.settingsErr = parseSettings(p.Root, p.data) })
	return p.settings, p.settingsErr
}

// LogDirSettings is config.yml alone, as Settings reads it, with log_dir
// judged by every rule of All (the git question about tracked files asked
// under ctx): what a command that runs no gate (clean) reads of a
// configuration whose gates do not load, to know where its logs are. Its
// Checks and Reviews are empty; errors are as for All's config.yml.
func (p *Project) LogDirSettings(ctx context.Context) (*Config, error) {
	c := &collector{}
	f := c.file(projectFileRel())
	cfg, parsed := parseProject(f, p.data, nil, newProject(p.Root))
	cfg.Root = p.Root
	if parsed.logDir != nil {
		checkTracked(ctx, f, parsed.logDir, parsed.logDirDefault)
	}
	if len(c.problems) > 0 {
		return nil, &Errors{Problems: c.problems, Warnings: c.warningLines()}
	}
	cfg.Warnings = c.warningLines()
	return cfg, nil
}

// loadedGates is the load of config.yml and every gate file, done once.
func (p *Project) loadedGates() *loaded {
	p.gatesOnce.Do(func() { p.gates = loadGates(p.Root, p.src, p.data) })
	return p.gates
}

// Gates is the whole configuration without the git question about
// log_dir, as LoadWithoutGit loads it.
func (p *Project) Gates() (*Config, error) { return p.loadedGates().result(nil) }

// All is the whole configuration, as Load loads it: the git question about
// log_dir is asked once, under the ctx of the first call.
func (p *Project) All(ctx context.Context) (*Config, error) {
	p.allOnce.Do(func() {
		l := p.loadedGates()
		p.all, p.allErr = l.result(l.trackedProblem(ctx))
	})
	return p.all, p.allErr
}

// Read is the level r of the configuration (Settings, Gates or All).
func (p *Project) Read(ctx context.Context, r Reading) (*Config, error) {
	switch r {
	case ReadSettings:
		return p.Settings()
	case ReadGates:
		return p.Gates()
	}
	return p.All(ctx)
}

// LoadProject opens the project of dir (OpenProject) and reads r of its
// configuration; Config.Root is the project root and Config.Warnings the
// load's warnings. Without a project the error is a *NotFoundError naming
// dir; an invalid configuration is an *Errors listing every problem, with
// the warnings. Every command loads a project this way. ctx bounds the one
// git question of ReadAll; ReadSettings and ReadGates run no process.
func LoadProject(ctx context.Context, dir string, r Reading) (*Config, error) {
	p, err := OpenProject(dir)
	if err != nil {
		return nil, err
	}
	return p.Read(ctx, r)
}
