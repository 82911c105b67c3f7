export { cliInteger } from "./cli-integer";
export { type ControllerConfig, loadControllerConfig } from "./controller-env";
export {
  ConfigError,
  describeConfig,
  type HookConfig,
  isLoopback,
  loadConfig,
  type OahConfig,
  redactUrl,
  SHELL_MODES,
  type ShellMode,
  usesRedis,
} from "./env";
