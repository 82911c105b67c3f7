import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sleep, systemClock } from "../clock";
import { runProcess } from "./child-process";
import type { CommandBounds, CommandRequest, CommandResult, CommandRunner } from "./command-runner";
import { groupMembers, signal } from "./process-table";
import { prepareWorkspace } from "./workspace";

function groupAlive(pgid: number): boolean {
  const members = groupMembers(pgid);
  return members === null ? signal(-pgid, 0) : members.length > 0;
}

/** SIGTERM to the whole process group, SIGKILL to whatever is left after the grace period. */
async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signal(-pgid, "SIGTERM")) return;
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) {
      signal(-pgid, "SIGKILL");
      return;
    }
    await sleep(systemClock, 20);
  }
}

/**
 * OAH_SHELL=unsafe-host: `/bin/sh -c command` on the host itself, as the host's user,
 * in its own process group, which a stop or the command's end takes down. Nothing
 * else is confined: a process that leaves the group (setsid) outlives the command,
 * and everything outlives a host that is killed. For a developer's own machine only.
 */
export class HostCommands implements CommandRunner {
  constructor(
    private readonly workspaceRoot: string,
    private readonly bounds: CommandBounds,
  ) {}

  async run(request: CommandRequest): Promise<CommandResult> {
    const cwd = await prepareWorkspace(this.workspaceRoot, request.workspaceDir, null);
    const files = request.files ?? [];
    // The command's files in a directory of their own, gone with the command.
    const dir = files.length > 0 ? await mkdtemp(join(tmpdir(), "oah-files-")) : null;
    try {
      const paths = await Promise.all(
        files.map(async (f) => {
          const path = join(dir!, f.name);
          await writeFile(path, f.content, { mode: 0o400 });
          return [f.env, path] as const;
        }),
      );
      const env = { ...request.env, ...Object.fromEntries(paths), HOME: cwd };
      return await runProcess(
        { file: "/bin/sh", args: ["-c", request.command], cwd },
        { ...request, env },
        this.bounds,
        {
          stop: (child, _exited, graceMs) => terminateGroup(child.pid!, graceMs),
          // What the command left running in its group is stopped as well.
          ended: (child) => terminateGroup(child.pid!, this.bounds.killGraceMs),
        },
      );
    } finally {
      if (dir) await rm(dir, { recursive: true, force: true });
    }
  }
}
