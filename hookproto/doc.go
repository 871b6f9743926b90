// Package hookproto is the wire format of the agents' hooks: what Claude
// Code, Codex, Gemini CLI, Cursor, Copilot CLI, Qwen Code and Factory Droid
// write to a hook's standard input when the agent is about to stop or a
// session starts, what each of them accepts back, and where each reads a
// project's hooks from.
//
// Dialects is the one table of agents: a row names the agent, tells how
// its input is recognised (its shape, or a variable of its hooks'
// environment) and decoded, how answers are encoded, its default hook
// timeout and its settings file. The hook, the installer and the doctor
// read the same rows; what to answer is decided elsewhere. Decode is
// lenient: unknown fields and known fields of an unexpected type are
// ignored, only input that is not one JSON object is rejected. Encode
// always returns exactly one line of JSON.
//
// The module has no dependencies: statuses travel as plain strings.
package hookproto
