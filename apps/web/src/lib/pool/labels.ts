import type { PoolSnapshot } from "@oah/contract";

/** A host's four pressures, tersely: queue, saturation, subagent reserve and age. */
export const pressuresText = ({ queue, saturation, subagentReserve, age }: PoolSnapshot["pressures"]) =>
  `q${queue} s${saturation} r${subagentReserve} a${age}`;

export const liveHostsText = (count: number) => `${count} live ${count === 1 ? "host" : "hosts"}`;

type Slot = PoolSnapshot["slots"][number];

/** A slot's number: the last part of its id. */
export const slotNumber = (slot: Slot) => slot.id.split("-").at(-1);

/** What a slot works on, or its state when it works on nothing. */
export const slotTitle = (slot: Slot) => (slot.runId ? `${slot.sessionId} · ${slot.runId}` : slot.state);
