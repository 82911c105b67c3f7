import {
  forkRunInput,
  listRunEventsInput,
  listSessionRunsInput,
  postMessageInput,
  runEventsStreamInput,
  runRefInput,
  submitManyInput,
  submitRunInput,
  submitToolResultInput,
} from "@oah/contract";
import { procedure, router } from "../trpc";
import { streamSignal, trackedItems } from "./event-items";

export const runsRouter = router({
  submit: procedure
    .meta({ ability: "submit" })
    .input(submitRunInput)
    .mutation(({ ctx, input }) => ctx.service.submit(input)),

  /** Up to 1,000 runs across sessions, validated whole, written together (docs/spec.md §12). */
  submitMany: procedure
    .meta({ ability: "submit" })
    .input(submitManyInput)
    .mutation(({ ctx, input }) => ctx.service.submitMany(input)),

  get: procedure
    .meta({ ability: "readRuns" })
    .input(runRefInput)
    .query(async ({ ctx, input }) => ({ run: await ctx.service.getRun(input.runId) })),

  listBySession: procedure
    .meta({ ability: "readRuns" })
    .input(listSessionRunsInput)
    .query(async ({ ctx, input }) => {
      const items = await ctx.service.listSessionRuns(input.sessionId, input);
      const last = items[items.length - 1];
      return { items, nextCursor: items.length === input.limit && last ? last.seq : null };
    }),

  events: procedure
    .meta({ ability: "readRuns" })
    .input(listRunEventsInput)
    .query(async ({ ctx, input }) => {
      const items = await ctx.service.listRunEvents(input.runId, input);
      const last = items[items.length - 1];
      return { items, nextCursor: items.length === input.limit && last ? last.id : null };
    }),

  /** The run's events as they are committed (and live ones), ending after its terminal event. */
  onEvents: procedure
    .meta({ ability: "readRuns" })
    .input(runEventsStreamInput)
    .subscription(async ({ ctx, input, signal }) =>
      trackedItems(
        await ctx.streams.openRun(input.runId, input.lastEventId ?? input.after, streamSignal(signal)),
      ),
    ),

  steps: procedure
    .meta({ ability: "readRuns" })
    .input(runRefInput)
    .query(async ({ ctx, input }) => ({ items: await ctx.service.listRunSteps(input.runId) })),

  /** The run's checkpoints (docs/spec.md §7): after which step, by which attempt. */
  checkpoints: procedure
    .meta({ ability: "readRuns" })
    .input(runRefInput)
    .query(async ({ ctx, input }) => ({ items: await ctx.service.listCheckpoints(input.runId) })),

  /** Runs the run again from one of its steps: a new run of its session, from the checkpoint before it. */
  fork: procedure
    .meta({ ability: "fork", audit: "run.fork" })
    .input(forkRunInput)
    .mutation(({ ctx, input }) => ctx.service.fork(input.runId, input.fromStep)),

  /** A message the run's agent takes into its conversation before its next model call (docs/spec.md §5). */
  message: procedure
    .meta({ ability: "submit", audit: "run.message" })
    .input(postMessageInput)
    .mutation(({ ctx, input }) => ctx.service.message(input.runId, input.content)),

  cancel: procedure
    .meta({ ability: "cancel", audit: "run.cancel" })
    .input(runRefInput)
    .mutation(({ ctx, input }) => ctx.service.cancel(input.runId)),

  /** Stops the run at its next step boundary, as a later submission's interrupt does, for no run. */
  interrupt: procedure
    .meta({ ability: "cancel", audit: "run.interrupt" })
    .input(runRefInput)
    .mutation(({ ctx, input }) => ctx.service.interrupt(input.runId)),

  submitToolResult: procedure
    .meta({ ability: "submit", audit: "run.tool_result" })
    .input(submitToolResultInput)
    .mutation(({ ctx, input }) => ctx.service.submitToolResult(input.runId, input.name, input.output)),
});
