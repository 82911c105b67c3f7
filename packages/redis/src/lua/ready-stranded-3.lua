-- Makes ready the sessions among ARGV that hold runs while neither locked nor in a
-- lane: nothing would ever claim them (a wake-up lost to a bug). The reconcile of
-- the queue with the store calls it for sessions whose runs have waited long.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, sessionId...
-- Returns the sessions it made ready.
local readySub, readyNormal, entries = KEYS[1], KEYS[2], KEYS[3]
local base = ARGV[1]
--@include server-time
--@include mark-ready
local now = serverNow()

local stranded = {}
for i = 2, #ARGV do
  local session = ARGV[i]
  if redis.call("EXISTS", base .. "lock:" .. session) == 0
    and not redis.call("ZSCORE", readySub, session)
    and not redis.call("ZSCORE", readyNormal, session)
    and redis.call("ZCARD", base .. "queue:" .. session) > 0 then
    markReady(session, now)
    table.insert(stranded, session)
  end
end
return stranded
