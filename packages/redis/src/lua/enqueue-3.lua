-- Adds runs to their sessions' queues (ordered by queueSeq, duplicates ignored)
-- and makes the sessions ready.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, entry JSON...
local readySub, readyNormal, entries = KEYS[1], KEYS[2], KEYS[3]
local base = ARGV[1]
--@include server-time
--@include mark-ready
local now = serverNow()

-- Sessions become ready in the order of their first entry in the call (pairs() over a
-- table would follow hash order).
local touched, order = {}, {}
for i = 2, #ARGV do
  local session = addEntry(ARGV[i])
  if session and not touched[session] then
    touched[session] = true
    table.insert(order, session)
  end
end
for _, session in ipairs(order) do
  markReady(session, now)
end
return 0
