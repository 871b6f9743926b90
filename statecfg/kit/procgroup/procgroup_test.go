package procgroup

import (
	"slices"
	"testing"
)

// Unattended sets each of its variables once, over any value the
// environment had, and keeps every other variable.
func TestUnattended(t *testing.T) {
	env := []string{"PATH=/bin", "EDITOR=code --wait", "GIT_ASKPASS=/usr/bin/ksshaskpass", "PAGERS=x", "HOME=/h"}
	got := Unattended(env)
	for _, kv := range []string{"PATH=/bin", "PAGERS=x", "HOME=/h", "EDITOR=false", "GIT_ASKPASS=", "GIT_TERMINAL_PROMPT=0", "SSH_ASKPASS_REQUIRE=never"} {
		if !slices.Contains(got, kv) {
			t.Errorf("Unattended(%q) lacks %q: %q", env, kv, got)
		}
	}
	for _, kv := range []string{"EDITOR=code --wait", "GIT_ASKPASS=/usr/bin/ksshaskpass"} {
		if slices.Contains(got, kv) {
			t.Errorf("Unattended(%q) keeps %q", env, kv)
		}
	}
	if len(got) != 3+len(unattended) {
		t.Errorf("Unattended(%q) = %q: %d variables, want %d", env, got, len(got), 3+len(unattended))
	}
}
