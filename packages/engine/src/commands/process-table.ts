import { readdirSync, readFileSync, readlinkSync } from "node:fs";

/** One process as /proc/<pid>/stat tells it. */
export interface ProcessEntry {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
  /** Clock ticks after boot at which it started: with the pid, what names it uniquely. */
  startTime: string;
}

/** The fields of /proc/<pid>/stat; null when the process is gone. */
export function readProcess(pid: number): ProcessEntry | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return null;
  }
  // "pid (comm) state ppid pgrp session tty_nr tpgid flags ... starttime(22) ...": comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return {
    pid,
    state: fields[0]!,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    startTime: fields[19]!,
  };
}

/**
 * The live members of a process group (zombies do not count: an init process may
 * reap them seconds later, and they hold nothing). Null where there is no /proc.
 */
export function groupMembers(pgid: number): ProcessEntry[] | null {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  const members: ProcessEntry[] = [];
  for (const pid of pids) {
    const entry = readProcess(Number(pid));
    if (entry && entry.pgrp === pgid && entry.state !== "Z" && entry.state !== "X") members.push(entry);
  }
  return members;
}

/** Sends a signal; false when the process (or group, for a negative pid) is gone. */
export function signal(pid: number, sig: NodeJS.Signals | 0): boolean {
  try {
    process.kill(pid, sig);
    return true;
  } catch {
    return false; // ESRCH
  }
}

/** The children of a process, from /proc/<pid>/task/<pid>/children; empty when it is gone. */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").split(" ").filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The pid namespace a process lives in (its /proc/<pid>/ns/pid link); null when it is gone. */
export function pidNamespaceOf(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/ns/pid`);
  } catch {
    return null;
  }
}

/** The live processes (zombies aside) of a pid namespace, as far as this process may see them. */
export function namespaceMembers(namespace: string): number[] {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return pids.map(Number).filter((pid) => {
    if (pidNamespaceOf(pid) !== namespace) return false;
    const state = readProcess(pid)?.state;
    return state !== undefined && state !== "Z" && state !== "X";
  });
}
