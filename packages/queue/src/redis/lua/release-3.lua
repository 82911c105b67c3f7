-- Drops a session lock if the token still holds it; puts back an entry that did
-- not start; makes the session ready again unless told not to.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, sessionId, token, now, putBack entry JSON or "", ready "1" | "0"
-- Returns 1 when the token held the lock.
local readySub, readyNormal, entries = KEYS[1], KEYS[2], KEYS[3]
local base, session, token, now = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4])
--@include mark-ready

local held = 0
local lock = base .. "lock:" .. session
if redis.call("GET", lock) == token then
  redis.call("DEL", lock)
  held = 1
end
if ARGV[5] ~= "" then
  addEntry(ARGV[5])
end
if ARGV[6] == "1" then
  markReady(session, now)
end
return held
