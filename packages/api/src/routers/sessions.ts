import { listSessionEventsInput, sessionEventsStreamInput } from "@oah/contract";
import { procedure, router } from "../trpc";
import { streamSignal, trackedItems } from "./event-items";

export const sessionsRouter = router({
  /** A page of the session's events, in the order its streams give them. */
  events: procedure
    .meta({ ability: "readRuns" })
    .input(listSessionEventsInput)
    .query(({ ctx, input }) => ctx.streams.listSessionEvents(input.sessionId, input)),

  /** The session's events as they are committed (and live ones), for as long as the client stays. */
  onEvents: procedure
    .meta({ ability: "readRuns" })
    .input(sessionEventsStreamInput)
    .subscription(async ({ ctx, input, signal }) =>
      trackedItems(
        await ctx.streams.openSession(
          input.sessionId,
          input.lastEventId ?? input.after,
          streamSignal(signal),
        ),
      ),
    ),
});
