import {
  type CancelQueuedResult,
  cancelQueuedInput,
  inspectSessionInput,
  type JamRepair,
  repairJamsInput,
  type SessionInspection,
} from "@oah/contract";
import { type Actor, may } from "@oah/core";
import { procedure } from "../trpc";

/**
 * The lock's fencing token is for those who may repair (docs/spec.md §9): a viewer sees who
 * holds the lock, never the token that its holder's writes are fenced by.
 */
export function shownTo(actor: Actor, inspection: SessionInspection): SessionInspection {
  if (!inspection.lock || may(actor.role, "operate")) return inspection;
  const { token: _token, ...lock } = inspection.lock;
  return { ...inspection, lock };
}

/** The session inspector and jammed sessions (docs/spec.md §9, §7), the procedures of the admin router. */
export const sessionsAdminProcedures = {
  inspectSession: procedure
    .meta({ ability: "view" })
    .input(inspectSessionInput)
    .query(async ({ ctx, input }) => shownTo(ctx.actor, await ctx.sessions.inspect(input.sessionId))),

  cancelQueued: procedure
    .meta({
      ability: "operate",
      audit: "session.cancel_queued",
      auditFigures: (result: CancelQueuedResult) => ({ cancelled: result.cancelled.length }),
    })
    .input(cancelQueuedInput)
    .mutation(({ ctx, input }) => ctx.sessions.cancelQueued(input.sessionId, input.fromPosition)),

  jams: procedure.meta({ ability: "view" }).query(({ ctx }) => ctx.jams.report()),

  repairJams: procedure
    .meta({
      ability: "operate",
      audit: "jam.repair",
      auditFigures: ({ repaired, skipped }: JamRepair) => ({ repaired, skipped }),
    })
    .input(repairJamsInput)
    .mutation(({ ctx, input }) => ctx.jams.repair(input.kind, input.sessionIds)),
};
