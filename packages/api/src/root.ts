import { adminRouter } from "./routers/admin";
import { fleetRouter } from "./routers/fleet";
import { runsRouter } from "./routers/runs";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  runs: runsRouter,
  admin: adminRouter,
  fleet: fleetRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
export type ApiCaller = ReturnType<typeof createCaller>;
