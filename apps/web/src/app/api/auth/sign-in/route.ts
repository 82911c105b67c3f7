// The one value of a workspace package the console runs: pure, with no import of its own.
import { AttemptLimiter } from "@oah/core";
import { type NextRequest, NextResponse } from "next/server";
import { safeNextPath } from "@/lib/next-path";
import {
  CLIENT_ADDRESS_HEADER,
  matchesConfiguredToken,
  TOKEN_COOKIE,
  tokenRequired,
} from "@/lib/server-config";
import { crossSite, fetchUpstream, isFailure, readBodyWithin } from "@/lib/upstream";

export const dynamic = "force-dynamic";

/** Refused sign-ins of this console process, by client address (FAILED_AUTH_POLICY). */
const attempts = new AttemptLimiter();

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

  // Guessing is slowed per client address (the console's server tells it): past the burst, a try
  // is refused before its token is even compared.
  const client = request.headers.get(CLIENT_ADDRESS_HEADER) ?? "unknown";
  if (attempts.retryAfterMs(client) > 0) return back({ error: "slow", next });
  const token = String(form.get("token") ?? "").trim();
  if (token === "" || token.length > 4096 || /[\s;,]/.test(token) || !matchesConfiguredToken(token)) {
    attempts.failed(client);
    return back({ error: "refused", next });
  }

  const answer = await fetchUpstream("/trpc/admin.overview", {
    method: "GET",
    headers: { authorization: `Bearer ${token}`, accept: "application/json" },
    timeoutMs: 10_000,
  });
  if (isFailure(answer)) return back({ error: "unreachable", next });
  await answer.body?.cancel();
  // The console's token, refused by the API: the two are configured with different tokens.
  if (answer.status === 401) return back({ error: "mismatch", next });
  if (!answer.ok) return back({ error: "unreachable", next });

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
