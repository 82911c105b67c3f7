import { ORDER_COPY, orderTitle } from "@/lib/pool/host-orders";
import { ConfirmDialog } from "../ConfirmDialog";
import type { HostOrders } from "./useHostOrders";

/** The confirmation of an order to a host: which host, in which state, and what the order does to its runs. */
export function HostOrderDialog({ orders }: { orders: HostOrders }) {
  const { asked } = orders;
  const copy = asked ? ORDER_COPY[asked.action] : null;
  return (
    <ConfirmDialog
      open={asked !== null}
      title={asked ? orderTitle(asked.action, asked.hostId) : ""}
      confirmLabel={copy?.label ?? ""}
      danger={copy?.danger}
      busy={orders.busy}
      onCancel={orders.dismiss}
      onConfirm={orders.confirm}
    >
      {asked && copy ? (
        <p>
          <span className="mono">{asked.hostId}</span> is {asked.state}. {copy.effect}
        </p>
      ) : null}
    </ConfirmDialog>
  );
}
