import { lstatSync, readFileSync, realpathSync } from "node:fs";
import { basename, dirname, join } from "node:path";

/** The paths of the Unix sockets listed in /proc/net/unix's text (pure): abstract and unnamed ones left out. */
export function boundSocketPaths(procNetUnix: string): string[] {
  const paths = new Set<string>();
  for (const line of procNetUnix.split("\n").slice(1)) {
    // "Num RefCount Protocol Flags Type St Inode Path": the path, when there is one, is the rest of the line.
    const path = line.trim().split(/\s+/).slice(7).join(" ");
    if (path.startsWith("/")) paths.add(path);
  }
  return [...paths];
}

/** Whether `path` is `dir` or under it. */
const within = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/**
 * The Unix sockets bound in this host's network namespace that a jail would show: each
 * socket's real path, when it still is a socket and is under none of `replaced` (the directories
 * the jail shows its own or empty). A socket is reached by its path from any network
 * namespace, so these are covered one by one.
 */
export function visibleHostSockets(replaced: readonly string[]): string[] {
  let table: string;
  try {
    table = readFileSync("/proc/net/unix", "utf8");
  } catch {
    return [];
  }
  const visible = new Set<string>();
  for (const bound of boundSocketPaths(table)) {
    try {
      const path = join(realpathSync(dirname(bound)), basename(bound));
      if (!lstatSync(path).isSocket() || replaced.some((dir) => within(path, dir))) continue;
      visible.add(path);
    } catch {
      // Gone since it was bound, or out of this process's reach.
    }
  }
  return [...visible];
}
