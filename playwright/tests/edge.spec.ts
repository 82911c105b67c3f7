import { randomBytes } from "node:crypto";
import { type ClientRequest, request } from "node:http";
import { type OahProcess, startOah } from "@oah/testing";
import { expect, test } from "../fixtures";
import { type ConsoleProcess, startConsole } from "../support/console";

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request on a connection of its own from `from` (an address of 127.0.0.0/8), read whole. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string; from?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: options.method ?? "GET", headers: options.headers, agent: false, localAddress: options.from },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

/** A stream asked for as an EventSource would: resolves at its answer's headers, held open while it streams. */
function openStream(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; text: Promise<string>; close(): void }> {
  return new Promise((resolve, reject) => {
    let req: ClientRequest | undefined;
    req = request(url, { headers, agent: false }, (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      const ended = new Promise<string>((done) =>
        res.on("end", () => done(text)).on("close", () => done(text)),
      );
      resolve({ status: res.statusCode ?? 0, text: ended, close: () => req?.destroy() });
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * An oah-api with named tokens on the shared deployment, and a console that knows tokens are
 * required: what one attacker's sign-ins and streams through the console leave to the others.
 */
test.describe("the console's edge: nobody locks or starves the others out", () => {
  const secret = () => `e2e-${randomBytes(16).toString("hex")}`;
  const tokens = {
    // Names of their own: the audit log of the shared store keeps every sign-in.
    vera: { name: "edge-vera", token: secret(), role: "viewer" },
    wendy: { name: "edge-wendy", token: secret(), role: "viewer" },
    ci: { name: "edge-ci", token: secret(), role: "submitter" },
  };
  const env = { OAH_API_TOKENS: JSON.stringify(Object.values(tokens)) };
  let api: OahProcess;
  let web: ConsoleProcess;

  test.beforeEach(async ({ state }) => {
    // A pair of its own for each test: what one test spends (sign-in budgets, streams) is not the next one's.
    api = await startOah("oah-api", { env: { ...state.env, ...env }, args: ["--api-only"] });
    web = await startConsole({ OAH_API_URL: api.url, ...env });
  });
  test.afterEach(async () => {
    await web?.stop();
    await api?.stop();
  });

  /** Signs in through the console's form from `from`: the session cookie, or null with the answer. */
  async function signIn(
    token: string,
    from = "127.0.0.1",
  ): Promise<{ answer: Answer; cookie: string | null }> {
    const answer = await send(`${web.url}/api/auth/sign-in`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token, next: "/storage" }).toString(),
      from,
    });
    const set = ([] as string[]).concat(answer.headers["set-cookie"] ?? []);
    const cookie = set.map((c) => c.split(";")[0]!).find((c) => c.startsWith("oah_console_token=")) ?? null;
    return { answer, cookie };
  }

  const overviewThroughConsole = (cookie: string) =>
    send(`${web.url}/api/trpc/admin.overview`, { headers: { cookie } });

  test("400 wrong sign-ins through the console lock nobody out: a signed-in viewer, a client with a valid token and a new sign-in are answered, the attacker gets 429", async () => {
    const vera = await signIn(tokens.vera.token);
    expect(vera.answer.status).toBe(303);
    expect(vera.cookie).not.toBeNull();

    const wrong = (n: string) => `${tokens.vera.token.slice(0, -4)}${n}`;
    const refusedOnce = (a: Answer) => a.status === 303 && /error=refused/.test(String(a.headers.location));
    const ownLimit = (a: Answer) => a.status === 429 && /from this address: retry in \d+ s\./.test(a.text);
    const apiLimit = (a: Answer) => a.status === 429 && /too many wrong tokens are being tried/.test(a.text);

    // 400 from one address: the console refuses its first 10 with the form, the rest with 429
    // itself (one try comes back every 6 s), none of those reaching oah-api.
    const started = Date.now();
    const one: Answer[] = [];
    for (let i = 0; i < 400; i++) one.push((await signIn(wrong(`a${i}`), "127.0.0.2")).answer);
    const comeBack = Math.ceil((Date.now() - started) / 6_000);
    expect(one.slice(0, 10).every(refusedOnce)).toBe(true);
    expect(one.slice(10).filter(ownLimit).length).toBeGreaterThanOrEqual(390 - comeBack);
    expect(one.filter((a) => !refusedOnce(a) && !ownLimit(a))).toEqual([]);
    const slowed = one.find(ownLimit)!;
    expect(Number(slowed.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(slowed.headers["retry-after"])).toBeLessThanOrEqual(6);
    expect(slowed.text).toContain('href="/sign-in?next=%2Fstorage"');

    // 15 from each of 20 more addresses at once: their first 10 reach oah-api, whose guessing
    // budget (100 wrong tokens, then 10 a second) refuses the rest, answered 429 by the console too.
    const many = (
      await Promise.all(
        Array.from({ length: 20 }, async (_, a) => {
          const answers: Answer[] = [];
          for (let i = 0; i < 15; i++)
            answers.push((await signIn(wrong(`${a}-${i}`), `127.0.0.${3 + a}`)).answer);
          return answers;
        }),
      )
    ).flat();
    expect(many.filter(apiLimit).length).toBeGreaterThan(50);
    expect(many.filter((a) => !refusedOnce(a) && !ownLimit(a) && !apiLimit(a))).toEqual([]);
    // Nobody signed in.
    expect([...one, ...many].filter((a) => a.headers["set-cookie"])).toEqual([]);

    // The signed-in viewer, through the console, call after call.
    const calls = await Promise.all(Array.from({ length: 20 }, () => overviewThroughConsole(vera.cookie!)));
    expect(calls.map((c) => c.status)).toEqual(Array(20).fill(200));
    // A client with a valid token, straight to oah-api from 127.0.0.1.
    const client = await send(`${api.url}/api/v1/sessions/edge/runs`, {
      headers: { authorization: `Bearer ${tokens.ci.token}` },
    });
    expect(client.status).toBe(200);
    // Another operator signs in, now, with oah-api's guessing budget spent.
    const wendy = await signIn(tokens.wendy.token);
    expect([wendy.answer.status, wendy.answer.headers.location]).toEqual([303, "/storage"]);
    expect((await overviewThroughConsole(wendy.cookie!)).status).toBe(200);
  });

  test("520 live streams of one viewer through the console: past its share 429 too_many_streams, and the other viewer and oah-api's loopback clients are answered", async () => {
    const vera = (await signIn(tokens.vera.token)).cookie!;
    const wendy = (await signIn(tokens.wendy.token)).cookie!;
    const onChanges = `${web.url}/api/trpc/admin.onChanges`;
    const streams = [];
    for (let i = 0; i < 520; i += 52) {
      streams.push(
        ...(await Promise.all(
          Array.from({ length: 52 }, () =>
            openStream(onChanges, { cookie: vera, accept: "text/event-stream" }),
          ),
        )),
      );
    }
    try {
      const held = streams.filter((s) => s.status === 200);
      const refused = streams.filter((s) => s.status !== 200);
      expect([held.length, refused.length]).toEqual([10, 510]);
      expect(new Set(refused.map((s) => s.status))).toEqual(new Set([429]));
      const body = JSON.parse(await refused[0]!.text) as { error: { data: { errorCode: string } } };
      expect(body.error.data.errorCode).toBe("too_many_streams");
      // Not asked for as a stream, a subscription is counted all the same.
      expect((await send(onChanges, { headers: { cookie: vera } })).status).toBe(429);

      // The other viewer: her calls, and a live stream of her own.
      const calls = await Promise.all(Array.from({ length: 20 }, () => overviewThroughConsole(wendy)));
      expect(calls.map((c) => c.status)).toEqual(Array(20).fill(200));
      const hers = await openStream(onChanges, { cookie: wendy, accept: "text/event-stream" });
      expect(hers.status).toBe(200);
      hers.close();
      // oah-api still serves its loopback clients.
      const client = await send(`${api.url}/api/v1/sessions/edge/runs`, {
        headers: { authorization: `Bearer ${tokens.ci.token}` },
      });
      expect(client.status).toBe(200);
      expect((await send(`${api.url}/healthz`, {})).status).toBe(200);

      // A stream given up gives its place back.
      held[0]!.close();
      await expect
        .poll(async () => {
          const next = await openStream(onChanges, { cookie: vera, accept: "text/event-stream" });
          if (next.status === 200) streams.push(next);
          return next.status;
        })
        .toBe(200);
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});
