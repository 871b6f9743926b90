package ciwork

import (
	"strings"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

// InstallPackage is the package `go install` builds the agent-gauntlet
// binary from.
const InstallPackage = "github.com/agent-gauntlet/agent-gauntlet/cli/cmd/agent-gauntlet"

// LatestVersion is what a development build installs: the newest release.
const LatestVersion = "latest"

// InstallVersion returns the version the workflow installs with `go
// install`: the first of candidates (the binary's -ldflags version, then
// its module version from the build info) that is a release (v1.2.3 or
// v1.2.3-rc.1; a leading v may be missing), so CI runs the version that
// wrote the workflow. A development build (dev, (devel), a pseudo-version,
// a +dirty or other +build version) has no release to pin: it gives
// LatestVersion and release false, never a development branch.
func InstallVersion(candidates ...string) (version string, release bool) {
	for _, c := range candidates {
		v := strings.TrimSpace(c)
		if v != "" && !strings.HasPrefix(v, "v") {
			v = "v" + v
		}
		if semver.IsValid(v) && semver.Build(v) == "" && !module.IsPseudoVersion(v) && semver.Canonical(v) == v {
			return v, true
		}
	}
	return LatestVersion, false
}
