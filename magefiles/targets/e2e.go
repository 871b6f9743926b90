package targets

import (
	"context"
	"os"
)

// e2eRunEnv selects end-to-end scenarios (a `go test -run` pattern below TestE2E).
const e2eRunEnv = "GAUNTLET_E2E_RUN"

// E2E runs the real Claude Code, Codex, Gemini CLI, Copilot CLI, Qwen Code and
// Factory Droid clients (from npm) through the stop hook against loopback
// model stand-ins. The CLIs (and, where the machine's node is older than
// Qwen Code needs, a node from npm) are installed into .e2e-cache/ and the
// scenarios are those of testdata/e2e.
func E2E(ctx context.Context) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	return runE2E(ctx, root, os.Getenv(e2eRunEnv))
}
