-- SPDX-License-Identifier: MIT
-- samples/luajit's stacks test: the collector runs from trace code (an allocation in a compiled
-- loop), then from the interpreter (the same loop with the JIT off for it).
local ring = {}
local function compiled(n)
  for i = 1, n do ring[i % 1024 + 1] = {i, i + 1} end
end
local function interpreted(n)
  for i = 1, n do ring[i % 1024 + 1] = {i, i + 1} end
end
jit.off(interpreted)
compiled(2e5)
interpreted(2e4)
