-- Adds runs to their sessions' queues (ordered by queueSeq, duplicates ignored)
-- and makes the sessions ready.
-- KEYS: readySub, readyNormal, entries
-- ARGV: base, fair-share digest, fair-share configuration or "", entry JSON...
--@include server-time
--@include lanes
--@include settle
--@include placement

-- Sessions become ready in the order of their first entry in the call (pairs() over a
-- table would follow hash order).
local seen, order = {}, {}
for i = 4, #ARGV do
  local session = addEntry(ARGV[i])
  if session and not seen[session] then
    seen[session] = true
    table.insert(order, session)
  end
end
for _, session in ipairs(order) do
  place(session)
end
settleTouched()
return 0
