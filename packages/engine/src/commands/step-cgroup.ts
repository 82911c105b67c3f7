import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { StepLimits } from "@oah/core";
import { sleep, systemClock } from "../clock";
import { signal } from "./process-table";

/**
 * Where this host makes a cgroup per jail: under `oah-steps` of cgroup v2's one hierarchy
 * (with the memory and pids controllers), or of cgroup v1's memory hierarchy (and pids', when
 * mounted) on a host that still mounts the v1 controllers.
 */
export type CgroupHome = { version: 2; dir: string } | { version: 1; memory: string; pids: string | null };

/** The cgroup mounts of /proc/self/mountinfo: the v2 hierarchy, and the v1 hierarchies of memory and pids. */
export interface CgroupMounts {
  v2: string | null;
  v1: { memory: string | null; pids: string | null };
}

/** The name of the cgroup, under each hierarchy's root, that holds the jails' cgroups. */
const PARENT = "oah-steps";
/** The jail's own processes besides the command's: bwrap's outer process and its init. */
const BWRAP_PROCESSES = 2;
/** The longest a finished jail's cgroup waits for its last processes to be reaped before it is left behind. */
const REMOVE_MS = 2_000;

/** Reads the cgroup mounts out of /proc/self/mountinfo's text (pure). */
export function cgroupMounts(mountinfo: string): CgroupMounts {
  const mounts: CgroupMounts = { v2: null, v1: { memory: null, pids: null } };
  for (const line of mountinfo.split("\n")) {
    // "id parent major:minor root mountpoint options [optional…] - fstype source superoptions"
    const [before, after] = line.split(" - ");
    if (!before || !after) continue;
    const mountPoint = before.split(" ")[4];
    const [type, , superOptions = ""] = after.split(" ");
    if (!mountPoint) continue;
    if (type === "cgroup2") mounts.v2 ??= mountPoint;
    if (type !== "cgroup") continue;
    const options = superOptions.split(",");
    if (options.includes("memory")) mounts.v1.memory ??= mountPoint;
    if (options.includes("pids")) mounts.v1.pids ??= mountPoint;
  }
  return mounts;
}

/**
 * Which hierarchy caps a jail's memory (pure): v2 where its root offers the memory
 * controller, else v1's memory hierarchy; null when neither does, with why.
 */
export function chooseCgroupHome(
  mounts: CgroupMounts,
  v2Controllers: readonly string[],
): { home: CgroupHome } | { home: null; cause: string } {
  if (mounts.v2 && v2Controllers.includes("memory"))
    return { home: { version: 2, dir: join(mounts.v2, PARENT) } };
  if (mounts.v1.memory) {
    return {
      home: {
        version: 1,
        memory: join(mounts.v1.memory, PARENT),
        pids: mounts.v1.pids ? join(mounts.v1.pids, PARENT) : null,
      },
    };
  }
  return {
    home: null,
    cause: mounts.v2
      ? `the cgroup v2 hierarchy at ${mounts.v2} offers no memory controller (it offers: ${v2Controllers.join(" ") || "none"})`
      : "no cgroup hierarchy is mounted",
  };
}

const readText = (path: string): string => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};

/** The directories of one cgroup: one per hierarchy. */
const directoriesOf = (home: CgroupHome, name: string): string[] =>
  home.version === 2
    ? [join(home.dir, name)]
    : [join(home.memory, name), ...(home.pids ? [join(home.pids, name)] : [])];

const write = (dir: string, file: string, value: string | number, optional = false): void => {
  const path = join(dir, file);
  if (optional && !existsSync(path)) return;
  writeFileSync(path, String(value));
};

/** Why this host cannot cap each jail by a cgroup, and what to do about it. */
export interface CgroupUnavailable {
  cause: string;
  fix: string;
}

/**
 * Finds where this host can make a cgroup per jail, and proves it by making one: as root,
 * with a memory controller (v2, or v1's). Elsewhere the jails keep their per-process limits
 * only, and the caller says so.
 */
export function findCgroupHome(): { home: CgroupHome } | ({ home: null } & CgroupUnavailable) {
  if (process.getuid?.() !== 0) {
    return {
      home: null,
      cause: "oah does not run as root, and makes no cgroups of its own",
      fix: "run oah as root to cap each sandbox's memory as a whole",
    };
  }
  const mounts = cgroupMounts(readText("/proc/self/mountinfo"));
  const v2Controllers = mounts.v2 ? readText(join(mounts.v2, "cgroup.controllers")).trim().split(/\s+/) : [];
  const chosen = chooseCgroupHome(mounts, v2Controllers.filter(Boolean));
  if (!chosen.home) {
    return {
      home: null,
      cause: chosen.cause,
      fix: "boot with cgroup v2 and its memory controller (systemd.unified_cgroup_hierarchy=1), or mount v1's memory controller",
    };
  }
  const { home } = chosen;
  try {
    for (const dir of directoriesOf(home, "")) mkdirSync(dir, { recursive: true });
    if (home.version === 2) {
      const root = join(home.dir, "..");
      // Children of oah-steps get memory.max and pids.max only once both levels hand the controllers down.
      const wanted = v2Controllers.filter((c) => c === "memory" || c === "pids");
      const enable = wanted.map((c) => `+${c}`).join(" ");
      for (const dir of [root, home.dir]) {
        const enabled = readText(join(dir, "cgroup.subtree_control")).trim().split(/\s+/);
        if (!wanted.every((c) => enabled.includes(c))) write(dir, "cgroup.subtree_control", enable);
      }
    }
    const trial = new StepCgroups(home, { memoryBytes: 16_777_216, maxProcs: 8 }).make();
    trial.removeNow();
  } catch (error) {
    return {
      home: null,
      cause: `a cgroup cannot be made under ${directoriesOf(home, "").join(" and ")}: ${(error as Error).message}`,
      fix: "give oah a cgroup hierarchy it may write (root with a writable /sys/fs/cgroup; in a container, --cgroupns=private with cgroup v2)",
    };
  }
  return { home };
}

/** One jail's cgroup: the files its first process writes its pid to, and its removal once it ended. */
export class StepCgroup {
  constructor(
    private readonly home: CgroupHome,
    private readonly dirs: readonly string[],
  ) {}

  /** The `cgroup.procs` files that put a process (and all it starts) in this cgroup. */
  get procsFiles(): string[] {
    return this.dirs.map((dir) => join(dir, "cgroup.procs"));
  }

  /** Kills what is left in it and removes it, waiting a little for the kernel to reap the last processes. */
  async remove(): Promise<void> {
    const deadline = Date.now() + REMOVE_MS;
    this.kill();
    while (!this.removeNow() && Date.now() < deadline) await sleep(systemClock, 10);
  }

  /** Removes what is empty of it; true when nothing of it is left. */
  removeNow(): boolean {
    let left = false;
    for (const dir of this.dirs) {
      try {
        rmdirSync(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") left = true;
      }
    }
    return !left;
  }

  private kill(): void {
    for (const dir of this.dirs) {
      // v2 kills the whole cgroup at once; v1 has no such file: each process is signalled.
      if (this.home.version === 2 && existsSync(join(dir, "cgroup.kill"))) {
        write(dir, "cgroup.kill", 1);
        continue;
      }
      for (const pid of readText(join(dir, "cgroup.procs")).split("\n").filter(Boolean)) {
        signal(Number(pid), "SIGKILL");
      }
    }
  }
}

/** Cgroups made by this process, of every StepCgroups: each one's name is the pid and this count. */
let made = 0;

/** Makes the cgroup of each jail of this host, capped at the step's limits. */
export class StepCgroups {
  constructor(
    private readonly home: CgroupHome,
    private readonly limits: Pick<StepLimits, "memoryBytes" | "maxProcs">,
  ) {}

  /** What each jail's cgroup is, for the doctor and the logs. */
  describe(): string {
    const where =
      this.home.version === 2 ? "cgroup v2" : `cgroup v1 (memory${this.home.pids ? ", pids" : ""})`;
    return `${where}: memory ≤ ${this.limits.memoryBytes} bytes in all (OAH_STEP_MEMORY_BYTES), ≤ ${this.limits.maxProcs + BWRAP_PROCESSES} processes`;
  }

  /** Cgroups left by hosts of this machine that died with jails running (named after their pid). */
  removeAbandoned(): void {
    for (const parent of directoriesOf(this.home, "")) {
      let names: string[];
      try {
        names = readdirSync(parent);
      } catch {
        continue;
      }
      for (const name of names) {
        const owner = /^(\d+)-\d+$/.exec(name)?.[1];
        if (owner === undefined || Number(owner) === process.pid || signal(Number(owner), 0)) continue;
        new StepCgroup(this.home, [join(parent, name)]).removeNow();
      }
    }
  }

  /** A new cgroup for one jail, its limits written. */
  make(): StepCgroup {
    const dirs = directoriesOf(this.home, `${process.pid}-${++made}`);
    const cgroup = new StepCgroup(this.home, dirs);
    try {
      for (const dir of dirs) mkdirSync(dir);
      const { memoryBytes } = this.limits;
      const maxProcs = this.limits.maxProcs + BWRAP_PROCESSES;
      const [first, pids] = dirs as [string, string | undefined];
      if (this.home.version === 2) {
        write(first, "memory.max", memoryBytes);
        // What the jail may not keep in memory it may not keep in swap either.
        write(first, "memory.swap.max", 0, true);
        write(first, "pids.max", maxProcs, true);
      } else {
        write(first, "memory.limit_in_bytes", memoryBytes);
        // Memory and swap together, where the kernel accounts swap.
        write(first, "memory.memsw.limit_in_bytes", memoryBytes, true);
        if (pids) write(pids, "pids.max", maxProcs);
      }
    } catch (error) {
      cgroup.removeNow();
      throw error;
    }
    return cgroup;
  }
}
