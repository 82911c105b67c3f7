import type { NextRequest } from "next/server";
import { tokenRequired } from "@/lib/server-config";
import { sessionToken } from "@/lib/upstream";

export const dynamic = "force-dynamic";

/** Whether this browser holds a session: lets the sign-in page move on when the cookie was there all along. */
export function GET(request: NextRequest): Response {
  const required = tokenRequired();
  return Response.json(
    { required, signedIn: !required || sessionToken(request) !== undefined },
    { headers: { "cache-control": "no-store" } },
  );
}
