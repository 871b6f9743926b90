package targets

import (
	"context"
	"os"
)

// e2eRunEnv selects end-to-end scenarios (a `go test -run` pattern below TestE2E).
const e2eRunEnv = "GAUNTLET_E2E_RUN"

// E2E installs the real agent CLIs from npm (cached in .e2e-cache/) and runs
// the end-to-end scenarios of testdata/e2e against loopback model stand-ins.
func E2E(ctx context.Context) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	return RunE2E(ctx, root, os.Getenv(e2eRunEnv))
}
