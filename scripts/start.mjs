// `npm start`: build what is out of date, then run oah-api in the foreground.
// The console (apps/web) joins here once it exists.
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

const api = spawn(process.execPath, ["apps/api/bin/oah-api.js", ...process.argv.slice(2)], {
  cwd: root,
  stdio: "inherit",
  env,
});
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => api.kill(signal));
api.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
