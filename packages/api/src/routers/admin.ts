import { procedure, router } from "../trpc";

export const adminRouter = router({
  pool: procedure.query(({ ctx }) => ctx.engine.poolOverview()),
});
