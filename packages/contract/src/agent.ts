import { z } from "zod";
import { jsonValue } from "./json";
import { onInterruptSchema } from "./script";

const toolName = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,64}$/, { error: "a tool name is 1-64 characters of A-Z a-z 0-9 _ -" });

/** A tool the client answers: the run waits in `waiting_tool` for its result (docs/spec.md §6). */
export const clientToolSchema = z.strictObject({
  name: toolName.refine((name) => name !== "shell", { error: '"shell" is the built-in shell tool' }),
  description: z.string().max(4096).optional(),
  /** JSON Schema of the arguments, passed to the model as is. */
  parameters: z.record(z.string(), jsonValue).optional(),
});

/** A user's turn as the agent takes it: a run's prompt, or a message to a running agent (docs/spec.md §5). */
export const promptSchema = z.string().min(1).max(200_000);

/** The input of the `agent` executor: one user turn of a conversation that carries over within its session. */
export const agentInputSchema = z.strictObject({
  prompt: promptSchema,
  system: z.string().max(200_000).optional(),
  tools: z
    .strictObject({
      /** The built-in shell tool, run in the run's workspace. */
      shell: z.boolean().default(false),
      /** What recovery does with a shell call in flight when its execution dies (docs/spec.md §7). */
      shellOnInterrupt: onInterruptSchema.default("rerun"),
      client: z.array(clientToolSchema).max(64).default([]),
    })
    .default({ shell: false, shellOnInterrupt: "rerun", client: [] }),
  /** Model calls this turn may make before it must have answered. */
  maxSteps: z.int().min(1).max(100).default(16),
});

export type AgentInput = z.infer<typeof agentInputSchema>;
export type ClientTool = z.infer<typeof clientToolSchema>;
