import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { inNamespace } from "./network-namespaces";
import { REPO_ROOT } from "./paths";

export interface OahProcess {
  url: string;
  child: ChildProcess;
  /** The network namespace it runs in, if any. */
  netns: string | undefined;
  /** Everything the process wrote, stdout and stderr. */
  output(): string;
  /** Sends a signal and resolves with the exit code (or the signal that ended it). */
  stop(signal?: NodeJS.Signals): Promise<number | NodeJS.Signals>;
  exited: Promise<number | NodeJS.Signals>;
}

export interface StartOptions {
  env?: Record<string, string>;
  args?: string[];
  /** How long to wait for the "listening on" line. */
  timeoutMs?: number;
  /** A network namespace to run in (`ip netns exec`), as on a host of its own. */
  netns?: string;
  /**
   * Descriptors the process inherits, by number, open and without close-on-exec: as a shell's
   * `oah-api 200</root/secret` gives them.
   */
  fds?: Record<number, number>;
}

/** The stdio of a started process: stdout and stderr piped, and `fds` at their numbers. */
function stdioWith(fds: Record<number, number> = {}): ("ignore" | "pipe" | number)[] {
  const stdio: ("ignore" | "pipe" | number)[] = ["ignore", "pipe", "pipe"];
  for (const [at, fd] of Object.entries(fds)) {
    while (stdio.length <= Number(at)) stdio.push("ignore");
    stdio[Number(at)] = fd;
  }
  return stdio;
}

const BIN = {
  "oah-api": join(REPO_ROOT, "apps/api/bin/oah-api.js"),
  "oah-controller": join(REPO_ROOT, "apps/controller/bin/oah-controller.js"),
  "oah-sandbox": join(REPO_ROOT, "apps/sandbox/bin/oah-sandbox.js"),
};

export type OahBinary = keyof typeof BIN;

/** Starts a built oah binary on an ephemeral port and waits until it listens. */
export function startOah(binary: OahBinary, options: StartOptions = {}): Promise<OahProcess> {
  // `ip netns exec` execs the command: the child's pid is the binary's own, as without a namespace.
  const [command, ...args] = inNamespace(options.netns, [
    process.execPath,
    BIN[binary],
    "--port",
    "0",
    ...(options.args ?? []),
  ]);
  const child = spawn(command!, args, {
    env: { PATH: process.env.PATH, OAH_LOG_LEVEL: "warn", ...options.env },
    stdio: stdioWith(options.fds),
  });
  let output = "";
  const exited = new Promise<number | NodeJS.Signals>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? signal ?? -1));
  });
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${binary} did not start within ${options.timeoutMs ?? 20_000} ms:\n${output}`));
    }, options.timeoutMs ?? 20_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child, netns: options.netns, output: () => output, stop, exited });
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${binary} exited (${code}) before listening:\n${output}`));
    });
  });
}

/** Runs a binary expected to refuse to start; resolves with its exit code and output. */
export function runToExit(
  binary: OahBinary,
  options: StartOptions = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN[binary], ...(options.args ?? [])], {
    env: { PATH: process.env.PATH, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (c: Buffer) => {
    output += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    output += c.toString();
  });
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

/** True while the process exists and is not a zombie. */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Live processes (not zombies) for which `test` holds; those gone meanwhile or not ours to read are left out. */
function findProcesses(test: (pid: string) => boolean): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (test(name) && processAlive(Number(name))) found.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** Processes started with `name=value` in their environment: e.g. every process of one test deployment. */
export function processesWithEnv(name: string, value: string): number[] {
  const entry = `${name}=${value}`;
  return findProcesses((pid) => readFileSync(`/proc/${pid}/environ`, "utf8").split("\0").includes(entry));
}

/** The pid of a process's parent (throws once it is gone). */
export function parentOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/** The live children of a process. */
export function childrenOf(parent: number): number[] {
  return findProcesses((pid) => parentOf(Number(pid)) === parent);
}

/**
 * A duration for `sleep` that no other process on the machine sleeps
 * (`sleep 900.4711093`): a marker by which a test finds the processes a command
 * started, inside a sandbox too, where their pids are not the host's.
 */
export const uniqueSleep = (): string => `900.${String(Math.floor(Math.random() * 1e9)).padStart(9, "0")}`;

/** Live processes (not zombies) running `sleep <duration>`. */
export function sleepers(duration: string): number[] {
  return findProcesses((pid) => {
    const argv = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
    return basename(argv[0] ?? "") === "sleep" && argv[1] === duration;
  });
}

/** Waits until no live process runs `sleep <duration>`; false if some still do after `timeoutMs`. */
export async function sleepersGone(duration: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (sleepers(duration).length === 0) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * A command that forks 500 times, going on after every refusal, each child becoming
 * `sleep <duration>`; it prints how many forks it got, holds them `holdSeconds`, then
 * exits `exitCode`. A fork loop for the process limit of a command's sandbox.
 */
export function forkLoop(duration: string, holdSeconds: number, exitCode = 0): string {
  const script = [
    "import os, time",
    "made = 0",
    "for i in range(500):",
    "    try:",
    "        pid = os.fork()",
    "    except OSError:",
    "        continue",
    "    if pid == 0:",
    `        os.execvp("sleep", ["sleep", "${duration}"])`,
    "    made += 1",
    "print(made, flush=True)",
    `time.sleep(${holdSeconds})`,
    `raise SystemExit(${exitCode})`,
  ].join("\n");
  return `python3 -c '${script}'`;
}
