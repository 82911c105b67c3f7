import { errorFromAnswer, OahApiError, OahNetworkError, parseBody } from "./errors";

/** The `fetch` the client calls: the global one, or one of the caller's (a test's fake, a wrapped one). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** A query parameter: a list is sent as one comma-separated value, as the API's filters read it. */
export type QueryValue = string | number | readonly string[] | undefined;

/** A value as one segment of a request's path: a session id may hold `/`, `:` or `?`. */
export const seg = encodeURIComponent;

export interface RequestParts {
  query?: Record<string, QueryValue>;
  /** A JSON body; every POST sends one (`{}` when it has nothing to say). */
  body?: unknown;
  signal?: AbortSignal;
}

export interface ClientOptions {
  /**
   * Where the API is, e.g. `http://127.0.0.1:8787`; a path prefix is kept (`https://host/oah`),
   * and in a browser a relative address is taken from the page's (`/oah`).
   */
  baseUrl: string | URL;
  /** The API's `OAH_API_TOKEN`, sent as `Authorization: Bearer <token>`. */
  token?: string;
  fetch?: FetchLike;
}

export type Request = <T>(method: "GET" | "POST", path: string, parts?: RequestParts) => Promise<T>;

export interface Transport {
  /** The API's address, with its path and without a trailing slash. */
  base: string;
  fetch: FetchLike;
  auth: Record<string, string>;
  request: Request;
}

/** One JSON request and its answer: every refusal an `OahApiError`, every failure to reach the API an `OahNetworkError`. */
export function createTransport(options: ClientOptions): Transport {
  // Validates the address now; the base keeps its path, without a trailing slash. A relative
  // one (`/oah`) is resolved against the page's address in a browser.
  const page = (globalThis as { location?: { href?: string } }).location?.href;
  const base = new URL(options.baseUrl, page).href.replace(/\/+$/, "");
  // The global fetch is looked up at each call, and called as a plain function (a browser's
  // fetch refuses another `this`).
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const auth: Record<string, string> = options.token ? { authorization: `Bearer ${options.token}` } : {};

  async function request<T>(method: "GET" | "POST", path: string, parts: RequestParts = {}): Promise<T> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(parts.query ?? {})) {
      if (value !== undefined) search.set(name, Array.isArray(value) ? value.join(",") : String(value));
    }
    const query = search.toString();
    const url = `${base}${path}${query ? `?${query}` : ""}`;
    const body = method === "POST" ? JSON.stringify(parts.body ?? {}) : undefined;
    let status: number;
    let text: string;
    try {
      const response = await fetchImpl(url, {
        method,
        headers: {
          accept: "application/json",
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...auth,
        },
        body,
        signal: parts.signal,
      });
      status = response.status;
      text = await response.text();
    } catch (cause) {
      if (parts.signal?.aborted) throw parts.signal.reason;
      throw new OahNetworkError(method, url, cause);
    }
    if (status < 200 || status > 299) throw errorFromAnswer(status, text, { method, url });
    const parsed = parseBody(text);
    if (!parsed.json) {
      throw new OahApiError({
        code: "internal_error",
        status,
        message: `the API answered ${status} with a body that is not JSON`,
        body: text,
        method,
        url,
      });
    }
    return parsed.value as T;
  }

  return { base, fetch: fetchImpl, auth, request };
}
