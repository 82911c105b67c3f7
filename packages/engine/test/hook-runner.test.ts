// @module-tag system

import { createServer, type Server } from "node:http";
import type { Run } from "@oah/contract";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HookRunner, type JailedCommands, type RunJournal } from "../src";
import { createTestRoot, openJail, type TestRoot } from "./support";

interface Recorded {
  steps: { kind: string; name: string; status?: string; errorCode?: string; output?: unknown }[];
  events: { type: string; data?: Record<string, unknown> }[];
}

function recordingJournal(): { journal: RunJournal; recorded: Recorded } {
  const recorded: Recorded = { steps: [], events: [] };
  const journal: RunJournal = {
    event: async (type, data) => {
      recorded.events.push({ type, data });
      return true;
    },
    startStep: async (kind, name) => recorded.steps.push({ kind, name }) - 1,
    updateStep: async () => true,
    finishStep: async (stepId, end) => {
      Object.assign(recorded.steps[stepId]!, end);
      return true;
    },
    checkpoint: async () => true,
  };
  return { journal, recorded };
}

const run = { id: "run_1", sessionId: "s", workspaceId: "w", executor: "script" } as Run;
let t: TestRoot;
let dir: string;
let jail: JailedCommands;
let server: Server;
let base: string;
const received: unknown[] = [];

beforeAll(async () => {
  t = await createTestRoot();
  dir = t.workspace("w");
  jail = await openJail(t);
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => {
      body += c.toString();
    });
    req.on("end", () => {
      received.push(JSON.parse(body));
      if (req.url === "/slow") return; // never answers
      res.writeHead(req.url === "/ok" ? 204 : 500);
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const address = server.address();
  base = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
  t.remove();
});

function runner(hooks: ConstructorParameters<typeof HookRunner>[0]["hooks"]) {
  return new HookRunner({
    hooks,
    timeoutMs: 300,
    commands: jail,
    env: () => ({ PATH: process.env.PATH }),
  });
}

describe("hooks", () => {
  it.each([
    ["a command that succeeds", { on: "run.started", command: "echo ok" }, "completed", null],
    ["a command that fails", { on: "run.started", command: "exit 2" }, "failed", /exited with 2/],
    ["a command that hangs", { on: "run.started", command: "sleep 10" }, "failed", /within 300 ms/],
    ["an endpoint that accepts", { on: "run.started", url: "/ok" }, "completed", null],
    ["an endpoint that fails", { on: "run.started", url: "/fail" }, "failed", /answered 500/],
    ["an endpoint that hangs", { on: "run.started", url: "/slow" }, "failed", /within 300 ms/],
    [
      "an endpoint that is down",
      { on: "run.started", url: "http://127.0.0.1:1/x" },
      "failed",
      /fetch failed/,
    ],
  ] as const)("records %s", async (_name, hook, status, notice) => {
    const { journal, recorded } = recordingJournal();
    const definition =
      "url" in hook && hook.url.startsWith("/") ? { ...hook, url: `${base}${hook.url}` } : hook;
    const started = Date.now();
    await runner([definition]).fire(
      "run.started",
      { run, journal, workspaceDir: dir, signal: new AbortController().signal },
      {
        attempt: 1,
      },
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(recorded.steps).toMatchObject([{ kind: "hook", status }]);
    if (notice) {
      expect(recorded.steps[0]!.errorCode).toBe("hook_execution_failed");
      expect(recorded.events).toMatchObject([
        { type: "hook.notice", data: { event: "run.started", errorCode: "hook_execution_failed" } },
      ]);
      expect(String(recorded.events[0]!.data!.message)).toMatch(notice);
    } else {
      expect(recorded.events).toEqual([]);
    }
  });

  it("runs only the hooks of the event, and posts what happened to endpoints", async () => {
    const { journal, recorded } = recordingJournal();
    received.length = 0;
    await runner([
      { on: "tool.before", command: "true", name: "before" },
      { on: "tool.after", url: `${base}/ok`, name: "after" },
    ]).fire(
      "tool.after",
      { run, journal, workspaceDir: dir, signal: new AbortController().signal },
      { tool: "shell" },
    );
    expect(recorded.steps.map((s) => s.name)).toEqual(["after"]);
    expect(received).toEqual([
      {
        event: "tool.after",
        run: { id: "run_1", sessionId: "s", workspaceId: "w", executor: "script" },
        detail: { tool: "shell" },
      },
    ]);
  });
});
