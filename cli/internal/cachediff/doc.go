// Package cachediff holds the differential test of the result cache: rapid
// sequences drive the real binary in real git repositories through random
// edits of what a gate can see (file contents, line endings with and
// without `text=auto`, modes with and without core.fileMode, links with and
// without core.symlinks, a repository of its own inside the work tree,
// attributes in .gitattributes and .git/info/attributes, a clean filter,
// index flags, renames, deletions, commits, files put back as the base
// branch has them, ignored files), over every entry point kind (the
// project root, a directory, a wildcard) and every `cache:` setting.
//
// After every edit the same state is run twice: `run` in the sandbox and
// `run --no-cache` in a copy of it. Each gate's verdict must be the same
// in both (a cached verdict is never another than the gate gives on the
// bytes on disk); and a gate whose input did not change since it was last
// proven (what it can see, as the test reads the disk itself) must be taken
// from the cache. The hit rate is printed.
//
// A failing sequence shrinks to its minimal form, which is saved (with
// $CACHEDIFF_SAVE_DIR, as `go tool mage soak` sets it) into testdata/regress/
// and replayed on every run. `go tool mage test` runs a few sequences,
// `go tool mage soak` many more.
//
// The package has no code besides its tests.
package cachediff
