// Package modelstub is a loopback stand-in for the model APIs that the real
// agent CLIs call (Anthropic Messages for Claude Code, OpenAI Responses for
// Codex, Gemini generateContent for Gemini CLI), so that end-to-end tests run
// whole agent turns offline.
//
// Each handler records every request (one JSON line per request, see Entry)
// and answers the model calls from a Replies queue of canned texts; once the
// queue is empty every answer is the default text ("All done."). The server
// binds 127.0.0.1 only and stops by itself after a bounded lifetime.
package modelstub
