import { ConfigError, describeConfig, isLoopback, loadConfig, type OahConfig } from "@oah/config";
import { type Logger, pino } from "pino";
import { createRuntime, type Runtime, RuntimeError, type RuntimeOptions } from "./runtime";

/** Ends the process with a message for the operator (exit 1, or 2 for bad arguments). */
export function exitWith(name: string, message: string, code = 1): never {
  process.stderr.write(`${name}: ${message}\n`);
  process.exit(code);
}

/**
 * The configuration of a host process: the environment, adjusted by its command
 * line, refused (with a message naming what to do) when it would expose the
 * process on a non-loopback address without a token.
 */
export function loadHostConfig(name: string, adjust: (config: OahConfig) => void): OahConfig {
  let config: OahConfig;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) exitWith(name, error.message);
    throw error;
  }
  adjust(config);
  if (!isLoopback(config.host) && config.apiTokens.length === 0) {
    exitWith(
      name,
      `refusing to listen on ${config.host} without OAH_API_TOKEN or OAH_API_TOKENS: set a token or bind to 127.0.0.1`,
    );
  }
  return config;
}

export function createHostLogger(
  name: string,
  config: OahConfig,
  extra: Record<string, unknown> = {},
): Logger {
  const logger = pino({ level: config.logLevel, base: { service: name } });
  logger.info({ config: describeConfig(config), ...extra }, "starting");
  return logger;
}

/** createRuntime, ending the process with its message when it refuses to start. */
export async function openRuntime(name: string, options: RuntimeOptions): Promise<Runtime> {
  try {
    return await createRuntime(options);
  } catch (error) {
    if (error instanceof RuntimeError) exitWith(name, error.message);
    throw error;
  }
}
