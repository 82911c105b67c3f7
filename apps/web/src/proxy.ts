import { type NextRequest, NextResponse } from "next/server";
import { TOKEN_COOKIE, tokenRequired } from "@/lib/server-config";

/**
 * With a token configured, page visits without a session go to the sign-in page (API routes answer
 * 401 by themselves). Only the cookie's presence is checked here: oah-api judges the token itself.
 */
export function proxy(request: NextRequest) {
  if (!tokenRequired() || request.cookies.get(TOKEN_COOKIE)?.value) return NextResponse.next();
  const { pathname, search } = request.nextUrl;
  const path =
    pathname === "/" ? "/sign-in" : `/sign-in?${new URLSearchParams({ next: `${pathname}${search}` })}`;
  // On the host the browser came through, where its cookie lives (Next.js may call itself localhost).
  const host = request.headers.get("host") ?? request.nextUrl.host;
  return NextResponse.redirect(new URL(path, `${request.nextUrl.protocol}//${host}`), 307);
}

export const config = {
  matcher: ["/((?!api/|_next/|sign-in|favicon\\.ico|icon\\.svg|robots\\.txt).*)"],
};
