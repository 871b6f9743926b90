package targets

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/magefiles/internal/npmpkg"
	"golang.org/x/mod/semver"
)

// toolsModule is the module that pins GoReleaser as a Go tool; it is not in
// go.work (see tools/doc.go).
const toolsModule = "tools"

// distDir is where GoReleaser writes the archives, relative to the root
// (git-ignored).
const distDir = "dist"

// npmDir is where Dist writes the npm tarballs, relative to the root.
const npmDir = distDir + "/npm"

// snapshotVersionEnv passes the snapshot version to .goreleaser.yaml.
const snapshotVersionEnv = "GAUNTLET_SNAPSHOT_VERSION"

// Dist builds the release archives with GoReleaser in snapshot mode
// (dist/: an archive per platform, checksums.txt) and the npm tarballs
// from the same binaries (dist/npm/). Nothing is published.
func Dist(ctx context.Context) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	_, err = BuildDist(ctx, root)
	return err
}

// DistResult is what BuildDist produced.
type DistResult struct {
	// Version is the snapshot version (semver, no leading v).
	Version string
	// Tarballs are the npm tarballs, the platform packages first and the
	// main package last.
	Tarballs []string
}

// BuildDist runs GoReleaser in snapshot mode at root, then writes and packs
// the npm packages (PackNpm).
func BuildDist(ctx context.Context, root string) (DistResult, error) {
	version, tag, err := snapshotVersion(ctx, root)
	if err != nil {
		return DistResult{}, err
	}
	goreleaser, err := goTool(ctx, root, "goreleaser")
	if err != nil {
		return DistResult{}, err
	}
	env := []string{"GORELEASER_CURRENT_TAG=" + tag, snapshotVersionEnv + "=" + version}
	if err := run(ctx, root, env, goreleaser, "release", "--snapshot", "--clean"); err != nil {
		return DistResult{}, err
	}
	return PackNpm(ctx, root)
}

// NpmPack writes the npm tarballs (dist/npm/) from the binaries GoReleaser left in dist/, at the version it recorded: after dist, or after a real release (RELEASING.md).
func NpmPack(ctx context.Context) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	res, err := PackNpm(ctx, root)
	if err != nil {
		return err
	}
	fmt.Fprintf(Out, "publish in this order, the platform packages first:\n")
	for _, tb := range res.Tarballs {
		fmt.Fprintf(Out, "  npm publish %s\n", tb)
	}
	return nil
}

// PackNpm writes and packs the npm packages (npmpkg) from the binaries
// listed in dist/artifacts.json, at the version dist/metadata.json names.
func PackNpm(ctx context.Context, root string) (DistResult, error) {
	version, bins, err := distBinaries(root)
	if err != nil {
		return DistResult{}, err
	}
	out := filepath.Join(root, filepath.FromSlash(npmDir))
	if err := os.RemoveAll(out); err != nil {
		return DistResult{}, err
	}
	dirs, err := npmpkg.Write(filepath.Join(out, "packages"), version, bins)
	if err != nil {
		return DistResult{}, err
	}
	tarballs, err := npmpkg.Pack(ctx, dirs, out, Out)
	if err != nil {
		return DistResult{}, err
	}
	fmt.Fprintf(Out, "\n%s %s: archives and checksums.txt in %s/, npm tarballs in %s/\n", npmpkg.Name, version, distDir, npmDir)
	return DistResult{Version: version, Tarballs: tarballs}, nil
}

// goTool returns the path of a tool of the tools module, building it if
// needed (`go tool -n` builds it into the build cache and prints its path).
func goTool(ctx context.Context, root, name string) (string, error) {
	fmt.Fprintf(Out, "+ (cd %s && GOWORK=off go tool -n %s)\n", toolsModule, name)
	return outputEnv(ctx, filepath.Join(root, toolsModule), []string{"GOWORK=off"}, "go", "tool", "-n", name)
}

// snapshotVersion returns the version of a snapshot of the checkout: the
// next patch version after the last release tag (vX.Y.Z; v0.0.0 when there
// is none), a pre-release naming the commit, and ".dirty" for a working
// tree with changes, e.g. 0.3.1-snapshot.g1a2b3c4; and that release tag,
// for GoReleaser.
func snapshotVersion(ctx context.Context, root string) (version, tag string, err error) {
	tags, err := output(ctx, root, "git", "tag", "--list", "--merged", "HEAD", "v[0-9]*")
	if err != nil {
		return "", "", err
	}
	tag = lastRelease(strings.Fields(tags))
	commit, err := output(ctx, root, "git", "rev-parse", "--short=7", "HEAD")
	if err != nil {
		return "", "", err
	}
	status, err := output(ctx, root, "git", "status", "--porcelain")
	if err != nil {
		return "", "", err
	}
	version = nextPatch(tag) + "-snapshot.g" + commit
	if status != "" {
		version += ".dirty"
	}
	return version, tag, nil
}

// lastRelease returns the highest release tag (vX.Y.Z, pre-releases
// included) among tags, or v0.0.0.
func lastRelease(tags []string) string {
	last := "v0.0.0"
	for _, t := range tags {
		if semver.IsValid(t) && semver.Compare(t, last) > 0 {
			last = t
		}
	}
	return last
}

// nextPatch returns X.Y.(Z+1) for the tag vX.Y.Z (any pre-release or
// build suffix dropped).
func nextPatch(tag string) string {
	core := strings.TrimPrefix(semver.Canonical(tag), "v")
	core, _, _ = strings.Cut(core, "-")
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return "0.0.1"
	}
	patch, err := strconv.Atoi(parts[2])
	if err != nil {
		return "0.0.1"
	}
	return fmt.Sprintf("%s.%s.%d", parts[0], parts[1], patch+1)
}

// distBinaries reads the version GoReleaser built (dist/metadata.json) and
// its binaries (dist/artifacts.json).
func distBinaries(root string) (string, []npmpkg.Binary, error) {
	var meta struct {
		Version string `json:"version"`
	}
	if err := readJSON(filepath.Join(root, distDir, "metadata.json"), &meta); err != nil {
		return "", nil, err
	}
	if meta.Version == "" {
		return "", nil, fmt.Errorf("%s/metadata.json names no version", distDir)
	}
	var artifacts []struct {
		Type   string `json:"type"`
		Path   string `json:"path"`
		GOOS   string `json:"goos"`
		GOARCH string `json:"goarch"`
	}
	if err := readJSON(filepath.Join(root, distDir, "artifacts.json"), &artifacts); err != nil {
		return "", nil, err
	}
	var bins []npmpkg.Binary
	for _, a := range artifacts {
		if a.Type != "Binary" {
			continue
		}
		p := a.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, filepath.FromSlash(p))
		}
		bins = append(bins, npmpkg.Binary{Platform: npmpkg.Platform{GOOS: a.GOOS, GOARCH: a.GOARCH}, Path: p})
	}
	if len(bins) == 0 {
		return "", nil, fmt.Errorf("%s/artifacts.json lists no binary", distDir)
	}
	return meta.Version, bins, nil
}

// readJSON decodes the JSON file at path into v.
func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("parse %s: %w", path, err)
	}
	return nil
}
