import { type AuditFigures, findJsonProblem } from "@oah/contract";
import { type Ability, type Actor, type AuditAction, may, OahError } from "@oah/core";
import type {
  AuditService,
  BulkService,
  FleetService,
  JamService,
  RunService,
  SessionInspector,
  StreamService,
} from "@oah/engine";
import { initTRPC } from "@trpc/server";
import { auditedCall } from "./audited-call";
import { toApiError, toTrpcError } from "./errors";

/** How often an idle event stream gets a keep-alive comment (SPEC §12: 15 s). */
export const STREAM_KEEPALIVE_MS = 15_000;

export interface ApiContext {
  service: RunService;
  fleet: FleetService;
  streams: StreamService;
  audit: AuditService;
  bulk: BulkService;
  sessions: SessionInspector;
  jams: JamService;
  /** Who calls: its token's name and role (docs/spec.md §13). */
  actor: Actor;
}

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

/** Domain errors keep their status and code through tRPC. */
const domainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof OahError) throw toTrpcError(result.error.cause);
  return result;
});

/**
 * Every input, before its schema, whichever protocol it came by: nothing that a store could
 * not keep and give back exactly (a NUL, a lone surrogate, nesting past the limit; see
 * findJsonProblem), refused with `invalid_request` naming the field.
 */
const exactInput = t.middleware(async ({ getRawInput, next }) => {
  const raw = await getRawInput();
  const problem = raw === undefined ? null : findJsonProblem(raw);
  if (problem) {
    const path = problem.path.join(".");
    throw new OahError("invalid_request", path ? `${path}: ${problem.message}` : problem.message, {
      issues: [{ path, message: problem.message }],
    });
  }
  return next();
});

/**
 * The caller's role must give the ability the procedure declares, before its input is read:
 * a refused call does nothing. A procedure that declares none is refused to everyone.
 */
const authorized = t.middleware(({ ctx, meta, path, next }) => {
  if (!meta) throw new OahError("internal_error", `${path} declares no ability`);
  if (meta.ability !== "anyone" && !may(ctx.actor.role, meta.ability)) {
    throw new OahError(
      "forbidden",
      `${ctx.actor.name} (${ctx.actor.role}) may not call ${path}: it needs the ability to ${meta.ability}`,
    );
  }
  return next();
});

/**
 * An operator action (a procedure with an `audit` name) is recorded once it has ended, as it
 * was asked and as it ended: done, refused (its role, its input) or failed.
 */
const audited = t.middleware(async ({ ctx, meta, getRawInput, next }) => {
  if (!meta?.audit) return next();
  const input = await getRawInput();
  const result = await next();
  const outcome = result.ok
    ? { ok: true as const, ...meta.auditFigures?.(result.data as never) }
    : {
        ok: false as const,
        errorCode: toApiError(result.error).body.error.code,
        message: result.error.message,
      };
  const action = typeof meta.audit === "function" ? meta.audit(input) : meta.audit;
  const call = auditedCall(action, input);
  if (call.target === null && result.ok && meta.auditTarget)
    call.target = meta.auditTarget(result.data as never);
  await ctx.audit.record(ctx.actor, call, outcome);
  return result;
});

export const router = t.router;
/** Every procedure: `procedure.meta({ ability, audit? })` (checked, recorded), then its input and resolver. */
export const procedure = t.procedure.use(domainErrors).use(audited).use(authorized).use(exactInput);
export const createCallerFactory = t.createCallerFactory;
