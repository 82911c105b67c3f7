import type { Actor } from "@oah/core";
import { procedure, router } from "../trpc";

const whoami = ({ ctx }: { ctx: { actor: Actor } }) => ({ actor: ctx.actor });

/**
 * Who the caller is (its token's name and role), for the console to show what it may do; and
 * the console's sign-in and sign-out, which check the token and are recorded in the audit log.
 */
export const authRouter = router({
  whoami: procedure.meta({ ability: "anyone" }).query(whoami),
  signIn: procedure.meta({ ability: "anyone", audit: "console.sign_in" }).mutation(whoami),
  signOut: procedure.meta({ ability: "anyone", audit: "console.sign_out" }).mutation(whoami),
});
