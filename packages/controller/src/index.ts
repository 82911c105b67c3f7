export { type ControllerSnapshot, FleetController, type FleetControllerOptions } from "./fleet-controller";
export { FleetView, fleetHostOf } from "./fleet-view";
export { RolloutRunner } from "./rollout-runner";
export { type ControllerCli, type ControllerParts, runController } from "./run-controller";
export { NoneTarget } from "./targets/none-target";
export { ProcessTarget, type ProcessTargetOptions } from "./targets/process-target";
export { countedHosts, type LeaderActs, type ScaleTarget, scaleDownVictims } from "./targets/scale-target";
