import type { PoolOverview } from "@oah/contract";
import { noticeClass } from "@/lib/notice";
import { ControllerFacts } from "./ControllerFacts";
import { FleetHosts } from "./FleetHosts";
import { HostOrderDialog } from "./HostOrderDialog";
import { ReplicasChart } from "./ReplicasChart";
import { useHostOrders } from "./useHostOrders";

/** The fleet: who sizes it, its hosts and their orders, and the sandboxes wanted against those running. */
export function Fleet({ overview, readAt }: { overview: PoolOverview; readAt: number }) {
  const orders = useHostOrders();
  const { controller } = overview;
  const { notice } = orders;
  return (
    <section className="fleet" aria-labelledby="fleet-title">
      <h3 id="fleet-title">Fleet</h3>
      <ControllerFacts controller={controller} />
      <FleetHosts hosts={overview.hosts} readAt={readAt} orders={orders} />
      {notice ? (
        <p className={noticeClass(notice)} role="status">
          {notice.text}
        </p>
      ) : (
        <p role="status" />
      )}
      {controller && controller.history.length > 0 ? (
        <div className="charts">
          <ReplicasChart history={controller.history} />
        </div>
      ) : null}
      <HostOrderDialog orders={orders} />
    </section>
  );
}
