"use client";

import { useEffect } from "react";

/**
 * A link from another site arrives without the SameSite=strict cookie, so it lands here even when
 * signed in; from this page the cookie is sent again, and an existing session moves on at once.
 */
export function SessionBounce({ next }: { next: string }) {
  useEffect(() => {
    let stop = false;
    fetch("/api/auth/session", { cache: "no-store" })
      .then((res) => (res.ok ? res.json() : null))
      .then((body: { signedIn?: boolean } | null) => {
        if (!stop && body?.signedIn) window.location.replace(next);
      })
      .catch(() => {});
    return () => {
      stop = true;
    };
  }, [next]);
  return null;
}
