-- The keys of a workspace, built from base (the key prefix with its hash tag).

-- A workspace's lane of `priority` ("subagent" or "normal"): its sessions of the ready
-- lane of that priority, with the same scores.
local function workspaceLane(ws, priority)
  return base .. "wready:" .. ws .. ":" .. priority
end

-- The sessions whose lock a capped workspace holds, scored by the lock's expiry.
local function heldLocks(ws)
  return base .. "held:" .. ws
end
