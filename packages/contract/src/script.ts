import { ON_INTERRUPT, RUN_ERROR_CODES } from "@oah/core";
import { z } from "zod";
import { jsonValue } from "./json";

const DAY_MS = 86_400_000;

/**
 * What recovery does with a command in flight when its execution dies (docs/spec.md §7): run it
 * again (`rerun`, at least once; it is told so in its environment), or quarantine the run with
 * `step_interrupted` for a person to decide (`fail`).
 */
export const onInterruptSchema = z.enum(ON_INTERRUPT);

export const sleepStepSchema = z.strictObject({
  type: z.literal("sleep"),
  ms: z.int().min(0).max(DAY_MS),
});

export const shellStepSchema = z.strictObject({
  type: z.literal("shell"),
  command: z.string().min(1).max(65_536),
  timeoutMs: z.int().min(1).max(DAY_MS).optional(),
  allowFailure: z.boolean().optional(),
  onInterrupt: onInterruptSchema.optional(),
});

export const waitToolStepSchema = z.strictObject({
  type: z.literal("wait_tool"),
  name: z.string().min(1).max(128),
});

export const modelStepSchema = z.strictObject({
  type: z.literal("model"),
  prompt: z.string().min(1).max(200_000),
  system: z.string().max(200_000).optional(),
});

export const hookStepSchema = z.strictObject({
  type: z.literal("hook"),
  command: z.string().min(1).max(65_536),
  timeoutMs: z.int().min(1).max(DAY_MS).optional(),
  onInterrupt: onInterruptSchema.optional(),
});

export const failStepSchema = z.strictObject({
  type: z.literal("fail"),
  code: z.enum(RUN_ERROR_CODES).optional(),
  message: z.string().max(4096).optional(),
});

export const outputStepSchema = z.strictObject({
  type: z.literal("output"),
  value: jsonValue,
});

const STEP_SCHEMAS = [
  sleepStepSchema,
  shellStepSchema,
  waitToolStepSchema,
  modelStepSchema,
  hookStepSchema,
  failStepSchema,
  outputStepSchema,
] as const;

export type StepType = (typeof STEP_SCHEMAS)[number]["shape"]["type"]["value"];

/** The step types, read off the schemas: a new step type is a new schema in STEP_SCHEMAS. */
export const STEP_TYPES: readonly StepType[] = STEP_SCHEMAS.map((schema) => schema.shape.type.value);

function stepTypeError(issue: { code: string; input?: unknown }): string | undefined {
  if (issue.code !== "invalid_union") return undefined;
  const type = (issue.input as { type?: unknown } | undefined)?.type;
  return `unknown step type ${JSON.stringify(type)}; expected one of ${STEP_TYPES.join(", ")}`;
}

export const scriptStepSchema = z.discriminatedUnion("type", STEP_SCHEMAS, { error: stepTypeError });

export const scriptInputSchema = z.strictObject({
  steps: z.array(scriptStepSchema).max(1000),
});

export type ScriptStep = z.infer<typeof scriptStepSchema>;
export type ShellStep = z.infer<typeof shellStepSchema>;
export type ScriptInput = z.infer<typeof scriptInputSchema>;
