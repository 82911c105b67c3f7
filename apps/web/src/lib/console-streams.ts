import { createHash } from "node:crypto";
import { type StreamCap, type StreamCaps, type StreamSlot, StreamSlots } from "@oah/core";

/**
 * The console's own caps on the streams it passes on to oah-api (its live views). oah-api sees
 * every console user at the console's one address, so the console tells them apart itself: per
 * signed-in session, per browser address, and in all. The total stays well below oah-api's
 * share of one address (OAH_MAX_STREAMS_PER_ADDRESS, 250), which local clients share with the
 * console; a browser holds 6 connections to one origin at most, so 10 a session is more than
 * any number of its tabs can use.
 */
export const CONSOLE_STREAM_CAPS: StreamCaps = { perCaller: 10, perAddress: 20, total: 100 };

const slots = new StreamSlots(CONSOLE_STREAM_CAPS);

const CAP_NAMES: Record<StreamCap, string> = {
  perCaller: "for this session",
  perAddress: "from this address",
  total: "by the console in all",
};

/**
 * A slot for one stream of a browser: counted by its session (a digest of its token, when
 * there is one) and its address. The slot's release may be called any number of times.
 */
export function takeConsoleStream(session: string | undefined, address: string): StreamSlot {
  const caller =
    session === undefined ? {} : { caller: createHash("sha256").update(session).digest("base64") };
  return slots.take({ ...caller, address });
}

/** Why a stream was refused, for its 429. */
export const consoleStreamRefusal = (cap: StreamCap, limit: number, retryAfterSeconds: number): string =>
  `${limit} live streams are held ${CAP_NAMES[cap]}: close a page, or retry in ${retryAfterSeconds} s`;
