import { type ChildProcess, spawn } from "node:child_process";
import { settlesWithin, systemClock } from "../clock";
import type { CommandBounds, CommandRequest, CommandResult } from "./command-runner";

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

/** The program to start for one command, as a runner builds it. */
export interface ProcessSpec {
  file: string;
  args: string[];
  cwd: string;
  /** What the process gets as fd 3, 4, …: open descriptors (the caller closes its own copies), or pipes to it. */
  fds?: (number | "pipe")[];
}

/** How a runner keeps a command's processes within bounds: what it does at start, stop and end. */
export interface ProcessGuard {
  /** The process has started; the returned function is called once it has ended. */
  started?(child: ChildProcess): () => void;
  /**
   * What the process needs from the host once started, before it goes on (a jail's network).
   * A rejection stops the process and becomes the command's.
   */
  prepare?(child: ChildProcess): Promise<void>;
  /**
   * Stops the process and everything it started: SIGTERM first, SIGKILL to what is
   * left after `graceMs`. Resolves once they are gone (or the process has exited).
   */
  stop(child: ChildProcess, exited: Promise<unknown>, graceMs: number): Promise<void>;
  /** The process ended by itself: stops whatever it left running. */
  ended(child: ChildProcess): Promise<void>;
  /** Called after the end, before the result is read (the liveness check of a jail). */
  beforeResult?(): void;
}

/** After the process and what it left ended, how long its pipes may take to deliver their last bytes. */
const DRAIN_MS = 1_000;
/** How often a running command's output so far is told (`onProgress`). */
const PROGRESS_EVERY_MS = 1_000;

/**
 * Runs one command's process to its end with bounded output, a timeout, an abort
 * signal, and the guard's stop and clean-up. `detached`: the process leads a process
 * group of its own, which the guards signal.
 */
export async function runProcess(
  spec: ProcessSpec,
  request: CommandRequest,
  bounds: CommandBounds,
  guard: ProcessGuard,
): Promise<CommandResult> {
  const started = Date.now();
  const stdout = new BoundedOutput(bounds.maxOutputBytes);
  const stderr = new BoundedOutput(bounds.maxOutputBytes);
  const child = spawn(spec.file, spec.args, {
    cwd: spec.cwd,
    env: request.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe", ...(spec.fds ?? [])],
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  exited.catch(() => {});
  const release = child.pid !== undefined ? guard.started?.(child) : undefined;
  let timedOut = false;
  let outputExceeded = false;
  let stopping: Promise<void> | undefined;
  const stop = () => {
    if (child.pid !== undefined) stopping ??= guard.stop(child, exited, bounds.killGraceMs);
  };
  const take = (output: BoundedOutput) => (chunk: Buffer) => {
    output.push(chunk);
    if (!outputExceeded && stdout.size + stderr.size > bounds.stopAfterOutputBytes) {
      outputExceeded = true;
      stop();
    }
  };
  child.stdout!.on("data", take(stdout));
  child.stderr!.on("data", take(stderr));
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, request.timeoutMs);
  let reported = 0;
  const { onProgress } = request;
  const progress = onProgress
    ? setInterval(() => {
        const size = stdout.size + stderr.size;
        if (size === reported) return;
        reported = size;
        onProgress({
          stdout: stdout.text(),
          stderr: stderr.text(),
          truncatedBytes: stdout.dropped + stderr.dropped,
        });
      }, PROGRESS_EVERY_MS)
    : undefined;
  request.signal.addEventListener("abort", stop, { once: true });
  if (request.signal.aborted) stop();

  try {
    if (guard.prepare && child.pid !== undefined) {
      try {
        await guard.prepare(child);
      } catch (error) {
        stop();
        await exited.catch(() => {});
        release?.();
        await stopping;
        throw error;
      }
    }
    const exit = await exited;
    release?.();
    if (stopping) await stopping;
    else await guard.ended(child);
    await settlesWithin(systemClock, closed, DRAIN_MS);
    guard.beforeResult?.();
    return {
      exitCode: exit.code,
      signal: exit.signal,
      stdout: stdout.text(),
      stderr: stderr.text(),
      truncatedBytes: stdout.dropped + stderr.dropped,
      timedOut,
      outputExceeded,
      aborted: request.signal.aborted,
      durationMs: Date.now() - started,
    };
  } finally {
    clearTimeout(timer);
    clearInterval(progress);
    request.signal.removeEventListener("abort", stop);
    child.stdout!.destroy();
    child.stderr!.destroy();
  }
}
