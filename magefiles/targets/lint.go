package targets

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
)

// Lint checks formatting (gofmt), go vet (also with the e2e tag) and that
// every go.mod is tidy.
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
		if err := run(ctx, dir, nil, "go", "vet", "./..."); err != nil {
			problems = append(problems, "go vet failed in "+m)
		}
		if err := run(ctx, dir, nil, "go", "vet", "-tags", "e2e", "./..."); err != nil {
			problems = append(problems, "go vet -tags e2e failed in "+m)
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
