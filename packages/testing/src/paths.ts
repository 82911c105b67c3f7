import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root: the nearest folder above this module that holds turbo.json (also from a bundle). */
function findRepoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, "turbo.json"))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the repository root (no turbo.json above this module)");
    dir = parent;
  }
  return dir;
}

export const REPO_ROOT = findRepoRoot();
export const MIGRATIONS_DIR = join(REPO_ROOT, "drizzle");

export interface TempDir {
  path: string;
  remove(): void;
}

/**
 * Where a test keeps what a command's sandbox must not see: not under /tmp, which every
 * sandbox replaces with its own (so that hiding a directory there would prove nothing).
 */
export const OUTSIDE_TMP = "/var/tmp";

/**
 * A directory of the test's own. Others may pass through it (not list it): a data
 * directory there holds workspaces that the sandbox user must reach, as it must on a host.
 */
export function createTempDir(prefix = "oah-test-", base = tmpdir()): TempDir {
  const path = mkdtempSync(join(base, prefix));
  chmodSync(path, 0o711);
  return {
    path,
    remove: () => {
      unmountUnder(path);
      rmSync(path, { recursive: true, force: true });
    },
  };
}

/** The mount points at or under `path` in this process's mount namespace, the deepest first. */
export function mountsUnder(path: string): string[] {
  return readFileSync("/proc/self/mountinfo", "utf8")
    .split("\n")
    .map((line) => line.split(" ")[4]?.replace(/\\040/g, " "))
    .filter(
      (point): point is string => point !== undefined && (point === path || point.startsWith(`${path}/`)),
    )
    .sort((a, b) => b.length - a.length);
}

/**
 * Unmounts what a test mounted under `path` (the workspaces' file systems of a quota, a small
 * disk). A loop device lets go of its image a moment after its file system is unmounted: until
 * then the disk under it is busy, and its unmount is tried again.
 */
export function unmountUnder(path: string): void {
  for (const point of mountsUnder(path)) {
    for (let attempt = 1; ; attempt++) {
      try {
        execFileSync("umount", [point], { stdio: "pipe" });
        break;
      } catch (error) {
        if (attempt === 50) throw error;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      }
    }
  }
}

/**
 * A PATH like this one without some programs (a machine without bubblewrap, say): a directory of
 * links to every other program of PATH's directories and the sbin ones. `path` goes in PATH.
 */
export function pathWithout(programs: readonly string[]): TempDir {
  // Outside /tmp, as programs are: a sandbox's first stage covers /tmp with the workspace.
  const dir = createTempDir("oah-path-", OUTSIDE_TMP);
  const taken = new Set(programs);
  const dirs = [...(process.env.PATH ?? "").split(delimiter), "/usr/sbin", "/sbin"].filter(Boolean);
  for (const from of dirs) {
    let names: string[];
    try {
      names = readdirSync(from);
    } catch {
      continue;
    }
    for (const name of names) {
      if (taken.has(name)) continue;
      taken.add(name);
      symlinkSync(join(from, name), join(dir.path, name));
    }
  }
  return dir;
}
