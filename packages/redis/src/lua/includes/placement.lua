-- Shared by the scripts that place sessions in their lanes (enqueue, release, remove,
-- ready-stranded). A script that includes it takes as its third key `entries` (runId →
-- entry JSON of every queued run). Needs: lanes.
local entries = KEYS[3]
local wakeChannel = base .. "wake"

-- The priority and workspace of a session's head run, or nil when it has no runs.
local function headOf(session)
  local head = redis.call("ZRANGE", base .. "queue:" .. session, "0", "0")[1]
  if not head then
    return nil
  end
  local json = redis.call("HGET", entries, head)
  local entry = json and cjson.decode(json) or {}
  -- An entry queued before entries named their workspace counts in "default".
  return entry.priority == "subagent" and "subagent" or "normal", entry.workspaceId or "default"
end

-- A ready time behind every session already ready in the lane, even within the same
-- millisecond (equal scores would order by session name, not by arrival).
local function backOfLine(lane)
  local last = redis.call("ZREVRANGEBYSCORE", lane, bound, "-inf", "WITHSCORES", "LIMIT", "0", "1")[2]
  if last and tonumber(last) >= now then
    return tonumber(last) + 0.001
  end
  return now
end

-- Puts a session in the lanes of its head run: hidden until its lock expires if it is
-- locked; else ready, keeping its place if it was ready already, or at `since` when
-- given (a place it had), or at the back of the line; and announced on the wake
-- channel. No runs: out of the lanes. `unlocked`: this call dropped its lock, so that
-- it is hidden in its lanes (or in none), and ready at `since` or the back of the line.
local function place(session, since, unlocked)
  local priority, ws = headOf(session)
  if not priority then
    unplace(session)
    return
  end
  local lane = priority == "subagent" and readySub or readyNormal
  local laneOfWs = workspaceLane(ws, priority)
  local at = unlocked and (since or backOfLine(lane))
  local atArg = at and numberArg(at)
  -- Where it was is only worth reading when it was not just unlocked in these very lanes.
  if not (atArg and redis.call("ZADD", laneOfWs, "XX", "CH", atArg, session) == 1) then
    local score = redis.call("ZSCORE", laneOfWs, session)
    if not score then
      -- In another lane, another workspace's, or none (or only in a ready lane: placed
      -- before lanes were kept by workspace).
      local other = priority == "subagent" and readyNormal or readySub
      score = redis.call("ZSCORE", lane, session) or redis.call("ZSCORE", other, session)
      redis.call("ZREM", other, session)
      local wasIn = redis.call("HGET", sessionWs, session)
      if wasIn then
        redis.call("ZREM", workspaceLane(wasIn, "subagent"), session)
        redis.call("ZREM", workspaceLane(wasIn, "normal"), session)
        touch(wasIn, true)
      end
      if wasIn ~= ws then
        redis.call("HSET", sessionWs, session, ws)
      end
    end
    local current = score and tonumber(score)
    local lockLeft = redis.call("PTTL", base .. "lock:" .. session)
    if lockLeft > 0 then
      at = now + lockLeft
    elseif current and current < readyBelow(now) then
      at = current
    else
      at = since or backOfLine(lane)
    end
    atArg = numberArg(at)
    redis.call("ZADD", laneOfWs, atArg, session)
  end
  redis.call("ZADD", lane, atArg, session)
  local hidden = at >= readyBelow(now)
  touch(ws, hidden)
  -- Announced whenever it is claimable, not only when newly ready: an entry that was
  -- hidden behind a lock matures silently, and nobody may have looked since.
  if not hidden then
    redis.call("PUBLISH", wakeChannel, "1")
  end
end

-- Adds one entry (JSON) to its session's queue; false when the run is queued already.
local function addEntry(json)
  local e = cjson.decode(json)
  if redis.call("HSETNX", entries, e.runId, json) == 0 then
    return false
  end
  redis.call("ZADD", base .. "queue:" .. e.sessionId, numberArg(e.queueSeq), e.runId)
  return e.sessionId
end
