package targets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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
//
// Factory Droid's wrapper (@factory/cli) pins a binary package version that
// the registry does not serve for every release, so the binary package is
// installed by name too (the one for linux x64, where CI runs).
var E2EClients = []NpmPackage{
	{Name: "@anthropic-ai/claude-code", Version: "2.1.328"},
	{Name: "@openai/codex", Version: "0.169.0"},
	{Name: "@google/gemini-cli", Version: "0.61.0"},
	{Name: "@github/copilot", Version: "1.0.102"},
	{Name: "@qwen-code/qwen-code", Version: "0.24.4"},
	{Name: "@factory/cli", Version: "0.225.1"},
	{Name: "@factory/cli-linux-x64", Version: "0.225.2"},
}

// E2ENode is the Node.js that runs the clients needing a newer one than
// the machine's (Qwen Code needs 22): the npm package "node" ships the
// binary. It is installed into E2ENodeDir only when the machine's node is
// older than its major version; the machine's node is never changed.
var E2ENode = NpmPackage{Name: "node", Version: "22.23.3"}

// E2ENodeDir is the npm prefix of E2ENode, relative to the repository root.
const E2ENodeDir = ".e2e-cache/node22"

// e2eNodeBinEnv tells the end-to-end tests which directory holds a node of
// E2ENode's major version ("" when the machine's is recent enough).
const e2eNodeBinEnv = "GAUNTLET_E2E_NODE_BIN"

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
	return installNpm(ctx, root, E2ECacheDir, E2EClients)
}

// installNpm installs pkgs into the npm prefix root/dir, unless it already
// holds them at their pinned versions, and returns the absolute prefix.
func installNpm(ctx context.Context, root, dir string, pkgs []NpmPackage) (string, error) {
	prefix := filepath.Join(root, filepath.FromSlash(dir))
	missing, err := MissingNpmPackages(prefix, pkgs)
	if err != nil {
		return "", err
	}
	if len(missing) == 0 {
		specs := make([]string, len(pkgs))
		for i, p := range pkgs {
			specs[i] = p.Spec()
		}
		fmt.Fprintf(Out, "already installed in %s: %s\n", prefix, strings.Join(specs, " "))
		return prefix, nil
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		return "", fmt.Errorf("create %s: %w", prefix, err)
	}
	ctx, cancel := context.WithTimeout(ctx, npmInstallTimeout)
	defer cancel()
	args := []string{"install", "--prefix", prefix, "--save-exact", "--no-audit", "--no-fund"}
	for _, p := range pkgs {
		args = append(args, p.Spec())
	}
	if err := run(ctx, root, nil, "npm", args...); err != nil {
		return "", fmt.Errorf("install %s: %w", pkgs[0].Spec(), err)
	}
	if missing, err := MissingNpmPackages(prefix, pkgs); err != nil {
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
	nodeBin, err := installE2ENode(ctx, root)
	if err != nil {
		return err
	}
	selector := "^TestE2E$"
	if pattern != "" {
		selector += "/" + pattern
	}
	env := []string{e2eNodePrefixEnv + "=" + prefix, e2eNodeBinEnv + "=" + nodeBin}
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

// installE2ENode returns the directory of a node of E2ENode's major
// version: "" when the machine's node is one (or newer), else E2ENode's,
// installed into E2ENodeDir first.
func installE2ENode(ctx context.Context, root string) (string, error) {
	have, err := output(ctx, root, "node", "--version")
	if err != nil {
		return "", fmt.Errorf("node --version: %w", err)
	}
	if nodeMajor(have) >= nodeMajor(E2ENode.Version) {
		return "", nil
	}
	fmt.Fprintf(Out, "node %s is older than %s: using %s from npm for the clients that need it\n", have, E2ENode.Version, E2ENode.Spec())
	prefix, err := installNpm(ctx, root, E2ENodeDir, []NpmPackage{E2ENode})
	if err != nil {
		return "", err
	}
	return filepath.Join(prefix, "node_modules", ".bin"), nil
}

// nodeMajor is the major version of a node version ("v20.1.0", "22.23.3"),
// 0 when it has none.
func nodeMajor(v string) int {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	major, _, _ := strings.Cut(v, ".")
	n, err := strconv.Atoi(major)
	if err != nil {
		return 0
	}
	return n
}
