-- SPDX-License-Identifier: MIT
-- samples/luajit's counts test: traces that compile, abort and link in every way -jv prints,
-- then GC cycles counted by LuaJIT's own account (collectgarbage). Prints "full BYTES" after
-- each full collection and "cycles N" at the end; luajit_check.py compares them, and -jv's
-- lines, with the trace of the same process.
local ffi = require("ffi")

-- Traces.
local function sum(n) local s = 0 for i = 1, n do s = s + i % 7 end return s end
local function branchy(n)                 -- side traces
  local a, b = 0, 0
  for i = 1, n do if i % 3 == 0 then a = a + 1 else b = b + 1 end end
  return a + b
end
local function closures(n)                -- NYI: bytecode 51 (FNEW)
  local s = 0
  for i = 1, n do local f = function() return i end s = s + f() end
  return s
end
local function make(i) return function() return i end end
local function calls(n)                   -- aborts in another function than it started in
  local s = 0
  for i = 1, n do s = s + make(i)() end
  return s
end
local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end
local function stitched(n)                -- stitching around a fast function not compiled
  local s = 0
  for i = 1, n do s = s + #string.dump(sum) end
  return s
end
local function typeofs(n)                 -- NYI: unsupported variant of FastFunc ffi.typeof
  local s = 0
  for i = 1, n do s = s + ffi.sizeof(ffi.typeof("int")) end
  return s
end
local function resumes(n)
  local co = coroutine.wrap(function() while true do coroutine.yield(1) end end)
  local s = 0
  for i = 1, n do s = s + co() end
  return s
end
local ring = {}
local function garbage(n)                 -- the collector runs from trace code
  for i = 1, n do ring[i % 64 + 1] = {i} end
end
print(sum(1e5), branchy(1e5), closures(1e4), calls(1e4), fib(25), stitched(200),
      typeofs(2000), resumes(1e4))
garbage(5e4)
jit.flush()
print(sum(1e5))

-- GC cycles. The window starts with a full collection (ending any cycle in progress); from
-- then on the collector only runs when asked, and every cycle is one LuaJIT reports: a
-- collectgarbage("step") that returns true, or a collectgarbage("collect").
local cycles = 0
local function full()
  collectgarbage("collect")
  local kb = collectgarbage("count")
  collectgarbage("stop")
  cycles = cycles + 1
  print(string.format("full %d", kb * 1024))
end
-- Steps until one returns true. Interpreted: a trace compiled here could run the collector
-- between a step and the "stop" after it (a step restarts the automatic collector).
local function step_cycle()
  repeat
    local done = collectgarbage("step", 0)
    collectgarbage("stop")
  until done
  cycles = cycles + 1
end
jit.off(step_cycle)
local function churn(n)
  local t = {}
  for i = 1, n do t[i] = {i} end
  return t
end

full()
local keep = {}
for round = 1, 12 do
  keep[round % 3] = churn(5000)
  step_cycle()
  if round % 4 == 0 then full() end
end
full()
print(string.format("cycles %d", cycles))
