package runner

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
)

func TestHealthAdapters(t *testing.T) {
	tests := []struct {
		name string
		cfg  *config.Config
		want []string
	}{
		{name: "no config", want: []string{"claude", "codex", "gemini", "github-copilot", "cursor"}},
		{
			name: "no reviews: the default preference",
			cfg:  &config.Config{CLI: config.CLI{DefaultPreference: []string{"codex", "claude"}}},
			want: []string{"codex", "claude"},
		},
		{
			name: "only what the reviews use, in default order",
			cfg: &config.Config{
				CLI: config.CLI{DefaultPreference: []string{"gemini", "claude", "codex"}},
				Reviews: map[string]*config.Review{
					"a": {CLIPreference: []string{"codex", "claude"}},
					"b": {CLIPreference: []string{"zed"}},
				},
			},
			want: []string{"claude", "codex", "zed"},
		},
	}
	for _, tt := range tests {
		if got := healthAdapters(tt.cfg); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: healthAdapters = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestHealth(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "codex"), []byte("#!/bin/sh\ncat >/dev/null\necho ok\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+"/usr/bin:/bin")
	cfg := &config.Config{
		CLI: config.CLI{DefaultPreference: []string{"claude", "codex"}},
		Reviews: map[string]*config.Review{
			"quality":  {CLIPreference: []string{"claude", "codex"}},
			"security": {CLIPreference: []string{"claude"}},
			"style":    {CLIPreference: []string{"claude", "vim"}},
		},
		EntryPoints: []config.EntryPoint{{Path: "src", Reviews: []string{"quality", "security", "style"}}},
	}
	var out strings.Builder
	err := Health(context.Background(), t.TempDir(), cfg, &out)
	want := healthTitle + "\n  claude     : Missing\n  codex      : Installed\n  vim        : Unknown\n"
	if out.String() != want {
		t.Errorf("output =\n%s\nwant\n%s", out.String(), want)
	}
	var unserved *UnservedError
	if !errors.As(err, &unserved) {
		t.Fatalf("err = %v, want *UnservedError", err)
	}
	if got := err.Error(); got != "no healthy review CLI for: security (cli_preference: claude); style (cli_preference: claude, vim)" {
		t.Errorf("err = %q", got)
	}
	cfg.CLI.CheckUsageLimit = true
	out.Reset()
	delete(cfg.Reviews, "security")
	delete(cfg.Reviews, "style")
	if err := Health(context.Background(), t.TempDir(), cfg, &out); err != nil {
		t.Errorf("err = %v", err)
	}
	if !strings.Contains(out.String(), "  codex      : Ready\n") {
		t.Errorf("probed output = %q", out.String())
	}
}
