-- The ready sessions of the workspaces that have any, claimable or waiting for their
-- cap (hidden sessions, whose lock is held, are not counted), for reports: at most
-- `limit` workspaces, the claimable ones first, least pass first, then those asleep.
-- KEYS: workspaces, workspaces-asleep
-- ARGV: base, limit
-- Returns a flat list of workspaceId, ready sessions pairs.
local base, limit = ARGV[1], tonumber(ARGV[2])
--@include server-time
--@include number-args
--@include workspace-keys
local bound = "(" .. numberArg(readyBelow(serverNow()))
local found, result = 0, {}
for _, set in ipairs({ KEYS[1], KEYS[2] }) do
  for _, ws in ipairs(redis.call("ZRANGE", set, "0", numberArg(limit))) do
    if found == limit then
      return result
    end
    -- "" in `workspaces` is virtual time (lanes.lua), not a workspace.
    local ready = ws == "" and 0 or redis.call("ZCOUNT", workspaceLane(ws, "subagent"), "-inf", bound)
      + redis.call("ZCOUNT", workspaceLane(ws, "normal"), "-inf", bound)
    if ready > 0 then
      found = found + 1
      table.insert(result, ws)
      table.insert(result, ready)
    end
  end
end
return result
