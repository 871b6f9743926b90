#!/usr/bin/env node
// The command of the agent-gauntlet npm package, where the binary itself
// is not: on Linux and macOS, npm's install puts the binary in this file's
// place (lib/postinstall.js), so that a command starts no Node; this
// launcher stays on Windows, with another package manager, with
// --ignore-scripts, or when that step could not be done. It finds the
// binary (lib/binary.js) and runs it with the same arguments, standard
// input, output and error (inherited, never read or buffered here),
// forwards the signals that end a process, and ends as the binary ended:
// with its exit code, or killed by the same signal. Nothing is downloaded,
// at install or at run time.
"use strict";

const { spawn } = require("node:child_process");
const { constants } = require("node:os");
const { pkg, findBinary } = require("../lib/binary.js");

// fail reports a problem of the installation. Exit 1, never 2: Claude
// Code reads exit 2 from a hook as "block", and a broken install must not
// trap an agent.
function fail(message) {
  process.stderr.write(`${pkg.name}: ${message}\n`);
  process.exit(1);
}

let binary;
try {
  binary = findBinary();
} catch (err) {
  fail(err.message);
}

const signals = process.platform === "win32" ? ["SIGINT", "SIGBREAK", "SIGHUP"] : ["SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT"];
const child = spawn(binary, process.argv.slice(2), { stdio: "inherit", windowsHide: true });

for (const signal of signals) {
  process.on(signal, () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
    }
  });
}

child.on("error", (err) => fail(`cannot run ${binary}: ${err.message}`));

child.on("exit", (code, signal) => {
  if (signal === null) {
    process.exit(code === null ? 1 : code);
  }
  // Die of the same signal, so that whoever waits for this process sees
  // what the binary did; if the signal does not end it, exit as a shell
  // reports a signal death.
  for (const s of signals) {
    process.removeAllListeners(s);
  }
  process.kill(process.pid, signal);
  process.exit(128 + (constants.signals[signal] || 0));
});
