-- Puts a session into the ready lane of its head run (subagent or normal), unless
-- it is locked or has no runs. Keeps how long it has already waited when it only
-- changes lanes; a newly ready session is announced on the wake channel.
-- Needs: base (key prefix with hash tag), readySub, readyNormal, entries.
local wakeChannel = base .. "wake"

local function markReady(session, now)
  local queue = base .. "queue:" .. session
  local head = redis.call("ZRANGE", queue, 0, 0)[1]
  if not head or redis.call("EXISTS", base .. "lock:" .. session) == 1 then
    return
  end
  local entry = redis.call("HGET", entries, head)
  local lane = readyNormal
  if entry and cjson.decode(entry).priority == "subagent" then
    lane = readySub
  end
  local other = lane == readySub and readyNormal or readySub
  if redis.call("ZSCORE", lane, session) then
    return
  end
  local since = redis.call("ZSCORE", other, session)
  if since then
    redis.call("ZREM", other, session)
  else
    -- Newly ready: behind every session already waiting in the lane, even within the
    -- same millisecond (equal scores would order by session name, not by arrival).
    since = now
    local last = redis.call("ZRANGE", lane, -1, -1, "WITHSCORES")[2]
    if last and tonumber(last) >= since then
      since = tonumber(last) + 0.001
    end
  end
  redis.call("ZADD", lane, since, session)
  redis.call("PUBLISH", wakeChannel, "1")
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
