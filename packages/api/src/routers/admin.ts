import { listStorageRunsInput, requeueManyInput, requeueRunInput } from "@oah/contract";
import { procedure, router } from "../trpc";
import { streamSignal } from "./event-items";

export const adminRouter = router({
  runs: procedure
    .meta({ ability: "view" })
    .input(listStorageRunsInput)
    .query(({ ctx, input }) => ctx.service.listStorageRuns(input)),

  overview: procedure.meta({ ability: "view" }).query(({ ctx }) => ctx.service.overview()),

  requeue: procedure
    .meta({ ability: "operate" })
    .input(requeueRunInput)
    .mutation(({ ctx, input }) => ctx.service.requeue(input.runId, input)),

  requeueMany: procedure
    .meta({ ability: "operate" })
    .input(requeueManyInput)
    .mutation(async ({ ctx, input }) => ({
      items: await ctx.service.requeueMany(input.runIds, input),
    })),

  pool: procedure.meta({ ability: "view" }).query(({ ctx }) => ctx.fleet.poolOverview()),

  /** The sessions whose events were written, a few times a second at most: the console refetches its lists on each. */
  onChanges: procedure
    .meta({ ability: "view" })
    .subscription(({ ctx, signal }) => ctx.streams.changes(streamSignal(signal))),
});
