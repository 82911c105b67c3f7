import type { FetchLike } from "../src";

export interface SeenRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
}

/** A `fetch` that answers from `answer` and keeps every request it was given. */
export function fakeFetch(answer: (request: SeenRequest, init: RequestInit) => Response | Promise<Response>) {
  const seen: SeenRequest[] = [];
  const fetch: FetchLike = async (url, init) => {
    const request: SeenRequest = {
      method: init.method ?? "GET",
      url,
      headers: Object.fromEntries(new Headers(init.headers).entries()),
      body: typeof init.body === "string" ? JSON.parse(init.body) : init.body,
    };
    seen.push(request);
    return answer(request, init);
  };
  return { fetch, seen };
}

export const json = (status: number, body: unknown): Response =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });

export const RUN_ID = "run_01J0000000000000000000000A";

/** A run as the API gives it, with the fields a test cares about. */
export function runWith(fields: Record<string, unknown> = {}) {
  return {
    id: RUN_ID,
    sessionId: "s",
    seq: 1,
    status: "queued",
    ...fields,
  };
}
