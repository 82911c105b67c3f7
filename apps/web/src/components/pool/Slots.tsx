import type { PoolSnapshot } from "@oah/contract";
import { slotNumber, slotTitle } from "@/lib/pool/labels";

export function Slots({ host }: { host: PoolSnapshot }) {
  return (
    <ul className="slots" aria-label={`Slots of ${host.hostId}`}>
      {host.slots.map((slot) => (
        <li key={slot.id} className={`slot slot-${slot.state}`} title={slotTitle(slot)}>
          <span className="mono">{slotNumber(slot)}</span> {slot.state}
          {slot.runId ? <span className="mono subtle"> {slot.sessionId}</span> : null}
        </li>
      ))}
    </ul>
  );
}
