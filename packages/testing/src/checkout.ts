import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { createTempDir, REPO_ROOT, type TempDir } from "./paths";

/**
 * The built checkout, copied as a new user would have it, into `<a directory of mode 700>/oah`
 * (root's home, or any private directory): its files and git history copied, its node_modules
 * hard-linked (the copy only reads them), so that `npm start` there finds the build in turbo's
 * cache. `path` is the checkout's root; `remove` removes all.
 */
export function copyCheckout(): TempDir {
  const parent = createTempDir("oah-checkout-");
  chmodSync(parent.path, 0o700);
  const path = join(parent.path, "oah");
  mkdirSync(path);
  try {
    execFileSync("cp", ["-al", join(REPO_ROOT, "node_modules"), join(path, "node_modules")]);
    execFileSync("sh", [
      "-c",
      'tar -C "$1" --exclude=./node_modules --exclude=./test-results -cf - . | tar -C "$2" -xf -',
      "copy",
      REPO_ROOT,
      path,
    ]);
  } catch (error) {
    parent.remove();
    throw error;
  }
  return { path, remove: parent.remove };
}
