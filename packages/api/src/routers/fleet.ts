import { hostOrderInput, rolloutIdInput, rolloutInput } from "@oah/contract";
import { procedure, router } from "../trpc";

/** The orders to worker hosts and the rolling restarts (docs/spec.md §8). */
export const fleetRouter = router({
  cordon: procedure
    .meta({ ability: "operate", audit: "host.cordon" })
    .input(hostOrderInput)
    .mutation(({ ctx, input }) => ctx.fleet.cordon(input.hostId)),

  uncordon: procedure
    .meta({ ability: "operate", audit: "host.uncordon" })
    .input(hostOrderInput)
    .mutation(({ ctx, input }) => ctx.fleet.uncordon(input.hostId)),

  drain: procedure
    .meta({ ability: "operate", audit: "host.drain" })
    .input(hostOrderInput)
    .mutation(({ ctx, input }) => ctx.fleet.drain(input.hostId)),

  rollout: procedure
    .meta({ ability: "administer", audit: "fleet.rollout" })
    .input(rolloutInput)
    .mutation(({ ctx, input }) => ctx.fleet.rollout(input, ctx.actor.name)),

  rolloutProgress: procedure
    .meta({ ability: "view" })
    .input(rolloutIdInput)
    .query(({ ctx, input }) => ctx.fleet.rolloutProgress(input.rolloutId)),
});
