// @module-tag unit

import { builtinModules } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..");
const REPO = join(PACKAGE, "../..");

describe("@oah/client in a browser", () => {
  it("bundles for the browser from its sources, reaching no Node built-in and no package but @oah/core and eventsource-parser", async () => {
    const result = await build({
      entryPoints: [join(PACKAGE, "src/index.ts")],
      absWorkingDir: REPO,
      bundle: true,
      platform: "browser",
      format: "esm",
      target: "es2022",
      write: false,
      metafile: true,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);

    const inputs = Object.keys(result.metafile.inputs).map((path) => relative(REPO, join(REPO, path)));
    expect(inputs).toContain("packages/client/src/index.ts");
    expect(
      inputs.filter(
        (p) => !/^(packages\/(client|core)\/src|node_modules\/eventsource-parser\/dist)\//.test(p),
      ),
    ).toEqual([]);

    const imports = Object.values(result.metafile.inputs).flatMap((input) =>
      input.imports.map((i) => i.path),
    );
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    expect(imports.filter((path) => builtins.has(path) || path.startsWith("node:"))).toEqual([]);

    const code = result.outputFiles[0]!.text;
    expect(code).toContain("OahApiError");
    expect(code).not.toMatch(/\brequire\(|\bprocess\.|\bBuffer\b/);
  });

  it("fails to bundle what imports a Node built-in: the check above can fail", async () => {
    const attempt = build({
      stdin: {
        contents: 'import { randomBytes } from "node:crypto"; console.log(randomBytes(1));',
        loader: "ts",
      },
      bundle: true,
      platform: "browser",
      write: false,
      logLevel: "silent",
    });
    await expect(attempt).rejects.toThrow(/node:crypto/);
  });
});
