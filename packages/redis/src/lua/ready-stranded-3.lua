-- Makes ready the sessions among ARGV that hold runs while neither locked nor in a
-- workspace's lane: nothing would ever claim them (a wake-up lost to a bug, or a session
-- placed before lanes were kept by workspace). The reconcile of the queue with the store
-- calls it for sessions whose runs have waited long.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, fair-share digest, fair-share configuration or "", sessionId...
-- Returns the sessions it made ready.
--@include server-time
--@include lanes
--@include settle
--@include placement

local stranded = {}
for i = 4, #ARGV do
  local session = ARGV[i]
  if redis.call("EXISTS", base .. "lock:" .. session) == 0
    and redis.call("HEXISTS", sessionWs, session) == 0
    and redis.call("ZCARD", base .. "queue:" .. session) > 0 then
    place(session)
    table.insert(stranded, session)
  end
end
settleTouched()
return stranded
