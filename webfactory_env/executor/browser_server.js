// The shared Chromium of a `BrowserServer` (webfactory_env/executor/browser_server.py), run
// by Playwright's own Node.js. Its settings arrive as one JSON line on stdin; it launches
// Chromium through Playwright (DevTools over a pipe: no port at all) and serves it on a Unix
// socket in its owner's private directory, under a random path. "ready <pid>" on stdout
// says it listens. It closes the browser and exits when its owner is gone, however the owner
// died: its stdin reaches end of file, or its parent process changes (the owner was killed
// and a forked child of it still holds the pipe open).
"use strict";
const fs = require("fs");
const readline = require("readline");

const parent = process.ppid;
const lines = readline.createInterface({ input: process.stdin });
let config = null;
let server = null;
let stopping = false;

async function stop(code) {
  if (stopping) return;
  stopping = true;
  try {
    if (server) await server.close();
  } catch (e) {
    // the browser is gone already: nothing to close
  }
  // The private directory goes too (its owner may have died without a word).
  if (config) fs.rmSync(config.dir, { recursive: true, force: true });
  process.exit(code);
}

lines.once("line", async (line) => {
  try {
    config = JSON.parse(line);
    const { chromium } = require(config.package);
    server = await chromium.launchServer({
      executablePath: config.executable,
      headless: config.headless,
      args: config.args,
      chromiumSandbox: false,
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      port: config.socket,
      wsPath: config.token,
    });
    server.on("close", () => stop(0));
    process.stdout.write(`ready ${server.process().pid}\n`);
  } catch (e) {
    process.stderr.write(`${(e && e.message) || e}\n`.split("\n")[0] + "\n");
    stop(1);
  }
});
lines.on("close", () => stop(0));
setInterval(() => {
  if (process.ppid !== parent) stop(0);
}, 250);
