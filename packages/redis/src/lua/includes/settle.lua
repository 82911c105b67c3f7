-- Settling workspaces: the changes of a call that may move workspaces between the
-- sets of lanes.lua, made once at its end. Needs: lanes.
local sessionWs, asleep, passes = base .. "session-ws", base .. "workspaces-asleep", base .. "passes"

-- The workspaces this call changed, settled once at its end (settleTouched), in order
-- (touched[i]), each with whether a change may have made it less claimable (touched[ws]:
-- a session out of its lanes or hidden, a lock taken). A claimable workspace that met
-- only other changes (a session placed ready, a lock dropped or renewed) stays
-- claimable: settling it costs one read.
local touched = {}
local function touch(ws, mayLose)
  local before = touched[ws]
  if before == nil then
    touched[#touched + 1] = ws
  end
  touched[ws] = before == true or mayLose
end

-- Takes a session out of the lanes.
local function unplace(session)
  redis.call("ZREM", readySub, session)
  redis.call("ZREM", readyNormal, session)
  local ws = redis.call("HGET", sessionWs, session)
  if ws then
    redis.call("ZREM", workspaceLane(ws, "subagent"), session)
    redis.call("ZREM", workspaceLane(ws, "normal"), session)
    redis.call("HDEL", sessionWs, session)
    touch(ws, true)
  end
end

-- Puts each workspace touched where it belongs now: claimable (at its kept pass or
-- virtual time, whichever is later, if it was not: packages/core's wakePass), asleep
-- until the earliest time that may change by itself, or in neither set; then, if none
-- is left in either, starts virtual time over.
local function settleTouched()
  local gone = false
  for i = 1, #touched do
    local ws = touched[i]
    if touched[ws] or not redis.call("ZRANK", workspaces, ws) then
      local function firstScore(key)
        local score = redis.call("ZRANGE", key, "0", "0", "WITHSCORES")[2]
        return score and tonumber(score)
      end
      local lanes = firstScore(workspaceLane(ws, "subagent"))
      local normal = firstScore(workspaceLane(ws, "normal"))
      if normal and (not lanes or normal < lanes) then
        lanes = normal
      end
      local _, cap = fairShareOf(ws)
      local held = heldLocks(ws)
      local atCap, heldDue = false, nil
      -- A workspace no longer capped keeps its held locks until they go, released or lapsed.
      if cap or redis.call("EXISTS", held) == 1 then
        redis.call("ZREMRANGEBYSCORE", held, "-inf", numberArg(now))
        atCap = cap ~= nil and redis.call("ZCARD", held) >= cap
        heldDue = firstScore(held)
      end
      local pass = redis.call("ZSCORE", workspaces, ws)
      local vtime = tonumber(redis.call("ZSCORE", workspaces, VTIME)) or 0
      if lanes and lanes < readyBelow(now) and not atCap then
        if not pass then
          local kept = tonumber(redis.call("ZSCORE", passes, ws))
          redis.call("ZADD", workspaces, numberArg(kept and math.max(kept, vtime) or vtime), ws, numberArg(vtime), VTIME)
          if kept then
            redis.call("ZREM", passes, ws)
          end
          redis.call("ZREM", asleep, ws)
        end
      else
        if pass then
          redis.call("ZREM", workspaces, ws)
          if tonumber(pass) > vtime then
            redis.call("ZADD", passes, pass, ws)
          end
          -- Kept passes now at or behind virtual time are worth no more than it.
          redis.call("ZREMRANGEBYSCORE", passes, "-inf", numberArg(vtime))
        end
        -- At its cap, only a lock's end frees it; otherwise a hidden session maturing may do.
        local due = heldDue
        if not atCap and lanes and (not due or lanes < due) then
          due = lanes
        end
        if due then
          redis.call("ZADD", asleep, numberArg(due), ws)
        else
          redis.call("ZREM", asleep, ws)
          gone = true
        end
      end
    end
    touched[ws] = nil
    touched[i] = nil
  end
  if gone and redis.call("ZCARD", workspaces) <= 1 and redis.call("ZCARD", asleep) == 0 then
    redis.call("DEL", workspaces, passes)
  end
end
