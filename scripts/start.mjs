// `npm start`: build what is out of date, then run oah-api and the console (apps/web) together,
// print both URLs, forward SIGINT/SIGTERM to both, and stop both when either stops.
//
// Arguments go to oah-api (`npm start -- --port 9000`). The console listens on OAH_WEB_PORT
// (default 3000) of OAH_WEB_HOST (default 127.0.0.1) and reaches the API at OAH_API_URL, by default
// the address oah-api reports once it listens.
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const env = { ...process.env, TURBO_TELEMETRY_DISABLED: "1", NEXT_TELEMETRY_DISABLED: "1" };

const build = spawnSync("npx", ["turbo", "run", "build", "--output-logs=errors-only"], {
  cwd: root,
  stdio: "inherit",
  env,
});
if (build.status !== 0) process.exit(build.status ?? 1);

/** @type {Map<string, import("node:child_process").ChildProcess>} */
const children = new Map();
let stopping = false;
let exitCode = 0;

function stopAll(signal = "SIGTERM") {
  for (const child of children.values()) {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
  }
}

function track(name, child) {
  children.set(name, child);
  child.on("exit", (code, signal) => {
    children.delete(name);
    if (!stopping) {
      // One of the two went away by itself: take the other down too, and report the failure.
      stopping = true;
      exitCode = code ?? (signal ? 1 : 0);
      if (exitCode === 0 && children.size > 0) exitCode = 1;
      console.error(`\n${name} exited (${signal ?? code}); stopping the rest`);
      stopAll();
    }
    if (children.size === 0) process.exit(exitCode);
  });
}

for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    stopping = true;
    stopAll(signal);
  });
}

/** Copies a child's output through, and resolves with the first match of `pattern` in it. */
function watch(child, pattern) {
  return new Promise((resolve) => {
    let seen = "";
    let found = false;
    const onData = (stream) => (chunk) => {
      stream.write(chunk);
      if (found) return;
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) {
        found = true;
        resolve(match);
      }
      if (seen.length > 65_536) seen = seen.slice(-4096);
    };
    child.stdout.on("data", onData(process.stdout));
    child.stderr.on("data", onData(process.stderr));
  });
}

const api = spawn(process.execPath, ["apps/api/bin/oah-api.js", ...process.argv.slice(2)], {
  cwd: root,
  stdio: ["inherit", "pipe", "pipe"],
  env,
});
track("oah-api", api);
const listening = await watch(api, /listening on (http:\/\/\S+)/);
const apiListening = listening[1].replace(/\/$/, "");
// An API bound to every interface is reached over loopback.
const apiUrl =
  env.OAH_API_URL?.trim() || apiListening.replace(/\/\/(0\.0\.0\.0|\[::\])(?=[:/]|$)/, "//127.0.0.1");

// The console's own server keeps its rules (loopback without a token, its headers, its limits).
const web = spawn(process.execPath, ["scripts/serve.mjs"], {
  cwd: `${root}apps/web`,
  stdio: ["inherit", "pipe", "pipe"],
  env: { ...env, OAH_API_URL: apiUrl },
});
track("console", web);
const consoleListening = (await watch(web, /console listening on (http:\/\/\S+)/))[1];

console.log(
  [
    "",
    `  oah-api   ${apiListening}`,
    `  console   ${consoleListening}${env.OAH_API_TOKEN?.trim() ? "   (sign in with OAH_API_TOKEN)" : ""}`,
    "",
  ].join("\n"),
);
