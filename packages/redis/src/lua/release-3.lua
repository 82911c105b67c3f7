-- Drops a session lock if the token still holds it; puts back an entry that did not
-- start; makes the session ready again (at the back of the line, or at the place it
-- had when claimed if its run did not start), or, told not to,
-- takes it out of the lanes until its missing earlier run is enqueued or ends. An
-- earlier run enqueued while the lock was held is the head now: then it is ready.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, sessionId, token, putBack entry JSON or "", ready "1" | "0", ready score to
-- take back (a claim whose run did not start: it keeps its place in line) or ""
-- Returns 1 when the token held the lock.
local readySub, readyNormal, entries = KEYS[1], KEYS[2], KEYS[3]
local base, session, token = ARGV[1], ARGV[2], ARGV[3]
--@include server-time
--@include mark-ready
local now = serverNow()

local held = 0
local lock = base .. "lock:" .. session
if redis.call("GET", lock) == token then
  redis.call("DEL", lock)
  held = 1
end
local ready = ARGV[5] == "1"
if ARGV[4] ~= "" then
  addEntry(ARGV[4])
  if not ready then
    local head = redis.call("ZRANGE", base .. "queue:" .. session, 0, 0)[1]
    ready = head ~= cjson.decode(ARGV[4]).runId
  end
end
if ready then
  markReady(session, now, tonumber(ARGV[6]))
elseif redis.call("EXISTS", lock) == 0 then
  redis.call("ZREM", readySub, session)
  redis.call("ZREM", readyNormal, session)
end
return held
