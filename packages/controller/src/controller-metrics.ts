import { SCALE_DOWN_BLOCKERS } from "@oah/core";
import { collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { FleetController } from "./fleet-controller";

/**
 * The controller's Prometheus metrics, read from its state at each scrape: what the alert
 * rules of deploy/prometheus watch, and the gauge an autoscaler follows with the `none` target.
 */
export function createControllerMetrics(controller: FleetController): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: "oah_process_" });
  const last = () => (controller.leading ? controller.lastDecision : undefined);
  new Gauge({
    name: "oah_controller_leader",
    help: "1 while this controller leads the fleet",
    registers: [registry],
    collect() {
      this.set(controller.leading ? 1 : 0);
    },
  });
  new Gauge({
    name: "oah_controller_desired_replicas",
    help: "Sandboxes the leading controller wants (absent on a standby)",
    registers: [registry],
    collect() {
      this.reset();
      const decision = last();
      if (decision) this.set(decision.desiredReplicas);
    },
  });
  new Gauge({
    name: "oah_controller_actual_replicas",
    help: "Sandboxes the leading controller counts, serving or starting (absent on a standby)",
    registers: [registry],
    collect() {
      this.reset();
      const { actualReplicas } = controller.snapshot(null);
      if (actualReplicas !== null) this.set(actualReplicas);
    },
  });
  new Gauge({
    name: "oah_controller_scale_down_blocked",
    help: "1 while the leader's last decision is a scale-down held by this blocker",
    labelNames: ["blocker"],
    registers: [registry],
    collect() {
      this.reset();
      const decision = last();
      if (!decision) return;
      for (const blocker of SCALE_DOWN_BLOCKERS)
        this.set({ blocker }, decision.blockedBy === blocker ? 1 : 0);
    },
  });
  new Gauge({
    name: "oah_controller_oldest_ready_age_seconds",
    help: "Age of the oldest schedulable ready session, as the leader last read it",
    registers: [registry],
    collect() {
      this.reset();
      const decision = last();
      if (decision) this.set(decision.figures.oldestSchedulableReadyAgeMs / 1000);
    },
  });
  new Gauge({
    name: "oah_controller_ready_sessions",
    help: "Ready sessions, as the leader last read them",
    registers: [registry],
    collect() {
      this.reset();
      const decision = last();
      if (decision) this.set(decision.figures.readySessionCount);
    },
  });
  new Gauge({
    name: "oah_controller_late_hosts",
    help: "Sandboxes whose pool report is late, as the leader last read them",
    registers: [registry],
    collect() {
      this.reset();
      if (controller.leading) this.set(controller.lateHosts);
    },
  });
  return registry;
}
