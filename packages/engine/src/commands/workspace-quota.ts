import { execFile } from "node:child_process";
import { chmod, chown, link, mkdir, open, readdir, rm, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { RunFailure } from "../run-failure";
import type { JailDiagnosis } from "./jail-diagnosis";

const run = promisify(execFile);

/** Where the workspaces' file systems are kept, in the workspace root: a name no workspace id can have. */
export const QUOTA_IMAGES = ".quota";
/** The size of the trial file system that proves at start that this host can make them. */
const TRIAL_BYTES = 16 * 1024 * 1024;
/** The workspace's own file system: no space reserved for root, nothing a step can use to gain anything. */
const MOUNT_OPTIONS = "loop,nosuid,nodev,noatime";

/** The programs a quota needs: e2fsprogs' mkfs.ext4, util-linux's mount and umount. */
export interface QuotaTools {
  mkfs: string;
  mount: string;
  umount: string;
}

/** Whether `dir` is the root of a file system mounted there (its device differs from its parent's). */
async function isMountPoint(dir: string): Promise<boolean> {
  const [own, parent] = await Promise.all([stat(dir), stat(join(dir, ".."))]);
  return own.dev !== parent.dev;
}

/** Why this host cannot bound its workspaces, and what to do about it. */
export class QuotaUnavailable extends Error {
  constructor(readonly diagnosis: JailDiagnosis) {
    super(diagnosis.cause);
    this.name = "QuotaUnavailable";
  }
}

const exists = (path: string): Promise<boolean> =>
  stat(path).then(
    () => true,
    () => false,
  );

/** What a failed program said, on one line. */
const said = (error: unknown): string =>
  String((error as { stderr?: unknown }).stderr ?? "").trim() || (error as Error).message;

/**
 * OAH_WORKSPACE_MAX_BYTES: each workspace is a file system of its own, of that size, made the
 * first time a command runs there: an ext4 image (sparse: it takes the disk it holds) under the
 * root's `.quota`, loop-mounted on the workspace's directory, where it stays mounted. A step
 * that fills it gets ENOSPC, and the disk of the host is not touched beyond it. The host and its
 * operators see the workspace at its path as ever; the jail binds it as any workspace.
 */
export class WorkspaceQuota {
  /** Workspaces whose file system is being made, so that two commands at once make it once. */
  private readonly pending = new Map<string, Promise<void>>();

  private constructor(
    readonly maxBytes: number,
    private readonly tools: QuotaTools,
  ) {}

  /**
   * A quota of `maxBytes` per workspace under `root`, once a trial file system was made, mounted
   * and unmounted there; what stops it is thrown as a diagnosis (root, loop devices, the tools).
   */
  static async open(root: string, maxBytes: number, tools: QuotaTools): Promise<WorkspaceQuota> {
    if (process.getuid?.() !== 0) {
      throw new QuotaUnavailable({
        cause:
          "OAH_WORKSPACE_MAX_BYTES needs oah to run as root: each workspace is a loop-mounted file system",
        fix: "run oah as root, or unset OAH_WORKSPACE_MAX_BYTES",
      });
    }
    const quota = new WorkspaceQuota(maxBytes, tools);
    const trial = join(root, QUOTA_IMAGES, `.trial-${process.pid}`);
    try {
      await mkdir(trial, { recursive: true, mode: 0o700 });
      await quota.makeImage(`${trial}.ext4`, TRIAL_BYTES, null);
      await run(tools.mount, ["-o", MOUNT_OPTIONS, `${trial}.ext4`, trial]);
      await run(tools.umount, [trial]);
    } catch (error) {
      throw new QuotaUnavailable({
        cause: `a workspace's file system (OAH_WORKSPACE_MAX_BYTES) cannot be made and mounted here: ${said(error)}`,
        fix: "give oah loop devices (/dev/loop-control; in a container, --privileged or --device /dev/loop-control) and e2fsprogs (apt-get install -y e2fsprogs), or unset OAH_WORKSPACE_MAX_BYTES",
      });
    } finally {
      await rm(trial, { recursive: true, force: true });
      await rm(`${trial}.ext4`, { force: true });
    }
    return quota;
  }

  /**
   * Makes the workspace `dir` (its real path, under `root`) the mount point of its own file
   * system, unless it is already; `owner` owns its root. A directory that holds files from before
   * the quota is refused (`workspace_invalid`): mounting over them would hide them.
   */
  async apply(root: string, dir: string, owner: { uid: number; gid: number } | null): Promise<void> {
    const running = this.pending.get(dir);
    if (running) return running;
    const work = this.mount(root, dir, owner).finally(() => this.pending.delete(dir));
    this.pending.set(dir, work);
    return work;
  }

  private async mount(root: string, dir: string, owner: { uid: number; gid: number } | null): Promise<void> {
    if (await isMountPoint(dir)) return;
    if ((await readdir(dir)).length > 0) {
      throw new RunFailure(
        "workspace_invalid",
        `the workspace ${dir} holds files from before OAH_WORKSPACE_MAX_BYTES: move them out of it, and the next command makes it a file system of its own`,
      );
    }
    const images = join(root, QUOTA_IMAGES);
    const image = join(images, `${basename(dir)}.ext4`);
    try {
      await mkdir(images, { recursive: true, mode: 0o700 });
      const made = await exists(image).then((there) => !there && this.makeImage(image, this.maxBytes, owner));
      await run(this.tools.mount, ["-o", MOUNT_OPTIONS, image, dir]);
      if (made) await rm(join(dir, "lost+found"), { recursive: true, force: true });
      if (owner) await chown(dir, owner.uid, owner.gid);
      await chmod(dir, 0o700);
    } catch (error) {
      throw new RunFailure(
        "workspace_invalid",
        `the file system of the workspace ${dir} (OAH_WORKSPACE_MAX_BYTES) could not be made or mounted: ${said(error)}`,
      );
    }
  }

  /**
   * A new image of `bytes` at `image`, made under another name first and linked there: an image is
   * whole or absent, and of two hosts that make it at once, the first to link it wins (false for
   * the other).
   */
  private async makeImage(image: string, bytes: number, owner: { uid: number; gid: number } | null) {
    const partial = `${image}.${process.pid}.partial`;
    try {
      const file = await open(partial, "w", 0o600);
      try {
        await file.truncate(bytes);
      } finally {
        await file.close();
      }
      const rootOwner = owner ? ["-E", `root_owner=${owner.uid}:${owner.gid}`] : [];
      await run(this.tools.mkfs, ["-q", "-F", "-m", "0", ...rootOwner, partial]);
      return await link(partial, image).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === "EEXIST") return false;
          throw error;
        },
      );
    } finally {
      await rm(partial, { force: true });
    }
  }
}
