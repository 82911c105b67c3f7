import { createClient } from "@oah/client";
import { startSplitDeployment } from "@oah/testing";
import { it } from "vitest";

it("scratch latency", async () => {
  const d = await startSplitDeployment({ sandboxes: 1 });
  try {
    const client = createClient({ baseUrl: d.api.url });
    const lat: string[] = [];
    const stop = new AbortController();
    const reading = (async () => {
      try {
        for await (const e of client.events({ sessionId: "x" }, { signal: stop.signal })) {
          lat.push(`${e.type} ${Date.now() - Date.parse(e.at)}`);
        }
      } catch {}
    })();
    await new Promise((r) => setTimeout(r, 500));
    for (let i = 0; i < 5; i++) {
      await client.submit("x", { input: { steps: [{ type: "sleep", ms: 200 }] } });
      await new Promise((r) => setTimeout(r, 400));
    }
    await new Promise((r) => setTimeout(r, 1000));
    stop.abort();
    await reading;
    console.log(lat.join("\n"));
  } finally {
    await d.dispose();
  }
}, 60_000);
