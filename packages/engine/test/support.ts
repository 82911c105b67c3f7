import { chmodSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { createTempDir, OUTSIDE_TMP } from "@oah/testing";
import {
  type CommandRequest,
  type CommandRunner,
  findCgroupHome,
  JailedCommands,
  type JailSettings,
  prepareWorkspaceRoot,
  silentLogger,
} from "../src";

export const LIMITS = {
  maxProcs: 64,
  maxFileBytes: 1_048_576,
  cpuSeconds: 60,
  memoryBytes: 1_073_741_824,
  maxOutputBytes: 1_048_576,
};

/** What each runner of the tests keeps, and where it stops a command. */
export const BOUNDS = {
  maxOutputBytes: 1024,
  stopAfterOutputBytes: LIMITS.maxOutputBytes,
  killGraceMs: 1_000,
};

/** A workspace root of the test's own, with a data directory beside it that commands must not see. */
export interface TestRoot {
  dir: string;
  /** The workspace root (real path). */
  root: string;
  /** A directory the jail hides, like the data directory of a host. */
  data: string;
  workspace(id: string): string;
  remove(): void;
}

/**
 * `mode`: the test directory's own; 0o700 is a private data directory, as in root's home.
 * `base`: where it is made; outside /tmp unless told, as a host's data directory would be.
 */
export async function createTestRoot(mode = 0o711, base = OUTSIDE_TMP): Promise<TestRoot> {
  const { path: dir, remove } = createTempDir("oah-commands-", base);
  chmodSync(dir, mode);
  const root = await prepareWorkspaceRoot(join(dir, "workspaces"));
  return { dir, root, data: join(dir, "data"), workspace: (id) => join(root, id), remove };
}

export function openJail(t: TestRoot, over: Partial<JailSettings> = {}): Promise<JailedCommands> {
  return JailedCommands.open({
    workspaceRoot: t.root,
    hidden: [t.data],
    user: "nobody",
    network: "on",
    refusedAddresses: [],
    limits: LIMITS,
    cgroups: findCgroupHome().home,
    workspaceMaxBytes: null,
    bounds: BOUNDS,
    liveness: null,
    logger: silentLogger,
    ...over,
  });
}

/** One command in workspace `ws` with a short timeout and a fresh signal, unless told otherwise. */
export function run(
  runner: CommandRunner,
  t: TestRoot,
  command: string,
  over: Partial<CommandRequest> & { ws?: string } = {},
) {
  const { ws = "w", ...rest } = over;
  return runner.run({
    command,
    workspaceDir: t.workspace(ws),
    env: { PATH: process.env.PATH, HOME: t.workspace(ws) },
    timeoutMs: 10_000,
    signal: new AbortController().signal,
    ...rest,
  });
}

/** The jails' cgroups this process left behind (each jail's is removed once it ended). */
export function cgroupsLeft(): string[] {
  const home = findCgroupHome().home;
  const parents = !home
    ? []
    : home.version === 2
      ? [home.dir]
      : [home.memory, ...(home.pids ? [home.pids] : [])];
  return parents.flatMap((parent) =>
    readdirSync(parent, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name.startsWith(`${process.pid}-`))
      .map((entry) => `${parent}/${entry.name}`),
  );
}
