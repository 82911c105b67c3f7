import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { safeNextPath } from "@/lib/next-path";
import { apiUrl, tokenRequired } from "@/lib/server-config";
import { SessionBounce } from "./SessionBounce";

export const metadata: Metadata = { title: "Sign in" };

const MESSAGES: Record<string, (api: string) => string> = {
  refused: () => "That token was refused. Check it and try again.",
  unreachable: (api) =>
    `The console cannot reach oah-api at ${api}. Start it, or point OAH_API_URL at it, then try again.`,
  expired: () => "oah-api no longer accepts your session's token. Sign in again.",
  role: () =>
    "That token is a client's (submitter): it submits and follows runs, and sees nothing of the console. Sign in with a viewer's, an operator's or an admin's token.",
  mismatch: () =>
    "oah-api refused the token although the console is configured with it: OAH_API_TOKEN differs between the console and the API.",
};

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const next = safeNextPath(one(params.next));
  if (!tokenRequired()) redirect(next);
  const error = one(params.error);
  const message = error ? MESSAGES[error]?.(apiUrl()) : undefined;

  return (
    <div className="sign-in">
      <form className="panel sign-in-card" method="post" action="/api/auth/sign-in">
        <h1>Sign in</h1>
        <p className="muted">
          This console talks to an oah-api that requires a token. Enter your API token (
          <code>OAH_API_TOKEN</code>, or yours of <code>OAH_API_TOKENS</code>); it is checked against the API
          and kept in an httpOnly cookie that page scripts cannot read. What you may do follows its role.
        </p>
        {message ? (
          <p className="notice notice-error" role="alert">
            {message}
          </p>
        ) : null}
        <input type="hidden" name="next" value={next} />
        <label htmlFor="token">API token</label>
        <input
          id="token"
          name="token"
          type="password"
          className="mono"
          autoComplete="current-password"
          required
          // biome-ignore lint/a11y/noAutofocus: the page's only purpose is this field
          autoFocus
        />
        <button type="submit" className="btn btn-primary">
          Sign in
        </button>
      </form>
      {error ? null : <SessionBounce next={next} />}
    </div>
  );
}
