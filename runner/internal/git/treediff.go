package git

import (
	"context"
	"slices"
)

// TreePaths lists the paths (relative to the top level of the work tree
// of root, sorted) that differ between the trees or commits from and to.
func TreePaths(ctx context.Context, root, from, to string) ([]string, error) {
	changes, err := rawDiff(ctx, root, from, to)
	if err != nil {
		return nil, err
	}
	out := make([]string, 0, len(changes))
	for _, c := range changes {
		out = append(out, c.path)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}
