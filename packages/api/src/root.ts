import { adminRouter } from "./routers/admin";
import { runsRouter } from "./routers/runs";
import { createCallerFactory, router } from "./trpc";

export const appRouter = router({
  runs: runsRouter,
  admin: adminRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
export type ApiCaller = ReturnType<typeof createCaller>;
