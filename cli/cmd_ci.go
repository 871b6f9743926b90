package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/ciwork"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
)

// CICmd is `agent-gauntlet ci`: the GitHub Actions fan-out.
type CICmd struct {
	ListJobs CIListJobsCmd `cmd:"" name:"list-jobs" help:"Print the CI jobs as one line of JSON: one per check gate (and review gate opted in by .gauntlet/ci.yml) and working directory, with ci.yml's services and runtimes."`
	Init     CIInitCmd     `cmd:"" help:"Write a starter .gauntlet/ci.yml when there is none, and the GitHub Actions workflow .github/workflows/gauntlet.yml that runs each gate in its own job."`
}

// CIListJobsCmd is `agent-gauntlet ci list-jobs`.
type CIListJobsCmd struct {
	GitHubOutput string `name:"github-output" placeholder:"FILE" help:"Also append the matrix, reviews, runtimes and log_dir outputs to FILE in GitHub Actions' step-output format (the generated workflow passes \"$GITHUB_OUTPUT\")."`
}

// Run prints the jobs of the project's ci.yml on stdout (warnings on
// stderr). Without ci.yml, or with an invalid configuration, it exits 2.
func (c *CIListJobsCmd) Run(env *Env) error {
	cfg, err := config.LoadProject(env.Ctx, env.Cwd, config.ReadAll)
	if err != nil {
		return configError(env.Stderr, err)
	}
	config.WriteWarnings(env.Stderr, cfg.Warnings)
	if cfg.CI == nil {
		return usageError(fmt.Errorf("CI configuration file not found at %s: run agent-gauntlet ci init to create it",
			filepath.Join(cfg.Root, config.Dir, config.CIFile)))
	}
	jobs := ciwork.List(cfg.Root, cfg)
	config.WriteWarnings(env.Stderr, jobs.Warnings())
	line, err := ciwork.JSON(jobs)
	if err != nil {
		return err
	}
	if _, err := env.Stdout.Write(line); err != nil {
		return fmt.Errorf("write jobs: %w", err)
	}
	if c.GitHubOutput != "" {
		return ciwork.AppendGitHubOutput(c.GitHubOutput, jobs)
	}
	return nil
}

// CIInitCmd is `agent-gauntlet ci init`.
type CIInitCmd struct {
	Force  bool   `help:"Replace the workflow file even when agent-gauntlet did not write it, or it was edited since."`
	Branch string `placeholder:"BRANCH" help:"Branch whose pushes and pull requests run the workflow. Default: base_branch from .gauntlet/config.yml without its remote (origin/main gives main)."`
}

// Run writes the starter ci.yml when there is none, then the workflow. The
// configuration (ci.yml included) must be valid: its problems are printed
// and nothing else is written (exit 2); so is a workflow path that is,
// or lies below, a symbolic link or anything but a directory and a
// regular file (owned.CheckFile). A workflow file that ci init did
// not write, or that was edited since, is left alone without --force
// (exit 1).
func (c *CIInitCmd) Run(env *Env) error {
	cfg, err := config.LoadProject(env.Ctx, env.Cwd, config.ReadAll)
	if errors.Is(err, config.ErrNotFound) {
		err = fmt.Errorf("%w: run agent-gauntlet init first", err)
	}
	if err != nil {
		return configError(env.Stderr, err)
	}
	// Refused before ci.yml is written: a refusal leaves the project as it
	// was.
	if err := owned.CheckFile(place.NearestTop(cfg.Root), workflowPath(cfg.Root)); err != nil {
		return usageError(fmt.Errorf("ci init: %w: nothing was written", err))
	}
	if cfg, err = ensureCIFile(env, cfg); err != nil {
		return err
	}
	config.WriteWarnings(env.Stderr, cfg.Warnings)
	return c.writeWorkflow(env, cfg)
}

// ensureCIFile writes the starter ci.yml when the project has none (never
// over an existing file) and returns the configuration with it.
func ensureCIFile(env *Env, cfg *config.Config) (*config.Config, error) {
	path := filepath.Join(cfg.Root, config.Dir, config.CIFile)
	if cfg.CI != nil {
		fmt.Fprintf(env.Stdout, "Using %s\n", shownPath(env.Cwd, path))
		return cfg, nil
	}
	created, err := ciwork.WriteStarter(path, ciwork.Starter(cfg))
	if err != nil {
		return nil, err
	}
	if created {
		fmt.Fprintf(env.Stdout, "Created %s\n", shownPath(env.Cwd, path))
	}
	cfg, err = config.LoadProject(env.Ctx, cfg.Root, config.ReadAll)
	if err != nil {
		return nil, configError(env.Stderr, err)
	}
	return cfg, nil
}

// writeWorkflow generates the workflow of cfg and installs it at the top
// level of the repository, then says what the user still has to do.
func (c *CIInitCmd) writeWorkflow(env *Env, cfg *config.Config) error {
	top := place.NearestTop(cfg.Root)
	dir, err := filepath.Rel(top, cfg.Root)
	if err != nil {
		return fmt.Errorf("locate %s in the repository %s: %w", cfg.Root, top, err)
	}
	dir = filepath.ToSlash(dir)
	opts := ciwork.WorkflowOptions{WrittenBy: Version, Branch: c.Branch, ProjectDir: dir, CI: cfg.CI}
	if opts.Branch == "" {
		opts.Branch = ciwork.Branch(cfg.BaseBranch)
	}
	opts.Version, opts.Release = ciwork.InstallVersion(Version, moduleVersion())
	if opts.Release {
		opts.WrittenBy = opts.Version
	}
	content, err := ciwork.Workflow(opts)
	if err != nil {
		return err
	}
	path := workflowPath(cfg.Root)
	shown := shownPath(env.Cwd, path)
	result, err := ciwork.InstallWorkflow(top, path, content, c.Force)
	var notOurs *ciwork.NotOursError
	if errors.As(err, &notOurs) {
		notOurs.Path = shown
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s %s\n", resultVerb(result), shown)
	if !opts.Release {
		fmt.Fprintf(env.Stdout, "Note: agent-gauntlet %s is a development build: the workflow installs the latest release.\n", Version)
	}
	if secrets := ciwork.Secrets(cfg.CI); len(secrets) > 0 {
		fmt.Fprintf(env.Stdout, "Add these repository secrets (Settings > Secrets and variables > Actions): %s\n", strings.Join(secrets, ", "))
	}
	return nil
}

// resultVerb says what InstallWorkflow did.
func resultVerb(r ciwork.Result) string {
	switch r {
	case ciwork.Updated:
		return "Updated"
	case ciwork.Unchanged:
		return "Up to date:"
	case ciwork.Replaced:
		return "Replaced (--force)"
	}
	return "Created"
}

// moduleVersion is the binary's module version from its build info: set by
// `go install module@version`, "(devel)" or a pseudo-version otherwise.
func moduleVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.Main.Version
	}
	return ""
}

// workflowPath is the workflow file ci init writes for the project at
// root: at the top level of its repository.
func workflowPath(root string) string {
	top := place.NearestTop(root)
	dir, err := filepath.Rel(top, root)
	if err != nil {
		dir = "."
	}
	return filepath.Join(top, filepath.FromSlash(ciwork.WorkflowsDir), ciwork.FileName(filepath.ToSlash(dir)))
}
