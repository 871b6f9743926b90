package trust

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/place"
)

// Modes of git tree entries this package reads.
const (
	modeFile       = "100644"
	modeExecutable = "100755"
	modeLink       = "120000"
)

// Committed is a project's configuration as a commit holds it.
type Committed struct {
	// Commit is the commit, "" when HEAD has none yet.
	Commit string
	// Files are the files of its .gauntlet/ that the loader reads (none
	// when it has no .gauntlet/config.yml).
	Files config.Files
}

// HeadFiles returns the configuration of the project at place committed
// at HEAD, never the work tree's: the files of <prefix>.gauntlet/ that the
// loader reads (config.UsedFiles) read through the symbolic links inside
// the commit (a link leading out of .gauntlet/ or nowhere reads as
// missing), and every other entry as it is (a link as its target, a file
// with its mode).
// A repository without commits has none. It runs two git processes under
// ctx.
func HeadFiles(ctx context.Context, p place.Place) (Committed, error) {
	commit, err := headCommit(ctx, p.TopLevel)
	if err != nil || commit == "" {
		return Committed{Files: config.Files{}}, err
	}
	return filesAt(ctx, p, commit)
}

// filesAt returns the configuration of the project at place that commit
// holds (see HeadFiles).
func filesAt(ctx context.Context, p place.Place, commit string) (Committed, error) {
	all, err := treeFiles(ctx, p, commit)
	if err != nil {
		return Committed{}, err
	}
	used, err := config.UsedFiles(p.Root(), all)
	if err != nil {
		return Committed{}, fmt.Errorf("read .gauntlet/ at %s: %w", commit, err)
	}
	if _, ok := used[config.Dir+"/"+config.ProjectFile]; !ok {
		// Other files without config.yml: no configuration committed.
		used = config.Files{}
	}
	return Committed{Commit: commit, Files: used}, nil
}

// HeadCommit is what a record keeps as the point it was made at: the
// commit HEAD of place's repository names, or git's empty tree
// (EmptyStart) when it names none yet, so that a record made before the
// first commit still says where the work starts: every commit is made
// after it. "" and an error when git cannot tell.
func HeadCommit(ctx context.Context, p place.Place) (string, error) {
	commit, err := headCommit(ctx, p.TopLevel)
	if err != nil {
		return "", err
	}
	if commit == "" {
		return EmptyStart, nil
	}
	return commit, nil
}

// headCommit is HEAD's commit, "" when HEAD names no commit yet.
func headCommit(ctx context.Context, top string) (string, error) {
	out, err := runGit(ctx, top, nil, maxSmallOutput, "rev-parse", "--verify", "-q", "HEAD^{commit}")
	if err != nil {
		// An unborn branch: --verify -q exits 1 and says nothing. Tell it
		// from a failing git by asking whether this is a repository at all.
		if _, derr := runGit(ctx, top, nil, maxSmallOutput, "rev-parse", "--git-dir"); derr != nil {
			return "", fmt.Errorf("read HEAD: %w", derr)
		}
		return "", nil
	}
	return strings.TrimSpace(string(out)), nil
}

// treeEntry is one file of a commit.
type treeEntry struct {
	mode, object, path string
}

// treeFiles returns every entry below <prefix>.gauntlet/ in commit
// (config.TreeEntry), keyed as config.Files are (relative to the project
// root).
func treeFiles(ctx context.Context, p place.Place, commit string) (config.Files, error) {
	dir := p.Prefix + config.Dir
	out, err := runGit(ctx, p.TopLevel, nil, maxSmallOutput, "ls-tree", "-r", "-z", "--full-tree", commit, "--", dir+"/")
	if err != nil {
		return nil, err
	}
	var entries []treeEntry
	for _, rec := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		meta, full, ok := strings.Cut(rec, "\t")
		fields := strings.Fields(meta)
		rel, inside := strings.CutPrefix(full, p.Prefix)
		if !ok || len(fields) != 3 || !inside {
			return nil, fmt.Errorf("git ls-tree: unexpected entry %q", rec)
		}
		switch fields[0] {
		case modeFile, modeExecutable, modeLink:
			entries = append(entries, treeEntry{mode: fields[0], object: fields[2], path: rel})
		}
	}
	if len(entries) > MaxFiles {
		return nil, fmt.Errorf("%s at %s holds %d files, more than %d", dir, commit, len(entries), MaxFiles)
	}
	blobs, err := readBlobs(ctx, p.TopLevel, entries)
	if err != nil {
		return nil, err
	}
	files := config.Files{}
	for i, e := range entries {
		files[e.path] = config.TreeEntry(e.mode == modeExecutable, e.mode == modeLink, blobs[i])
	}
	return files, files.Check()
}

// readBlobs reads the objects of entries with one `git cat-file --batch`,
// in order, at most MaxRecordBytes in all.
func readBlobs(ctx context.Context, top string, entries []treeEntry) ([][]byte, error) {
	if len(entries) == 0 {
		return nil, nil
	}
	var in bytes.Buffer
	for _, e := range entries {
		in.WriteString(e.object + "\n")
	}
	out, err := runGit(ctx, top, &in, MaxRecordBytes+len(entries)*128, "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	r := bufio.NewReader(bytes.NewReader(out))
	blobs := make([][]byte, len(entries))
	for i, e := range entries {
		header, err := r.ReadString('\n')
		if err != nil {
			return nil, fmt.Errorf("git cat-file: %w", err)
		}
		fields := strings.Fields(header)
		if len(fields) != 3 || fields[0] != e.object || fields[1] != "blob" {
			return nil, fmt.Errorf("git cat-file: unexpected answer %q for %s", strings.TrimSpace(header), e.path)
		}
		size, err := strconv.Atoi(fields[2])
		if err != nil || size < 0 {
			return nil, fmt.Errorf("git cat-file: unexpected size in %q", strings.TrimSpace(header))
		}
		blobs[i] = make([]byte, size)
		if _, err := io.ReadFull(r, blobs[i]); err != nil {
			return nil, fmt.Errorf("git cat-file: %s: %w", e.path, err)
		}
		if _, err := r.Discard(1); err != nil {
			return nil, fmt.Errorf("git cat-file: %s: %w", e.path, err)
		}
	}
	return blobs, nil
}
