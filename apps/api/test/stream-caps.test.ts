// @module-tag system

import { type ClientRequest, request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ApiUnderTest, startApi } from "./support";

/** 20 submitters' tokens (the clients that follow runs), and an admin's that reads /metrics. */
const submitter = (i: number) => `submitter-${i}-0123456789abcdefghijklmnop`;
const ADMIN = "admin-stream-caps-0123456789abcdefghijkl";
const TOKENS = [
  ...Array.from({ length: 20 }, (_, i) => ({ name: `client-${i}`, token: submitter(i), role: "submitter" })),
  { name: "admin", token: ADMIN, role: "admin" },
];

interface Attempt {
  status: number;
  /** The error's code and message of a refusal (a connection refused: status 0 and its error's code). */
  code?: string;
  message?: string;
  retryAfter?: string;
  /** Ends a stream that was let in. */
  close(): void;
}

/**
 * One stream asked for as an EventSource would, on a connection of its own from `from` (an
 * address of 127.0.0.0/8): resolves at its answer's headers, held open if it is a stream.
 */
function openStream(base: string, path: string, token: string, from: string): Promise<Attempt> {
  return new Promise((resolve) => {
    let req: ClientRequest | undefined;
    req = request(
      `${base}${path}`,
      {
        agent: false,
        localAddress: from,
        headers: { accept: "text/event-stream", authorization: `Bearer ${token}` },
      },
      (res) => {
        const close = () => req?.destroy();
        if (res.statusCode === 200) {
          res.resume();
          resolve({ status: 200, close });
          return;
        }
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on("end", () => {
          const { error } = JSON.parse(text) as { error: { code: string; message: string } };
          const retryAfter = res.headers["retry-after"];
          resolve({ status: res.statusCode ?? 0, ...error, ...(retryAfter ? { retryAfter } : {}), close });
        });
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) =>
      resolve({ status: 0, code: error.code, close: () => {} }),
    );
    req.end();
  });
}

const sessionStream = "/api/v1/sessions/watched/events";
const trpcStream = `/trpc/sessions.onEvents?input=${encodeURIComponent(JSON.stringify({ sessionId: "watched" }))}`;

/** Asks for `count` streams, `parallel` at a time, the i-th with `how(i)`. */
async function attempts(
  count: number,
  how: (i: number) => { path: string; token: string; from: string },
  open: (path: string, token: string, from: string) => Promise<Attempt>,
  parallel = 50,
): Promise<Attempt[]> {
  const all: Attempt[] = [];
  for (let i = 0; i < count; i += parallel) {
    const batch = Array.from({ length: Math.min(parallel, count - i) }, (_, j) => {
      const { path, token, from } = how(i + j);
      return open(path, token, from);
    });
    all.push(...(await Promise.all(batch)));
  }
  return all;
}

/** The statuses of some attempts, counted: `{200: n, 429: m}`. */
const tally = (list: Attempt[]) =>
  list.reduce<Record<number, number>>((counts, a) => {
    counts[a.status] = (counts[a.status] ?? 0) + 1;
    return counts;
  }, {});

/** How long a call took, in ms, with its status. */
async function timed(call: () => Promise<Response>): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  const response = await call();
  await response.arrayBuffer();
  return { status: response.status, ms: Math.round(performance.now() - started) };
}

describe("event streams have caps of their own (the defaults: 100 per token, 250 per address, 1,000 in all)", () => {
  let t: ApiUnderTest;
  const held: Attempt[] = [];
  const open = (path: string, token: string, from: string) => openStream(t.api.url, path, token, from);
  const streamsOpen = async () => {
    const text = await (
      await fetch(`${t.api.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })
    ).text();
    return Number(/^oah_event_streams_open (\d+)$/m.exec(text)?.[1]);
  };

  beforeAll(async () => {
    t = await startApi("sqlite", { OAH_API_TOKENS: JSON.stringify(TOKENS) });
    const submitted = await fetch(`${t.api.url}/api/v1/sessions/watched/runs`, {
      method: "POST",
      headers: { authorization: `Bearer ${submitter(0)}`, "content-type": "application/json" },
      body: JSON.stringify({ input: { steps: [] } }),
    });
    expect(submitted.status).toBe(202);
  });
  afterAll(async () => {
    for (const stream of held) stream.close();
    await t?.dispose();
  });

  it("4,000 streams asked for: those past a cap get 429 too_many_streams with Retry-After, and /healthz and a submission are answered within 1 s while the rest are held", async () => {
    // One token asks for 150 from one address: 100 are its own.
    const oneToken = await attempts(
      150,
      () => ({ path: sessionStream, token: submitter(0), from: "127.0.0.2" }),
      open,
    );
    // Five tokens ask for 60 each from one address: 250 are that address's.
    const oneAddress = await attempts(
      300,
      (i) => ({ path: i % 2 ? trpcStream : sessionStream, token: submitter(1 + (i % 5)), from: "127.0.0.3" }),
      open,
    );
    // Fourteen tokens from six addresses, SSE routes and tRPC subscriptions alike, until the total.
    const everyone = await attempts(
      3_550,
      (i) => ({
        path: i % 2 ? trpcStream : sessionStream,
        token: submitter(6 + (i % 14)),
        from: `127.0.0.${4 + (i % 6)}`,
      }),
      open,
    );
    const all = [...oneToken, ...oneAddress, ...everyone];
    held.push(...all.filter((a) => a.status === 200));
    expect(all).toHaveLength(4_000);
    expect([tally(oneToken), tally(oneAddress), tally(everyone)]).toEqual([
      { 200: 100, 429: 50 },
      { 200: 250, 429: 50 },
      { 200: 650, 429: 2_900 },
    ]);
    const refusals = all.filter((a) => a.status !== 200);
    expect(new Set(refusals.map((a) => [a.code, a.retryAfter].join(" ")))).toEqual(
      new Set(["too_many_streams 5"]),
    );
    expect(new Set(oneToken.filter((a) => a.status === 429).map((a) => a.message))).toEqual(
      new Set([
        "100 event streams are held for this token (OAH_MAX_STREAMS_PER_TOKEN): close one, or retry in 5 s",
      ]),
    );
    expect(new Set(oneAddress.filter((a) => a.status === 429).map((a) => a.message))).toEqual(
      new Set([
        "250 event streams are held from this address (OAH_MAX_STREAMS_PER_ADDRESS): close one, or retry in 5 s",
      ]),
    );
    expect(new Set(everyone.filter((a) => a.status === 429).map((a) => a.message))).toEqual(
      new Set(["1000 event streams are held in all (OAH_MAX_STREAMS): close one, or retry in 5 s"]),
    );
    expect(await streamsOpen()).toBe(1_000);

    // While they are held: the probe, and a submission by a token that holds 100 streams from an address that holds 100.
    const health = await timed(() => fetch(`${t.api.url}/healthz`));
    const submission = await timed(() =>
      fetch(`${t.api.url}/api/v1/sessions/another/runs`, {
        method: "POST",
        headers: { authorization: `Bearer ${submitter(0)}`, "content-type": "application/json" },
        body: JSON.stringify({ input: { steps: [] } }),
      }),
    );
    console.log(`while 1,000 streams are held: /healthz ${health.ms} ms, a submission ${submission.ms} ms`);
    expect(health.status).toBe(200);
    expect(health.ms).toBeLessThan(1_000);
    expect(submission.status).toBe(202);
    expect(submission.ms).toBeLessThan(1_000);

    // A stream that ends gives its slot back: the next one is let in.
    expect((await open(sessionStream, submitter(19), "127.0.0.10")).status).toBe(429);
    held.pop()?.close();
    await expect.poll(streamsOpen).toBe(999);
    const next = await open(sessionStream, submitter(19), "127.0.0.10");
    expect(next.status).toBe(200);
    held.push(next);
    for (const stream of held.splice(0)) stream.close();
    await expect.poll(streamsOpen, { timeout: 10_000 }).toBe(0);
  }, 120_000);
});
