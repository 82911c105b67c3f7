import {
  deadLettersInput,
  listAuditInput,
  listStorageRunsInput,
  modelUsageInput,
  requeueManyInput,
  requeueRunInput,
} from "@oah/contract";
import type { Actor } from "@oah/core";
import { procedure, router } from "../trpc";
import { bulkProcedures } from "./bulk";
import { streamSignal } from "./event-items";
import { sessionsAdminProcedures } from "./sessions-admin";

/** A requeue as the caller asks it: by the caller, with the name it gives as who asks beside. */
const requeueRequest = (
  actor: Actor,
  input: { requestedBy?: string; includeCancelled: boolean; fromStart: boolean },
) => ({
  by: actor.name,
  claimedBy: input.requestedBy,
  includeCancelled: input.includeCancelled,
  fromStart: input.fromStart,
});

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

  // Who asked is the caller's token; a name the call gives is kept beside it, never instead.
  requeue: procedure
    .meta({ ability: "operate", audit: "run.requeue" })
    .input(requeueRunInput)
    .mutation(({ ctx, input }) => ctx.service.requeue(input.runId, requeueRequest(ctx.actor, input))),

  requeueMany: procedure
    .meta({ ability: "operate", audit: "run.requeue_many" })
    .input(requeueManyInput)
    .mutation(async ({ ctx, input }) => ({
      items: await ctx.service.requeueMany(input.runIds, requeueRequest(ctx.actor, input)),
    })),

  /** The audit log of operator actions, newest first. */
  audit: procedure
    .meta({ ability: "view" })
    .input(listAuditInput)
    .query(({ ctx, input }) => ctx.audit.list(input)),

  /** The model calls and tokens of each hour, by workspace (docs/spec.md §4). */
  modelUsage: procedure
    .meta({ ability: "view" })
    .input(modelUsageInput)
    .query(({ ctx, input }) => ctx.service.modelUsage(input)),

  pool: procedure.meta({ ability: "view" }).query(({ ctx }) => ctx.fleet.poolOverview()),

  /** The sessions whose events were written, a few times a second at most: the console refetches its lists on each. */
  onChanges: procedure
    .meta({ ability: "view" })
    .subscription(({ ctx, signal }) => ctx.streams.changes(streamSignal(signal))),
});
