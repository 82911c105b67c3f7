import type { IncomingHttpHeaders } from "node:http";

/** The host name of a Host header, without its port: `127.0.0.1:8787` → `127.0.0.1`, `[::1]:80` → `::1`. */
export function hostNameOf(host: string): string {
  const bracketed = /^\[([^\]]*)\](?::\d*)?$/.exec(host);
  if (bracketed) return bracketed[1]!.toLowerCase();
  return host.replace(/:\d*$/, "").toLowerCase();
}

const isLoopbackName = (name: string): boolean =>
  name === "localhost" || name === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);

const header = (headers: IncomingHttpHeaders, name: string): string | undefined => {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/**
 * Why a request must not reach an API that has no token, or null when it may. Without
 * a token the API is for the programs of this machine (it listens on loopback only):
 * a request must be addressed to a loopback name (a page that rebinds its own name to
 * 127.0.0.1 still sends that name as `Host`), and must not come from a page of any
 * site: `Sec-Fetch-Site` says so where the browser sends it (every current one; it is
 * `same-origin` or `none` for the API's own), else `Origin`, which browsers send with
 * every POST, `no-cors` and `sendBeacon` included (a page with `no-referrer` sends
 * `null`, so it decides only without the first). Programs send neither header. CORS
 * stays closed.
 */
export function originRefusal(headers: IncomingHttpHeaders): string | null {
  const host = header(headers, "host");
  if (!host || !isLoopbackName(hostNameOf(host))) {
    return "without OAH_API_TOKEN this API answers requests addressed to a loopback name only";
  }
  const site = header(headers, "sec-fetch-site");
  if (site !== undefined) {
    if (site === "same-origin" || site === "none") return null;
    return "requests from web pages are refused (set OAH_API_TOKEN to call the API from elsewhere)";
  }
  const origin = header(headers, "origin");
  if (origin !== undefined) {
    let same = false;
    try {
      same = new URL(origin).host === host.toLowerCase();
    } catch {
      // "null" (a sandboxed frame, a file) and anything else unparseable: another origin
    }
    if (!same) return `requests from web pages are refused (Origin ${origin})`;
  }
  return null;
}

/**
 * Whether a request carries a body that is not declared `application/json`: refused
 * (415) whatever the declaration, its absence included, since a body without one is
 * what a page of another site can send without asking (`no-cors`, `sendBeacon`).
 */
export function bodyIsNotJson(headers: IncomingHttpHeaders): boolean {
  const length = header(headers, "content-length");
  const hasBody =
    header(headers, "transfer-encoding") !== undefined || (length !== undefined && length !== "0");
  return hasBody && !/^application\/json\s*(;|$)/i.test(header(headers, "content-type") ?? "");
}
