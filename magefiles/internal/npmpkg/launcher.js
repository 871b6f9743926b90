#!/usr/bin/env node
// The command of the agent-gauntlet npm package. npm installed, of this
// package's optionalDependencies, the one platform package whose "os" and
// "cpu" match this machine; it holds the agent-gauntlet binary. This
// launcher finds it and runs it with the same arguments, standard input,
// output and error (inherited, never read or buffered here), forwards the
// signals that end a process, and ends as the binary ended: with its exit
// code, or killed by the same signal. Nothing is downloaded, at install or
// at run time.
"use strict";

const { spawn } = require("node:child_process");
const { constants } = require("node:os");
const pkg = require("../package.json");

const platformPackage = `${pkg.name}-${process.platform}-${process.arch}`;
const exe = process.platform === "win32" ? "agent-gauntlet.exe" : "agent-gauntlet";

// fail reports a problem of the installation. Exit 1, never 2: Claude
// Code reads exit 2 from a hook as "block", and a broken install must not
// trap an agent.
function fail(message) {
  process.stderr.write(`${pkg.name}: ${message}\n`);
  process.exit(1);
}

let binary;
try {
  binary = require.resolve(`${platformPackage}/bin/${exe}`);
} catch {
  const supported = Object.keys(pkg.optionalDependencies || {}).map((name) => name.slice(pkg.name.length + 1));
  if (supported.includes(`${process.platform}-${process.arch}`)) {
    fail(`the package ${platformPackage}, which holds the agent-gauntlet binary for this machine, is not installed: install ${pkg.name} again without --omit=optional (or --no-optional)`);
  }
  fail(`no agent-gauntlet binary for ${process.platform}-${process.arch}; there is one for ${supported.join(", ")}, and \`go install\` builds one anywhere (see the README)`);
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
