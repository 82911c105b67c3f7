export { cliInteger } from "./cli-integer";
export { ALL_VARIABLES, renderConfigTable, withConfigTable } from "./config-table";
export { CONTROLLER_VARIABLES, type ControllerConfig, loadControllerConfig } from "./controller-env";
export { type Declarations, type Variable, variablesOf } from "./declare";
export {
  ConfigError,
  describeConfig,
  isLoopback,
  loadConfig,
  type OahConfig,
  redactUrl,
  usesRedis,
} from "./env";
export { type HookConfig, OAH_VARIABLES, SHELL_MODES, type ShellMode } from "./variables";
