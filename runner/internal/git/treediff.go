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

// TreePathsAdded is TreePaths, with added: those of the paths (sorted)
// that to holds and from does not.
func TreePathsAdded(ctx context.Context, root, from, to string) (paths, added []string, err error) {
	changes, err := rawDiff(ctx, root, from, to)
	if err != nil {
		return nil, nil, err
	}
	for _, c := range changes {
		paths = append(paths, c.path)
		if c.status == 'A' {
			added = append(added, c.path)
		}
	}
	slices.Sort(paths)
	slices.Sort(added)
	return slices.Compact(paths), slices.Compact(added), nil
}
