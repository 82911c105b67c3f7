"use client";

import { type Ability, type Actor, may } from "@oah/core";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "./trpc";

/** Who uses the console: the signed-in token's name and role (the local admin without tokens). */
export function useActor(): Actor | null {
  const trpc = useTRPC();
  const whoami = useQuery(trpc.auth.whoami.queryOptions(undefined, { staleTime: Number.POSITIVE_INFINITY }));
  return whoami.data?.actor ?? null;
}

/** Whether the one using the console may do this: false until known, so that no action shows to one who may not. */
export function useMay(ability: Ability): boolean {
  const actor = useActor();
  return actor !== null && may(actor.role, ability);
}
