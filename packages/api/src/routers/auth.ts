import { procedure, router } from "../trpc";

/** Who the caller is: its token's name and role, for the console to show what it may do. */
export const authRouter = router({
  whoami: procedure.meta({ ability: "anyone" }).query(({ ctx }) => ({ actor: ctx.actor })),
});
