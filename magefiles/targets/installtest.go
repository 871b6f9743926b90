package targets

import (
	"context"
	"path/filepath"
	"strings"
)

// installTestTag is the build tag of the install tests.
const installTestTag = "installtest"

// DistTarballsEnv tells the npm install test where the tarballs of
// BuildDist are (space-separated paths, the main package's last).
const DistTarballsEnv = "GAUNTLET_NPM_TARBALLS"

// DistVersionEnv tells the npm install test the version BuildDist built.
const DistVersionEnv = "GAUNTLET_DIST_VERSION"

// installTestTimeout bounds the install tests.
const installTestTimeout = "15m"

// InstallTest builds dist/ (BuildDist), then runs the install tests of the
// magefiles module (build tag installtest): `go install` from a file-based
// module proxy of the working tree, a release cut in a copy of the
// repository and installed from its tags, and the npm tarballs installed
// offline with npm into an empty directory.
func InstallTest(ctx context.Context) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	dist, err := BuildDist(ctx, root)
	if err != nil {
		return err
	}
	env := []string{
		DistTarballsEnv + "=" + strings.Join(dist.Tarballs, " "),
		DistVersionEnv + "=" + dist.Version,
	}
	return run(ctx, filepath.Join(root, "magefiles"), env, "go", "test", "-tags", installTestTag,
		"-run", "^TestInstall", "-count=1", "-timeout", installTestTimeout, "./...")
}
