import type { ControllerReport } from "@oah/contract";
import { controllerText } from "@/lib/pool/fleet";
import { Time } from "../Time";
import { Fact } from "./Fact";

/** Who sizes the fleet: the leading controller's report, or that none runs. */
export function ControllerFacts({ controller }: { controller: ControllerReport | null }) {
  if (!controller) {
    return (
      <p className="fleet-controller" data-testid="controller" data-leader="">
        <strong>{controllerText(null)}</strong>{" "}
        <span className="muted">
          — nothing scales the fleet and only operators give hosts orders; start one with{" "}
          <code>npx oah-controller</code>.
        </span>
      </p>
    );
  }
  return (
    <dl
      className="facts facts-inline fleet-controller"
      aria-label="Controller"
      data-testid="controller"
      data-leader={controller.leaderId}
    >
      <Fact
        label="controller"
        value={<span className="mono">{controllerText(controller)}</span>}
        hint="the controller that holds the leader lease"
      />
      <Fact label="target" value={controller.target} hint="where it scales the sandboxes" />
      <Fact
        label="sandboxes desired / actual"
        value={`${controller.desiredReplicas} / ${controller.actualReplicas}`}
      />
      <Fact label="reported" value={<Time value={controller.at} />} />
    </dl>
  );
}
