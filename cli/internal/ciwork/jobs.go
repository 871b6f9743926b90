// Package ciwork turns a project's configuration into GitHub Actions work:
// the job list that `agent-gauntlet ci list-jobs` prints (the TypeScript
// tool's, plus review jobs and what the generated workflow reads; docs/ci.md),
// the workflow that `agent-gauntlet ci init` writes, and the starter
// .gauntlet/ci.yml.
package ciwork

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/agent-gauntlet/agent-gauntlet/runner"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// Jobs is what `ci list-jobs` prints: upstream's matrix, services and
// runtimes, plus the opted-in review jobs and the log directory the
// workflow uploads.
type Jobs struct {
	// Matrix holds one job per check gate and working directory.
	Matrix []Job `json:"matrix"`
	// Services and Runtimes are ci.yml's sections as written.
	Services map[string]any `json:"services"`
	Runtimes map[string]any `json:"runtimes"`
	// Reviews holds one job per opted-in review gate and working directory.
	Reviews []Job `json:"reviews"`
	// LogDir is log_dir, relative to the project root.
	LogDir string `json:"log_dir"`
}

// Job is one CI job: one gate in one working directory. Its first nine
// fields are upstream's (Command for checks only).
type Job struct {
	// ID is "<gate>-<entry point with / replaced by ->".
	ID   string `json:"id"`
	Name string `json:"name"`
	// EntryPoint is the expanded entry point path.
	EntryPoint string `json:"entry_point"`
	// WorkingDirectory is relative to the project root.
	WorkingDirectory string `json:"working_directory"`
	// Command is the check's command as written (checks only).
	Command  string   `json:"command,omitempty"`
	Runtimes []string `json:"runtimes"`
	Services []string `json:"services"`
	// Setup and GlobalSetup are shell scripts (see FormatSetup).
	Setup       string `json:"setup"`
	GlobalSetup string `json:"global_setup"`
	// Secrets the job gets as environment variables.
	Secrets []string `json:"secrets"`
	// Artifact names the artifact the job's logs are uploaded as: unique
	// among the jobs, and free of the characters artifact names refuse.
	Artifact string `json:"artifact"`
}

// MaxMatrixJobs is the most jobs GitHub Actions runs from one matrix.
const MaxMatrixJobs = 256

// Warnings says what in jobs GitHub Actions would refuse: a matrix of more
// than MaxMatrixJobs jobs.
func (j Jobs) Warnings() []string {
	var out []string
	for _, m := range []struct {
		what string
		n    int
	}{{"check", len(j.Matrix)}, {"review", len(j.Reviews)}} {
		if m.n > MaxMatrixJobs {
			out = append(out, fmt.Sprintf("%d %s jobs: GitHub Actions runs at most %d jobs per matrix (fewer entry points or gates in %s)",
				m.n, m.what, MaxMatrixJobs, filepath.Join(config.Dir, config.CIFile)))
		}
	}
	return out
}

// ArtifactPrefix starts the name of every log artifact.
const ArtifactPrefix = "gauntlet-logs-"

// List computes the CI jobs of the project at root from its loaded
// configuration: for every entry point (wildcards expanded to the existing
// directories), every gate that ci.yml lists and that runs in CI, in
// ci.yml's order, de-duplicated by gate name and working directory.
func List(root string, cfg *config.Config) Jobs {
	jobs := Jobs{
		Matrix:   []Job{},
		Services: map[string]any{},
		Runtimes: map[string]any{},
		Reviews:  []Job{},
		LogDir:   filepath.ToSlash(filepath.Clean(cfg.LogDir)),
	}
	ci := cfg.CI
	if ci == nil {
		return jobs
	}
	for _, s := range ci.Services {
		jobs.Services[s.Name] = s.Raw
	}
	for _, r := range ci.Runtimes {
		jobs.Runtimes[r.Name] = r.Raw
	}
	global := FormatSetup(ci.Setup)
	all, _ := runner.AllJobs(root, cfg, true)
	seen := map[string]bool{}
	names := artifactNames{}
	for _, dj := range inCIOrder(all, ci) {
		gate, listed := ci.Check(dj.Name)
		if dj.Kind != runner.KindCheck {
			gate, listed = ci.Review(dj.Name)
		}
		key := dj.Kind + "\x00" + dj.Name + "\x00" + dj.WorkingDir
		if !listed || seen[key] {
			continue
		}
		seen[key] = true
		id := dj.Name + "-" + strings.ReplaceAll(dj.EntryPoint, "/", "-")
		j := Job{
			ID: id, Name: dj.Name, EntryPoint: dj.EntryPoint, WorkingDirectory: dj.WorkingDir,
			Runtimes: orEmpty(gate.RequiresRuntimes), Services: orEmpty(gate.RequiresServices),
			Setup: FormatSetup(gate.Setup), GlobalSetup: global, Secrets: orEmpty(gate.Secrets), Artifact: names.unique(id),
		}
		if dj.Kind == runner.KindCheck {
			j.Command = cfg.Checks[dj.Name].Command
			jobs.Matrix = append(jobs.Matrix, j)
			continue
		}
		jobs.Reviews = append(jobs.Reviews, j)
	}
	return jobs
}

// inCIOrder orders the jobs of each entry point as ci.yml lists their
// gates (checks, then reviews), keeping the entry points' order.
func inCIOrder(jobs []runner.DetectedJob, ci *config.CI) []runner.DetectedJob {
	rank := map[string]int{}
	for i, g := range ci.Checks {
		if _, ok := rank[runner.KindCheck+g.Name]; !ok {
			rank[runner.KindCheck+g.Name] = i
		}
	}
	for i, g := range ci.Reviews {
		if _, ok := rank[runner.KindReview+g.Name]; !ok {
			rank[runner.KindReview+g.Name] = len(ci.Checks) + i
		}
	}
	out := slices.Clone(jobs)
	for start := 0; start < len(out); {
		end := start + 1
		for end < len(out) && out[end].EntryPoint == out[start].EntryPoint {
			end++
		}
		slices.SortStableFunc(out[start:end], func(a, b runner.DetectedJob) int {
			return cmp.Compare(rankOf(rank, a), rankOf(rank, b))
		})
		start = end
	}
	return out
}

// rankOf is a job's position in ci.yml; gates it does not list go last.
func rankOf(rank map[string]int, j runner.DetectedJob) int {
	if r, ok := rank[j.Kind+j.Name]; ok {
		return r
	}
	return len(rank)
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// artifactNames hands out unique artifact names.
type artifactNames map[string]bool

// unique returns ArtifactPrefix+id with every character that artifact
// names refuse replaced by '_', made unique with a -2, -3, ... suffix.
func (a artifactNames) unique(id string) string {
	base := ArtifactPrefix + strings.Map(func(r rune) rune {
		if strings.ContainsRune("\":<>|*?\\/\r\n", r) {
			return '_'
		}
		return r
	}, id)
	name := base
	for n := 2; a[name]; n++ {
		name = base + "-" + strconv.Itoa(n)
	}
	a[name] = true
	return name
}

// FormatSetup renders setup steps as one shell script, as upstream does:
// each step between `echo "::group::<name>"` and `echo "::endgroup::"`.
// Unlike upstream, names and directories are quoted for the shell, a step
// with a working_directory runs in a subshell that stops if cd fails, and
// a step's if (a shell condition) is honoured. No steps give "".
func FormatSetup(steps []config.CISetupStep) string {
	var parts []string
	for _, s := range steps {
		body := s.Run
		if s.WorkingDirectory != "" {
			body = "(\ncd " + shellQuote(filepath.ToSlash(s.WorkingDirectory)) + "\n" + body + "\n)"
		}
		if s.If != "" {
			body = "if " + s.If + "\nthen\n" + body + "\nelse\necho " + shellQuote("Skipped: the condition failed: "+s.If) + "\nfi"
		}
		parts = append(parts, "echo "+shellQuote("::group::"+s.Name)+"\n"+body+"\necho '::endgroup::'")
	}
	return strings.Join(parts, "\n")
}

// shellQuote quotes s as one word for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
