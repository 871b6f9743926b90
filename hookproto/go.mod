module github.com/agent-gauntlet/agent-gauntlet/hookproto

go 1.25.0
