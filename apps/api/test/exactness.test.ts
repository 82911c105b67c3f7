// @module-tag system

import { connect } from "node:net";
import type { Run } from "@oah/contract";
import { rawRequest, STORE_KINDS } from "@oah/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

interface ErrorBody {
  error: { code: string; message: string; issues?: { path: string; message: string }[] };
}

/** A value nested `depth` levels deep. */
const nested = (depth: number): unknown => {
  let value: unknown = "bottom";
  for (let i = 0; i < depth; i++) value = { down: value };
  return value;
};

/** What a raw socket gets back for exactly these bytes. */
function rawExchange(url: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(bytes));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString();
    });
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
  });
}

describe.each(STORE_KINDS)("input is stored exactly, or refused saying where (%s)", (kind) => {
  let t: ApiUnderTest;
  beforeAll(async () => {
    t = await startApi(kind);
  });
  afterAll(() => t?.dispose());

  const submit = (sessionId: string, body: unknown) =>
    t.client.post<ErrorBody & { run: Run; created: boolean }>(`/api/v1/sessions/${sessionId}/runs`, body);
  const output = (value: unknown) => ({ input: { steps: [{ type: "output", value }] } });

  it.each([
    ["a NUL in the idempotency key", { ...output(1), idempotencyKey: "key\u0000" }, "idempotencyKey", /NUL/],
    [
      "a NUL in a JSON key",
      output({ "a\u0000b": 1 }),
      "input.steps.0.value.a\u0000b",
      /key that contains a NUL/,
    ],
    [
      "a NUL in a shell command",
      { input: { steps: [{ type: "shell", command: "echo a\u0000b" }] } },
      "input.steps.0.command",
      /NUL/,
    ],
    ["a lone surrogate", output("half \ud800 of a pair"), "input.steps.0.value", /lone surrogate/],
    [
      "a lone low surrogate in a key",
      output({ "\udc00": 1 }),
      "input.steps.0.value.\udc00",
      /lone surrogate/,
    ],
    [
      "nesting past 64 levels",
      output(nested(100)),
      `input.steps.0.value${".down".repeat(60)}`,
      /deeper than 64/,
    ],
  ])(
    "refuses %s with 400 invalid_request naming the field, and stores nothing",
    async (_name, body, path, message) => {
      const res = await submit("exact-refused", body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_request");
      expect(res.body.error.issues?.[0]?.path).toBe(path);
      expect(res.body.error.message).toMatch(message);
      expect((await t.oah.listRuns("exact-refused")).items).toEqual([]);
    },
  );

  it("keeps a __proto__ key and its data, and text with every other character, as sent", async () => {
    const value = JSON.parse(
      '{"__proto__":{"kept":true},"constructor":{"prototype":1},"text":"tab\\t é 😀 \\u2028 \\ud83d\\ude00"}',
    );
    const res = await submit("exact-kept", output(value));
    expect(res.status).toBe(202);
    const done = await t.oah.wait(res.body.run.id);
    expect(done.status).toBe("completed");
    const raw = await rawRequest(`${t.api.url}/api/v1/runs/${done.id}`, {
      headers: { host: new URL(t.api.url).host },
    });
    const back = JSON.parse(raw.text).run.output;
    // (PostgreSQL's jsonb keeps keys in an order of its own; an object's keys have none.)
    expect(Object.keys(back).sort()).toEqual(["__proto__", "constructor", "text"]);
    // An own key that happens to be named __proto__, not the prototype.
    expect(Object.getOwnPropertyDescriptor(back, "__proto__")?.value).toEqual({ kept: true });
    expect(back.text).toBe(value.text);
    expect(JSON.parse(JSON.stringify(back))).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it("answers a repeated idempotency key with its run, and another body under it with 409", async () => {
    const body = { ...output({ n: 1, m: 2 }), idempotencyKey: "once" };
    const first = await submit("exact-idem", body);
    expect(first.status).toBe(202);
    // The same body, its keys in another order: the same run.
    const again = await submit("exact-idem", {
      idempotencyKey: "once",
      input: { steps: [{ value: { m: 2, n: 1 }, type: "output" }] },
    });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: false, run: { id: first.body.run.id } });
    for (const other of [
      output({ n: 1, m: 3 }),
      { ...output({ n: 1, m: 2 }), priority: "subagent" },
      { ...output({ n: 1, m: 2 }), timeoutMs: 5 },
    ]) {
      const conflict = await submit("exact-idem", { ...other, idempotencyKey: "once" });
      expect(conflict.status).toBe(409);
      expect(conflict.body.error.code).toBe("idempotency_key_conflict");
      expect(conflict.body.error.message).toContain(first.body.run.id);
    }
    expect((await t.oah.listRuns("exact-idem")).items.map((r) => r.id)).toEqual([first.body.run.id]);
  });

  it.each([
    ["after=0x10", "after"],
    ["after=1e3", "after"],
    ["after=%207", "after"],
    ["after=7.0", "after"],
    ["limit=-1", "limit"],
    ["limit=99999999999999999999", "limit"],
  ])("reads query numbers strictly: %s is a 400 naming %s", async (query, field) => {
    const res = await t.client.get<ErrorBody>(`/api/v1/sessions/exact-q/runs?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe("invalid_request");
    expect(res.body.error.issues?.[0]?.path).toBe(field);
  });

  it("answers what Node's parser refuses in the JSON error shape: duplicate lengths, huge headers", async () => {
    const { host } = new URL(t.api.url);
    const duplicate = await rawExchange(
      t.api.url,
      `POST /api/v1/sessions/exact-raw/runs HTTP/1.1\r\nHost: ${host}\r\ncontent-type: application/json\r\n` +
        "content-length: 2\r\ncontent-length: 3\r\n\r\n{}",
    );
    expect(duplicate).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(duplicate.slice(duplicate.indexOf("\r\n\r\n") + 4))).toMatchObject({
      error: { code: "invalid_request" },
    });
    const huge = await rawExchange(
      t.api.url,
      `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nx-padding: ${"x".repeat(70_000)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.slice(huge.indexOf("\r\n\r\n") + 4))).toMatchObject({
      error: { code: "request_headers_too_large" },
    });
    expect((await t.oah.listRuns("exact-raw")).items).toEqual([]);
    expect((await t.client.get("/readyz")).status).toBe(200);
  });
});
