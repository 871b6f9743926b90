package stack

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeTools has the executables in has; Probe passes for the commands in
// probes.
type fakeTools struct {
	has    []string
	probes []string
}

func (f fakeTools) Has(name string) bool { return slices.Contains(f.has, name) }
func (f fakeTools) Probe(_ context.Context, _ string, cmd string) bool {
	return slices.Contains(f.probes, cmd)
}

// everything has every tool the detectors ask for.
var everything = fakeTools{has: []string{"go", "gofmt", "git", "golangci-lint", "node", "npm", "pnpm", "yarn", "bun",
	"python3", "pytest", "ruff", "mypy", "cargo", "mvn", "gradle", "make", "uv", "poetry"},
	probes: []string{"cargo clippy --version"}}

// writeTree writes files (slash paths to contents) under a new directory and
// returns it with the file list.
func writeTree(t *testing.T, files map[string]string) (string, []string) {
	t.Helper()
	root := t.TempDir()
	var list []string
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		list = append(list, rel)
	}
	return root, list
}

// summary renders projects as "dir kind: name=command [missing]" lines.
func summary(ps []Project) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(p.Dir + " " + string(p.Kind) + ":")
		for _, pr := range p.Proposals {
			cmd := pr.Command
			if pr.Name == "gofmt" {
				cmd = "(changed files)"
			}
			b.WriteString(" " + pr.Name + "=" + cmd)
			if pr.Missing != "" {
				b.WriteString(" [missing " + pr.Missing + "]")
			}
			b.WriteString(";")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		tools fakeTools
		want  string
	}{
		{"go", map[string]string{"go.mod": "module x\n", "main.go": "package main\n"}, everything,
			". go: go-vet=go vet ./...; go-test=go test ./...; gofmt=(changed files);\n"},
		{"go with golangci config in a parent, tool missing",
			map[string]string{".golangci.yml": "", "svc/go.mod": "module x\n"},
			fakeTools{has: []string{"go", "gofmt", "git"}},
			"svc go: go-vet=go vet ./...; go-test=go test ./...; gofmt=(changed files); golangci-lint=golangci-lint run [missing golangci-lint];\n"},
		{"go missing", map[string]string{"go.mod": "module x\n"}, fakeTools{has: []string{"git"}},
			". go: go-vet=go vet ./... [missing go]; go-test=go test ./... [missing go]; gofmt=(changed files) [missing gofmt];\n"},
		{"node npm", map[string]string{"package.json": `{"scripts":{"test":"node --test","lint":"eslint .","typecheck":"tsc -p ."}}`,
			"package-lock.json": "{}"}, everything,
			". node: npm-test=npm run test; npm-lint=npm run lint; npm-typecheck=npm run typecheck;\n"},
		{"node default npm test script is not a test", map[string]string{"package.json": `{"scripts":{"test":"echo \"Error: no test specified\" && exit 1"}}`},
			everything, ". node:\n"},
		{"node pnpm lock, pnpm missing, tsc fallback",
			map[string]string{"package.json": `{"scripts":{"test":"vitest run"},"devDependencies":{"typescript":"5"}}`,
				"pnpm-lock.yaml": "", "tsconfig.json": "{}", "node_modules/.keep": ""},
			fakeTools{has: []string{"node", "npm"}},
			". node: pnpm-test=pnpm run test [missing pnpm]; pnpm-tsc=pnpm exec tsc --noEmit [missing pnpm];\n"},
		{"node deps not installed", map[string]string{"package.json": `{"scripts":{"test":"jest"},"devDependencies":{"jest":"29"}}`,
			"yarn.lock": ""}, everything,
			". node: yarn-test=yarn run test [missing node_modules];\n"},
		{"node bun and packageManager field", map[string]string{"a/package.json": `{"scripts":{"lint":"x"}}`, "a/bun.lock": "",
			"b/package.json": `{"packageManager":"pnpm@9.1.0","scripts":{"lint":"x"}}`}, everything,
			"a node: bun-lint=bun run lint;\nb node: pnpm-lint=pnpm run lint;\n"},
		{"node workspace members are covered by the root",
			map[string]string{"package.json": `{"workspaces":["packages/*"],"scripts":{"test":"x"}}`,
				"packages/a/package.json": `{"scripts":{"test":"y"}}`}, everything,
			". node: npm-test=npm run test;\n"},
		{"python pytest ruff mypy from PATH",
			map[string]string{"pyproject.toml": "[tool.ruff]\nline-length = 100\n[tool.mypy]\nstrict = true\n", "tests/test_a.py": "def test_a(): pass\n"},
			everything, ". python: pytest=pytest; ruff=ruff check .; mypy=mypy .;\n"},
		{"python unittest when pytest is missing, ruff missing",
			map[string]string{"pyproject.toml": "[project]\nname='x'\n[tool.ruff]\n", "tests/test_a.py": "import unittest\n", "tests/__init__.py": ""},
			fakeTools{has: []string{"python3"}},
			". python: python-unittest=python3 -m unittest discover -s tests -t .; ruff=ruff check . [missing ruff];\n"},
		{"python pytest-style tests without pytest",
			map[string]string{"setup.py": "", "test_x.py": "def test_x(): assert True\n"}, fakeTools{has: []string{"python3"}},
			". python: pytest=pytest [missing pytest];\n"},
		{"python pytest as a module", map[string]string{"pyproject.toml": "[tool.pytest.ini_options]\n"},
			fakeTools{has: []string{"python3"}, probes: []string{"python3 -c 'import pytest'"}},
			". python: pytest=python3 -m pytest;\n"},
		{"python uv", map[string]string{"pyproject.toml": "[dependency-groups]\ndev = [\"pytest>=8\", \"mypy\"]\n[tool.mypy]\nfiles = [\"src\"]\n", "uv.lock": ""},
			everything, ". python: pytest=uv run pytest; mypy=uv run mypy;\n"},
		{"python venv", map[string]string{"pyproject.toml": "[tool.ruff]\n", ".venv/bin/python": "", ".venv/bin/ruff": "", "tests/test_a.py": ""},
			everything, ". python: pytest=pytest [missing pytest]; ruff=.venv/bin/ruff check .;\n"},
		{"rust workspace members skipped, clippy missing",
			map[string]string{"Cargo.toml": "[workspace]\n", "crates/a/Cargo.toml": "[package]\n"}, fakeTools{has: []string{"cargo"}},
			". rust: cargo-clippy=cargo clippy --workspace --all-targets -- -D warnings [missing clippy]; cargo-test=cargo test --workspace --no-fail-fast;\n"},
		{"maven wrapper and modules", map[string]string{"pom.xml": "", "mvnw": "", "core/pom.xml": ""}, fakeTools{},
			". java: maven-verify=./mvnw -B -q -fae verify;\n"},
		{"gradle without wrapper", map[string]string{"settings.gradle.kts": "", "app/build.gradle.kts": ""}, fakeTools{},
			". java: gradle-check=gradle check --continue --console=plain -q [missing gradle];\n"},
		{"make targets, check dropped when test exists",
			map[string]string{"Makefile": "VAR := 1\ntest: build\n\t./run\nlint:\n\tx\ncheck: test lint\n.PHONY: test lint\n"}, everything,
			". make: make-test=make -k test; make-lint=make -k lint;\n"},
		{"make check alone; a Makefile beside a stack is not proposed",
			map[string]string{"Makefile": "all check:\n\tx\n", "go/go.mod": "", "go/Makefile": "test:\n"}, everything,
			". make: make-check=make -k check;\ngo go: go-vet=go vet ./...; go-test=go test ./...; gofmt=(changed files);\n"},
		{"monorepo with two stacks; skipped and deep directories",
			map[string]string{"go.mod": "", "web/package.json": `{"scripts":{"test":"x"}}`, "node_modules/x/package.json": "{}",
				"testdata/go.mod": "", "_examples/go.mod": "", ".hidden/go.mod": "", "a/b/c/d/go.mod": "", "a/b/c/go.mod": ""}, everything,
			". go: go-vet=go vet ./...; go-test=go test ./...; gofmt=(changed files);\na/b/c go: go-vet=go vet ./...; go-test=go test ./...; gofmt=(changed files);\nweb node: npm-test=npm run test;\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, files := writeTree(t, tc.files)
			got := summary(Detect(context.Background(), root, files, tc.tools))
			if got != tc.want {
				t.Errorf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}

func TestWalkMatchesDetect(t *testing.T) {
	root, _ := writeTree(t, map[string]string{"go.mod": "", "web/package.json": "{}", "node_modules/a/package.json": "{}",
		"a/b/c/d/go.mod": "", ".git/config": ""})
	files, err := Walk(root)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	want := []string{"go.mod", "web/package.json"}
	if !slices.Equal(files, want) {
		t.Errorf("Walk = %q, want %q", files, want)
	}
}
