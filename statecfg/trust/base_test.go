package trust

import (
	"path/filepath"
	"testing"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/gitdir"
)

// A project with no record trusts the configuration a person committed:
// HEAD's, and when HEAD has none, the one at the merge base of HEAD with
// the base branch. So whatever the agent commits or leaves in the work tree
// before the first stop (the configuration deleted, weakened, its directory
// renamed), a project whose base branch has a configuration is never "not
// a gauntlet project": Resolve names a configuration, FindRoot finds the
// project and CommittedProjects lists it. With a record the record stands.
// Where the base branch has no configuration either, there is no project.
func TestNoRecordFallsBackToTheBase(t *testing.T) {
	acts := map[string]func(t *testing.T, top, prefix string){
		"deleted and committed": func(t *testing.T, top, prefix string) {
			git(t, top, "rm", "-rq", prefix+".gauntlet")
			git(t, top, "commit", "-qm", "drop the gates")
		},
		"weakened and committed": func(t *testing.T, top, prefix string) {
			write(t, top, map[string]string{prefix + ".gauntlet/checks/lint.yml": weakYML})
			git(t, top, "commit", "-qam", "weaken the gates")
		},
		"deleted uncommitted": func(t *testing.T, top, prefix string) {
			git(t, top, "rm", "-rq", prefix+".gauntlet")
		},
		"renamed and committed": func(t *testing.T, top, prefix string) {
			git(t, top, "mv", prefix+".gauntlet", prefix+".gauntlet-old")
			git(t, top, "commit", "-qm", "move the gates away")
		},
	}
	for name, act := range acts {
		for _, prefix := range []string{"", "app/"} {
			for _, recorded := range []bool{false, true} {
				for _, baseHas := range []bool{true, false} {
					t.Run(name+"/"+prefix+"/"+map[bool]string{true: "record", false: "no record"}[recorded]+"/"+
						map[bool]string{true: "base has one", false: "base has none"}[baseHas], func(t *testing.T) {
						tree := map[string]string{prefix + "src/main.go": "package main\n"}
						if baseHas {
							tree[prefix+".gauntlet/config.yml"] = configYML
							tree[prefix+".gauntlet/checks/lint.yml"] = lintYML
						}
						top := repo(t, tree)
						git(t, top, "checkout", "-q", "-B", "main")
						git(t, top, "checkout", "-q", "-b", "feature")
						root := filepath.Join(top, filepath.FromSlash(prefix))
						p := locate(t, root)
						if recorded {
							if err := WriteRecord(p, Record{How: HowTerminal, Files: files(".gauntlet/config.yml", configYML, ".gauntlet/checks/lint.yml", lintYML)}); err != nil {
								t.Fatal(err)
							}
						}
						if baseHas {
							act(t, top, prefix)
						}
						tr, err := Resolve(t.Context(), p)
						if err != nil {
							t.Fatal(err)
						}
						got, ok, err := FindRoot(t.Context(), filepath.Join(root, "src"))
						if err != nil {
							t.Fatal(err)
						}
						d, _ := gitdir.Find(top)
						known, err := CommittedProjects(t.Context(), d)
						if err != nil {
							t.Fatal(err)
						}
						switch {
						case recorded:
							if tr.Source != SourceRecord || !ok || got != root {
								t.Errorf("with a record: Resolve = %s, FindRoot = %q, %v", tr.Source, got, ok)
							}
						case !baseHas:
							if tr.Source != SourceNone || ok || len(known) != 0 {
								t.Errorf("no configuration anywhere: Resolve = %s, FindRoot = %q, %v, committed %v", tr.Source, got, ok, known)
							}
						default:
							if tr.Source != SourceHEAD || len(tr.Files) == 0 || !ok || got != root || len(known) != 1 || known[0].Root() != root {
								t.Errorf("no record, base has one: Resolve = %s (%d files), FindRoot = %q, %v, committed %v", tr.Source, len(tr.Files), got, ok, known)
							}
							if name != "weakened and committed" && string(tr.Files[".gauntlet/checks/lint.yml"]) != lintYML {
								t.Errorf("the base's configuration is not the one in force: %q", tr.Files)
							}
						}
					})
				}
			}
		}
	}
}
