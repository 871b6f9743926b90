module github.com/agent-gauntlet/agent-gauntlet/magefiles

go 1.25.0

require (
	github.com/BurntSushi/toml v1.4.1-0.20240526193622-a339e1f7089c // indirect
	github.com/magefile/mage v1.17.2 // indirect
	go.yaml.in/yaml/v2 v2.4.2 // indirect
	golang.org/x/exp/typeparams v0.0.0-20231108232855-2478ac86f678 // indirect
	golang.org/x/sync v0.19.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/tools v0.40.1-0.20260108161641-ca281cf95054 // indirect
	honnef.co/go/tools v0.7.0 // indirect
)

tool (
	github.com/magefile/mage
	honnef.co/go/tools/cmd/staticcheck
)

require (
	github.com/agent-gauntlet/agent-gauntlet/statecfg v0.0.0
	golang.org/x/mod v0.31.0
)
