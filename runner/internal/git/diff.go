package git

import (
	"bytes"
	"context"
	"fmt"
	"strconv"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
)

// MaxDiffBytes bounds the text Diff returns; a longer diff is cut there and
// ends with TruncatedNote.
const MaxDiffBytes = 16 << 20

// TruncatedNote ends a diff that was cut at MaxDiffBytes.
const TruncatedNote = "\n[agent-gauntlet: diff truncated]\n"

// EffectiveMode is spec.Mode, or when empty the first mode whose field is
// set, in the review precedence fixBase → commit → CI (Head set) → local.
// The runner always sets Mode, so explicit --commit/--uncommitted win over a
// previous run's snapshot.
func EffectiveMode(spec gate.DiffSpec) gate.DiffMode {
	switch {
	case spec.Mode != "":
		return spec.Mode
	case spec.FixBase != "":
		return gate.DiffFixBase
	case spec.Commit != "":
		return gate.DiffCommit
	case spec.Head != "":
		return gate.DiffCI
	}
	return gate.DiffLocal
}

// workTree returns spec.WorkTree or a fresh snapshot tree.
func workTree(ctx context.Context, root string, spec gate.DiffSpec) (string, error) {
	if spec.WorkTree != "" {
		return spec.WorkTree, nil
	}
	return SnapshotTree(ctx, root)
}

// Range returns the two revisions (commits or trees) a diff of spec
// compares, and the base_ref label of the debug log. Work-tree sides are
// snapshot trees, so untracked files show as new files and deletions as
// deletions; the other side is then the checkout view of its commit (see
// checkoutView), so that a file git converts on checkout shows only what
// changed on disk.
func Range(ctx context.Context, root string, spec gate.DiffSpec) (from, to, label string, err error) {
	switch EffectiveMode(spec) {
	case gate.DiffFixBase:
		if err := checkRef("snapshot", spec.FixBase); err != nil {
			return "", "", "", err
		}
		to, err := workTree(ctx, root, spec)
		if err != nil {
			return "", "", "", err
		}
		literal, err := isSnapshotCommit(ctx, root, spec.FixBase)
		if err != nil || literal {
			return spec.FixBase, to, spec.FixBase, err
		}
		from, err := viewOf(ctx, root, spec.FixBase, to)
		return from, to, spec.FixBase, err
	case gate.DiffUncommitted:
		head, err := Head(ctx, root)
		if err != nil {
			return "", "", "", err
		}
		if head == "" {
			head = emptyTree
		}
		to, err := workTree(ctx, root, spec)
		if err != nil {
			return "", "", "", err
		}
		from, err := viewOf(ctx, root, head, to)
		return from, to, "uncommitted", err
	case gate.DiffCommit:
		return commitRange(ctx, root, spec.Commit)
	case gate.DiffCI:
		from, to, label, _, err := ciRange(ctx, root, spec)
		return from, to, label, err
	case gate.DiffLocal:
		head, err := Head(ctx, root)
		if err != nil {
			return "", "", "", err
		}
		from, label := emptyTree, "root"
		if head != "" {
			base, err := ResolveBase(ctx, root, spec.BaseBranch)
			if err != nil {
				return "", "", "", err
			}
			mb, err := line(ctx, root, "merge-base", base, head)
			if err != nil {
				return "", "", "", fmt.Errorf("merge base of %s and HEAD: %w", spec.BaseBranch, err)
			}
			from, label = mb, spec.BaseBranch
		}
		to, err := workTree(ctx, root, spec)
		if err != nil {
			return "", "", "", err
		}
		from, err = viewOf(ctx, root, from, to)
		return from, to, label, err
	}
	return "", "", "", fmt.Errorf("unknown diff mode %q", spec.Mode)
}

// viewOf is the checkout view of from against the work tree snapshot to
// (see checkoutView).
func viewOf(ctx context.Context, root, from, to string) (string, error) {
	view, _, err := checkoutView(ctx, root, from, to, false)
	return view, err
}

// Scope is the part of the project a review diff shows (entry.Scope is
// one).
type Scope interface {
	// Dir is the file or directory (relative to the project root, "."
	// for the whole project) every path of the scope lies in.
	Dir() string
	// Whole reports whether every path in Dir is in the scope.
	Whole() bool
	// Selects reports whether the project-relative path is in the scope.
	Selects(path string) bool
}

// maxPathspecBytes bounds the paths one `git diff` of a scope is given
// on its command line (Linux takes 2 MiB of arguments and environment);
// more make more diffs, one after the other.
var maxPathspecBytes = 256 << 10

// literalPathspecs makes git read every path it is given as itself.
var literalPathspecs = []string{"GIT_LITERAL_PATHSPECS=1"}

// Stats summarizes a diff for the debug log's RUN_START line.
type Stats struct {
	BaseRef      string
	New          int
	Modified     int
	Deleted      int
	LinesAdded   int
	LinesRemoved int
}

// Changed is the number of files in the diff.
func (s Stats) Changed() int { return s.New + s.Modified + s.Deleted }

// DiffStats counts new, modified and deleted files (--name-status: A new;
// M, R, C, T modified; D deleted) and added and removed lines (--numstat,
// binary files ignored) of the diff of spec.
func DiffStats(ctx context.Context, root string, spec gate.DiffSpec) (Stats, error) {
	from, to, label, err := Range(ctx, root, spec)
	if err != nil {
		return Stats{}, fmt.Errorf("diff stats: %w", err)
	}
	st := Stats{BaseRef: label}
	out, err := output(ctx, root, "diff", "--name-status", "-z", "--relative", "--no-ext-diff", "--no-renames", from, to, "--")
	if err != nil {
		return st, fmt.Errorf("diff stats: %w", err)
	}
	// Records are "<status>\0<path>\0".
	fields := bytes.Split(out, []byte{0})
	for i := 0; i+1 < len(fields); i += 2 {
		if len(fields[i]) == 0 {
			continue
		}
		switch fields[i][0] {
		case 'A':
			st.New++
		case 'D':
			st.Deleted++
		default:
			st.Modified++
		}
	}
	d, err := openDisk(ctx, root)
	if err == nil {
		err = d.prepare(ctx)
	}
	if err != nil {
		return st, fmt.Errorf("diff stats: %w", err)
	}
	out, _, err = run(ctx, d.call(root, "", "diff", "--numstat", "-z", "--relative", "--no-ext-diff", "--no-textconv", "--no-renames", from, to, "--"))
	if err != nil {
		return st, fmt.Errorf("diff stats: %w", err)
	}
	// Records are "<added>\t<removed>\t<path>\0"; binary files show "-".
	for _, rec := range bytes.Split(out, []byte{0}) {
		parts := bytes.SplitN(rec, []byte{'\t'}, 3)
		if len(parts) != 3 {
			continue
		}
		if a, err := strconv.Atoi(string(parts[0])); err == nil {
			st.LinesAdded += a
		}
		if r, err := strconv.Atoi(string(parts[1])); err == nil {
			st.LinesRemoved += r
		}
	}
	return st, nil
}

// LineDiff is the diff of the files from the commit from to the work tree
// as it is on disk (untracked files included), with no context lines and
// renames found, paths relative to root (the project root): what maps a
// finding's line in the work tree to the base. It is cut at MaxDiffBytes;
// cut reports it. Every file is diffed as the text of its bytes
// (--text, --no-textconv, no external driver): an attribute (-diff,
// binary, a driver's textconv or binary) or a NUL never turns its hunks
// into "Binary files differ", which names no line changed.
func LineDiff(ctx context.Context, root, from string) (diff string, cut bool, err error) {
	to, err := SnapshotTree(ctx, root)
	if err != nil {
		return "", false, fmt.Errorf("line diff: %w", err)
	}
	args := []string{"diff", "--no-color", "--relative", "--no-ext-diff", "--no-textconv", "--text", "-U0", "-M",
		"--src-prefix=a/", "--dst-prefix=b/", from, to, "--", "."}
	out, truncated, _, err := runLimited(ctx, call{root: root, args: args, limit: MaxDiffBytes})
	if err != nil {
		return "", false, fmt.Errorf("line diff: %w", err)
	}
	return string(out), truncated, nil
}
