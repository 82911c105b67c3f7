import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { SplitDeployment } from "./deployment";
import { workspaceDir } from "./durable-runs";
import type { OahProcess } from "./processes";
import { getRun } from "./runs";

/** The pid in a worker id: host ids carry their process's, `<role>-<hostname>-<pid>-<tag>/w<n>`. */
export function hostPidOf(workerId: string | null): number | null {
  const match = workerId ? /-(\d+)-[0-9a-f]{4}\/w\d+$/.exec(workerId) : null;
  return match ? Number(match[1]) : null;
}

/**
 * A shell step that, on each of its first `crashes` executions (counted in a file of
 * its workspace), asks for the host executing it to crash (it leaves a `crash` file,
 * then waits); afterwards it goes on. The crash itself comes from outside, as a real
 * one would (`crashAsked`): a step cannot reach its host from its jail.
 */
export function crashingStep(crashes: number) {
  return {
    type: "shell" as const,
    command: `n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; if [ $n -le ${crashes} ]; then echo $n > crash; sleep 30; fi; echo "execution $n"`,
  };
}

/**
 * If the run's crashing step asks for a crash, kills (SIGKILL) the host executing it
 * and answers the request; returns the host killed, if any.
 */
export async function crashAsked(
  d: SplitDeployment,
  runId: string,
  workspaceId: string,
): Promise<OahProcess | null> {
  const request = join(workspaceDir(d.env, workspaceId), "crash");
  if (!existsSync(request)) return null;
  const run = await getRun(d.client, runId);
  const pid = hostPidOf(run.workerId);
  const host = d.sandboxes.find(
    (s) => s.child.pid === pid && s.child.exitCode === null && s.child.signalCode === null,
  );
  if (run.status !== "running" || !host) return null;
  rmSync(request);
  await host.stop("SIGKILL");
  return host;
}
