-- What the queue holds of each session named: its lock (token and time left), its place in
-- line while it waits to be claimed (a session hidden behind its lock does not wait), and
-- its queued runs in order. For the inspector and the jam scan (docs/spec.md §7), never the
-- hot path: O(sessions · (log n + maxEntries)).
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, maxEntries, sessionId...
-- Returns, per session, {sessionId, token or "", time left in ms, lane or "", ready score or
-- "", workspaceId or "", {entry JSON...}}.
local readySub, readyNormal, entries = KEYS[1], KEYS[2], KEYS[3]
local base, maxEntries = ARGV[1], tonumber(ARGV[2])
--@include server-time
local now = serverNow()
local views = {}
for i = 3, #ARGV do
  local session = ARGV[i]
  local lock = base .. "lock:" .. session
  local token = redis.call("GET", lock)
  local left = token and redis.call("PTTL", lock) or -2
  local lane, since = "", ""
  for _, named in ipairs({ { "subagent", readySub }, { "normal", readyNormal } }) do
    local score = redis.call("ZSCORE", named[2], session)
    if score and tonumber(score) < readyBelow(now) then
      lane, since = named[1], score
    end
  end
  local ws = lane ~= "" and redis.call("HGET", base .. "session-ws", session) or false
  local runIds = redis.call("ZRANGE", base .. "queue:" .. session, "0", tostring(maxEntries - 1))
  local queued = #runIds > 0 and redis.call("HMGET", entries, unpack(runIds)) or {}
  local json = {}
  for _, e in ipairs(queued) do
    if e then
      table.insert(json, e)
    end
  end
  table.insert(views, { session, token or "", left, lane, since, ws or "", json })
end
return views
