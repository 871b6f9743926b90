package targets

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

// lintTags are the build tag sets go vet and staticcheck check every module
// with: none, the end-to-end tests, the install tests, and the tagged
// magefile.
var lintTags = []string{"", "e2e", "installtest", "mage"}

// crossOS are the systems the release archives are built for: every module
// must build there, and go vet (tests included) must pass there with each
// of lintTags.
var crossOS = []string{"linux", "darwin", "windows"}

// Lint checks gofmt, go vet, staticcheck, a build and a go vet of every
// module for each release OS, and that go.mod, go.sum and go.work are tidy
// without replace directives (see modProblems). go vet and staticcheck also
// run with the e2e, installtest and mage build tags; staticcheck is a tool
// of magefiles/go.mod.
func Lint(ctx context.Context) error {
	root, mods, err := workspace(ctx)
	if err != nil {
		return err
	}
	var problems []string
	unformatted, err := output(ctx, root, "gofmt", append(append([]string{"-l"}, mods...), toolsModule)...)
	if err != nil {
		return err
	}
	if unformatted != "" {
		problems = append(problems, "not gofmt-formatted:\n"+unformatted)
	}
	for _, m := range mods {
		problems = append(problems, checkProblems(ctx, root, m)...)
		problems = append(problems, crossProblems(ctx, root, m)...)
	}
	problems = append(problems, modProblems(ctx, root)...)
	if len(problems) > 0 {
		return fmt.Errorf("lint:\n%s", strings.Join(problems, "\n"))
	}
	return nil
}

// checkProblems runs go vet and staticcheck on module m with each of
// lintTags, for this system.
func checkProblems(ctx context.Context, root, m string) []string {
	var problems []string
	for _, tags := range lintTags {
		for _, tool := range [][]string{{"vet"}, {"tool", "staticcheck"}} {
			args := withTags(tool, tags)
			if err := run(ctx, filepath.Join(root, m), nil, "go", args...); err != nil {
				problems = append(problems, fmt.Sprintf("go %s failed in %s", strings.Join(args, " "), m))
			}
		}
	}
	return problems
}

// crossProblems builds module m for each of crossOS and, for each one but
// this system (which checkProblems covers), runs go vet with each of
// lintTags: platform-specific code and tests must type-check everywhere a
// release runs.
func crossProblems(ctx context.Context, root, m string) []string {
	var problems []string
	dir := filepath.Join(root, m)
	for _, goos := range crossOS {
		env := []string{"GOOS=" + goos, "GOARCH=amd64"}
		if err := run(ctx, dir, env, "go", "build", "./..."); err != nil {
			problems = append(problems, fmt.Sprintf("%s does not build for %s", m, goos))
		}
		if goos == runtime.GOOS {
			continue
		}
		for _, tags := range lintTags {
			args := withTags([]string{"vet"}, tags)
			if err := run(ctx, dir, env, "go", args...); err != nil {
				problems = append(problems, fmt.Sprintf("go %s failed in %s for %s", strings.Join(args, " "), m, goos))
			}
		}
	}
	return problems
}

// withTags is the go command tool followed by -tags tags (when tags is not
// empty) and ./...
func withTags(tool []string, tags string) []string {
	args := append([]string{}, tool...)
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	return append(args, "./...")
}

// lineDiff returns the lines of want missing from have ("+") and the lines
// of have missing from want ("-"), indented, for a tidy report.
func lineDiff(have, want []byte) string {
	in := func(b []byte) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(string(b), "\n") {
			m[l] = true
		}
		return m
	}
	h, w := in(have), in(want)
	var b bytes.Buffer
	for _, l := range strings.Split(string(have), "\n") {
		if !w[l] {
			fmt.Fprintf(&b, "\t-%s\n", l)
		}
	}
	for _, l := range strings.Split(string(want), "\n") {
		if !h[l] {
			fmt.Fprintf(&b, "\t+%s\n", l)
		}
	}
	return b.String()
}
