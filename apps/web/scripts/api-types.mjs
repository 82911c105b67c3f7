// Writes .api-types/: declaration files of @oah/api and the workspace packages its types reach.
//
// The console imports only types from the API (AppRouter, Run, …). Type-checking those packages'
// sources inside the console's program would judge server code under Next.js's global types
// (which, e.g., make NODE_ENV a required member of every ProcessEnv); as declarations they are
// read, not re-checked. tsconfig.json maps @oah/* here. Errors in the packages themselves are
// their own typecheck's business: declarations are written regardless.
import { spawnSync } from "node:child_process";
import { existsSync, renameSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const web = join(dirname(fileURLToPath(import.meta.url)), "..");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
const staging = join(web, `.api-types.${process.pid}`);
rmSync(staging, { recursive: true, force: true });

const result = spawnSync(
  process.execPath,
  [tsc, "-p", join(web, "tsconfig.api-types.json"), "--outDir", staging, "--pretty", "false"],
  { cwd: web, encoding: "utf8" },
);
const entry = join(staging, "packages/api/src/index.d.ts");
if (!existsSync(entry)) {
  process.stderr.write(result.stdout + result.stderr);
  rmSync(staging, { recursive: true, force: true });
  console.error("api-types: no declarations were written");
  process.exit(1);
}
if (result.status !== 0) {
  const count = (result.stdout.match(/error TS/g) ?? []).length;
  console.warn(
    `api-types: the API packages have ${count} type error(s) of their own; their typecheck reports them`,
  );
}
// Swapped in whole, so that a build and a typecheck running at once never see half a folder.
const target = join(web, ".api-types");
const old = `${target}.old.${process.pid}`;
if (existsSync(target)) renameSync(target, old);
renameSync(staging, target);
rmSync(old, { recursive: true, force: true });
