import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { sleep } from "../abort";

export interface ShellOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  signal: AbortSignal;
  /** Bytes kept of each of stdout and stderr; the rest is counted, not kept. */
  maxOutputBytes: number;
  /** Between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** Told the output kept so far, at most once per `progressEveryMs` while the command runs. */
  onProgress?: (output: { stdout: string; stderr: string; truncatedBytes: number }) => void;
  progressEveryMs?: number;
}

export interface ShellResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Bytes written that were not kept. */
  truncatedBytes: number;
  timedOut: boolean;
  aborted: boolean;
  durationMs: number;
}

class BoundedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  dropped = 0;

  constructor(private readonly limit: number) {}

  get size(): number {
    return this.kept + this.dropped;
  }

  push(chunk: Buffer): void {
    const room = this.limit - this.kept;
    if (room > 0) {
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
      this.chunks.push(part);
      this.kept += part.length;
    }
    this.dropped += Math.max(0, chunk.length - Math.max(0, room));
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: nobody left in the group
  }
}

/**
 * Whether any process of the group still runs. Zombies do not count: an init
 * process may reap them seconds later, and they hold nothing. Reads /proc where
 * there is one (Linux); elsewhere a zombie counts as alive.
 */
function groupAlive(pgid: number): boolean {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return signalGroup(pgid, 0);
  }
  for (const pid of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}

/** SIGTERM to the whole process group, SIGKILL to whatever is left after the grace period. */
async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) {
      signalGroup(pgid, "SIGKILL");
      return;
    }
    await sleep(20);
  }
}

/**
 * Runs `/bin/sh -c command` in its own process group, so that a timeout or an
 * abort stops the command and everything it started, children of children too.
 * When the shell itself ends, what it left running in its group is stopped as well.
 */
export async function runShell(command: string, options: ShellOptions): Promise<ShellResult> {
  const started = Date.now();
  // The workspace is made when a command first runs in it, not for every run: most need none.
  await mkdir(options.cwd, { recursive: true });
  const stdout = new BoundedOutput(options.maxOutputBytes);
  const stderr = new BoundedOutput(options.maxOutputBytes);
  const child = spawn("/bin/sh", ["-c", command], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));

  let timedOut = false;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    if (child.pid !== undefined) stopping ??= terminateGroup(child.pid, options.killGraceMs);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  let reported = 0;
  const progress = options.onProgress
    ? setInterval(() => {
        const kept = stdout.size + stderr.size;
        if (kept === reported) return;
        reported = kept;
        options.onProgress?.({
          stdout: stdout.text(),
          stderr: stderr.text(),
          truncatedBytes: stdout.dropped + stderr.dropped,
        });
      }, options.progressEveryMs ?? 1_000)
    : undefined;
  options.signal.addEventListener("abort", stop, { once: true });
  if (options.signal.aborted) stop();

  try {
    const exit = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (resolve, reject) => {
        child.once("error", reject);
        child.once("exit", (code, signal) => resolve({ code, signal }));
      },
    );
    stop();
    await stopping;
    return {
      exitCode: exit.code,
      signal: exit.signal,
      stdout: stdout.text(),
      stderr: stderr.text(),
      truncatedBytes: stdout.dropped + stderr.dropped,
      timedOut,
      aborted: options.signal.aborted,
      durationMs: Date.now() - started,
    };
  } finally {
    clearTimeout(timer);
    clearInterval(progress);
    options.signal.removeEventListener("abort", stop);
    child.stdout.destroy();
    child.stderr.destroy();
  }
}
