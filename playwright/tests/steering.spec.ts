import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { waitForWorkspaceFile, workspaceDir } from "@oah/testing";
import type { Page } from "@playwright/test";
import { expect, test } from "../fixtures";
import { heard } from "../support/model";

/** The run page's step of this id. */
const stepOf = (page: Page, stepId: number) =>
  page.getByRole("list", { name: "Steps" }).locator(`li[data-step-id="${stepId}"]`);

test.describe("steering", () => {
  test("a message sent while the agent's command runs waits for its next model call, then shows before the model step that received it", async ({
    page,
    oah,
    state,
  }) => {
    const session = "e2e-steering";
    const { run } = await oah.submit(session, {
      executor: "agent",
      input: { prompt: "Run the release check.", tools: { shell: true } },
      workspaceId: session,
    });
    // Its first model call asked for the command, which now waits for the test.
    await waitForWorkspaceFile(state.env, session, "started");
    await page.goto(`/runs/${run.id}`);
    await expect(page.getByTestId("run-status")).toHaveText("running");

    // Long enough to be cut on the steps; the whole of it is its title.
    const content = `Also check the logs, then say which changed since the last release. ${"Be thorough. ".repeat(20)}`;
    const { messageId } = await oah.message(run.id, { content });
    const waiting = page
      .getByRole("list", { name: "Messages not received" })
      .locator(`li[data-message-id="${messageId}"]`);
    await expect(waiting).toContainText("waiting for the agent's next model call");
    await expect(waiting).toContainText("Also check the logs");
    await expect(waiting.locator("q")).toHaveAttribute("title", content);
    await expect(waiting.locator("q")).toHaveText(/^Also check the logs.*…$/);

    writeFileSync(join(workspaceDir(state.env, session), "go"), "");
    // The model's last call received the message: its answer repeats it.
    expect(await oah.wait(run.id, { timeoutMs: 30_000 })).toMatchObject({
      status: "completed",
      output: { answer: heard(content) },
    });
    const steps = await oah.steps(run.id);
    expect(steps.map((s) => s.kind)).toEqual(["model", "tool", "model"]);

    await expect(page.getByTestId("run-status")).toHaveText("completed");
    const received = stepOf(page, steps[2]!.id).getByRole("list", { name: "Messages received" });
    await expect(received.locator(`li[data-message-id="${messageId}"]`)).toContainText("Also check the logs");
    // Only there: not before the model step that asked for the command, nor left waiting.
    await expect(page.getByRole("list", { name: "Messages received" })).toHaveCount(1);
    await expect(page.getByRole("list", { name: "Messages not received" })).toHaveCount(0);
    // What its two model calls spent, from their steps.
    await expect(page.getByTestId("run-model-usage")).toHaveText(/^2 calls, [\d,]+ \+ [\d,]+ tokens$/);
  });
});
