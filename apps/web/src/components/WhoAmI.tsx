"use client";

import { useActor } from "@/lib/actor";

/** The signed-in token's name and role, beside Sign out. */
export function WhoAmI() {
  const actor = useActor();
  if (!actor) return null;
  return (
    <span className="muted small" data-testid="whoami">
      {actor.name} · {actor.role}
    </span>
  );
}
