package config

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	sigsyaml "sigs.k8s.io/yaml"
)

// Numbers YAML can write but JSON cannot (.inf, -.inf, .nan) and numbers too
// large for what they configure get the field's own error. `timeout: .inf`
// used to fail the whole file with "invalid YAML: json: unsupported value:
// +Inf"; max_retries near MaxInt made max_retries+1 overflow (every run was
// retry_limit_exceeded); a huge run_interval_minutes overflowed the
// interval's time.Duration.
func TestLoadNumberBounds(t *testing.T) {
	const (
		lint = ".gauntlet/checks/lint.yml"
		qa   = ".gauntlet/reviews/qa.md"
		cfg  = ".gauntlet/config.yml"
	)
	check := func(s string) map[string]string { return map[string]string{lint: "command: x\n" + s} }
	review := func(s string) map[string]string { return map[string]string{qa: "---\n" + s + "---\nReview.\n"} }
	project := func(s string) map[string]string { return map[string]string{cfg: minimalConfig + s} }
	const maxTimeout = lint + ": timeout: must be at most 9223372036 seconds"
	runProblemCases(t, []problemCase{
		{"timeout .inf", check("timeout: .inf\n"), []string{maxTimeout}},
		{"timeout +.Inf", check("timeout: +.Inf\n"), []string{maxTimeout}},
		{"timeout -.inf", check("timeout: -.inf\n"), []string{lint + ": timeout: must be a positive number"}},
		{"timeout .nan", check("timeout: .nan\n"), []string{lint + ": timeout: must be a number"}},
		{"timeout beyond float64", check("timeout: 1e400\n"), []string{lint + ": timeout: must be a number"}},
		{"timeout just too large", check("timeout: 9223372037\n"), []string{maxTimeout}},
		{"review timeout .inf", review("timeout: .inf\n"), []string{qa + ": timeout: must be at most 9223372036 seconds"}},
		{"review timeout .NaN", review("timeout: .NaN\n"), []string{qa + ": timeout: must be a number"}},
		{"num_reviews above the bound", review("num_reviews: 11\n"), []string{qa + ": num_reviews: must be at most 10"}},
		{"num_reviews huge", review("num_reviews: 9223372036854775807\n"), []string{qa + ": num_reviews: must be at most 10"}},
		{"num_reviews .inf", review("num_reviews: .inf\n"), []string{qa + ": num_reviews: must be an integer"}},
		{"max_retries huge", project("max_retries: 9223372036854775807\n"), []string{cfg + ": max_retries: must be at most 100"}},
		{"max_retries .inf", project("max_retries: .inf\n"), []string{cfg + ": max_retries: must be an integer"}},
		{"run_interval_minutes huge", project("stop_hook: {run_interval_minutes: 9223372036854775807}\n"), []string{
			cfg + ": stop_hook.run_interval_minutes: must be at most 1440",
		}},
		{"max_size_mb .inf", project("debug_log: {max_size_mb: .inf}\n"), []string{cfg + ": debug_log.max_size_mb: must be at most 1024 MB"}},
		{"max_size_mb .nan", project("debug_log: {max_size_mb: .nan}\n"), []string{cfg + ": debug_log.max_size_mb: must be a number"}},
		{"max_size_mb huge", project("debug_log: {max_size_mb: 1e300}\n"), []string{cfg + ": debug_log.max_size_mb: must be at most 1024 MB"}},
		{"a non-finite number where a string belongs", check("model: x\nworking_directory: .inf\n"), []string{lint + ": working_directory: must be a string"}},
	})
}

// The bounds themselves are accepted.
func TestLoadNumberBoundsInclusive(t *testing.T) {
	root := writeTree(t, map[string]string{
		".gauntlet/config.yml":      minimalConfig + "max_retries: 100\nstop_hook: {run_interval_minutes: 1440}\ndebug_log: {max_size_mb: 1024}\n",
		".gauntlet/checks/lint.yml": "command: x\ntimeout: 9223372036\n",
		".gauntlet/reviews/qa.md":   "---\nnum_reviews: 10\n---\nReview.\n",
	})
	cfg, err := Load(t.Context(), root)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MaxRetries != MaxMaxRetries || *cfg.StopHook.RunIntervalMinutes != MaxRunIntervalMinutes ||
		*cfg.DebugLog.MaxSizeMB != MaxDebugLogSizeMB || cfg.Reviews["qa"].NumReviews != MaxNumReviews {
		t.Errorf("bounds not accepted: %+v", cfg)
	}
}

// The environment's interval override obeys the same bound (above it, it
// is ignored like any value that does not parse).
func TestResolveStopHookIntervalBound(t *testing.T) {
	for env, want := range map[string]int{"1440": 1440, "1441": DefaultRunIntervalMinutes, "99999999999999999999": DefaultRunIntervalMinutes} {
		got := ResolveStopHook(envMap(map[string]string{EnvStopHookIntervalMinutes: env}), StopHookSettings{}, Global{})
		if got.RunIntervalMinutes != want {
			t.Errorf("%s=%s: interval %d, want %d", EnvStopHookIntervalMinutes, env, got.RunIntervalMinutes, want)
		}
	}
}

// parseYAML gives the value sigs.k8s.io/yaml's YAMLToJSONStrict gives,
// decoded with UseNumber, for every document both accept (see also
// FuzzParseYAMLMatchesSigs).
func TestParseYAMLMatchesSigs(t *testing.T) {
	for _, doc := range []string{
		minimalConfig,
		"a: 1\nb: 1.5\nc: 1e6\nd: 1e-7\ne: 1e21\nf: -0.0\ng: 0x1F\nh: 0o17\ni: 1_000\n",
		"big: 9223372036854775808\nbigger: 18446744073709551616\nneg: -9223372036854775808\n",
		"1: one\n1.5: x\ntrue: t\nnull_value: ~\nlist: [1, two, {x: y}]\n",
		"date: 2001-12-14\nbin: !!binary aGVsbG8=\nstr: '12'\ny: yes\no: on\n",
		"<<: {a: 1}\nb: &anchor {c: 2}\nd: *anchor\n",
		"",
		"# only a comment\n",
		"- a\n- b\n",
		"plain scalar",
		"1e400",
	} {
		got, err := parseYAML([]byte(doc), 0)
		if err != nil {
			t.Errorf("parseYAML(%q): %v", doc, err)
			continue
		}
		if want, ok := sigsValue(t, doc); ok && !reflect.DeepEqual(got, want) {
			t.Errorf("parseYAML(%q) =\n%#v\nsigs.k8s.io/yaml gives\n%#v", doc, got, want)
		}
	}
}

// sigsValue is doc through sigs.k8s.io/yaml and encoding/json (UseNumber);
// ok is false when sigs.k8s.io/yaml refuses doc.
func sigsValue(t *testing.T, doc string) (any, bool) {
	t.Helper()
	j, err := sigsyaml.YAMLToJSONStrict([]byte(doc))
	if err != nil {
		return nil, false
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %s: %v", j, err)
	}
	return v, true
}

// FuzzParseYAMLMatchesSigs: parseYAML never panics, accepts every document
// sigs.k8s.io/yaml accepts, with the same value, and errors in one line.
func FuzzParseYAMLMatchesSigs(f *testing.F) {
	f.Add(minimalConfig)
	f.Add("timeout: .inf\nn: .nan\nm: -.inf\n")
	f.Add("a: {1: 2, 1.5: [x, 0x10]}\n")
	f.Fuzz(func(t *testing.T, doc string) {
		got, err := parseYAML([]byte(doc), 0)
		want, ok := sigsValue(t, doc)
		if err != nil {
			if ok {
				t.Fatalf("parseYAML(%q) = %v, but sigs.k8s.io/yaml accepts it", doc, err)
			}
			if strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("error spans several lines: %q", err)
			}
			return
		}
		if ok && !reflect.DeepEqual(got, want) {
			t.Fatalf("parseYAML(%q) =\n%#v\nsigs.k8s.io/yaml gives\n%#v", doc, got, want)
		}
	})
}
