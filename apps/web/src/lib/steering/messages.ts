import type { RunEvent } from "@oah/contract";
import { stepLabel } from "../durable/steps";

/** How much of a message the steps show: a long one is cut there, the whole of it one hover away. */
export const SHOWN_CHARS = 160;

/** One message sent to the run (docs/spec.md §5, *Steering*), where its page shows it. */
export interface SteeringMessage {
  eventId: number;
  at: string;
  content: string;
  /** `content`, cut at SHOWN_CHARS. */
  shown: string;
  /** The model step that received it: the run's first to start after it was written; null when none did yet. */
  stepId: number | null;
}

/** The run's messages placed on its steps. */
export interface SteeringOnSteps {
  /** By the listed model step that received them, in their order: shown just before it. */
  before: Map<number, SteeringMessage[]>;
  /** The others, after the steps, each with what became of it. */
  after: { message: SteeringMessage; note: string }[];
}

export const shorten = (text: string, max = SHOWN_CHARS): string =>
  text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;

const contentOf = (event: RunEvent): string =>
  typeof event.data?.content === "string" ? event.data.content : "";

/**
 * Each `run.message` with the model step that received it. The agent reads its messages before each
 * model call, which its `model.started` event then records; both events share the run's one id
 * sequence, so the first `model.started` after a message names the step whose conversation it joined.
 */
export function steeringMessages(events: readonly RunEvent[]): SteeringMessage[] {
  const ordered = [...events].sort((a, b) => a.id - b.id);
  const messages: SteeringMessage[] = [];
  let unplaced: SteeringMessage[] = [];
  for (const event of ordered) {
    if (event.type === "run.message") {
      const content = contentOf(event);
      const message: SteeringMessage = {
        eventId: event.id,
        at: event.at,
        content,
        shown: shorten(content),
        stepId: null,
      };
      messages.push(message);
      unplaced.push(message);
    } else if (event.type === "model.started") {
      const stepId = event.data?.stepId;
      if (typeof stepId !== "number") continue;
      for (const message of unplaced) message.stepId = stepId;
      unplaced = [];
    }
  }
  return messages;
}

/**
 * Where the run's page shows its messages: before the model step that received it when that step is
 * listed; otherwise after the steps, saying whether the agent may still take it (`ended`: the run
 * has ended, and one no model call took is answered by nobody) or which step took it, not listed yet.
 */
export function steeringOnSteps(
  events: readonly RunEvent[],
  stepIds: readonly number[],
  ended: boolean,
): SteeringOnSteps {
  const listed = new Set(stepIds);
  const before = new Map<number, SteeringMessage[]>();
  const after: SteeringOnSteps["after"] = [];
  for (const message of steeringMessages(events)) {
    if (message.stepId !== null && listed.has(message.stepId)) {
      before.set(message.stepId, [...(before.get(message.stepId) ?? []), message]);
      continue;
    }
    const note =
      message.stepId !== null
        ? `received by ${stepLabel(message.stepId)}`
        : ended
          ? "sent after its last model call: not answered"
          : "waiting for the agent's next model call";
    after.push({ message, note });
  }
  return { before, after };
}
