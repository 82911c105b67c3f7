import type { PoolSnapshot } from "@oah/contract";
import { hostBadges } from "@/lib/pool/fleet";

/** A host's state, and whether its snapshot is late, as of `readAt` (when the snapshot was read). */
export function HostBadges({ host, readAt }: { host: PoolSnapshot; readAt: number }) {
  return (
    <span className="host-badges">
      {hostBadges(host, readAt).map((b) => (
        <span key={b.label} className={`badge ${b.className}`} title={b.title}>
          {b.label}
        </span>
      ))}
    </span>
  );
}
