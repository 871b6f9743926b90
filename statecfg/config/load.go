package config

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/builtin"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/glob"
)

// Load loads and validates the configuration of the project at root:
// .gauntlet/config.yml, every .gauntlet/checks/*.yml|*.yaml, every
// .gauntlet/reviews/*.md and .gauntlet/ci.yml when it exists, with every
// default applied.
//
// A missing config.yml gives a *NotFoundError (errors.Is ErrNotFound). Any
// other problem in any file gives an *Errors listing every problem found,
// each naming its file and field, plus the warnings; the returned Config is
// then nil. On success Config.Warnings holds the warnings (unknown keys and
// the like) and Config.Root is the absolute root.
//
// The paths log_dir, working_directory and fix_instructions are judged
// after resolving symbolic links: inside the project root, not in .gauntlet/
// (fix_instructions excepted), not in a git directory, log_dir not the root
// itself, no git work tree, and holding no file git tracks (asked of git
// under ctx; skipped when git cannot tell).
func Load(ctx context.Context, root string) (*Config, error) {
	return load(ctx, root, nil, true)
}

// LoadWithoutGit is Load without its one git question (does log_dir hold
// tracked files): it runs no process. For readers that only need the gates'
// settings (the stop hook's bound on a lock's age), never to run gates.
func LoadWithoutGit(root string) (*Config, error) {
	return load(context.Background(), root, nil, false)
}

// LoadFiles is Load with the files of .gauntlet/ taken from files instead
// of the disk (a trusted configuration, a commit's): every rule and message
// is Load's, files are named as .gauntlet/... as on disk, and the paths the
// configuration names outside .gauntlet/ (log_dir, working_directory) are
// judged in the project at root on disk, as the gates will run there.
// files without config.yml give a *NotFoundError naming root; a path of
// files that is not a clean relative path under .gauntlet/ is an error.
func LoadFiles(ctx context.Context, root string, files Files) (*Config, error) {
	if err := files.Check(); err != nil {
		return nil, err
	}
	return load(ctx, root, filesSource{files: files}, true)
}

// ReadFiles returns a copy of every file of .gauntlet/ that Load reads in
// the project at root (config.yml, the check and review files, ci.yml, the
// fix instructions the checks name), read as Load reads them: what
// LoadFiles loads as this configuration. The configuration need not be
// valid: problems of content are left to the loaders. No config.yml gives
// no error and only the other files (none without a .gauntlet/); a file that exists but cannot be read (not a
// regular file, unreadable, too large) gives an *Errors naming it, with the
// files that could be read. The other files of .gauntlet/ (a script a
// check runs, say) are copied too, within bounds (addOthers): an edit of
// one is a change of the configuration.
func ReadFiles(root string) (Files, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolve project root %s: %w", root, err)
	}
	rec := &recorder{source: diskSource{root: abs}, files: Files{}}
	return rec.read(abs)
}

// LoadedOnly returns the files of all that the loader reads for the
// project at root, without the other files of .gauntlet/ that ReadFiles
// and UsedFiles also copy: what those copied before they did.
func LoadedOnly(root string, all Files) Files {
	rec := &recorder{source: filesSource{files: all}, files: Files{}}
	if _, err := load(context.Background(), root, rec, false); errors.Is(err, ErrNotFound) {
		return Files{}
	}
	return rec.files
}

// read loads the project at root from the recorder's source and returns
// the files it read, with the other files of .gauntlet/ (addOthers).
func (rec *recorder) read(root string) (Files, error) {
	cfg, err := load(context.Background(), root, rec, false)
	if errors.Is(err, ErrNotFound) {
		// No gates, but the files left in .gauntlet/ are still what a
		// trusted configuration is compared with: a check file beside no
		// config.yml is a change, not "nothing".
		others := Files{}
		addOthers(rec.source, others, DefaultLogDir)
		return others, nil
	}
	logDir := DefaultLogDir
	if cfg != nil {
		logDir = cfg.LogDir
	}
	addOthers(rec.source, rec.files, logDir)
	if len(rec.problems) > 0 {
		return rec.files, &Errors{Problems: rec.problems}
	}
	return rec.files, nil
}

// UsedFiles returns the files of all (a commit's .gauntlet/, say) that
// LoadFiles reads for the project at root: what ReadFiles would copy of
// them on disk, so that the two compare file by file. Problems are as for
// ReadFiles.
func UsedFiles(root string, all Files) (Files, error) {
	if err := all.Check(); err != nil {
		return nil, err
	}
	rec := &recorder{source: filesSource{files: all}, files: Files{}}
	return rec.read(root)
}

// load is Load reading the files of .gauntlet/ from src (nil: the disk
// under root), asking git about log_dir when askGit is set.
func load(ctx context.Context, root string, src source, askGit bool) (*Config, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolve project root %s: %w", root, err)
	}
	if src == nil {
		src = diskSource{root: abs}
	}
	data, err := readProjectFile(abs, src)
	if err != nil {
		return nil, err
	}
	l := loadGates(abs, src, data)
	if askGit {
		return l.result(l.trackedProblem(ctx))
	}
	return l.result(nil)
}

// loaded is a load of config.yml (data) and every gate file, without the
// git question about log_dir: what Load answers once that question is
// asked (result).
type loaded struct {
	cfg *Config
	c   *collector
	// afterProject counts the problems of config.yml: the problem the git
	// question may add to it follows them.
	afterProject int
	parsed       projectParse
}

// loadGates parses config.yml from data and reads and parses every gate
// file and ci.yml of the project at the absolute root abs, from src.
func loadGates(abs string, src source, data []byte) *loaded {
	proj := newProject(abs)
	c := &collector{}
	checkFiles := listGateFiles(c, src, ChecksDir, "check", ".yml", ".yaml")
	reviewFiles := listGateFiles(c, src, ReviewsDir, "review", ".md")
	known := &gateNames{checks: map[string]bool{}, reviews: map[string]bool{}}
	for _, g := range checkFiles {
		known.checks[g.name] = true
	}
	for _, g := range reviewFiles {
		known.reviews[g.name] = true
	}

	f := c.file(projectFileRel())
	cfg, parsed := parseProject(f, data, known, proj)
	cfg.Root = abs
	l := &loaded{cfg: cfg, c: c, afterProject: len(c.problems), parsed: parsed}
	for _, g := range checkFiles {
		f := c.file(g.rel)
		content, err := src.file(g.rel)
		if err != nil {
			f.errorf("", "%s", readProblem(err))
			continue
		}
		if chk := parseCheck(f, proj, src, g, content); chk != nil {
			cfg.Checks[g.name] = chk
		}
	}
	for _, g := range reviewFiles {
		f := c.file(g.rel)
		content, err := src.file(g.rel)
		if err != nil {
			f.errorf("", "%s", readProblem(err))
			continue
		}
		if rev := parseReview(f, g, content, cfg.CLI.DefaultPreference, parsed.prefsOK); rev != nil {
			cfg.Reviews[g.name] = rev
		}
	}
	cfg.CI = loadCI(c, src, cfg, known)
	resolveBaselines(cfg)
	cfg.Warnings = c.warningLines()
	return l
}

// trackedProblem asks git, under ctx, whether log_dir holds a file git
// tracks: the problem of config.yml that says so, nil when it does not (or
// git cannot tell).
func (l *loaded) trackedProblem(ctx context.Context) *Problem {
	if l.parsed.logDir == nil {
		return nil
	}
	c := &collector{}
	checkTracked(ctx, c.file(projectFileRel()), l.parsed.logDir, l.parsed.logDirDefault)
	if len(c.problems) == 0 {
		return nil
	}
	return &c.problems[0]
}

// result is the configuration, or every problem found (with tracked, when
// not nil, among those of config.yml) and the warnings.
func (l *loaded) result(tracked *Problem) (*Config, error) {
	problems := l.c.problems
	if tracked != nil {
		problems = slices.Insert(slices.Clone(problems), l.afterProject, *tracked)
	}
	if len(problems) > 0 {
		return nil, &Errors{Problems: problems, Warnings: l.cfg.Warnings}
	}
	return l.cfg, nil
}

// LoadProjectFile loads only .gauntlet/config.yml of the project at root,
// with its own validation and defaults but without reading the check and
// review gates (so entry points are not checked against them and
// Config.Checks and Config.Reviews are empty). It is the cheap load of the
// stop hook's fast path: it runs no process, so log_dir is judged by every
// rule of Load except the one about tracked files, which needs git (the
// fast path only reads the log directory). Errors are as for Load.
func LoadProjectFile(root string) (*Config, error) {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil, fmt.Errorf("resolve project root %s: %w", root, err)
	}
	data, err := readProjectFile(abs, diskSource{root: abs})
	if err != nil {
		return nil, err
	}
	return parseSettings(abs, data)
}

// parseSettings is LoadProjectFile of config.yml's content data, for the
// project at the absolute root abs.
func parseSettings(abs string, data []byte) (*Config, error) {
	c := &collector{}
	f := c.file(projectFileRel())
	cfg, _ := parseProject(f, data, nil, newProject(abs))
	cfg.Root = abs
	if len(c.problems) > 0 {
		return nil, &Errors{Problems: c.problems, Warnings: c.warningLines()}
	}
	cfg.Warnings = c.warningLines()
	return cfg, nil
}

// NoProjectLogDir returns the absolute log directory of a command run in
// dir without a project (clean): gauntlet_logs in dir, judged by every rule
// of Load with dir standing for the project root (tracked files included,
// asked of git under ctx); problems are an *Errors naming log_dir.
func NoProjectLogDir(ctx context.Context, dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	c := &collector{}
	f := c.file("")
	pl, msg := newProject(abs).checkLogDir(DefaultLogDir)
	if msg == "" {
		checkTracked(ctx, f, &pl, false)
	} else {
		f.errorf("log_dir", "%s", msg)
	}
	for i := range c.problems {
		c.problems[i].Message = fmt.Sprintf(msgNoConfigLogDir, c.problems[i].Message, DefaultLogDir, projectFileRel())
	}
	if len(c.problems) > 0 {
		return "", &Errors{Problems: c.problems}
	}
	return filepath.Join(abs, DefaultLogDir), nil
}

// projectFileRel is the project file's path relative to the root.
func projectFileRel() string { return filepath.Join(Dir, ProjectFile) }

// readProjectFile reads config.yml of the project at the absolute root
// from src. A config.yml that cannot be read (not a regular file,
// unreadable) is a configuration problem (*Errors).
func readProjectFile(abs string, src source) ([]byte, error) {
	data, err := src.file(projectFileRel())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &NotFoundError{Dir: abs}
	}
	if err != nil {
		c := &collector{}
		c.file(projectFileRel()).errorf("", "%s", readProblem(err))
		return nil, &Errors{Problems: c.problems}
	}
	return data, nil
}

// gateFile is one check or review file.
type gateFile struct {
	name string // gate name: file name without extension
	rel  string // path relative to the root
}

// gateNames are the check and review gates that have a file (parsed or not).
type gateNames struct {
	checks, reviews map[string]bool
}

// listGateFiles lists the gate files of .gauntlet/<sub> with one of exts,
// sorted by file name. A missing directory has no gates. Two files giving
// the same gate name are reported; the first one is kept.
func listGateFiles(c *collector, src source, sub, kind string, exts ...string) []gateFile {
	dirRel := filepath.Join(Dir, sub)
	entries, err := src.dir(dirRel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		c.file(dirRel).errorf("", "%s", readProblem(err))
		return nil
	}
	var out []gateFile
	seen := map[string]string{}
	for _, e := range entries {
		ext := filepath.Ext(e)
		if !slices.Contains(exts, ext) {
			continue
		}
		name := strings.TrimSuffix(e, ext)
		rel := filepath.Join(dirRel, e)
		if prev, dup := seen[name]; dup {
			c.file(rel).errorf("", "duplicate %s gate %q (already defined by %s)", kind, name, fserr.Quote(prev))
			// Read all the same: a copy of the configuration (ReadFiles)
			// holds it, so that it gives the same problem.
			_, _ = src.file(rel)
			continue
		}
		seen[name] = rel
		out = append(out, gateFile{name: name, rel: rel})
	}
	return out
}

// projectParse is what parseProject tells beyond the Config.
type projectParse struct {
	// prefsOK tells whether cli.default_preference was valid (so reviews
	// can be checked against it).
	prefsOK bool
	// logDir is where log_dir (configured or the default) is, when it passed
	// every rule that needs no git; logDirDefault says it is the default.
	logDir        *place
	logDirDefault bool
}

// parseProject decodes config.yml. known, when not nil, holds the gate files
// that entry points must refer to; proj judges the configured paths.
func parseProject(f *fileReport, data []byte, known *gateNames, proj *project) (cfg *Config, parsed projectParse) {
	cfg = &Config{
		BaseBranch:             DefaultBaseBranch,
		LogDir:                 DefaultLogDir,
		AllowParallel:          true,
		MaxRetries:             DefaultMaxRetries,
		RerunNewIssueThreshold: DefaultRerunNewIssueThreshold,
		Checks:                 map[string]*Check{},
		Reviews:                map[string]*Review{},
		Cache:                  CacheSettings{Enabled: true, MaxSizeMB: DefaultCacheMaxSizeMB},
	}
	v, err := parseYAML(data, 0)
	if err != nil {
		f.errorf("", "invalid YAML: %v", err)
		return cfg, parsed
	}
	o := f.top(v)
	if o == nil {
		return cfg, parsed
	}
	if s, ok := o.nonEmpty("base_branch"); ok {
		cfg.BaseBranch = s
	}
	parsed.logDir, parsed.logDirDefault = parseLogDir(o, proj, cfg)
	o.setBool("allow_parallel", &cfg.AllowParallel)
	o.setBool("baseline", &cfg.Baseline)
	if n := o.integer("max_retries", 0, MaxMaxRetries); n != nil {
		cfg.MaxRetries = *n
	}
	if s, ok := o.enum("rerun_new_issue_threshold", string(PriorityCritical), string(PriorityHigh), string(PriorityMedium), string(PriorityLow)); ok {
		cfg.RerunNewIssueThreshold = Priority(s)
	}
	if o.require("cli") {
		if cli := o.child("cli"); cli != nil {
			parsed.prefsOK = parseCLI(cli, &cfg.CLI)
			cli.done()
		}
	}
	if o.require("entry_points") {
		if items, ok := o.list("entry_points"); ok {
			if len(items) == 0 {
				o.errorf("entry_points", "must list at least one entry point")
			}
			for i, item := range items {
				if ep, ok := parseEntryPoint(o, proj, fmt.Sprintf("entry_points[%d]", i), item, known); ok {
					cfg.EntryPoints = append(cfg.EntryPoints, ep)
				}
			}
		}
	}
	if d := o.child("debug_log"); d != nil {
		cfg.DebugLog = parseDebugLog(d)
		d.done()
	}
	if s := o.child("stop_hook"); s != nil {
		cfg.StopHook = parseStopHook(s)
		s.done()
	}
	if c := o.child("cache"); c != nil {
		parseCache(c, &cfg.Cache)
		c.done()
	}
	if l := o.child("logging"); l != nil {
		parseLogging(l)
		l.done()
	}
	o.done()
	return cfg, parsed
}

// parseLogDir decodes log_dir into cfg.LogDir and judges it, or the default
// when it is not set, by every rule that needs no git. It returns where the
// log directory is when it passed, and whether that is the default.
func parseLogDir(o *object, proj *project, cfg *Config) (*place, bool) {
	const key = "log_dir"
	rel, set := o.nonEmpty(key)
	switch {
	case set:
		if msg := logDirProblem(rel); msg != "" {
			o.errorf(key, "%s", msg)
			return nil, false
		}
	case o.m[key] != nil:
		return nil, false // a value of the wrong type, reported
	default:
		rel = DefaultLogDir
	}
	pl, msg := proj.checkLogDir(rel)
	if msg != "" {
		if !set {
			msg = fmt.Sprintf(msgDefaultLogDir, msg, DefaultLogDir)
		}
		o.errorf(key, "%s", msg)
		return nil, !set
	}
	cfg.LogDir = rel
	return &pl, !set
}

// checkTracked reports, against log_dir, a log directory holding a file git
// tracks (clean would move it). A directory that does not exist yet holds
// none; when git cannot tell, nothing is reported.
func checkTracked(ctx context.Context, f *fileReport, pl *place, isDefault bool) {
	if pl.tail != "" {
		return
	}
	file, ok := trackedFile(ctx, pl.existing)
	if !ok || file == "" {
		return
	}
	msg := fmt.Sprintf(msgTracked, fserr.Quote(file))
	if isDefault {
		msg = fmt.Sprintf(msgDefaultLogDir, msg, DefaultLogDir)
	}
	f.errorf("log_dir", "%s", msg)
}

// parseCLI decodes the cli section; it reports whether default_preference
// is valid.
func parseCLI(o *object, cli *CLI) bool {
	o.setBool("check_usage_limit", &cli.CheckUsageLimit)
	if !o.require("default_preference") {
		return false
	}
	prefs, ok := o.strings("default_preference")
	if !ok {
		return false
	}
	if len(prefs) == 0 {
		o.errorf("default_preference", "must list at least one CLI (%s)", strings.Join(KnownAdapters(), ", "))
		return false
	}
	for i, p := range prefs {
		if !IsKnownAdapter(p) {
			o.f.errorf(fmt.Sprintf("%s[%d]", o.field("default_preference"), i), "%s", unknownAdapter(p))
			ok = false
		}
	}
	cli.DefaultPreference = prefs
	return ok
}

func unknownAdapter(name string) string {
	return fmt.Sprintf("unknown CLI %q (valid: %s)", name, strings.Join(KnownAdapters(), ", "))
}

// parseEntryPoint decodes entry_points[i] found at path.
func parseEntryPoint(parent *object, proj *project, path string, item any, known *gateNames) (EntryPoint, bool) {
	var ep EntryPoint
	if item == nil {
		parent.f.errorf(path, msgMapping)
		return ep, false
	}
	o := parent.sub(path, item)
	if o == nil {
		return ep, false
	}
	defer o.done()
	before := o.f.errs
	if o.require("path") {
		if s, ok := o.nonEmpty("path"); ok {
			if clean, msg := proj.entryPath(s); msg != "" {
				o.errorf("path", "%s", msg)
			} else if err := compileGlob(clean); err != nil {
				o.errorf("path", "%v", err)
			} else {
				ep.Path = clean
			}
		}
	}
	ep.Exclude, _ = o.strings("exclude")
	for i, s := range ep.Exclude {
		field := fmt.Sprintf("%s[%d]", o.field("exclude"), i)
		clean, msg := proj.entryPath(s)
		if msg != "" {
			o.f.errorf(field, "%s", msg)
		} else if err := compileGlob(clean); err != nil {
			o.f.errorf(field, "%v", err)
		}
		ep.Exclude[i] = clean
	}
	ep.Checks, _ = o.strings("checks")
	ep.Reviews, _ = o.strings("reviews")
	if known != nil {
		for _, name := range ep.Checks {
			if !known.checks[name] {
				o.errorf("checks", "unknown check gate %q", name)
			}
		}
		for _, name := range ep.Reviews {
			if !known.reviews[name] {
				o.errorf("reviews", "unknown review gate %q", name)
			}
		}
	}
	ok := o.f.errs == before
	if ok && len(ep.Checks) == 0 && len(ep.Reviews) == 0 {
		o.f.warnf(path, "entry point has no checks and no reviews")
	}
	return ep, ok
}

func parseDebugLog(o *object) DebugLogSettings {
	var d DebugLogSettings
	d.Enabled = o.boolean("enabled")
	d.MaxSizeMB = o.positive("max_size_mb", MaxDebugLogSizeMB, fmt.Sprintf("%d MB", MaxDebugLogSizeMB))
	return d
}

// parseCache decodes the cache section of config.yml into c.
func parseCache(o *object, c *CacheSettings) {
	o.setBool("enabled", &c.Enabled)
	if mb := o.positive("max_size_mb", MaxCacheSizeMB, fmt.Sprintf("%d MB", MaxCacheSizeMB)); mb != nil {
		c.MaxSizeMB = *mb
	}
}

// msgCacheScope is the error of a gate's cache setting.
const msgCacheScope = "must be true, false or %s"

// cacheScope decodes a gate's cache setting: true (the default), false or
// entry_point.
func cacheScope(o *object) CacheScope {
	v, ok := o.get("cache")
	if !ok {
		return CacheTree
	}
	switch t := v.(type) {
	case bool:
		if t {
			return CacheTree
		}
		return CacheOff
	case string:
		if t == string(CacheEntryPoint) {
			return CacheEntryPoint
		}
		o.errorf("cache", msgCacheScope+" (got %q)", CacheEntryPoint, t)
		return CacheTree
	}
	o.errorf("cache", msgCacheScope, CacheEntryPoint)
	return CacheTree
}

func parseStopHook(o *object) StopHookSettings {
	var s StopHookSettings
	s.Enabled = o.boolean("enabled")
	s.RunIntervalMinutes = o.integer("run_interval_minutes", 0, MaxRunIntervalMinutes)
	s.VerifyOnContinue = o.boolean("verify_on_continue")
	return s
}

// parseLogging validates the logging section, which upstream parses and
// never uses; so do we.
func parseLogging(o *object) {
	o.enum("level", "debug", "info", "warning", "error")
	if c := o.child("console"); c != nil {
		c.boolean("enabled")
		c.enum("format", "pretty", "json")
		c.done()
	}
	if f := o.child("file"); f != nil {
		f.boolean("enabled")
		f.enum("format", "text", "json")
		f.done()
	}
}

// relativeProblem says why p is not a relative path staying inside the
// directory it is relative to ("" when it is fine). what names that
// directory.
func relativeProblem(p, what string) string {
	if filepath.IsAbs(p) {
		return fmt.Sprintf("must be a path relative to %s, not an absolute path", what)
	}
	c := filepath.Clean(p)
	if c == ".." || strings.HasPrefix(c, ".."+string(filepath.Separator)) {
		return fmt.Sprintf("must stay inside %s (%q leads out of it)", what, p)
	}
	return ""
}

// compileGlob checks a path or exclude pattern that is a glob, so that a
// malformed one is refused when the configuration loads rather than when a
// run matches it (nil for a plain path).
func compileGlob(p string) error {
	if !glob.IsGlob(p) {
		return nil
	}
	_, err := glob.Compile(p)
	return err
}

// logDirProblem says why log_dir is unusable ("" when it is fine): it must
// be a directory strictly inside the project root, and not .gauntlet/
// (clean moves everything in the log directory).
func logDirProblem(p string) string {
	if msg := relativeProblem(p, "the project root"); msg != "" {
		return msg
	}
	switch filepath.Clean(p) {
	case ".":
		return "must be a directory inside the project root, not the root itself"
	case Dir:
		return fmt.Sprintf("must not be the %s directory", Dir)
	}
	return ""
}

// parseCheck decodes one check file; nil when it has problems. proj judges
// its paths; its fix instructions are read from src.
func parseCheck(f *fileReport, proj *project, src source, g gateFile, data []byte) *Check {
	chk := &Check{Name: g.name, File: g.rel, RunLocally: true, RunInCI: true, Cache: CacheTree}
	v, err := parseYAML(data, 0)
	if err != nil {
		f.errorf("", "invalid YAML: %v", err)
		return nil
	}
	o := f.top(v)
	if o == nil {
		return nil
	}
	defer o.done()
	if o.require("command") {
		if s, ok := o.nonEmpty("command"); ok {
			chk.Command = s
		}
	}
	if s, ok := o.nonEmpty("working_directory"); ok {
		if msg := relativeProblem(s, "the project root"); msg != "" {
			o.errorf("working_directory", "%s", msg)
		} else if _, msg := proj.checkDir(s, true); msg != "" {
			o.errorf("working_directory", "%s", msg)
		} else {
			chk.WorkingDirectory = s
		}
	}
	o.setBool("parallel", &chk.Parallel)
	o.setBool("run_locally", &chk.RunLocally)
	o.setBool("run_in_ci", &chk.RunInCI)
	chk.Timeout = timeout(o)
	if b := o.boolean("fail_fast"); b != nil {
		chk.FailFast = *b
		if chk.FailFast && chk.Parallel {
			o.errorf("fail_fast", "fail_fast can only be used when parallel is false")
		}
	}
	if s, ok := o.nonEmpty("fix_instructions"); ok {
		chk.FixInstructionsFile = s
		chk.FixInstructions = readFixInstructions(o, proj, src, s)
	}
	parseScope(o, chk)
	chk.Cache = cacheScope(o)
	parseOutput(o, chk)
	if f.errs > 0 {
		return nil
	}
	return chk
}

// maxTimeoutSeconds keeps timeouts inside time.Duration.
const maxTimeoutSeconds = float64(math.MaxInt64 / int64(time.Second))

// timeout decodes the timeout key (seconds, > 0); zero when unset.
func timeout(o *object) time.Duration {
	secs := o.positive("timeout", maxTimeoutSeconds, fmt.Sprintf("%.0f seconds", maxTimeoutSeconds))
	if secs == nil {
		return 0
	}
	return time.Duration(*secs * float64(time.Second))
}

// readFixInstructions checks the fix_instructions path (relative to
// .gauntlet/, inside it, an existing regular file; on disk, inside the
// project and no git directory once links are resolved) and returns the
// file content, read from src.
func readFixInstructions(o *object, proj *project, src source, p string) string {
	const key = "fix_instructions"
	dirName := Dir + "/"
	if msg := relativeProblem(p, dirName); msg != "" {
		o.errorf(key, "%s", msg)
		return ""
	}
	rel := filepath.Clean(p)
	if rel == "." {
		o.errorf(key, "must name a file inside %s, not the directory itself", dirName)
		return ""
	}
	shown := fserr.Quote(filepath.Join(Dir, rel))
	if src.onDisk() {
		if msg := proj.checkFile(filepath.Join(proj.root, Dir, rel), filepath.Join(Dir, rel)); msg != "" {
			o.errorf(key, "%s", msg)
			return ""
		}
	}
	data, err := src.file(filepath.Join(Dir, rel))
	if errors.Is(err, fs.ErrNotExist) {
		o.errorf(key, "file %s does not exist", shown)
		return ""
	}
	if msg, ok := irregular(err); ok {
		o.errorf(key, "%s %s", shown, msg)
		return ""
	}
	if err != nil {
		o.errorf(key, "cannot read %s: %v", shown, fserr.Pathless(err))
		return ""
	}
	return string(data)
}

// parseReview decodes one review file; nil when it has problems. prefs is
// cli.default_preference, used as the default and, when prefsOK, as the
// allowed set.
func parseReview(f *fileReport, g gateFile, data []byte, prefs []string, prefsOK bool) *Review {
	rev := &Review{
		Name:          g.name,
		File:          g.rel,
		CLIPreference: append([]string(nil), prefs...),
		NumReviews:    DefaultNumReviews,
		Parallel:      true,
		RunInCI:       true,
		RunLocally:    true,
		Cache:         CacheTree,
	}
	fm, err := splitFrontMatter(string(data))
	if err != nil {
		f.errorf("", "%v", err)
		return nil
	}
	rev.Prompt = fm.Body
	rev.OwnText = strings.TrimSpace(fm.Body) != ""
	if !fm.Present {
		return rev
	}
	v, err := parseYAML([]byte(fm.YAML), 1)
	if err != nil {
		f.errorf("", "invalid YAML: %v", err)
		return nil
	}
	o := f.top(v)
	if o == nil {
		return nil
	}
	defer o.done()
	if list, ok := o.strings("cli_preference"); ok {
		good := true
		if len(list) == 0 {
			o.errorf("cli_preference", "must list at least one CLI (leave it out to use cli.default_preference)")
			good = false
		}
		for _, name := range list {
			switch {
			case !IsKnownAdapter(name):
				o.errorf("cli_preference", "%s", unknownAdapter(name))
				good = false
			case prefsOK && !slices.Contains(prefs, name):
				o.errorf("cli_preference", "CLI %q is not in cli.default_preference (%s) of %s", name, strings.Join(prefs, ", "), projectFileRel())
				good = false
			}
		}
		if good {
			rev.CLIPreference = list
		}
	}
	if n := o.integer("num_reviews", 1, MaxNumReviews); n != nil {
		rev.NumReviews = *n
	}
	o.setBool("parallel", &rev.Parallel)
	o.setBool("run_in_ci", &rev.RunInCI)
	o.setBool("run_locally", &rev.RunLocally)
	rev.Timeout = timeout(o)
	if s, ok := o.str("model"); ok {
		rev.Model = s
	}
	rev.Cache = cacheScope(o)
	if s, ok := o.str("builtin"); ok {
		if builtin.Known(s) {
			rev.Builtin = s
		} else {
			o.errorf("builtin", "unknown built-in review %q (want one of %s)", s, builtin.List())
		}
	}
	if f.errs > 0 {
		return nil
	}
	rev.Prompt = builtin.Compose(rev.Builtin, fm.Body)
	return rev
}
