import { adminRouter } from "./routers/admin";
import { fleetRouter } from "./routers/fleet";
import { runsRouter } from "./routers/runs";
import { sessionsRouter } from "./routers/sessions";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  runs: runsRouter,
  sessions: sessionsRouter,
  admin: adminRouter,
  fleet: fleetRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
export type ApiCaller = ReturnType<typeof createCaller>;
