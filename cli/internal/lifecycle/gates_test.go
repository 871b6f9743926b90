//go:build unix

package lifecycle

import (
	"fmt"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// gauntletDir is the project's configuration directory.
const gauntletDir = ".gauntlet"

// Long path components of the long entry point: its log file names
// (check_long_<l1>_<l2>_lint.<n>.log) are longer than a file name may be.
var (
	longDir  = "long/" + strings.Repeat("l", 120) + "/" + strings.Repeat("m", 120)
	longFile = longDir + "/f.txt"
)

// globPath is the glob entry point of a sequence (brace or not), and
// globExclude its exclude.
func (c projectConfig) globPath() string {
	if c.Brace {
		return "web/**/*.{ts,tsx}"
	}
	return "web/**/*.ts"
}

const globExclude = "web/gen/**"

// configYAML is .gauntlet/config.yml: a directory entry point with an
// exclude, a check and a review; two wildcard entry points; a file entry
// point; pkg_a, whose job id sanitizes like pkg/a's; a glob entry point with
// a check, a review and an exclude; an entry point whose log names are too
// long for a file name; and three checks whose output is structured (go
// vet diagnostics, go test results, a JUnit file).
func (c projectConfig) configYAML() string {
	voc := ""
	if c.VerifyOnContinue {
		voc = "  verify_on_continue: true\n"
	}
	return fmt.Sprintf(`base_branch: main
max_retries: %d
baseline: %t
cli:
  default_preference: [claude]
stop_hook:
  run_interval_minutes: %d
%sentry_points:
  - path: src
    exclude: [src/vendor]
    checks: [lint]
    reviews: [quality]
  - path: lib/*
    checks: [test]
  - path: docs/guide.md
    checks: [docs]
  - path: pkg/*
    checks: [lint]
  - path: pkg_a
    checks: [lint]
  - path: %q
    exclude: [%q]
    checks: [lint]
    reviews: [quality]
  - path: %s
    checks: [lint]
  - path: vet
    checks: [vet]
  - path: ut
    checks: [unit]
  - path: jt
    checks: [junit]
`, c.MaxRetries, c.Baseline, c.Interval, voc, c.globPath(), globExclude, longDir)
}

// checkYAML is the file of check gate g, whose program is in gates.
func (c projectConfig) checkYAML(gates, g string) string {
	s := fmt.Sprintf("command: sh %s\ntimeout: 60\n", filepath.Join(gates, g+".sh"))
	switch g {
	case "vet":
		s += "format: govet\n"
	case "unit":
		s += "format: go-test\n"
	case "junit":
		s += "junit: " + junitOut + "\n"
	}
	if c.Cache != "" {
		s += "cache: " + c.Cache + "\n"
	}
	return s
}

// checkGates are the check gates, each with a program in gateScripts.
var checkGates = []string{"lint", "test", "docs", "vet", "unit", "junit"}

// reviewMD is the review gate's file. Its timeout is short: a reviewer
// that hangs (a fault step) costs that long.
const reviewMD = "---\ncli_preference: [claude]\nnum_reviews: 1\ntimeout: 10\n---\nReview the change: every REVIEWME marker is a problem.\n"

// gauntletFiles are the files of .gauntlet/ for a sequence.
func (c projectConfig) gauntletFiles(gates string) map[string]string {
	files := map[string]string{gauntletDir + "/config.yml": c.configYAML()}
	for _, g := range checkGates {
		files[gauntletDir+"/checks/"+g+".yml"] = c.checkYAML(gates, g)
	}
	files[gauntletDir+"/reviews/quality.md"] = reviewMD
	return files
}

// gauntletOf returns the files of .gauntlet/ among files.
func gauntletOf(files map[string]string) map[string]string {
	out := map[string]string{}
	for p, c := range files {
		if strings.HasPrefix(p, gauntletDir+"/") {
			out[p] = c
		}
	}
	return out
}

// sameGauntlet reports whether two sets of .gauntlet/ files are equal.
func sameGauntlet(a, b map[string]string) bool { return maps.Equal(a, b) }

// gates are the settings that decide what a configuration enforces, read
// back from its files: the knobs a weakening step turns.
type gates struct {
	// Present: config.yml exists.
	Present bool
	// Broken: the configuration does not load (a field error).
	Broken           bool
	MaxRetries       int
	Interval         int
	Baseline         bool
	Enabled          bool
	VerifyOnContinue bool
	// Cmd holds the check gates whose command is `true`; NotLocal those
	// that do not run locally.
	Cmd, NotLocal map[string]bool
	// Dropped holds "<entry>:<gate>" for the gates removed from an entry
	// point ("src:lint", "src:quality", "web:lint", "web:quality").
	Dropped map[string]bool
}

var (
	maxRetriesRE = regexp.MustCompile(`(?m)^max_retries: (\d+)$`)
	intervalRE   = regexp.MustCompile(`(?m)^  run_interval_minutes: (\d+)$`)
)

// readGates reads the knobs of the .gauntlet/ files of files.
func readGates(files map[string]string) gates {
	g := gates{Cmd: map[string]bool{}, NotLocal: map[string]bool{}, Dropped: map[string]bool{}}
	cfg, ok := files[gauntletDir+"/config.yml"]
	if !ok {
		return g
	}
	g.Present = true
	g.Broken = strings.Contains(files[brokenCheckFile], brokenLine)
	if m := maxRetriesRE.FindStringSubmatch(cfg); m != nil {
		g.MaxRetries, _ = strconv.Atoi(m[1])
	} else {
		g.MaxRetries = 3
	}
	if m := intervalRE.FindStringSubmatch(cfg); m != nil {
		g.Interval, _ = strconv.Atoi(m[1])
	}
	g.Baseline = strings.Contains(cfg, "\nbaseline: true\n")
	g.Enabled = !strings.Contains(cfg, "\n  enabled: false\n")
	g.VerifyOnContinue = strings.Contains(cfg, "\n  verify_on_continue: true\n")
	for _, name := range checkGates {
		c := files[gauntletDir+"/checks/"+name+".yml"]
		g.Cmd[name] = strings.HasPrefix(c, "command: \"true\"\n")
		g.NotLocal[name] = strings.Contains(c, "\nrun_locally: false\n")
	}
	for entry, block := range entryBlocks(cfg) {
		if entry != "src" && entry != "web" {
			continue
		}
		g.Dropped[entry+":lint"] = !strings.Contains(block, "checks: [lint]")
		g.Dropped[entry+":quality"] = !strings.Contains(block, "reviews: [quality]")
	}
	return g
}

// entryBlocks splits config.yml's entry points by their first path
// component ("src", "web", ...).
func entryBlocks(cfg string) map[string]string {
	out := map[string]string{}
	_, list, _ := strings.Cut(cfg, "entry_points:\n")
	for _, b := range strings.Split(list, "  - path: ")[1:] {
		p, _, _ := strings.Cut(b, "\n")
		p = strings.Trim(p, `"`)
		first, _, _ := strings.Cut(p, "/")
		out[first] = b
	}
	return out
}

// has reports whether entry point entry runs gate gate: it is neither
// dropped, nor run elsewhere than locally. A check whose command is `true`
// runs, and passes (see passes).
func (g gates) has(entry, gate string) bool {
	return g.Present && !g.Dropped[entry+":"+gate] && !g.NotLocal[gate]
}

// passes reports whether check gate gate passes whatever the files hold.
func (g gates) passes(gate string) bool { return g.Cmd[gate] }

// weakerThan names how g enforces less than t ("" when it does not):
// the tag of signatures about a weakened configuration.
func (g gates) weakerThan(t gates) string {
	switch {
	case t.Present && !g.Present:
		return "deleted"
	case !t.Present:
		return ""
	case !g.Enabled && t.Enabled:
		return "disabled"
	case g.MaxRetries < t.MaxRetries:
		return "retries"
	case g.Interval > t.Interval:
		return "interval"
	case t.VerifyOnContinue && !g.VerifyOnContinue:
		return "continue"
	}
	for _, name := range slices.Sorted(maps.Keys(t.Cmd)) {
		if g.Cmd[name] && !t.Cmd[name] {
			return "command"
		}
		if g.NotLocal[name] && !t.NotLocal[name] {
			return "local"
		}
	}
	for _, k := range slices.Sorted(maps.Keys(g.Dropped)) {
		if g.Dropped[k] && !t.Dropped[k] {
			return "dropped"
		}
	}
	return ""
}

// weakenings are the ways an agent weakens the work tree's configuration:
// each rewrites the .gauntlet/ files of files (nil when it does not apply).
var weakenings = map[string]func(files map[string]string) map[string]string{
	"command": func(files map[string]string) map[string]string {
		return editFile(files, gauntletDir+"/checks/lint.yml", func(c string) string {
			_, rest, _ := strings.Cut(c, "\n")
			return "command: \"true\"\n" + rest
		})
	},
	"local": func(files map[string]string) map[string]string {
		return editFile(files, gauntletDir+"/checks/lint.yml", func(c string) string {
			if strings.Contains(c, "\nrun_locally: false\n") {
				return c
			}
			return c + "run_locally: false\n"
		})
	},
	"drop-check": func(files map[string]string) map[string]string {
		return editConfig(files, func(c string) string {
			return strings.Replace(c, "    exclude: [src/vendor]\n    checks: [lint]\n", "    exclude: [src/vendor]\n", 1)
		})
	},
	"drop-review": func(files map[string]string) map[string]string {
		return editConfig(files, func(c string) string {
			return strings.Replace(c, "    checks: [lint]\n    reviews: [quality]\n  - path: lib/*", "    checks: [lint]\n  - path: lib/*", 1)
		})
	},
	"retries": func(files map[string]string) map[string]string {
		return editConfig(files, func(c string) string { return maxRetriesRE.ReplaceAllString(c, "max_retries: 0") })
	},
	"interval": func(files map[string]string) map[string]string {
		return editConfig(files, func(c string) string { return intervalRE.ReplaceAllString(c, "  run_interval_minutes: 600") })
	},
	"disable": func(files map[string]string) map[string]string {
		return editConfig(files, func(c string) string {
			if strings.Contains(c, "\n  enabled: false\n") {
				return c
			}
			return strings.Replace(c, "\nstop_hook:\n", "\nstop_hook:\n  enabled: false\n", 1)
		})
	},
	"continue": func(files map[string]string) map[string]string {
		return editConfig(files, func(c string) string { return strings.Replace(c, "\n  verify_on_continue: true\n", "\n", 1) })
	},
}

// weakeningNames are the keys of weakenings, sorted, and "delete" (the
// whole .gauntlet/ removed).
var weakeningNames = append(slices.Sorted(maps.Keys(weakenings)), "delete")

// editFile returns the .gauntlet/ files of files with path rewritten by
// edit (nil when path is not there).
func editFile(files map[string]string, path string, edit func(string) string) map[string]string {
	c, ok := files[path]
	if !ok {
		return nil
	}
	out := gauntletOf(files)
	out[path] = edit(c)
	return out
}

func editConfig(files map[string]string, edit func(string) string) map[string]string {
	return editFile(files, gauntletDir+"/config.yml", edit)
}
