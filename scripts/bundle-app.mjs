// Bundles an app (run from its folder) into dist/: the workspace packages
// (TypeScript sources) are inlined, npm dependencies stay external, Lua and shell scripts
// come in as text, and the migrations travel with the bundle.
// Usage: bundle-app.mjs [--dev-external] [entry…]  (entries default to src/main.ts;
// each becomes dist/<name>.js). --dev-external keeps the app's devDependencies
// external too (the bench's peers: graphile-worker reads its SQL files at run time).
import { cpSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

const { values, positionals } = parseArgs({
  options: { "dev-external": { type: "boolean", default: false } },
  allowPositionals: true,
});

/** Every npm dependency of the app and of the workspace packages it pulls in, transitively. */
function externals(pkg, withDev, seen = new Set(), found = new Set()) {
  const deps = { ...pkg.dependencies, ...(withDev ? pkg.devDependencies : {}) };
  for (const dep of Object.keys(deps)) {
    if (!dep.startsWith("@oah/")) {
      found.add(dep);
    } else if (!seen.has(dep)) {
      seen.add(dep);
      externals(readJson(join(root, "node_modules", dep, "package.json")), false, seen, found);
    }
  }
  return found;
}

const entryPoints = positionals.length > 0 ? positionals : ["src/main.ts"];
const external = [...externals(readJson("package.json"), values["dev-external"])];
// Built aside, then swapped in: a process starting meanwhile finds the old bundle or the new one.
const staging = `dist.${process.pid}`;
rmSync(staging, { recursive: true, force: true });
await build({
  entryPoints,
  outdir: staging,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: true,
  loader: { ".lua": "text", ".sh": "text" },
  external: [...external, ...external.map((d) => `${d}/*`)],
  logLevel: "warning",
});
cpSync(join(root, "drizzle"), join(staging, "drizzle"), { recursive: true });
rmSync(`${staging}.old`, { recursive: true, force: true });
try {
  renameSync("dist", `${staging}.old`);
} catch {
  // no previous build
}
renameSync(staging, "dist");
rmSync(`${staging}.old`, { recursive: true, force: true });
