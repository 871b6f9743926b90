package git

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// keptIndexes lists the kept index files of a git directory.
func keptIndexes(t *testing.T, gitDir string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(gitDir, filepath.FromSlash(KeptIndexDir)))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") && !strings.HasSuffix(e.Name(), ".lock") && !strings.HasSuffix(e.Name(), treeSuffix) &&
			!strings.HasSuffix(e.Name(), seedSuffix) && !strings.HasSuffix(e.Name(), userSuffix) && !strings.HasSuffix(e.Name(), keySuffix) &&
			!strings.HasSuffix(e.Name(), LookedSuffix) && !strings.HasSuffix(e.Name(), holdSuffix) {
			out = append(out, filepath.Join(gitDir, filepath.FromSlash(KeptIndexDir), e.Name()))
		}
	}
	return out
}

// keptTree snapshots root in its kept index.
func keptTree(t *testing.T, root string, exclude ...string) string {
	t.Helper()
	s, err := NewTreeSnapshot(context.Background(), root, exclude...)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.tmp != "" {
		t.Fatal("the snapshot did not use the kept index")
	}
	return s.Tree
}

// The kept index always gives the tree a fresh copy of the user's index
// gives, whatever happened in between: edits, new, ignored and deleted
// files, staging, commits, untracking an ignored file, and same-size edits
// right after a snapshot.
func TestKeptIndexMatchesFreshSnapshots(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.write(".gitignore", "*.tmp\nlogs/\n")
	r.write("secret.tmp", "tracked although ignored\n")
	r.git("add", "-f", "secret.tmp")
	r.commitAll("base")
	steps := []struct {
		name string
		do   func()
	}{
		{"nothing", func() {}},
		{"untracked file", func() { r.write("new.txt", "new\n") }},
		{"modified file", func() { r.write("a.txt", "A\n") }},
		{"same-size edit", func() { r.write("a.txt", "B\n") }},
		{"ignored and excluded files", func() { r.write("x.tmp", "x\n"); r.write("logs/1.log", "l\n") }},
		{"staged", func() { r.git("add", "new.txt") }},
		{"committed", func() { r.commitAll("work") }},
		{"deleted", func() { r.remove("new.txt") }},
		{"untracked ignored file", func() { r.git("rm", "-q", "--cached", "secret.tmp") }},
		{"touched, unchanged", func() {
			now := time.Now()
			_ = os.Chtimes(filepath.Join(r.root, "a.txt"), now, now)
		}},
		{"nested new directory", func() { r.write("d/e/f.txt", "f\n") }},
	}
	for _, st := range steps {
		st.do()
		kept := keptTree(t, r.root, "logs")
		fresh, err := SnapshotTree(ctx, r.root, "logs")
		if err != nil {
			t.Fatal(err)
		}
		if kept != fresh {
			t.Fatalf("after %s: kept index tree %s, fresh %s\nkept:\n%s\nfresh:\n%s", st.name, kept, fresh,
				r.git("ls-tree", "-r", kept), r.git("ls-tree", "-r", fresh))
		}
		// Same-size edits in quick succession are seen (git's racy-clean
		// rule must survive the copy and the reuse of the index).
		r.write("race.txt", "1\n")
		first := keptTree(t, r.root, "logs")
		r.write("race.txt", "2\n")
		if second := keptTree(t, r.root, "logs"); second == first {
			t.Fatalf("after %s: a same-size edit right after a snapshot was missed", st.name)
		}
		r.remove("race.txt")
	}
}

// One kept index per project, kept while the user's index changes: it is
// merged again from it, never replaced.
func TestKeptIndexLifecycle(t *testing.T) {
	r := newRepo(t)
	gitDir := filepath.Join(r.root, ".git")
	r.write("a.txt", "a\n")
	r.commitAll("base")
	if got := keptIndexes(t, gitDir); len(got) != 0 {
		t.Fatalf("kept indexes before any snapshot: %v", got)
	}
	keptTree(t, r.root, "logs")
	first := keptIndexes(t, gitDir)
	if len(first) != 1 {
		t.Fatalf("kept indexes: %v", first)
	}
	seed, _ := os.ReadFile(first[0] + seedSuffix)
	r.write("b.txt", "b\n")
	keptTree(t, r.root, "logs")
	if again, _ := os.ReadFile(first[0] + seedSuffix); string(again) != string(seed) {
		t.Fatal("the user's index did not change, yet the kept index was merged again")
	}
	// Another exclude list is another project.
	keptTree(t, r.root, "other-logs")
	if got := keptIndexes(t, gitDir); len(got) != 2 {
		t.Fatalf("kept indexes of two projects: %v", got)
	}
	r.git("add", "b.txt")
	keptTree(t, r.root, "logs")
	if got := keptIndexes(t, gitDir); len(got) != 2 || !slices.Contains(got, first[0]) {
		t.Fatalf("after git add: %v (first was %v)", got, first)
	}
	if again, _ := os.ReadFile(first[0] + seedSuffix); string(again) == string(seed) {
		t.Fatal("the user's index changed, yet the kept index was not merged again")
	}
	// The user's index itself is never touched.
	if st := r.git("status", "--porcelain"); st != "A  b.txt" {
		t.Fatalf("status = %q", st)
	}
}

// A damaged kept index, or one another snapshot holds, gives the right tree
// through a temporary index; the damaged one is replaced, a stale lock
// removed.
func TestKeptIndexTrouble(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	gitDir := filepath.Join(r.root, ".git")
	r.write("a.txt", "a\n")
	r.commitAll("base")
	r.write("b.txt", "b\n")
	want, err := SnapshotTree(ctx, r.root)
	if err != nil {
		t.Fatal(err)
	}
	keptTree(t, r.root)
	index := keptIndexes(t, gitDir)[0]
	if err := os.WriteFile(index, []byte("DIRC garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := NewTreeSnapshot(ctx, r.root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Tree != want || s.tmp == "" {
		t.Fatalf("damaged kept index: tree %s (want %s), temporary %q", s.Tree, want, s.tmp)
	}
	s.Close()
	if got := keptTree(t, r.root); got != want {
		t.Fatalf("after the damage: %s, want %s", got, want)
	}

	// git's lock on the kept index: a fresh one means another snapshot is
	// at work, an old one a git that was killed.
	lock := index + ".lock"
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = NewTreeSnapshot(ctx, r.root)
	if err != nil {
		t.Fatal(err)
	}
	if s.Tree != want || s.tmp == "" {
		t.Fatalf("locked kept index: tree %s (want %s), temporary %q", s.Tree, want, s.tmp)
	}
	s.Close()
	if _, err := os.Stat(lock); err != nil {
		t.Fatalf("a fresh lock was removed: %v", err)
	}
	old := time.Now().Add(-2 * staleLock)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	if got := keptTree(t, r.root); got != want {
		t.Fatalf("after a stale lock: %s, want %s", got, want)
	}
	if _, err := os.Stat(lock); !os.IsNotExist(err) {
		t.Fatalf("the stale lock is still there: %v", err)
	}
}

// Without a user index (a repository where nothing was ever added) the
// kept index holds what the work tree holds.
func TestKeptIndexNeedsNoUserIndex(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "a\n")
	tree := keptTree(t, r.root)
	if files := r.git("ls-tree", "-r", "--name-only", tree); files != "a.txt" {
		t.Fatalf("tree files: %q", files)
	}
	if _, err := os.Stat(filepath.Join(r.root, ".git", "index")); !os.IsNotExist(err) {
		t.Fatalf("the user's index was made: %v", err)
	}
}

func TestIndexIdentity(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "index")
	if _, ok := indexIdentity(p); ok {
		t.Fatal("identity of a missing index")
	}
	write := func(content string, at time.Time) string {
		t.Helper()
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, at, at); err != nil {
			t.Fatal(err)
		}
		id, ok := indexIdentity(p)
		if !ok {
			t.Fatal("no identity")
		}
		return id
	}
	at := time.Unix(1_700_000_000, 0)
	a := write("DIRC....checksum-one-0123456789abcdef", at)
	if b := write("DIRC....checksum-one-0123456789abcdef", at); b != a {
		t.Fatal("the same file got two identities")
	}
	if b := write("DIRC....checksum-two-0123456789abcdef", at); b == a {
		t.Fatal("another checksum, the same identity")
	}
	if b := write("DIRC....checksum-one-0123456789abcdef", at.Add(time.Nanosecond)); b == a {
		t.Fatal("another time, the same identity")
	}
	if b := write("x", at); b == a {
		t.Fatal("a short file, the same identity")
	}
}

func TestTreeEntries(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.write(spaced, "s\n")
	r.write(unicode, "u\n")
	r.write("d/e.txt", "e\n")
	tree, err := SnapshotTree(ctx, r.root)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"", "a.txt", spaced, unicode, "d", "d/e.txt", "missing", "d/missing", dashed}
	got, err := TreeEntries(ctx, r.root, tree, paths)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		var want TreeEntry
		if p != "missing" && p != "d/missing" && p != dashed {
			want = TreeEntry{ID: r.git("rev-parse", tree+":"+p), Type: r.git("cat-file", "-t", tree+":"+p)}
			if p != "" {
				want.Mode, _, _ = strings.Cut(r.git("ls-tree", tree, "--", p), " ")
			}
		}
		if got[p] != want {
			t.Errorf("%q: %+v, want %+v", p, got[p], want)
		}
	}
	if got["d"].Type != "tree" || got["a.txt"].Type != "blob" {
		t.Errorf("types: d %q, a.txt %q", got["d"].Type, got["a.txt"].Type)
	}
	if _, err := TreeEntries(ctx, r.root, tree, []string{"a\nb"}); err == nil {
		t.Error("a path with a newline was asked")
	}
	if _, err := TreeEntries(ctx, r.root, "HEAD", []string{"a"}); err == nil {
		t.Error("a revision that is no object id was asked")
	}
	if m, err := TreeEntries(ctx, r.root, tree, nil); err != nil || len(m) != 0 {
		t.Errorf("no paths: %v %v", m, err)
	}
}

// TreeEntries says the mode of each entry as `git ls-tree` does:
// executable or not, a link, a directory.
func TestTreeEntriesModes(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.write(spaced, "s\n")
	r.write("d/x.sh", "x\n")
	if err := os.Chmod(filepath.Join(r.root, "d", "x.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(r.root, "d", "l")); err != nil {
		t.Fatal(err)
	}
	tree, err := SnapshotTree(ctx, r.root)
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"", "a.txt", spaced, "d", "d/x.sh", "d/l", "missing", "d/missing", "a.txt/x"}
	got, err := TreeEntries(ctx, r.root, tree, paths)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		want := ""
		if p != "" && p != "missing" && p != "d/missing" && p != "a.txt/x" {
			want, _, _ = strings.Cut(r.git("ls-tree", tree, "--", p), " ")
		}
		if got[p].Mode != want {
			t.Errorf("%q: mode %q, want %q", p, got[p].Mode, want)
		}
	}
	if got["d/x.sh"].Mode != "100755" || got["d/l"].Mode != "120000" || got["d"].Mode != "040000" || got["d/l"].Type != "blob" {
		t.Errorf("entries %v", got)
	}
}

// An index that `git add -A` left as it was has the tree noted for it: no
// write-tree. A note that does not match the index (another content, a
// damaged note) is not used.
func TestKeptIndexKnownTree(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("base")
	r.write("b.txt", "b\n")
	first := keptTree(t, r.root)
	s, err := NewTreeSnapshot(ctx, r.root)
	if err != nil {
		t.Fatal(err)
	}
	if known, _, _ := s.knownTree(); known != first || s.Tree != first {
		t.Fatalf("known tree %q, tree %q, want %s", known, s.Tree, first)
	}
	note := s.kept + treeSuffix
	if err := os.WriteFile(note, []byte("0000 "+strings.Repeat("1", 40)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := s.knownTree(); ok {
		t.Fatal("a note for another index was used")
	}
	s.Close() // it holds the kept index
	if err := os.WriteFile(note, []byte("garbage"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := keptTree(t, r.root); got != first {
		t.Fatalf("damaged note: tree %s, want %s", got, first)
	}
	r.write("b.txt", "B\n")
	if got := keptTree(t, r.root); got == first {
		t.Fatal("an edit after a noted tree was missed")
	}
	if got, want := keptTree(t, r.root), r.git("rev-parse", "HEAD^{tree}"); got == want {
		t.Fatal("snapshot equals HEAD although b.txt is new")
	}
}

func TestHashedIndex(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "index")
	for content, want := range map[string]bool{"": false, "short": false, "DIRC" + strings.Repeat("\x00", 20): false, "DIRC" + strings.Repeat("\x01", 20): true} {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := hashedIndex(p); got != want {
			t.Errorf("%q: %v, want %v", content, got, want)
		}
	}
	if hashedIndex(filepath.Join(dir, "missing")) {
		t.Error("a missing index is hashed")
	}
}

// The kept indexes of an earlier version (one per seed) are removed when
// the project's kept index is first made.
func TestKeptIndexRemovesOldSeeds(t *testing.T) {
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("base")
	kept := keptIndexPath(filepath.Join(r.root, ".git"), r.root, nil)
	if err := os.MkdirAll(filepath.Dir(kept), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{kept + "-0123456789abcdef", kept + "-0123456789abcdef" + treeSuffix} {
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keptTree(t, r.root)
	if old, _ := filepath.Glob(kept + "-*"); len(old) != 0 {
		t.Fatalf("old kept indexes left: %v", old)
	}
}

// UserIndex is the same after git rewrites its index to refresh file
// stats, and another after anything is staged.
func TestUserIndexIgnoresRefreshes(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("base")
	ids := func() (string, string) {
		t.Helper()
		s, err := NewTreeSnapshot(ctx, r.root)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		file, _ := IndexIdentity(ctx, r.root)
		return s.UserIndex(), file
	}
	first, firstFile := ids()
	if first == "" {
		t.Fatal("no identity")
	}
	then := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(r.root, "a.txt"), then, then); err != nil {
		t.Fatal(err)
	}
	r.git("update-index", "--refresh")
	again, againFile := ids()
	if againFile == firstFile {
		t.Fatal("the refresh did not rewrite the index (the test proves nothing)")
	}
	if again != first {
		t.Errorf("a refresh changed UserIndex: %s -> %s", first, again)
	}
	// A cache git keeps in the index (here the untracked cache, UNTR) is
	// not what the index stages.
	r.git("update-index", "--untracked-cache")
	r.git("-c", "core.untrackedCache=true", "status", "--porcelain")
	if cached, cachedFile := ids(); cachedFile == againFile {
		t.Error("the untracked cache did not rewrite the index (the test proves nothing)")
	} else if cached != first {
		t.Errorf("the untracked cache changed UserIndex: %s -> %s", first, cached)
	}
	r.write("b.txt", "b\n")
	r.git("add", "b.txt")
	if staged, _ := ids(); staged == first {
		t.Error("staging a file kept UserIndex")
	}
}

// A seed note an earlier version wrote (no content of the user's index)
// is no note: the kept index is merged again, never read with its
// attributes mark taken for the content.
func TestSeedNoteOfEarlierFormat(t *testing.T) {
	kept := filepath.Join(t.TempDir(), "kept")
	for _, old := range []string{"1234-5678 attributes\n", "1234-5678\n", "1234-5678 content=abcdef attributes\na b\x00"} {
		if err := os.WriteFile(kept+seedSuffix, []byte(old), 0o644); err != nil {
			t.Fatal(err)
		}
		if n, ok := readSeedNote(kept); ok {
			t.Errorf("%q read as %+v", old, n)
		}
	}
	for _, want := range []seedNote{
		{user: "1234-5678", content: "abcdef", attrs: true, hidden: []string{"a b"}},
		{user: "1234-5678", content: "abcdef", hidden: []string{"a b"}, flagged: []string{"c", "d e"}},
		{user: "1234-5678", content: "abcdef", flagged: []string{"c"}},
	} {
		if err := writeSeedNote(kept, want); err != nil {
			t.Fatal(err)
		}
		if got, ok := readSeedNote(kept); !ok || got.user != want.user || got.content != want.content || got.attrs != want.attrs ||
			!slices.Equal(got.hidden, want.hidden) || !slices.Equal(got.flagged, want.flagged) {
			t.Errorf("round trip of %+v: %+v, %v", want, got, ok)
		}
	}
}

// The tree note keeps the symbolic links of the index next to its
// gitlinks; a note written before it kept them is not used (it would say
// there are none).
func TestKeptIndexNoteKeepsLinks(t *testing.T) {
	ctx := context.Background()
	r := newRepo(t)
	r.write("a.txt", "a\n")
	r.commitAll("base")
	for _, l := range []string{"l1", "sub/l2"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(r.root, l)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("/nonexistent", filepath.Join(r.root, l)); err != nil {
			t.Fatal(err)
		}
	}
	s, err := NewTreeSnapshot(ctx, r.root)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tree, facts, ok := s.knownTree()
	if !ok || tree != s.Tree || !slices.Equal(facts.links, []string{"l1", "sub/l2"}) || len(facts.gitlinks) != 0 {
		t.Fatalf("noted: %v %s %+v", ok, tree, facts)
	}
	if s.Reach == "" {
		t.Error("dangling links outside the tree: no reach")
	}
	id, _ := indexIdentity(s.kept)
	if err := os.WriteFile(s.kept+treeSuffix, []byte(id+" "+s.Tree+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := s.knownTree(); ok {
		t.Fatal("a note without the links was used")
	}
}
