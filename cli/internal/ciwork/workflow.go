package ciwork

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/agent-gauntlet/agent-gauntlet/statecfg/config"
	"github.com/agent-gauntlet/agent-gauntlet/statecfg/kit/fname"
)

// WorkflowOptions describe the workflow to generate.
type WorkflowOptions struct {
	// Version is what `go install` installs: a release (see
	// InstallVersion), or LatestVersion when Release is false.
	Version string
	Release bool
	// WrittenBy is the running binary's version, for the header.
	WrittenBy string
	// Branch triggers the workflow: pushes to it and pull requests into it.
	Branch string
	// ProjectDir is the project root relative to the repository's top
	// level, slash-separated ("." for the top level).
	ProjectDir string
	// CI is the project's ci.yml, whose services and secrets are written
	// into the workflow (nil: none).
	CI *config.CI
}

// The names the workflow's jobs, outputs and artifacts share with the
// list-jobs JSON and the tests. One source of truth.
const (
	jobDiscover    = "discover"
	jobChecks      = "checks"
	jobReviews     = "reviews"
	stepJobs       = "jobs"
	outputMatrix   = "matrix"
	outputReviews  = "reviews"
	outputRuntimes = "runtimes"
	outputLogDir   = "log_dir"
	binaryArtifact = "agent-gauntlet-binary"
	// stepGauntlet is the id of the step running the gauntlet.
	stepGauntlet = "gauntlet"
	// reportsDir is where a gate job writes its reports: outside the
	// checkout, so that they are never changes, and outside the log
	// directory, which holds only the gauntlet's own files.
	reportsDir = "gauntlet-reports"
	// junitFile and sarifFile are the report files in reportsDir.
	junitFile = "junit.xml"
	sarifFile = "gauntlet.sarif"
	// matrixJob is the matrix variable holding one Job.
	matrixJob = "job"
	// zeroSHA is github.event.before on the push that creates a branch.
	zeroSHA = "0000000000000000000000000000000000000000"
)

// Outputs lists the discover job's outputs: each is a top-level key of
// the list-jobs JSON, written by `ci list-jobs --github-output`.
func Outputs() []string {
	return []string{outputMatrix, outputReviews, outputRuntimes, outputLogDir}
}

// Workflow returns the GitHub Actions workflow for opts, first line
// Marker's.
func Workflow(opts WorkflowOptions) ([]byte, error) {
	jobs := mapping(
		kv(jobDiscover, discoverJob(opts)),
		kv(jobChecks, gateJob(opts, gateKind{
			output: outputMatrix, command: "check",
			title: "check gate", what: "check", secrets: secretsOf(ciGates(opts.CI, false)),
		})),
	)
	if opts.CI != nil && len(opts.CI.Reviews) > 0 {
		jobs.Content = append(jobs.Content, mapping(kv(jobReviews, gateJob(opts, gateKind{
			output: outputReviews, command: "review", title: "review gate", what: "review",
			secrets: secretsOf(ciGates(opts.CI, true)), skipForks: true,
		}))).Content...)
	}
	name := "Gauntlet"
	if opts.ProjectDir != "." {
		name += " (" + opts.ProjectDir + ")"
	}
	root := mapping(
		kv("name", str(name)),
		kv("on", mapping(
			kv("push", mapping(kv("branches", flowStrings(opts.Branch)))),
			kv("pull_request", mapping(kv("branches", flowStrings(opts.Branch)))),
		)),
		kv("permissions", mapping(kv("contents", str("read")))),
		field{key: "concurrency", comment: "A newer push to a pull request cancels its older run; runs of pushes all finish.", value: mapping(
			kv("group", str("${{ github.workflow }}-${{ github.ref }}")),
			kv("cancel-in-progress", str("${{ github.event_name == 'pull_request' }}")),
		)},
		kv("jobs", jobs),
	)
	doc := &yaml.Node{Kind: yaml.DocumentNode, Content: []*yaml.Node{root}, HeadComment: comment(header(opts))}
	body, err := encode(doc)
	if err != nil {
		return nil, err
	}
	return stamp(body), nil
}

// header is the comment at the top of the workflow.
func header(opts WorkflowOptions) string {
	return fmt.Sprintf(`Gauntlet CI, written by agent-gauntlet ci init (agent-gauntlet %s) from
.gauntlet/config.yml and .gauntlet/ci.yml.

Each check gate, and each review gate that ci.yml opts in, runs in its own job as
agent-gauntlet check (or review) -g <gate> in CI mode: the same logs, statuses and
base-branch logic as on a laptop. The jobs, runtimes and setup steps are read from
.gauntlet/ at run time (agent-gauntlet ci list-jobs); run agent-gauntlet ci init
again after changing services, secrets, reviews or base_branch.`, opts.WrittenBy)
}

// defaults runs every run step in the project root.
func defaults(opts WorkflowOptions) *yaml.Node {
	if opts.ProjectDir == "." {
		return nil
	}
	return mapping(kv("run", mapping(kv("working-directory", str(opts.ProjectDir)))))
}

// inProject returns p (relative to the project root, possibly an
// expression) relative to the repository's top level.
func inProject(opts WorkflowOptions, p string) string {
	if opts.ProjectDir == "." {
		return p
	}
	return opts.ProjectDir + "/" + p
}

// uses is a step field running a, with the release its commit is as
// comment.
func uses(a action) *yaml.Node {
	n := str(a.Uses())
	if a.SHA != "" {
		n.LineComment = "# " + a.Version
	} else {
		n.LineComment = "# the major tag, as the action's maintainers ask"
	}
	return n
}

// expr wraps a GitHub expression.
func expr(e string) string { return "${{ " + e + " }}" }

// checkout is the checkout step; full history when the gauntlet needs the
// base branch and the pushed range.
func checkout(full bool) *yaml.Node {
	with := []field{kv("persist-credentials", boolean(false))}
	if full {
		with = append([]field{{key: "fetch-depth", value: integer(0),
			comment: "Full history: the gauntlet diffs against the base branch or the pushed range."}}, with...)
	}
	return mapping(kv("name", str("Check out the repository")), kv("uses", uses(actionCheckout)), kv("with", mapping(with...)))
}

// discoverJob installs agent-gauntlet once, shares the binary with the
// other jobs as an artifact, and lists the jobs.
func discoverJob(opts WorkflowOptions) *yaml.Node {
	install := fmt.Sprintf("go install %s@%s\necho \"$GOBIN\" >> \"$GITHUB_PATH\"\n\"$GOBIN/agent-gauntlet\" --version\n", InstallPackage, opts.Version)
	installComment := fmt.Sprintf("The version of agent-gauntlet that wrote this workflow (%s).", opts.Version)
	if !opts.Release {
		installComment = fmt.Sprintf("agent-gauntlet %s, a development build, wrote this workflow: with no release of its\nown to pin, it installs the latest release. Run ci init with a released binary to pin one.", opts.WrittenBy)
	}
	var outputs []field
	for _, o := range Outputs() {
		outputs = append(outputs, kv(o, str(expr("steps."+stepJobs+".outputs."+o))))
	}
	return mapping(
		kv("name", str("Discover the gauntlet jobs")),
		kv("runs-on", str("ubuntu-latest")),
		kv("defaults", defaults(opts)),
		kv("outputs", mapping(outputs...)),
		kv("steps", seq(
			checkout(false),
			mapping(kv("name", str("Set up Go")), kv("uses", uses(actionSetupGo)), kv("with", mapping(
				kv("go-version", str("stable")),
				kv("cache", boolean(false)),
			))),
			mapping(
				kv("name", str("Install agent-gauntlet")),
				kv("env", mapping(kv("GOBIN", str(expr("runner.temp")+"/agent-gauntlet")))),
				field{key: "run", value: str(install), comment: installComment},
			),
			mapping(
				kv("name", str("Share agent-gauntlet with the other jobs")),
				field{key: "uses", value: uses(actionUploadArtifact), comment: "Built once: every job runs this same binary."},
				kv("with", mapping(
					kv("name", str(binaryArtifact)),
					kv("path", str(expr("runner.temp")+"/agent-gauntlet/agent-gauntlet")),
					kv("retention-days", integer(1)),
					kv("if-no-files-found", str("error")),
				)),
			),
			mapping(
				kv("name", str("List the jobs")),
				kv("id", str(stepJobs)),
				kv("run", str("agent-gauntlet ci list-jobs --github-output \"$GITHUB_OUTPUT\"")),
			),
		)),
	)
}

// gateKind is what differs between the checks and the reviews job.
type gateKind struct {
	output  string // discover output holding the matrix
	command string // agent-gauntlet command
	title   string
	what    string
	secrets []string
	// skipForks skips pull requests from forks, which get no secrets: a
	// review's AI CLI cannot run without its key.
	skipForks bool
}

// matrixField is an expression reading a field of the matrix job.
func matrixField(name string) string { return "matrix." + matrixJob + "." + name }

// gateJob is the matrix job running one gate per matrix entry.
func gateJob(opts WorkflowOptions, k gateKind) *yaml.Node {
	cond := fmt.Sprintf("needs.%s.outputs.%s != '[]'", jobDiscover, k.output)
	if k.skipForks {
		cond += " && (github.event_name != 'pull_request' || github.event.pull_request.head.repo.full_name == github.repository)"
	}
	return mapping(
		kv("name", str(expr(matrixField("name"))+" ("+expr(matrixField("entry_point"))+")")),
		kv("needs", str(jobDiscover)),
		kv("if", str(cond)),
		kv("runs-on", str("ubuntu-latest")),
		kv("defaults", defaults(opts)),
		kv("strategy", mapping(
			kv("fail-fast", boolean(false)),
			kv("matrix", mapping(kv(matrixJob, str(expr(fmt.Sprintf("fromJson(needs.%s.outputs.%s)", jobDiscover, k.output)))))),
		)),
		field{key: "permissions", comment: "security-events: write uploads the SARIF report to code scanning; actions: read lets\nit do so in a private repository.", value: mapping(
			kv("contents", str("read")),
			kv("actions", str("read")),
			kv("security-events", str("write")),
		)},
		kv("services", services(opts.CI)),
		kv("steps", seq(gateSteps(opts, k)...)),
	)
}

// reportsPath is the expression of the reports directory, or of one file
// in it.
func reportsPath(file string) string {
	p := expr("runner.temp") + "/" + reportsDir
	if file != "" {
		p += "/" + file
	}
	return p
}

// reportSteps upload a gate job's reports: both as an artifact (the JUnit
// file for test reporters), and the SARIF file to code scanning under a
// category of the job's own, except on pull requests from forks, whose
// token cannot write security events, and when the gauntlet never ran.
func reportSteps(k gateKind) []*yaml.Node {
	fromRepo := "(github.event_name != 'pull_request' || github.event.pull_request.head.repo.full_name == github.repository)"
	return []*yaml.Node{
		mapping(
			kv("name", str("Upload the gauntlet reports")),
			kv("if", str("always()")),
			kv("uses", uses(actionUploadArtifact)),
			kv("with", mapping(
				kv("name", str(expr(matrixField("artifact"))+"-reports")),
				kv("path", str(reportsPath(""))),
				kv("if-no-files-found", str("ignore")),
			)),
		),
		mapping(
			kv("name", str("Upload the SARIF report to code scanning")),
			field{key: "if", value: str(fmt.Sprintf("!cancelled() && steps.%s.outcome != 'skipped' && %s", stepGauntlet, fromRepo)),
				comment: "Failed checks and review violations appear on the pull request. Each job has its\nown category; a fork's pull request has no token to upload with."},
			kv("uses", uses(actionUploadSARIF)),
			kv("with", mapping(
				kv("sarif_file", str(reportsPath(sarifFile))),
				kv("category", str("agent-gauntlet/"+expr(matrixField("artifact")))),
			)),
		),
	}
}

// gateSteps are a gate job's steps: check out, get agent-gauntlet, set up
// the runtimes, run the setup steps and the gate, upload the logs.
func gateSteps(opts WorkflowOptions, k gateKind) []*yaml.Node {
	steps := []*yaml.Node{
		checkout(true),
		mapping(kv("name", str("Download agent-gauntlet")), kv("uses", uses(actionDownloadArtifact)), kv("with", mapping(
			kv("name", str(binaryArtifact)),
			kv("path", str(expr("runner.temp")+"/agent-gauntlet")),
		))),
		mapping(kv("name", str("Put agent-gauntlet on the PATH")), kv("run", str(
			"chmod +x \"$RUNNER_TEMP/agent-gauntlet/agent-gauntlet\"\necho \"$RUNNER_TEMP/agent-gauntlet\" >> \"$GITHUB_PATH\"\n"))),
	}
	steps = append(steps, runtimeSteps(opts)...)
	steps = append(steps,
		mapping(
			kv("name", str("Global setup")),
			kv("if", str(matrixField("global_setup")+" != ''")),
			kv("env", mapping(kv("GAUNTLET_SETUP", str(expr(matrixField("global_setup")))))),
			kv("run", str(`eval "$GAUNTLET_SETUP"`)),
		),
		mapping(
			kv("name", str("Setup of the "+k.what)),
			kv("if", str(matrixField("setup")+" != ''")),
			kv("working-directory", str(inProject(opts, expr(matrixField("working_directory"))))),
			kv("env", mapping(kv("GAUNTLET_SETUP", str(expr(matrixField("setup")))))),
			kv("run", str(`eval "$GAUNTLET_SETUP"`)),
		),
		runStep(k),
		mapping(
			kv("name", str("Upload the gauntlet logs")),
			field{key: "if", value: str("always()"), comment: "Logs matter most when the gate failed."},
			kv("uses", uses(actionUploadArtifact)),
			kv("with", mapping(
				kv("name", str(expr(matrixField("artifact")))),
				kv("path", str(inProject(opts, expr("needs."+jobDiscover+".outputs."+outputLogDir)))),
				kv("include-hidden-files", boolean(true)),
				kv("if-no-files-found", str("ignore")),
			)),
		),
	)
	return append(steps, reportSteps(k)...)
}

// runStep runs the gauntlet for the matrix job's gate and working
// directory, with the secrets ci.yml lists for its gate.
func runStep(k gateKind) *yaml.Node {
	script := fmt.Sprintf(`set -- %s -g "$GAUNTLET_GATE" --working-directory "$GAUNTLET_WORKING_DIRECTORY" \
  --junit "$GAUNTLET_REPORTS/%s" --sarif "$GAUNTLET_REPORTS/%s"
# A pull request is compared with its base branch (GITHUB_BASE_REF); a push
# with the commit before it, unless it created the branch.
if [ "$GITHUB_EVENT_NAME" = push ] && [ -n "$GAUNTLET_PUSH_BEFORE" ] && [ "$GAUNTLET_PUSH_BEFORE" != %s ]; then
  set -- "$@" --base-branch "$GAUNTLET_PUSH_BEFORE"
fi
agent-gauntlet "$@"
`, k.command, junitFile, sarifFile, zeroSHA)
	env := []field{
		kv("GAUNTLET_GATE", str(expr(matrixField("name")))),
		kv("GAUNTLET_WORKING_DIRECTORY", str(expr(matrixField("working_directory")))),
		kv("GAUNTLET_PUSH_BEFORE", str(expr("github.event.before"))),
		kv("GAUNTLET_REPORTS", str(reportsPath(""))),
	}
	for i, s := range k.secrets {
		f := kv(s, str(expr(fmt.Sprintf("contains(%s, '%s') && secrets.%s || ''", matrixField("secrets"), s, s))))
		if i == 0 {
			f.comment = "Each job gets only the secrets ci.yml lists for its gate."
		}
		env = append(env, f)
	}
	return mapping(
		kv("name", str("Run the "+k.title)),
		kv("id", str(stepGauntlet)),
		kv("env", mapping(env...)),
		kv("run", str(script)),
	)
}

// Secrets lists every secret that ci.yml's gates need, sorted, once.
func Secrets(ci *config.CI) []string {
	return secretsOf(append(ciGates(ci, false), ciGates(ci, true)...))
}

// ciGates returns ci.yml's checks, or its reviews.
func ciGates(ci *config.CI, reviews bool) []config.CIGate {
	switch {
	case ci == nil:
		return nil
	case reviews:
		return ci.Reviews
	}
	return ci.Checks
}

// secretsOf lists the secrets of gates, sorted, once.
func secretsOf(gates []config.CIGate) []string {
	var out []string
	for _, g := range gates {
		out = append(out, g.Secrets...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// runtimeSetup sets up one runtime of config.CIRuntimes.
type runtimeSetup struct {
	title  string
	action action
	// with returns the action's inputs; r is the expression reading a
	// field of the runtime's entry in the runtimes output.
	with func(opts WorkflowOptions, r func(field string) string) []field
}

// runtimeSetups maps every runtime of config.CIRuntimes to its setup.
var runtimeSetups = map[string]runtimeSetup{
	config.RuntimeNode: {"Node.js", actionSetupNode, func(_ WorkflowOptions, r func(string) string) []field {
		return []field{kv("node-version", str(expr(r("version"))))}
	}},
	config.RuntimePython: {"Python", actionSetupPython, func(_ WorkflowOptions, r func(string) string) []field {
		return []field{kv("python-version", str(expr(r("version"))))}
	}},
	config.RuntimeGo: {"Go", actionSetupGo, func(_ WorkflowOptions, r func(string) string) []field {
		return []field{kv("go-version", str(expr(r("version"))))}
	}},
	config.RuntimeJava: {"Java", actionSetupJava, func(_ WorkflowOptions, r func(string) string) []field {
		return []field{
			kv("distribution", str(expr(r("distribution")+" || 'temurin'"))),
			kv("java-version", str(expr(r("version")))),
		}
	}},
	config.RuntimeRuby: {"Ruby", actionSetupRuby, func(opts WorkflowOptions, r func(string) string) []field {
		return []field{
			kv("ruby-version", str(expr(r("version")))),
			kv("bundler-cache", str(expr(r("bundler_cache")+" == true"))),
			kv("working-directory", str(inProject(opts, expr(matrixField("working_directory"))))),
		}
	}},
	config.RuntimeBun: {"Bun", actionSetupBun, func(_ WorkflowOptions, r func(string) string) []field {
		return []field{kv("bun-version", str(expr(r("version"))))}
	}},
}

// runtimeSteps sets up each runtime the matrix job requires, at the
// version of the runtimes output: every known runtime has its step, so a
// runtime added to ci.yml needs no new workflow.
func runtimeSteps(opts WorkflowOptions) []*yaml.Node {
	var steps []*yaml.Node
	for _, name := range config.CIRuntimes() {
		rs := runtimeSetups[name]
		r := func(f string) string {
			return fmt.Sprintf("fromJson(needs.%s.outputs.%s).%s.%s", jobDiscover, outputRuntimes, name, f)
		}
		steps = append(steps, mapping(
			kv("name", str("Set up "+rs.title)),
			kv("if", str(fmt.Sprintf("contains(%s, '%s')", matrixField("runtimes"), name))),
			kv("uses", uses(rs.action)),
			kv("with", mapping(rs.with(opts, r)...)),
		))
	}
	return steps
}

// services are ci.yml's services, each started only for the jobs that
// require it (GitHub starts no container for an empty image).
func services(ci *config.CI) *yaml.Node {
	if ci == nil || len(ci.Services) == 0 {
		return nil
	}
	m := mapping()
	for _, s := range ci.Services {
		var env []field
		for _, k := range sortedKeys(s.Env) {
			env = append(env, kv(k, str(s.Env[k])))
		}
		var creds *yaml.Node
		if s.Credentials != nil {
			creds = mapping(kv("username", str(s.Credentials.Username)), kv("password", str(s.Credentials.Password)))
		}
		image := fmt.Sprintf("contains(%s, '%s') && '%s' || ''", matrixField("services"), s.Name, strings.ReplaceAll(s.Image, "'", "''"))
		m.Content = append(m.Content, mapping(kv(s.Name, mapping(
			kv("image", str(expr(image))),
			kv("credentials", creds),
			kv("env", orNil(len(env) > 0, mapping(env...))),
			kv("ports", orNil(len(s.Ports) > 0, strList(s.Ports))),
			kv("volumes", orNil(len(s.Volumes) > 0, strList(s.Volumes))),
			kv("options", orNil(s.Options != "", str(s.Options))),
		))).Content...)
	}
	return m
}

func orNil(ok bool, n *yaml.Node) *yaml.Node {
	if !ok {
		return nil
	}
	return n
}

func strList(items []string) *yaml.Node {
	s := seq()
	for _, it := range items {
		s.Content = append(s.Content, str(it))
	}
	return s
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// WorkflowsDir is where GitHub reads workflows, relative to the
// repository's top level.
const WorkflowsDir = ".github/workflows"

// FileName is the workflow's file name for a project at dir (relative to
// the repository's top level): gauntlet.yml at the top level, else
// gauntlet-<dir with / replaced by ->.yml, so that several projects of
// one repository get one workflow each; a name too long for a file name
// is shortened with the hash of dir (fname.Fit), room left for the
// temporary name of an atomic write.
func FileName(dir string) string {
	if dir == "." {
		return "gauntlet.yml"
	}
	const limit = fname.MaxBytes - len(".yml") - len("..4294967295.tmp")
	dir = path.Clean(dir)
	return fname.Fit("gauntlet-"+strings.ReplaceAll(dir, "/", "-"), dir, limit) + ".yml"
}

// Branch derives the branch that triggers the workflow from base_branch:
// without its remote ("origin/main" is main) or refs/ prefix.
func Branch(base string) string {
	for _, p := range []string{"refs/heads/", "refs/remotes/origin/", "origin/"} {
		if b, ok := strings.CutPrefix(base, p); ok && b != "" {
			return b
		}
	}
	return base
}
