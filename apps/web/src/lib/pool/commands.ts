import type { PoolSnapshot } from "@oah/contract";

/** A host that cannot run commands of runs although it was meant to: its step jail cannot be made there. */
export interface CommandlessHost {
  hostId: string;
  reason: string;
}

/**
 * The hosts whose commands are unavailable (no bubblewrap, user namespaces refused…), for the
 * console's banner. A host with OAH_SHELL=off runs none by choice: not a fault, not listed.
 */
export function commandlessHosts(hosts: readonly PoolSnapshot[]): CommandlessHost[] {
  return hosts.flatMap((h) => {
    // A host of an older version, during a rolling upgrade, publishes no such field.
    const commands = h.commands as PoolSnapshot["commands"] | undefined;
    return commands && !commands.available && commands.code === "commands_unavailable"
      ? [{ hostId: h.hostId, reason: commands.reason }]
      : [];
  });
}
