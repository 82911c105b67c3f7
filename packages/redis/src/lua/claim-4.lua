-- Takes the session that has been ready longest, subagent lane first: locks it with a
-- fresh fencing token, hides it in its lane until the lock would expire, and pops its
-- head run. Ready entries met on the way that turn out locked are hidden until their
-- lock expires, and empty ones are dropped, at most maxScan per lane.
-- KEYS: readySub, readyNormal, entries, fence
-- ARGV: base, lockTtlMs, maxScan, nonce
-- The token is the counter and a nonce from the caller: unique even if Redis lost the
-- counter (flushed, restarted without persistence), so an old token never comes back.
-- Returns {sessionId, token, entry JSON, ready score} or false.
local entries, fence = KEYS[3], KEYS[4]
local base, ttl, maxScan, nonce = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
--@include server-time
local now = serverNow()

for _, lane in ipairs({ KEYS[1], KEYS[2] }) do
  for _ = 1, maxScan do
    local found = redis.call("ZRANGEBYSCORE", lane, "-inf", "(" .. readyBelow(now), "WITHSCORES", "LIMIT", 0, 1)
    local session = found[1]
    if not session then
      break
    end
    local lock = base .. "lock:" .. session
    local lockLeft = redis.call("PTTL", lock)
    if lockLeft > 0 then
      redis.call("ZADD", lane, now + lockLeft, session)
    else
      local queue = base .. "queue:" .. session
      local head = redis.call("ZRANGE", queue, 0, 0)[1]
      if not head then
        redis.call("ZREM", lane, session)
      else
        local token = redis.call("INCR", fence) .. "-" .. nonce
        redis.call("SET", lock, token, "PX", ttl)
        redis.call("ZADD", lane, now + ttl, session)
        redis.call("ZREM", queue, head)
        local entry = redis.call("HGET", entries, head)
        redis.call("HDEL", entries, head)
        return { session, token, entry, found[2] }
      end
    end
  end
end
return false
