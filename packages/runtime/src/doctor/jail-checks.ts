import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { OahConfig } from "@oah/config";
import {
  diagnoseJail,
  findCgroupHome,
  findExecutable,
  JailedCommands,
  JailUnavailable,
  jailFacts,
  prepareWorkspaceRoot,
  QuotaUnavailable,
  StepCgroups,
  silentLogger,
  WorkspaceQuota,
} from "@oah/engine";
import { type CheckResult, messageOf } from "./check";

/** Whether the configuration runs commands in the jail (shell steps, or command hooks). */
export const needsJail = (config: OahConfig): boolean =>
  config.shell === "on" || (config.shell === "off" && config.hooks.some((h) => h.command));

/** The first line of what a program says of its version, without its build details. */
function versionOf(path: string, name: string): string {
  try {
    const said = execFileSync(path, [name === "ip" ? "-V" : "--version"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    return said
      .split("\n")[0]!
      .replace(/\s*\(.*$/, "")
      .trim();
  } catch {
    return "present";
  }
}

/** A program the jail needs: on PATH, with its version. */
export function checkTool(name: string, purpose: string, needed: boolean): CheckResult {
  const path = findExecutable(name);
  const label = `${name} (${purpose})`;
  if (path) return { label, ok: true, needed, detail: `${versionOf(path, name)} at ${path}` };
  const { cause, fix } = diagnoseJail(jailFacts({ missingTool: name }));
  return { label, ok: false, needed, detail: cause, fix };
}

/** User namespaces, which every jail makes: the kernel's switches, and a trial as the jail user. */
export function checkUserNamespaces(config: OahConfig): CheckResult {
  const label = "user namespaces";
  const needed = needsJail(config);
  const unshare = findExecutable("unshare");
  const setpriv = findExecutable("setpriv");
  if (!unshare || !setpriv)
    return {
      label,
      ok: false,
      needed,
      detail: "cannot try: util-linux is missing",
      fix: "apt-get install -y util-linux",
    };
  const root = process.getuid?.() === 0;
  let as = "oah's user";
  const trial = [unshare, "--user", "--map-current-user", "true"];
  let argv = trial;
  if (root) {
    try {
      const [, , uid, gid] = execFileSync("getent", ["passwd", config.jail.user], { encoding: "utf8" })
        .trim()
        .split(":");
      argv = [setpriv, `--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--", ...trial];
      as = `the sandbox user ${config.jail.user}`;
    } catch {
      return {
        label,
        ok: false,
        needed,
        detail: `OAH_SANDBOX_USER ${config.jail.user} is not a user of this system`,
        fix: "name an existing unprivileged user in OAH_SANDBOX_USER (nobody)",
      };
    }
  }
  try {
    execFileSync(argv[0]!, argv.slice(1), { stdio: ["ignore", "ignore", "pipe"] });
    const max = jailFacts({}).maxUserNamespaces;
    return {
      label,
      ok: true,
      needed,
      detail: `${as} may make them (user.max_user_namespaces = ${max ?? "?"})`,
    };
  } catch (error) {
    const said = String((error as { stderr?: unknown }).stderr ?? "").trim() || messageOf(error);
    const { cause, fix } = diagnoseJail(jailFacts({ trialError: said }));
    return { label, ok: false, needed, detail: `${as} may not: ${cause}`, fix };
  }
}

/** A port on this host's loopback that nothing answers once closed, and a server on it meanwhile. */
function loopbackServer(): Promise<{ port: number; close(): void }> {
  return new Promise((resolve) => {
    const server = createServer((socket) => socket.end("reached\n"));
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve({
        port: typeof address === "object" && address ? address.port : 0,
        close: () => server.close(),
      });
    });
  });
}

/**
 * A trial jailed command as the jail user, in a trial workspace under the data directory:
 * it must run, see its workspace at /workspace, read nothing of the data directory, and with
 * the network on, not reach this host's loopback.
 */
export async function checkTrialJail(config: OahConfig): Promise<CheckResult> {
  const label = "a trial command in the sandbox";
  const needed = needsJail(config);
  if (config.shell === "unsafe-host") {
    return {
      label,
      ok: true,
      needed: false,
      detail: "not made: OAH_SHELL=unsafe-host runs commands unconfined",
    };
  }
  const hidden = join(config.dataDir, ".openharness");
  const trialRoot = join(hidden, `doctor-${process.pid}`);
  const secret = join(hidden, `doctor-${process.pid}.secret`);
  const server = await loopbackServer();
  try {
    mkdirSync(hidden, { recursive: true });
    writeFileSync(secret, "doctor-secret\n", { mode: 0o644 });
    const workspaceRoot = await prepareWorkspaceRoot(join(trialRoot, "workspaces"));
    const jailed = await JailedCommands.open({
      workspaceRoot,
      hidden: [hidden],
      user: config.jail.user,
      network: config.jail.network,
      refusedAddresses: [],
      limits: config.jail.limits,
      cgroups: findCgroupHome().home,
      // The quota has a check of its own (checkWorkspaceQuota).
      workspaceMaxBytes: null,
      bounds: { maxOutputBytes: 4_096, stopAfterOutputBytes: 65_536, killGraceMs: 500 },
      liveness: null,
      logger: silentLogger,
    });
    try {
      const loopback = `(exec 3<>/dev/tcp/127.0.0.1/${server.port}) 2>/dev/null && echo loopback-reached || echo loopback-refused`;
      const result = await jailed.run({
        command: `id -un; pwd; cat ${secret} 2>/dev/null; bash -c '${loopback}' 2>/dev/null || true`,
        workspaceDir: join(workspaceRoot, "trial"),
        env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
        timeoutMs: 10_000,
        signal: new AbortController().signal,
      });
      const [user = "?", cwd = "?", ...rest] = result.stdout.trim().split("\n");
      const problems = [
        ...(result.stdout.includes("doctor-secret") ? ["it read a file of the data directory"] : []),
        ...(cwd !== "/workspace" ? [`it ran in ${cwd}, not /workspace`] : []),
        ...(config.jail.network !== "host" && rest.includes("loopback-reached")
          ? ["it reached this host's loopback"]
          : []),
      ];
      const network =
        config.jail.network === "on"
          ? "network: egress only, not this host's loopback"
          : config.jail.network === "off"
            ? "network: none"
            : "network: the host's (OAH_STEP_NETWORK=host)";
      if (problems.length > 0)
        return {
          label,
          ok: false,
          needed,
          detail: problems.join("; "),
          fix: "report this: the sandbox is not confined",
        };
      return {
        label,
        ok: true,
        needed,
        detail: `ran as ${user} in /workspace, saw nothing of ${config.dataDir}; ${network}`,
      };
    } finally {
      jailed.close();
    }
  } catch (error) {
    const diagnosis =
      error instanceof JailUnavailable
        ? error.diagnosis
        : diagnoseJail(jailFacts({ trialError: messageOf(error) }));
    return { label, ok: false, needed, detail: diagnosis.cause, fix: diagnosis.fix };
  } finally {
    server.close();
    rmSync(trialRoot, { recursive: true, force: true });
    rmSync(secret, { force: true });
  }
}

/**
 * Whether each jail gets a cgroup of its own, which caps its memory as a whole (tmpfs
 * included). Never needed: without one, each process of a command keeps its own limits; advised.
 */
export function checkStepCgroup(config: OahConfig): CheckResult {
  const label = "a cgroup per sandbox";
  const found = findCgroupHome();
  if (found.home) {
    return {
      label,
      ok: true,
      needed: false,
      detail: new StepCgroups(found.home, config.jail.limits).describe(),
    };
  }
  return {
    label,
    ok: false,
    needed: false,
    advised: true,
    detail: `not made (${found.cause}): a command's memory is bounded per process only, not for its sandbox as a whole`,
    fix: found.fix,
  };
}

/**
 * OAH_WORKSPACE_MAX_BYTES: a trial workspace file system made and mounted under the workspace
 * root when the configuration sets it (needed then); advised when it does not, as a step may
 * then fill the disk.
 */
export async function checkWorkspaceQuota(config: OahConfig): Promise<CheckResult> {
  const label = "workspace quota (OAH_WORKSPACE_MAX_BYTES)";
  const maxBytes = config.jail.workspaceMaxBytes;
  if (maxBytes === undefined) {
    return {
      label,
      ok: false,
      needed: false,
      advised: true,
      detail: `none: a step may fill the disk of ${config.workspaceRoot}, and the store's with it`,
      fix: "set OAH_WORKSPACE_MAX_BYTES (oah as root), or give OAH_WORKSPACE_ROOT a file system of its own",
    };
  }
  const needed = needsJail(config);
  try {
    const root = await prepareWorkspaceRoot(config.workspaceRoot);
    await WorkspaceQuota.open(root, maxBytes, {
      mkfs: findExecutable("mkfs.ext4") ?? "mkfs.ext4",
      mount: findExecutable("mount") ?? "mount",
      umount: findExecutable("umount") ?? "umount",
    });
    return {
      label,
      ok: true,
      needed,
      detail: `each workspace a file system of its own of ${maxBytes} bytes (ext4, loop-mounted at its directory): a trial one made and mounted`,
    };
  } catch (error) {
    const diagnosis =
      error instanceof QuotaUnavailable ? error.diagnosis : { cause: messageOf(error), fix: "see the cause" };
    return { label, ok: false, needed, detail: diagnosis.cause, fix: diagnosis.fix };
  }
}
