import type { PoolSnapshot } from "@oah/contract";
import { useMay } from "@/lib/actor";
import { hostActions, ORDER_COPY } from "@/lib/pool/host-orders";
import { Time } from "../Time";
import { HostBadges } from "./HostBadges";
import type { HostOrders } from "./useHostOrders";

/** Every live host with its state and the orders it can be given. */
export function FleetHosts({
  hosts,
  readAt,
  orders,
}: {
  hosts: readonly PoolSnapshot[];
  readAt: number;
  orders: HostOrders;
}) {
  const mayOrder = useMay("operate");
  return (
    <div className="table-wrap">
      <table className="dense-table" aria-label="Hosts">
        <thead>
          <tr>
            <th>Host</th>
            <th>Kind</th>
            <th>State</th>
            <th>Snapshot</th>
            <th>Workers busy / active</th>
            <th className="col-action">Orders</th>
          </tr>
        </thead>
        <tbody>
          {hosts.map((host) => (
            <tr key={host.hostId} data-host-id={host.hostId} data-state={host.state}>
              <td className="mono">{host.hostId}</td>
              <td>{host.processKind}</td>
              <td>
                <HostBadges host={host} readAt={readAt} />
              </td>
              <td className="time">
                <Time value={host.at} />
              </td>
              <td>
                {host.busyWorkers} / {host.activeWorkers}
              </td>
              <td className="col-action">
                <span className="host-orders">
                  {(mayOrder ? hostActions(host.state) : []).map((action) => (
                    <button
                      key={action}
                      type="button"
                      className="btn btn-small"
                      disabled={orders.busy}
                      title={ORDER_COPY[action].effect}
                      onClick={() => orders.ask({ hostId: host.hostId, action, state: host.state })}
                    >
                      {ORDER_COPY[action].label}
                    </button>
                  ))}
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
