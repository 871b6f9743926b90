package scope

import (
	"strings"
	"testing"
)

func TestLogDirFiltering(t *testing.T) {
	tests := []struct {
		root, dir, want string
	}{
		{"/r", "/r/gauntlet_logs", "gauntlet_logs"},
		{"/r", "/r/out/logs", "out/logs"},
		{"/r", "/r", ""},
		{"/r", "/elsewhere/logs", ""},
		{"/r", "/r/../r2", ""},
	}
	for _, tt := range tests {
		if got := InsideRel(tt.root, tt.dir); got != tt.want {
			t.Errorf("InsideRel(%q, %q) = %q, want %q", tt.root, tt.dir, got, tt.want)
		}
	}
	got := WithoutDir([]string{"a", "gauntlet_logs/x.log", "gauntlet_logs", "gauntlet_logsx/y"}, "gauntlet_logs")
	if strings.Join(got, ",") != "a,gauntlet_logsx/y" {
		t.Fatalf("WithoutDir = %q", got)
	}
}
