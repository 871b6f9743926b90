package cli

import (
	"fmt"
	"os"

	"github.com/rogpeppe/go-internal/testscript"
	"go.yaml.in/yaml/v3"
)

// cmdWorkflowStep writes the run script of one step of a GitHub Actions
// workflow to a file, so that a script can run it as a job would:
//
//	wfstep <workflow> <job> <step name> <file>
func cmdWorkflowStep(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 4 {
		ts.Fatalf("usage: wfstep <workflow> <job> <step name> <file>")
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Name string `yaml:"name"`
				Run  string `yaml:"run"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	ts.Check(yaml.Unmarshal([]byte(ts.ReadFile(args[0])), &wf))
	job, ok := wf.Jobs[args[1]]
	if !ok {
		ts.Fatalf("no job %q in %s", args[1], args[0])
	}
	for _, st := range job.Steps {
		if st.Name == args[2] {
			if st.Run == "" {
				ts.Fatalf("step %q of job %q runs no script", args[2], args[1])
			}
			ts.Check(os.WriteFile(ts.MkAbs(args[3]), []byte(st.Run), 0o644))
			return
		}
	}
	ts.Fatalf("%s", fmt.Sprintf("no step %q in job %q of %s", args[2], args[1], args[0]))
}
