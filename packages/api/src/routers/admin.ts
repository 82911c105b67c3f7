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
import { sessionsAdminProcedures } from "./sessions-admin";

export const adminRouter = router({
  ...bulkProcedures,
  ...sessionsAdminProcedures,

  runs: procedure
    .meta({ ability: "view" })
    .input(listStorageRunsInput)
    .query(({ ctx, input }) => ctx.service.listStorageRuns(input)),

  /** The store's counts, and the jammed sessions' of each kind (docs/spec.md §7). */
  overview: procedure.meta({ ability: "view" }).query(async ({ ctx }) => {
    const [overview, jams] = await Promise.all([ctx.service.overview(), ctx.jams.counts()]);
    return { ...overview, jams };
  }),

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
