// Package config loads and validates a project's .gauntlet/ directory
// (config.yml, checks/*.yml|*.yaml, reviews/*.md, ci.yml), the global
// ~/.config/agent-gauntlet/config.yml, and resolves the environment overrides.
//
// Errors name the file and the field; every problem found is reported, not
// just the first. Unknown keys are warnings.
package config
