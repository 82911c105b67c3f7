-- Takes a run out of its session's queue (a queued run was cancelled); the session
-- leaves the lanes when it empties, or moves lane with its new head.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, fair-share digest, fair-share configuration or "", sessionId, runId
-- Returns 1 when the run was queued.
local session, runId = ARGV[4], ARGV[5]
--@include server-time
--@include lanes
--@include settle
--@include placement

if redis.call("ZREM", base .. "queue:" .. session, runId) == 0 then
  return 0
end
redis.call("HDEL", entries, runId)
if redis.call("ZSCORE", readySub, session) or redis.call("ZSCORE", readyNormal, session) then
  place(session)
end
settleTouched()
return 1
