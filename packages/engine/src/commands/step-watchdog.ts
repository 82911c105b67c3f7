/// <reference path="../sh.d.ts" />
import { type ChildProcess, spawn } from "node:child_process";
import type { Socket } from "node:net";
import type { Liveness } from "../liveness";
import type { Logger } from "../logger";
import { readProcess } from "./process-table";
import script from "./step-watchdog.sh";

/**
 * The host's side of the step watchdog (step-watchdog.sh): a bash process, started
 * with the first jailed command, that kills this host's step jails once the
 * host's liveness window has passed without a lease renewal, even while this
 * process is frozen. It is told every renewal and every jail that starts and ends.
 */
export class StepWatchdog {
  private child: ChildProcess | null = null;
  /** Registered jails: the pid of each one's outermost process, and its start time. */
  private readonly steps = new Map<number, string>();

  constructor(
    private readonly liveness: Liveness,
    private readonly bash: string,
    private readonly logger: Logger,
  ) {
    liveness.onRenewed((remainingMs) => this.send(`alive ${remainingMs}`));
  }

  /** Watches a jail by its outermost process; the returned function is called when it has ended. */
  watch(pid: number): () => void {
    const entry = readProcess(pid);
    if (!entry) return () => {};
    this.steps.set(pid, entry.startTime);
    if (!this.ensureStarted()) this.send(`add ${pid} ${entry.startTime}`);
    return () => {
      this.steps.delete(pid);
      this.send(`del ${pid}`);
    };
  }

  /** Starts the watchdog unless it runs; true when it was started (and told everything already). */
  private ensureStarted(): boolean {
    if (this.child) return false;
    // The script comes through the environment, so that its process shows a short command line.
    // --norc: bash takes a socket on its stdin (Node's pipe) for rshd's and would run ~/.bashrc.
    const child = spawn(this.bash, ["--norc", "-c", 'eval "$OAH_STEP_WATCHDOG"', "oah-step-watchdog"], {
      env: { OAH_STEP_WATCHDOG: script, PATH: "/usr/bin:/bin" },
      stdio: ["pipe", "ignore", "inherit"],
    });
    child.unref();
    (child.stdin as Socket).unref();
    child.stdin!.on("error", () => {});
    child.once("exit", (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      this.logger.error(
        { code, signal },
        "the step watchdog exited; it is started again with the next command",
      );
    });
    this.child = child;
    this.send(`alive ${this.liveness.remainingMs()}`);
    for (const [pid, startTime] of this.steps) this.send(`add ${pid} ${startTime}`);
    return true;
  }

  private send(line: string): void {
    // One short write per line: atomic on a pipe, so the script never reads half a message.
    if (this.child?.stdin?.writable) this.child.stdin.write(`${line}\n`);
  }

  /** Stops the watchdog (its jails are stopped by their runs). */
  close(): void {
    const child = this.child;
    this.child = null;
    child?.stdin?.end();
  }
}
