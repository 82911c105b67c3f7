// @module-tag system

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Run } from "@oah/client";
import {
  type FakeReply,
  IN_FLIGHT_REPLY,
  sleepers,
  storedCheckpoints,
  uniqueSleep,
  waitFor,
  workspaceDir,
} from "@oah/testing";
import { describe, expect, it } from "vitest";
import { type ApiUnderTest, apiPerTestWithModel } from "./support";

const SYSTEM = "You run commands.";
const shellCall = (id: string, command: string): FakeReply => ({
  toolCalls: [{ id, name: "shell", arguments: { command } }],
});

/**
 * The conversation a session carries from run to run (docs/spec.md §12, *The agent executor*),
 * on the embedded default (SQLite, a real oah-api): each run's checkpoints log only what it adds
 * and name the run the rest comes from; a run cut short leaves its conversation closed. The model
 * stand-in answers 400, as providers do, to a tool call without its result.
 */
describe("a session's conversation across its agent runs", () => {
  const h = apiPerTestWithModel("sqlite", {
    OAH_STALE_RUN_RECOVERY_STRATEGY: "requeue_running",
  });
  const start = () => h.start();
  const turn = (t: ApiUnderTest, session: string, prompt: string, extra: { timeoutMs?: number } = {}) =>
    t.oah.submit(session, {
      executor: "agent",
      input: { prompt, system: SYSTEM, tools: { shell: true } },
      workspaceId: session,
      ...extra,
    });
  const done = async (t: ApiUnderTest, run: Run) => {
    const ended = await t.oah.wait(run.id);
    expect(ended.status).toBe("completed");
    return ended.output as { answer: string; messages: { role: string; content: string | null }[] };
  };
  const shape = (messages: { role: string; content: string | null }[]) =>
    messages.map((m) => [m.role, m.content]);

  it("a third turn killed mid-call resumes with the whole conversation; its checkpoints hold only its own messages, and a fork of it after a fourth turn gets the same", async () => {
    const t = await start();
    h.model.reply(shellCall("c1", "echo one"), { content: "one" });
    const first = (await turn(t, "turns", "Turn 1: say one.")).run;
    await done(t, first);
    h.model.reply({ content: "two" });
    const second = (await turn(t, "turns", "Turn 2: say two.")).run;
    const secondOut = await done(t, second);

    // The third turn's second model call never ends: its host dies while it is in flight.
    h.model.reply(shellCall("c3", "echo three"), IN_FLIGHT_REPLY);
    const third = (await turn(t, "turns", "Turn 3: say three.")).run;
    const before = h.model.requests.length;
    await waitFor("the third turn's second model call", async () => h.model.requests.length === before + 2);
    expect(await t.api.stop("SIGKILL")).toBe("SIGKILL");
    h.model.reply({ content: "three" });
    await t.restart();
    const thirdOut = await done(t, third);
    expect((await t.oah.get(third.id)).attempt).toBe(2);

    // The call made again is the one in flight, with the whole conversation of the three turns.
    const inFlight = h.model.requests[before + 1]!.body.messages;
    const resumed = h.model.requests.at(-1)!.body.messages;
    expect(resumed).toEqual(inFlight);
    expect(shape(resumed)).toEqual([
      ["system", SYSTEM],
      ["user", "Turn 1: say one."],
      ["assistant", null],
      ["tool", expect.stringContaining('"stdout":"one\\n"')],
      ["assistant", "one"],
      ["user", "Turn 2: say two."],
      ["assistant", "two"],
      ["user", "Turn 3: say three."],
      ["assistant", null],
      ["tool", expect.stringContaining('"stdout":"three\\n"')],
    ]);
    expect(shape(thirdOut.messages)).toEqual([...shape(resumed), ["assistant", "three"]]);

    // What the store keeps of the third turn: its own messages, and the run the rest comes from.
    const stored = storedCheckpoints(t.env.OAH_DATA_DIR!, third.id);
    expect(stored.map((c) => c.state)).toEqual(
      stored.map(() => expect.objectContaining({ carried: { runId: second.id, messages: 7 } })),
    );
    expect(secondOut.messages).toHaveLength(7);
    expect(shape(stored[0]!.appended as never)).toEqual([
      ["user", "Turn 3: say three."],
      ["assistant", null],
    ]);
    const logged = JSON.stringify(stored.map((c) => c.appended));
    for (const earlier of ["Turn 1", "Turn 2", SYSTEM]) expect(logged).not.toContain(earlier);
    // Its first checkpoint is no bigger than the first turn's, which logged the system prompt too.
    const firstTurn = storedCheckpoints(t.env.OAH_DATA_DIR!, first.id);
    expect(stored[0]!.bytes).toBeLessThan(firstTurn[0]!.bytes + 80);

    // A fourth turn makes it the session's previous run no longer; a fork of the third from its
    // last model call goes on from the third's checkpoints and sends the same conversation.
    h.model.reply({ content: "four" });
    await done(t, (await turn(t, "turns", "Turn 4: say four.")).run);
    const lastCall = (await t.oah.steps(third.id)).filter((s) => s.kind === "model").at(-1)!;
    h.model.reply({ content: "three, forked" });
    const fork = (await t.oah.fork(third.id, { fromStep: lastCall.id })).run;
    const forkOut = await done(t, fork);
    expect(h.model.requests.at(-1)!.body.messages).toEqual(resumed);
    expect(shape(forkOut.messages)).toEqual([...shape(resumed), ["assistant", "three, forked"]]);
  });

  it("a run cancelled during its shell command, or timed out, leaves its conversation closed: the next run's model call is accepted", async () => {
    const t = await start();
    // Cancelled while its command sleeps: the call has no result.
    const marker = uniqueSleep();
    h.model.reply(shellCall("c1", `sleep ${marker}`));
    const cancelled = (await turn(t, "cut", "Wait a while.")).run;
    await waitFor("the shell command", async () => sleepers(marker).length > 0);
    await t.oah.cancel(cancelled.id);
    const ended = await t.oah.wait(cancelled.id);
    expect(ended.status).toBe("cancelled");

    h.model.reply({ content: "I was cut short." });
    const next = (await turn(t, "cut", "Are you there?")).run;
    const nextOut = await done(t, next);
    const sent = h.model.requests.at(-1)!.body.messages;
    const cancelledWhy = `run ${cancelled.id} was cancelled${ended.errorMessage ? ` (${ended.errorMessage})` : ""}`;
    expect(shape(sent)).toEqual([
      ["system", SYSTEM],
      ["user", "Wait a while."],
      ["assistant", null],
      ["tool", expect.any(String)],
      [
        "user",
        `The previous turn was cut short: ${cancelledWhy} before it finished; 1 tool call(s) got no result.`,
      ],
      ["user", "Are you there?"],
    ]);
    expect(sent[3]).toMatchObject({ role: "tool", tool_call_id: "c1" });
    expect(JSON.parse(sent[3]!.content!)).toMatchObject({
      error: `not answered: ${cancelledWhy} before this call's result`,
      interrupted: { status: "cancelled" },
    });
    expect(shape(nextOut.messages)).toEqual([...shape(sent), ["assistant", "I was cut short."]]);

    // Timed out while its command sleeps: closed the same way, after what it carried.
    const slow = uniqueSleep();
    h.model.reply(shellCall("c2", `sleep ${slow}`));
    const timedOut = (await turn(t, "cut", "Wait longer.", { timeoutMs: 1_500 })).run;
    expect(await t.oah.wait(timedOut.id)).toMatchObject({ status: "timed_out", errorCode: "run_timed_out" });
    // Cancelled in its first model call, before any checkpoint: passed over.
    h.model.reply(IN_FLIGHT_REPLY);
    const early = (await turn(t, "cut", "Never mind.")).run;
    const calls = h.model.requests.length;
    await waitFor("the early run's model call", async () => h.model.requests.length === calls + 1);
    await t.oah.cancel(early.id);
    expect((await t.oah.wait(early.id)).status).toBe("cancelled");

    h.model.reply({ content: "Still here." });
    const last = (await turn(t, "cut", "And now?")).run;
    await done(t, last);
    const timedOutWhy = `run ${timedOut.id} timed out (run exceeded its timeout of 1500 ms)`;
    expect(shape(h.model.requests.at(-1)!.body.messages)).toEqual([
      ...shape(nextOut.messages),
      ["user", "Wait longer."],
      ["assistant", null],
      ["tool", expect.stringContaining(`not answered: ${timedOutWhy}`)],
      [
        "user",
        `The previous turn was cut short: ${timedOutWhy} before it finished; 1 tool call(s) got no result.`,
      ],
      ["user", "And now?"],
    ]);
  });

  it("an agent run interrupted after its second tool call by a submission with ifBusy interrupt: the next run's first call carries its conversation and what stopped it", async () => {
    const t = await start();
    // The second command waits for a file the test writes once the interrupt is in.
    const gate = join(workspaceDir(t.env, "interrupted"), "go");
    h.model.reply(
      shellCall("c1", "echo one"),
      shellCall("c2", "while [ ! -f go ]; do sleep 0.05; done; echo two"),
    );
    const interrupted = (await turn(t, "interrupted", "Count to three.")).run;
    await waitFor("the second command", async () => h.model.requests.length === 2);
    const next = (
      await t.oah.submit("interrupted", {
        executor: "agent",
        input: { prompt: "Stop; say hello instead.", system: SYSTEM, tools: { shell: true } },
        workspaceId: "interrupted",
        ifBusy: "interrupt",
      })
    ).run;
    // The command in flight is a step: it ends before the run stops.
    expect((await t.oah.get(interrupted.id)).status).toBe("running");
    h.model.reply({ content: "hello" });
    writeFileSync(gate, "");
    const ended = await t.oah.wait(interrupted.id);
    expect(ended).toMatchObject({
      status: "cancelled",
      errorCode: "interrupted",
      cancelledBy: { runId: next.id, reason: "interrupted" },
    });
    const nextOut = await done(t, next);
    expect(nextOut.answer).toBe("hello");
    // The interrupted run made two model calls, never the third; the next run's first call
    // carries both tool calls and their results, then the note of what cut the turn short.
    expect(h.model.requests).toHaveLength(3);
    expect(shape(h.model.requests[2]!.body.messages)).toEqual([
      ["system", SYSTEM],
      ["user", "Count to three."],
      ["assistant", null],
      ["tool", expect.stringContaining('"stdout":"one\\n"')],
      ["assistant", null],
      ["tool", expect.stringContaining('"stdout":"two\\n"')],
      ["user", expect.stringContaining(`interrupted by ${next.id}`)],
      ["user", "Stop; say hello instead."],
    ]);
  });
});
