-- Takes a run out of its session's queue (a queued run was cancelled); the session
-- leaves the lanes when it empties, or moves lane with its new head.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, sessionId, runId
-- Returns 1 when the run was queued.
local readySub, readyNormal, entries = KEYS[1], KEYS[2], KEYS[3]
local base, session, runId = ARGV[1], ARGV[2], ARGV[3]
--@include server-time
--@include mark-ready
local now = serverNow()

if redis.call("ZREM", base .. "queue:" .. session, runId) == 0 then
  return 0
end
redis.call("HDEL", entries, runId)
if redis.call("ZSCORE", readySub, session) or redis.call("ZSCORE", readyNormal, session) then
  markReady(session, now)
end
return 1
