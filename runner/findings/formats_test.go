package findings

import (
	"slices"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

// TestFormatsMatchConfig keeps the configuration's list of formats (what
// a check file may say) equal to what this package reads.
func TestFormatsMatchConfig(t *testing.T) {
	if !slices.Equal(config.CheckFormats, Formats()) {
		t.Fatalf("config.CheckFormats must be\n%q", Formats())
	}
}

// TestRecognize names the format of the commands init proposes and of
// common launchers.
func TestRecognize(t *testing.T) {
	tests := map[string]string{
		"go test ./...":                                FormatGoTest,
		"go test -json ./...":                          FormatGoTestJSON,
		"go vet ./...":                                 "govet",
		"golangci-lint run":                            "golangci-lint",
		"npm exec --no -- tsc --noEmit":                "tsc",
		"npx --no-install eslint .":                    "eslint",
		"npx eslint -f json .":                         FormatText,
		"pnpm exec jest --ci":                          FormatJest,
		".venv/bin/pytest":                             FormatPytest,
		"python3 -m pytest -x":                         FormatPytest,
		"uv run mypy .":                                "mypy",
		"poetry run ruff check .":                      "ruff",
		"cargo test --workspace --no-fail-fast":        FormatCargoTest,
		"cargo clippy --workspace -- -D warnings":      "rustc",
		"CGO_ENABLED=0 go vet ./...":                   "govet",
		"make -k test":                                 FormatText,
		"npx eslint --max-warnings 0 ${CHANGED_FILES}": "eslint",
		"git diff ${BASE_BRANCH} | true":               FormatText,
		"go vet ${CHANGED_FILES} $HOME":                FormatText,
		"go test ./... && go vet ./...":                FormatText,
		"":                                             FormatText,
	}
	for cmd, want := range tests {
		if got := Recognize(cmd); got != want {
			t.Errorf("Recognize(%q) = %q, want %q", cmd, got, want)
		}
	}
	if strings.Contains(strings.Join(Formats(), " "), "  ") {
		t.Fatal("an empty format name")
	}
}
