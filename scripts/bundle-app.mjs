// Bundles an app (run from its folder) into dist/main.js: the workspace packages
// (TypeScript sources) are inlined, npm dependencies stay external, Lua scripts
// come in as text, and the migrations travel with the bundle.
import { cpSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

/** Every npm dependency of the app and of the workspace packages it pulls in, transitively. */
function externals(pkg, seen = new Set(), found = new Set()) {
  for (const dep of Object.keys(pkg.dependencies ?? {})) {
    if (!dep.startsWith("@oah/")) {
      found.add(dep);
    } else if (!seen.has(dep)) {
      seen.add(dep);
      externals(readJson(join(root, "node_modules", dep, "package.json")), seen, found);
    }
  }
  return found;
}

// Entry points: the arguments, or src/main.ts; each becomes dist/<name>.js.
const entryPoints = process.argv.length > 2 ? process.argv.slice(2) : ["src/main.ts"];
const external = [...externals(readJson("package.json"))];
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
  loader: { ".lua": "text" },
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
