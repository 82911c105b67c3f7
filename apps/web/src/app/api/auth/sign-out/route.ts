import { type NextRequest, NextResponse } from "next/server";
import { TOKEN_COOKIE } from "@/lib/server-config";
import { crossSite, fetchUpstream, isFailure, sessionToken } from "@/lib/upstream";

export const dynamic = "force-dynamic";

export async function POST(request: NextRequest): Promise<Response> {
  if (crossSite(request)) return new Response("requests from other sites are refused", { status: 403 });
  const token = sessionToken(request);
  if (token) {
    // Recorded in the audit log; the sign-out happens whatever the API answers.
    const answer = await fetchUpstream("/trpc/auth.signOut", {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: "{}",
      timeoutMs: 5_000,
    });
    if (!isFailure(answer)) await answer.body?.cancel();
  }
  // By path: the browser stays on the host it came through.
  const response = new NextResponse(null, { status: 303, headers: { location: "/sign-in" } });
  response.cookies.set({
    name: TOKEN_COOKIE,
    value: "",
    httpOnly: true,
    sameSite: "strict",
    path: "/",
    maxAge: 0,
  });
  return response;
}
