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
// Links are drawn inside each entry point (and outside every one) to files,
// directories, links and missing paths elsewhere in the work tree, and out
// of the repository to files, a directory, a device and a link that may
// lead back in; the files they reach are edited. A check reads through
// the links of the root, of src and of each lib/* entry point.
//
// The invariant, for every `cache:` setting: a gate's key covers the bytes
// and modes on disk of everything the gate can see through its scope, what
// the links in it lead to included, so that a change to anything it can
// see changes the key; when that cannot be guaranteed the gate is not
// cached. And when nothing it can see changed, it is taken from the cache.
//
// After every edit the same state is run twice: `run` in the sandbox and
// `run --no-cache` in a copy of it. Each gate's verdict must be the same
// in both (a cached verdict is never another than the gate gives on the
// bytes on disk); and a gate whose input did not change since it was last
// proven must be taken from the cache. Its input is what it can see, as
// the test reads the disk itself: the whole repository for `cache: true`,
// its entry point's directory for `cache: entry_point`, with where each
// link there leads and what is there when that is outside it. The hit
// rate is printed.
//
// A failing sequence shrinks to its minimal form, which is saved (with
// $CACHEDIFF_SAVE_DIR, as `go tool mage soak` sets it) into testdata/regress/
// and replayed on every run. `go tool mage test` runs a few sequences,
// `go tool mage soak` many more.
//
// The package has no code besides its tests.
package cachediff
