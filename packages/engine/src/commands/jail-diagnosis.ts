/** What a host knows about why it could not make a jail: read from the system, then judged by diagnoseJail. */
export interface JailFacts {
  /** A tool the jail needs that is not on PATH. */
  missingTool: string | null;
  /** user.max_user_namespaces; null where the file is absent. */
  maxUserNamespaces: number | null;
  /** kernel.unprivileged_userns_clone (Debian's older kernels); null where absent. */
  unprivilegedUsernsClone: number | null;
  /** kernel.apparmor_restrict_unprivileged_userns (Ubuntu 23.10 and later); null where absent. */
  apparmorRestrictsUserns: number | null;
  /** The host runs in a container (Docker, Podman, Kubernetes, LXC). */
  inContainer: boolean;
  /** What the trial command said when it failed (bwrap's, unshare's or mount's error), or null. */
  trialError: string | null;
}

/** Why commands cannot be jailed here, and what to do about it, each one sentence. */
export interface JailDiagnosis {
  cause: string;
  fix: string;
}

/** The Debian package of each tool the jail needs. */
const PACKAGE_OF: Record<string, string> = {
  bwrap: "bubblewrap",
  setpriv: "util-linux",
  prlimit: "util-linux",
  unshare: "util-linux",
  mount: "mount",
  umount: "mount",
  "mkfs.ext4": "e2fsprogs",
  bash: "bash",
  slirp4netns: "slirp4netns",
  ip: "iproute2",
};

const NETWORK_TOOLS = new Set(["slirp4netns", "ip"]);

const REFUSED = /permission|not permitted|no permissions|EPERM|EACCES/i;

/** Judges the facts: the first cause that explains the failure, with its fix. */
export function diagnoseJail(facts: JailFacts): JailDiagnosis {
  const tool = facts.missingTool;
  if (tool !== null) {
    const pkg = PACKAGE_OF[tool] ?? tool;
    const what = tool === "bwrap" ? "bubblewrap is not installed" : `${tool} is not installed (${pkg})`;
    return NETWORK_TOOLS.has(tool)
      ? {
          cause: `${what}: it gives steps their network (OAH_STEP_NETWORK=on)`,
          fix: `apt-get install -y ${pkg}, or set OAH_STEP_NETWORK=off (steps without network)`,
        }
      : { cause: `${what} (${tool} not found on PATH)`, fix: `apt-get install -y ${pkg}` };
  }
  const said = facts.trialError?.trim() || "no output";
  if (/\/dev\/net\/tun/.test(said)) {
    return {
      cause: `slirp4netns cannot open /dev/net/tun, which gives steps their network (OAH_STEP_NETWORK=on): "${said}"`,
      fix:
        "let oah's user open it (chmod 0666 /dev/net/tun, its usual mode; in a container, --device /dev/net/tun), " +
        "or set OAH_STEP_NETWORK=off (steps without network)",
    };
  }
  if (facts.maxUserNamespaces === 0) {
    return {
      cause: "user namespaces are turned off (user.max_user_namespaces = 0)",
      fix: "sysctl -w user.max_user_namespaces=15000, and the same line in /etc/sysctl.d/ to keep it",
    };
  }
  if (facts.unprivilegedUsernsClone === 0) {
    return {
      cause: "unprivileged user namespaces are turned off (kernel.unprivileged_userns_clone = 0)",
      fix: "sysctl -w kernel.unprivileged_userns_clone=1, and the same line in /etc/sysctl.d/ to keep it",
    };
  }
  if (facts.apparmorRestrictsUserns === 1 && REFUSED.test(said)) {
    return {
      cause:
        "AppArmor refuses unprivileged user namespaces (kernel.apparmor_restrict_unprivileged_userns = 1, " +
        `the default of Ubuntu 24.04): bwrap said "${said}"`,
      fix:
        "load an AppArmor profile that lets /usr/bin/bwrap make user namespaces (apparmor's bwrap-userns-restrict), " +
        "or sysctl -w kernel.apparmor_restrict_unprivileged_userns=0",
    };
  }
  if (facts.inContainer && REFUSED.test(said)) {
    return {
      cause: `this container may not make namespaces or mounts (its seccomp or AppArmor profile, or its capabilities): "${said}"`,
      fix: "run the container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined (and, as root, --cap-add SYS_ADMIN), or run oah on the host",
    };
  }
  return {
    cause: `the trial command in a sandbox failed: "${said}"`,
    fix: "run npm run doctor on this host to see which part is missing",
  };
}
