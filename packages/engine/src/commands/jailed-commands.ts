import { execFileSync } from "node:child_process";
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
} from "node:fs";
import { delimiter, dirname, join, resolve } from "node:path";
import type { Readable, Writable } from "node:stream";
import type { StepLimits, StepNetwork } from "@oah/core";
import { settlesWithin, systemClock } from "../clock";
import type { Liveness } from "../liveness";
import type { Logger } from "../logger";
import { RunFailure } from "../run-failure";
import { type ProcessGuard, runProcess } from "./child-process";
import type {
  CommandBounds,
  CommandFile,
  CommandRequest,
  CommandResult,
  CommandRunner,
} from "./command-runner";
import { visibleHostSockets } from "./host-sockets";
import {
  JAIL_FILES,
  JAIL_OWN_PATHS,
  JAIL_WORKSPACE,
  type JailPlan,
  jailArgv,
  type SystemEntry,
} from "./jail-argv";
import { diagnoseJail, type JailDiagnosis, type JailFacts } from "./jail-diagnosis";
import { JailNamespace } from "./jail-namespace";
import { groupMembers, signal } from "./process-table";
import { type CgroupHome, type StepCgroup, StepCgroups } from "./step-cgroup";
import { StepWatchdog } from "./step-watchdog";
import { refusedAddresses, UserModeNetwork } from "./user-mode-network";
import { prepareWorkspace } from "./workspace";
import { QuotaUnavailable, WorkspaceQuota } from "./workspace-quota";

export interface JailSettings {
  /** The real path of OAH_WORKSPACE_ROOT. */
  workspaceRoot: string;
  /** Host directories no command may see (the data directory); the workspace root is always one. */
  hidden: readonly string[];
  /** OAH_SANDBOX_USER: a user name or a uid. */
  user: string;
  network: StepNetwork;
  /** IPv4 addresses no step may reach besides the host's own (oah's Redis and PostgreSQL elsewhere). */
  refusedAddresses: readonly string[];
  limits: StepLimits;
  /** OAH_WORKSPACE_MAX_BYTES: each workspace a file system of that size (WorkspaceQuota); null: unbounded. */
  workspaceMaxBytes: number | null;
  /** Where each jail gets a cgroup of its own, capping its memory as a whole (findCgroupHome); null: none. */
  cgroups: CgroupHome | null;
  bounds: CommandBounds;
  /** With other hosts that may recover this one's runs: the watchdog kills steps when it lapses. */
  liveness: Liveness | null;
  logger: Logger;
}

/**
 * The jail cannot be made on this host: why, and what to do about it. `configuration`: the
 * configuration asks for what cannot be (OAH_SANDBOX_USER), not the host lacks something.
 */
export class JailUnavailable extends Error {
  constructor(
    readonly diagnosis: JailDiagnosis,
    readonly configuration = false,
  ) {
    super(
      `commands of runs cannot be sandboxed on this host: ${diagnosis.cause}. To fix: ${diagnosis.fix}; ` +
        "or set OAH_SHELL=off (no shell steps, hook steps or agent shell tool) or OAH_SHELL=unsafe-host " +
        "(commands unconfined on the host: only on a machine of your own)",
    );
    this.name = "JailUnavailable";
  }
}

class MissingTool extends Error {
  constructor(readonly tool: string) {
    super(`${tool} is not installed`);
  }
}

/** A program on PATH, or in the sbin directories a user's PATH may lack. */
export function findExecutable(name: string): string | null {
  const dirs = [...(process.env.PATH ?? "/usr/bin:/bin").split(delimiter), "/usr/sbin", "/sbin"];
  for (const dir of dirs) {
    if (!dir) continue;
    const path = join(dir, name);
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {}
  }
  return null;
}

/** A tool's real path: the jail's own namespaces may cover the directory of a link to it (/tmp). */
function requireExecutable(name: string): string {
  const path = findExecutable(name);
  if (path === null) throw new MissingTool(name);
  return realpathSync(path);
}

const readNumber = (path: string): number | null => {
  try {
    return Number(readFileSync(path, "utf8").trim());
  } catch {
    return null;
  }
};

const inContainer = (): boolean =>
  existsSync("/.dockerenv") ||
  existsSync("/run/.containerenv") ||
  process.env.container !== undefined ||
  process.env.KUBERNETES_SERVICE_HOST !== undefined;

/** What the system says about namespaces, with what failed, for diagnoseJail. */
export function jailFacts(failure: { missingTool?: string; trialError?: string }): JailFacts {
  return {
    missingTool: failure.missingTool ?? null,
    maxUserNamespaces: readNumber("/proc/sys/user/max_user_namespaces"),
    unprivilegedUsernsClone: readNumber("/proc/sys/kernel/unprivileged_userns_clone"),
    apparmorRestrictsUserns: readNumber("/proc/sys/kernel/apparmor_restrict_unprivileged_userns"),
    inContainer: inContainer(),
    trialError: failure.trialError ?? null,
  };
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
  const fail = (cause: string, fix: string) => new JailUnavailable({ cause, fix }, true);
  if (!ids) throw fail(`OAH_SANDBOX_USER ${user} is not a user of this system`, "name an existing user");
  if (ids.uid === 0) throw fail("OAH_SANDBOX_USER must not be root", "name an unprivileged user (nobody)");
  return ids;
}

/** The entries of the host's `/`: what the jail shows of the system. */
function systemEntries(): SystemEntry[] {
  return readdirSync("/", { withFileTypes: true }).map((entry) =>
    entry.isSymbolicLink()
      ? { name: entry.name, symlink: readlinkSync(`/${entry.name}`) }
      : { name: entry.name },
  );
}

/** The file /etc/resolv.conf leads to, following its symlinks by name (the target may not exist); null without one. */
function resolvConfPath(): string | null {
  let path = "/etc/resolv.conf";
  for (let hops = 0; hops < 8; hops++) {
    let target: string;
    try {
      target = readlinkSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "EINVAL") return path; // a file
      return code === "ENOENT" && path.startsWith("/run/") ? path : null;
    }
    path = resolve(dirname(path), target);
  }
  return null;
}

/** slirp4netns's resolver, which forwards to the host's. */
const JAIL_RESOLV_CONF = "nameserver 10.0.2.3\n";

/** The probe's workspace: a name no workspace id can have (ids do not start with a dot). */
const PROBE_WORKSPACE = ".sandbox-probe";
/** The longest a result waits for the kernel to end what is left of a jail. */
const NAMESPACE_END_MS = 2_000;
/** The descriptors a jailed command's process gets: the workspace, then bwrap's network handshake, then its files. */
const FD = { workspace: 3, info: 4, block: 5, resolvConf: 6 } as const;

/** The host's directories where sockets sit, which every jail shows empty: /run, and /var/run unless it leads there. */
function socketDirectories(): string[] {
  try {
    return lstatSync("/var/run").isDirectory() ? ["/run", "/var/run"] : ["/run"];
  } catch {
    return ["/run"];
  }
}

/** Writes `content` to a pipe of the child and closes it: the command's result waits for all of them. */
function feed(pipe: Writable | undefined, content: string): void {
  if (!pipe) return;
  pipe.on("error", () => {});
  pipe.end(content, () => pipe.destroy());
}

/**
 * Runs each command of a run in a step jail of its own (bubblewrap, see jailArgv; not to be
 * confused with `oah-sandbox`, the worker host that runs it): as an
 * unprivileged user, seeing only its workspace (read-write, at /workspace) and the
 * system (read-only), in namespaces that end every process of the command when it
 * ends and when the host dies; with the step watchdog, also when the host stops
 * renewing its lease (frozen, or cut off). With the network on, each jail gets a
 * network namespace of its own, with egress through slirp4netns and no way to the
 * host's own addresses or oah's services.
 */
export class JailedCommands implements CommandRunner {
  private readonly hidden: readonly string[];
  private readonly emptied = socketDirectories();
  private readonly resolvConf: string | null;
  private readonly cgroups: StepCgroups | null;

  private constructor(
    private readonly settings: JailSettings,
    private readonly tools: JailPlan["tools"],
    /** slirp4netns, with the network on. */
    private readonly slirp4netns: string | null,
    private readonly user: JailPlan["user"],
    private readonly watchdog: StepWatchdog | null,
    private readonly quota: WorkspaceQuota | null,
  ) {
    this.hidden = [...new Set([...settings.hidden, settings.workspaceRoot])];
    this.resolvConf = settings.network === "off" ? null : resolvConfPath();
    this.cgroups = settings.cgroups ? new StepCgroups(settings.cgroups, settings.limits) : null;
    // Those of a host of this machine that died with jails running: nothing else removes them.
    this.cgroups?.removeAbandoned();
  }

  /** Resolves the tools and the user, then proves with one command that a jail can be made here. */
  static async open(settings: JailSettings): Promise<JailedCommands> {
    const root = process.getuid?.() === 0;
    let commands: JailedCommands;
    try {
      const network = settings.network === "on";
      const tools = {
        bwrap: requireExecutable("bwrap"),
        setpriv: requireExecutable("setpriv"),
        prlimit: requireExecutable("prlimit"),
        unshare: root || network ? requireExecutable("unshare") : "",
        mount: root ? requireExecutable("mount") : "",
        ip: network ? requireExecutable("ip") : "",
        bash: requireExecutable("bash"),
      };
      const slirp4netns = network ? requireExecutable("slirp4netns") : null;
      const watchdog = settings.liveness
        ? new StepWatchdog(settings.liveness, tools.bash, settings.logger)
        : null;
      const user = root
        ? { ...resolveUser(settings.user), switchUser: true }
        : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0, switchUser: false };
      const quota =
        settings.workspaceMaxBytes === null
          ? null
          : await WorkspaceQuota.open(settings.workspaceRoot, settings.workspaceMaxBytes, {
              mkfs: requireExecutable("mkfs.ext4"),
              mount: tools.mount || requireExecutable("mount"),
              umount: requireExecutable("umount"),
            });
      commands = new JailedCommands(settings, tools, slirp4netns, user, watchdog, quota);
    } catch (error) {
      if (error instanceof MissingTool)
        throw new JailUnavailable(diagnoseJail(jailFacts({ missingTool: error.tool })));
      // The configuration asks for what this host cannot do.
      if (error instanceof QuotaUnavailable) throw new JailUnavailable(error.diagnosis, true);
      throw error;
    }
    if (!root) {
      settings.logger.warn(
        { uid: commands.user.uid },
        "oah does not run as root: commands of runs run as its own user (in the sandbox), not as OAH_SANDBOX_USER",
      );
    }
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
      throw new JailUnavailable(diagnoseJail(jailFacts({ trialError: error.message })));
    });
    const expected = `${this.user.uid}\n${this.user.gid}\n`;
    if (result.exitCode !== 0 || result.stdout !== expected) {
      const said = result.stderr.trim() || result.stdout.trim();
      const ended = result.exitCode === null ? `ended by ${result.signal}` : `exited with ${result.exitCode}`;
      throw new JailUnavailable(diagnoseJail(jailFacts({ trialError: said ? `${said} (${ended})` : ended })));
    }
  }

  async run(request: CommandRequest): Promise<CommandResult> {
    const { settings } = this;
    const owner = this.user.switchUser ? { uid: this.user.uid, gid: this.user.gid } : null;
    const dir = await prepareWorkspace(settings.workspaceRoot, request.workspaceDir, owner, this.quota);
    const network = settings.network === "on";
    const files = request.files ?? [];
    // What does not exist has nothing to hide (and could not be mounted on in a read-only
    // system); what does is hidden where it really is.
    const hidden = this.hidden.filter((path) => existsSync(path)).map((path) => realpathSync(path));
    // Descriptors 3, 4, …: the workspace, the network's handshake and resolv.conf, the files.
    const firstFile = network ? FD.resolvConf + 1 : FD.workspace + 1;
    const resolvConf: JailPlan["resolvConf"] = !this.resolvConf
      ? null
      : network
        ? { fd: FD.resolvConf, path: this.resolvConf }
        : { host: this.resolvConf };
    // Opened by the host and handed over: the jail user needs no way through the directories above it.
    const workspace = openSync(dir, constants.O_RDONLY | constants.O_DIRECTORY);
    let cgroup: StepCgroup | null = null;
    try {
      cgroup = this.cgroups?.make() ?? null;
      const { file, args } = jailArgv({
        tools: this.tools,
        user: this.user,
        workspaceFd: FD.workspace,
        system: systemEntries(),
        hidden,
        emptied: this.emptied,
        sockets: visibleHostSockets([...JAIL_OWN_PATHS, ...this.emptied, ...hidden]),
        network: settings.network,
        refused: network ? refusedAddresses(settings.refusedAddresses) : [],
        networkFds: network ? { info: FD.info, block: FD.block } : undefined,
        resolvConf,
        files: files.map((f, i) => ({ fd: firstFile + i, name: f.name })),
        cgroupProcs: cgroup?.procsFiles ?? [],
        limits: settings.limits,
        command: request.command,
      });
      const fds: (number | "pipe")[] = [
        workspace,
        ...(network ? (["pipe", "pipe", "pipe"] as const) : []),
        ...files.map(() => "pipe" as const),
      ];
      const env = {
        ...request.env,
        ...Object.fromEntries(files.map((f) => [f.env, `${JAIL_FILES}/${f.name}`])),
        HOME: JAIL_WORKSPACE,
      };
      return await runProcess(
        { file, args, cwd: "/", fds },
        { ...request, env },
        settings.bounds,
        this.guard(files, firstFile, cgroup),
      );
    } catch (error) {
      await cgroup?.remove();
      throw error;
    } finally {
      closeSync(workspace);
    }
  }

  /** How one command's jail is started, stopped and cleaned up. */
  private guard(files: readonly CommandFile[], firstFile: number, cgroup: StepCgroup | null): ProcessGuard {
    let namespace: JailNamespace | null = null;
    let network: UserModeNetwork | null = null;
    let ended = false;
    // What the kernel still has to kill once bwrap's outer process is gone, and the network beside it.
    const emptied = async () => {
      ended = true;
      await namespace?.gone(NAMESPACE_END_MS);
      network?.stop();
      await cgroup?.remove();
    };
    return {
      started: (child) => {
        namespace = new JailNamespace(child.pid!);
        // bwrap reads each of these to its end while it builds the jail.
        const pipes = child.stdio as unknown as (Writable | undefined)[];
        if (this.slirp4netns) feed(pipes[FD.resolvConf], this.resolvConf ? JAIL_RESOLV_CONF : "");
        for (const [i, f] of files.entries()) feed(pipes[firstFile + i], f.content);
        return this.watchdog?.watch(child.pid!) ?? (() => {});
      },
      prepare: async (child) => {
        if (!this.slirp4netns) return;
        const pipes = child.stdio as unknown as (Readable & Writable)[];
        // Each pipe of the handshake is closed once used: the command's result waits for all of them.
        // bwrap writes its info, in several writes, once the jail's first process exists, then
        // closes it; one that failed before closes it unwritten. Read to the end: a reader gone
        // early would kill bwrap with SIGPIPE.
        const info = pipes[FD.info]!;
        const started = await new Promise<boolean>((resolve) => {
          let said = false;
          info.on("data", () => {
            said = true;
          });
          info.once("end", () => resolve(said));
          info.once("error", () => resolve(false));
        });
        info.destroy();
        if (!started) {
          pipes[FD.block]?.destroy();
          return;
        }
        try {
          network = await UserModeNetwork.attach(
            { slirp4netns: this.slirp4netns, unshare: this.tools.unshare },
            {
              pid: child.pid!,
              viaUserNamespace: !this.user.switchUser,
            },
          );
        } catch (error) {
          // Stopped (cancelled, timed out) while its network came up: the result says so.
          if (ended || child.exitCode !== null || child.signalCode !== null) {
            pipes[FD.block]?.destroy();
            return;
          }
          throw new RunFailure(
            "commands_unavailable",
            `the step's network could not be set up: ${(error as Error).message}`,
          );
        }
        // Stopped while its network came up: nothing is left to use it.
        if (ended) network.stop();
        const block = pipes[FD.block]!;
        block.on("error", () => {});
        block.end("1", () => block.destroy());
      },
      stop: async (child, exited, graceMs) => {
        const outer = child.pid!;
        // SIGTERM to the command's processes, not to bwrap's own two: the outer one would end
        // the whole jail at once, without the grace period, and its init ignores it.
        for (const p of groupMembers(outer) ?? []) {
          if (p.pid !== outer && p.ppid !== outer) signal(p.pid, "SIGTERM");
        }
        if (!(await settlesWithin(systemClock, exited, graceMs))) {
          signal(outer, "SIGKILL");
          await exited.catch(() => {});
        }
        await emptied();
      },
      // The jail ends with its first process: nothing of the command is left once the kernel is done.
      ended: () => emptied(),
      // A step the watchdog killed while this host was frozen: the run stops here, writing nothing.
      beforeResult: () => {
        this.settings.liveness?.check();
      },
    };
  }

  close(): void {
    this.watchdog?.close();
  }
}
