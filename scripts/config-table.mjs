// `npm run docs:config`: writes the configuration table of docs/operations.md from the
// declarations of the variables (packages/config/src/variables.ts and controller-env.ts).
// A test (packages/config/test/config-table.test.ts) fails while the two differ.
import { readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

const root = new URL("..", import.meta.url).pathname;
const out = join(tmpdir(), `oah-config-table-${process.pid}.mjs`);
await build({
  entryPoints: [join(root, "packages/config/src/config-table.ts")],
  outfile: out,
  bundle: true,
  platform: "node",
  format: "esm",
  // zod and the rest of node_modules are loaded from the repository, not bundled.
  plugins: [
    {
      name: "node-modules-external",
      setup(b) {
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          args.path.startsWith("@oah/")
            ? undefined
            : { path: import.meta.resolve(args.path), external: true },
        );
      },
    },
  ],
  logLevel: "warning",
});
const { withConfigTable } = await import(pathToFileURL(out).href);
const file = join(root, "docs/operations.md");
writeFileSync(file, withConfigTable(readFileSync(file, "utf8")));
console.log("docs/operations.md: the configuration table written from the declarations");
