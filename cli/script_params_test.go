package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/cli/internal/scripttest"
	"github.com/rogpeppe/go-internal/testscript"
)

// ScriptParams are the testscript parameters of the behaviour suite: the
// hermetic environment of scripttest.Hermetic (HOME, XDG directories, git
// identity under $WORK, $WORK/bin first on PATH), the machine's toolchain
// caches (see toolchainEnv) and the custom commands.
func ScriptParams(dir string) testscript.Params {
	return testscript.Params{
		Dir:                 dir,
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       os.Getenv("GAUNTLET_UPDATE_GOLDEN") != "",
		Cmds:                scriptCmds,
		Setup: func(e *testscript.Env) error {
			if err := scripttest.Hermetic(e); err != nil {
				return err
			}
			for _, kv := range toolchainEnv() {
				k, v, _ := strings.Cut(kv, "=")
				e.Setenv(k, v)
			}
			return nil
		},
	}
}

// toolchainEnv points the real toolchains that init scripts run on small
// fixtures (go, cargo) at the machine's caches and toolchains, which a
// hermetic HOME would hide: a cold Go build cache costs seconds per script,
// and rustup finds no toolchain without RUSTUP_HOME. Both caches are
// content-addressed, so sharing them changes no result. The module proxy is
// off: fixtures have no dependencies.
var toolchainEnv = sync.OnceValue(func() []string {
	env := []string{"GOPROXY=off", "GOTOOLCHAIN=local", "GOFLAGS="}
	for _, k := range []string{"GOCACHE", "GOMODCACHE"} {
		v := os.Getenv(k)
		if v == "" {
			out, _ := exec.Command("go", "env", k).Output()
			v = strings.TrimSpace(string(out))
		}
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	home, _ := os.UserHomeDir()
	for k, def := range map[string]string{"RUSTUP_HOME": ".rustup", "CARGO_HOME": ".cargo"} {
		v := os.Getenv(k)
		if v == "" && home != "" {
			if _, err := os.Stat(filepath.Join(home, def)); err == nil {
				v = filepath.Join(home, def)
			}
		}
		if v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
})

// writeScript writes a generated testscript named name (spaces become
// underscores, ".txtar" added) into dir, for a table that runs its rows
// with testscript.Run(t, ScriptParams(dir)).
func writeScript(t testing.TB, dir, name, script string) {
	t.Helper()
	name = strings.NewReplacer(" ", "_").Replace(name) + ".txtar"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
}
