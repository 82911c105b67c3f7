import type { Metadata, Viewport } from "next";
import Link from "next/link";
import { connection } from "next/server";
import type { ReactNode } from "react";
import { CommandsBanner } from "@/components/CommandsBanner";
import { WhoAmI } from "@/components/WhoAmI";
import { tokenRequired } from "@/lib/server-config";
import { Providers } from "./providers";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "oah console", template: "%s · oah console" },
  description: "Runs, recovery and the worker pool of oah",
};

export const viewport: Viewport = { width: "device-width", initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Rendered per request: whether a sign-in is needed is read from the environment at run time.
  await connection();
  const signedInMode = tokenRequired();
  return (
    <html lang="en">
      <body>
        <Providers>
          <a className="skip-link" href="#main">
            Skip to content
          </a>
          <header className="topbar">
            <Link href="/storage" className="brand">
              <span className="brand-mark" aria-hidden="true">
                ◆
              </span>{" "}
              oah <span className="muted">console</span>
            </Link>
            <nav aria-label="Main" className="topnav">
              <Link href="/storage">Storage</Link>
              <Link href="/storage#pool">Pool</Link>
              <Link href="/workspaces">Workspaces</Link>
              <Link href="/dead-letters">Dead letters</Link>
              <Link href="/bulk-actions">Bulk actions</Link>
              <Link href="/health">Health</Link>
              <Link href="/audit">Audit</Link>
            </nav>
            <div className="spacer" />
            {signedInMode ? <WhoAmI /> : null}
            {signedInMode ? (
              <form method="post" action="/api/auth/sign-out">
                <button type="submit" className="btn btn-small btn-ghost">
                  Sign out
                </button>
              </form>
            ) : null}
          </header>
          <main id="main">
            <CommandsBanner />
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}
