import { adminRouter } from "./routers/admin";
import { authRouter } from "./routers/auth";
import { fleetRouter } from "./routers/fleet";
import { runsRouter } from "./routers/runs";
import { sessionsRouter } from "./routers/sessions";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  runs: runsRouter,
  sessions: sessionsRouter,
  admin: adminRouter,
  fleet: fleetRouter,
  auth: authRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
export type ApiCaller = ReturnType<typeof createCaller>;
