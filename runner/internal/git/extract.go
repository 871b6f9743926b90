package git

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxExtract bounds what ExtractDir writes: a configuration directory is
// a few kilobytes.
const maxExtract = 16 << 20

// ExtractDir writes the regular files of directory dir (relative to root)
// as commit rev holds them into dest, at the same relative paths, without
// touching the work tree, the index or any ref: `git ls-tree` lists them
// and one `git cat-file --batch` reads them. Symbolic links and submodules
// are left out. found is false when rev is no commit or holds no dir.
func ExtractDir(ctx context.Context, root, rev, dir, dest string) (found bool, err error) {
	if err := checkRef("revision", rev); err != nil {
		return false, err
	}
	sha, err := ResolveCommit(ctx, root, rev)
	if err != nil || sha == "" {
		return false, err
	}
	out, err := output(ctx, root, "ls-tree", "-r", "-z", sha, "--", dir)
	if err != nil {
		return false, err
	}
	var paths, revs []string
	for _, entry := range splitZ(out) {
		meta, path, ok := strings.Cut(entry, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || fields[1] != "blob" || (fields[0] != "100644" && fields[0] != "100755") {
			continue
		}
		paths = append(paths, path)
		revs = append(revs, fields[2])
	}
	if len(paths) == 0 {
		return false, nil
	}
	objs, err := Objects(ctx, root, revs...)
	if err != nil {
		return false, err
	}
	total := 0
	for i, o := range objs {
		total += len(o.Content)
		if total > maxExtract {
			return false, fmt.Errorf("extract %s of %s: more than %d bytes", dir, rev, maxExtract)
		}
		rel := filepath.FromSlash(paths[i])
		if !filepath.IsLocal(rel) {
			continue // never outside dest
		}
		p := filepath.Join(dest, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return false, fmt.Errorf("extract %s: %w", paths[i], err)
		}
		if err := os.WriteFile(p, bytes.Clone(o.Content), 0o644); err != nil {
			return false, fmt.Errorf("extract %s: %w", paths[i], err)
		}
	}
	return true, nil
}
