import type { StepLimits } from "@oah/core";

/** Everything one sandboxed command is made of, decided by the host. */
export interface SandboxPlan {
  /** Absolute paths of the tools (util-linux's setpriv and prlimit, bubblewrap's bwrap). */
  tools: { setpriv: string; bwrap: string; prlimit: string };
  /** The user the command runs as; `switchUser` when the host is root and becomes it first. */
  user: { uid: number; gid: number; switchUser: boolean };
  /** The workspace: the host opens it and passes it as this descriptor; the command sees it at `path`. */
  workspace: { fd: number; path: string };
  /** Host directories the command must not see (the data directory, the workspace root): empty there. */
  hidden: readonly string[];
  network: boolean;
  limits: StepLimits;
  command: string;
}

/**
 * The command line of one sandboxed command: setpriv drops to the sandbox user with
 * no way back (no_new_privs), bwrap builds the sandbox, prlimit sets the limits
 * inside it, then `/bin/sh -c command`.
 *
 * - New user, PID, IPC and UTS namespaces (and network, when off): the sandbox's
 *   first process is bwrap's init; when it ends the kernel ends every process left
 *   in the namespace, setsid or not; `--die-with-parent` ends it with the host. No
 *   process of the host is visible (its own /proc), nor the host's environment.
 * - The user namespace is the sandbox's own, so the process limit counts the
 *   processes of this sandbox only, and no further one can be made inside.
 * - The system read-only, a private /tmp (and /dev), the hidden directories empty
 *   (a directory under one of them is reached only by the descriptor), the
 *   workspace read-write; with the network off, also no view of /run's sockets.
 */
export function sandboxArgv(plan: SandboxPlan): { file: string; args: string[] } {
  const { tools, user, workspace, limits } = plan;
  const setpriv = [
    ...(user.switchUser ? [`--reuid=${user.uid}`, `--regid=${user.gid}`, "--clear-groups"] : []),
    "--no-new-privs",
  ];
  const bwrap = [
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
    ...(plan.network ? [] : ["--unshare-net"]),
    "--die-with-parent",
    "--ro-bind",
    "/",
    "/",
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
    String(limits.maxFileBytes),
    "--tmpfs",
    "/tmp",
    ...(plan.network ? [] : ["--tmpfs", "/run"]),
    ...plan.hidden.flatMap((path) => ["--tmpfs", path]),
    "--bind-fd",
    String(workspace.fd),
    workspace.path,
    "--chdir",
    workspace.path,
  ];
  const prlimit = [
    `--nproc=${limits.maxProcs}`,
    `--fsize=${limits.maxFileBytes}`,
    `--cpu=${limits.cpuSeconds}`,
    `--data=${limits.memoryBytes}`,
    "--core=0",
  ];
  return {
    file: tools.setpriv,
    args: [
      ...setpriv,
      "--",
      tools.bwrap,
      ...bwrap,
      "--",
      tools.prlimit,
      ...prlimit,
      "--",
      "/bin/sh",
      "-c",
      plan.command,
    ],
  };
}
