import { chmod, lchown, lstat, mkdir, readdir, realpath, stat } from "node:fs/promises";
import { join, sep } from "node:path";
import { RunFailure } from "../run-failure";
import type { WorkspaceQuota } from "./workspace-quota";

/** Who owns workspaces: the jail user (a root host switches to it), or null for the host's own user. */
export type WorkspaceOwner = { uid: number; gid: number } | null;

/**
 * The workspace root: made if missing, and never writable by anyone but its owner
 * (the host), so that a command cannot plant an entry in it (a symlink named like
 * another workspace). Returns its real path.
 */
export async function prepareWorkspaceRoot(root: string): Promise<string> {
  await mkdir(root, { recursive: true, mode: 0o711 });
  const info = await stat(root);
  if ((info.mode & 0o022) !== 0 && info.uid === process.getuid?.()) await chmod(root, info.mode & 0o7755);
  return realpath(root);
}

async function chownTree(path: string, owner: { uid: number; gid: number }): Promise<void> {
  await lchown(path, owner.uid, owner.gid);
  const info = await lstat(path);
  if (!info.isDirectory()) return;
  for (const name of await readdir(path)) await chownTree(join(path, name), owner);
}

/**
 * Makes a run's workspace ready for a command and returns its real path: the
 * directory `<root>/<workspaceId>`, made when missing, which must still be a
 * directory under the root once every symlink is followed (a symlink that leads
 * out refuses the run: `workspace_invalid`). With a quota it is a file system of its own
 * (WorkspaceQuota). With a jail user it belongs to that user (a workspace made before is
 * handed over once, with what it holds).
 */
export async function prepareWorkspace(
  root: string,
  workspaceDir: string,
  owner: WorkspaceOwner,
  quota: WorkspaceQuota | null = null,
): Promise<string> {
  const realRoot = await prepareWorkspaceRoot(root);
  const created = await mkdir(workspaceDir, { mode: 0o700 }).then(
    () => true,
    (error: NodeJS.ErrnoException) => {
      if (error.code === "EEXIST") return false;
      throw error;
    },
  );
  let real: string;
  try {
    real = await realpath(workspaceDir);
  } catch (error) {
    throw new RunFailure(
      "workspace_invalid",
      `the workspace ${workspaceDir} cannot be resolved: ${(error as Error).message}`,
    );
  }
  const found = await stat(real);
  if (!real.startsWith(realRoot + sep) || !found.isDirectory()) {
    throw new RunFailure(
      "workspace_invalid",
      `the workspace ${workspaceDir} leads to ${real}, which is not a directory under the workspace root ${realRoot}`,
    );
  }
  await quota?.apply(realRoot, real, owner);
  const info = quota ? await stat(real) : found;
  if (owner && (created || info.uid !== owner.uid)) await chownTree(real, owner);
  return real;
}
