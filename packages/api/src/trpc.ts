import { type AuditFigures, findJsonProblem } from "@oah/contract";
import { type Ability, type Actor, type AuditAction, may, OahError } from "@oah/core";
import type { EngineServices } from "@oah/engine";
import { initTRPC } from "@trpc/server";
import { auditedCall, boundedMessage } from "./audited-call";
import { toApiError, toTrpcError } from "./errors";

/** How often an idle event stream gets a keep-alive comment (docs/spec.md §12: 15 s). */
export const STREAM_KEEPALIVE_MS = 15_000;

/** What a procedure is given: the engine's services, and who calls (its token's name and role, docs/spec.md §13). */
export type ApiContext = EngineServices & { actor: Actor };

/**
 * What every procedure declares: the ability its caller needs ("anyone": any caller the API
 * let in), and for an operator action, the name the audit log records it under.
 */
export interface ProcedureMeta {
  ability: Ability | "anyone";
  /** The action's name, or how its input names it (a bulk action: its dry run, or its start). */
  audit?: AuditAction | ((input: unknown) => AuditAction);
  /** What the audit log keeps of a done action's result beside `ok` (a repair: how many sessions it repaired and skipped). */
  auditFigures?: (result: never) => AuditFigures;
  /** The target of an action whose input names none, read from its result (a bulk job it started). */
  auditTarget?: (result: never) => string | null;
}

const t = initTRPC
  .context<ApiContext>()
  .meta<ProcedureMeta>()
  .create({
    // Stack traces stay in the server's logs, never in answers.
    isDev: false,
    // A comment on an idle stream, as the HTTP streams send one (http/event-stream.ts), so that proxies keep it open.
    sse: { ping: { enabled: true, intervalMs: STREAM_KEEPALIVE_MS } },
    errorFormatter({ shape, error }) {
      const { status, body } = toApiError(error);
      return {
        ...shape,
        message: body.error.message,
        data: { ...shape.data, httpStatus: status, errorCode: body.error.code, issues: body.error.issues },
      };
    },
  });

/**
 * Every input, before its schema, whichever protocol it came by: nothing that a store could
 * not keep and give back exactly (a NUL, a lone surrogate, nesting past the limit; see
 * findJsonProblem), refused with `invalid_request` naming the field.
 */
function inexactInput(raw: unknown): OahError | null {
  const problem = raw === undefined ? null : findJsonProblem(raw);
  if (!problem) return null;
  const path = problem.path.join(".");
  return new OahError("invalid_request", path ? `${path}: ${problem.message}` : problem.message, {
    issues: [{ path, message: problem.message }],
  });
}

/**
 * The caller's role must give the ability the procedure declares, before its input is read:
 * a refused call does nothing. A procedure that declares none is refused to everyone.
 */
function unauthorized(actor: Actor, meta: ProcedureMeta | undefined, path: string): OahError | null {
  if (!meta) return new OahError("internal_error", `${path} declares no ability`);
  if (meta.ability === "anyone" || may(actor.role, meta.ability)) return null;
  return new OahError(
    "forbidden",
    `${actor.name} (${actor.role}) may not call ${path}: it needs the ability to ${meta.ability}`,
  );
}

const auditActionOf = (audit: NonNullable<ProcedureMeta["audit"]>, input: unknown): AuditAction =>
  typeof audit === "function" ? audit(input) : audit;

/**
 * An audited call past its caller's share of audited actions (AuditService.admit): refused
 * with 429 `too_many_actions` and when to come back, before anything else, and not recorded.
 */
function overRate(ctx: ApiContext, meta: ProcedureMeta | undefined, input: unknown): OahError | null {
  if (!meta?.audit) return null;
  const waitMs = ctx.audit.admit(ctx.actor, auditActionOf(meta.audit, input));
  if (waitMs === 0) return null;
  const retryAfterSeconds = Math.ceil(waitMs / 1_000);
  return new OahError(
    "too_many_actions",
    `${ctx.actor.name} made more audited actions than a minute allows: try again in ${retryAfterSeconds} s`,
    { retryAfterSeconds },
  );
}

/**
 * An operator action (a procedure with an `audit` name) is recorded once it has ended, as it
 * was asked and as it ended: done, refused (its role, its input) or failed.
 */
async function recordAction(
  ctx: ApiContext,
  meta: ProcedureMeta | undefined,
  getRawInput: () => Promise<unknown>,
  ended: { ok: true; data: unknown } | { ok: false; error: Error },
): Promise<void> {
  if (!meta?.audit) return;
  const input = await getRawInput();
  const outcome = ended.ok
    ? { ok: true as const, ...meta.auditFigures?.(ended.data as never) }
    : {
        ok: false as const,
        errorCode: toApiError(ended.error).body.error.code,
        message: boundedMessage(ended.error.message),
      };
  const call = auditedCall(auditActionOf(meta.audit, input), input);
  if (call.target === null && ended.ok && meta.auditTarget)
    call.target = meta.auditTarget(ended.data as never);
  await ctx.audit.record(ctx.actor, call, outcome);
}

/**
 * What every procedure goes through, as one middleware: tRPC copies a call's options at each
 * level of middleware, and four levels (one per check) took about a fifth of what oah-api
 * could answer of single submissions (bench (i)). In order: the caller's share of audited
 * actions, the caller's role, the input's exactness, the call; an operator action (a procedure with an `audit` name) is recorded once
 * it has ended; domain errors keep their status and code through tRPC.
 */
const guarded = t.middleware(async ({ ctx, meta, path, getRawInput, next }) => {
  const limited = overRate(ctx, meta, await getRawInput());
  if (limited) throw toTrpcError(limited);
  const refused = unauthorized(ctx.actor, meta, path) ?? inexactInput(await getRawInput());
  if (refused) {
    await recordAction(ctx, meta, getRawInput, { ok: false, error: refused });
    throw toTrpcError(refused);
  }
  const result = await next();
  await recordAction(ctx, meta, getRawInput, result);
  if (!result.ok && result.error.cause instanceof OahError) throw toTrpcError(result.error.cause);
  return result;
});

export const router = t.router;
/** Every procedure: `procedure.meta({ ability, audit? })` (checked, recorded), then its input and resolver. */
export const procedure = t.procedure.use(guarded);
export const createCallerFactory = t.createCallerFactory;
