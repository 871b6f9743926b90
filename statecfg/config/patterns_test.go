package config

import "testing"

// Every entry point pattern is compiled when the configuration loads: a
// malformed glob in a path or an exclude used to pass validate and panic
// detect and every run.
func TestLoadMalformedGlobs(t *testing.T) {
	const cfg = ".gauntlet/config.yml"
	project := func(eps string) map[string]string {
		return map[string]string{cfg: "cli: {default_preference: [claude]}\nentry_points:\n" + eps}
	}
	runProblemCases(t, []problemCase{
		{"reversed range in a path", project("  - path: \"src/[z-a]\"\n"), []string{
			cfg + `: entry_points[0].path: invalid glob "src/[z-a]": the range "z-a" in the class "[z-a]" is reversed`,
		}},
		{"empty class in an exclude", project("  - path: src\n    exclude: [docs, \"[!]x\"]\n"), []string{
			cfg + `: entry_points[0].exclude[1]: invalid glob "[!]x": the class "[!]" is empty`,
		}},
		{"each bad pattern once", project("  - path: .\n  - path: \"{a,[9-0]}/*\"\n    exclude: [\"[^]\", \"ok/*\", \"[b-a]\"]\n"), []string{
			cfg + `: entry_points[1].path: invalid glob "{a,[9-0]}/*": the range "9-0" in the class "[9-0]" is reversed`,
			cfg + `: entry_points[1].exclude[0]: invalid glob "[^]": the class "[^]" is empty`,
			cfg + `: entry_points[1].exclude[2]: invalid glob "[b-a]": the range "b-a" in the class "[b-a]" is reversed`,
		}},
	})
	root := writeTree(t, project("  - path: \"src/[a-z]*/**/*.{go,md}\"\n    exclude: [\"**/[!.]*_test.go\", vendor]\n"))
	if _, err := Load(t.Context(), root); err != nil {
		t.Errorf("well-formed globs refused: %v", err)
	}
}
