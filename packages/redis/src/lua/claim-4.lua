-- Takes a session for the workspace whose turn it is (the claimable one of least pass,
-- docs/spec.md §5), the one ready longest in that workspace, subagent lane first: locks it with a
-- fresh fencing token, hides it in its lanes until the lock would expire, pops its head
-- run, and moves the workspace's pass one stride on. Ready entries met on the way that
-- turn out locked are hidden until their lock expires, and empty ones are dropped: at
-- most maxScan entries and workspaces looked at in all. Workspaces whose sleep is due (a
-- lock lapsed, a hidden session matured) are woken first, at most maxWake of them: by
-- every claim that finds none claimable, and by those its caller asks to (maxWake > 0).
-- KEYS: readySub, readyNormal, entries, fence
-- ARGV: base, fair-share digest, fair-share configuration or "", lockTtlMs, maxScan,
-- maxWake (or 0), nonce
-- The token is the counter and a nonce from the caller: unique even if Redis lost the
-- counter (flushed, restarted without persistence), so an old token never comes back.
-- Returns {sessionId, token, entry JSON, ready score, workspaceId} or false.
local entries, fence = KEYS[3], KEYS[4]
local ttl, maxScan, nonce = tonumber(ARGV[4]), tonumber(ARGV[5]), ARGV[7]
--@include server-time
--@include lanes

-- Locks `session`, ready in `ws`'s lane of `priority`, hides it in its lanes until the
-- lock would expire, pops its head run, and moves the workspace's pass one stride on
-- from `pass` (the string Redis gave), which virtual time comes to. Returns the claim,
-- or nil with nothing written when the session has no runs left.
local function take(session, readySince, ws, priority, pass, weight, cap)
  local head = redis.call("ZPOPMIN", base .. "queue:" .. session)[1]
  if not head then
    return nil
  end
  local token = redis.call("INCR", fence) .. "-" .. nonce
  redis.call("SET", base .. "lock:" .. session, token, "PX", ARGV[4])
  local lockedUntil = numberArg(now + ttl)
  redis.call("ZADD", priority == "subagent" and readySub or readyNormal, lockedUntil, session)
  redis.call("ZADD", workspaceLane(ws, priority), lockedUntil, session)
  if cap then
    redis.call("ZADD", heldLocks(ws), lockedUntil, session)
  end
  local entry = redis.call("HGET", entries, head)
  redis.call("HDEL", entries, head)
  -- The same expression on the same doubles as packages/core's passAfterClaim. The
  -- workspace stays claimable, even if that was its last ready session, until a claim
  -- finds it so.
  redis.call("ZADD", workspaces, numberArg(tonumber(pass) + 1 / weight), ws, pass, VTIME)
  return { session, token, entry, readySince, ws }
end

-- The common case, with nothing to settle: the head of the workspace whose turn it is,
-- unlocked, in a workspace without a cap. Anything else goes the whole way below.
if ARGV[6] == "0" then
  -- The workspace whose turn it is, after virtual time.
  local turn = redis.call("ZRANGE", workspaces, "1", "1", "WITHSCORES")
  local ws = turn[1]
  local weight, cap = 1, nil
  if ws then
    weight, cap = fairShareOf(ws)
  end
  if ws and not cap then
    local priority = "subagent"
    local found = redis.call("ZRANGEBYSCORE", workspaceLane(ws, priority), "-inf", bound, "WITHSCORES", "LIMIT", "0", "1")
    if not found[1] then
      priority = "normal"
      found = redis.call("ZRANGEBYSCORE", workspaceLane(ws, priority), "-inf", bound, "WITHSCORES", "LIMIT", "0", "1")
    end
    if found[1] and redis.call("PTTL", base .. "lock:" .. found[1]) <= 0 then
      local claim = take(found[1], found[2], ws, priority, turn[2], weight, nil)
      if claim then
        return claim
      end
    end
  end
end

--@include settle

local function wake(maxWake)
  for _, ws in ipairs(redis.call("ZRANGEBYSCORE", asleep, "-inf", numberArg(now), "LIMIT", "0", maxWake)) do
    touch(ws, true)
  end
  settleTouched()
end

if ARGV[6] ~= "0" then
  wake(ARGV[6])
end
local scanned = 0
while scanned < maxScan do
  local turn = redis.call("ZRANGE", workspaces, "1", "1", "WITHSCORES")
  if not turn[1] and scanned == 0 then
    wake("4")
    turn = redis.call("ZRANGE", workspaces, "1", "1", "WITHSCORES")
  end
  local ws = turn[1]
  if not ws then
    break
  end
  scanned = scanned + 1
  local weight, cap = fairShareOf(ws)
  for _, priority in ipairs({ "subagent", "normal" }) do
    local laneOfWs = workspaceLane(ws, priority)
    while scanned < maxScan do
      local found = redis.call("ZRANGEBYSCORE", laneOfWs, "-inf", bound, "WITHSCORES", "LIMIT", "0", "1")
      local session = found[1]
      if not session then
        break
      end
      scanned = scanned + 1
      local lockLeft = redis.call("PTTL", base .. "lock:" .. session)
      if lockLeft > 0 then
        local lockedUntil = numberArg(now + lockLeft)
        redis.call("ZADD", priority == "subagent" and readySub or readyNormal, lockedUntil, session)
        redis.call("ZADD", laneOfWs, lockedUntil, session)
        touch(ws, true)
      else
        local claim = take(session, found[2], ws, priority, turn[2], weight, cap)
        if claim then
          if cap then
            touch(ws, true)
          end
          settleTouched()
          return claim
        end
        unplace(session)
      end
    end
  end
  -- Nothing to take in it: its ready sessions are gone, or the scan ran out.
  touch(ws, true)
  settleTouched()
end
return false
