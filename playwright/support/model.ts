import { type FakeModel, type FakeReply, startFakeModel } from "@oah/testing";

/**
 * The shell command the suite's agent runs ask for: it says it runs (`started` in its workspace),
 * then waits until the test lets it end (`go` in its workspace).
 */
export const GATED_COMMAND = "touch started; while [ ! -f go ]; do sleep 0.05; done; echo released";

/** What the model answers once its command is done: the last user message it was given. */
export const heard = (content: string) => `heard: ${content}`;

/**
 * The stand-in for the model service of the deployment's agent runs, answering each call by where
 * its conversation is: before any command, one shell call (GATED_COMMAND); after it, the last user
 * message of the conversation it received, so that a run's answer says what reached the model.
 */
export function startModel(): Promise<FakeModel> {
  return startFakeModel({
    respond: ({ messages }): FakeReply => {
      // It reports usage as a provider does: 10 prompt tokens a message, 3 for the answer.
      const usage = {
        prompt_tokens: 10 * messages.length,
        completion_tokens: 3,
        total_tokens: 10 * messages.length + 3,
      };
      if (!messages.some((m) => m.role === "tool"))
        return { toolCalls: [{ id: "gated", name: "shell", arguments: { command: GATED_COMMAND } }], usage };
      const user = messages.filter((m) => m.role === "user").at(-1);
      return { content: heard(user?.content ?? ""), usage };
    },
  });
}
