package git

import "testing"

// TestOwnConfig: the private configuration of the literal view is taken
// as written only when it is exactly what writeConfig writes; any line
// added to it (adversarial round 19, B17: an excludesFile that hid an
// untracked file from every later stop) makes it written again.
func TestOwnConfig(t *testing.T) {
	const (
		ids      = "# source \"/r/.git/config\" 1:2:3\n"
		includes = "[include]\n\tpath = \"/r/.git/config\"\n"
		format   = "[core]\n\trepositoryformatversion = \"1\"\n[extensions]\n\tobjectformat = \"sha256\"\n\tworktreeconfig = \"true\"\n"
	)
	for _, c := range []struct {
		name, text string
		own        bool
	}{
		{"as written", ids + format + includes, true},
		{"core alone", ids + "[core]\n" + includes, true},
		{"quoted value", ids + "[core]\n\trepositoryformatversion = \"a\\\"b\"\n" + includes, true},
		{"excludesFile added at the end", ids + format + includes + "[core]\n\texcludesFile = /tmp/x\n", false},
		{"excludesFile added in core", ids + "[core]\n\trepositoryformatversion = \"1\"\n\texcludesFile = \"/tmp/x\"\n" + includes, false},
		{"a section added in the format", ids + format + "[alias]\n\tst = \"status\"\n" + includes, false},
		{"an unquoted value", ids + "[core]\n\trepositoryformatversion = 1\n" + includes, false},
		{"another source", "# source \"/r/.git/config\" 9:9:9\n" + format + includes, false},
		{"an include added", ids + format + includes + "[include]\n\tpath = \"/tmp/evil\"\n", false},
		{"extensions first", ids + "[extensions]\n\tobjectformat = \"sha1\"\n" + includes, false},
		{"empty", "", false},
	} {
		if got := ownConfig(c.text, ids, includes); got != c.own {
			t.Errorf("%s: ownConfig = %v, want %v", c.name, got, c.own)
		}
	}
}
