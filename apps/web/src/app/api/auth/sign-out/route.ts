import { type NextRequest, NextResponse } from "next/server";
import { TOKEN_COOKIE } from "@/lib/server-config";
import { crossSite } from "@/lib/upstream";

export const dynamic = "force-dynamic";

export function POST(request: NextRequest): Response {
  if (crossSite(request)) return new Response("requests from other sites are refused", { status: 403 });
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
