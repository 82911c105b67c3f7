// Bundles the bench's entry points (run from bench/) into dist/: like
// scripts/bundle-app.mjs (workspace packages inlined, npm packages external),
// except that the peers (BullMQ, graphile-worker: devDependencies) stay external
// too: graphile-worker reads its SQL migrations from its own folder at run time.
import { readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));

function externals(pkg, seen = new Set(), found = new Set()) {
  for (const dep of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) {
    if (!dep.startsWith("@oah/")) {
      found.add(dep);
    } else if (!seen.has(dep)) {
      seen.add(dep);
      externals(readJson(join(root, "node_modules", dep, "package.json")), seen, found);
    }
  }
  return found;
}

const entryPoints = process.argv.slice(2);
const external = [...externals(readJson("package.json"))];
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
rmSync(`${staging}.old`, { recursive: true, force: true });
try {
  renameSync("dist", `${staging}.old`);
} catch {
  // no previous build
}
renameSync(staging, "dist");
rmSync(`${staging}.old`, { recursive: true, force: true });
