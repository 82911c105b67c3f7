-- Adds runs to their sessions' queues (ordered by queueSeq, duplicates ignored)
-- and makes the sessions ready.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, entry JSON...
local readySub, readyNormal, entries = KEYS[1], KEYS[2], KEYS[3]
local base = ARGV[1]
--@include server-time
--@include mark-ready
local now = serverNow()

local touched = {}
for i = 2, #ARGV do
  local session = addEntry(ARGV[i])
  if session then
    touched[session] = true
  end
end
for session in pairs(touched) do
  markReady(session, now)
end
return 0
