package install

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/stack"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/owned"
)

// BaselineSupported tells whether check files take `baseline: true` (a
// failure the base branch has too does not block; docs/baselines.md). It is the one
// switch between the two ways of writing a check that failed when init
// tried it: enabled with `baseline: true`, or listed commented out with its
// failure as a note. See failingCheck.
const BaselineSupported = true

// failingCheck says how a check that failed at init is written: listed but
// commented out, or, when checks support baselines, enabled with
// baseline: true.
func failingCheck(baselines bool) (listedOff, baseline bool) {
	if baselines {
		return false, true
	}
	return true, false
}

// Outcome is what trying a proposal showed.
type Outcome int

// Outcomes of a proposal.
const (
	// Passed: the check passed on the tree as it was.
	Passed Outcome = iota
	// Failed: the check failed (Item.Failure says how).
	Failed
	// Missing: a tool it needs is not installed; it was not tried.
	Missing
)

// Choice is what to write for a proposal.
type Choice int

// Choices for a proposal.
const (
	// Add writes the check, enabled.
	Add Choice = iota
	// AsFailing writes a failed check the way failingCheck says.
	AsFailing
	// Skip writes nothing for it.
	Skip
)

// Item is one proposal, its outcome and what to write for it.
type Item struct {
	// Dir is the project directory (slash-separated, "." for the root).
	Dir string
	// Label describes the project ("Go module (go.mod)").
	Label    string
	Proposal stack.Proposal
	Outcome  Outcome
	// Failure is the first line that tells why it failed (Failed only).
	Failure string
	Choice  Choice
}

// PlanOptions are init's answers besides the checks.
type PlanOptions struct {
	// BaseBranch is base_branch; BaseNote says where it comes from.
	BaseBranch, BaseNote string
	// CLIs is cli.default_preference.
	CLIs []string
	// ReviewNote, when not empty, keeps the reviews out of entry_points
	// (commented out, with this note): no review CLI is installed, and a
	// review that cannot run ends every run with an error.
	ReviewNote string
	// Reviews are the built-in reviews written, one file each named after
	// it (see builtin.Names); nil means DefaultReviews, an empty list none.
	Reviews []string
}

// File is one file init writes, relative to the project root.
type File struct {
	Rel     string
	Content string
}

// Plan is what init writes into .gauntlet/.
type Plan struct {
	opts    PlanOptions
	entries []*entry
	checks  []*checkDef
	// baselines is true when checks that failed at init are written on,
	// with baseline: true (see failingCheck).
	baselines bool
}

// entry is one entry point of config.yml.
type entry struct {
	path    string
	title   string
	exclude []string
	checks  []entryCheck
	notes   []string
	// reviews lists the reviews; reviewOff writes them commented out instead.
	reviews, reviewOff bool
	// reviewNames are the reviews listed (or commented out).
	reviewNames []string
}

// entryCheck is a check listed under an entry point.
type entryCheck struct {
	name string
	off  bool
	note string
}

// checkDef is one .gauntlet/checks/<name>.yml.
type checkDef struct {
	name     string
	p        stack.Proposal
	baseline bool
	notes    []string
}

// active reports whether the entry point has a gate that runs.
func (e *entry) active() bool {
	if e.reviews {
		return true
	}
	for _, c := range e.checks {
		if !c.off {
			return true
		}
	}
	return false
}

// BuildPlan turns the items (in project order) into what init writes: one
// entry point per project directory, its checks beneath it, nested project
// directories excluded from their parents, the review on ".", and one check
// file per distinct check.
func BuildPlan(opts PlanOptions, items []Item) *Plan {
	return buildPlan(opts, items, BaselineSupported)
}

// buildPlan is BuildPlan with the failing-check policy given.
func buildPlan(opts PlanOptions, items []Item, baselines bool) *Plan {
	if opts.Reviews == nil {
		opts.Reviews = DefaultReviews()
	}
	p := &Plan{opts: opts, baselines: baselines}
	byDir := map[string]*entry{}
	byName := map[string]*checkDef{}
	commands := map[string][]string{} // proposal name -> distinct commands
	for _, it := range items {
		e := byDir[it.Dir]
		if e == nil {
			e = &entry{path: it.Dir}
			byDir[it.Dir] = e
			p.entries = append(p.entries, e)
		}
		if it.Label != "" && !strings.Contains(e.title, it.Label) {
			e.title = joinNonEmpty("; ", e.title, it.Label)
		}
		pr := it.Proposal
		switch {
		case it.Choice == Skip:
			continue
		case it.Outcome == Missing:
			e.notes = append(e.notes, fmt.Sprintf("%s: not added, %s is not installed (%s); it would run: %s",
				pr.Name, pr.Missing, pr.Hint, Shown(pr)))
			continue
		}
		name := checkName(commands, pr, it.Dir)
		cf := byName[name]
		if cf == nil {
			cf = &checkDef{name: name, p: pr}
			byName[name] = cf
			p.checks = append(p.checks, cf)
		}
		ec := entryCheck{name: name}
		switch {
		case it.Outcome == Failed && it.Choice == AsFailing:
			off, baseline := failingCheck(baselines)
			ec.off = off
			cf.baseline = cf.baseline || baseline
			ec.note = "failed at init: " + it.Failure
			cf.notes = append(cf.notes, fmt.Sprintf("It failed when init tried it in %s: %s", quoteDir(it.Dir), it.Failure))
		case it.Outcome == Failed:
			ec.note = "failed at init, kept on: " + it.Failure
			cf.notes = append(cf.notes, fmt.Sprintf("It failed when init tried it in %s (kept on as asked): %s", quoteDir(it.Dir), it.Failure))
		default:
			cf.notes = append(cf.notes, fmt.Sprintf("It passed when init tried it in %s.", quoteDir(it.Dir)))
		}
		e.checks = append(e.checks, ec)
	}
	p.placeExcludes()
	p.placeReview()
	return p
}

// checkName is the gate name of pr in dir: its own, unless another
// directory's check of that name runs a different command.
func checkName(commands map[string][]string, pr stack.Proposal, dir string) string {
	seen := commands[pr.Name]
	for i, c := range seen {
		if c == pr.Command {
			if i == 0 {
				return pr.Name
			}
			return pr.Name + "-" + slug(dir)
		}
	}
	commands[pr.Name] = append(seen, pr.Command)
	if len(seen) == 0 {
		return pr.Name
	}
	return pr.Name + "-" + slug(dir)
}

// slug makes a directory usable in a gate name.
func slug(dir string) string {
	if dir == "." {
		return "root"
	}
	s := strings.Map(func(r rune) rune {
		if r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '-'
	}, dir)
	return strings.Trim(s, "-")
}

// placeExcludes keeps each project's changes to its own entry point: a
// directory with an entry point of its own is excluded from the entry
// points of the directories above it.
func (p *Plan) placeExcludes() {
	for _, outer := range p.entries {
		for _, inner := range p.entries {
			if inner != outer && inner.active() && (outer.path == "." || strings.HasPrefix(inner.path, outer.path+"/")) {
				outer.exclude = append(outer.exclude, inner.path)
			}
		}
	}
}

// placeReview puts the reviews on the root entry point when it sees every
// change, else on an entry point of its own; without reviews, nowhere.
func (p *Plan) placeReview() {
	if len(p.opts.Reviews) == 0 {
		return
	}
	on, off := p.opts.ReviewNote == "", p.opts.ReviewNote != ""
	for _, e := range p.entries {
		if e.path == "." && len(e.exclude) == 0 && e.active() {
			e.reviews, e.reviewOff, e.reviewNames = on, off, p.opts.Reviews
			return
		}
	}
	p.entries = append(p.entries, &entry{path: ".", title: "The review of every change", reviews: on, reviewOff: off,
		reviewNames: p.opts.Reviews})
}

// Files returns the files of the plan: config.yml, the check files and one
// file per review.
func (p *Plan) Files() []File {
	files := []File{{filepath.Join(config.Dir, config.ProjectFile), p.configYAML()}}
	for _, c := range p.checks {
		files = append(files, File{filepath.Join(config.Dir, config.ChecksDir, c.name+".yml"), c.yaml()})
	}
	for _, r := range p.opts.Reviews {
		files = append(files, File{filepath.Join(config.Dir, config.ReviewsDir, r+".md"), ReviewFile(r)})
	}
	return files
}

// Reviews are the reviews the plan writes.
func (p *Plan) Reviews() []string { return p.opts.Reviews }

// Active reports whether any entry point has a check that runs (the review
// aside).
func (p *Plan) Active() bool {
	for _, e := range p.entries {
		for _, c := range e.checks {
			if !c.off {
				return true
			}
		}
	}
	return false
}

// WriteFiles creates the files under root, never overwriting one, and
// returns those written. It fails without writing anything when
// root/.gauntlet already exists.
func WriteFiles(root string, files []File) ([]string, error) {
	dir := filepath.Join(root, config.Dir)
	if _, err := os.Lstat(dir); err == nil {
		return nil, fmt.Errorf("%s already exists", dir)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, fserr.Wrap("inspect", dir, err)
	}
	var written []string
	for _, f := range files {
		path := filepath.Join(root, f.Rel)
		if err := owned.MkdirAll(root, filepath.Dir(f.Rel), 0o755); err != nil {
			return written, err
		}
		fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return written, fserr.Wrap("create", path, err)
		}
		_, werr := fh.WriteString(f.Content)
		if cerr := fh.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return written, fserr.Wrap("write", path, werr)
		}
		written = append(written, f.Rel)
	}
	return written, nil
}

// configYAML renders config.yml.
func (p *Plan) configYAML() string {
	var b strings.Builder
	b.WriteString("# agent-gauntlet configuration: the gates an agent must pass before it stops.\n\n")
	fmt.Fprintf(&b, "# The ref your changes are compared against%s.\n", parenthesized(p.opts.BaseNote))
	fmt.Fprintf(&b, "base_branch: %s\n", yamlString(p.opts.BaseBranch))
	b.WriteString("# Where run logs go (relative to this project's root).\n")
	fmt.Fprintf(&b, "log_dir: %s\n", config.DefaultLogDir)
	fmt.Fprintf(&b, "# allow_parallel: true\n# max_retries: %d\n\n", config.DefaultMaxRetries)
	b.WriteString("cli:\n  # Review CLIs, in order of preference.\n  default_preference:\n")
	for _, c := range DefaultCLIs(p.opts.CLIs) {
		fmt.Fprintf(&b, "    - %s\n", c)
	}
	b.WriteString("  # check_usage_limit: false\n\n")
	b.WriteString("# Which gates run when files under each path change. init tried every check\n")
	if p.baselines {
		b.WriteString("# on the tree as it was; one that failed then has baseline: true in its file:\n")
		b.WriteString("# a failure the base branch has too is reported as pre-existing and does not\n")
		b.WriteString("# block, a new one does.\n")
	} else {
		b.WriteString("# on the tree as it was; one listed commented out failed then: fix it, then\n")
		b.WriteString("# uncomment it.\n")
	}
	b.WriteString("entry_points:\n")
	for _, e := range p.entries {
		e.render(&b)
	}
	b.WriteString("\n# The stop hook runs the gates at every stop: a gate whose inputs did not\n")
	b.WriteString("# change since it passed is taken from the result cache, so no interval is\n")
	b.WriteString("# needed to keep stops fast. verify_on_continue: an agent that stops again\n")
	b.WriteString("# right after a block, without fixing, is verified (and blocked) again, until\n")
	b.WriteString("# the gates pass or max_retries ends the episode; false allows that stop\n")
	b.WriteString("# unverified, saying so.\n")
	b.WriteString("stop_hook:\n  run_interval_minutes: 0\n  verify_on_continue: true\n  # enabled: true\n")
	fmt.Fprintf(&b, "\n# The result cache, shared by every worktree of the repository.\n# cache:\n#   enabled: true\n#   max_size_mb: %d\n",
		config.DefaultCacheMaxSizeMB)
	return b.String()
}

// render writes the entry point; one where nothing runs is written as
// comments: its title, its notes, and its checks commented out.
func (e *entry) render(b *strings.Builder) {
	active := e.active()
	if !active && len(e.checks) == 0 && len(e.notes) == 0 && !e.reviewOff {
		return // every proposal declined: nothing to say
	}
	if !active {
		fmt.Fprintf(b, "  # %s\n", comment(joinNonEmpty(" in ", e.title, quoteDir(e.path))+": left out, nothing in it passed at init"))
		for _, n := range e.notes {
			fmt.Fprintf(b, "  # %s\n", comment(n))
		}
	} else if e.title != "" {
		fmt.Fprintf(b, "  # %s\n", comment(e.title))
	}
	if !active && len(e.checks) == 0 && !e.reviewOff {
		return
	}
	c := ""
	if !active {
		c = "# "
	}
	fmt.Fprintf(b, "  %s- path: %s\n", c, yamlString(e.path))
	if len(e.exclude) > 0 {
		fmt.Fprintf(b, "  %s  exclude:\n", c)
		for _, x := range e.exclude {
			fmt.Fprintf(b, "  %s    - %s\n", c, yamlString(x))
		}
	}
	e.renderChecks(b, c)
	if active {
		for _, n := range e.notes {
			fmt.Fprintf(b, "    # %s\n", comment(n))
		}
	}
	switch {
	case e.reviews:
		fmt.Fprintf(b, "  %s  reviews:\n", c)
		for _, r := range e.reviewNames {
			fmt.Fprintf(b, "  %s    - %s\n", c, r)
		}
	case e.reviewOff:
		fmt.Fprintf(b, "    # %s\n", comment(reviewOffNote))
		b.WriteString("    # reviews:\n")
		for _, r := range e.reviewNames {
			fmt.Fprintf(b, "    #   - %s\n", r)
		}
	}
}

// renderChecks writes the checks key of an entry point (c is "# " for an
// entry point written as comments); a check that is off is commented out,
// and so is the key when every check is.
func (e *entry) renderChecks(b *strings.Builder, c string) {
	if len(e.checks) == 0 {
		return
	}
	on := false
	for _, ch := range e.checks {
		on = on || !ch.off
	}
	key := c
	if !on {
		key = "# "
	}
	fmt.Fprintf(b, "  %s  checks:\n", key)
	for _, ch := range e.checks {
		line := "- " + ch.name
		if ch.off && c == "" {
			line = "# " + line
		}
		if ch.note != "" {
			line += "  # " + comment(ch.note)
		}
		fmt.Fprintf(b, "  %s    %s\n", c, line)
	}
}

// reviewOffNote is the comment above a review left out of entry_points.
const reviewOffNote = "reviews: no review CLI was installed at init (claude, codex, gemini, copilot, cursor-agent); install one, then uncomment:"

// yaml renders the check file.
func (c *checkDef) yaml() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: proposed by agent-gauntlet init.\n", c.name)
	for _, n := range c.notes {
		fmt.Fprintf(&b, "# %s\n", comment(n))
	}
	if c.baseline {
		b.WriteString("# baseline: a failure the base branch has too is reported as pre-existing and does not block.\n")
	}
	b.WriteString("command: " + yamlCommand(c.p.Command) + "\n")
	switch len(c.p.Glob) {
	case 0:
	case 1:
		b.WriteString("glob: " + yamlString(c.p.Glob[0]) + "\n")
	default:
		b.WriteString("glob:\n")
		for _, g := range c.p.Glob {
			b.WriteString("  - " + yamlString(g) + "\n")
		}
	}
	fmt.Fprintf(&b, "parallel: %t\n", c.p.Parallel)
	if c.p.Timeout > 0 {
		fmt.Fprintf(&b, "timeout: %s\n", strconv.FormatFloat(c.p.Timeout.Seconds(), 'f', -1, 64))
	}
	if c.p.Format != "" {
		b.WriteString("format: " + c.p.Format + "\n")
	}
	if c.baseline {
		b.WriteString("baseline: true\n")
	}
	return b.String()
}

// plainCommand matches a command that YAML reads as a plain scalar.
var plainCommand = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9./][A-Za-z0-9 ._/=@+,-]*[A-Za-z0-9./_=-]$`)
})

// yamlCommand renders a command: plain when it is safe, a literal block for
// several lines, else double-quoted.
func yamlCommand(cmd string) string {
	switch {
	case strings.Contains(strings.TrimRight(cmd, "\n"), "\n"):
		var b strings.Builder
		b.WriteString("|\n")
		for _, l := range strings.Split(strings.TrimRight(cmd, "\n"), "\n") {
			b.WriteString("  " + l + "\n")
		}
		return strings.TrimRight(b.String(), "\n")
	case plainCommand().MatchString(cmd):
		return cmd
	}
	return yamlString(cmd)
}

// maxComment bounds a note written as a comment.
const maxComment = 200

// comment makes s one comment line: control characters become spaces, and
// it is cut at maxComment runes.
func comment(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	s = strings.TrimSpace(s)
	if r := []rune(s); len(r) > maxComment {
		s = string(r[:maxComment-1]) + "…"
	}
	return s
}

// Shown is how a proposal's command is shown on one line.
func Shown(p stack.Proposal) string {
	if p.Shown != "" {
		return p.Shown
	}
	l, rest, _ := strings.Cut(strings.TrimSpace(p.Command), "\n")
	if rest != "" {
		l += " …"
	}
	return l
}

// quoteDir shows a project directory in a note.
func quoteDir(dir string) string { return strconv.Quote(dir) }

// parenthesized is " (s)", or "" for an empty s.
func parenthesized(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// joinNonEmpty joins the non-empty parts with sep.
func joinNonEmpty(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}
