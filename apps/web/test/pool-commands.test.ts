// @module-tag unit

import { describe, expect, it } from "vitest";
import { commandlessHosts } from "../src/lib/pool/commands";
import { snapshot } from "./pool-snapshots";

describe("the hosts the commands banner names", () => {
  it.each([
    ["none when every host runs commands", [snapshot(), snapshot({ hostId: "host-b" })], []],
    [
      "a host without a step jail, with why",
      [
        snapshot(),
        snapshot({
          hostId: "api-1",
          commands: { available: false, code: "commands_unavailable", reason: "bubblewrap is not installed" },
        }),
      ],
      [{ hostId: "api-1", reason: "bubblewrap is not installed" }],
    ],
    [
      "not a host that runs none by choice (OAH_SHELL=off)",
      [snapshot({ commands: { available: false, code: "shell_disabled", reason: "OAH_SHELL=off" } })],
      [],
    ],
  ] as const)("%s", (_case, hosts, named) => {
    expect(commandlessHosts(hosts)).toEqual(named);
  });
});
