import {
  type CancelQueuedResult,
  cancelQueuedInput,
  inspectSessionInput,
  type JamRepair,
  repairJamsInput,
} from "@oah/contract";
import { procedure } from "../trpc";

/** The session inspector and jammed sessions (docs/spec.md §9, §7), the procedures of the admin router. */
export const sessionsAdminProcedures = {
  inspectSession: procedure
    .meta({ ability: "view" })
    .input(inspectSessionInput)
    .query(({ ctx, input }) => ctx.sessions.inspect(input.sessionId)),

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
