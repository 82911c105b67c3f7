import { execFileSync } from "node:child_process";
import { accessSync, closeSync, constants, existsSync, openSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import type { StepLimits, StepNetwork } from "@oah/core";
import { settlesWithin } from "../abort";
import type { Liveness } from "../liveness";
import type { Logger } from "../logger";
import { type ProcessGuard, runProcess } from "./child-process";
import type { CommandBounds, CommandRequest, CommandResult, CommandRunner } from "./command-runner";
import { groupMembers, signal } from "./process-table";
import { type SandboxPlan, sandboxArgv } from "./sandbox-argv";
import { SandboxNamespace } from "./sandbox-namespace";
import { StepWatchdog } from "./step-watchdog";
import { prepareWorkspace } from "./workspace";

export interface SandboxSettings {
  /** The real path of OAH_WORKSPACE_ROOT. */
  workspaceRoot: string;
  /** Host directories no command may see (the data directory); the workspace root is always one. */
  hidden: readonly string[];
  /** OAH_SANDBOX_USER: a user name or a uid. */
  user: string;
  network: StepNetwork;
  limits: StepLimits;
  bounds: CommandBounds;
  /** With other hosts that may recover this one's runs: the watchdog kills steps when it lapses. */
  liveness: Liveness | null;
  logger: Logger;
}

/** The sandbox cannot be made on this host; the message says why and what to do. */
export class SandboxUnavailable extends Error {
  constructor(reason: string) {
    super(
      `commands of runs cannot be sandboxed on this host: ${reason}. Install bubblewrap and util-linux ` +
        "(apt-get install -y bubblewrap util-linux) on a kernel with user namespaces, or set OAH_SHELL=off " +
        "(no shell steps, hook steps or agent shell tool) or OAH_SHELL=unsafe-host (commands unconfined on " +
        "the host: only on a machine of your own)",
    );
    this.name = "SandboxUnavailable";
  }
}

function findExecutable(name: string): string {
  for (const dir of (process.env.PATH ?? "/usr/bin:/bin").split(":")) {
    if (!dir) continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  throw new SandboxUnavailable(`${name} is not installed (not found on PATH)`);
}

/** A user name or uid as ids; root is refused: commands run unprivileged. */
function resolveUser(user: string): { uid: number; gid: number } {
  let ids: { uid: number; gid: number } | null = null;
  try {
    const [, , uid, gid] = execFileSync("getent", ["passwd", user], { encoding: "utf8" }).trim().split(":");
    ids = { uid: Number(uid), gid: Number(gid) };
  } catch {
    if (/^\d+$/.test(user)) ids = { uid: Number(user), gid: Number(user) };
  }
  if (!ids) throw new SandboxUnavailable(`OAH_SANDBOX_USER ${user} is not a user of this system`);
  if (ids.uid === 0) throw new SandboxUnavailable("OAH_SANDBOX_USER must not be root");
  return ids;
}

/**
 * bwrap resolves the workspace as the sandbox user, before the sandbox exists: every
 * directory above the workspace root must let that user pass (x for it).
 */
function checkReachable(root: string, user: { uid: number; gid: number }): void {
  for (let dir = dirname(root); ; dir = dirname(dir)) {
    const { mode, uid, gid } = statSync(dir);
    const bit = uid === user.uid ? 0o100 : gid === user.gid ? 0o010 : 0o001;
    if ((mode & bit) === 0) {
      throw new SandboxUnavailable(
        `the sandbox user (uid ${user.uid}) cannot reach the workspace root ${root}: ${dir} is mode ` +
          `${(mode & 0o777).toString(8)}. Put OAH_WORKSPACE_ROOT (or OAH_DATA_DIR) under a directory others ` +
          `may pass through, or let them (chmod o+x ${dir})`,
      );
    }
    if (dir === dirname(dir)) return;
  }
}

/** The probe's workspace: a name no workspace id can have (ids do not start with a dot). */
const PROBE_WORKSPACE = ".sandbox-probe";
/** The longest a result waits for the kernel to end what is left of a sandbox. */
const NAMESPACE_END_MS = 2_000;

/**
 * Runs each command of a run in a sandbox of its own (see sandboxArgv): as an
 * unprivileged user, seeing only its workspace (read-write) and the system
 * (read-only), in namespaces that end every process of the command when it ends
 * and when the host dies; with the step watchdog, also when the host stops
 * renewing its lease (frozen, or cut off).
 */
export class SandboxedCommands implements CommandRunner {
  private readonly guard: ProcessGuard;
  private readonly hidden: readonly string[];

  private constructor(
    private readonly settings: SandboxSettings,
    private readonly tools: SandboxPlan["tools"],
    private readonly user: SandboxPlan["user"],
    private readonly watchdog: StepWatchdog | null,
  ) {
    this.hidden = [...new Set([...settings.hidden, settings.workspaceRoot])];
    const sandboxes = new Map<number, SandboxNamespace>();
    // What the kernel still has to kill once bwrap's outer process is gone.
    const emptied = async (outer: number) => {
      await sandboxes.get(outer)?.gone(NAMESPACE_END_MS);
      sandboxes.delete(outer);
    };
    this.guard = {
      started: (child) => {
        sandboxes.set(child.pid!, new SandboxNamespace(child.pid!));
        return this.watchdog?.watch(child.pid!) ?? (() => {});
      },
      stop: async (child, exited, graceMs) => {
        const outer = child.pid!;
        // SIGTERM to the command's processes, not to bwrap's own two: the outer one would end
        // the whole sandbox at once, without the grace period, and its init ignores it.
        for (const p of groupMembers(outer) ?? []) {
          if (p.pid !== outer && p.ppid !== outer) signal(p.pid, "SIGTERM");
        }
        if (!(await settlesWithin(exited, graceMs))) {
          signal(outer, "SIGKILL");
          await exited.catch(() => {});
        }
        await emptied(outer);
      },
      // The sandbox ends with its first process: nothing of the command is left once the kernel is done.
      ended: (child) => emptied(child.pid!),
      // A step the watchdog killed while this host was frozen: the run stops here, writing nothing.
      beforeResult: () => {
        settings.liveness?.check();
      },
    };
  }

  /** Resolves the tools and the user, then proves with one command that a sandbox can be made here. */
  static async open(settings: SandboxSettings): Promise<SandboxedCommands> {
    const tools = {
      setpriv: findExecutable("setpriv"),
      bwrap: findExecutable("bwrap"),
      prlimit: findExecutable("prlimit"),
    };
    const root = process.getuid?.() === 0;
    const user = root
      ? { ...resolveUser(settings.user), switchUser: true }
      : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, switchUser: false };
    if (root) checkReachable(settings.workspaceRoot, user);
    else {
      settings.logger.warn(
        { uid: user.uid },
        "oah does not run as root: commands of runs run as its own user (in the sandbox), not as OAH_SANDBOX_USER",
      );
    }
    const watchdog = settings.liveness
      ? new StepWatchdog(settings.liveness, findExecutable("bash"), settings.logger)
      : null;
    const commands = new SandboxedCommands(settings, tools, user, watchdog);
    await commands.probe();
    return commands;
  }

  private async probe(): Promise<void> {
    const result = await this.run({
      command: "id -u; id -g",
      workspaceDir: join(this.settings.workspaceRoot, PROBE_WORKSPACE),
      env: { PATH: "/usr/bin:/bin" },
      timeoutMs: 10_000,
      signal: new AbortController().signal,
    }).catch((error: Error) => {
      throw new SandboxUnavailable(error.message);
    });
    const expected = `${this.user.uid}\n${this.user.gid}\n`;
    if (result.exitCode !== 0 || result.stdout !== expected) {
      const said = result.stderr.trim() || result.stdout.trim();
      throw new SandboxUnavailable(
        `bwrap ${result.exitCode === null ? `ended by ${result.signal}` : `exited with ${result.exitCode}`}` +
          (said ? ` (${said})` : ""),
      );
    }
  }

  async run(request: CommandRequest): Promise<CommandResult> {
    const { settings } = this;
    const owner = this.user.switchUser ? { uid: this.user.uid, gid: this.user.gid } : null;
    const dir = await prepareWorkspace(settings.workspaceRoot, request.workspaceDir, owner);
    // Opened by the host and handed over: the sandbox user needs no way through the directories above it.
    const fd = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    try {
      const { file, args } = sandboxArgv({
        tools: this.tools,
        user: this.user,
        workspace: { fd: 3, path: request.workspaceDir },
        // What does not exist has nothing to hide (and bwrap could not mount on it in a read-only system).
        hidden: this.hidden.filter((path) => existsSync(path)),
        network: settings.network !== "off",
        limits: settings.limits,
        command: request.command,
      });
      return await runProcess({ file, args, cwd: "/", fds: [fd] }, request, settings.bounds, this.guard);
    } finally {
      closeSync(fd);
    }
  }

  close(): void {
    this.watchdog?.close();
  }
}
