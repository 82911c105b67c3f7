// The one workspace package whose values the console runs: pure, with no import of its own.
import { type Actor, AttemptLimiter, may } from "@oah/core";
import { type NextRequest, NextResponse } from "next/server";
import { safeNextPath } from "@/lib/next-path";
import {
  CLIENT_ADDRESS_HEADER,
  knowsTheToken,
  matchesConfiguredToken,
  TOKEN_COOKIE,
  tokenRequired,
} from "@/lib/server-config";
import { crossSite, fetchUpstream, isFailure, readBodyWithin } from "@/lib/upstream";

export const dynamic = "force-dynamic";

/**
 * Refused sign-ins of this console process, by the browser's address (FAILED_AUTH_POLICY): the
 * console's server gives the connection's own address, never one a client or proxy claims.
 */
const attempts = new AttemptLimiter();

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/**
 * A sign-in refused for now (429, `Retry-After`): a page of its own that says why and when to come
 * back, and leads back to the form. The form posts without scripts, so the answer is the page.
 */
function tooManyAttempts(why: string, seconds: number, next: string): Response {
  const back = escapeHtml(`/sign-in?${new URLSearchParams({ next })}`);
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Too many attempts</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5}</style>
</head><body><main><h1>Too many attempts</h1>
<p role="alert">${escapeHtml(why)}: retry in ${seconds} s.</p>
<p><a href="${back}">Back to sign-in</a></p></main></body></html>
`;
  return new Response(html, {
    status: 429,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-store",
      "retry-after": String(seconds),
    },
  });
}

/**
 * A redirect by path alone: the browser stays on the host it used (Next.js may see itself as
 * `localhost` while the browser came through 127.0.0.1, and the cookie belongs to the latter).
 */
function seeOther(location: string): NextResponse {
  return new NextResponse(null, { status: 303, headers: { location, "cache-control": "no-store" } });
}

function back(params: Record<string, string>): NextResponse {
  return seeOther(`/sign-in?${new URLSearchParams(params)}`);
}

/**
 * The sign-in form posts here. The token must be the console's own OAH_API_TOKEN and oah-api must
 * accept it; only then is it kept, in an httpOnly, SameSite=strict cookie that page scripts cannot read.
 */
export async function POST(request: NextRequest): Promise<Response> {
  if (crossSite(request)) return new Response("requests from other sites are refused", { status: 403 });
  // A sign-in form is a few hundred bytes: nothing larger is read.
  const text = await readBodyWithin(request, 16_384);
  if (text === null) return new Response("the sign-in form is too large\n", { status: 413 });
  const form = new URLSearchParams(text);
  const next = safeNextPath(String(form.get("next") ?? ""));
  if (!tokenRequired()) return seeOther(next);

  // Guessing is slowed per browser address (the console's server tells it): past the burst, a try
  // is refused before its token is even compared, and that refusal is no failure of its own.
  const client = request.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown";
  const wait = attempts.retryAfterMs(client);
  if (wait > 0) {
    return tooManyAttempts("Too many refused sign-ins from this address", Math.ceil(wait / 1000), next);
  }
  const token = String(form.get("token") ?? "").trim();
  const known = knowsTheToken();
  if (
    token === "" ||
    token.length > 4096 ||
    /[\s;,]/.test(token) ||
    (known && !matchesConfiguredToken(token))
  ) {
    attempts.failed(client);
    return back({ error: "refused", next });
  }

  // Recorded in the audit log under the token's name.
  const answer = await fetchUpstream("/trpc/auth.signIn", {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json",
    },
    body: "{}",
    timeoutMs: 10_000,
  });
  if (isFailure(answer)) return back({ error: "unreachable", next });
  if (answer.status === 429) {
    // oah-api refuses wrong tokens for now, whoever tries them (it never refuses a valid one): a
    // refusal, counted as no failure of this browser's.
    await answer.body?.cancel();
    const seconds = Math.max(1, Number(answer.headers.get("retry-after")) || 1);
    return tooManyAttempts(
      "That token was refused, and too many wrong tokens are being tried",
      seconds,
      next,
    );
  }
  if (answer.status === 401) {
    await answer.body?.cancel();
    // The console's own token refused by the API: the two are configured with different tokens.
    if (known) return back({ error: "mismatch", next });
    attempts.failed(client);
    return back({ error: "refused", next });
  }
  if (!answer.ok) {
    await answer.body?.cancel();
    return back({ error: "unreachable", next });
  }
  const { actor } = ((await answer.json()) as { result: { data: { actor: Actor } } }).result.data;
  // A client's token (submitter) opens no view of the console.
  if (!may(actor.role, "view")) return back({ error: "role", next });

  const response = seeOther(next);
  const secure =
    request.nextUrl.protocol === "https:" || request.headers.get("x-forwarded-proto") === "https";
  response.cookies.set({
    name: TOKEN_COOKIE,
    value: token,
    httpOnly: true,
    sameSite: "strict",
    secure,
    path: "/",
    maxAge: 12 * 60 * 60,
  });
  return response;
}
