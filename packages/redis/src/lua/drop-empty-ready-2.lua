-- Takes out of the lanes the sessions among ARGV that hold neither runs nor a lock: a ready
-- entry left with nothing to claim (docs/spec.md §7, `stale_ready`). Claims drop such entries
-- as they meet them; this is the repair that does not wait for one.
-- KEYS: readySub, readyNormal
-- ARGV: base, fair-share digest, fair-share configuration or "", sessionId...
-- Returns the sessions it took out.
--@include server-time
--@include lanes
--@include settle

local dropped = {}
for i = 4, #ARGV do
  local session = ARGV[i]
  local placed = redis.call("ZSCORE", readySub, session) or redis.call("ZSCORE", readyNormal, session)
    or redis.call("HEXISTS", sessionWs, session) == 1
  if placed and redis.call("EXISTS", base .. "lock:" .. session) == 0
    and redis.call("EXISTS", base .. "queue:" .. session) == 0 then
    unplace(session)
    table.insert(dropped, session)
  end
end
settleTouched()
return dropped
