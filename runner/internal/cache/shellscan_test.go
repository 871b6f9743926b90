package cache

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/gate"
	"github.com/agent-gauntlet/agent-gauntlet/runner/internal/git"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"mvdan.cc/sh/v3/syntax"
)

// The invariant of the scan (ScanCommand) and of the keys built on it:
// everything a check command names by path, in any word form the shell
// reads (plain, quoted, a redirection, an assignment's or an option's
// value, a parameter expansion's default word, a tilde prefix, a glob, a
// command substitution's own words, a script given to a shell, a
// here-document), inside or outside the repository, is in the gate's key
// by its bytes and mode; or the gate has no key and the run says why. A
// form the scan cannot resolve (a command's output, a variable read at run
// time, ~-, eval) leaves a gate keyed by its entry point uncached; it is
// never skipped. A gate keyed by the whole tree has every path in the tree
// in its key already: it keeps the outside paths the scan resolved, and
// what it builds outside from a command's output is read without being
// named (the limit docs/cache.md states).
//
// TestNamedPathKeyedOrUncached generates the class: every word form below
// crossed with every place a path may lie (in the entry point, elsewhere
// in the repository, outside it by a relative path, by an absolute one,
// and an absolute path into the repository), under both cache scopes. The
// real shell is the oracle: each command passes before the named file is
// edited and fails after, so the cache must not answer for the second
// (the key moves, or there is none): with the cache, the verdict equals
// the one without it.
func TestNamedPathKeyedOrUncached(t *testing.T) {
	root, out := sightRepo(t)
	home := filepath.Dir(root)
	env := map[string]string{"HOME": home, "PATH": os.Getenv("PATH")}
	type place struct {
		name string
		// rel is the path relative to the working directory src, abs
		// the absolute one; file is the file sightStep edits.
		rel, abs, file string
	}
	places := []place{
		{"in the entry point", "main.txt", filepath.Join(root, "src/main.txt"), "src/main.txt"},
		{"elsewhere in the repository", "../conf/c.txt", filepath.Join(root, "conf/c.txt"), "conf/c.txt"},
		{"outside the repository, relative", "../../OUT/x.txt", filepath.Join(out, "x.txt"), "OUT/x.txt"},
		{"outside the repository, absolute", filepath.Join(out, "x.txt"), filepath.Join(out, "x.txt"), "OUT/x.txt"},
		{"in the repository, absolute", filepath.Join(root, "conf/c.txt"), filepath.Join(root, "conf/c.txt"), "conf/c.txt"},
	}
	// Each form makes a command that fails exactly when the file named
	// {P} (relative or absolute, as the place gives it) holds BAD; {D}
	// and {B} are its directory and base name, {H} its path from HOME,
	// when the form needs them. SETX is set to {P}. A form marked rel:
	// joins {P} to a directory: only a relative {P} makes sense there.
	forms := []string{
		"! grep -q BAD {P}",
		`! grep -q BAD "{P}"`,
		"! grep -q BAD '{P}'",
		"! grep -q BAD < {P}",
		"! grep -q BAD 0<{P}",
		"! cat {P} | grep -q BAD",
		"! grep -q BAD $(echo {P})",
		"! grep -q BAD `echo {P}`",
		"! grep -q BAD ${UNSETX:-{P}}",
		"! grep -q BAD ${UNSETX-{P}}",
		"! grep -q BAD ${UNSETX:={P}}",
		"! grep -q BAD \"${UNSETX={P}}\"",
		"! grep -q BAD $SETX",
		"! grep -q BAD ${SETX}",
		"F={P}; ! grep -q BAD $F",
		"export F={P} && ! grep -q BAD \"$F\"",
		"for f in {P}; do ! grep -q BAD $f || exit 1; done",
		"! grep -q BAD --no-messages {P}",
		"! grep -q -f /dev/null -e BAD {P}",
		"! grep -q BAD ~/{H}",
		"rel:bash -c '! grep -q BAD ~+/{P}'",
		"rel:! bash -c 'cd .; grep -q BAD ~-/{P}'",
		"cd {D} && ! grep -q BAD {B}",
		"(cd {D}; ! grep -q BAD ./{B})",
		"! sh -c 'grep -q BAD {P}'",
		`! sh -c "grep -q BAD \"\$HOME/{H}\""`,
		"! bash -ec 'F={P}; grep -q BAD $F'",
		"! echo {P} | xargs grep -q BAD",
		"! xargs grep -q BAD <<EOF\n{P}\nEOF",
		"! sh <<'EOF'\ngrep -q BAD {P}\nEOF",
		"! grep -q BAD $(echo {P} | sed s/x/x/)",
		"eval '! grep -q BAD {P}'",
		"! grep -rq BAD {D}",
		"! grep -q BAD {D}/*",
		"! grep -q BAD {D}/?*",
		"! grep -q BAD $(dirname {P})/{B}",
	}
	for _, pl := range places {
		rel := pl.rel
		home := strings.TrimPrefix(pl.abs, home+"/")
		for _, form := range forms {
			form, relOnly := strings.CutPrefix(form, "rel:")
			if relOnly && filepath.IsAbs(rel) {
				continue
			}
			dir, base := filepath.Split(rel)
			if dir = strings.TrimSuffix(dir, "/"); dir == "" {
				dir = "."
			}
			cmd := strings.NewReplacer("{P}", rel, "{H}", home, "{D}", dir, "{B}", base).Replace(form)
			env["SETX"] = rel
			t.Run(pl.name+"/"+form, func(t *testing.T) {
				job := func(mode config.CacheScope) gate.Job {
					return gate.Job{ID: "check:src:nobad", Kind: gate.KindCheck, Name: "nobad", EntryPoint: "src", WorkingDir: "src",
						Check: &config.Check{Name: "nobad", File: ".gauntlet/checks/nobad.yml", Command: cmd, Cache: mode, RunLocally: true, Timeout: time.Minute}}
				}
				modes := []config.CacheScope{config.CacheTree, config.CacheEntryPoint}
				before := map[config.CacheScope]string{}
				for _, m := range modes {
					before[m], _ = scopedKey(t, root, job(m), env)
				}
				if !shellPasses(t, root, cmd, env) {
					t.Fatalf("%q fails before the edit", cmd)
				}
				sightStep(t, root, out, "write "+pl.file+" BAD")
				defer sightStep(t, root, out, "write "+pl.file+" "+strings.TrimSuffix(sightFiles[pl.file], "\n"))
				if shellPasses(t, root, cmd, env) {
					t.Fatalf("%q passes after the edit: the case tests nothing", cmd)
				}
				for _, m := range modes {
					if m == config.CacheTree && strings.HasPrefix(pl.file, "OUT/") && unresolved(job(m), env) {
						// The documented limit (docs/cache.md): keyed by the
						// whole tree, a path the command builds outside it
						// is read without being named.
						continue
					}
					after, why := scopedKey(t, root, job(m), env)
					if after != "" && after == before[m] {
						t.Errorf("%s: %q: the key did not move, and the gate is cached", m, cmd)
					}
					if after == "" && why == "" {
						t.Errorf("%s: %q: no key, and no reason", m, cmd)
					}
				}
			})
		}
	}
}

// shellPasses runs command as a check runs it (`sh -c` in src of root) in
// env.
func shellPasses(t *testing.T, root, command string, env map[string]string) bool {
	t.Helper()
	c := exec.Command("sh", "-c", command)
	c.Dir = filepath.Join(root, "src")
	for k, v := range env {
		c.Env = append(c.Env, k+"="+v)
	}
	return c.Run() == nil
}

// scopedKey is the key of job on the work tree at root as a run computes
// it, in the environment env; "" and why when the gate has none.
// unresolved reports whether the scan of job's command cannot resolve
// every word it may open, in the environment env.
func unresolved(job gate.Job, env map[string]string) bool {
	_, why := Paths(job, CheckEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, baseRun().BaseBranch))
	return why != ""
}

func scopedKey(t *testing.T, root string, job gate.Job, env map[string]string) (string, string) {
	t.Helper()
	ctx := context.Background()
	ts, err := git.NewTreeSnapshot(ctx, root, "gauntlet_logs")
	if err != nil {
		t.Fatal(err)
	}
	defer ts.Close()
	if ts.KeyTree == "" {
		t.Fatalf("no key tree: %s", ts.Uncertain)
	}
	c := &Results{root: root, run: baseRun(), getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	keys, err := c.keysOn(ctx, ts.KeyTree, ts.EmptyDirs(), ts.LinkEnds(), []gate.Job{job}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return keys[job.ID], c.Uncached()[job.ID]
}

// The scan resolves each form to the paths it names, relative to the
// working directory or absolute, or says it cannot.
func TestScanCommand(t *testing.T) {
	env := func(name string) (string, bool, bool) {
		switch name {
		case "HOME":
			return "/home/me", true, true
		case "CONF":
			return "../conf", true, true
		case "SPACED":
			return "a b", true, true
		case "OLDPWD":
			return "", false, false
		}
		return "", false, true
	}
	cases := []struct {
		command string
		want    []string
		// unresolved: a part of the reason, "" when resolved.
		unresolved string
	}{
		{"go test ./...", []string{"go", "test", "."}, ""},
		{"./scripts/lint.sh --config=.golangci.yml -v", []string{"scripts/lint.sh", ".golangci.yml"}, ""},
		{"eslint 'src/a b.js' ../shared/x.js", []string{"eslint", "src/a b.js", "src/a", "b.js", "../shared/x.js"}, ""},
		{"cat ../../etc/passwd /etc/hosts ~/x $HOME/y http://h/z", []string{"cat", "../../etc/passwd", "/etc/hosts", "/home/me/x", "/home/me/y"}, ""},
		{"grep BAD ../conf/*.txt", []string{"grep", "BAD", "../conf"}, ""},
		{"cat ../conf/{a,b/c}.txt {x,../..}/c.txt", []string{"cat", "../conf", "../.."}, ""},
		{"make lint&&make test;true|tee out.txt>log 2>&1", []string{"make", "lint", "test", "true", "tee", "out.txt"}, ""},
		{"grep x <in.txt 2>/dev/null", []string{"grep", "x", "in.txt"}, ""},
		{"CONFIG=lint.yml tool", []string{"tool", "lint.yml"}, ""},
		{"cat `echo ../conf/c.txt` $(printf ../x) $(dirname ../conf/c.txt) \"$(pwd)/y\"", []string{"cat", "../conf/c.txt", "../x", "../conf", "y", "echo", "printf", "dirname", "pwd"}, ""},
		{"grep -q \"$(printf '\\r')\" a.txt", []string{"grep", ".", "a.txt", "printf", `\r`}, ""},
		{"cat $(printf '\\057etc')", nil, "the output of a command"},
		{"cat $(printf %s%s . .)", nil, "the output of a command"},
		{"cat $(cat list.txt)", nil, "the output of a command"},
		{"test -z \"$(gofmt -l .)\"", []string{"test", "gofmt", "."}, ""},
		{"cat ${X:-../conf/c.txt} ${X-a} ${X:=b} ${X=c} ${X:+d}", []string{"cat", "b", "c", "../conf/c.txt", "a", "d"}, ""},
		{"cat $CONF/c.txt", []string{"cat", "../conf/c.txt"}, ""},
		{"cat $SPACED", []string{"cat", "a b", "a", "b"}, ""},
		{"cat ~+/../conf/c.txt", []string{"cat", "../conf/c.txt", "conf/c.txt"}, ""},
		{"cat ~-/x", nil, "~-"},
		{"cat ~root/x", nil, "~root"},
		{"cat $OLDPWD/x", nil, "$OLDPWD"},
		{"cat $1", nil, "positional"},
		{"cat \"$@\"", nil, "positional"},
		{"read F; cat $F", nil, "$F"},
		{"F=../conf/c.txt; cat $F", []string{"../conf/c.txt", "cat"}, ""},
		{"F=$(ls); cat $F", nil, "$F"},
		{"F=a; for i in 1 2; do F=$F/..; done; cat $F/x", nil, "$F"},
		{"cd ../conf && cat c.txt", []string{"cd", "../conf/cd", "../conf", "cat", "../conf/cat", "c.txt", "../conf/c.txt"}, ""},
		{"cd -; cat x", nil, "cd -"},
		{"for i in 1 2 3; do cd ..; done; cat x", nil, "cd .."},
		{"sh -c 'cat ../conf/c.txt'", []string{"sh", "cat ../conf/c.txt", "cat", "../conf/c.txt"}, ""},
		{`sh -c 'cat "$HOME/x"'`, []string{"sh", `cat "$HOME/x"`, "cat", "$HOME/x", "/home/me/x"}, ""},
		{`sh -c 'cat $(ls)'`, nil, "the output of a command"},
		{"xargs sh -c 'cat $0' <list", nil, ""},
		{"eval 'cat x'", nil, "eval"},
		{"cat <<EOF\n../conf/c.txt\nEOF", []string{"cat", "../conf/c.txt"}, ""},
		{"sh <<'EOF'\ncat $HOME/x\nEOF", []string{"cat", "/home/me/x", "sh", "$HOME/x"}, ""},
		{"cat <<EOF\n$(cat list)\nEOF", nil, "here-document"},
		{"echo $(date) > out.txt", []string{"echo", "date"}, ""},
		{"cat a\\ b", []string{"cat", "a b", "a", "b"}, ""},
		{"cat 'unterminated", nil, "cannot be read"},
	}
	for _, c := range cases {
		got := ScanCommand(c.command, env)
		if c.unresolved != "" {
			if !strings.Contains(got.Unresolved, c.unresolved) {
				t.Errorf("ScanCommand(%q): unresolved %q, want ~%q (paths %q)", c.command, got.Unresolved, c.unresolved, got.Paths)
			}
			continue
		}
		if c.want == nil {
			continue
		}
		if got.Unresolved != "" || !slices.Equal(got.Paths, c.want) {
			t.Errorf("ScanCommand(%q) = %q, %q; want %q", c.command, got.Paths, got.Unresolved, c.want)
		}
	}
}

// FuzzScanCommand: whatever the command, the scan ends without a panic,
// says the same twice, names at most maxNamed clean paths, and never calls
// complete a command in which a program that opens its operands gets a
// word built from a command's output or from a variable whose value is
// unknown (unresolvedWord, an oracle of its own over the parser's tree).
func FuzzScanCommand(f *testing.F) {
	for _, s := range []string{"go test ./...", "cat `echo ../x`", "cat ${X:-../y}", "cat ~+/../z", "F=$(ls); cat $F",
		"sh -c 'cat $(ls)'", "cd ..; cat x", "cat <<EOF\n$(x)\nEOF", "echo $(date)", "for f in $(ls); do cat $f; done"} {
		f.Add(s)
	}
	env := func(name string) (string, bool, bool) {
		if name == "HOME" {
			return "/h", true, true
		}
		return "", false, name != "UNKNOWN"
	}
	f.Fuzz(func(t *testing.T, command string) {
		got := ScanCommand(command, env)
		again := ScanCommand(command, env)
		if got.Unresolved != again.Unresolved || !slices.Equal(got.Paths, again.Paths) {
			t.Fatalf("two scans of %q differ", command)
		}
		if len(got.Paths) > maxNamed {
			t.Fatalf("%d paths", len(got.Paths))
		}
		for _, p := range got.Paths {
			if p == "" || p != filepathClean(p) {
				t.Fatalf("ScanCommand(%q) gave %q", command, p)
			}
		}
		if got.Unresolved == "" {
			if w := unresolvedWord(command); w != "" {
				t.Fatalf("ScanCommand(%q) is complete, but a program opens %s", command, w)
			}
		}
	})
}

// printsItsWords reports whether c is one simple command whose output
// its words tell (pwd, dirname, basename, echo, printf), which the scan
// may resolve.
func printsItsWords(c *syntax.CmdSubst) bool {
	if len(c.Stmts) != 1 {
		return false
	}
	call, ok := c.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	switch call.Args[0].Lit() {
	case "pwd", "dirname", "basename", "echo", "printf":
		return true
	}
	return false
}

// filepathClean is path.Clean for the scan's slash paths.
func filepathClean(p string) string { return filepath.ToSlash(filepath.Clean(p)) }

// unresolvedWord is, independently of the scan, a word that a program
// which may open its operands gets in command and that holds the output
// of a command other than one that prints its words, or the variable
// UNKNOWN (whose value the test's environment does not know) when the
// command does not assign it: "" when there is none (or the command does
// not parse).
func unresolvedWord(command string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(command), "")
	if err != nil {
		return ""
	}
	assigned := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name != nil {
				assigned[n.Name.Value] = true
			}
		case *syntax.WordIter:
			assigned[n.Name.Value] = true
		}
		return true
	})
	found := ""
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || found != "" || len(c.Args) == 0 || notOpened[c.Args[0].Lit()] {
			return found == ""
		}
		for _, w := range c.Args {
			syntax.Walk(w, func(m syntax.Node) bool {
				switch m := m.(type) {
				case *syntax.CmdSubst:
					if !printsItsWords(m) {
						found = "a command's output"
						return false
					}
				case *syntax.ParamExp:
					if m.Param != nil && !assigned[m.Param.Value] && m.Param.Value == "UNKNOWN" {
						found = "$UNKNOWN"
					}
				}
				return found == ""
			})
		}
		return found == ""
	})
	return found
}
