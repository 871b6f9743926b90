package targets

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// cliModule is the module holding the agent-gauntlet command.
const cliModule = "cli"

// mainPackage is the agent-gauntlet main package inside cliModule.
const mainPackage = "./cmd/agent-gauntlet"

// versionVar is the linker symbol that carries the version.
const versionVar = "github.com/agent-gauntlet/agent-gauntlet/cli.Version"

// Out and Err receive the targets' output; tests replace them.
var (
	Out io.Writer = os.Stdout
	Err io.Writer = os.Stderr
)

// RepoRoot returns the directory holding go.work, searching upward from the
// working directory.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("getwd: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.work found above the working directory")
		}
		dir = parent
	}
}

// Modules lists the workspace modules (directories relative to root) as
// go.work declares them: go.work is the one list of modules.
func Modules(ctx context.Context, root string) ([]string, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", "work", "edit", "-json")
	cmd.Dir = root
	cmd.Stdout = &out
	cmd.Stderr = Err
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go work edit -json: %w", err)
	}
	var work struct {
		Use []struct{ DiskPath string }
	}
	if err := json.Unmarshal(out.Bytes(), &work); err != nil {
		return nil, fmt.Errorf("parse go work edit -json: %w", err)
	}
	mods := make([]string, 0, len(work.Use))
	for _, u := range work.Use {
		mods = append(mods, filepath.Clean(strings.TrimPrefix(u.DiskPath, "./")))
	}
	if len(mods) == 0 {
		return nil, fmt.Errorf("go.work lists no modules")
	}
	return mods, nil
}

// workspace returns the repository root and its modules.
func workspace(ctx context.Context) (root string, mods []string, err error) {
	if root, err = RepoRoot(); err != nil {
		return "", nil, err
	}
	mods, err = Modules(ctx, root)
	return root, mods, err
}

// run runs a command in dir with its output on Out/Err, echoing it first.
func run(ctx context.Context, dir string, env []string, name string, args ...string) error {
	fmt.Fprintf(Out, "+ %s\n", strings.Join(append(append(append([]string{}, env...), name), args...), " "))
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout = Out
	cmd.Stderr = Err
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// output runs a command in dir and returns its trimmed stdout.
func output(ctx context.Context, dir, name string, args ...string) (string, error) {
	return outputEnv(ctx, dir, nil, name, args...)
}

// outputEnv is output with variables added to the environment.
func outputEnv(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout = &out
	cmd.Stderr = Err
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return strings.TrimSpace(out.String()), nil
}

// Version is the version stamped into the binary: `git describe` of the
// checkout, or "dev" outside git.
func Version(ctx context.Context, root string) string {
	v, err := exec.CommandContext(ctx, "git", "-C", root, "describe", "--tags", "--always", "--dirty").Output()
	if err != nil || len(bytes.TrimSpace(v)) == 0 {
		return "dev"
	}
	return string(bytes.TrimSpace(v))
}

// ldflags returns the linker flags that stamp the version.
func ldflags(ctx context.Context, root string) string {
	return "-X " + versionVar + "=" + Version(ctx, root)
}
