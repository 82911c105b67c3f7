import type { StepLimits, StepNetwork } from "@oah/core";

/** Where a command sees its workspace, whatever the host's path of it. */
export const SANDBOX_WORKSPACE = "/workspace";

/** An entry of the host's `/`, as the sandbox shows it: a directory or file read-only, or the same symlink. */
export type SystemEntry = { name: string; symlink?: string };

/** Everything one sandboxed command is made of, decided by the host. */
export interface SandboxPlan {
  /**
   * Absolute paths of the tools: util-linux's setpriv, prlimit, unshare and mount, bubblewrap's
   * bwrap, iproute2's ip (with the network on), a POSIX sh.
   */
  tools: {
    setpriv: string;
    bwrap: string;
    prlimit: string;
    unshare: string;
    mount: string;
    ip: string;
    sh: string;
  };
  /** The user the command runs as; `switchUser` when the host is root and becomes it first. */
  user: { uid: number; gid: number; switchUser: boolean };
  /** The host opens the workspace and passes it as this descriptor; the command sees it at SANDBOX_WORKSPACE. */
  workspaceFd: number;
  /** The entries of the host's `/` (the system the command sees read-only). */
  system: readonly SystemEntry[];
  /** Host directories the command must not see (the data directory, the workspace root): empty there. */
  hidden: readonly string[];
  network: StepNetwork;
  /** With the network on: IPv4 addresses the sandbox's network routes nowhere (this host's own, oah's services). */
  refused: readonly string[];
  /**
   * With the network on: bwrap tells the sandbox's start on `info`, waits on `block` until the
   * host has attached the network, and takes the sandbox's resolv.conf from `resolvConf` (written
   * at `path`, the file /etc/resolv.conf leads to), when there is one to replace.
   */
  networkFds?: { info: number; block: number; resolvConf: { fd: number; path: string } | null };
  limits: StepLimits;
  command: string;
}

/** Top-level entries the sandbox makes itself instead of showing the host's. */
const OWN_ENTRIES = new Set(["proc", "dev", "tmp", "run", SANDBOX_WORKSPACE.slice(1)]);

/**
 * The host's own stage, run in the namespaces it made for the sandbox, with the privileges it
 * has there, before it gives them up. Its arguments: mount (or -), ip (or -), the directories to
 * hide, `--`, the addresses to refuse, `--`, then what it executes.
 * - As root (mount given): it binds the workspace (descriptor 3) over /tmp, where the sandbox
 *   user can name it (bwrap resolves every path it binds as that user, who may not pass through
 *   the data directory's parents), closes the descriptor, and hides each directory under an
 *   empty read-only tmpfs. Directories under /tmp are covered already: the workspace is there
 *   now, and the sandbox gets a /tmp of its own over it. bwrap later binds /tmp at
 *   SANDBOX_WORKSPACE.
 * - With the network on (ip given): the loopback up, and a `prohibit` route for each refused
 *   address, so that a connection to one fails at once. The command gets no capability over this
 *   namespace, so it cannot take a route away.
 */
const HOST_STAGE = [
  "mount=$1 ip=$2; shift 2",
  'if [ "$mount" != - ]; then',
  '  "$mount" --bind /proc/self/fd/3 /tmp || exit 125',
  "  exec 3<&-",
  "fi",
  'while [ "$1" != -- ]; do "$mount" -t tmpfs -o ro,size=4k,mode=0 oah-hidden "$1" || exit 125; shift; done',
  "shift",
  'routes="link set lo up"',
  'while [ "$1" != -- ]; do routes="$routes',
  'route add prohibit $1/32"; shift; done',
  "shift",
  `if [ "$ip" != - ]; then printf '%s\\n' "$routes" | "$ip" -batch - || exit 125; fi`,
  'exec "$@"',
].join("\n");

/** The paths of `paths` that are not under another of them (a tmpfs on the outer one hides the inner). */
export function outermost(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((path) => !unique.some((other) => other !== path && path.startsWith(`${other}/`)));
}

/**
 * The command line of one sandboxed command: the host's own preparation (as root: a mount
 * namespace where the workspace can be named and the hidden directories are empty; as another
 * user with the network on: a user and network namespace of its own for the user-mode network
 * stack), setpriv dropping to the sandbox user with no way back (no_new_privs), bwrap building
 * the sandbox, prlimit setting the limits inside it, then `/bin/sh -c command`.
 *
 * - New user, PID, IPC and UTS namespaces, and a network namespace unless the network is
 *   `host`: the sandbox's first process is bwrap's init; when it ends the kernel ends every
 *   process left in the namespace, setsid or not; `--die-with-parent` ends it with the host.
 *   No process of the host is visible (its own /proc), nor the host's environment.
 * - The user namespace is the sandbox's own, so the process limit counts the processes of
 *   this sandbox only, and no further one can be made inside.
 * - The system read-only (each entry of `/`, on a root of the sandbox's own where the
 *   workspace gets its mount point), a private /tmp and /dev, the hidden directories empty,
 *   the workspace read-write at SANDBOX_WORKSPACE; unless the network is `host`, an empty /run
 *   (no view of the host's sockets).
 */
export function sandboxArgv(plan: SandboxPlan): { file: string; args: string[] } {
  const { tools, user, limits, network } = plan;
  const hidden = outermost(plan.hidden);
  const root = user.switchUser;
  const refused = network === "on" ? [...new Set(plan.refused)] : [];
  const stage = (mount: string) => [
    tools.sh,
    "-c",
    HOST_STAGE,
    "oah-sandbox",
    mount,
    network === "on" ? tools.ip : "-",
    ...(root ? hidden.filter((path) => !path.startsWith("/tmp/")) : []),
    "--",
    ...refused,
    "--",
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
      : [];
  const setpriv = [
    tools.setpriv,
    ...(root ? [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups"] : []),
    ...(!root && network === "on" ? ["--inh-caps=-all", "--ambient-caps=-all"] : []),
    "--no-new-privs",
    "--",
  ];
  const system = plan.system
    .filter((entry) => !OWN_ENTRIES.has(entry.name) || (entry.name === "run" && network === "host"))
    .flatMap(({ name, symlink }) =>
      symlink === undefined ? ["--ro-bind", `/${name}`, `/${name}`] : ["--symlink", symlink, `/${name}`],
    );
  const resolvConf = plan.networkFds?.resolvConf;
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
    ...(root
      ? ["--bind", "/tmp", SANDBOX_WORKSPACE]
      : ["--bind-fd", String(plan.workspaceFd), SANDBOX_WORKSPACE]),
    "--size",
    String(limits.maxFileBytes),
    "--tmpfs",
    "/tmp",
    ...(network === "host" ? [] : ["--tmpfs", "/run"]),
    ...(root ? [] : hidden.flatMap((path) => ["--tmpfs", path])),
    ...(resolvConf
      ? [
          ...(resolvConf.path.startsWith("/run/") ? ["--dir", resolvConf.path.replace(/\/[^/]*$/, "")] : []),
          "--ro-bind-data",
          String(resolvConf.fd),
          resolvConf.path,
        ]
      : []),
    "--remount-ro",
    "/",
    "--chdir",
    SANDBOX_WORKSPACE,
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
