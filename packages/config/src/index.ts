export { ConfigError, describeConfig, isLoopback, loadConfig, type OahConfig } from "./env";
