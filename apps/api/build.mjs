// Bundles the app with the workspace packages (TypeScript sources) inlined; npm
// dependencies stay external. The migrations travel with the bundle.
import { cpSync, readFileSync, rmSync } from "node:fs";
import { build } from "esbuild";

const own = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));
const workspacePackages = Object.keys(own.dependencies).filter((name) => name.startsWith("@oah/"));
const external = new Set();
for (const name of workspacePackages) {
  const dir = new URL(`../../node_modules/${name}/package.json`, import.meta.url);
  const pkg = JSON.parse(readFileSync(dir, "utf8"));
  for (const dep of Object.keys(pkg.dependencies ?? {})) if (!dep.startsWith("@oah/")) external.add(dep);
}
for (const dep of Object.keys(own.dependencies)) if (!dep.startsWith("@oah/")) external.add(dep);

rmSync(new URL("./dist", import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: ["src/main.ts"],
  outfile: "dist/main.js",
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  sourcemap: true,
  external: [...external, ...[...external].map((d) => `${d}/*`)],
  logLevel: "warning",
});
cpSync(new URL("../../drizzle", import.meta.url), new URL("./dist/drizzle", import.meta.url), {
  recursive: true,
});
