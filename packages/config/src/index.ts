export {
  ConfigError,
  describeConfig,
  type HookConfig,
  isLoopback,
  loadConfig,
  type OahConfig,
  redactUrl,
} from "./env";
