import { listStorageRunsInput, requeueManyInput, requeueRunInput } from "@oah/contract";
import { procedure, router } from "../trpc";

export const adminRouter = router({
  runs: procedure.input(listStorageRunsInput).query(({ ctx, input }) => ctx.engine.listStorageRuns(input)),

  overview: procedure.query(({ ctx }) => ctx.engine.overview()),

  requeue: procedure
    .input(requeueRunInput)
    .mutation(({ ctx, input }) => ctx.engine.requeue(input.runId, input)),

  requeueMany: procedure.input(requeueManyInput).mutation(async ({ ctx, input }) => ({
    items: await ctx.engine.requeueMany(input.runIds, input),
  })),

  pool: procedure.query(({ ctx }) => ctx.engine.poolOverview()),
});
