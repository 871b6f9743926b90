module github.com/agent-gauntlet/agent-gauntlet/cli

go 1.26.0

require (
	github.com/BurntSushi/toml v1.5.0
	github.com/alecthomas/kong v1.17.0
	github.com/owenrumney/go-sarif/v2 v2.3.3
	github.com/rhysd/actionlint v1.7.12
	github.com/rogpeppe/go-internal v1.16.0
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	go.yaml.in/yaml/v3 v3.0.4
	golang.org/x/mod v0.40.0
	golang.org/x/sys v0.47.0
	golang.org/x/term v0.45.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/bmatcuk/doublestar/v4 v4.10.0 // indirect
	github.com/clipperhouse/uax29/v2 v2.7.0 // indirect
	github.com/fatih/color v1.19.0 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/mattn/go-runewidth v0.0.21 // indirect
	github.com/mattn/go-shellwords v1.0.12 // indirect
	github.com/reviewdog/errorformat v0.0.0-20260721110140-13bff69235f3 // indirect
	github.com/robfig/cron/v3 v3.0.1 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	go.yaml.in/yaml/v4 v4.0.0-rc.3 // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	mvdan.cc/sh/v3 v3.14.1 // indirect
)

require (
	github.com/agent-gauntlet/agent-gauntlet/hookproto v0.0.0
	github.com/agent-gauntlet/agent-gauntlet/runner v0.0.0
	github.com/agent-gauntlet/agent-gauntlet/statecfg v0.0.0
	golang.org/x/tools v0.49.0 // indirect
)
