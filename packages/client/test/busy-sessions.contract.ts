import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { type FakeModel, isTerminal, readMarks, startFakeModel, waitFor, workspaceDir } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isOahApiError, type OahClient, type Run } from "../src";

/** A deployment the busy-session contract runs on: real oah processes on a real store, seen through its HTTP API. */
export interface BusyDeployment {
  readonly oah: OahClient;
  /** The environment its processes share (OAH_DATA_DIR holds the workspaces and their marks). */
  readonly env: Record<string, string>;
  /** The /metrics of the API process that took the submissions. */
  metrics(): Promise<string>;
  dispose(): Promise<void>;
}

export type StartBusyDeployment = (env: Record<string, string>) => Promise<BusyDeployment>;

type IfBusy = "enqueue" | "reject" | "interrupt" | "replace" | "steer";

/**
 * A script of `steps` shell steps, each marking its start and its end in the workspace's marks
 * (`start <label>.<k>`, `end <label>.<k>`) around a short sleep: what executed, in which order,
 * and whether two executions of the session ever overlapped.
 */
const markedSteps = (label: string, steps: number, sleep = 0.2) => ({
  input: {
    steps: Array.from({ length: steps }, (_, k) => ({
      type: "shell" as const,
      command: `echo "start ${label}.${k}" >> marks; sleep ${sleep}; echo "end ${label}.${k}" >> marks`,
    })),
  },
});

/** The steps of each label that ran, in the order they ran; fails when two overlapped or one was cut short. */
function serialSteps(marks: readonly string[]): string[] {
  const ran: string[] = [];
  let open: string | null = null;
  for (const line of marks) {
    const [what, step] = line.split(" ") as ["start" | "end", string];
    if (what === "start") {
      expect(open, `${step} started while ${open} ran`).toBeNull();
      open = step;
    } else {
      expect(step, `an end of ${step} while ${open} ran`).toBe(open);
      ran.push(step);
      open = null;
    }
  }
  expect(open, `${open} never ended`).toBeNull();
  return ran;
}

const labelsOf = (steps: readonly string[]) => [...new Set(steps.map((s) => s.split(".")[0]!))];

/**
 * A busy session's policies (docs/spec.md §5), one suite body for every deployment: each
 * policy's outcome, and, from the marks each step leaves in its workspace, that no two
 * executions of a session ever overlap and that an interrupted run's step in flight ends
 * before the run does.
 */
export function busySessionsContract(name: string, start: StartBusyDeployment): void {
  describe(`a busy session's policies: ${name}`, () => {
    let d: BusyDeployment;
    let model: FakeModel;
    let sessions = 0;
    beforeAll(async () => {
      model = await startFakeModel();
      // A grace longer than any step here: an interrupt always waits for the step in flight.
      d = await start({
        OAH_INTERRUPT_GRACE_MS: "30000",
        OAH_WORKERS_MIN: "2",
        OAH_WORKERS_MAX: "4",
        OAH_MODEL_BASE_URL: model.url,
        OAH_MODEL_NAME: "fake-1",
      });
    });
    afterAll(async () => {
      await d?.dispose();
      await model?.close();
    });

    /** A session of its own, in a workspace of its own (its marks file is the session's). */
    const session = () => {
      const n = ++sessions;
      return { sessionId: `busy-${n}`, workspaceId: `busy-ws-${n}` };
    };
    const submit = (
      s: ReturnType<typeof session>,
      label: string,
      steps: number,
      ifBusy: IfBusy = "enqueue",
      sleep?: number,
    ) =>
      d.oah.submit(s.sessionId, { workspaceId: s.workspaceId, ifBusy, ...markedSteps(label, steps, sleep) });
    const ended = (runs: readonly Run[]) =>
      waitFor(
        "the runs to end",
        async () => {
          const now = await Promise.all(runs.map((r) => d.oah.get(r.id)));
          return now.every(isTerminal) ? now : null;
        },
        120_000,
      );
    const startedStep = (s: ReturnType<typeof session>, step: string) =>
      waitFor(`${step} to start`, async () => readMarks(d.env, s.workspaceId).includes(`start ${step}`));

    it("interrupt: the executing run ends at its step boundary, interrupted; queued runs keep their places; the new run goes last", async () => {
      const s = session();
      const { run: first } = await submit(s, "a", 20);
      const { run: queued } = await submit(s, "b", 2);
      await startedStep(s, "a.1");
      const { run: interrupting } = await submit(s, "c", 2, "interrupt");
      expect(interrupting.ifBusy).toBe("interrupt");
      expect(await d.metrics()).toMatch(
        /^oah_submissions_total\{policy="interrupt",outcome="stopped_others"\} 1$/m,
      );
      const [a, b, c] = await ended([first, queued, interrupting]);
      expect([a!.status, b!.status, c!.status]).toEqual(["cancelled", "completed", "completed"]);
      expect(a).toMatchObject({
        errorCode: "interrupted",
        errorMessage: `interrupted by ${interrupting.id}`,
        cancelledBy: { runId: interrupting.id, reason: "interrupted" },
      });
      const steps = serialSteps(readMarks(d.env, s.workspaceId));
      expect(labelsOf(steps)).toEqual(["a", "b", "c"]);
      const ofA = steps.filter((x) => x.startsWith("a."));
      expect(ofA.length).toBeGreaterThanOrEqual(2);
      expect(ofA.length).toBeLessThan(20);
      expect(steps.filter((x) => !x.startsWith("a."))).toEqual(["b.0", "b.1", "c.0", "c.1"]);
      // Its checkpoint is kept: it covers every step it finished.
      expect((await d.oah.checkpoints(first.id)).length).toBe(ofA.length);
    });

    it("replace: queued runs end at once and never execute; the executing one ends at its boundary; the new run is the only one after it", async () => {
      const s = session();
      const { run: first } = await submit(s, "a", 20);
      const { run: queued } = await submit(s, "b", 2);
      await startedStep(s, "a.0");
      const { run: replacing } = await submit(s, "c", 2, "replace");
      expect(await d.oah.get(queued.id)).toMatchObject({ status: "cancelled", errorCode: "replaced" });
      const [a, c] = await ended([first, replacing]);
      expect(a).toMatchObject({ status: "cancelled", errorCode: "replaced" });
      expect(c!.status).toBe("completed");
      expect(labelsOf(serialSteps(readMarks(d.env, s.workspaceId)))).toEqual(["a", "c"]);
    });

    it("reject: 50 submissions at once into an idle session, exactly one admitted, 49 session_busy naming it", async () => {
      const s = session();
      // The admitted run holds the session until the test lets it end: it never ends while
      // submissions are still being decided.
      const held = {
        input: { steps: [{ type: "shell" as const, command: "while [ ! -f go ]; do sleep 0.05; done" }] },
      };
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          d.oah.submit(s.sessionId, { workspaceId: s.workspaceId, ifBusy: "reject", ...held }).then(
            (made) => ({ made: made.run }),
            (error: unknown) => ({ error }),
          ),
        ),
      );
      const made = answers.flatMap((a) => ("made" in a ? [a.made] : []));
      expect(made).toHaveLength(1);
      const refused = answers.flatMap((a) => ("error" in a ? [a.error] : []));
      expect(refused).toHaveLength(49);
      for (const error of refused) {
        expect(isOahApiError(error, "session_busy")).toBe(true);
        expect(error).toMatchObject({ status: 409, runId: made[0]!.id });
      }
      // Its workspace is there once it runs.
      await d.oah.wait(made[0]!.id, { until: ["running"] });
      writeFileSync(join(workspaceDir(d.env, s.workspaceId), "go"), "");
      await ended(made);
      expect((await d.oah.listRuns(s.sessionId)).items.map((r) => r.id)).toEqual([made[0]!.id]);
      // Counted by policy and outcome (the only rejects of this deployment).
      const metrics = await d.metrics();
      expect(metrics).toMatch(/^oah_submissions_total\{policy="reject",outcome="session_busy"\} 49$/m);
      expect(metrics).toMatch(/^oah_submissions_total\{policy="reject",outcome="queued"\} 1$/m);
    });

    it("interrupt: 50 submissions at once, never two executing together; each interrupted run ends interrupted, the last one completes", async () => {
      const s = session();
      const { run: first } = await submit(s, "first", 20);
      await startedStep(s, "first.0");
      const submitted = await Promise.all(
        Array.from({ length: 50 }, (_, i) => submit(s, `i${i}`, 3, "interrupt", 0.05).then((r) => r.run)),
      );
      const runs = await ended([first, ...submitted]);
      const last = runs.reduce((a, b) => (a.seq > b.seq ? a : b));
      expect(last.status).toBe("completed");
      const interrupted = runs.filter((r) => r.cancelledBy !== null);
      expect(interrupted.length).toBeGreaterThanOrEqual(1);
      for (const r of interrupted) expect(r).toMatchObject({ status: "cancelled", errorCode: "interrupted" });
      for (const r of runs.filter((x) => x.cancelledBy === null)) expect(r.status).toBe("completed");
      // In the session's order, whatever was interrupted; no two executions overlapped.
      const order = labelsOf(serialSteps(readMarks(d.env, s.workspaceId)));
      const bySeq = [...runs].sort((a, b) => a.seq - b.seq);
      const labelOf = new Map([[first.id, "first"], ...submitted.map((r, i) => [r.id, `i${i}`] as const)]);
      expect(order).toEqual(bySeq.map((r) => labelOf.get(r.id)).filter((l) => order.includes(l!)));
    });

    it("steer: 20 messages at once and a steering submission join the executing agent run, each once in its next model call, in their order; 409 run_already_ended after", async () => {
      const s = session();
      const gate = join(workspaceDir(d.env, s.workspaceId), "go");
      model.reply(
        {
          toolCalls: [
            {
              id: "c1",
              name: "shell",
              arguments: {
                command: `echo "start s.0" >> marks; while [ ! -f go ]; do sleep 0.02; done; echo "end s.0" >> marks`,
              },
            },
          ],
        },
        { content: "done" },
      );
      const before = model.requests.length;
      const agent = (prompt: string, ifBusy: IfBusy = "enqueue") =>
        d.oah.submit(s.sessionId, {
          executor: "agent",
          input: { prompt, tools: { shell: true } },
          workspaceId: s.workspaceId,
          ifBusy,
        });
      const { run } = await agent("go");
      await startedStep(s, "s.0");
      const posted = await Promise.all(
        Array.from({ length: 20 }, (_, i) => d.oah.message(run.id, { content: `m${i}` })),
      );
      const steered = await agent("steered", "steer");
      expect(steered).toMatchObject({ created: false, run: { id: run.id } });
      writeFileSync(gate, "");
      const [done] = await ended([run]);
      expect(done!.status).toBe("completed");
      const second = model.requests[before + 1]!.body.messages;
      const taken = second.filter((m) => m.role === "user").map((m) => m.content);
      // In the order of their ids, whatever order they were answered in; the submission's last.
      const byId = [...posted].sort((a, b) => a.messageId - b.messageId);
      expect(taken).toEqual(["go", ...byId.map((p) => `m${posted.indexOf(p)}`), "steered"]);
      expect(model.requests.length - before).toBe(2);
      await expect(d.oah.message(run.id, { content: "late" })).rejects.toMatchObject({
        status: 409,
        code: "run_already_ended",
      });
      expect((await d.oah.listRuns(s.sessionId)).items).toHaveLength(1);
    });
  });
}
