// Package project locates the gauntlet project of a command from its
// working directory and reports configuration problems the same way for
// every command.
package project

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Load finds the project root from cwd (config.FindRoot) and loads its whole
// configuration. Without a project it returns a *config.NotFoundError naming
// cwd/.gauntlet/config.yml.
func Load(cwd string) (*config.Config, error) {
	root, ok := config.FindRoot(cwd)
	if !ok {
		return nil, &config.NotFoundError{Path: filepath.Join(cwd, config.Dir, config.ProjectFile)}
	}
	return config.Load(root)
}

// LogDir returns the absolute log directory of a command run in cwd: the
// log_dir of the project found from cwd (only config.yml is read), or
// gauntlet_logs in cwd when there is no project.
func LogDir(cwd string) (string, error) {
	root, ok := config.FindRoot(cwd)
	if !ok {
		return filepath.Join(cwd, config.DefaultLogDir), nil
	}
	cfg, err := config.LoadProjectFile(root)
	if err != nil {
		return "", err
	}
	return cfg.LogDirPath(), nil
}

// PrintWarnings writes each configuration warning on its own line, prefixed
// with "warning: ".
func PrintWarnings(w io.Writer, warnings []string) {
	for _, line := range warnings {
		fmt.Fprintf(w, "warning: %s\n", line)
	}
}

// PrintProblems writes the warnings, then every problem on its own line
// (`<file>: <field>: <message>`), then a one-line summary.
func PrintProblems(w io.Writer, errs *config.Errors) {
	PrintWarnings(w, errs.Warnings)
	for _, line := range errs.Lines() {
		fmt.Fprintln(w, line)
	}
	noun := "problems"
	if len(errs.Problems) == 1 {
		noun = "problem"
	}
	fmt.Fprintf(w, "Validation failed: %d %s found.\n", len(errs.Problems), noun)
}
