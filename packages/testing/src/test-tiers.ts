import { type Dirent, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The tiers of the Vitest suites (docs/testing.md). Each test file names its own at its top, as a
 * Vitest file tag: `// @module-tag unit` or `// @module-tag system`; vitest.config.mts makes a
 * project of each tier from them (`npm run test:unit`, `npm run test:system`).
 */
export const TEST_TIERS = {
  unit: "starts no process and needs no server: the inner loop",
  system: "starts processes (oah's, sandboxes, commands, browsers) or needs PostgreSQL or Redis",
} as const;

export type TestTier = keyof typeof TEST_TIERS;

/**
 * A system file that also names this tag asserts how fast something answers while it works (a
 * latency under load, as an issue asks): it runs in a project of its own, one file at a time,
 * once every other file has run, so that what it measures is oah and not the rest of the suite.
 */
export const TIMED = { name: "timed", description: "asserts a latency: runs alone, after the rest" } as const;

/** The folders holding test files: the `test/` folder of each package, each app and the bench. */
function testFolders(root: string): string[] {
  const within = (parent: string) =>
    readdirSync(join(root, parent), { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(parent, entry.name, "test"));
  return [...within("packages"), ...within("apps"), "bench/test"];
}

function testFilesUnder(root: string, dir: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    // A package without tests.
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFilesUnder(root, path);
    return entry.name.endsWith(".test.ts") ? [path] : [];
  });
}

/** Every file tag a test file gives itself, as Vitest reads them (`@module-tag` in a comment). */
export function fileTagsOf(text: string): string[] {
  return [...text.matchAll(/(?:\/\/|\*)\s*@module-tag\s+([\w\-/]+)\b/g)].map((m) => m[1]!);
}

export interface TestFile {
  /** From the repository's root. */
  path: string;
  /** The tiers it names (one, for a file as it should be). */
  tiers: string[];
  /** It names the timed tag too. */
  timed: boolean;
}

/** Every test file of the repository, with the tiers it names. */
export function testFiles(root: string): TestFile[] {
  return testFolders(root)
    .flatMap((dir) => testFilesUnder(root, dir))
    .sort()
    .map((path) => {
      const tags = fileTagsOf(readFileSync(join(root, path), "utf8"));
      return { path, tiers: tags.filter((tag) => tag in TEST_TIERS), timed: tags.includes(TIMED.name) };
    });
}

/**
 * The files of each project: the unit tier's, the system tier's but its timed files, and those.
 * A file that names no tier (or both) goes with the system tier, so that the whole suite still
 * runs it; the tiers' test fails until it names one.
 */
export function filesOfTiers(files: readonly TestFile[]): Record<TestTier | "timed", string[]> {
  const unit = (f: TestFile) => f.tiers.length === 1 && f.tiers[0] === "unit";
  return {
    unit: files.filter(unit).map((f) => f.path),
    system: files.filter((f) => !unit(f) && !f.timed).map((f) => f.path),
    timed: files.filter((f) => !unit(f) && f.timed).map((f) => f.path),
  };
}
