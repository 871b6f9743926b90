package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/builtin"
)

// minimalConfig is the smallest valid config.yml.
const minimalConfig = `cli:
  default_preference: [claude, codex]
entry_points:
  - path: .
`

// writeTree creates files (path relative to root → content) under a new
// temporary root and returns the root. When the test ends, the tree as it
// then is must load from memory (LoadFiles of ReadFiles) as it loads from
// disk: every table of this package is a case of that differential test.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	t.Cleanup(func() { checkLoadFilesAgrees(t, root) })
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func ptr[T any](v T) *T { return &v }

func TestLoadDefaults(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gauntlet/config.yml":         minimalConfig,
		".gauntlet/checks/lint.yml":    "command: make lint\n",
		".gauntlet/reviews/quality.md": "Review the code.\n",
	})
	cfg, err := Load(t.Context(), root)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := &Config{
		Root:                   root,
		BaseBranch:             DefaultBaseBranch,
		LogDir:                 DefaultLogDir,
		AllowParallel:          true,
		MaxRetries:             DefaultMaxRetries,
		RerunNewIssueThreshold: PriorityHigh,
		CLI:                    CLI{DefaultPreference: []string{"claude", "codex"}},
		EntryPoints:            []EntryPoint{{Path: "."}},
		Checks: map[string]*Check{"lint": {
			Name: "lint", File: ".gauntlet/checks/lint.yml", Command: "make lint",
			RunLocally: true, RunInCI: true, Cache: CacheTree,
		}},
		Reviews: map[string]*Review{"quality": {
			Name: "quality", File: ".gauntlet/reviews/quality.md", Prompt: "Review the code.\n", OwnText: true,
			CLIPreference: []string{"claude", "codex"}, NumReviews: 1,
			Parallel: true, RunInCI: true, RunLocally: true, Cache: CacheTree,
		}},
		Cache:    CacheSettings{Enabled: true, MaxSizeMB: DefaultCacheMaxSizeMB},
		Warnings: []string{".gauntlet/config.yml: entry_points[0]: entry point has no checks and no reviews"},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("Load =\n%#v\nwant\n%#v", cfg, want)
	}
	if got, want := cfg.LogDirPath(), filepath.Join(root, "gauntlet_logs"); got != want {
		t.Errorf("LogDirPath = %q, want %q", got, want)
	}
}

func TestLoadEveryField(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gauntlet/config.yml": `base_branch: origin/develop
log_dir: out/logs
allow_parallel: false
max_retries: 5
rerun_new_issue_threshold: medium
cli:
  default_preference: [codex, claude, gemini]
  check_usage_limit: true
entry_points:
  - path: src/*
    exclude: [src/vendor]
    checks: [lint]
    reviews: [quality]
debug_log:
  enabled: true
  max_size_mb: 2.5
stop_hook:
  enabled: false
  run_interval_minutes: 0
  verify_on_continue: true
cache:
  enabled: false
  max_size_mb: 0.5
logging:
  level: info
  console: {enabled: false, format: json}
  file: {enabled: true, format: text}
`,
		".gauntlet/checks/lint.yaml": `command: golangci-lint run --new-from-rev=${BASE_BRANCH}
working_directory: src
parallel: false
run_locally: false
run_in_ci: false
timeout: 1.5
fail_fast: true
fix_instructions: fixes/lint.md
cache: entry_point
format: golangci-lint
junit: reports/*.xml
`,
		".gauntlet/fixes/lint.md": "Run make fmt.\n",
		".gauntlet/reviews/quality.md": `---
cli_preference: [gemini, codex]
num_reviews: 2
parallel: false
run_in_ci: false
run_locally: false
timeout: 300
model: opus
cache: false
---
Find bugs.
`,
	})
	cfg, err := Load(t.Context(), root)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := &Config{
		Root:                   root,
		BaseBranch:             "origin/develop",
		LogDir:                 "out/logs",
		AllowParallel:          false,
		MaxRetries:             5,
		RerunNewIssueThreshold: PriorityMedium,
		CLI:                    CLI{DefaultPreference: []string{"codex", "claude", "gemini"}, CheckUsageLimit: true},
		EntryPoints:            []EntryPoint{{Path: "src/*", Exclude: []string{"src/vendor"}, Checks: []string{"lint"}, Reviews: []string{"quality"}}},
		DebugLog:               DebugLogSettings{Enabled: ptr(true), MaxSizeMB: ptr(2.5)},
		StopHook:               StopHookSettings{Enabled: ptr(false), RunIntervalMinutes: ptr(0), VerifyOnContinue: ptr(true)},
		Cache:                  CacheSettings{Enabled: false, MaxSizeMB: 0.5},
		Checks: map[string]*Check{"lint": {
			Name: "lint", File: ".gauntlet/checks/lint.yaml",
			Command:          "golangci-lint run --new-from-rev=${BASE_BRANCH}",
			WorkingDirectory: "src", Timeout: 1500 * time.Millisecond, FailFast: true,
			FixInstructionsFile: "fixes/lint.md", FixInstructions: "Run make fmt.\n", Cache: CacheEntryPoint,
			Format: "golangci-lint", JUnit: "reports/*.xml",
		}},
		Reviews: map[string]*Review{"quality": {
			Name: "quality", File: ".gauntlet/reviews/quality.md", Prompt: "Find bugs.\n", OwnText: true,
			CLIPreference: []string{"gemini", "codex"}, NumReviews: 2,
			Timeout: 300 * time.Second, Model: "opus", Cache: CacheOff,
		}},
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("Load =\n%#v\nwant\n%#v", cfg, want)
	}
}

// problemCase is a tree that must fail to load with exactly these lines.
type problemCase struct {
	name  string
	files map[string]string
	want  []string
}

func runProblemCases(t *testing.T, cases []problemCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{".gauntlet/config.yml": minimalConfig}
			for k, v := range tc.files {
				files[k] = v
			}
			root := writeTree(t, files)
			cfg, err := Load(t.Context(), root)
			if err == nil {
				t.Fatalf("Load succeeded: %#v", cfg)
			}
			if cfg != nil {
				t.Errorf("Load returned a config with an error")
			}
			var errs *Errors
			if !errors.As(err, &errs) {
				t.Fatalf("error %T %v is not *Errors", err, err)
			}
			if got := errs.Lines(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if err.Error() != strings.Join(tc.want, "\n") {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

func TestLoadProjectFileProblems(t *testing.T) {
	const cfgFile = ".gauntlet/config.yml"
	cfg := func(s string) map[string]string { return map[string]string{cfgFile: s} }
	runProblemCases(t, []problemCase{
		{"empty file", cfg(""), []string{
			cfgFile + ": cli: is required",
			cfgFile + ": entry_points: is required",
		}},
		{"not a mapping", cfg("- a\n- b\n"), []string{cfgFile + ": must be a YAML mapping of keys to values"}},
		{"scalar document", cfg("hello\n"), []string{cfgFile + ": must be a YAML mapping of keys to values"}},
		{"invalid YAML names the line", cfg("cli:\n  default_preference: [claude\nentry_points: x: y\n"), []string{
			cfgFile + ": invalid YAML: line 2: did not find expected ',' or ']'",
		}},
		{"duplicate key", cfg(minimalConfig + "cli: {}\n"), []string{
			cfgFile + `: invalid YAML: line 5: key "cli" already set in map`,
		}},
		{"null required sections", cfg("cli:\nentry_points:\n"), []string{
			cfgFile + ": cli: is required",
			cfgFile + ": entry_points: is required",
		}},
		{"base_branch", cfg(minimalConfig + "base_branch: ''\n"), []string{cfgFile + ": base_branch: must not be empty"}},
		{"base_branch type", cfg(minimalConfig + "base_branch: [a]\n"), []string{cfgFile + ": base_branch: must be a string"}},
		{"log_dir absolute", cfg(minimalConfig + "log_dir: /tmp/logs\n"), []string{
			cfgFile + ": log_dir: must be a path relative to the project root, not an absolute path",
		}},
		{"log_dir escaping", cfg(minimalConfig + "log_dir: logs/../../x\n"), []string{
			cfgFile + `: log_dir: must stay inside the project root ("logs/../../x" leads out of it)`,
		}},
		{"log_dir parent", cfg(minimalConfig + "log_dir: ..\n"), []string{
			cfgFile + `: log_dir: must stay inside the project root (".." leads out of it)`,
		}},
		{"log_dir root", cfg(minimalConfig + "log_dir: ./\n"), []string{
			cfgFile + ": log_dir: must be a directory inside the project root, not the root itself",
		}},
		{"log_dir .gauntlet", cfg(minimalConfig + "log_dir: .gauntlet\n"), []string{
			cfgFile + ": log_dir: must not be the .gauntlet directory",
		}},
		{"log_dir empty", cfg(minimalConfig + "log_dir: ' '\n"), []string{cfgFile + ": log_dir: must not be empty"}},
		{"allow_parallel", cfg(minimalConfig + "allow_parallel: 'yes'\n"), []string{cfgFile + ": allow_parallel: must be true or false"}},
		{"max_retries string", cfg(minimalConfig + "max_retries: three\n"), []string{cfgFile + ": max_retries: must be an integer"}},
		{"max_retries fraction", cfg(minimalConfig + "max_retries: 1.5\n"), []string{cfgFile + ": max_retries: must be an integer"}},
		{"max_retries negative", cfg(minimalConfig + "max_retries: -1\n"), []string{cfgFile + ": max_retries: must be a non-negative integer"}},
		{"rerun_new_issue_threshold", cfg(minimalConfig + "rerun_new_issue_threshold: 3\n"), []string{
			cfgFile + ": rerun_new_issue_threshold: must be a string",
		}},
		{"rerun_new_issue_threshold enum", cfg(minimalConfig + "rerun_new_issue_threshold: urgent\n"), []string{
			cfgFile + `: rerun_new_issue_threshold: must be one of critical, high, medium, low (got "urgent")`,
		}},
		{"cli not a mapping", cfg("cli: claude\nentry_points: [{path: .}]\n"), []string{cfgFile + ": cli: must be a mapping"}},
		{"default_preference missing", cfg("cli: {check_usage_limit: true}\nentry_points: [{path: .}]\n"), []string{
			cfgFile + ": cli.default_preference: is required",
		}},
		{"default_preference empty", cfg("cli: {default_preference: []}\nentry_points: [{path: .}]\n"), []string{
			cfgFile + ": cli.default_preference: must list at least one CLI (claude, codex, gemini, github-copilot, cursor)",
		}},
		{"default_preference not a list", cfg("cli: {default_preference: claude}\nentry_points: [{path: .}]\n"), []string{
			cfgFile + ": cli.default_preference: must be a list of strings",
		}},
		{"default_preference bad items", cfg("cli: {default_preference: [claude, '', 3]}\nentry_points: [{path: .}]\n"), []string{
			cfgFile + ": cli.default_preference[1]: must be a non-empty string",
			cfgFile + ": cli.default_preference[2]: must be a non-empty string",
		}},
		{"default_preference unknown CLI", cfg("cli: {default_preference: [claude, chatgpt, copilot]}\nentry_points: [{path: .}]\n"), []string{
			cfgFile + `: cli.default_preference[1]: unknown CLI "chatgpt" (valid: claude, codex, gemini, github-copilot, cursor)`,
			cfgFile + `: cli.default_preference[2]: unknown CLI "copilot" (valid: claude, codex, gemini, github-copilot, cursor)`,
		}},
		{"check_usage_limit", cfg("cli: {default_preference: [claude], check_usage_limit: 1}\nentry_points: [{path: .}]\n"), []string{
			cfgFile + ": cli.check_usage_limit: must be true or false",
		}},
		{"entry_points empty", cfg("cli: {default_preference: [claude]}\nentry_points: []\n"), []string{
			cfgFile + ": entry_points: must list at least one entry point",
		}},
		{"entry_points not a list", cfg("cli: {default_preference: [claude]}\nentry_points: {path: .}\n"), []string{
			cfgFile + ": entry_points: must be a list",
		}},
		{"entry point not a mapping", cfg("cli: {default_preference: [claude]}\nentry_points: [src, null]\n"), []string{
			cfgFile + ": entry_points[0]: must be a mapping",
			cfgFile + ": entry_points[1]: must be a mapping",
		}},
		{"entry point path", cfg("cli: {default_preference: [claude]}\nentry_points: [{checks: []}, {path: ''}]\n"), []string{
			cfgFile + ": entry_points[0].path: is required",
			cfgFile + ": entry_points[1].path: must not be empty",
		}},
		{"entry point path absolute", cfg("cli: {default_preference: [claude]}\nentry_points: [{path: /src}, {path: /}]\n"), []string{
			cfgFile + ": entry_points[0].path: must be a path relative to the project root, not an absolute path",
			cfgFile + ": entry_points[1].path: must be a path relative to the project root, not an absolute path",
		}},
		{"entry point path with ..", cfg("cli: {default_preference: [claude]}\nentry_points: [{path: ..}, {path: ../other/*}, {path: src/../lib}, {path: 'a/..'}]\n"), []string{
			cfgFile + `: entry_points[0].path: must stay inside the project root (".." leads out of it)`,
			cfgFile + `: entry_points[1].path: must stay inside the project root ("../other/*" leads out of it)`,
			cfgFile + `: entry_points[2].path: must not hold a .. element (write "lib")`,
			cfgFile + `: entry_points[3].path: must not hold a .. element (write ".")`,
		}},
		{"entry point lists", cfg("cli: {default_preference: [claude]}\nentry_points: [{path: ., exclude: x, checks: [''], reviews: [{}]}]\n"), []string{
			cfgFile + ": entry_points[0].exclude: must be a list of strings",
			cfgFile + ": entry_points[0].checks[0]: must be a non-empty string",
			cfgFile + ": entry_points[0].reviews[0]: must be a non-empty string",
		}},
		{"unknown gates", cfg("cli: {default_preference: [claude]}\nentry_points: [{path: ., checks: [lint]}, {path: src, checks: [lintt], reviews: [qa]}]\n"), []string{
			cfgFile + `: entry_points[0].checks: unknown check gate "lint"`,
			cfgFile + `: entry_points[1].checks: unknown check gate "lintt"`,
			cfgFile + `: entry_points[1].reviews: unknown review gate "qa"`,
		}},
		{"debug_log", cfg(minimalConfig + "debug_log: {enabled: on please, max_size_mb: 0}\n"), []string{
			cfgFile + ": debug_log.enabled: must be true or false",
			cfgFile + ": debug_log.max_size_mb: must be a positive number",
		}},
		{"debug_log size type", cfg(minimalConfig + "debug_log: {max_size_mb: big}\n"), []string{
			cfgFile + ": debug_log.max_size_mb: must be a number",
		}},
		{"debug_log not a mapping", cfg(minimalConfig + "debug_log: true\n"), []string{cfgFile + ": debug_log: must be a mapping"}},
		{"stop_hook", cfg(minimalConfig + "stop_hook: {enabled: 'true', run_interval_minutes: -5, verify_on_continue: 1}\n"), []string{
			cfgFile + ": stop_hook.enabled: must be true or false",
			cfgFile + ": stop_hook.run_interval_minutes: must be a non-negative integer",
			cfgFile + ": stop_hook.verify_on_continue: must be true or false",
		}},
		{"cache", cfg(minimalConfig + "cache: {enabled: yes please, max_size_mb: 0}\n"), []string{
			cfgFile + ": cache.enabled: must be true or false",
			cfgFile + ": cache.max_size_mb: must be a positive number",
		}},
		{"cache size", cfg(minimalConfig + "cache: {max_size_mb: 1e9}\n"), []string{
			cfgFile + ": cache.max_size_mb: must be at most 10240 MB",
		}},
		{"cache not a mapping", cfg(minimalConfig + "cache: false\n"), []string{cfgFile + ": cache: must be a mapping"}},
		{"stop_hook interval fraction", cfg(minimalConfig + "stop_hook: {run_interval_minutes: 2.5}\n"), []string{
			cfgFile + ": stop_hook.run_interval_minutes: must be an integer",
		}},
		{"logging", cfg(minimalConfig + "logging: {level: trace, console: {enabled: 2, format: xml}, file: {format: yaml}}\n"), []string{
			cfgFile + `: logging.level: must be one of debug, info, warning, error (got "trace")`,
			cfgFile + ": logging.console.enabled: must be true or false",
			cfgFile + `: logging.console.format: must be one of pretty, json (got "xml")`,
			cfgFile + `: logging.file.format: must be one of text, json (got "yaml")`,
		}},
	})
}

func TestLoadCheckProblems(t *testing.T) {
	const lint = ".gauntlet/checks/lint.yml"
	check := func(s string) map[string]string { return map[string]string{lint: s} }
	runProblemCases(t, []problemCase{
		{"command missing", check("parallel: true\n"), []string{lint + ": command: is required"}},
		{"command empty", check("command: ''\n"), []string{lint + ": command: must not be empty"}},
		{"command type", check("command: [make, lint]\n"), []string{lint + ": command: must be a string"}},
		{"empty file", check(""), []string{lint + ": command: is required"}},
		{"not a mapping", check("make lint\n"), []string{lint + ": must be a YAML mapping of keys to values"}},
		{"invalid YAML", check("command: make\n  lint: x\n"), []string{lint + ": invalid YAML: line 2: mapping values are not allowed in this context"}},
		{"working_directory absolute", check("command: x\nworking_directory: /src\n"), []string{
			lint + ": working_directory: must be a path relative to the project root, not an absolute path",
		}},
		{"working_directory escaping", check("command: x\nworking_directory: ../other\n"), []string{
			lint + `: working_directory: must stay inside the project root ("../other" leads out of it)`,
		}},
		{"booleans", check("command: x\nparallel: 1\nrun_locally: no thanks\nrun_in_ci: []\nfail_fast: 0\n"), []string{
			lint + ": parallel: must be true or false",
			lint + ": run_locally: must be true or false",
			lint + ": run_in_ci: must be true or false",
			lint + ": fail_fast: must be true or false",
		}},
		{"cache word", check("command: x\ncache: entrypoint\n"), []string{
			lint + `: cache: must be true, false or entry_point (got "entrypoint")`,
		}},
		{"cache type", check("command: x\ncache: 1\n"), []string{lint + ": cache: must be true, false or entry_point"}},
		{"format unknown", check("command: x\nformat: gotest\n"), []string{
			lint + `: format: must be an output format the gauntlet reads (got "gotest"): one of ` + strings.Join(CheckFormats, ", "),
		}},
		{"format type", check("command: x\nformat: [govet]\n"), []string{lint + ": format: must be a string"}},
		{"junit absolute", check("command: x\njunit: /tmp/report.xml\n"), []string{
			lint + ": junit: must be a path relative to the check's working directory, not an absolute path",
		}},
		{"junit escaping", check("command: x\njunit: ../report.xml\n"), []string{
			lint + `: junit: must stay inside the check's working directory ("../report.xml" leads out of it)`,
		}},
		{"junit bad glob", check("command: x\njunit: reports/[a.xml\n"), []string{
			lint + ": junit: is not a valid glob pattern: syntax error in pattern",
		}},
		{"timeout zero", check("command: x\ntimeout: 0\n"), []string{lint + ": timeout: must be a positive number"}},
		{"timeout negative", check("command: x\ntimeout: -3\n"), []string{lint + ": timeout: must be a positive number"}},
		{"timeout type", check("command: x\ntimeout: 30s\n"), []string{lint + ": timeout: must be a number"}},
		{"timeout huge", check("command: x\ntimeout: 1e300\n"), []string{lint + ": timeout: must be at most 9223372036 seconds"}},
		{"fail_fast with parallel", check("command: x\nparallel: true\nfail_fast: true\n"), []string{
			lint + ": fail_fast: fail_fast can only be used when parallel is false",
		}},
		{"fix_instructions absolute", check("command: x\nfix_instructions: /etc/passwd\n"), []string{
			lint + ": fix_instructions: must be a path relative to .gauntlet/, not an absolute path",
		}},
		{"fix_instructions escaping", check("command: x\nfix_instructions: ../README.md\n"), []string{
			lint + `: fix_instructions: must stay inside .gauntlet/ ("../README.md" leads out of it)`,
		}},
		{"fix_instructions the dir itself", check("command: x\nfix_instructions: fixes/..\n"), []string{
			lint + ": fix_instructions: must name a file inside .gauntlet/, not the directory itself",
		}},
		{"fix_instructions missing", check("command: x\nfix_instructions: fixes/lint.md\n"), []string{
			lint + ": fix_instructions: file .gauntlet/fixes/lint.md does not exist",
		}},
		{"fix_instructions a directory", map[string]string{
			lint: "command: x\nfix_instructions: fixes\n", ".gauntlet/fixes/": "",
		}, []string{lint + ": fix_instructions: .gauntlet/fixes is a directory, not a regular file"}},
		{"duplicate gate name", map[string]string{
			lint: "command: a\n", ".gauntlet/checks/lint.yaml": "command: b\n",
		}, []string{`.gauntlet/checks/lint.yml: duplicate check gate "lint" (already defined by .gauntlet/checks/lint.yaml)`}},
		{"broken gate is not also unknown", map[string]string{
			".gauntlet/config.yml": "cli: {default_preference: [claude]}\nentry_points: [{path: ., checks: [lint]}]\n",
			lint:                   "command: [\n",
		}, []string{lint + ": invalid YAML: line 1: did not find expected node content"}},
	})
}

func TestLoadReviewProblems(t *testing.T) {
	const qa = ".gauntlet/reviews/qa.md"
	review := func(s string) map[string]string { return map[string]string{qa: s} }
	runProblemCases(t, []problemCase{
		{"cli_preference empty", review("---\ncli_preference: []\n---\nx"), []string{
			qa + ": cli_preference: must list at least one CLI (leave it out to use cli.default_preference)",
		}},
		{"cli_preference unknown", review("---\ncli_preference: [claude, chatgpt]\n---\nx"), []string{
			qa + `: cli_preference: unknown CLI "chatgpt" (valid: claude, codex, gemini, github-copilot, cursor)`,
		}},
		{"cli_preference not allowed", review("---\ncli_preference: [gemini]\n---\nx"), []string{
			qa + `: cli_preference: CLI "gemini" is not in cli.default_preference (claude, codex) of .gauntlet/config.yml`,
		}},
		{"cli_preference type", review("---\ncli_preference: claude\n---\nx"), []string{
			qa + ": cli_preference: must be a list of strings",
		}},
		{"num_reviews zero", review("---\nnum_reviews: 0\n---\nx"), []string{qa + ": num_reviews: must be an integer >= 1"}},
		{"num_reviews fraction", review("---\nnum_reviews: 1.5\n---\nx"), []string{qa + ": num_reviews: must be an integer"}},
		{"cache", review("---\ncache: [entry_point]\n---\nx"), []string{qa + ": cache: must be true, false or entry_point"}},
		{"timeout", review("---\ntimeout: 0\n---\nx"), []string{qa + ": timeout: must be a positive number"}},
		{"booleans and model", review("---\nparallel: x\nrun_in_ci: x\nrun_locally: x\nmodel: 4\n---\nx"), []string{
			qa + ": parallel: must be true or false",
			qa + ": run_in_ci: must be true or false",
			qa + ": run_locally: must be true or false",
			qa + ": model: must be a string",
		}},
		{"unclosed front matter", review("---\nnum_reviews: 2\nReview this.\n"), []string{
			qa + ": front matter opened with --- on line 1 is never closed (add a line holding only ---)",
		}},
		{"front matter YAML error names the file line", review("---\nnum_reviews: 2\n  bad: [\n---\nx"), []string{
			qa + ": invalid YAML: line 3: mapping values are not allowed in this context",
		}},
		{"front matter not a mapping", review("---\n- a\n---\nx"), []string{qa + ": must be a YAML mapping of keys to values"}},
		{"builtin unknown", review("---\nbuiltin: style\n---\n"), []string{
			qa + `: builtin: unknown built-in review "style" (want one of code-quality, security, error-handling, test-integrity)`,
		}},
		{"builtin type", review("---\nbuiltin: [security]\n---\n"), []string{qa + ": builtin: must be a string"}},
	})
}

func TestLoadReportsEveryProblemTogether(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gauntlet/config.yml":        "max_retries: x\ncli: {default_preference: [claude]}\nentry_points: [{path: ., checks: [lint, nope]}]\n",
		".gauntlet/checks/lint.yml":   "command: ''\ntimeout: 0\n",
		".gauntlet/checks/test.yml":   "command: go test\nunknown: 1\n",
		".gauntlet/reviews/qa.md":     "---\nnum_reviews: 0\nextra: 1\n---\n",
		".gauntlet/reviews/notes.txt": "not a review",
	})
	_, err := Load(t.Context(), root)
	var errs *Errors
	if !errors.As(err, &errs) {
		t.Fatalf("Load error = %v, want *Errors", err)
	}
	want := []string{
		".gauntlet/config.yml: max_retries: must be an integer",
		`.gauntlet/config.yml: entry_points[0].checks: unknown check gate "nope"`,
		".gauntlet/checks/lint.yml: command: must not be empty",
		".gauntlet/checks/lint.yml: timeout: must be a positive number",
		".gauntlet/reviews/qa.md: num_reviews: must be an integer >= 1",
	}
	if got := errs.Lines(); !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	wantWarnings := []string{
		`.gauntlet/checks/test.yml: unknown key "unknown" (ignored)`,
		`.gauntlet/reviews/qa.md: unknown key "extra" (ignored)`,
	}
	if !reflect.DeepEqual(errs.Warnings, wantWarnings) {
		t.Errorf("warnings = %q, want %q", errs.Warnings, wantWarnings)
	}
}

func TestLoadWarnings(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gauntlet/config.yml": `name: agent-gauntlet
cli:
  default_preference: [claude]
  extra: 1
entry_points:
  - path: .
    checks: [lint]
    note: x
  - path: docs
stop_hook: {interval: 3}
debug_log: {size: 3}
logging: {sink: x, console: {color: true}, file: {path: x}}
`,
		".gauntlet/checks/lint.yml":  "name: lint\ncommand: make lint\n",
		".gauntlet/reviews/style.md": "---\npass_pattern: PASS\nb: 1\na: 2\n---\nbody",
	})
	cfg, err := Load(t.Context(), root)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	want := []string{
		`.gauntlet/config.yml: cli: unknown key "extra" (ignored)`,
		`.gauntlet/config.yml: entry_points[0]: unknown key "note" (ignored)`,
		`.gauntlet/config.yml: entry_points[1]: entry point has no checks and no reviews`,
		`.gauntlet/config.yml: debug_log: unknown key "size" (ignored)`,
		`.gauntlet/config.yml: stop_hook: unknown key "interval" (ignored)`,
		`.gauntlet/config.yml: logging.console: unknown key "color" (ignored)`,
		`.gauntlet/config.yml: logging.file: unknown key "path" (ignored)`,
		`.gauntlet/config.yml: logging: unknown key "sink" (ignored)`,
		`.gauntlet/config.yml: unknown key "name" (ignored)`,
		`.gauntlet/checks/lint.yml: unknown key "name" (ignored)`,
		`.gauntlet/reviews/style.md: unknown key "a" (ignored)`,
		`.gauntlet/reviews/style.md: unknown key "b" (ignored)`,
		`.gauntlet/reviews/style.md: unknown key "pass_pattern" (ignored)`,
	}
	if !reflect.DeepEqual(cfg.Warnings, want) {
		t.Errorf("warnings:\n  %s\nwant:\n  %s", strings.Join(cfg.Warnings, "\n  "), strings.Join(want, "\n  "))
	}
}

func TestLoadNotFound(t *testing.T) {
	root := t.TempDir()
	load := func(root string) (*Config, error) { return Load(t.Context(), root) }
	for _, load := range []func(string) (*Config, error){load, LoadProjectFile} {
		_, err := load(root)
		if !errors.Is(err, ErrNotFound) {
			t.Fatalf("error %v is not ErrNotFound", err)
		}
		want := "no .gauntlet/config.yml found in " + root + " or any parent directory up to the git top level"
		if err.Error() != want {
			t.Errorf("error = %q, want %q", err.Error(), want)
		}
	}
}

func TestLoadRelativeRoot(t *testing.T) {
	root := writeTree(t, map[string]string{".gauntlet/config.yml": minimalConfig})
	t.Chdir(root)
	cfg, err := Load(t.Context(), ".")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Root != root {
		t.Errorf("Root = %q, want %q", cfg.Root, root)
	}
}

func TestLoadUnreadableGateDir(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gauntlet/config.yml": minimalConfig,
		".gauntlet/checks":     "not a directory",
	})
	_, err := Load(t.Context(), root)
	want := ".gauntlet/checks: is a regular file, not a directory"
	if err == nil || err.Error() != want {
		t.Errorf("Load error = %v, want %q", err, want)
	}
}

// TestLoadBuiltinReviews pins `builtin:`: the shipped prompt is the
// review's prompt, the file's own body (optional) follows it, and a file
// without the key keeps its body as the whole prompt.
func TestLoadBuiltinReviews(t *testing.T) {
	security, _ := builtin.Prompt(builtin.Security)
	tests := []struct {
		name, content, builtinName string
		own                        bool
		prompt                     func(string) bool
	}{
		{"builtin without body", "---\nbuiltin: security\n---\n", builtin.Security, false,
			func(p string) bool { return p == security }},
		{"builtin with body", "---\nbuiltin: security\nnum_reviews: 2\n---\nCheck db/ too.\n", builtin.Security, true,
			func(p string) bool {
				return strings.HasPrefix(p, security[:40]) && strings.HasSuffix(p, "Check db/ too.\n")
			}},
		{"TypeScript-era file", "---\nnum_reviews: 1\n---\nReview for bugs.\n", "", true,
			func(p string) bool { return p == "Review for bugs.\n" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := writeTree(t, map[string]string{".gauntlet/config.yml": minimalConfig, ".gauntlet/reviews/qa.md": tc.content})
			cfg, err := Load(t.Context(), root)
			if err != nil {
				t.Fatal(err)
			}
			r := cfg.Reviews["qa"]
			if r.Builtin != tc.builtinName || r.OwnText != tc.own || !tc.prompt(r.Prompt) {
				t.Errorf("Builtin %q OwnText %v Prompt %q", r.Builtin, r.OwnText, r.Prompt)
			}
		})
	}
}

func TestLoadReviewBodies(t *testing.T) {
	tests := []struct {
		name, content, prompt string
		num                   int
	}{
		{"no front matter", "Just a prompt.\n---\nwith a rule\n", "Just a prompt.\n---\nwith a rule\n", 1},
		{"empty front matter", "---\n---\nPrompt.\n", "Prompt.\n", 1},
		{"rule inside body", "---\nnum_reviews: 2\n---\nPart one.\n---\nPart two.\n", "Part one.\n---\nPart two.\n", 2},
		{"CRLF", "---\r\nnum_reviews: 3\r\n---\r\nLine one.\r\nLine two.\r\n", "Line one.\nLine two.\n", 3},
		{"front matter only", "---\nnum_reviews: 2\n---", "", 2},
		{"comment-only front matter", "---\n# nothing here\n---\nP", "P", 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := writeTree(t, map[string]string{
				".gauntlet/config.yml":    minimalConfig,
				".gauntlet/reviews/qa.md": tc.content,
			})
			cfg, err := Load(t.Context(), root)
			if err != nil {
				t.Fatal(err)
			}
			r := cfg.Reviews["qa"]
			if r.Prompt != tc.prompt || r.NumReviews != tc.num {
				t.Errorf("prompt %q num %d, want %q %d", r.Prompt, r.NumReviews, tc.prompt, tc.num)
			}
			if !reflect.DeepEqual(r.CLIPreference, []string{"claude", "codex"}) {
				t.Errorf("CLIPreference = %q, want the default preference", r.CLIPreference)
			}
		})
	}
}

func TestLoadDefaultPreferenceIsCopied(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gauntlet/config.yml":   minimalConfig,
		".gauntlet/reviews/a.md": "a",
	})
	cfg, err := Load(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Reviews["a"].CLIPreference[0] = "changed"
	if cfg.CLI.DefaultPreference[0] != "claude" {
		t.Error("a review's CLIPreference shares its array with cli.default_preference")
	}
}

func TestLoadProjectFile(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gauntlet/config.yml": "cli: {default_preference: [claude]}\nentry_points: [{path: ., checks: [absent]}]\n" +
			"log_dir: logs\nstop_hook: {run_interval_minutes: 3}\n",
		".gauntlet/checks/broken.yml": "command: [\n",
	})
	cfg, err := LoadProjectFile(root)
	if err != nil {
		t.Fatalf("LoadProjectFile: %v", err)
	}
	if cfg.Root != root || cfg.LogDir != "logs" || cfg.BaseBranch != DefaultBaseBranch || cfg.MaxRetries != DefaultMaxRetries {
		t.Errorf("unexpected config %#v", cfg)
	}
	if cfg.StopHook.RunIntervalMinutes == nil || *cfg.StopHook.RunIntervalMinutes != 3 {
		t.Errorf("StopHook = %#v", cfg.StopHook)
	}
	if len(cfg.Checks) != 0 || len(cfg.Reviews) != 0 {
		t.Errorf("gates were loaded: %v %v", cfg.Checks, cfg.Reviews)
	}

	bad := writeTree(t, map[string]string{".gauntlet/config.yml": "log_dir: /abs\n"})
	_, err = LoadProjectFile(bad)
	want := ".gauntlet/config.yml: log_dir: must be a path relative to the project root, not an absolute path\n" +
		".gauntlet/config.yml: cli: is required\n" +
		".gauntlet/config.yml: entry_points: is required"
	if err == nil || err.Error() != want {
		t.Errorf("LoadProjectFile error = %v, want %q", err, want)
	}
}

func TestKnownAdapters(t *testing.T) {
	for _, a := range KnownAdapters() {
		if !IsKnownAdapter(a) {
			t.Errorf("IsKnownAdapter(%q) = false", a)
		}
	}
	for _, a := range []string{"", "Claude", "copilot", "chatgpt"} {
		if IsKnownAdapter(a) {
			t.Errorf("IsKnownAdapter(%q) = true", a)
		}
	}
	if got := len(KnownAdapters()); got != 5 {
		t.Errorf("%d adapters, want 5", got)
	}
}

func TestProblemString(t *testing.T) {
	tests := []struct {
		p    Problem
		want string
	}{
		{Problem{"f.yml", "a.b", "bad"}, "f.yml: a.b: bad"},
		{Problem{"f.yml", "", "bad"}, "f.yml: bad"},
		{Problem{"", "a", "bad"}, "a: bad"},
		{Problem{"", "", "bad"}, "bad"},
	}
	for _, tc := range tests {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("%#v.String() = %q, want %q", tc.p, got, tc.want)
		}
	}
}

func TestAsInt(t *testing.T) {
	tests := []struct {
		yaml string
		want int
		ok   bool
	}{
		{"3", 3, true},
		{"-2", -2, true},
		{"2.0", 2, true},
		{"1e3", 1000, true},
		{"0x10", 16, true},
		{"1.5", 0, false},
		{"1e300", 0, false},
		{"'3'", 0, false},
		{"true", 0, false},
	}
	for _, tc := range tests {
		v, err := parseYAML([]byte("num: "+tc.yaml), 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.yaml, err)
		}
		got, ok := asInt(v.(map[string]any)["num"])
		if got != tc.want || ok != tc.ok {
			t.Errorf("asInt(%s) = %d, %v; want %d, %v", tc.yaml, got, ok, tc.want, tc.ok)
		}
	}
}

func TestLoadUnreadableProjectFile(t *testing.T) {
	root := writeTree(t, map[string]string{".gauntlet/config.yml/": ""})
	_, err := Load(t.Context(), root)
	want := ".gauntlet/config.yml: is a directory, not a regular file"
	var errs *Errors
	if !errors.As(err, &errs) || err.Error() != want {
		t.Errorf("Load error = %v, want the configuration problem %q", err, want)
	}
}

// BenchmarkLoadProjectFile measures the stop hook's fast-path load.
func BenchmarkLoadProjectFile(b *testing.B) {
	root := b.TempDir()
	if err := os.MkdirAll(filepath.Join(root, Dir), 0o755); err != nil {
		b.Fatal(err)
	}
	content := minimalConfig + "log_dir: logs\nstop_hook: {enabled: true, run_interval_minutes: 5}\n"
	if err := os.WriteFile(filepath.Join(root, Dir, ProjectFile), []byte(content), 0o644); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := LoadProjectFile(root); err != nil {
			b.Fatal(err)
		}
	}
}
