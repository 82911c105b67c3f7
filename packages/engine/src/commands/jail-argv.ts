/// <reference path="../sh.d.ts" />
import type { StepLimits, StepNetwork } from "@oah/core";
import HOST_STAGE from "./jail-stage.sh";

/** Where a command sees its workspace, whatever the host's path of it. */
export const JAIL_WORKSPACE = "/workspace";

/** An entry of the host's `/`, as the jail shows it: a directory or file read-only, or the same symlink. */
export type SystemEntry = { name: string; symlink?: string };

/** Where a command finds the files the host gives it (CommandRequest.files), read-only. */
export const JAIL_FILES = "/oah";

/** Everything one jailed command is made of, decided by the host. */
export interface JailPlan {
  /**
   * Absolute paths of the tools: util-linux's setpriv, prlimit, unshare and mount, bubblewrap's
   * bwrap, iproute2's ip (with the network on), bash (the host's stage).
   */
  tools: {
    setpriv: string;
    bwrap: string;
    prlimit: string;
    unshare: string;
    mount: string;
    ip: string;
    bash: string;
  };
  /** The user the command runs as; `switchUser` when the host is root and becomes it first. */
  user: { uid: number; gid: number; switchUser: boolean };
  /** The host opens the workspace and passes it as this descriptor; the command sees it at JAIL_WORKSPACE. */
  workspaceFd: number;
  /** The entries of the host's `/` (the system the command sees read-only). */
  system: readonly SystemEntry[];
  /** Host directories the command must not see (the data directory, the workspace root): empty there. */
  hidden: readonly string[];
  /**
   * Host directories where sockets sit, shown empty and read-only whatever the network: /run, and
   * /var/run where it is a directory of its own rather than a link to /run.
   */
  emptied: readonly string[];
  /** Unix sockets of the host at paths the jail shows otherwise: each covered by /dev/null. */
  sockets: readonly string[];
  network: StepNetwork;
  /** With the network on: IPv4 addresses the jail's network routes nowhere (this host's own, oah's services). */
  refused: readonly string[];
  /**
   * With the network on: bwrap tells the jail's start on `info` and waits on `block` until the
   * host has attached the network.
   */
  networkFds?: { info: number; block: number };
  /**
   * The jail's resolv.conf, written at `path` (the file /etc/resolv.conf leads to): with the
   * network on, slirp4netns's, read from descriptor `fd`; with the host's network, the host's own
   * file, shown again when it sits in an emptied directory (`host`). Null: nothing to replace.
   */
  resolvConf: { fd: number; path: string } | { host: string } | null;
  /** Files the command finds read-only under JAIL_FILES, each read from its descriptor. */
  files: readonly { fd: number; name: string }[];
  /** The `cgroup.procs` files of the jail's own cgroup, which its first process joins; none without one. */
  cgroupProcs: readonly string[];
  limits: StepLimits;
  command: string;
}

/** Top-level entries the jail makes itself instead of showing the host's. */
const OWN_ENTRIES = new Set(["proc", "dev", "tmp", "run", JAIL_FILES.slice(1), JAIL_WORKSPACE.slice(1)]);

/** The host's paths that the jail shows its own instead: nothing of the host's is seen there. */
export const JAIL_OWN_PATHS: readonly string[] = [...OWN_ENTRIES].map((name) => `/${name}`);

/** A list as the host's stage reads it: its length, then its items. */
const counted = (items: readonly (string | number)[]): string[] => [
  String(items.length),
  ...items.map(String),
];

/** The paths of `paths` that are not under another of them (a tmpfs on the outer one hides the inner). */
export function outermost(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((path) => !unique.some((other) => other !== path && path.startsWith(`${other}/`)));
}

const parentOf = (path: string) => path.replace(/\/[^/]*$/, "");

/**
 * The command line of one jailed command: the host's own preparation (as root: a mount
 * namespace where the workspace can be named and the hidden directories are empty; as another
 * user with the network on: a user and network namespace of its own for the user-mode network
 * stack) and its stage (the descriptors closed, the cgroup joined), setpriv dropping to the
 * jail user with no way back (no_new_privs), bwrap building the jail, prlimit setting the
 * limits inside it, then `/bin/sh -c command`.
 *
 * - New user, PID, IPC and UTS namespaces, and a network namespace unless the network is
 *   `host`: the jail's first process is bwrap's init; when it ends the kernel ends every
 *   process left in the namespace, setsid or not; `--die-with-parent` ends it with the host.
 *   No process of the host is visible (its own /proc), nor the host's environment.
 * - The user namespace is the jail's own, so the process limit counts the processes of
 *   this jail only, and no further one can be made inside.
 * - The system read-only (each entry of `/`, on a root of the jail's own where the
 *   workspace gets its mount point), the workspace read-write at JAIL_WORKSPACE, a private
 *   /tmp and /dev/shm of bounded size, a read-only /dev (its devices still usable), the hidden
 *   directories empty, and, whatever the network, an empty read-only /run (and /var/run): no
 *   view of the host's sockets, nor of any other the host has bound.
 */
export function jailArgv(plan: JailPlan): { file: string; args: string[] } {
  const { tools, user, limits, network } = plan;
  const hidden = outermost(plan.hidden);
  const emptied = outermost(plan.emptied);
  const root = user.switchUser;
  const refused = network === "on" ? [...new Set(plan.refused)] : [];
  const resolvConf = plan.resolvConf;
  const keep = [
    plan.workspaceFd,
    ...(plan.networkFds ? [plan.networkFds.info, plan.networkFds.block] : []),
    ...(resolvConf && "fd" in resolvConf ? [resolvConf.fd] : []),
    ...plan.files.map((file) => file.fd),
  ];
  const stage = (mount: string) => [
    tools.bash,
    "-c",
    HOST_STAGE,
    "oah-sandbox",
    mount,
    network === "on" ? tools.ip : "-",
    ...counted(keep),
    ...counted(plan.cgroupProcs),
    ...counted(root ? hidden.filter((path) => !path.startsWith("/tmp/")) : []),
    ...counted(root ? plan.sockets : []),
    ...counted(refused),
  ];
  // A host that is not root keeps its capabilities in the user namespace it made only for its
  // stage (--keep-caps): setpriv drops them before bwrap, which refuses to start with any.
  const prepare = root
    ? [
        tools.unshare,
        "--mount",
        "--propagation",
        "private",
        ...(network === "on" ? ["--net"] : []),
        "--",
        ...stage(tools.mount),
      ]
    : network === "on"
      ? [tools.unshare, "--user", "--map-current-user", "--net", "--keep-caps", "--", ...stage("-")]
      : stage("-");
  const setpriv = [
    tools.setpriv,
    ...(root ? [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups"] : []),
    ...(!root && network === "on" ? ["--inh-caps=-all", "--ambient-caps=-all"] : []),
    "--no-new-privs",
    "--",
  ];
  const system = plan.system
    .filter((entry) => !OWN_ENTRIES.has(entry.name))
    .flatMap(({ name, symlink }) =>
      symlink === undefined ? ["--ro-bind", `/${name}`, `/${name}`] : ["--symlink", symlink, `/${name}`],
    );
  // Empty and read-only: nothing to see there, and no RAM to fill.
  const empty = [...emptied, ...(root ? [] : hidden)];
  // A file the jail must see in an emptied directory needs its directory made there first.
  const dirFor = (path: string) =>
    emptied.some((dir) => path.startsWith(`${dir}/`)) ? ["--dir", parentOf(path)] : [];
  const resolv =
    resolvConf === null
      ? []
      : "fd" in resolvConf
        ? [...dirFor(resolvConf.path), "--ro-bind-data", String(resolvConf.fd), resolvConf.path]
        : dirFor(resolvConf.host).length > 0
          ? [...dirFor(resolvConf.host), "--ro-bind", resolvConf.host, resolvConf.host]
          : [];
  const bwrap = [
    tools.bwrap,
    "--unshare-user",
    "--uid",
    String(user.uid),
    "--gid",
    String(user.gid),
    "--disable-userns",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-cgroup-try",
    ...(network === "off" ? ["--unshare-net"] : []),
    "--die-with-parent",
    ...system,
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
    String(limits.maxFileBytes),
    "--perms",
    "1777",
    "--tmpfs",
    "/dev/shm",
    "--remount-ro",
    "/dev",
    ...(root ? ["--bind", "/tmp", JAIL_WORKSPACE] : ["--bind-fd", String(plan.workspaceFd), JAIL_WORKSPACE]),
    "--size",
    String(limits.maxFileBytes),
    "--tmpfs",
    "/tmp",
    ...empty.flatMap((path) => ["--tmpfs", path]),
    ...(root ? [] : plan.sockets.flatMap((socket) => ["--ro-bind", "/dev/null", socket])),
    ...resolv,
    ...plan.files.flatMap(({ fd, name }) => ["--ro-bind-data", String(fd), `${JAIL_FILES}/${name}`]),
    ...empty.flatMap((path) => ["--remount-ro", path]),
    "--remount-ro",
    "/",
    "--chdir",
    JAIL_WORKSPACE,
    ...(plan.networkFds
      ? ["--info-fd", String(plan.networkFds.info), "--block-fd", String(plan.networkFds.block)]
      : []),
    "--",
  ];
  const prlimit = [
    tools.prlimit,
    `--nproc=${limits.maxProcs}`,
    `--fsize=${limits.maxFileBytes}`,
    `--cpu=${limits.cpuSeconds}`,
    `--data=${limits.memoryBytes}`,
    "--core=0",
    "--",
  ];
  const [file, ...args] = [...prepare, ...setpriv, ...bwrap, ...prlimit, "/bin/sh", "-c", plan.command];
  return { file: file!, args };
}
