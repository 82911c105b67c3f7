import { bulkActionInput, bulkJobRefInput, listBulkJobItemsInput, listBulkJobsInput } from "@oah/contract";
import { procedure } from "../trpc";

/** Bulk actions by filter (docs/spec.md §9), the procedures of the admin router. */
export const bulkProcedures = {
  /** A dry run (what it would do, run by run) or the start of a job that does it. */
  bulkAction: procedure
    .meta({
      ability: "operate",
      audit: (input) =>
        (input as { dryRun?: unknown } | undefined)?.dryRun === true ? "bulk.dry_run" : "bulk.start",
      auditTarget: (result: { job?: { id: string } }) => result.job?.id ?? null,
    })
    .input(bulkActionInput)
    .mutation(async ({ ctx, input }) =>
      input.dryRun ? ctx.bulk.dryRun(input) : { job: await ctx.bulk.start(input, ctx.actor.name) },
    ),

  bulkActions: procedure
    .meta({ ability: "view" })
    .input(listBulkJobsInput)
    .query(async ({ ctx, input }) => ({ items: await ctx.bulk.list(input.limit) })),

  bulkActionGet: procedure
    .meta({ ability: "view" })
    .input(bulkJobRefInput)
    .query(({ ctx, input }) => ctx.bulk.get(input.id)),

  bulkActionItems: procedure
    .meta({ ability: "view" })
    .input(listBulkJobItemsInput)
    .query(({ ctx, input }) => ctx.bulk.items(input)),

  bulkActionAbort: procedure
    .meta({ ability: "operate", audit: "bulk.abort" })
    .input(bulkJobRefInput)
    .mutation(({ ctx, input }) => ctx.bulk.abort(input.id)),
};
