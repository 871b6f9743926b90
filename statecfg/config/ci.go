package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fserr"
)

// CIFile is the CI configuration inside Dir (optional): the runtimes,
// services and setup steps of the GitHub Actions workflow that
// `agent-gauntlet ci init` writes, and which check and review gates run in
// CI, reviews included.
const CIFile = "ci.yml"

// CI runtimes the generated workflow sets up with their official setup
// actions. One source of truth: the workflow generator maps each to its
// action, and a runtime of another name is a warning.
const (
	RuntimeNode   = "node"
	RuntimePython = "python"
	RuntimeGo     = "go"
	RuntimeJava   = "java"
	RuntimeRuby   = "ruby"
	RuntimeBun    = "bun"
)

// CIRuntimes returns the runtimes the generated workflow can set up, in the
// order its steps run.
func CIRuntimes() []string {
	return []string{RuntimeNode, RuntimePython, RuntimeGo, RuntimeJava, RuntimeRuby, RuntimeBun}
}

// CI is a loaded .gauntlet/ci.yml. Config.CI is nil when the file does not
// exist; its methods accept a nil receiver.
type CI struct {
	// File is the path of ci.yml relative to the project root.
	File string
	// Runtimes by name, sorted by name.
	Runtimes []CIRuntime
	// Services by name, sorted by name.
	Services []CIService
	// Setup runs before every CI job's own setup.
	Setup []CISetupStep
	// Checks are the check gates that run in CI, in file order.
	Checks []CIGate
	// Reviews are the review gates that run in CI, in file order: a review
	// gate never runs in CI unless listed here, since it needs an AI CLI
	// and its credentials.
	Reviews []CIGate
}

// CIRuntime is one entry of `runtimes`.
type CIRuntime struct {
	Name string
	// Version is the version the setup action installs.
	Version string
	// Raw is the entry as written (Version normalized to a string), which
	// `ci list-jobs` prints as upstream does.
	Raw map[string]any
}

// CIService is one entry of `services`: a service container.
type CIService struct {
	Name string
	// Image is the container image.
	Image string
	// Env holds the container's environment variables.
	Env map[string]string
	// Ports and Volumes are docker's -p and -v values.
	Ports   []string
	Volumes []string
	// Options are extra `docker create` options, HealthCheck's included.
	Options string
	// Credentials log in to the image's registry (nil when not set).
	Credentials *CICredentials
	// Raw is the entry as written, which `ci list-jobs` prints.
	Raw map[string]any
}

// CICredentials are a registry login of a service.
type CICredentials struct {
	Username, Password string
}

// CISetupStep is one shell step of `setup` (global or per gate).
type CISetupStep struct {
	Name string
	Run  string
	// WorkingDirectory is relative to the project root ("" for the root).
	WorkingDirectory string
	// If is a shell condition: the step runs only when it exits 0.
	If string
}

// CIGate is one entry of `checks` or `reviews`.
type CIGate struct {
	// Name is the check or review gate's name.
	Name             string
	RequiresRuntimes []string
	RequiresServices []string
	Setup            []CISetupStep
	// Secrets are the repository secrets passed to the gate's CI job as
	// environment variables of the same name (a review's AI CLI needs its
	// API key; a check may need a token).
	Secrets []string
}

// Check returns the `checks` entry of the named gate.
func (c *CI) Check(name string) (CIGate, bool) {
	if c == nil {
		return CIGate{}, false
	}
	return findGate(c.Checks, name)
}

// Review returns the `reviews` entry of the named gate.
func (c *CI) Review(name string) (CIGate, bool) {
	if c == nil {
		return CIGate{}, false
	}
	return findGate(c.Reviews, name)
}

// RunsReview reports whether ci.yml opts the review gate into CI runs.
func (c *CI) RunsReview(name string) bool {
	_, ok := c.Review(name)
	return ok
}

func findGate(gates []CIGate, name string) (CIGate, bool) {
	for _, g := range gates {
		if g.Name == name {
			return g, true
		}
	}
	return CIGate{}, false
}

// ciFileRel is ci.yml's path relative to the root.
func ciFileRel() string { return filepath.Join(Dir, CIFile) }

// loadCI reads and decodes ci.yml from src, if there is one,
// checking its gates against known (the gate files) and cfg's gates.
func loadCI(c *collector, src source, cfg *Config, known *gateNames) *CI {
	f := c.file(ciFileRel())
	data, err := src.file(ciFileRel())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		f.errorf("", "%s", readProblem(err))
		return nil
	}
	return parseCI(f, data, cfg, known)
}

// parseCI decodes ci.yml. Upstream's schema errors (wrong types, a missing
// name, run, version or image) are errors; what upstream quietly tolerated
// (a gate that does not exist, an unknown key) is a warning, so a ci.yml
// that worked there still loads.
func parseCI(f *fileReport, data []byte, cfg *Config, known *gateNames) *CI {
	ci := &CI{File: f.name}
	v, err := parseYAML(data, 0)
	if err != nil {
		f.errorf("", "invalid YAML: %v", err)
		return ci
	}
	o := f.top(v)
	if o == nil {
		return ci
	}
	defer o.done()
	ci.Runtimes = parseRuntimes(o)
	ci.Services = parseServices(o)
	ci.Setup = parseSetup(o, "setup")
	ci.Checks = parseCIGates(o, "checks")
	ci.Reviews = parseCIGates(o, "reviews")
	checkCIGates(o, ci, cfg, known)
	return ci
}

// each calls fn for every entry of the mapping under key, sorted by name.
func (o *object) each(key string, fn func(name string, entry *object)) {
	m := o.child(key)
	if m == nil {
		return
	}
	names := make([]string, 0, len(m.m))
	for k := range m.m {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		v, _ := m.get(name)
		if e := m.sub(m.field(fserr.Quote(name)), v); e != nil {
			fn(name, e)
			e.done()
		}
	}
}

// runtimeVersion returns the version of a runtime, which must be a string:
// YAML reads an unquoted version as a number, and 3.10 as 3.1.
func runtimeVersion(o *object) (string, bool) {
	const key = "version"
	if !o.require(key) {
		return "", false
	}
	if v, _ := o.get(key); v != nil {
		if _, isNum := v.(json.Number); isNum {
			o.errorf(key, "must be a quoted string such as \"3.10\" (YAML reads an unquoted version as a number: 3.10 is 3.1)")
			return "", false
		}
	}
	return o.nonEmpty(key)
}

func parseRuntimes(o *object) []CIRuntime {
	var out []CIRuntime
	o.each("runtimes", func(name string, e *object) {
		rt := CIRuntime{Name: name, Raw: e.m}
		if !slices.Contains(CIRuntimes(), name) {
			e.f.warnf(e.path, "no setup action for runtime %q in the generated workflow (known: %s): install it in a setup step", name, strings.Join(CIRuntimes(), ", "))
		}
		if version, ok := runtimeVersion(e); ok {
			rt.Version = version
			rt.Raw = withValue(e.m, "version", version)
		}
		switch name {
		case RuntimeRuby:
			e.boolean("bundler_cache")
		case RuntimeJava:
			e.nonEmpty("distribution")
		}
		out = append(out, rt)
	})
	return out
}

// withValue returns a copy of m with key set to value.
func withValue(m map[string]any, key string, value any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	out[key] = value
	return out
}

func parseServices(o *object) []CIService {
	var out []CIService
	o.each("services", func(name string, e *object) {
		svc := CIService{Name: name, Raw: e.m}
		if !serviceNameRE().MatchString(name) {
			e.f.errorf(e.path, "service name must be letters, digits, '-' and '_', starting with a letter or '_'")
		}
		if e.require("image") {
			svc.Image, _ = e.nonEmpty("image")
		}
		svc.Env = scalarMap(e, "env")
		svc.Ports = scalarList(e, "ports")
		svc.Volumes, _ = e.strings("volumes")
		svc.Options, _ = e.str("options")
		if c := e.child("credentials"); c != nil {
			var cred CICredentials
			cred.Username, _ = c.nonEmpty("username")
			cred.Password, _ = c.nonEmpty("password")
			svc.Credentials = &cred
			c.done()
		}
		if h := e.child("health_check"); h != nil {
			svc.Options = strings.TrimSpace(svc.Options + " " + healthOptions(h))
			h.done()
		}
		out = append(out, svc)
	})
	return out
}

// serviceNameRE matches the names GitHub accepts as service (and job) ids.
var serviceNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`) })

// healthOptions turns upstream's health_check section into the docker
// options GitHub Actions takes for service containers.
func healthOptions(h *object) string {
	var opts []string
	if cmd, ok := h.nonEmpty("cmd"); ok {
		if strings.ContainsAny(cmd, "\"\n") {
			h.errorf("cmd", "must not contain a double quote or a line break (it is passed to docker in double quotes)")
		} else {
			opts = append(opts, fmt.Sprintf("--health-cmd %q", cmd))
		}
	}
	for _, k := range []string{"interval", "timeout", "start_period"} {
		if s, ok := h.nonEmpty(k); ok {
			if strings.ContainsAny(s, " \t\n\"'") {
				h.errorf(k, "must be a duration such as 10s (no spaces or quotes)")
				continue
			}
			opts = append(opts, fmt.Sprintf("--health-%s %s", strings.ReplaceAll(k, "_", "-"), s))
		}
	}
	if n := h.integer("retries", 0, math.MaxInt); n != nil {
		opts = append(opts, fmt.Sprintf("--health-retries %d", *n))
	}
	return strings.Join(opts, " ")
}

// scalar renders a YAML scalar (string, number, bool) as a string.
func scalar(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case json.Number:
		return t.String(), true
	case bool:
		if t {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

// scalarMap returns a mapping of names to scalar values, rendered as
// strings.
func scalarMap(o *object, key string) map[string]string {
	m := o.child(key)
	if m == nil {
		return nil
	}
	out := map[string]string{}
	keys := make([]string, 0, len(m.m))
	for k := range m.m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v, _ := m.get(k)
		s, ok := scalar(v)
		if !ok {
			m.errorf(fserr.Quote(k), "must be a string, a number or true/false")
			continue
		}
		out[k] = s
	}
	return out
}

// scalarList returns a list of non-empty scalars (strings or numbers, as
// in ports: [5432, "8080:80"]) rendered as strings.
func scalarList(o *object, key string) []string {
	items, ok := o.list(key)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(items))
	for i, it := range items {
		s, isScalar := scalar(it)
		if _, isBool := it.(bool); !isScalar || isBool || strings.TrimSpace(s) == "" {
			o.f.errorf(fmt.Sprintf("%s[%d]", o.field(key), i), "must be a non-empty string or number")
			continue
		}
		out = append(out, s)
	}
	return out
}

// parseSetup decodes a list of setup steps under key.
func parseSetup(o *object, key string) []CISetupStep {
	items, ok := o.list(key)
	if !ok {
		return nil
	}
	var out []CISetupStep
	for i, item := range items {
		path := fmt.Sprintf("%s[%d]", o.field(key), i)
		s := o.sub(path, item)
		if s == nil {
			continue
		}
		var step CISetupStep
		if s.require("name") {
			if name, ok := s.nonEmpty("name"); ok {
				if strings.ContainsAny(name, "\r\n") {
					s.errorf("name", "must be one line")
				}
				step.Name = name
			}
		}
		if s.require("run") {
			step.Run, _ = s.nonEmpty("run")
		}
		if wd, ok := s.nonEmpty("working_directory"); ok {
			if msg := relativeProblem(wd, "the project root"); msg != "" {
				s.errorf("working_directory", "%s", msg)
			} else {
				step.WorkingDirectory = wd
			}
		}
		if cond, ok := s.nonEmpty("if"); ok {
			if strings.Contains(cond, "${{") {
				s.errorf("if", "must be a shell condition (the step runs when it exits 0), not a GitHub expression: test environment variables instead, as in [ \"$GITHUB_EVENT_NAME\" = push ]")
			} else {
				step.If = cond
			}
		}
		s.done()
		out = append(out, step)
	}
	return out
}

// secretNameRE matches the names GitHub allows for repository secrets.
var secretNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// parseCIGates decodes the `checks` or `reviews` list.
func parseCIGates(o *object, key string) []CIGate {
	items, ok := o.list(key)
	if !ok {
		return nil
	}
	var out []CIGate
	for i, item := range items {
		g := o.sub(fmt.Sprintf("%s[%d]", o.field(key), i), item)
		if g == nil {
			continue
		}
		var gate CIGate
		if g.require("name") {
			gate.Name, _ = g.nonEmpty("name")
		}
		gate.RequiresRuntimes, _ = g.strings("requires_runtimes")
		gate.RequiresServices, _ = g.strings("requires_services")
		gate.Setup = parseSetup(g, "setup")
		gate.Secrets = parseSecrets(g)
		g.done()
		out = append(out, gate)
	}
	return out
}

func parseSecrets(g *object) []string {
	secrets, _ := g.strings("secrets")
	var out []string
	for i, s := range secrets {
		field := fmt.Sprintf("%s[%d]", g.field("secrets"), i)
		switch {
		case !secretNameRE().MatchString(s):
			g.f.errorf(field, "secret name %q must be letters, digits and '_', not starting with a digit", s)
		case strings.HasPrefix(strings.ToUpper(s), "GITHUB_"):
			g.f.errorf(field, "secret name %q may not start with GITHUB_ (GitHub reserves the prefix)", s)
		default:
			out = append(out, s)
		}
	}
	return out
}

// checkCIGates checks the gates of ci.yml against the project: each must
// exist, be listed once, run in CI, be used by an entry point, and require
// only runtimes and services that ci.yml defines.
func checkCIGates(o *object, ci *CI, cfg *Config, known *gateNames) {
	runtimes, services := map[string]bool{}, map[string]bool{}
	for _, r := range ci.Runtimes {
		runtimes[r.Name] = true
	}
	for _, s := range ci.Services {
		services[s.Name] = true
	}
	for _, kind := range []struct {
		key    string
		gates  []CIGate
		exists map[string]bool
		noun   string
	}{
		{"checks", ci.Checks, known.checks, "check"},
		{"reviews", ci.Reviews, known.reviews, "review"},
	} {
		seen := map[string]bool{}
		for i, g := range kind.gates {
			path := fmt.Sprintf("%s[%d]", kind.key, i)
			for j, r := range g.RequiresRuntimes {
				if !runtimes[r] {
					o.f.errorf(fmt.Sprintf("%s.requires_runtimes[%d]", path, j), "runtime %q is not defined under runtimes", r)
				}
			}
			for j, s := range g.RequiresServices {
				if !services[s] {
					o.f.errorf(fmt.Sprintf("%s.requires_services[%d]", path, j), "service %q is not defined under services", s)
				}
			}
			if g.Name == "" {
				continue
			}
			field := path + ".name"
			switch {
			case seen[g.Name]:
				o.f.warnf(field, "%s gate %q is listed twice (the first entry is used)", kind.noun, g.Name)
			case !kind.exists[g.Name]:
				o.f.warnf(field, "no %s gate %q in %s (ignored)", kind.noun, g.Name, filepath.Join(Dir, kind.key))
			case !runsInCI(cfg, kind.key, g.Name):
				o.f.warnf(field, "%s gate %q has run_in_ci: false, so it does not run in CI", kind.noun, g.Name)
			case !usedByEntryPoint(cfg, kind.key, g.Name):
				o.f.warnf(field, "no entry point runs the %s gate %q, so no CI job runs it", kind.noun, g.Name)
			}
			seen[g.Name] = true
		}
	}
}

// runsInCI reports whether a gate that loaded has run_in_ci (a gate that
// failed to load is reported against its own file).
func runsInCI(cfg *Config, key, name string) bool {
	if key == "checks" {
		c, ok := cfg.Checks[name]
		return !ok || c.RunInCI
	}
	r, ok := cfg.Reviews[name]
	return !ok || r.RunInCI
}

// usedByEntryPoint reports whether an entry point lists the gate.
func usedByEntryPoint(cfg *Config, key, name string) bool {
	for _, ep := range cfg.EntryPoints {
		list := ep.Checks
		if key == "reviews" {
			list = ep.Reviews
		}
		if slices.Contains(list, name) {
			return true
		}
	}
	return false
}
