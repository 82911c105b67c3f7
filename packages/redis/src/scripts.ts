/// <reference path="./lua.d.ts" />
import type { RedisClient } from "./client";
import claim from "./lua/claim-4.lua";
import dropEmptyReady from "./lua/drop-empty-ready-2.lua";
import enqueue from "./lua/enqueue-3.lua";
import fencedHset from "./lua/fenced-hset-2.lua";
import fairShare from "./lua/includes/fair-share.lua";
import lanes from "./lua/includes/lanes.lua";
import numberArgs from "./lua/includes/number-args.lua";
import placement from "./lua/includes/placement.lua";
import serverTime from "./lua/includes/server-time.lua";
import settle from "./lua/includes/settle.lua";
import workspaceKeys from "./lua/includes/workspace-keys.lua";
import inspect from "./lua/inspect-3.lua";
import leaderLease from "./lua/leader-lease-2.lua";
import modelLimit from "./lua/model-limit-1.lua";
import pressure from "./lua/pressure-3.lua";
import readyByWorkspace from "./lua/ready-by-workspace-2.lua";
import readyStranded from "./lua/ready-stranded-3.lua";
import release from "./lua/release-3.lua";
import releaseHeld from "./lua/release-held-1.lua";
import remove from "./lua/remove-3.lua";
import renewLocks from "./lua/renew-locks-2.lua";
import survey from "./lua/survey-2.lua";

const INCLUDES: Record<string, string> = {
  "fair-share": fairShare,
  lanes,
  "number-args": numberArgs,
  placement,
  "server-time": serverTime,
  settle,
  "workspace-keys": workspaceKeys,
};

/** Expands `--@include name` lines with the shared fragments of lua/includes/, theirs too. */
export function expandIncludes(source: string): string {
  return source.replace(/^--@include ([\w-]+)$/gm, (_, name: string) => {
    const fragment = INCLUDES[name];
    if (fragment === undefined) throw new Error(`unknown Lua include ${name}`);
    return expandIncludes(fragment);
  });
}

// The key count is part of each file's name, as in BullMQ (claim-4.lua takes 4 keys).
// Scripts that may make a session ready also PUBLISH on the wake channel (not a key).
const SCRIPTS = {
  oahEnqueue: { numberOfKeys: 3, lua: enqueue },
  oahClaim: { numberOfKeys: 4, lua: claim },
  oahRelease: { numberOfKeys: 3, lua: release },
  oahRenewLocks: { numberOfKeys: 2, lua: renewLocks },
  oahRemove: { numberOfKeys: 3, lua: remove },
  oahPressure: { numberOfKeys: 3, lua: pressure },
  oahReadyStranded: { numberOfKeys: 3, lua: readyStranded },
  oahReadyByWorkspace: { numberOfKeys: 2, lua: readyByWorkspace },
  oahInspect: { numberOfKeys: 3, lua: inspect },
  oahSurvey: { numberOfKeys: 2, lua: survey },
  oahDropEmptyReady: { numberOfKeys: 2, lua: dropEmptyReady },
  oahReleaseHeld: { numberOfKeys: 1, lua: releaseHeld },
  oahLeaderLease: { numberOfKeys: 2, lua: leaderLease },
  oahFencedHset: { numberOfKeys: 2, lua: fencedHset },
  oahModelLimit: { numberOfKeys: 1, lua: modelLimit },
} as const;

type Arg = string | number;
type ScriptName = keyof typeof SCRIPTS;

/** A connection with the scripts defined: ioredis sends EVALSHA, and the source once on NOSCRIPT. */
export type ScriptedRedis = RedisClient & { [K in ScriptName]: (...args: Arg[]) => Promise<unknown> };

export function defineScripts(redis: RedisClient): ScriptedRedis {
  for (const [name, { numberOfKeys, lua }] of Object.entries(SCRIPTS)) {
    redis.defineCommand(name, { numberOfKeys, lua: expandIncludes(lua) });
  }
  return redis as ScriptedRedis;
}
