import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { freePort, REPO_ROOT, waitFor } from "@oah/testing";

export const WEB_DIR = join(REPO_ROOT, "apps/web");

export interface ConsoleProcess {
  url: string;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** The built console (its own server, scripts/serve.mjs) on a free port of 127.0.0.1, with the given environment. */
export async function startConsole(env: Record<string, string>): Promise<ConsoleProcess> {
  if (!existsSync(join(WEB_DIR, ".next/BUILD_ID"))) {
    throw new Error("the console is not built (apps/web/.next is missing): run `npx turbo run build` first");
  }
  const port = await freePort();
  const child = spawn(process.execPath, [join(WEB_DIR, "scripts/serve.mjs")], {
    cwd: WEB_DIR,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NEXT_TELEMETRY_DISABLED: "1",
      OAH_WEB_HOST: "127.0.0.1",
      OAH_WEB_PORT: String(port),
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  try {
    await waitFor(
      "the console to answer",
      async () => {
        if (child.exitCode !== null) throw new Error(`the console exited (${child.exitCode}):\n${output}`);
        const res = await fetch(`${url}/api/auth/session`).catch(() => null);
        return res?.ok;
      },
      30_000,
      100,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, child, output: () => output, stop };
}
