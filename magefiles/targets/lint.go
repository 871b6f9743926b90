package targets

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// lintTags are the build tag sets go vet and staticcheck check every module
// with: none, the end-to-end tests, and the tagged magefile.
var lintTags = []string{"", "e2e", "mage"}

// Lint checks gofmt, go vet, staticcheck and go mod tidy in every module.
// go vet and staticcheck also run with the e2e and mage build tags;
// staticcheck is a tool of magefiles/go.mod.
func Lint(ctx context.Context) error {
	root, mods, err := workspace(ctx)
	if err != nil {
		return err
	}
	var problems []string
	unformatted, err := output(ctx, root, "gofmt", append([]string{"-l"}, mods...)...)
	if err != nil {
		return err
	}
	if unformatted != "" {
		problems = append(problems, "not gofmt-formatted:\n"+unformatted)
	}
	for _, m := range mods {
		dir := filepath.Join(root, m)
		for _, tags := range lintTags {
			for _, tool := range [][]string{{"vet"}, {"tool", "staticcheck"}} {
				args := append([]string{}, tool...)
				if tags != "" {
					args = append(args, "-tags", tags)
				}
				args = append(args, "./...")
				if err := run(ctx, dir, nil, "go", args...); err != nil {
					problems = append(problems, fmt.Sprintf("go %s failed in %s", strings.Join(args, " "), m))
				}
			}
		}
		if err := run(ctx, dir, []string{"GOWORK=off", "GOFLAGS=-mod=mod"}, "go", "mod", "tidy", "-diff"); err != nil {
			problems = append(problems, "go.mod not tidy in "+m+" (run: cd "+m+" && GOWORK=off go mod tidy)")
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("lint:\n%s", strings.Join(problems, "\n"))
	}
	return nil
}
