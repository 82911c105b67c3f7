export { ConfigError, describeConfig, isLoopback, loadConfig, type OahConfig, redactUrl } from "./env";
