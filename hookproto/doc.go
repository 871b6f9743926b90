// Package hookproto is the wire format of the agents' stop hooks: what Claude
// Code, Codex, Gemini CLI, Cursor and Copilot CLI write to a hook's standard
// input when the agent is about to stop, and what each of them accepts back.
//
// Each agent has one decoder (its input type and Input method) and one
// encoder (its output type and encode function); what to answer is decided
// elsewhere. Decode is lenient: unknown fields and known fields of an
// unexpected type are ignored, only input that is not one JSON object is
// rejected. Encode always returns exactly one line of JSON.
//
// The module has no dependencies: statuses travel as plain strings.
package hookproto
