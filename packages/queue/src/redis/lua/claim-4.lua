-- Takes the oldest ready session whose lock is free, subagent lane first: locks it
-- with a fresh fencing token and pops its head run. Ready entries met on the way
-- that are locked (their holder re-readies them on release) or empty are dropped,
-- at most maxScan per lane, so a claim never walks the whole ready set.
-- KEYS: readySub, readyNormal, entries, fence
-- ARGV: base, lockTtlMs, maxScan, nonce
-- The token is the counter and a nonce from the caller: unique even if Redis lost the
-- counter (flushed, restarted without persistence), so an old token never comes back.
-- Returns {sessionId, token, entry JSON} or false.
local entries, fence = KEYS[3], KEYS[4]
local base, ttl, maxScan, nonce = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]

for _, lane in ipairs({ KEYS[1], KEYS[2] }) do
  for _ = 1, maxScan do
    local session = redis.call("ZRANGE", lane, 0, 0)[1]
    if not session then
      break
    end
    redis.call("ZREM", lane, session)
    local lock = base .. "lock:" .. session
    if redis.call("EXISTS", lock) == 0 then
      local queue = base .. "queue:" .. session
      local head = redis.call("ZRANGE", queue, 0, 0)[1]
      if head then
        local token = redis.call("INCR", fence) .. "-" .. nonce
        redis.call("SET", lock, token, "PX", ttl)
        redis.call("ZREM", queue, head)
        local entry = redis.call("HGET", entries, head)
        redis.call("HDEL", entries, head)
        return { session, token, entry }
      end
    end
  end
end
return false
