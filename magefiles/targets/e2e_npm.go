package targets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// NpmPackage is one npm package at an exact version.
type NpmPackage struct {
	Name    string
	Version string
}

// Spec returns the package as npm install takes it: name@version.
func (p NpmPackage) Spec() string { return p.Name + "@" + p.Version }

// E2EClients are the real agent CLIs that the end-to-end tests drive, pinned
// to the versions verified offline against the cli/internal/modelstub
// stand-ins (see the comments at the top of testdata/e2e/*.txtar).
var E2EClients = []NpmPackage{
	{Name: "@anthropic-ai/claude-code", Version: "2.1.328"},
	{Name: "@openai/codex", Version: "0.169.0"},
	{Name: "@google/gemini-cli", Version: "0.61.0"},
}

// E2ECacheDir is the npm prefix of the agent CLIs, relative to the
// repository root (git-ignored).
const E2ECacheDir = ".e2e-cache/node"

// e2eNodePrefixEnv tells the end-to-end tests where the agent CLIs are.
const e2eNodePrefixEnv = "GAUNTLET_E2E_NODE_PREFIX"

// Time limits of the end-to-end target.
const (
	npmInstallTimeout = 15 * time.Minute
	e2eTestTimeout    = "20m"
)

// MissingNpmPackages returns the packages of want that are not installed at
// their exact version under the npm prefix.
func MissingNpmPackages(prefix string, want []NpmPackage) ([]NpmPackage, error) {
	var missing []NpmPackage
	for _, p := range want {
		v, err := installedNpmVersion(prefix, p.Name)
		if err != nil {
			return nil, err
		}
		if v != p.Version {
			missing = append(missing, p)
		}
	}
	return missing, nil
}

// installedNpmVersion returns the version of an installed package ("" when
// it is not installed).
func installedNpmVersion(prefix, name string) (string, error) {
	path := filepath.Join(prefix, "node_modules", filepath.FromSlash(name), "package.json")
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, err)
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		return "", fmt.Errorf("parse %s: %w", path, err)
	}
	return pkg.Version, nil
}

// InstallE2EClients installs E2EClients into root/E2ECacheDir with npm,
// unless that prefix already holds them at their pinned versions, and
// returns the absolute prefix.
func InstallE2EClients(ctx context.Context, root string) (string, error) {
	prefix := filepath.Join(root, filepath.FromSlash(E2ECacheDir))
	missing, err := MissingNpmPackages(prefix, E2EClients)
	if err != nil {
		return "", err
	}
	if len(missing) == 0 {
		fmt.Fprintf(Out, "agent CLIs already installed in %s\n", prefix)
		return prefix, nil
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", prefix, err)
	}
	ctx, cancel := context.WithTimeout(ctx, npmInstallTimeout)
	defer cancel()
	args := []string{"install", "--prefix", prefix, "--save-exact", "--no-audit", "--no-fund"}
	for _, p := range E2EClients {
		args = append(args, p.Spec())
	}
	if err := run(ctx, root, nil, "npm", args...); err != nil {
		return "", fmt.Errorf("install the agent CLIs: %w", err)
	}
	if missing, err := MissingNpmPackages(prefix, E2EClients); err != nil {
		return "", err
	} else if len(missing) > 0 {
		return "", fmt.Errorf("npm install left %s without %s", prefix, missing[0].Spec())
	}
	return prefix, nil
}

// runE2E installs the agent CLIs (see InstallE2EClients) and runs the
// end-to-end scenarios of testdata/e2e against them; pattern selects
// scenarios as `go test -run` does below TestE2E ("" runs all).
func runE2E(ctx context.Context, root, pattern string) error {
	prefix, err := InstallE2EClients(ctx, root)
	if err != nil {
		return err
	}
	if err := installDebianTools(ctx, root); err != nil {
		return err
	}
	selector := "^TestE2E$"
	if pattern != "" {
		selector += "/" + pattern
	}
	env := []string{e2eNodePrefixEnv + "=" + prefix}
	return run(ctx, root, env, "go", "-C", cliModule, "test", "-tags", "e2e",
		"-run", selector, "-count=1", "-timeout", e2eTestTimeout, "./e2e/")
}

// debianTools are the Debian packages the end-to-end scenarios run for
// real (the baseline scenarios' pytest), each with the command that proves
// it is there.
var debianTools = []struct{ pkg, probe string }{
	{"python3-pytest", "pytest --version"},
}

// installDebianTools installs with apt-get the debianTools that are
// missing (CI runs as root on Debian; a machine without apt-get fails
// here, saying what it needs, rather than skipping a scenario).
func installDebianTools(ctx context.Context, root string) error {
	var missing []string
	for _, t := range debianTools {
		if run(ctx, root, nil, "sh", "-c", t.probe+" >/dev/null 2>&1") != nil {
			missing = append(missing, t.pkg)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	if err := run(ctx, root, nil, "apt-get", "update", "-qq"); err != nil {
		return fmt.Errorf("the end-to-end scenarios need %s: apt-get update: %w", strings.Join(missing, ", "), err)
	}
	args := append([]string{"install", "-y", "-qq"}, missing...)
	if err := run(ctx, root, []string{"DEBIAN_FRONTEND=noninteractive"}, "apt-get", args...); err != nil {
		return fmt.Errorf("the end-to-end scenarios need %s: %w", strings.Join(missing, ", "), err)
	}
	return nil
}
