import type { PoolSnapshot } from "@oah/contract";
import { ALL_HOSTS } from "@/lib/pool/hosts";

export function HostPicker({
  hosts,
  shown,
  onChoose,
}: {
  hosts: readonly PoolSnapshot[];
  shown: string;
  onChoose: (hostId: string) => void;
}) {
  return (
    <fieldset className="host-picker">
      <legend className="visually-hidden">Host</legend>
      <button
        type="button"
        className="chip"
        aria-pressed={shown === ALL_HOSTS}
        onClick={() => onChoose(ALL_HOSTS)}
      >
        All hosts
      </button>
      {hosts.map((h) => (
        <button
          key={h.hostId}
          type="button"
          className="chip mono"
          aria-pressed={shown === h.hostId}
          onClick={() => onChoose(h.hostId)}
        >
          {h.hostId}
          <span className="subtle"> {h.processKind}</span>
        </button>
      ))}
    </fieldset>
  );
}
