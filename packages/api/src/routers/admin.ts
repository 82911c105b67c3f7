import {
  deadLettersInput,
  listAuditInput,
  listStorageRunsInput,
  requeueManyInput,
  requeueRunInput,
} from "@oah/contract";
import { procedure, router } from "../trpc";
import { bulkProcedures } from "./bulk";
import { streamSignal } from "./event-items";

export const adminRouter = router({
  ...bulkProcedures,

  runs: procedure
    .meta({ ability: "view" })
    .input(listStorageRunsInput)
    .query(({ ctx, input }) => ctx.service.listStorageRuns(input)),

  overview: procedure.meta({ ability: "view" }).query(({ ctx }) => ctx.service.overview()),

  /** Quarantined runs by reason × error code × workspace: a group is requeued by a bulk action of its filter. */
  deadLetters: procedure
    .meta({ ability: "view" })
    .input(deadLettersInput)
    .query(({ ctx, input }) => ctx.service.deadLetters(input)),

  // Who asked is the caller's token, unless the call names someone.
  requeue: procedure
    .meta({ ability: "operate", audit: "run.requeue" })
    .input(requeueRunInput)
    .mutation(({ ctx, input }) =>
      ctx.service.requeue(input.runId, { ...input, requestedBy: input.requestedBy ?? ctx.actor.name }),
    ),

  requeueMany: procedure
    .meta({ ability: "operate", audit: "run.requeue_many" })
    .input(requeueManyInput)
    .mutation(async ({ ctx, input }) => ({
      items: await ctx.service.requeueMany(input.runIds, {
        ...input,
        requestedBy: input.requestedBy ?? ctx.actor.name,
      }),
    })),

  /** The audit log of operator actions, newest first. */
  audit: procedure
    .meta({ ability: "view" })
    .input(listAuditInput)
    .query(({ ctx, input }) => ctx.audit.list(input)),

  pool: procedure.meta({ ability: "view" }).query(({ ctx }) => ctx.fleet.poolOverview()),

  /** The sessions whose events were written, a few times a second at most: the console refetches its lists on each. */
  onChanges: procedure
    .meta({ ability: "view" })
    .subscription(({ ctx, signal }) => ctx.streams.changes(streamSignal(signal))),
});
