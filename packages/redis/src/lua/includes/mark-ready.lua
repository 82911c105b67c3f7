-- Shared by the scripts that change a session's runs or lock.
-- Needs: base (key prefix with hash tag), readySub, readyNormal, entries, server-time.
--
-- A ready lane is a sorted set of sessions scored by the time they are ready at.
-- A session whose lock is held stays in its lane, scored at the lock's expiry: it
-- is not claimable meanwhile, and if its holder dies without releasing it, it
-- becomes claimable by itself when the lock expires.
local wakeChannel = base .. "wake"

-- The lane of a session's head run, or nil when it has no runs.
local function laneOf(session)
  local head = redis.call("ZRANGE", base .. "queue:" .. session, 0, 0)[1]
  if not head then
    return nil
  end
  local entry = redis.call("HGET", entries, head)
  if entry and cjson.decode(entry).priority == "subagent" then
    return readySub
  end
  return readyNormal
end

-- A ready time behind every session already ready in the lane, even within the same
-- millisecond (equal scores would order by session name, not by arrival).
local function backOfLine(lane, now)
  local last = redis.call("ZREVRANGEBYSCORE", lane, "(" .. readyBelow(now), "-inf", "WITHSCORES", "LIMIT", 0, 1)[2]
  if last and tonumber(last) >= now then
    return tonumber(last) + 0.001
  end
  return now
end

-- Puts a session in the lane of its head run: hidden until its lock expires if it is
-- locked; else ready, keeping its place if it was ready already, or at `since` when
-- given (a place it had), or at the back of the line; and announced on the wake
-- channel. No runs: out of the lanes.
local function markReady(session, now, since)
  local lane = laneOf(session)
  if not lane then
    redis.call("ZREM", readySub, session)
    redis.call("ZREM", readyNormal, session)
    return
  end
  local other = lane == readySub and readyNormal or readySub
  local score = redis.call("ZSCORE", lane, session) or redis.call("ZSCORE", other, session)
  local current = score and tonumber(score) or nil
  redis.call("ZREM", other, session)
  local lockLeft = redis.call("PTTL", base .. "lock:" .. session)
  local wasReady = current ~= nil and current < readyBelow(now)
  local at
  if lockLeft > 0 then
    at = now + lockLeft
  elseif wasReady then
    at = current
  else
    at = since or backOfLine(lane, now)
  end
  redis.call("ZADD", lane, at, session)
  -- Announced whenever it is claimable, not only when newly ready: an entry that was
  -- hidden behind a lock matures silently, and nobody may have looked since.
  if at < readyBelow(now) then
    redis.call("PUBLISH", wakeChannel, "1")
  end
end

-- Adds one entry (JSON) to its session's queue; false when the run is queued already.
local function addEntry(json)
  local e = cjson.decode(json)
  if redis.call("HSETNX", entries, e.runId, json) == 0 then
    return false
  end
  redis.call("ZADD", base .. "queue:" .. e.sessionId, e.queueSeq, e.runId)
  return e.sessionId
end
