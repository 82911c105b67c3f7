-- The sessions the jam scan looks at from the queue's side (docs/spec.md §7), up to `limit`
-- of each lane's: those whose lock is held (hidden in their lanes until it would expire, or
-- still scored ready by a claim that took them), and ready entries of sessions with neither
-- runs nor a lock (nothing to claim, yet counted as ready: the pressure read's stale ones).
-- KEYS: readySub, readyNormal
-- ARGV: base, limit
-- Returns {locked sessions, empty ready sessions}.
local base, limit = ARGV[1], ARGV[2]
--@include server-time
local now = serverNow()
local locked, empty, seen = {}, {}, {}
for _, lane in ipairs({ KEYS[1], KEYS[2] }) do
  for _, session in ipairs(redis.call("ZRANGEBYSCORE", lane, readyBelow(now), "+inf", "LIMIT", "0", limit)) do
    if not seen[session] and redis.call("EXISTS", base .. "lock:" .. session) == 1 then
      seen[session] = true
      table.insert(locked, session)
    end
  end
  local waiting = redis.call("ZRANGEBYSCORE", lane, "-inf", "(" .. readyBelow(now), "LIMIT", "0", limit)
  for _, session in ipairs(waiting) do
    if not seen[session] then
      seen[session] = true
      if redis.call("EXISTS", base .. "lock:" .. session) == 1 then
        table.insert(locked, session)
      elseif redis.call("EXISTS", base .. "queue:" .. session) == 0 then
        table.insert(empty, session)
      end
    end
  end
end
return { locked, empty }
